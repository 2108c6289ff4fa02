#!/usr/bin/env bash
# The README's first command: set everything up, then run the main job on the built-in
# default: generate a deterministic self-play dataset (the built-in n-tuple network at depth 2,
# perfect play from 12 empties, after 8 random moves: docs/data.md), run a quick BRKGA-island
# shape search on it, draw the run's figures, and score the shapes it found against the Edax
# shape.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
mkdir -p runs
# Named after its generator: runs/builtin-games.txt of earlier versions holds the swh1 games.
data=runs/builtin-edax-30000.txt
if [[ ! -s $data ]]; then
  build/evalforge data generate --games 30000 --seed 1 --out "$data"
fi
run=runs/quick-$(date +%Y%m%d-%H%M%S)
build/evalforge search --config configs/quick.toml --data "$data" --out "$run"
build/evalforge report "$run"
build/evalforge score --shapes "$run/best_shapes.json" --shapes edax --data "$data" --moves 22,30,38,46
echo "run directory: $run (metrics.csv, best_shapes.json, *.png)"
echo "what to look at: in the table above, each island-N column (the shape found for move N) should have a lower"
echo "test MSE than the edax column, at least on its own move; constant is the MSE of predicting the mean score"
echo "(edax well below it: the labels carry signal); irreduc. is 0 since equal positions are merged (docs/data.md)."
