// CPU vs CUDA backend: the same jobs must give the same bits (loss sums, epoch losses,
// weights), and the same self-play batches the same games (move lists, plies, scores). Compiled in every build; the
// tests that need a device skip, saying why, in a build without CUDA or on a machine without a device. The no-device
// tests run there instead.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <algorithm>
#include <array>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include "cuda/cuda_backend.hpp"
#include "evalforge/backends/backend.hpp"
#include "evalforge/core/error.hpp"
#include "evalforge/core/rng.hpp"
#include "evalforge/ga/elo_ga.hpp"
#include "evalforge/games/othello/agent_file.hpp"
#include "evalforge/games/othello/fitness_matches.hpp"
#include "evalforge/games/othello/game.hpp"
#include "evalforge/games/othello/shape.hpp"
#include "games/othello/feature_weights.hpp"
#include "games/othello/ntuple_lanes.hpp"

using namespace ef;
using namespace ef::ntuple;

namespace {

#define REQUIRE_CUDA_DEVICE()                                                           \
  do {                                                                                  \
    std::string why_;                                                                   \
    if (!cuda_device_available(&why_)) GTEST_SKIP() << "needs a CUDA device: " << why_; \
  } while (0)

// Positions from random games, at every stage of the game (so that tuples see empty, partly
// and fully occupied patterns), labelled by a random "teacher" network plus noise.
PositionData make_positions(int n, u64 seed) {
  const Geometry teacher_shape = edax_shape().geometry();
  std::vector<i32> teacher(teacher_shape.num_weights());
  Rng wr(seed, Purpose::kPopulation, 1);
  for (auto& w : teacher) w = static_cast<i32>(wr.below(static_cast<u32>(kOne / 2))) - static_cast<i32>(kOne / 4);
  PositionData d;
  for (int g = 0; g < n; ++g) {
    Rng rng(seed, Purpose::kGame, static_cast<u32>(g));
    othello::Board b;
    const int plies = 4 + static_cast<int>(rng.below(56));
    for (int p = 0; p < plies && !b.game_over(); ++p) {
      u64 m = b.moves();
      if (!m) {
        b.pass();
        continue;
      }
      b.play(rng.random_bit(m));
    }
    d.black.push_back(b.black());
    d.white.push_back(b.white());
    const i64 noise = static_cast<i64>(rng.below(8 * kOne)) - 4 * kOne;
    d.label.push_back(evaluate(teacher_shape, teacher.data(), b.black(), b.white()) + noise);
  }
  return d;
}

// Shapes that exercise the lane layout: Edax (12 tuples, 3 per lane), small ones, tuples whose
// square set some images map onto itself (corners, centre, a whole edge: one sample then hits
// the same weight several times), an odd tuple count and the maximum of 64 tuples (16 per lane).
std::vector<Shape> test_shapes() {
  std::vector<Shape> shapes;
  shapes.push_back(edax_shape());
  shapes.push_back(make_shape("small", {{"a1", "b1", "c1"}, {"a1", "b2", "c3", "d4"}}, "test"));
  shapes.push_back(make_shape(
      "symmetric",
      {{"a1", "h1", "a8", "h8"}, {"d4", "e4", "d5", "e5"}, {"a1", "b1", "c1", "d1", "e1", "f1", "g1", "h1"}}, "test"));
  shapes.push_back(make_shape("five",
                              {{"a1", "b1", "c1", "d1", "e1"},
                               {"a2", "b2"},
                               {"c3", "d3", "e3"},
                               {"a1", "a2", "a3", "b1", "b2", "b3", "c1", "c2", "c3"},
                               {"b2", "g7"}},
                              "test"));
  shapes.push_back(make_shape(
      "twelve",  // the largest tuple size, beside a shorter one (uneven digit counts)
      {{"a1", "b1", "c1", "d1", "e1", "f1", "g1", "h1", "a2", "b2", "c2", "d2"}, {"c3", "d4", "e5"}}, "test"));
  Shape many;
  many.name = "sixty-four";
  for (int k = 0; k < kMaxTuples; ++k) {
    std::vector<int> t{k, (k + 1) % 64, (k + 8) % 64};
    std::sort(t.begin(), t.end());
    many.tuples.push_back(t);
  }
  shapes.push_back(many);
  return shapes;
}

struct Problem {
  std::vector<PositionData> sets;
  std::vector<std::vector<u32>> train, eval;
};

Problem make_problem() {
  Problem p;
  for (int s = 0; s < 2; ++s) {
    p.sets.push_back(make_positions(s == 0 ? 1200 : 700, 11 + s));
    std::vector<u32> train, eval;
    for (u32 i = 0; i < p.sets.back().size(); ++i) (i % 5 == 1 ? eval : train).push_back(i);
    p.train.push_back(std::move(train));
    p.eval.push_back(std::move(eval));
  }
  return p;
}

// A batch mixing position sets, shared and distinct spans, learning rates, epoch counts
// (0 included), seeds and stream words, with weights and epoch losses returned.
std::vector<TrainJob> make_jobs(const Problem& p, const std::vector<int>& handles,
                                const std::vector<Geometry>& geometries, int batch) {
  std::vector<TrainJob> jobs;
  for (std::size_t g = 0; g < geometries.size(); ++g)
    for (int k = 0; k < 5; ++k) {
      TrainJob j;
      const int set = k % 2;
      j.geometry = &geometries[g];
      j.positions = handles[set];
      j.train_ids = p.train[set];
      j.eval_ids = p.eval[set];
      j.params.learning_rate = 0.05 + 0.1 * k;
      j.params.epochs = k == 4 ? 0 : 1 + k % 3;
      j.params.batch_size = batch;
      j.params.seed = 7 + (k == 3);
      j.stream[0] = static_cast<u32>(set);
      j.stream[1] = static_cast<u32>(k % 2);
      j.return_weights = true;
      j.record_epoch_loss = k != 2;
      jobs.push_back(j);
    }
  return jobs;
}

void expect_same_loss(const LossSums& a, const LossSums& b, const std::string& what) {
  EXPECT_EQ(a.squared, b.squared) << what;
  EXPECT_EQ(a.absolute, b.absolute) << what;
  EXPECT_EQ(a.count, b.count) << what;
}

void expect_same_results(const std::vector<TrainResult>& cpu, const std::vector<TrainResult>& gpu,
                         const std::string& what) {
  ASSERT_EQ(cpu.size(), gpu.size());
  for (std::size_t k = 0; k < cpu.size(); ++k) {
    const std::string job = what + ", job " + std::to_string(k);
    expect_same_loss(cpu[k].eval_loss, gpu[k].eval_loss, job + " eval loss");
    ASSERT_EQ(cpu[k].epoch_loss.size(), gpu[k].epoch_loss.size()) << job;
    for (std::size_t e = 0; e < cpu[k].epoch_loss.size(); ++e)
      expect_same_loss(cpu[k].epoch_loss[e], gpu[k].epoch_loss[e], job + " epoch " + std::to_string(e));
    ASSERT_EQ(cpu[k].weights.size(), gpu[k].weights.size()) << job;
    std::size_t first_diff = cpu[k].weights.size();
    for (std::size_t w = 0; w < cpu[k].weights.size() && first_diff == cpu[k].weights.size(); ++w)
      if (cpu[k].weights[w] != gpu[k].weights[w]) first_diff = w;
    EXPECT_EQ(first_diff, cpu[k].weights.size())
        << job << ": weight " << first_diff << " cpu " << cpu[k].weights[first_diff] << " cuda "
        << gpu[k].weights[first_diff];
  }
}

std::vector<TrainResult> run(Backend& backend, const Problem& p, const std::vector<Geometry>& geometries, int batch) {
  std::vector<int> handles;
  for (const auto& s : p.sets) handles.push_back(backend.add_positions(s));
  const auto jobs = make_jobs(p, handles, geometries, batch);
  std::vector<TrainResult> results(jobs.size());
  backend.train(jobs, results);
  return results;
}

// Sets an environment variable for the scope of a test.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (old_)
      setenv(name_, old_->c_str(), 1);
    else
      unsetenv(name_);
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

}  // namespace

