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
build/evalforge score --shapes "$run/best_shapes.json" --shapes edax --data "$data" --moves 22,30,38,46 \
  --json > "$run/score.json"
# The table, and at each move the island shape found for it against the Edax shape and the
# constant predictor (the mean score): the lower, the better. The test positions are the ones the
# search held out (the same split by position, seed 1), so no shape was chosen on them.
python3 - "$run/score.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
names = [s["name"] for s in j["shapes"]]
print("test MSE after training from zero (discs^2), %d games, split by %s" % (j["games"], j["split"]))
print("move " + "".join("%12s" % n[:12] for n in names) + "%12s" % "constant")
wins = 0
for r in j["rows"]:
    mse = {c["shape"]: c["mse"] for c in r["cells"]}
    print("%4d " % r["move"] + "".join("%12.2f" % mse[n] for n in names) + "%12.2f" % r["constant_mse"])
for r in j["rows"]:
    mse = {c["shape"]: c["mse"] for c in r["cells"]}
    own = [n for n in names if n.endswith("-%d" % r["move"])]
    if not own or "edax" not in mse: continue
    found, edax = mse[own[0]], mse["edax"]
    wins += found < edax
    print("move %d: found shape %s %.2f vs edax %.2f (%+.1f%%); constant predictor %.2f" %
          (r["move"], own[0], found, edax, 100 * (found - edax) / edax, r["constant_mse"]))
print("the found shape beats the Edax shape at %d of %d moves" % (wins, len(j["rows"])))
PY
echo "run directory: $run (metrics.csv, best_shapes.json, score.json, *.png)"
