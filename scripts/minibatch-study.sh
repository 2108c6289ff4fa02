#!/usr/bin/env bash
# The fast mode's effect on the search itself (docs/training.md, "Mini-batches"): the quick
# search (configs/quick.toml: 4 islands x 24, moves 22/30/38/46, split by position) on a game
# database with [training] batch_size B = 1, 8, 16, 32, each run's best shapes then scored the
# same way -- trained from zero with plain SGD (B = 1) on the fitness set, tested on the held-out
# test set -- beside the Edax shape. Prints one line per B: search seconds, test MSE per move,
# their mean.
#
#   scripts/minibatch-study.sh DATA [EVALFORGE] [GENERATIONS]    (runs go to $OUT_DIR, default runs/minibatch-study)
set -euo pipefail
data=${1:?usage: scripts/minibatch-study.sh DATA [EVALFORGE] [GENERATIONS]}
bin=${2:-build/evalforge}
gens=${3:-60}
out=${OUT_DIR:-runs/minibatch-study}
mkdir -p "$out"
for b in 1 8 16 32; do
  sed "s/^batch_size = .*/batch_size = $b/" configs/quick.toml > "$out/quick-b$b.toml"
  grep -q "^batch_size = $b\$" "$out/quick-b$b.toml" || { echo "configs/quick.toml has no batch_size line"; exit 1; }
  rm -rf "$out/b$b"
  start=$(date +%s%N)
  "$bin" search --config "$out/quick-b$b.toml" --data "$data" --out "$out/b$b" --generations "$gens" --quiet
  echo $(( ($(date +%s%N) - start) / 1000000 )) > "$out/b$b.ms"
  "$bin" score --shapes edax --shapes "$out/b$b/best_shapes.json" --data "$data" --moves 22,30,38,46 \
    --split position --json > "$out/b$b-score.json"
done
python3 - "$out" <<'PY'
import json, os, sys
out = sys.argv[1]
print(f"{'B':>3} {'search s':>9}  test MSE of the searched shapes (B=1 training) by move    mean   Edax mean")
for b in (1, 8, 16, 32):
    j = json.load(open(os.path.join(out, f"b{b}-score.json")))
    secs = int(open(os.path.join(out, f"b{b}.ms")).read()) / 1000
    # Each row (move) has a cell per shape: the Edax shape, and island-M for every island;
    # the searched shape of a move is its own island's.
    cell = lambda r, name: next(c["mse"] for c in r["cells"] if c["shape"] == name)
    searched = [(r["move"], cell(r, f"island-{r['move']}")) for r in j["rows"]]
    edax = [cell(r, "edax") for r in j["rows"]]
    mean = sum(m for _, m in searched) / len(searched)
    print(f"{b:>3} {secs:>9.1f}  " + " ".join(f"{mv}:{m:.3f}" for mv, m in searched) +
          f"   {mean:.3f}   {sum(edax) / len(edax):.3f}")
PY
