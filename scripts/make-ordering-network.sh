#!/usr/bin/env bash
# Rebuilds the exact solver's built-in ordering network, networks/ordering/edax.{toml,efnet}
# (docs/search.md): the Edax shape trained from zero on the WTHOR database's perfect-play
# scores (--label theoretical), one network per 4 moves from move 30 to 54, 8 epochs, 99% of
# the positions. Training is deterministic, so this writes the same bytes as the shipped files
# (EndgameOrdering.BuiltinNetworkIsReproducible in tests/search_endgame_test.cpp checks it when
# the data is there).
#
#   scripts/make-ordering-network.sh [WTHOR_DIR] [OUT_DIR]
#
# WTHOR_DIR holds WTH_1977.wtb ... WTH_2015.wtb; without it (or with "-") the data set `wthor`
# is used, fetched and checked by `evalforge data fetch` on first use (docs/data.md).
# OUT_DIR defaults to networks/ordering.
set -euo pipefail
cd "$(dirname "$0")/.."
wthor=${1:--}
out=${2:-networks/ordering}
if [[ $wthor == - ]]; then
  files=(wthor)
else
  files=("$wthor"/WTH_*.wtb)
  [[ -e ${files[0]} ]] || { echo "make-ordering-network: no WTH_*.wtb files in $wthor"; exit 2; }
fi
bin=${EVALFORGE:-build/evalforge}  # tests pass the binary they built
[[ -x $bin ]] || { echo "make-ordering-network: build evalforge first (scripts/setup.sh)"; exit 2; }
"$bin" score --shapes edax --data "${files[@]}" --label theoretical --moves 30,34,38,42,46,50,54 \
  --epochs 8 --test-fraction 0.01 --no-cache --save-agents "$out"