// The warp layout of the CUDA kernels (ntuple_lanes.hpp), run on the host: the 32 lanes
// together produce exactly feature_indices' output, each feature once. Runs in every build.
TEST(CudaLaneLayout, LanesCoverFeatureIndicesExactlyOnce) {
  const PositionData d = make_positions(200, 9);
  for (const Shape& s : test_shapes()) {
    const Geometry g = s.geometry();
    const int nf = g.num_features();
    std::vector<u32> host(static_cast<std::size_t>(nf));
    // The square lists as the warp builds them: each lane its share of the features.
    auto squares = std::make_unique<FeatureSquares>();
    for (int lane = 0; lane < kLanes; ++lane) build_feature_squares(g, *squares, lane, kLanes);
    for (std::size_t p = 0; p < d.size(); ++p) {
      feature_indices(g, d.black[p], d.white[p], host.data());
      std::vector<int> seen(static_cast<std::size_t>(nf), 0);
      for (int lane = 0; lane < kLanes; ++lane) {
        const LaneGeometry lg = lane_geometry(g, lane);
        u32 idx[kLaneSlots] = {};
        lane_features(lg, *squares, lane, d.black[p], d.white[p], idx);
        for (int j = 0; j < lg.slots; ++j) {
          const int f = lane_feature(lane, j);
          ASSERT_LT(f, nf) << s.name << " lane " << lane << " slot " << j;
          ++seen[static_cast<std::size_t>(f)];
          ASSERT_EQ(idx[j], host[static_cast<std::size_t>(f)]) << s.name << ", position " << p << ", feature " << f;
        }
      }
      for (int f = 0; f < nf; ++f) ASSERT_EQ(seen[static_cast<std::size_t>(f)], 1) << s.name << " feature " << f;
    }
  }
}

