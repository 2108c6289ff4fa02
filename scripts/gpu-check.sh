#!/usr/bin/env bash
# CUDA backend check on a GPU machine, as ONE command: configure and build for sm_90, run the
# CPU-vs-GPU parity tests (training and self-play games) and `evalforge verify` (a generation
# and a games batch), run the CPU-vs-GPU benchmark (training, and games/s at depth 1, depth 4
# and exact from 14), print a summary and write the figures as JSON into $OUT (or
# bench/results/ when OUT is unset).
#
# The GPU machine has nvcc 13, CMake, ninja and a C++ compiler, but no Debian -dev packages and
# no network. So the dependencies travel as .deb files, unpacked there with `dpkg -x` into a
# private prefix that CMake is pointed at (no root install, nothing outside /tmp touched):
#
#   1. here, once (needs apt-get or the apt cache):   scripts/gpu-check.sh --prepare
#      -> .gpu-carry/debs/*.deb (~3 MB) and .gpu-carry/data/logbook.gam.gz when a logbook is
#         found (EF_LOGBOOK, or ../shared/data/othello/ beside this or the main checkout; 3.2 MB);
#         .gpu-carry/ is git-ignored.
#   2. with the device tool:
#        run(command="bash scripts/gpu-check.sh", carry=[".gpu-carry"], timeout_s=500)
#      Every step has a time limit; the required ones (build, parity tests, verify, training
#      benchmark) come first and the summary JSON is written right after them (279 s on the
#      H200 on 2026-12-04, 190 s of it the build); optional steps (the L2 experiment, games/s,
#      Elo-GA and Hex benchmarks, verify on the paper config) run only while the call stays
#      within GPU_CHECK_BUDGET seconds (default 460), so one call takes at most 8.5 minutes.
#      A rerun fits in a 15-minute device budget: GPU_CHECK_SKIP_BUILD=1 on a machine still
#      warm, or GPU_CHECK_BUDGET=0 (required steps only, about 5 minutes) on a fresh one.
#      Results come back as files of $OUT.
#
#   GPU_CHECK_SKIP_BUILD=1 reuses an existing build (GPU_CHECK_BUILD_DIR, default build-gpu),
#   e.g. for a second call on a machine that is still warm.
#
#   scripts/gpu-check.sh --prove-here   builds exactly as step 2 does, on this machine, with the
#      system's copies of those packages hidden (a private mount namespace; needs root), runs
#      the tests (GPU ones skip without a device) and prints `ldd` of the binaries.
set -uo pipefail

cd "$(dirname "$0")/.." || exit 2
root=$PWD
carry=$root/.gpu-carry
debs=$carry/debs
# Debian 12 (bookworm) packages: headers, CMake configs, static/shared libraries, and the
# runtime libraries that the -dev packages' .so links point to.
packages=(libfmt-dev libfmt9 libcli11-dev libtomlplusplus-dev libtomlplusplus3 nlohmann-json3-dev
          zlib1g-dev librandom123-dev libgtest-dev libgmock-dev libbenchmark-dev libbenchmark1debian
          libzip-dev libzip4)

say() { printf '\n== %s (%ds)\n' "$*" "$SECONDS"; }

# The Logistello book for the device's benchmarks: EF_LOGBOOK, or the data folder beside this
# checkout, or beside the main checkout when this one is a git worktree elsewhere.
find_logbook() {
  local common c
  common=$(git -C "$root" rev-parse --path-format=absolute --git-common-dir 2>/dev/null)
  for c in "${EF_LOGBOOK:-}" "$root/../shared/data/othello/logbook.gam.gz" \
           ${common:+"$(dirname "$common")/../shared/data/othello/logbook.gam.gz"}; do
    if [[ -n $c && -f $c ]]; then echo "$c"; return; fi
  done
}

