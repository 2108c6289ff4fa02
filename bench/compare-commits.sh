#!/usr/bin/env bash
# Same-run speed guard: builds an earlier commit beside the working tree (or beside a second
# commit) with the same options, then runs the same benchmarks of both in alternating rounds
# (round r runs the base first when r is even, the other first when r is odd), so that both
# see the same machine at the same time. Prints, for each benchmark, both figures of every
# round, each side's median, and the median of the per-round ratios with their range, beside
# the CPU model. A ratio above 1 means the working tree (or NEW) is faster.
#
#   bench/compare-commits.sh [options] BASE [NEW]
#
#   BASE, NEW      commits (anything `git rev-parse` takes); NEW defaults to the working tree as
#                  it is, uncommitted changes included
#   --rounds N     alternating rounds (default 5)
#   --only LIST    comma-separated subset of: train-game, train-position, paper-generation,
#                  solve-ffo, elo-generation (default: all)
#   --threads T    threads of the paper generation and the Elo-GA generation (default: all);
#                  the training and solve benchmarks run on one thread
#   --pause PID    stop that process (SIGSTOP) while measuring and continue it (SIGCONT) at the
#                  end, e.g. a long search running in the background: timings need an idle machine
#   --out FILE     also write the table to FILE
#   --dir DIR      where the worktrees and builds go (default build-compare/ in this checkout)
#   -D...          a CMake option for both builds (default: the user's defaults without CUDA,
#                  which the CPU benchmarks do not use: -DEF_ENABLE_CUDA=OFF)
#
# Data: the Logistello book and FFO #20-#39 from evalforge's data cache (fetched by the working
# tree's binary with `data fetch` when missing; offline, give copies with EF_LOGBOOK and
# EF_FFO). Every build is Release with the project's defaults (-march=native), as a user builds.
#
# The benchmarks (each side's own binary, same arguments):
#   train-game        search_bench --split game --island-size 3 --threads 1: training samples/s
#                     on the book split by game (77,520 positions an island; issue 57's figure)
#   train-position    search_bench --split position --island-size 10 --threads 1: samples/s
#   paper-generation  search_bench --split game (8 x 100, the paper's setting): s a generation
#   solve-ffo         evalforge solve FFO --threads 1: CPU s for the 20 positions (each side's
#                     own solver and default ordering network, so nodes may differ: printed)
#   elo-generation    evolve_bench --repeats 1: s of the CPU backend's batch of one generation
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
rounds=5 only="" threads=0 pause="" out="" dir="$root/build-compare" base="" new=""
cmake_opts=()
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
die() {
  echo "compare-commits: $*" >&2
  exit 2
}
need_value() { [[ $# -ge 2 && -n $2 ]] || die "$1 needs a value"; }
while (($#)); do
  case $1 in
    --rounds) need_value "$@"; rounds=$2; shift 2 ;;
    --only) need_value "$@"; only=$2; shift 2 ;;
    --threads) need_value "$@"; threads=$2; shift 2 ;;
    --pause) need_value "$@"; pause=$2; shift 2 ;;
    --out) need_value "$@"; out=$2; shift 2 ;;
    --dir) need_value "$@"; dir=$2; shift 2 ;;
    -D*) cmake_opts+=("$1"); shift ;;
    -h | --help) usage; exit 0 ;;
    -*) die "unknown option '$1' (see --help)" ;;
    *)
      if [[ -z $base ]]; then base=$1
      elif [[ -z $new ]]; then new=$1
      else die "unexpected argument '$1' (BASE [NEW])"; fi
      shift ;;
  esac