TEST(CudaParity, NoDeviceIsACleanError) {
  std::string why;
  if (cuda_device_available(&why)) GTEST_SKIP() << "a CUDA device is present: the no-device path is not reachable here";
  EXPECT_TRUE(why.rfind("no CUDA device: ", 0) == 0 || why.rfind("no CUDA backend: ", 0) == 0) << why;
  try {
    make_backend("cuda", 1);
    ADD_FAILURE() << "make_backend(\"cuda\") succeeded without a device";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
  }
  EXPECT_THROW(make_cuda_backend(1), Error);
  EXPECT_FALSE(cuda_device_info().has_value());
  // auto falls back to the CPU.
  EXPECT_EQ(make_backend("auto", 1)->name().rfind("cpu", 0), 0u);
}

TEST(CudaParity, SymmetricSamplingIndicesMatchTheHost) {
  REQUIRE_CUDA_DEVICE();
  const PositionData d = make_positions(300, 5);
  for (const Shape& s : test_shapes()) {
    const Geometry g = s.geometry();
    const auto device = cuda_feature_indices(g, d.black, d.white);
    const std::size_t nf = static_cast<std::size_t>(g.num_features());
    ASSERT_EQ(device.size(), d.size() * nf);
    std::vector<u32> host(nf);
    for (std::size_t p = 0; p < d.size(); ++p) {
      feature_indices(g, d.black[p], d.white[p], host.data());
      for (std::size_t f = 0; f < nf; ++f)
        ASSERT_EQ(device[p * nf + f], host[f]) << s.name << ", position " << p << ", feature " << f;
    }
  }
}

class CudaParityBatch : public testing::TestWithParam<int> {};

TEST_P(CudaParityBatch, LossesEpochLossesAndWeightsAreBitIdentical) {
  REQUIRE_CUDA_DEVICE();
  const int batch = GetParam();
  const Problem p = make_problem();
  std::vector<Geometry> geometries;
  for (const Shape& s : test_shapes()) geometries.push_back(s.geometry());
  auto cpu = make_backend("cpu", 2);
  auto gpu = make_backend("cuda", 2);
  const auto a = run(*cpu, p, geometries, batch);
  const auto b = run(*gpu, p, geometries, batch);
  expect_same_results(a, b, "batch " + std::to_string(batch));
  // The comparison can fail: training moved the weights away from zero.
  bool moved = false;
  for (i32 w : a[0].weights) moved = moved || w != 0;
  EXPECT_TRUE(moved);
  const auto stats = cuda_batch_stats(*gpu);
  ASSERT_TRUE(stats.has_value());
  EXPECT_EQ(stats->jobs, a.size());
  EXPECT_EQ(stats->distinct_id_lists, 2u);  // one eval list per position set, uploaded once
}

// batch_size 1, 16 (as the issue asks), 1000 (larger than the training set: one batch per epoch).
INSTANTIATE_TEST_SUITE_P(BatchSizes, CudaParityBatch, testing::Values(1, 16, 1000));

TEST(CudaParity, EmptyTrainingAndEvaluationLists) {
  REQUIRE_CUDA_DEVICE();
  const PositionData d = make_positions(200, 3);
  const Geometry g = edax_shape().geometry();
  const std::vector<u32> some{3, 1, 4, 1, 5, 9, 2, 6}, none;
  for (int batch : {1, 4}) {
    std::vector<TrainResult> results[2];
    for (int which = 0; which < 2; ++which) {
      auto backend = make_backend(which == 0 ? "cpu" : "cuda", 1);
      const int h = backend->add_positions(d);
      std::vector<TrainJob> jobs(3);
      for (auto& j : jobs) {
        j.geometry = &g;
        j.positions = h;
        j.params.batch_size = batch;
        j.return_weights = true;
        j.record_epoch_loss = true;
      }
      jobs[0].train_ids = none;  // no training: zero weights, loss of the zero network
      jobs[0].eval_ids = some;
      jobs[1].train_ids = some;  // duplicate ids in a list are allowed
      jobs[1].eval_ids = none;
      jobs[2].train_ids = some;
      jobs[2].eval_ids = some;
      results[which].resize(jobs.size());
      backend->train(jobs, results[which]);
    }
    expect_same_results(results[0], results[1], "empty lists, batch " + std::to_string(batch));
  }
}

