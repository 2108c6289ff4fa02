// The generation batch of `evalforge verify` and bench/gpu_bench: the same jobs as the
// search's evaluate_generation, field by field.
#include <gtest/gtest.h>
#include "data/generate.hpp"
#include "evalforge/backends/backend.hpp"
#include "evalforge/core/error.hpp"
#include "evalforge/ga/islands.hpp"
#include "runs/shape_generation_batch.hpp"

using namespace ef;
using namespace ef::ga;

namespace {

// Runs jobs on the CPU and keeps a copy of every job it was given (ids and geometry by value).
struct OwnsCpuBackend {
  std::unique_ptr<Backend> cpu = make_backend("cpu", 2);
};
class RecordingBackend final : private OwnsCpuBackend, public ForwardingBackend {
 public:
  RecordingBackend() : ForwardingBackend(*cpu) {}
  struct Job {
    ntuple::Geometry geometry;
    int positions;
    std::vector<u32> train, eval;
    TrainParams params;
    u32 stream0, stream1;
  };
  std::string name() const override { return "recording"; }
  void train(std::span<const TrainJob> jobs, std::span<TrainResult> results) override {
    for (const TrainJob& j : jobs)
      recorded.push_back({*j.geometry,
                          j.positions,
                          {j.train_ids.begin(), j.train_ids.end()},
                          {j.eval_ids.begin(), j.eval_ids.end()},
                          j.params,
                          j.stream[0],
                          j.stream[1]});
    inner_.train(jobs, results);
  }
  std::vector<Job> recorded;
};

}  // namespace

TEST(GenerationBatch, SameJobsAsEvaluateGeneration) {
  data::GenerateOptions go;
  go.games = 400;
  go.seed = 3;
  SearchConfig config;
  config.islands.moves = {20, 28};
  config.islands.brkga = {.population_size = 6, .elite_count = 2, .mutant_count = 1, .elite_inheritance = 0.7};
  config.islands.migration = {Topology::kPaper, 2, 1};
  config.islands.seed = 9;
  const auto islands_data = island_positions(data::generate_games(go), config);
  ASSERT_EQ(islands_data.size(), 2u);
  for (const auto& i : islands_data) {
    EXPECT_EQ(i.data.size(), i.num_fitness + i.num_test);
    EXPECT_GE(i.num_fitness, 5u);
  }

  const Decoder decoder(default_search_region(), {4, 3, 3});
  Archipelago a = make_archipelago(config.islands, decoder.num_keys());
  RecordingBackend search_side, batch_side;
  std::vector<IslandFitnessData> data;
  for (const auto& i : islands_data) {
    const int h = search_side.add_positions(i.data);
    EXPECT_EQ(batch_side.add_positions(i.data), h);
    data.push_back({h, i.num_fitness});
  }
  FitnessOptions options;
  options.train.epochs = 2;
  const u32 generation = 5;
  std::vector<Population> islands = a.islands;
  evaluate_generation(search_side, decoder, islands, data, options, config.islands.seed, generation);

  GenerationBatch batch = build_generation_batch(decoder, a.islands, data, options, config.islands.seed, generation);
  GenerationBatch moved = std::move(batch);  // the jobs stay valid when the batch moves
  std::vector<TrainResult> results(moved.jobs.size());
  batch_side.train(moved.jobs, results);

  ASSERT_EQ(search_side.recorded.size(), batch_side.recorded.size());
  for (std::size_t k = 0; k < search_side.recorded.size(); ++k) {
    const auto& s = search_side.recorded[k];
    const auto& b = batch_side.recorded[k];
    ASSERT_EQ(s.geometry.num_tuples, b.geometry.num_tuples) << k;
    for (int t = 0; t < s.geometry.num_tuples; ++t) {
      EXPECT_EQ(s.geometry.mask[t], b.geometry.mask[t]) << k;
      EXPECT_EQ(s.geometry.offset[t + 1], b.geometry.offset[t + 1]) << k;
    }
    EXPECT_EQ(s.positions, b.positions) << k;
    EXPECT_EQ(s.train, b.train) << k;
    EXPECT_EQ(s.eval, b.eval) << k;
    EXPECT_EQ(s.params.seed, b.params.seed) << k;
    EXPECT_EQ(s.params.epochs, b.params.epochs) << k;
    EXPECT_EQ(s.params.batch_size, b.params.batch_size) << k;
    EXPECT_EQ(s.params.learning_rate, b.params.learning_rate) << k;
    EXPECT_EQ(s.stream0, b.stream0) << k;
    EXPECT_EQ(s.stream1, b.stream1) << k;
    const auto [island, slot] = moved.individual[k];
    EXPECT_EQ(islands[island].fitness[slot], results[k].eval_loss.mse()) << k;
  }
  EXPECT_THROW(build_generation_batch(decoder, a.islands, std::span(data).first(1), options, 1, 0), Error);
}