done
[[ -n $base ]] || die "no BASE commit given (see --help)"
[[ $rounds =~ ^[1-9][0-9]*$ ]] || die "--rounds '$rounds': expected a positive integer"
[[ $threads =~ ^[0-9]+$ ]] || die "--threads '$threads': expected a non-negative integer"
[[ -z $pause || $pause =~ ^[1-9][0-9]*$ ]] || die "--pause '$pause': expected a process id"
[[ -z $pause ]] || kill -0 "$pause" 2>/dev/null || die "--pause $pause: no such process"
((${#cmake_opts[@]})) || cmake_opts=(-DEF_ENABLE_CUDA=OFF)
all_benchmarks=(train-game train-position paper-generation solve-ffo elo-generation)
benchmarks=()
if [[ -z $only ]]; then
  benchmarks=("${all_benchmarks[@]}")
else
  IFS=, read -r -a benchmarks <<< "$only"
  for b in "${benchmarks[@]}"; do
    [[ " ${all_benchmarks[*]} " == *" $b "* ]] || die "--only: unknown benchmark '$b' (expected: ${all_benchmarks[*]})"
  done
fi
((threads > 0)) || threads=$(nproc)

cd "$root"
base_sha=$(git rev-parse --verify --quiet "$base^{commit}") || die "BASE '$base' is not a commit here"
if [[ -n $new ]]; then
  new_sha=$(git rev-parse --verify --quiet "$new^{commit}") || die "NEW '$new' is not a commit here"
  new_label=$(git rev-parse --short "$new_sha")
else
  modified=""
  [[ -z $(git status --porcelain --untracked-files=no) ]] || modified=", modified"
  new_label="working tree ($(git rev-parse --short HEAD)$modified)"
fi
base_label=$(git rev-parse --short "$base_sha")
mkdir -p "$dir"

# A commit's sources in a detached worktree under $dir (made once, reused).
checkout() {
  local sha=$1 src="$dir/src-${1:0:12}"
  if [[ ! -d $src ]]; then git worktree add --detach --quiet "$src" "$sha" >&2; fi
  echo "$src"
}
# Builds the targets the benchmarks need in SRC's own build folder under $dir.
build() {
  local src=$1 bld=$2
  echo "building $src in $bld ..." >&2
  cmake -S "$src" -B "$bld" -G Ninja -DCMAKE_BUILD_TYPE=Release "${cmake_opts[@]}" > "$bld.configure.log" 2>&1 ||
    die "configuring $src failed: $bld.configure.log"
  ninja -C "$bld" evalforge search_bench evolve_bench > "$bld.build.log" 2>&1 || die "building $src failed: $bld.build.log"
}
mkdir -p "$dir"
base_src=$(checkout "$base_sha")
base_bld="$dir/build-${base_sha:0:12}"
if [[ -n $new ]]; then
  new_src=$(checkout "$new_sha")
  new_bld="$dir/build-${new_sha:0:12}"
else
  new_src=$root
  new_bld="$dir/build-work"
fi
build "$base_src" "$base_bld"
build "$new_src" "$new_bld"

cache="${EF_DATA_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/evalforge/datasets}"
dataset() {  # NAME ENV_OVERRIDE FILE-IN-CACHE
  local name=$1 given=$2 file="$cache/$3"
  if [[ -n $given ]]; then
    [[ -f $given ]] || die "$name: '$given' is not a file"
    echo "$given"
    return
  fi
  [[ -f $file ]] || "$new_bld/evalforge" data fetch "$name" >&2 || die "$name: not in the data cache and not fetched (set EF_${name^^} to a copy)"
  echo "$file"
}
logbook=$(dataset logbook "${EF_LOGBOOK:-}" logbook/logbook.gam)
ffo=$(dataset ffo "${EF_FFO:-}" ffo/fforum-20-39.obf)

# One run of a benchmark with the binaries of build folder $1: prints "FIGURE EXTRA" where a
# larger FIGURE is better for rates (samples/s) and worse for seconds (see higher_is_better).
run_one() {
  local bld=$1 name=$2 outp
  case $name in
    train-game | train-position)
      local split=${name#train-} size=3
      [[ $split == position ]] && size=10
      outp=$("$bld/bench/search_bench" --data "$logbook" --split "$split" --island-size $size --threads 1 --generations 3)
      echo "$(grep -o 'training samples/s: [0-9.]*' <<< "$outp" | awk '{print $3}') M-samples/s"
      ;;
    paper-generation)
      outp=$("$bld/bench/search_bench" --data "$logbook" --split game --threads "$threads")
      echo "$(grep -o 'seconds per generation[^:]*: [0-9.]*' <<< "$outp" | awk '{print $NF}') s"
      ;;
    solve-ffo)
      outp=$("$bld/evalforge" solve "$ffo" --threads 1)
      echo "$(grep -o '[0-9.]* s CPU solving' <<< "$outp" | awk '{print $1}') s $(grep -o 'skipped), [0-9]* nodes' <<< "$outp" | awk '{print $2}')-nodes"
      ;;
    elo-generation)
      outp=$("$bld/bench/evolve_bench" --repeats 1 --threads "$threads")
      echo "$(awk '$1 == "cpu" {print $2; exit}' <<< "$outp") s"
      ;;
  esac
}
higher_is_better() { [[ $1 == train-* ]]; }