// Jobs that continue from given weights, with the backend's shuffle and with train_ids as given
// (the match experiment's rounds), give the CPU's bits; a removed position set is an error on
// the device too, and the sets after it still train.
TEST(CudaParity, ContinuedJobsAndRemovedSets) {
  REQUIRE_CUDA_DEVICE();
  const PositionData d = make_positions(400, 5);
  const Geometry g = edax_shape().geometry();
  std::vector<i32> start(g.num_weights());
  Rng rng(7, Purpose::kPopulation, 2);
  for (auto& w : start) w = static_cast<i32>(rng.below(static_cast<u32>(kOne / 8))) - static_cast<i32>(kOne / 16);
  std::vector<u32> ids(300), eval(100);
  for (u32 i = 0; i < 300; ++i) ids[i] = 299 - i;
  for (u32 i = 0; i < 100; ++i) eval[i] = 300 + i;
  std::vector<TrainResult> results[2];
  for (int which = 0; which < 2; ++which) {
    auto backend = make_backend(which == 0 ? "cpu" : "cuda", 2);
    const int removed = backend->add_positions(d), h = backend->add_positions(d);
    backend->remove_positions(removed);
    std::vector<TrainJob> jobs(4);
    for (std::size_t k = 0; k < jobs.size(); ++k) {
      TrainJob& j = jobs[k];
      j.geometry = &g;
      j.positions = h;
      j.train_ids = ids;
      j.eval_ids = eval;
      j.params.epochs = 2;
      j.params.batch_size = k == 3 ? 8 : 1;
      j.stream[0] = static_cast<u32>(k);
      j.shuffle = k % 2 == 0;
      j.initial_weights = start;
      j.return_weights = true;
      j.record_epoch_loss = true;
    }
    results[which].resize(jobs.size());
    backend->train(jobs, results[which]);
    jobs[0].positions = removed;
    std::vector<TrainResult> r(1);
    EXPECT_THROW(backend->train({&jobs[0], 1}, r), Error) << backend->name();
  }
  expect_same_results(results[0], results[1], "continued jobs");
  EXPECT_FALSE(results[0][0].weights == start);
}

TEST(CudaParity, BatchSplitIntoChunksGivesTheSameBits) {
  REQUIRE_CUDA_DEVICE();
  const Problem p = make_problem();
  std::vector<Geometry> geometries{edax_shape().geometry(), edax_shape().geometry()};
  auto cpu = make_backend("cpu", 2);
  const auto reference = run(*cpu, p, geometries, 1);
  {
    // An Edax table is 0.9 MiB: 3 MiB holds a few jobs per chunk, so the batch of 10 splits.
    ScopedEnv limit(kCudaMemoryLimitEnv, "3");
    auto gpu = make_backend("cuda", 2);
    const auto split = run(*gpu, p, geometries, 1);
    const auto stats = cuda_batch_stats(*gpu);
    ASSERT_TRUE(stats.has_value());
    EXPECT_GT(stats->chunks, 2u);
    EXPECT_LE(stats->largest_chunk_bytes, stats->budget_bytes);
    expect_same_results(reference, split, "split batch");
  }
  {
    // Less than one job needs: a clear error, not a crash.
    ScopedEnv limit(kCudaMemoryLimitEnv, "0.5");
    auto gpu = make_backend("cuda", 2);
    try {
      run(*gpu, p, geometries, 1);
      ADD_FAILURE() << "a job larger than the memory budget ran";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("alone needs"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(kCudaMemoryLimitEnv), std::string::npos) << e.what();
    }
  }
  {
    ScopedEnv limit(kCudaMemoryLimitEnv, "lots");
    auto gpu = make_backend("cuda", 2);
    EXPECT_THROW(run(*gpu, p, geometries, 1), Error);
  }
}

TEST(CudaParity, BadIdsAreAnErrorNotACrash) {
  REQUIRE_CUDA_DEVICE();
  const PositionData d = make_positions(50, 3);
  const Geometry g = edax_shape().geometry();
  auto gpu = make_backend("cuda", 1);
  const int h = gpu->add_positions(d);
  const std::vector<u32> bad{0, 1, 50};
  TrainJob j;
  j.geometry = &g;
  j.positions = h;
  j.train_ids = bad;
  std::vector<TrainResult> r(1);
  EXPECT_THROW(gpu->train({&j, 1}, r), Error);
  j.train_ids = {};
  j.eval_ids = bad;
  EXPECT_THROW(gpu->train({&j, 1}, r), Error);
  j.eval_ids = {};
  j.params.batch_size = 0;
  EXPECT_THROW(gpu->train({&j, 1}, r), Error);
}

// ---- self-play: the same OthelloJob batch on both backends gives the same records ---------------

