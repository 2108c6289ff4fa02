#!/usr/bin/env bash
# The hardening check (CI runs it after the test suite): a clang build with AddressSanitizer and
# UndefinedBehaviorSanitizer (no recovery) of the whole test suite and of the libFuzzer targets
# in tests/fuzz/, then the suite under the sanitizers, the split endgame solver's threads under
# ThreadSanitizer (tests/threads/), then every fuzz target for a bounded time
# from its seed corpus (tests/fuzz/corpus/<target>/; new inputs go to a scratch directory, not
# into the repository).
#
#   scripts/sanitize-check.sh [--fuzz-seconds N | --fuzz-runs R] [--fuzz-only] [--all-tests]
#                             [--targets "fuzz_games fuzz_gtp"]
#
# The suite leaves out a few long tests that repeat what shorter ones run (listed below;
# --all-tests runs them too). N defaults to 30 (CI passes 20); a longer local run, e.g. --fuzz-seconds 600 --fuzz-only, prints each
# target's executions. --fuzz-runs R runs each target for R executions instead (however long
# that takes), e.g. --fuzz-runs 1000000 --fuzz-only for a long local check. A crash, sanitizer
# report, leak, timeout (10 s an input) or out-of-memory (2 GiB) leaves the input in
# build-sanitize/fuzz-findings/<target>/ and fails the script; turn it into a regression test
# (a file in tests/fuzz/corpus/<target>/: the plain test suite replays every corpus).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=30 runs=0 fuzz_only=0 all_tests=0 targets=""
while (($#)); do
  case $1 in
    --fuzz-seconds) seconds=$2; shift 2 ;;
    --fuzz-runs) runs=$2; shift 2 ;;
    --fuzz-only) fuzz_only=1; shift ;;
    --all-tests) all_tests=1; shift ;;
    --targets) targets=$2; shift 2 ;;
    *) echo "usage: scripts/sanitize-check.sh [--fuzz-seconds N | --fuzz-runs R] [--fuzz-only] [--all-tests] [--targets \"...\"]"; exit 2 ;;
  esac
done
command -v clang++ >/dev/null || { echo "sanitize-check: clang++ is needed (apt-get install clang libclang-rt-dev)"; exit 2; }
dir=build-sanitize
# -gline-tables-only: a report's stack has file and line; full debug info (-g, for a debugger
# session on a finding) costs a fifth more build time, most of CI's share of this check.
# Without MPI: LeakSanitizer reports Open MPI's own allocations that outlive MPI_Finalize, which
# are not ours to fix; the MPI tests run in the plain build's test suite (.ci/run). Without the
# Python module: an ASan-instrumented extension cannot be loaded into an uninstrumented python3
# (the runtime must come first); its tests run in the plain build's suite too.
CC=clang CXX=clang++ cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only" -DEF_SANITIZE=address,undefined -DEF_FUZZ=ON \
  -DEF_ENABLE_CUDA=OFF -DEF_NATIVE=OFF -DEF_BUILD_BENCH=OFF -DEF_ENABLE_MPI=OFF -DEF_PYTHON=OFF >/dev/null
ninja -C "$dir"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# Left out under the sanitizers (--all-tests runs them too): tests that repeat, at a size that
# costs minutes under ASan, code that smaller tests of the same suite already run there; the plain
# build's suite (.ci/run) runs every one of them.
#   HexSolver.SixBySixOpenings...        the Hex solver on every 6x6 opening (263 s under ASan);
#                                        HexSolver.ProofNumberSearchAndNegamax... runs the same code
#   TttOracle.RandomSamplingScreens...   the Tic-Tac-Toe screen on many chunks (149 s); the other
#                                        TttOracle tests run the screen and the measures
#   EndgameParallel.ScoresAndMovesDoNot... threads x orderings x tables (136 s); FforumPositions-
#                                        ExactOnSeveralThreads and the TSan check below run the threads
#   OrderingCommand.WritesTheSameAgent...  the sampling command on 1 and 2 threads (115 s);
#                                        OrderingCommand.ResumesAStoppedSampling... runs it
#   EndgameOrdering.BuiltinNetworkIsReproducible  (43 s) EndgameOrdering.ScoresAndMoves... runs it
#   layering.*                           compiles headers and reads sources: nothing to sanitize
heavy='^(HexSolver\.SixBySixOpeningsMatchThePublishedTable|TttOracle\.RandomSamplingScreensTheSameNetworksAsTheMeasuresInChunks|EndgameParallel\.ScoresAndMovesDoNotDependOnThreadsOrderingOrTable|OrderingCommand\.WritesTheSameAgentOnOneAndTwoThreadsAndRefusesBadRanges|EndgameOrdering\.BuiltinNetworkIsReproducible|layering\..*)$'
if ((!fuzz_only)); then
  if ((all_tests)); then skip=(); else skip=(-E "$heavy"); fi
  ctest --test-dir "$dir" --output-on-failure -j"$(nproc)" "${skip[@]}"
  # The threads of one split endgame solve under ThreadSanitizer: the solver is header-only, so
  # this one file is built alone (tests/threads/solve_parallel_tsan.cpp says what it checks).
  clang++ -std=c++20 -O1 -gline-tables-only -fsanitize=thread -I include -I src tests/threads/solve_parallel_tsan.cpp \
    -o "$dir/solve_parallel_tsan"
  TSAN_OPTIONS=halt_on_error=1 "$dir/solve_parallel_tsan"
fi
[[ -n $targets ]] || targets=$(cd "$dir/tests/fuzz" && ls fuzz_* | grep -v '\.' | sort)
status=0
for t in $targets; do
  scratch=$(mktemp -d)
  findings=$dir/fuzz-findings/$t
  mkdir -p "$findings"
  log=$dir/fuzz-findings/$t.log
  if ((runs > 0)); then limit=(-runs="$runs"); else limit=(-max_total_time="$seconds"); fi
  start=$SECONDS
  if "$dir/tests/fuzz/$t" "${limit[@]}" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
       -artifact_prefix="$findings/" "$scratch" tests/fuzz/corpus/"$t" >"$log" 2>&1; then
    echo "$t: $(grep -m1 -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$') executions in $((SECONDS - start))s, no finding"
  else
    echo "$t: FINDING (see $log and $findings)"; tail -n 30 "$log"; status=1
  fi
  rm -rf "$scratch"
done
exit $status
