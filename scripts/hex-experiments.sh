#!/usr/bin/env bash
# The Hex experiments of docs/hex.md (docs/method.md section 4), as resumable match runs under
# OUT (default runs/hex): Ev against UCT at two playout budgets, the gamma sweep of Ev', the
# resistance evaluator as the classic reference, and UCT self-play games for `hex analyse`.
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
for g in 0.05 0.1 0.2 0.3 0.5 1 2; do
  match "evp-gamma$g-vs-uct1000" "ev:gamma=$g" uct:playouts=1000
done
match uct5000-selfplay uct:playouts=5000 uct:playouts=5000 --seed 2