namespace {

// A position after `plies` uniformly random moves from the start (odd plies: white to move).
othello::Position random_start(u32 index, int plies) {
  Rng rng(4242, Purpose::kDatagen, index);
  return othello::random_opening(rng, plies);
}

// An Edax-shape n-tuple agent with one network per move number, small nonzero pseudo-random
// weights (+-0.5 disc).
play::OthelloAgent edax_agent(u64 seed, search::OthelloLimits limits, double epsilon = 0.0) {
  std::array<int, kMoveNumbers> geometry_of_move{};
  play::OthelloAgent a =
      play::ntuple_agent_per_move("edax-random", {edax_shape().geometry()}, {"edax"}, geometry_of_move, limits);
  a.epsilon = epsilon;
  for (std::size_t k = 0; k < a.networks.size(); ++k) {
    Rng rng(seed, Purpose::kPopulation, static_cast<u32>(k));
    for (i32& w : a.networks[k].weights)
      w = static_cast<i32>(rng.below(static_cast<u32>(kOne))) - static_cast<i32>(kOne / 2);
  }
  return a;
}

play::OthelloAgent features_agent(search::OthelloLimits limits, double epsilon = 0.0) {
  play::OthelloAgent a;
  a.name = "features";
  a.kind = play::OthelloEvaluator::kFeatures;
  a.limits = limits;
  a.epsilon = epsilon;
  a.features = features::parse_chromosome("14:42:0:0:4:0:4:10:2:7:9", features::Material::kFlips, "test");
  return a;
}

play::OthelloAgent with_epsilon(play::OthelloAgent a, double epsilon) {
  a.epsilon = epsilon;
  return a;
}

// Every ordered pair of `agents` (handles), `per_pair` games each from random openings of 4
// or 5 plies, game ids numbered through the batch.
std::vector<OthelloJob> round_robin(const std::vector<int>& agents, int per_pair, u64 seed, u32 first_game = 0) {
  std::vector<OthelloJob> jobs;
  u32 game = first_game;
  for (int b : agents)
    for (int w : agents)
      for (int k = 0; k < per_pair; ++k, ++game) {
        OthelloJob j;
        j.black = b;
        j.white = w;
        j.start = random_start(game, 4 + static_cast<int>(game % 2));
        j.seed = seed;
        j.game = game;
        jobs.push_back(j);
      }
  return jobs;
}

std::string describe_record(const play::OthelloRecord& r) {
  return fmt::format("plies {}, score {}, moves {}", r.plies, r.black_score,
                     fmt::join(std::vector<int>(r.moves, r.moves + r.plies), " "));
}

void expect_same_games(const std::vector<OthelloJob>& jobs, const std::vector<play::OthelloRecord>& cpu,
                       const std::vector<play::OthelloRecord>& gpu, const std::string& what) {
  ASSERT_EQ(cpu.size(), gpu.size());
  for (std::size_t k = 0; k < cpu.size(); ++k) {
    const bool same = cpu[k].plies == gpu[k].plies && cpu[k].black_score == gpu[k].black_score &&
                      std::equal(cpu[k].moves, cpu[k].moves + cpu[k].plies, gpu[k].moves);
    EXPECT_TRUE(same) << what << ", game " << k << " (agents " << jobs[k].black << " vs " << jobs[k].white
                      << "):\n  cpu  " << describe_record(cpu[k]) << "\n  cuda " << describe_record(gpu[k]);
  }
}

// Adds `agents` to both backends (same handles), plays `jobs` on each, compares the records.
struct GamePair {
  std::unique_ptr<Backend> cpu = make_backend("cpu", 2);
  std::unique_ptr<Backend> gpu = make_backend("cuda", 2);
  std::vector<int> add(const std::vector<play::OthelloAgent>& agents) {
    std::vector<int> handles;
    for (const auto& a : agents) {
      const int h = cpu->add_agent(a);
      EXPECT_EQ(gpu->add_agent(a), h);
      handles.push_back(h);
    }
    return handles;
  }
  // Returns the CUDA records (after comparing them with the CPU's).
  std::vector<play::OthelloRecord> check(const std::vector<OthelloJob>& jobs, const std::string& what) {
    std::vector<play::OthelloRecord> a(jobs.size()), b(jobs.size());
    cpu->play(jobs, a);
    gpu->play(jobs, b);
    expect_same_games(jobs, a, b, what);
    return b;
  }
};

}  // namespace

TEST(CudaParityGames, SwhDepthOneAndThree) {
  REQUIRE_CUDA_DEVICE();
  GamePair p;
  const auto h = p.add({play::swh_agent({1, -1}), play::swh_agent({3, -1})});
  const auto records = p.check(round_robin(h, 24, 1), "swh depth 1/3");
  u64 nodes = 0;
  for (const auto& r : records) nodes += r.nodes;
  EXPECT_GT(nodes, 0u);  // the kernel searched and counted
}

TEST(CudaParityGames, FeaturesAgent) {
  REQUIRE_CUDA_DEVICE();
  GamePair p;
  const auto h = p.add({features_agent({2, -1}), features_agent({3, -1}), play::swh_agent({2, -1})});
  p.check(round_robin(h, 12, 2), "features");
}

TEST(CudaParityGames, RandomAgent) {
  REQUIRE_CUDA_DEVICE();
  GamePair p;
  const auto h = p.add({play::random_agent(), play::swh_agent({1, -1})});
  const auto records = p.check(round_robin(h, 32, 3), "random");
  // random vs random games never search.
  for (std::size_t k = 0; k < 32; ++k) EXPECT_EQ(records[k].nodes, 0u);
}

TEST(CudaParityGames, EpsilonPointOne) {
  REQUIRE_CUDA_DEVICE();
  GamePair p;
  const auto h = p.add({with_epsilon(play::swh_agent({2, -1}), 0.1), features_agent({2, -1}, 0.1),
                        with_epsilon(play::swh_agent({1, 10}), 0.1)});
  p.check(round_robin(h, 16, 4), "epsilon 0.1");
}

TEST(CudaParityGames, EdaxShapeNtupleAgent) {
  REQUIRE_CUDA_DEVICE();
  GamePair p;
  const auto h = p.add({edax_agent(7, {2, -1}), play::swh_agent({2, -1}), edax_agent(8, {1, -1}, 0.05)});
  p.check(round_robin(h, 8, 5), "ntuple (Edax shape, per move)");
}

