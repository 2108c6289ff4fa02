// N-tuple throughput per core for the Edax shape with 8-way symmetric sampling:
// evaluation (positions/s), training with indices computed on the fly (samples/s), and
// training over pre-computed indices (samples/s), beside the reference figures of issue 2
// (~5 M samples/s straightforward, ~7.5 M with pre-computed indices, per core).
#include <benchmark/benchmark.h>
#include <vector>
#include "evalforge/backends/backend.hpp"
#include "evalforge/core/rng.hpp"
#include "evalforge/games/othello/shape.hpp"

using namespace ef;

namespace {

struct Positions {
  std::vector<u64> black, white;
  std::vector<i64> label;
};

const Positions& positions() {
  static const Positions p = [] {
    Positions p;
    for (u32 g = 0; g < 20000; ++g) {
      Rng rng(5, Purpose::kGame, g);
      othello::Board b;
      const int plies = 10 + static_cast<int>(rng.below(40));
      for (int k = 0; k < plies && !b.game_over(); ++k) {
        u64 m = b.moves();
        if (!m) {
          b.pass();
          continue;
        }
        b.play(rng.random_bit(m));
      }
      p.black.push_back(b.black());
      p.white.push_back(b.white());
      p.label.push_back((static_cast<i64>(rng.below(65)) - 32) * ntuple::kOne);
    }
    return p;
  }();
  return p;
}

void BM_Evaluate(benchmark::State& state) {
  const auto& p = positions();
  const ntuple::Geometry g = ntuple::edax_shape().geometry();
  std::vector<i32> w(g.num_weights(), 1);
  std::size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(ntuple::evaluate(g, w.data(), p.black[i], p.white[i]));
    if (++i == p.black.size()) i = 0;
  }
  state.counters["positions/s"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_Evaluate);

// SGD, indices computed for every step (what a single-epoch pass costs).
void BM_TrainOnTheFly(benchmark::State& state) {
  const auto& p = positions();
  const ntuple::Geometry g = ntuple::edax_shape().geometry();
  std::vector<i32> w(g.num_weights(), 0);
  const u32 rate = ntuple::rate_multiplier(0.5, g.num_features());
  u32 idx[8 * ntuple::kMaxTuples];
  std::size_t i = 0;
  for (auto _ : state) {
    ntuple::feature_indices(g, p.black[i], p.white[i], idx);
    benchmark::DoNotOptimize(ntuple::sgd_step(w.data(), idx, g.num_features(), p.label[i], rate));
    if (++i == p.black.size()) i = 0;
  }
  state.counters["samples/s"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
  state.counters["vs_5M_ref"] =
      benchmark::Counter(static_cast<double>(state.iterations()) / 5e6, benchmark::Counter::kIsRate);
}
BENCHMARK(BM_TrainOnTheFly);

// SGD over pre-computed indices (what every epoch after the first costs in the CPU backend).
void BM_TrainPrecomputed(benchmark::State& state) {
  const auto& p = positions();
  const ntuple::Geometry g = ntuple::edax_shape().geometry();
  const int nf = g.num_features();
  std::vector<u32> idx(p.black.size() * nf);
  for (std::size_t k = 0; k < p.black.size(); ++k) ntuple::feature_indices(g, p.black[k], p.white[k], &idx[k * nf]);
  std::vector<i32> w(g.num_weights(), 0);
  const u32 rate = ntuple::rate_multiplier(0.5, nf);
  std::size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(ntuple::sgd_step(w.data(), &idx[i * nf], nf, p.label[i], rate));
    if (++i == p.black.size()) i = 0;
  }
  state.counters["samples/s"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
  state.counters["vs_7.5M_ref"] =
      benchmark::Counter(static_cast<double>(state.iterations()) / 7.5e6, benchmark::Counter::kIsRate);
}
BENCHMARK(BM_TrainPrecomputed);

// A whole CPU-backend job (4 epochs with per-sample indices on the default vector path, then
// validation), one thread.
void BM_TrainJob(benchmark::State& state) {
  const auto& p = positions();
  const ntuple::Geometry g = ntuple::edax_shape().geometry();
  auto backend = make_backend("cpu", 1);
  const int h = backend->add_positions(PositionData{p.black, p.white, p.label});
  std::vector<u32> train, eval;
  for (u32 i = 0; i < p.black.size(); ++i) (i % 5 ? train : eval).push_back(i);
  TrainJob job;
  job.geometry = &g;
  job.positions = h;
  job.train_ids = train;
  job.eval_ids = eval;
  job.params.epochs = 4;
  std::vector<TrainResult> r(1);
  for (auto _ : state) backend->train({&job, 1}, r);
  state.counters["samples/s"] =
      benchmark::Counter(static_cast<double>(state.iterations()) * 4 * train.size(), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_TrainJob)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