if [[ -n $pause ]]; then
  kill -STOP "$pause"
  trap 'kill -CONT "$pause" 2>/dev/null || true' EXIT
fi
median() { printf '%s\n' "$@" | sort -g | awk '{v[NR]=$1} END{if (NR%2) print v[(NR+1)/2]; else printf "%.3f\n", (v[NR/2]+v[NR/2+1])/2}'; }
range() { printf '%s\n' "$@" | sort -g | awk 'NR==1{lo=$1} {hi=$1} END{print lo "-" hi}'; }
cpu=$(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo)
table=$(mktemp)
{
  echo "# bench/compare-commits.sh, $(date -u +%Y-%m-%dT%H:%MZ)"
  echo "# CPU: $cpu, $(nproc) hardware threads; $(uname -sr)"
  echo "# base: $base_label $(git log -1 --format='(%ad) %s' --date=short "$base_sha" | cut -c1-100)"
  echo "# new:  $new_label"
  echo "# builds: Release ${cmake_opts[*]}, otherwise the project's defaults (-march=native); $rounds alternating rounds"
  echo "# ratio: new speed / base speed in the same round (> 1: new faster); median and range over the rounds"
  echo
  echo "| benchmark | unit | base, by round | new, by round | base median | new median | ratio median | ratio range | notes |"
  echo "|---|---|---|---|---|---|---|---|---|"
} > "$table"
cat "$table"
for name in "${benchmarks[@]}"; do
  base_figs=() new_figs=() ratios=() unit="" extra_b="" extra_n=""
  for ((r = 0; r < rounds; r++)); do
    if ((r % 2 == 0)); then
      b=$(run_one "$base_bld" "$name") || die "$name: the base's run failed"
      n=$(run_one "$new_bld" "$name") || die "$name: the new run failed"
    else
      n=$(run_one "$new_bld" "$name") || die "$name: the new run failed"
      b=$(run_one "$base_bld" "$name") || die "$name: the base's run failed"
    fi
    read -r bv unit extra_b <<< "$b"
    read -r nv _ extra_n <<< "$n"
    [[ $bv =~ ^[0-9.]+$ && $nv =~ ^[0-9.]+$ ]] || die "$name: no figure in a run's output (base '$b', new '$n')"
    base_figs+=("$bv")
    new_figs+=("$nv")
    if higher_is_better "$name"; then
      ratios+=("$(awk -v a="$nv" -v b="$bv" 'BEGIN{printf "%.3f", a/b}')")
    else
      ratios+=("$(awk -v a="$nv" -v b="$bv" 'BEGIN{printf "%.3f", b/a}')")
    fi
    printf '  %s, round %d: base %s, new %s %s\n' "$name" "$r" "$bv" "$nv" "$unit" >&2
  done
  notes=""
  [[ -n $extra_b ]] && notes="base ${extra_b//-/ }, new ${extra_n//-/ }"
  printf '| %s | %s | %s | %s | %s | %s | **%s** | %s | %s |\n' "$name" "$unit" "${base_figs[*]}" "${new_figs[*]}" \
    "$(median "${base_figs[@]}")" "$(median "${new_figs[@]}")" "$(median "${ratios[@]}")" \
    "$(range "${ratios[@]}")" "$notes" | tee -a "$table"
done
if [[ -n $out ]]; then cp "$table" "$out"; fi
rm -f "$table"