TEST(CudaParityGames, ExactEndgamesFromTwelveEmpties) {
  REQUIRE_CUDA_DEVICE();
  GamePair p;
  const auto h = p.add({play::swh_agent({2, 12}), edax_agent(9, {1, 12}), features_agent({1, 12}, 0.1)});
  p.check(round_robin(h, 12, 6), "exact from 12 empties");
}

TEST(CudaParityGames, MixedBatchAndUpdateAgent) {
  REQUIRE_CUDA_DEVICE();
  GamePair p;
  const auto h = p.add({play::swh_agent({1, -1}), play::swh_agent({3, 14}), play::random_agent(),
                        features_agent({2, 12}, 0.1), edax_agent(10, {2, 12}), edax_agent(11, {1, -1}, 0.1)});
  // Shuffled pairings so that neighbouring threads play different agents and kinds.
  std::vector<OthelloJob> jobs = round_robin(h, 4, 7);
  for (std::size_t i = jobs.size(); i > 1; --i) {
    Rng rng(5, Purpose::kShuffle, static_cast<u32>(i));
    std::swap(jobs[i - 1], jobs[rng.below(static_cast<u32>(i))]);
  }
  const auto before = p.check(jobs, "mixed batch");
  // Replace agent 4 (an n-tuple agent) by another network and agent 0 (swh) by an n-tuple agent:
  // the same handles now play differently, on both backends alike.
  const play::OthelloAgent replacement = edax_agent(99, {2, 12});
  p.cpu->update_agent(h[4], replacement);
  p.gpu->update_agent(h[4], replacement);
  const play::OthelloAgent other = edax_agent(100, {1, -1});
  p.cpu->update_agent(h[0], other);
  p.gpu->update_agent(h[0], other);
  const auto after = p.check(jobs, "mixed batch after update_agent");
  int changed = 0;
  for (std::size_t k = 0; k < jobs.size(); ++k)
    if (jobs[k].black == h[4] || jobs[k].white == h[4] || jobs[k].black == h[0] || jobs[k].white == h[0])
      changed += before[k].plies != after[k].plies ||
                 !std::equal(before[k].moves, before[k].moves + before[k].plies, after[k].moves);
  EXPECT_GT(changed, 0);
  EXPECT_THROW(p.gpu->update_agent(static_cast<int>(h.size()), other), Error);
}

TEST(CudaParityGames, BatchSplitIntoChunksGivesTheSameGames) {
  REQUIRE_CUDA_DEVICE();
  std::vector<play::OthelloRecord> reference;
  const std::vector<play::OthelloAgent> agents{play::swh_agent({2, 12}), features_agent({1, 14}, 0.1)};
  std::vector<OthelloJob> jobs;
  {
    GamePair p;
    const auto h = p.add(agents);
    jobs = round_robin(h, 16, 8);
    reference = p.check(jobs, "one chunk");
  }
  {
    // 0.005 MiB holds about 20 games without endgame tables: the 64 games split into chunks.
    ScopedEnv limit(kCudaMemoryLimitEnv, "0.005");
    GamePair p;
    p.add(agents);
    p.check(jobs, "split batch");
    const auto stats = cuda_batch_stats(*p.gpu);
    ASSERT_TRUE(stats.has_value());
    EXPECT_GT(stats->chunks, 2u);
    EXPECT_EQ(stats->jobs, jobs.size());
    EXPECT_LE(stats->largest_chunk_bytes, stats->budget_bytes);
  }
  {
    ScopedEnv limit(kCudaMemoryLimitEnv, "0.0001");
    auto gpu = make_backend("cuda", 1);
    for (const auto& a : agents) gpu->add_agent(a);
    std::vector<play::OthelloRecord> r(jobs.size());
    try {
      gpu->play(jobs, r);
      ADD_FAILURE() << "a play batch larger than the memory budget ran";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(kCudaMemoryLimitEnv), std::string::npos) << e.what();
    }
  }
}

TEST(CudaParityGames, BadJobsAreErrorsNotCrashes) {
  REQUIRE_CUDA_DEVICE();
  auto gpu = make_backend("cuda", 1);
  const int h = gpu->add_agent(play::swh_agent());
  std::vector<OthelloJob> jobs = round_robin({h}, 2, 1);
  std::vector<play::OthelloRecord> one(1), two(2);
  EXPECT_THROW(gpu->play(jobs, one), Error);
  jobs[1].white = 3;
  EXPECT_THROW(gpu->play(jobs, two), Error);
  jobs[1].white = -1;
  EXPECT_THROW(gpu->play(jobs, two), Error);
  EXPECT_THROW(gpu->add_agent(play::swh_agent({play::kMaxDepth + 1, -1})), Error);
  gpu->play(std::span<const OthelloJob>{}, std::span<play::OthelloRecord>{});  // an empty batch is fine
}

