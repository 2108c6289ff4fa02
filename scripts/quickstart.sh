#!/usr/bin/env bash
# The README's first command: set everything up, then run the main job on the built-in
# default: generate a deterministic self-play dataset and print the Table 2-style test scores
# of the Edax shape on it.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
mkdir -p runs
data=runs/builtin-games.txt
if [[ ! -s $data ]]; then
  build/evalforge data generate --games 20000 --seed 1 --out "$data"
fi
build/evalforge score --shapes edax --data "$data" --moves paper