prepare() {
  mkdir -p "$debs" "$carry/data"
  local p f
  for p in "${packages[@]}"; do
    f=
    for f in /var/cache/apt/archives/"${p}"_*_{amd64,all}.deb; do [[ -f $f ]] && break; f=; done
    if [[ -n $f ]]; then cp -f "$f" "$debs/"; else (cd "$debs" && apt-get download "$p:amd64" 2>/dev/null || apt-get download "$p") || return 1; fi
  done
  local book
  book=$(find_logbook)
  if [[ -n $book ]]; then cp -f "$book" "$carry/data/"; else echo "no logbook found (set EF_LOGBOOK=FILE): the device check will use generated games"; fi
  git check-ignore -q "$carry" || { echo "warning: $carry is not git-ignored (the device tool carries only ignored paths)"; }
  du -sh "$carry"; ls -l "$debs" "$carry/data"
  echo 'device tool: run(command="bash scripts/gpu-check.sh", carry=[".gpu-carry"], timeout_s=500)'
}

# Unpacks the carried .deb files into $1 (dpkg -x, or ar + tar where dpkg is missing) and fixes
# absolute symlinks (e.g. zlib's libz.so -> /lib/...) to point into the prefix.
unpack_debs() {
  local prefix=$1 d member
  rm -rf "$prefix" && mkdir -p "$prefix"
  for d in "$debs"/*.deb; do
    if command -v dpkg >/dev/null; then
      dpkg -x "$d" "$prefix" || return 1
    else
      member=$(ar t "$d" | grep '^data\.tar') || return 1
      ar p "$d" "$member" | tar -x -a -f - -C "$prefix" 2>/dev/null ||
        ar p "$d" "$member" | tar -xJ -C "$prefix" || return 1
    fi
  done
  local link target
  while IFS= read -r link; do
    target=$(readlink "$link")
    if [[ $target == /* ]]; then ln -sfn "$prefix$target" "$link"; fi
  done < <(find "$prefix" -type l)
  # pkg-config files (libzip's) name prefix=/usr: point them into the prefix.
  local pc
  while IFS= read -r pc; do
    sed -i "s|^prefix=/usr\$|prefix=$prefix/usr|" "$pc"
  done < <(find "$prefix" -name '*.pc')
}

# CMake arguments that take every dependency from the prefix (explicit paths: no reliance on
# the machine's library-architecture search rules).
cmake_dep_args() {
  local u=$1/usr l=$1/usr/lib/x86_64-linux-gnu
  echo "-DCMAKE_PREFIX_PATH=$u -Dfmt_DIR=$l/cmake/fmt -DGTest_DIR=$l/cmake/GTest -Dbenchmark_DIR=$l/cmake/benchmark" \
       "-Dtomlplusplus_DIR=$l/cmake/tomlplusplus -DCLI11_DIR=$u/share/cmake/CLI11" \
       "-Dnlohmann_json_DIR=$u/share/cmake/nlohmann_json -DRANDOM123_INCLUDE_DIR=$u/include" \
       "-DZLIB_INCLUDE_DIR=$u/include -DZLIB_LIBRARY=$l/libz.a -DZLIB_USE_STATIC_LIBS=ON" \
       "-DCMAKE_POLICY_VERSION_MINIMUM=3.5"
}

build() {  # build <build-dir> <prefix> <extra cmake args...>
  local dir=$1 prefix=$2
  shift 2
  local nvcc configure_log=/tmp/ef-gpu-check-configure.log
  nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
  # shellcheck disable=SC2046
  PKG_CONFIG_PATH=$prefix/usr/lib/x86_64-linux-gnu/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
  export PKG_CONFIG_PATH
  cmake -S "$root" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_COMPILER="$nvcc" \
    -DCMAKE_CUDA_ARCHITECTURES="90-real;90-virtual" $(cmake_dep_args "$prefix") "$@" 2>&1 | tee "$configure_log"
  [[ ${PIPESTATUS[0]} == 0 ]] || return 1
  grep -q 'evalforge: CUDA backend ON' "$configure_log" || { echo "CUDA was not enabled (see above)"; return 1; }
  timeout --kill-after=5 "${GPU_CHECK_BUILD_TIMEOUT:-240}" ninja -C "$dir" evalforge evalforge_tests gpu_bench evolve_bench hex_bench ||
    return 1
}

prove_here() {
  [[ -d $debs ]] || { echo "run scripts/gpu-check.sh --prepare first"; exit 2; }
  local prefix=/tmp/ef-gpu-check-deps dir=$root/build-gpucheck-prove
  unpack_debs "$prefix" || exit 1
  # No build time limit here: this machine may have 2 cores where the device has 16.
  export GPU_CHECK_BUILD_TIMEOUT=${GPU_CHECK_BUILD_TIMEOUT:-0}
  # A private mount namespace in which the system's copies of the packages are hidden: their
  # header directories and CMake package folders are empty, zlib's and libzip's headers and
  # libzip's pkg-config file are empty files.
  # EF_NATIVE=OFF: nothing specific to this machine's processor.
  # shellcheck disable=SC2016  # the inner script expands its own positional arguments
  unshare --mount --propagation private bash -c '
    set -e
    script=$1 dir=$2 prefix=$3
    for d in /usr/include/fmt /usr/include/CLI /usr/include/toml++ /usr/include/nlohmann /usr/include/gtest \
             /usr/include/gmock /usr/include/benchmark /usr/include/Random123 /usr/lib/x86_64-linux-gnu/cmake \
             /usr/share/cmake; do
      if [ -d "$d" ]; then mount -t tmpfs none "$d"; fi
    done
    for f in /usr/include/zlib.h /usr/include/zconf.h /usr/include/zip.h /usr/include/zipconf.h \
             /usr/lib/x86_64-linux-gnu/pkgconfig/libzip.pc; do if [ -f "$f" ]; then mount --bind /dev/null "$f"; fi; done
    echo "hidden: /usr/include/fmt has $(ls -A /usr/include/fmt | wc -l) entries, zlib.h $(wc -c < /usr/include/zlib.h) bytes"
    start=$(date +%s)
    bash "$script" --build-only "$dir" "$prefix" -DEF_NATIVE=OFF
    echo "prove-here: configure and build took $(( $(date +%s) - start ))s on $(nproc) cores"
    "$dir/tests/evalforge_tests" --gtest_brief=1
    for b in evalforge tests/evalforge_tests bench/gpu_bench; do echo "ldd $b:"; ldd "$dir/$b"; done
    if ldd "$dir/evalforge" "$dir/tests/evalforge_tests" "$dir/bench/gpu_bench" | grep "not found"; then exit 1; fi
  ' prove "$root/scripts/gpu-check.sh" "$dir" "$prefix"
  local rc=$?
  grep -E '^(fmt|GTest|benchmark|tomlplusplus|CLI11|nlohmann_json)_DIR|RANDOM123_INCLUDE_DIR|ZLIB_LIBRARY|LIBZIP_INCLUDEDIR' "$dir/CMakeCache.txt"
  echo "prove-here: exit $rc"
  exit $rc
}

case "${1:-}" in
  --prepare) prepare; exit $? ;;
  --prove-here) prove_here ;;
  --build-only) shift; build "$@"; exit $? ;;
  "") ;;
  *) echo "usage: scripts/gpu-check.sh [--prepare | --prove-here]"; exit 2 ;;
esac

# ---- on the GPU machine ----------------------------------------------------------------------
out=${OUT:-$root/bench/results}
mkdir -p "$out"
log=$out/gpu-check.log
exec > >(tee "$log") 2>&1
status=0
fail() { echo "FAILED: $*"; status=1; }

budget=${GPU_CHECK_BUDGET:-460}  # seconds for the whole call; optional steps start only within it
# step TIMEOUT NAME CMD...: runs CMD with a time limit; a failure or timeout marks the check failed.
step() {
  local limit=$1 name=$2 rc
  shift 2
  timeout --kill-after=5 "$limit" "$@"
  rc=$?
  if [[ $rc == 124 || $rc == 137 ]]; then fail "$name (timed out after ${limit}s)"; elif [[ $rc != 0 ]]; then fail "$name (exit $rc)"; fi
  echo "-- $name: exit $rc at ${SECONDS}s"
}
# optional TIMEOUT NAME CMD...: a step that runs only when its time limit fits in the budget left,
# and rewrites the summary after it.
optional() {
  local limit=$1 name=$2
  if ((SECONDS + limit > budget)); then echo "-- skipped: $name (needs up to ${limit}s, ${SECONDS}s of ${budget}s used)"; return; fi
  step "$@"
  summary >/dev/null
}
summary() {
  say "summary"
  command -v python3 >/dev/null || { echo "no python3: no summary JSON"; return; }
  SECONDS_USED=$SECONDS python3 - "$out" "$status" <<'EOF'
import json, os, sys
out, status = sys.argv[1], int(sys.argv[2])
def load(name):
    try:
        with open(os.path.join(out, name)) as f: return json.load(f)
    except Exception as e: return {"missing": str(e)}
tests = load("gpu-check-tests.json")
summary = {"status": "ok" if status == 0 else "failed",
           "tests": {k: tests.get(k) for k in ("tests", "failures", "disabled", "errors")},
           "verify": {n: {k: load(n).get(k) for k in ("identical", "training_identical", "jobs", "reference_seconds", "tested_seconds", "first_difference", "games", "tictactoe", "elo_generation")}
                      for n in ("verify-quick.json", "verify-quick-g3-b16.json", "verify-paper.json")},
           "bench": load("gpu-bench.json"),
           "l2_experiment": load("gpu-bench-l2.json").get("l2_experiment"),
           "games_bench": load("gpu-bench-games.json"),
           "evolve_bench": load("evolve-bench.json"),
           "hex_bench": load("hex-bench.json"),
           "seconds": int(os.environ.get("SECONDS_USED", "0"))}
with open(os.path.join(out, "gpu-check-summary.json"), "w") as f: json.dump(summary, f, indent=2)
b = summary["bench"]; g = b.get("gpu") or {}; c = b.get("cpu") or {}
print(f"tests: {summary['tests']}")
for n, v in summary["verify"].items(): print(f"{n}: identical={v.get('identical')} jobs={v.get('jobs')} cpu {v.get('reference_seconds')} s, cuda {v.get('tested_seconds')} s")
print(f"CPU: {c.get('seconds_per_generation')} s/generation (extrapolated from {c.get('measured_individuals')} individuals), {c.get('training_samples_per_s')} samples/s")
print(f"GPU: {g.get('seconds_per_generation')} s/generation, {g.get('training_samples_per_s')} samples/s, ratio {b.get('gpu_over_cpu')}")
print(f"GPU bound: {g.get('bound_seconds_4byte')} s (4-byte) / {g.get('bound_seconds_sectors')} s (sectors) at {g.get('memory_bandwidth_bytes_per_s')} B/s")
l2 = summary["l2_experiment"] or {}
if l2: print(f"L2 experiment: {l2.get('chunks')} chunks of at most {l2.get('budget_mib')} MiB, {l2.get('seconds_per_generation')} s/generation, {l2.get('jobs_identical')} jobs identical")
e = summary["evolve_bench"]
print(f"Elo-GA generation ({e.get('games')} games): CPU {e.get('cpu_seconds')} s, GPU {e.get('gpu_seconds')} s, ratio {e.get('gpu_over_cpu')}, differing games {e.get('differing_games')}")
for n, v in summary["verify"].items():
    gm = v.get("games") or {}
    if gm: print(f"{n} games: {gm.get('games')} identical={gm.get('identical')} cpu {gm.get('reference_seconds')} s, cuda {gm.get('tested_seconds')} s {gm.get('first_difference', '')}")
for gm in summary["games_bench"].get("games") or []:
    gc, gg = gm.get("cpu") or {}, gm.get("gpu") or {}
    print(f"games/s {gm.get('configuration')}: CPU {gc.get('games_per_s')} ({gc.get('games')} games), GPU {gg.get('games_per_s')} ({gg.get('games')} games), ratio {gm.get('gpu_over_cpu')}, parity {gm.get('parity_games_identical')}/{gm.get('parity_games_compared')}")
EOF
}

say "machine"
uname -srm
lscpu 2>/dev/null | grep -E '^(Model name|CPU\(s\)):' || true
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.memory --format=csv 2>/dev/null || echo "nvidia-smi: not available"
"$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)" --version | tail -n 2
cmake --version | head -n1; ninja --version; c++ --version | head -n1

say "dependencies from .gpu-carry/debs"
prefix=/tmp/ef-gpu-check-deps
if [[ -d $debs ]]; then
  unpack_debs "$prefix" || { echo "cannot unpack $debs"; exit 1; }
else
  echo "no $debs: run scripts/gpu-check.sh --prepare here and carry .gpu-carry"; exit 1
fi

dir=${GPU_CHECK_BUILD_DIR:-$root/build-gpu}
if [[ ${GPU_CHECK_SKIP_BUILD:-0} == 1 && -x $dir/bench/gpu_bench ]]; then
  say "reusing the build in $dir (GPU_CHECK_SKIP_BUILD=1)"
else
  say "configure and build (sm_90)"
  build "$dir" "$prefix" -DEF_NATIVE=ON || { echo "build failed"; exit 1; }
fi

data_args=()
[[ -f $carry/data/logbook.gam.gz ]] && data_args=(--data "$carry/data/logbook.gam.gz")
ev=$dir/evalforge

# Required steps first (parity, verify, training speed), then the summary JSON, then optional
# steps only while the budget allows: what matters is on disk even when the call is cut short.
say "parity tests"
step 120 "parity tests" "$dir/tests/evalforge_tests" \
  --gtest_filter='*Cuda*:GenerationBatch*:NTuple*:Backend*:Play*:EloGa*:FeatureTournament*:Hex*' \
  --gtest_output="json:$out/gpu-check-tests.json"

say "evalforge verify"
step 40 "verify quick (batch 1)" "$ev" verify --config configs/quick.toml --json "$out/verify-quick.json"
step 40 "verify quick generation 3, batch 16" "$ev" verify --config configs/quick.toml --generation 3 --batch 16 \
  --play-games 0 --json "$out/verify-quick-g3-b16.json"

say "benchmark: CPU vs GPU, one paper-size generation of training"
step 90 "gpu_bench (training)" "$dir/bench/gpu_bench" "${data_args[@]}" --repeats 3 --no-games --json "$out/gpu-bench.json"

summary
say "optional steps (budget ${budget}s, ${SECONDS}s used)"
paper_data=("${data_args[@]}")
((${#paper_data[@]})) || paper_data=(--games 20000)
# First the L2 experiment (the generation in chunks whose tables fit in L2: is the memory-bound
# generation of 2026-12-04 faster so? about 15 s), then self-play games/s, the figure still
# missing on 2026-12-04 (it did not finish in 150 s; it now saves each configuration as it
# finishes). Then the two short benchmarks, and the paper-size verify last (verify quick
# already compared training and games).
optional 60 "gpu_bench (training, L2 experiment)" "$dir/bench/gpu_bench" "${data_args[@]}" --repeats 1 --no-games \
  --l2-experiment --json "$out/gpu-bench-l2.json"
optional 150 "gpu_bench (self-play games/s)" "$dir/bench/gpu_bench" --repeats 3 --games-only --json "$out/gpu-bench-games.json"
optional 60 "evolve_bench (Elo-GA generation)" "$dir/bench/evolve_bench" --repeats 3 --json "$out/evolve-bench.json"
optional 40 "hex_bench (Hex playouts)" "$dir/bench/hex_bench" --repeats 3 --json "$out/hex-bench.json"
optional 90 "verify paper (64 individuals; 2048 games)" "$ev" verify --config configs/paper.toml "${paper_data[@]}" \
  --individuals 64 --play-games 2048 --json "$out/verify-paper.json"

summary
echo "gpu-check: $([[ $status == 0 ]] && echo OK || echo FAILED) in ${SECONDS}s; files in $out"
exit $status
