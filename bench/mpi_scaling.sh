#!/usr/bin/env bash
# Weak and strong scaling of `evalforge search` over MPI ranks on this machine, and the bytes a
# migration sends between ranks (docs/scale-out.md). Each rank gets one CPU thread, so a rank
# stands for one device: strong = a fixed archipelago on 1 and 2 ranks; weak = a fixed number
# of islands per rank. Seconds per generation are the mean of metrics.csv's wall seconds over
# the generations after the first (rank 0 measures a generation from its start to the last
# rank's report, so the time includes waiting for the slowest rank).
#
# Then the same for `evalforge evolve` (the Elo GA, whose games rank 0 splits over the ranks:
# backends/team_backend.hpp): seconds per generation for 1 and 2 ranks and K = 1 and 4 openings
# a pair, the median of 3 interleaved repetitions.
#
#   bench/mpi_scaling.sh [BUILD_DIR] [search|evolve|all]   (default build/ all; Markdown tables)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
what=${2:-all}
bin=$build/evalforge
mpiexec=$(command -v mpiexec || command -v mpirun) || { echo "mpi_scaling: no mpiexec (apt-get install openmpi-bin)"; exit 2; }
# Root allowed (containers); ranks on this machine only, without looking for ssh/rsh.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_plm=isolated
work=$(mktemp -d /tmp/ef-mpi-scaling-XXXXXX)
trap 'rm -rf "$work"' EXIT
"$bin" data generate --games 6000 --seed 11 --player swh1 --out "$work/games.txt" >/dev/null 2>&1
generations=${EF_BENCH_GENERATIONS:-6}

# config ISLANDS -> TOML of a search with that many islands (moves 20, 24, ...), migration
# every generation so that every generation after the first includes one.
config() {
  local moves
  moves=$(seq -s, 20 4 $((20 + 4 * ($1 - 1))))
  cat <<CONF
[search]
moves = [$moves]
island_size = 32
elite = 6
mutants = 6
generations = $generations
seed = 1
tuple_sizes = [8, 8, 7, 6, 6, 5]
[migration]
topology = "paper"
interval = 1
size = 4
[data]
files = ["$work/games.txt"]
[fitness]
test_every = 0
[training]
epochs = 6
[run]
checkpoint_every = 0
CONF
}

# run NAME ISLANDS RANKS [THREADS] -> "s/gen bytes/migration"; RANKS 0: one process, no mpirun;
# RANKS -D: one process with --devices 0..D-1 (D thread ranks, CPU backends standing in for GPUs)
run() {
  local name=$1 islands=$2 ranks=$3 threads=${4:-1} dir="$work/$1"
  config "$islands" >"$work/$name.toml"
  if ((ranks == 0)); then
    "$bin" search --quiet --threads "$threads" --config "$work/$name.toml" --out "$dir" >/dev/null
  elif ((ranks < 0)); then
    "$bin" search --quiet --threads $((threads * -ranks)) --devices "$(seq -s, 0 $((-ranks - 1)))" \
      --config "$work/$name.toml" --out "$dir" >/dev/null
  else
    "$mpiexec" --oversubscribe -np "$ranks" "$bin" search --quiet --threads 1 --config "$work/$name.toml" --out "$dir" >/dev/null
  fi
  local secs bytes
  secs=$(awk -F, 'NR > 1 && $1 > 0 { s[$1] = $8 } END { n = 0; t = 0; for (g in s) { t += s[g]; n++ } printf "%.3f", t / n }' "$dir/metrics.csv")
  bytes=$(grep -o 'ranks in this session: [0-9]* bytes' "$dir/log.txt" | grep -o '[0-9]* bytes' | grep -o '[0-9]*' || echo 0)
  echo "$secs $((bytes / (generations - 1)))"
}

