#!/usr/bin/env bash
# Sweep of the training defaults (learning rate x epochs) for the Edax shape on a database,
# both splits, all 8 of the paper's moves; prints the mean test MSE over the moves per setting.
# Usage: scripts/sweep-training.sh [DATA] [EVALFORGE]   (docs/training.md holds its output)
set -euo pipefail
data=${1:-logbook}  # a data-set name (fetched on first use) or a path
bin=${2:-build/evalforge}
for split in position game; do
  for lr in 0.01 0.03 0.1; do
    for ep in 1 2 4 8; do
      "$bin" score --shapes edax --data "$data" --moves paper --split "$split" --lr "$lr" --epochs "$ep" --json |
        python3 -c "
import json, sys
j = json.load(sys.stdin)
rows = j['rows']
mse = [r['cells'][0]['mse'] for r in rows]
print(f\"$split lr=$lr epochs=$ep mean_test_mse={sum(mse)/len(mse):.3f} \" +
      ' '.join(f\"{r['move']}:{r['cells'][0]['mse']:.2f}\" for r in rows) + f\" train_s={j['seconds']['train']:.1f}\")"
    done
  done
done
