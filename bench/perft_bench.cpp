// Othello rules throughput per core: perft from the start position (leaves/s, beside the
// reference figures of ~320 M leaves/s for a simple bitboard perft and ~450 M leaves/s for
// Edax, with our ratio to each), and flips()/legal_moves() on positions from random games,
// for the dispatching functions and each implementation by name.
#include <benchmark/benchmark.h>
#include <chrono>
#include <vector>
#include "evalforge/core/rng.hpp"
#include "evalforge/games/othello/bitboard.hpp"

using namespace ef;
using namespace ef::othello;

namespace {

constexpr double kSimpleBitboardRef = 320e6;  // leaves/s, simple bitboard perft, one core
constexpr double kEdaxRef = 450e6;            // leaves/s, Edax perft, one core

// Expected leaf counts (docs/anchors.md) so that a fast wrong perft cannot pass unnoticed.
constexpr u64 kPerft[] = {1, 4, 12, 56, 244, 1396, 8200, 55092, 390216, 3005288, 24571284, 212258800, 1939886636};

void BM_Perft(benchmark::State& state) {
  const int depth = static_cast<int>(state.range(0));
  u64 leaves = 0;
  double seconds = 0;  // timed here too, so that the ratios print as plain numbers
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    const u64 n = perft(kStartBlack, kStartWhite, depth);
    seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (n != kPerft[depth]) {
      state.SkipWithError("perft count differs from docs/anchors.md");
      return;
    }
    leaves += n;
  }
  const double rate = seconds > 0 ? static_cast<double>(leaves) / seconds : 0.0;
  state.counters["leaves/s"] = benchmark::Counter(static_cast<double>(leaves), benchmark::Counter::kIsRate);
  state.counters["ref_simple_320M"] = kSimpleBitboardRef;
  state.counters["ratio_simple"] = rate / kSimpleBitboardRef;
  state.counters["ref_edax_450M"] = kEdaxRef;
  state.counters["ratio_edax"] = rate / kEdaxRef;
}
BENCHMARK(BM_Perft)->Arg(9)->Arg(11)->Unit(benchmark::kMillisecond)->UseRealTime();
// Depth 12: 1,939,886,636 leaves, a few seconds, so one iteration
// (--benchmark_filter='BM_Perft/(9|11)/' leaves it out).
BENCHMARK(BM_Perft)->Arg(12)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(1);

// (player, opponent, square) triples: every legal move of every position of random games.
struct Triples {
  std::vector<u64> player, opponent;
  std::vector<int> square;
};

const Triples& triples() {
  static const Triples t = [] {
    Triples t;
    for (u32 g = 0; g < 400; ++g) {
      Rng rng(11, Purpose::kGame, g);
      Board b;
      while (!b.game_over()) {
        u64 m = b.moves();
        if (!m) {
          b.pass();
          continue;
        }
        for (u64 x = m; x; x &= x - 1) {
          t.player.push_back(b.player);
          t.opponent.push_back(b.opponent);
          t.square.push_back(ctz64(x));
        }
        b.play(rng.random_bit(m));
      }
    }
    return t;
  }();
  return t;
}

template <u64 (*Flips)(u64, u64, int)>
void BM_Flips(benchmark::State& state) {
  const Triples& t = triples();
  const std::size_t n = t.square.size();
  std::size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(Flips(t.player[i], t.opponent[i], t.square[i]));
    if (++i == n) i = 0;
  }
  state.counters["calls/s"] = benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}

template <u64 (*Moves)(u64, u64)>
void BM_LegalMoves(benchmark::State& state) {
  const Triples& t = triples();
  const std::size_t n = t.square.size();
  std::size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(Moves(t.player[i], t.opponent[i]));
    if (++i == n) i = 0;
  }
  state.counters["calls/s"] = benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}

u64 flips_dispatch(u64 P, u64 O, int sq) { return flips(P, O, sq); }
u64 flips_scalar(u64 P, u64 O, int sq) { return flips_portable(P, O, sq); }
u64 moves_dispatch(u64 P, u64 O) { return legal_moves(P, O); }
u64 moves_scalar(u64 P, u64 O) { return legal_moves_portable(P, O); }

BENCHMARK(BM_Flips<flips_dispatch>)->Name("BM_Flips");
BENCHMARK(BM_Flips<flips_scalar>)->Name("BM_Flips_portable");
BENCHMARK(BM_LegalMoves<moves_dispatch>)->Name("BM_LegalMoves");
BENCHMARK(BM_LegalMoves<moves_scalar>)->Name("BM_LegalMoves_portable");
#if defined(EF_OTHELLO_SIMD)
u64 flips_vector(u64 P, u64 O, int sq) { return flips_simd(P, O, sq); }
u64 moves_vector(u64 P, u64 O) { return legal_moves_simd(P, O); }
BENCHMARK(BM_Flips<flips_vector>)->Name("BM_Flips_simd");
BENCHMARK(BM_LegalMoves<moves_vector>)->Name("BM_LegalMoves_simd");
#endif

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::AddCustomContext("perft_reference",
                              "simple bitboard perft 320 M leaves/s, Edax 450 M leaves/s (one core); "
                              "ratio_simple and ratio_edax are our leaves/s divided by these");
#if defined(EF_OTHELLO_SIMD)
  benchmark::AddCustomContext("othello_rules", "AVX2 vector-extension path (flips/legal_moves = *_simd)");
#else
  benchmark::AddCustomContext("othello_rules", "portable scalar path (flips/legal_moves = *_portable)");
#endif
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
