#!/usr/bin/env bash
# Turns n-tuple shapes into an agent that plays (docs/play.md, "From shapes to a strong agent"):
# the shapes' networks trained on every move number 1-59, each on the positions of its move and
# of the WINDOW moves with the same side to move on either side (score --window), from all the
# game records given, for EPOCHS passes; then
# ProbCut fitted for the trained networks. Writes two agents into OUT_DIR:
#   NAME.toml          the trained networks, a full-width search (any backend)
#   NAME-probcut.toml  the same networks with ProbCut (CPU backend and GTP; faster, other moves)
#
#   scripts/make-agent.sh SHAPES OUT_DIR [DATA ...]
#
# SHAPES is a search's best_shapes.json (played by phase: PHASES, default the paper's), or one
# shape: a name such as edax or a file holding one shape. Paths are taken from where you run it.
# DATA defaults to the data set `wthor` (WTHOR 1977-2015, fetched and checked by `evalforge data
# fetch` on first use, docs/data.md); give files (WTHOR .wtb, logbook .gam.gz, transcripts) to
# train on others. Knobs (environment): WINDOW (2), EPOCHS (4), LABEL
# (recorded; theoretical needs WTHOR files), DEPTH (8), EXACT (18), PROBCUT_POSITIONS (2000),
# PROBCUT_MAX_DEPTH (8), TEST_FRACTION (0.02), THREADS (0 = all cores). Training is
# deterministic: the same inputs write the same networks.
set -euo pipefail
if [[ $# -lt 2 ]]; then
  echo "usage: scripts/make-agent.sh SHAPES OUT_DIR [DATA ...]" >&2
  exit 2
fi
shapes=$1
out=$2
shift 2
data=("$@")
[[ ${#data[@]} -gt 0 ]] || data=(wthor)
bin=${EVALFORGE:-$(dirname "$0")/../build/evalforge}
[[ -x $bin ]] || { echo "make-agent: build evalforge first (scripts/setup.sh)" >&2; exit 2; }
window=${WINDOW:-2}
epochs=${EPOCHS:-4}
label=${LABEL:-recorded}
depth=${DEPTH:-8}
exact=${EXACT:-18}
positions=${PROBCUT_POSITIONS:-2000}
max_depth=${PROBCUT_MAX_DEPTH:-8}
test_fraction=${TEST_FRACTION:-0.02}
threads=${THREADS:-0}

phases=()
if [[ -f $shapes && $shapes == *.json ]]; then
  phases=(--phases "${PHASES:-paper}")
fi
mkdir -p "$out"
# 2% of the games held out (split by game): the test MSE printed per move is on games no
# network saw, at the network's own move (so every move needs some held-out game reaching it).
"$bin" score --shapes "$shapes" "${phases[@]}" --data "${data[@]}" --label "$label" --moves 1-59 \
  --window "$window" --epochs "$epochs" --split game --test-fraction "$test_fraction" --threads "$threads" \
  --agent-depth "$depth" --agent-exact "$exact" --save-agents "$out" | tee "$out/score.txt"

# The agent score wrote: the by-phase agent, or the agent of the one shape.
mapfile -t agents < <(sed -n 's/^agent written: //p' "$out/score.txt")
if [[ ${#agents[@]} -ne 1 ]]; then
  echo "make-agent: expected one agent from score, got ${#agents[@]}: give one shape or one shapes file" >&2
  exit 2
fi
agent=${agents[0]}
name=$(basename "$agent" .toml)
"$bin" probcut --agent "$agent" --out "$out/$name.probcut.toml" --positions "$positions" --max-depth "$max_depth" \
  --threads "$threads"
sed -e "s/^name = .*/name = \"$name-probcut\"/" "$agent" > "$out/$name-probcut.toml"
echo "probcut = \"$name.probcut.toml\"" >> "$out/$name-probcut.toml"
echo "agents written: $agent, $out/$name-probcut.toml"
