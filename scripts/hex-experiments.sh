#!/usr/bin/env bash
# The Hex experiments of docs/hex.md (docs/method.md section 4), as resumable runs under OUT
# (default runs/hex): Ev against UCT at four playout budgets, the gamma sweep of Ev', the
# resistance evaluator as the classic reference, UCT self-play games for `hex analyse` (the sign
# convention), and a BRKGA tuning gamma whose best is then played on fresh games (seed 7) beside
# gamma = 0 on the same games.
# Rerunning the script resumes unfinished runs and skips finished ones.
# Usage: scripts/hex-experiments.sh [OUT] [GAMES]   (GAMES per match, default 200)
set -euo pipefail
out=${1:-runs/hex}
games=${2:-200}
bin=${EVALFORGE:-build/evalforge}
mkdir -p "$out"
match() {  # NAME A B [extra args]
  local name=$1 a=$2 b=$3
  shift 3
  if [[ -f "$out/$name/config.toml" ]]; then
    "$bin" hex match --resume "$out/$name" | tail -n 3 > "$out/$name.summary"
  else
    "$bin" hex match --a "$a" --b "$b" --games "$games" --size 11 --out "$out/$name" "$@" | tail -n 3 > "$out/$name.summary"
  fi
  echo "$name: A = $a, B = $b: $(sed -n 1p "$out/$name.summary" | sed 's/^ *all *//')"
}
match ev-vs-uct1000 ev uct:playouts=1000
match ev-vs-uct5000 ev uct:playouts=5000
match resistance-vs-uct1000 resistance uct:playouts=1000
match resistance-vs-uct5000 resistance uct:playouts=5000
for g in 0.05 0.1 0.2 0.5 1; do
  match "evp-gamma$g-vs-uct1000" "ev:gamma=$g" uct:playouts=1000
done
match uct5000-selfplay uct:playouts=5000 uct:playouts=5000 --seed 2
"$bin" hex analyse "$out/uct5000-selfplay" > "$out/uct5000-selfplay.analyse"
match ev-vs-uct300 ev uct:playouts=300
match ev-vs-uct100 ev uct:playouts=100
if [[ -f "$out/tune/config.toml" ]]; then
  "$bin" hex tune --resume "$out/tune" > "$out/tune.summary"
else
  "$bin" hex tune --opponent uct:playouts=1000 --population 8 --elite 2 --mutants 2 --generations 6 --games 24 \
    --gamma-max 2 --out "$out/tune" > "$out/tune.summary"
fi
cat "$out/tune.summary"
best=$(tail -n 1 "$out/tune/best.csv" | cut -d, -f2)
match tuned-vs-uct1000-seed7 "ev:gamma=$best" uct:playouts=1000 --seed 7
match ev-vs-uct1000-seed7 ev uct:playouts=1000 --seed 7
# The orientation of Ev''s C' term, against the stronger UCT (where gamma = 0 is near 50%):
# Eq. 11's (cp_sign=1) and the one self-play records point to (cp_sign=-1).
match evp-gamma0.1-vs-uct5000 ev:gamma=0.1 uct:playouts=5000
match evp-gamma0.1-cpinv-vs-uct5000 ev:gamma=0.1,cp_sign=-1 uct:playouts=5000
match evp-gamma0.5-cpinv-vs-uct5000 ev:gamma=0.5,cp_sign=-1 uct:playouts=5000
# Ablation: the network with one node per stone (own stones then count for nothing in a
# colour's own network), as first implemented.
match ev-cells-vs-uct1000 ev:groups=0 uct:playouts=1000
match ev-cells-vs-uct5000 ev:groups=0 uct:playouts=5000