// The second playout game through the same kernel template: Tic-Tac-Toe minimax at depths 1, 4
// and 9, epsilon and random players, the perfect player (with epsilon), starts with either side to
// move.
TEST(CudaParityGames, TicTacToeGamesAreTheCpusGames) {
  REQUIRE_CUDA_DEVICE();
  auto cpu = make_backend("cpu", 2), gpu = make_backend("cuda", 2);
  std::vector<play::TicTacToeAgent> agents{play::tictactoe_agent(play::TicTacToeEvaluator::kStatic, 1),
                                           play::tictactoe_agent(play::TicTacToeEvaluator::kStatic, 4, 100000),
                                           play::tictactoe_agent(play::TicTacToeEvaluator::kStatic, 9),
                                           play::tictactoe_agent(play::TicTacToeEvaluator::kRandom, 1)};
  agents.resize(7);
  agents[6] = play::tictactoe_agent(play::TicTacToeEvaluator::kPerfect, 9, 50000);
  // Evolved-network players (pseudo-random bits), both topologies.
  for (int k = 0; k < 2; ++k) {
    const auto topology = k ? tictactoe::Topology::kPaper : tictactoe::Topology::kFull;
    std::vector<unsigned char> bits(tictactoe::network_bits(topology));
    Rng rng(9, Purpose::kPopulation, static_cast<u32>(k));
    for (auto& b : bits) b = static_cast<unsigned char>(rng.next_u32() & 1);
    agents[4 + k].params.kind = play::TicTacToeEvaluator::kNetwork;
    agents[4 + k].params.depth = 3 + k;
    agents[4 + k].params.network = tictactoe::decode_network(bits.data(), topology);
  }
  for (const auto& a : agents) ASSERT_EQ(cpu->add_agent(a), gpu->add_agent(a));
  std::vector<GameJobOf<games::TicTacToe>> jobs;
  for (int x = 0; x < 7; ++x)
    for (int o = 0; o < 7; ++o)
      for (int k = 0; k < 64; ++k) {
        GameJobOf<games::TicTacToe> j;
        j.black = x;
        j.white = o;
        if (k % 3 == 1) j.start = tictactoe::Board{}.play(k % 9);
        j.seed = 12;
        j.game = static_cast<u32>(jobs.size());
        jobs.push_back(j);
      }
  std::vector<play::TicTacToeRecord> a(jobs.size()), b(jobs.size());
  cpu->play(jobs, a);
  gpu->play(jobs, b);
  for (std::size_t k = 0; k < jobs.size(); ++k) {
    EXPECT_EQ(a[k].plies, b[k].plies) << "game " << k;
    EXPECT_EQ(a[k].black_score, b[k].black_score) << "game " << k;
    EXPECT_TRUE(std::equal(a[k].moves, a[k].moves + a[k].plies, b[k].moves)) << "game " << k;
  }
}

TEST(CudaParityGames, HexGamesAreTheCpusGames) {
  REQUIRE_CUDA_DEVICE();
  auto cpu = make_backend("cpu", 2), gpu = make_backend("cuda", 2);
  // Random play (UCT's playouts, plain and with bridge replies), Ev and Ev' (doubles: the device
  // must round as the host does) with and without virtual connections, and resistance (a banded
  // solve), some with epsilon.
  std::vector<play::HexAgent> agents(5);
  agents[0] = play::hex_random_agent();
  agents[1].params.kind = play::HexEvaluator::kBetweenness;
  agents[2].params.kind = play::HexEvaluator::kBetweenness;
  agents[2].params.betweenness.gamma = 0.1;
  agents[2].params.epsilon_ppm = 100000;
  agents[3].params.kind = play::HexEvaluator::kBetweenness;
  agents[3].params.betweenness.options.bridges = agents[3].params.betweenness.options.edge_bridges = false;
  agents[4].params.kind = play::HexEvaluator::kResistance;
  agents[4].params.epsilon_ppm = 50000;
  for (const auto& a : agents) ASSERT_EQ(cpu->add_agent(a), gpu->add_agent(a));
  std::vector<GameJobOf<games::Hex>> jobs;
  for (int b = 0; b < 5; ++b)
    for (int w = 0; w < 5; ++w)
      for (int k = 0; k < 8; ++k) {
        GameJobOf<games::Hex> j;
        j.black = b;
        j.white = w;
        j.start = hex::empty_board(k % 2 ? 7 : 11, k % 4 == 3);
        j.seed = 21;
        j.game = static_cast<u32>(jobs.size());
        jobs.push_back(j);
      }
  // Plain random playouts in bulk, as UCT hands them over.
  for (int k = 0; k < 4096; ++k) jobs.push_back({0, 0, hex::empty_board(11), 22, static_cast<u32>(k)});
  // And UCT's playouts with bridge replies (games/hex/playout_patterns.hpp).
  const int bridge = cpu->add_agent(play::hex_bridge_random_agent());
  ASSERT_EQ(gpu->add_agent(play::hex_bridge_random_agent()), bridge);
  for (int k = 0; k < 1024; ++k)
    jobs.push_back({bridge, bridge, hex::empty_board(k % 2 ? 7 : 11), 23, static_cast<u32>(k)});
  std::vector<play::HexRecord> a(jobs.size()), b(jobs.size());
  cpu->play(jobs, a);
  gpu->play(jobs, b);
  for (std::size_t k = 0; k < jobs.size(); ++k) {
    EXPECT_EQ(a[k].plies, b[k].plies) << "game " << k;
    EXPECT_EQ(a[k].black_score, b[k].black_score) << "game " << k;
    EXPECT_TRUE(std::equal(a[k].moves, a[k].moves + a[k].plies, b[k].moves)) << "game " << k;
  }
}