if [[ $what == search || $what == all ]]; then
echo "# evalforge search over MPI ranks: $(lscpu | grep 'Model name' | sed 's/  */ /g'), $(nproc) cores, $(date -u +%Y-%m-%d)"
echo "# one CPU thread per rank; $generations generations, 32 individuals per island, 6 epochs, tuples 8,8,7,6,6,5, paper migration of 4 every generation"
echo
echo "| scaling | islands | ranks | threads per rank | islands per rank | s/generation | bytes per migration (all ranks) |"
echo "|---|---|---|---|---|---|---|"
# kind islands ranks threads (ranks 0: one process without mpirun, for reference)
for case in "strong 4 0 1" "strong 4 0 2" "strong 4 1 1" "strong 4 2 1" "strong 4 -2 1" "weak 2 1 1" "weak 4 2 1" \
            "strong 8 1 1" "strong 8 2 1"; do
  read -r kind islands ranks threads <<<"$case"
  read -r secs bytes < <(run "$kind-$islands-$ranks-$threads" "$islands" "$ranks" "$threads")
  label=$ranks count=$ranks
  ((ranks < 0)) && label="$((-ranks)) (--devices, threads)" count=$((-ranks))
  ((ranks == 0)) && label="1 (no mpirun)" count=1
  per=$((islands / count))
  echo "| $kind | $islands | $label | $threads | $per | $secs | $bytes |"
done
fi

[[ $what == evolve || $what == all ]] || exit 0

# evolve_config K -> an Elo GA of 64 players (4,032 x K games a generation), 2-ply players from
# random 4-ply openings, no yardstick: nothing but the round robin.
evolve_config() {
  cat <<CONF
[evolve]
kind = "elo-othello"
generations = $generations
stall_generations = 0
seed = 3
[population]
size = 64
[elo]
openings_per_pair = $1
selection = "score"
[play]
depth = 2
opening_plies = 4
[yardstick]
opponent = "none"
[run]
checkpoint_every = 1000
CONF
}

# evolve_run K RANKS THREADS REP -> seconds per generation (mean over the generations after the
# first); RANKS 0: one process without mpirun.
evolve_run() {
  local k=$1 ranks=$2 threads=$3 dir="$work/evolve-$1-$2-$3-$4"
  evolve_config "$k" >"$work/evolve-$k.toml"
  if ((ranks == 0)); then
    "$bin" evolve --quiet --threads "$threads" --config "$work/evolve-$k.toml" --out "$dir" >/dev/null
  else
    "$mpiexec" --oversubscribe -np "$ranks" "$bin" evolve --quiet --threads "$threads" \
      --config "$work/evolve-$k.toml" --out "$dir" >/dev/null
  fi
  awk -F, 'NR > 2 { t += $NF; n++ } END { printf "%.3f", t / n }' "$dir/metrics.csv"
}

median3() { printf '%s\n' "$@" | sort -g | sed -n 2p; }

echo
echo "# evalforge evolve (Elo GA) over MPI ranks: $(lscpu | grep 'Model name' | sed 's/  */ /g'), $(nproc) cores, $(date -u +%Y-%m-%d), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# 64 players, 2-ply, $generations generations; s/generation = median of 3 interleaved repetitions"
echo
echo "| openings a pair (K) | games a generation | 1 process, 1 thread | 1 process, 2 threads | mpirun -np 1 | mpirun -np 2 (1 thread each) | np 2 / 1 process 1 thread |"
echo "|---|---|---|---|---|---|---|"
for k in 1 4; do
  declare -a a=() b=() c=() d=()
  for rep in 1 2 3; do
    a+=("$(evolve_run "$k" 0 1 "$rep")")
    b+=("$(evolve_run "$k" 0 2 "$rep")")
    c+=("$(evolve_run "$k" 1 1 "$rep")")
    d+=("$(evolve_run "$k" 2 1 "$rep")")
  done
  ma=$(median3 "${a[@]}") mb=$(median3 "${b[@]}") mc=$(median3 "${c[@]}") md=$(median3 "${d[@]}")
  echo "| $k | $((4032 * k)) | $ma | $mb | $mc | $md | $(awk -v x="$md" -v y="$ma" 'BEGIN { printf "%.2f", x / y }') |"
done
