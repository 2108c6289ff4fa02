#!/usr/bin/env bash
# A round robin between the champions of chosen generations of an evolve run (the blog's claim:
# later champions beat earlier ones with both colours), with Elo, Bradley-Terry ratings and 95%
# intervals from `evalforge tournament`.
#   scripts/hall-of-fame-tournament.sh RUN OUT OPENINGS OPENING_MOVES GEN...
# RUN: an evolve run directory; OUT: the tournament's run directory (created); OPENINGS random
# openings of OPENING_MOVES moves, each played twice per pairing with colours swapped
# (OPENINGS=1 OPENING_MOVES=0: the standard start only, as the blog's own games). The champion
# of generation G is the hall-of-fame entry of the latest generation <= G.
set -euo pipefail
if (($# < 5)); then sed -n 2,9p "$0"; exit 2; fi
run=$1 out=$2 openings=$3 moves=$4
shift 4
bin=${EVALFORGE:-$(dirname "$0")/../build/evalforge}
[[ -d $run/hall_of_fame ]] || { echo "$run: no hall_of_fame/ (not an evolve run?)" >&2; exit 2; }
mkdir -p "$(dirname "$out")"
config=$(mktemp --suffix=.toml)
trap 'rm -f "$config"' EXIT
{
  echo "[tournament]"
  echo "format = \"round-robin\""
  echo "openings = $openings"
  echo "opening_source = \"random\""
  echo "opening_moves = $moves"
  echo "seed = 1"
  for g in "$@"; do
    entry="" best=-1
    for f in "$run"/hall_of_fame/gen-*.toml; do
      n=$((10#$(basename "$f" .toml | sed 's/gen-//')))
      if ((n <= g && n > best)); then entry=$f best=$n; fi
    done
    [[ -n $entry ]] || { echo "$run: no champion at or before generation $g" >&2; exit 2; }
    echo ""
    echo "[[agent]]"
    echo "file = \"$(realpath "$entry")\""
    echo "name = \"gen-$g\""
  done
} > "$config"
"$bin" tournament --config "$config" --out "$out"