#if defined(EF_EVALFORGE_BIN) && defined(EF_SOURCE_DIR)
// `evalforge verify`: exit 0 when the backends agree, 4 with a "no CUDA ..." line without a device.
TEST(CudaParity, VerifyCommand) {
  const auto log = std::filesystem::temp_directory_path() / "ef_cuda_verify.log";
  const std::string cmd = std::string(EF_EVALFORGE_BIN) + " verify --config " + EF_SOURCE_DIR +
                          "/configs/quick.toml --individuals 6 --games 1500 > " + log.string() + " 2>&1";
  const int status = std::system(cmd.c_str());
  ASSERT_TRUE(WIFEXITED(status));
  std::stringstream text;
  text << std::ifstream(log).rdbuf();
  std::string why;
  if (cuda_device_available(&why)) {
    EXPECT_EQ(WEXITSTATUS(status), 0) << text.str();
    EXPECT_NE(text.str().find("identical"), std::string::npos) << text.str();
    EXPECT_NE(text.str().find("games: 256 identical"), std::string::npos) << text.str();  // the default games check
  } else {
    EXPECT_EQ(WEXITSTATUS(status), 4) << text.str();
    EXPECT_NE(text.str().find("no CUDA"), std::string::npos) << text.str();
  }
}

// The same procedure with the CPU as the backend under test (one thread against all): runs
// everywhere, so the batch building, job selection and comparison of `verify` (training and
// games) are exercised without a GPU. Generation 2 is reached by evolving, and mini-batches are
// used.
TEST(CudaParity, VerifyCommandWithTheCpuUnderTest) {
  const auto log = std::filesystem::temp_directory_path() / "ef_cpu_verify.log";
  const auto json = std::filesystem::temp_directory_path() / "ef_cpu_verify.json";
  const std::string cmd =
      std::string(EF_EVALFORGE_BIN) + " verify --backend cpu --config " + EF_SOURCE_DIR +
      "/configs/quick.toml --individuals 5 --games 1200 --generation 2 --batch 8 --play-games 64 --json " +
      json.string() + " > " + log.string() + " 2>&1";
  const int status = std::system(cmd.c_str());
  ASSERT_TRUE(WIFEXITED(status));
  std::stringstream text, report;
  text << std::ifstream(log).rdbuf();
  report << std::ifstream(json).rdbuf();
  EXPECT_EQ(WEXITSTATUS(status), 0) << text.str();
  EXPECT_NE(text.str().find("identical"), std::string::npos) << text.str();
  EXPECT_NE(report.str().find("\"identical\": true"), std::string::npos) << report.str();
  EXPECT_NE(report.str().find("\"jobs\": 6"), std::string::npos) << report.str();
  // The self-play part: 64 games on one thread against all threads, move for move.
  EXPECT_NE(text.str().find("games: 64 identical"), std::string::npos) << text.str();
  EXPECT_NE(report.str().find("\"training_identical\": true"), std::string::npos) << report.str();
  EXPECT_NE(report.str().find("\"games\": 64"), std::string::npos) << report.str();
}
#endif

// One Elo-GA generation (a double round robin of feature-weight chromosomes, 1 ply) as the one
// batch the evolve run plays: the CUDA backend's scores are the CPU's, game by game.
TEST(CudaParityGames, EloGaGenerationScoresAreTheCpus) {
  REQUIRE_CUDA_DEVICE();
  ga::EloGaParams params;
  params.population = 48;
  auto cpu = make_backend("cpu", 2), gpu = make_backend("cuda", 2);
  // The blog's 11-gene family and the positional 26-gene one (its terms are EF_HD code too).
  for (bool positional : {false, true}) {
    const ga::EloPopulation pop = ga::initial_population(play::feature_gene_ranges(positional), params, 2);
    std::vector<std::vector<int>> genes;
    for (const auto& m : pop.members) genes.push_back(m.genes);
    for (int opening_plies : {0, 4}) {
      play::FeaturePlayOptions o;
      o.opening_plies = opening_plies;
      o.epsilon = opening_plies ? 0.05 : 0.0;
      o.positional = positional;
      play::FeatureTournament a(*cpu, o), b(*gpu, o);
      play::TournamentCounts ca, cb;
      EXPECT_EQ(a.play_round_robin(genes, 3, 1, &ca), b.play_round_robin(genes, 3, 1, &cb))
          << "opening plies " << opening_plies << ", positional " << positional;
      EXPECT_EQ(ca.move_lists_hash, cb.move_lists_hash)
          << "opening plies " << opening_plies << ", positional " << positional;
    }
  }
}
