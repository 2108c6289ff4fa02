#!/usr/bin/env bash
# The README's first command: set everything up, then run the main job on the built-in
# default: generate a deterministic self-play dataset, run a quick BRKGA-island shape search
# on it, draw the run's figures, and score the shapes it found against the Edax shape.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
mkdir -p runs
data=runs/builtin-games.txt
if [[ ! -s $data ]]; then
  build/evalforge data generate --games 20000 --seed 1 --out "$data"
fi
run=runs/quick-$(date +%Y%m%d-%H%M%S)
build/evalforge search --config configs/quick.toml --data "$data" --out "$run"
build/evalforge report "$run"
build/evalforge score --shapes "$run/best_shapes.json" --shapes edax --data "$data" --moves 22,30,38,46
echo "run directory: $run (metrics.csv, best_shapes.json, *.png)"
