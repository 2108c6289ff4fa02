// `--backend auto` with a device (backends/routing.hpp): the cost model's choices on the batches
// it was measured on (worked out by hand from its declared figures), its choice never slower by
// its own estimate than either backend alone, and the routing backend's results the same bits
// whichever way a batch goes: tested with a second CPU backend in the device's place and cost
// models that force each route.
#include "backends/routing.hpp"
#include <gtest/gtest.h>
#include <vector>
#include "cuda/cuda_backend.hpp"
#include "evalforge/backends/backend.hpp"
#include "evalforge/core/error.hpp"
#include "evalforge/core/rng.hpp"
#include "evalforge/games/othello/agent.hpp"
#include "evalforge/games/othello/game.hpp"
#include "evalforge/games/othello/shape.hpp"

using namespace ef;

namespace {

constexpr int kHostThreads = 16;  // the figures' host

TEST(RoutingCostModel, TheMeasuredBatchesGoWhereTheyRanFastest) {
  const routing::CostModel model;
  // The paper generation: 800 jobs, 2.48e8 samples, 310,000 dependent ones a job. CPU 4.90 s,
  // device 0.964 s; equal parts at f = (4.90 - 0.002) / (4.90 + 0.962) = 0.836 (0.806 s each).
  const routing::TrainWork generation{800, 2.48e8, 310000};
  const double f = model.device_share(generation, kHostThreads);
  EXPECT_NEAR(f, 0.836, 0.005);
  EXPECT_NEAR(model.device_seconds(generation, f), 0.806, 0.005);
  // The Elo-GA generation: 123,552 one-ply games, CPU 0.124 s, device 0.0159 s and the model's
  // fixed 2 ms: split at (0.1243 - 0.002) / (0.1243 + 0.0159) = 0.872.
  const routing::PlayWork elo{123552, false};
  EXPECT_NEAR(model.device_share(elo, kHostThreads), 0.872, 0.005);
  // 2,048 deep-search games: 1.12 s on the CPU, at least 7.7 s on the device (256 took 7.71 s):
  // all on the CPU. At 65,536 (35.8 s on the CPU) the device's 2,048-game rate, 4.23 ms a game,
  // earns it a share: (1 - f) 35.84 = 0.002 + 277.2 f at f = 0.1145.
  EXPECT_EQ(model.device_share(routing::PlayWork{2048, true}, kHostThreads), 0.0);
  EXPECT_NEAR(model.device_share(routing::PlayWork{65536, true}, kHostThreads), 0.1145, 0.001);
  // Small batches: 1,000 one-ply games take the CPU 1 ms, less than the device's fixed 2 ms.
  EXPECT_EQ(model.device_share(routing::PlayWork{1000, false}, kHostThreads), 0.0);
  EXPECT_EQ(model.device_share(routing::TrainWork{1, 1000, 1000}, kHostThreads), 0.0);
  EXPECT_EQ(model.device_share(routing::TrainWork{}, kHostThreads), 0.0);
  EXPECT_EQ(model.device_share(routing::PlayWork{}, kHostThreads), 0.0);
  // On 2 threads instead of 16 the CPU is 8 times slower: the generation goes further to the device.
  EXPECT_GT(model.device_share(generation, 2), f);
}

// Whatever the batch, the chosen share finishes no later (by the model) than any share on a grid
// of 1,001 from all on the CPU to all on the device.
TEST(RoutingCostModel, TheChoiceIsTheBestShareOnAFineGrid) {
  const routing::CostModel model;
  Rng rng(7, Purpose::kPopulation, 1);
  auto finish = [&](const auto& w, int threads, double f) {
    return std::max(f < 1 ? model.cpu_seconds(w, threads, f) : 0.0, f > 0 ? model.device_seconds(w, f) : 0.0);
  };
  auto grid_best = [&](const auto& w, int threads) {
    double best = finish(w, threads, 0.0);
    for (int i = 1; i <= 1000; ++i) best = std::min(best, finish(w, threads, i / 1000.0));
    return best;
  };
  for (int i = 0; i < 500; ++i) {
    const int threads = 1 + static_cast<int>(rng.below(64));
    const double jobs = 1 + rng.below(2000), per_job = 1 + rng.below(400000);
    const routing::TrainWork t{static_cast<std::size_t>(jobs), jobs * per_job, per_job};
    const double ft = model.device_share(t, threads);
    ASSERT_GE(ft, 0.0);
    ASSERT_LE(ft, 1.0);
    EXPECT_LE(finish(t, threads, ft), grid_best(t, threads) * (1 + 1e-9)) << i;
    const routing::PlayWork p{1 + rng.below(200000), rng.below(2) == 1};
    const double fp = model.device_share(p, threads);
    EXPECT_LE(finish(p, threads, fp), grid_best(p, threads) * (1 + 1e-9)) << i;
  }
}

TEST(RoutingCostModel, WhichAgentsSearch) {
  EXPECT_FALSE(routing::searches(play::swh_agent({1, -1})));
  EXPECT_TRUE(routing::searches(play::swh_agent({3, -1})));
  EXPECT_TRUE(routing::searches(play::swh_agent({1, 14})));
  EXPECT_FALSE(routing::searches(play::random_agent()));
}

// Positions of random games labelled by their disc difference, and jobs that differ in rate,
// epochs and order.
struct Training {
  PositionData data;
  std::vector<u32> train, eval;
  ntuple::Geometry geometry = ntuple::edax_shape().geometry();
  Training() {
    for (int g = 0; g < 400; ++g) {
      Rng rng(3, Purpose::kGame, static_cast<u32>(g));
      othello::Board b;
      for (int p = 0; p < 20 && !b.game_over(); ++p) {
        if (!b.moves()) {
          b.pass();
          continue;
        }
        b.play(rng.random_bit(b.moves()));
      }
      data.black.push_back(b.black());
      data.white.push_back(b.white());
      data.label.push_back((popcount64(b.black()) - popcount64(b.white())) * ntuple::kOne);
      (g % 4 == 0 ? eval : train).push_back(static_cast<u32>(g));
    }
  }
  std::vector<TrainJob> jobs(int positions, int n) const {
    std::vector<TrainJob> out(static_cast<std::size_t>(n));
    for (int k = 0; k < n; ++k) {
      TrainJob& j = out[static_cast<std::size_t>(k)];
      j.geometry = &geometry;
      j.positions = positions;
      j.train_ids = train;
      j.eval_ids = eval;
      j.params.epochs = 1 + k % 3;
      j.params.learning_rate = 0.05 + 0.01 * k;
      j.stream[0] = static_cast<u32>(k);
      j.return_weights = true;
    }
    return out;
  }
};

std::vector<OthelloJob> games(int n, int black, int white) {
  std::vector<OthelloJob> jobs(static_cast<std::size_t>(n));
  for (int k = 0; k < n; ++k) {
    jobs[static_cast<std::size_t>(k)].black = k % 2 ? white : black;
    jobs[static_cast<std::size_t>(k)].white = k % 2 ? black : white;
    jobs[static_cast<std::size_t>(k)].seed = 5;
    jobs[static_cast<std::size_t>(k)].game = static_cast<u32>(k);
  }
  return jobs;
}

// Cost models that send everything to the CPU, everything to the "device", or split.
routing::CostModel forcing(double device_speed) {
  routing::CostModel m;
  m.device_batch = 0;
  m.device_chain_sample = 0;
  m.device_sample = m.cpu_sample / device_speed;
  m.device_shallow_game = m.cpu_shallow_game / device_speed;
  m.device_searching_game = m.cpu_searching_game / device_speed;
  m.device_searching_floor = 0;
  return m;
}

TEST(RoutingBackend, EveryRouteGivesTheBitsOfOneBackend) {
  const Training t;
  auto reference = make_backend("cpu", 2);
  const int h = reference->add_positions(t.data);
  const std::vector<TrainJob> jobs = t.jobs(h, 12);
  std::vector<TrainResult> want(jobs.size());
  reference->train(jobs, want);
  play::OthelloAgent shallow = play::swh_agent({1, -1}), deep = play::swh_agent({2, 10});
  shallow.epsilon = deep.epsilon = 0.1;
  const int a = reference->add_agent(shallow), b = reference->add_agent(deep);
  const std::vector<OthelloJob> matches = games(40, a, b);
  std::vector<play::OthelloRecord> want_games(matches.size());
  reference->play(matches, want_games);

  // Device 1e-9 times a CPU thread's speed: all on the CPU; 1e9 times: all on the device; one
  // thread's speed against the CPU's two threads: a third on the device.
  for (const auto& [speed, share] : {std::pair{1e-9, 0.0}, {1e9, 1.0}, {1.0, 1.0 / 3}}) {
    auto routed = make_routing_backend("cpu", 2, 0, forcing(speed));
    ASSERT_FALSE(routing::last_device_share(*routed).has_value());
    ASSERT_EQ(routed->add_positions(t.data), h);
    std::vector<TrainResult> got(jobs.size());
    routed->train(jobs, got);
    ASSERT_TRUE(routing::last_device_share(*routed).has_value());
    EXPECT_NEAR(*routing::last_device_share(*routed), share, 1e-6) << "speed " << speed;
    for (std::size_t k = 0; k < jobs.size(); ++k) {
      EXPECT_TRUE(got[k].weights == want[k].weights) << "speed " << speed << " job " << k;
      EXPECT_EQ(got[k].eval_loss.squared, want[k].eval_loss.squared) << "speed " << speed << " job " << k;
    }
    ASSERT_EQ(routed->add_agent(shallow), a);
    ASSERT_EQ(routed->add_agent(deep), b);
    std::vector<play::OthelloRecord> got_games(matches.size());
    routed->play(matches, got_games);
    EXPECT_NEAR(*routing::last_device_share(*routed), share, 1e-6) << "speed " << speed;
    for (std::size_t k = 0; k < matches.size(); ++k) {
      ASSERT_EQ(got_games[k].plies, want_games[k].plies) << "speed " << speed << " game " << k;
      EXPECT_EQ(got_games[k].black_score, want_games[k].black_score) << "speed " << speed << " game " << k;
      for (int i = 0; i < got_games[k].plies; ++i) ASSERT_EQ(got_games[k].moves[i], want_games[k].moves[i]);
    }
    routed->remove_positions(h);
    std::vector<TrainResult> one(1);
    EXPECT_THROW(routed->train({jobs.data(), 1}, one), Error);
  }
}

// The measured model on the routing backend: searching players keep a batch on the CPU, a batch
// of one-ply players that is large enough goes mostly to the device, and update_agent moves a
// handle from one kind to the other.
TEST(RoutingBackend, SearchingPlayersKeepABatchOnTheCpu) {
  auto routed = make_routing_backend("cpu", 2, 0);
  const int shallow = routed->add_agent(play::swh_agent({1, -1}));
  const int deep = routed->add_agent(play::swh_agent({3, -1}));
  // Only the share is checked here (the games themselves: the test above).
  auto share_of = [&](int black, int white, int n) {
    const std::vector<OthelloJob> jobs = games(n, black, white);
    std::vector<play::OthelloRecord> r(jobs.size());
    routed->play(jobs, r);
    return *routing::last_device_share(*routed);
  };
  EXPECT_GT(share_of(shallow, shallow, 20000), 0.5);
  EXPECT_EQ(share_of(shallow, deep, 200), 0.0);
  routed->update_agent(deep, play::swh_agent({1, -1}));
  EXPECT_GT(share_of(shallow, deep, 20000), 0.5);
}

TEST(RoutingBackend, AutoWithoutADeviceIsTheCpuBackend) {
  std::string why;
  if (cuda_device_available(&why)) GTEST_SKIP() << "a device is present";
  auto backend = make_backend("auto", 1);
  EXPECT_EQ(backend->name().rfind("cpu", 0), 0u) << backend->name();
  EXPECT_FALSE(routing::last_device_share(*backend).has_value());
}

}  // namespace
