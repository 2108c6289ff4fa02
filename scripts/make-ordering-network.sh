#!/usr/bin/env bash
# Rebuilds the exact solver's ordering networks (docs/search.md), in three stages:
#  1. networks/ordering/edax.{toml,efnet}, the WTHOR-trained network: the Edax shape trained from zero
#     on the WTHOR database's perfect-play scores (--label theoretical), one network per 4 moves
#     from move 30 to 54, 8 epochs, 99% of the positions (~2 minutes);
#  2. networks/ordering/edax-tree.{toml,efnet}: stage 1's agent with its networks of 12-19
#     empties retrained on positions of the solver's own search trees, labelled by exact solves
#     (`evalforge ordering`: 3000 roots of 20 empties from the same games; ~20 minutes on 2
#     cores; fewer nodes, not less time, docs/search.md). The games that pass through an FFO #20-#39 position give
#     no root, so that benchmark stays out of the data.
#  3. networks/ordering/edax-shapes.{toml,efnet}, the solver's default ordering: stage 1's agent
#     with its networks of 12-19 empties given shapes that the project's own shape search chose
#     on the solver's tree positions (1000 roots' samples, `evalforge ordering --samples-out`;
#     `evalforge search --config configs/ordering-shapes.toml` on them), trained on stage 2's
#     samples (`evalforge ordering --samples --shapes`; ~15 minutes on 2 cores).
#     WORK=DIR keeps the samples and the search run there (default: a new temporary folder).
# All are deterministic (any thread count), so this writes the same bytes as the shipped files
# (EndgameOrdering.BuiltinNetworkIsReproducible in tests/search_endgame_test.cpp checks stage 1
# when the data is there).
#
#   scripts/make-ordering-network.sh [WTHOR_DIR] [OUT_DIR] [STAGES]
#
# WTHOR_DIR holds WTH_1977.wtb ... WTH_2015.wtb; without it (or with "-") the data set `wthor`
# is used, fetched and checked by `evalforge data fetch` on first use (docs/data.md).
# OUT_DIR defaults to networks/ordering. STAGES: all (default) or wthor (stage 1 only).
# FFO=FILE.obf names the positions kept out of stage 2 (default: the data set `ffo`, fetched on
# first use; FFO=none keeps nothing out).
set -euo pipefail
cd "$(dirname "$0")/.."
wthor=${1:--}
out=${2:-networks/ordering}
stages=${3:-all}
[[ $stages == all || $stages == wthor ]] || { echo "make-ordering-network: STAGES is all or wthor, not $stages"; exit 2; }
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
[[ $stages == wthor ]] && exit 0
exclude=()
ffo=${FFO:-ffo}
[[ $ffo == none ]] || exclude=(--exclude "$ffo")
work=${WORK:-$(mktemp -d)}
mkdir -p "$work"
"$bin" ordering --data "${files[@]}" --base "$out/edax.toml" ${exclude[@]+"${exclude[@]}"} --out "$out/edax-tree.toml" \
  --samples-out "$work/tree-3000.obf"
# Stage 3: the shape search runs on 1000 roots' samples (7 minutes; on stage 2's 3000 it would
# take an hour), the searched shapes are trained on stage 2's samples.
"$bin" ordering --data "${files[@]}" --roots 1000 --base "$out/edax.toml" ${exclude[@]+"${exclude[@]}"} \
  --out "$work/edax-tree-1000.toml" --samples-out "$work/tree-1000.obf"
"$bin" search --config configs/ordering-shapes.toml --data "$work/tree-1000.obf" --out "$work/shape-search" --quiet
"$bin" ordering --samples "$work/tree-3000.obf" --base "$out/edax.toml" \
  --shapes "$work/shape-search/best_shapes.json" --out "$out/edax-shapes.toml"
echo "make-ordering-network: the samples and the shape search of stages 2 and 3 are in $work"
