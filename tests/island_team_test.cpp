// Islands spread over ranks without MPI: the island-to-rank mapping, and migration between
// blocks of islands held by threads that talk through the in-memory team (thread_team.hpp). Every topology
// at every rank count up to the island count must give the populations of the one-process
// migration, and those must follow the rule (routes, mutant slots, unevaluated immigrants).
#include <gtest/gtest.h>
#include <atomic>
#include <set>
#include "evalforge/core/error.hpp"
#include "evalforge/ga/islands.hpp"
#include "ga/thread_team.hpp"

using namespace ef;
using namespace ef::ga;

namespace {

std::vector<double> keys_of(const Population& p, int i) {
  const auto k = p.individual(i);
  return {k.begin(), k.end()};
}

// Islands fresh from a generation transition (evaluated, sorted, then next_generation).
std::vector<Population> transitioned_islands(int n, const BrkgaParams& params, int num_keys, u64 seed) {
  std::vector<Population> islands;
  for (int k = 0; k < n; ++k) {
    Population p = random_population(params.population_size, num_keys, seed, static_cast<u32>(k));
    for (int i = 0; i < p.size; ++i) p.fitness[i] = p.keys[static_cast<std::size_t>(i) * num_keys];
    sort_population(p);
    islands.push_back(next_generation(p, params, seed, static_cast<u32>(k), 1));
  }
  return islands;
}

}  // namespace

TEST(IslandTeam, BlocksAreContiguousBalancedAndCoverEveryIsland) {
  for (int n = 1; n <= 9; ++n)
    for (int ranks = 1; ranks <= n; ++ranks) {
      int next = 0;
      for (int r = 0; r < ranks; ++r) {
        const IslandBlock b = island_block(r, ranks, n);
        EXPECT_EQ(b.first, next) << n << " islands, " << ranks << " ranks";
        EXPECT_TRUE(b.count == n / ranks || b.count == (n + ranks - 1) / ranks);
        for (int k = b.first; k < b.first + b.count; ++k) EXPECT_EQ(island_owner(k, ranks, n), r);
        next = b.first + b.count;
      }
      EXPECT_EQ(next, n);
    }
  // Spelled out: 8 islands on 3 ranks.
  EXPECT_EQ(island_block(0, 3, 8).count, 2);
  EXPECT_EQ(island_block(1, 3, 8).first, 2);
  EXPECT_EQ(island_block(1, 3, 8).count, 3);
  EXPECT_EQ(island_block(2, 3, 8).first, 5);
  EXPECT_THROW(island_block(0, 5, 4), Error);
}

TEST(IslandTeam, MigrationOverRanksGivesTheOneProcessPopulations) {
  const BrkgaParams params{.population_size = 14, .elite_count = 5, .mutant_count = 6, .elite_inheritance = 0.7};
  const int n = 5, num_keys = 6;
  const u64 seed = 17;
  for (Topology topology : {Topology::kPaper, Topology::kRing, Topology::kAll}) {
    const MigrationParams migration{topology, 1, 4};
    const auto before = transitioned_islands(n, params, num_keys, seed);
    auto whole = before;
    migrate(whole, params, migration, seed, 3);
    // The rule, checked directly: each island received the best `count` of each route's source
    // into mutant slots, unevaluated.
    for (int k = 0; k < n; ++k) {
      std::multiset<std::vector<double>> expected, received;
      for (const auto& r : migration_routes(topology, n, 4))
        if (r.to == k)
          for (int m = 0; m < r.count; ++m) expected.insert(keys_of(before[r.from], m));
      for (int slot = 0; slot < params.population_size; ++slot)
        if (keys_of(whole[k], slot) != keys_of(before[k], slot)) {
          EXPECT_GE(slot, params.elite_count);
          EXPECT_LT(slot, params.elite_count + params.mutant_count);
          EXPECT_FALSE(is_evaluated(whole[k].fitness[slot]));
          received.insert(keys_of(whole[k], slot));
        }
      EXPECT_EQ(received, expected) << topology_name(topology) << " island " << k;
    }
    for (int ranks = 1; ranks <= n; ++ranks) {
      std::vector<std::vector<Population>> blocks(static_cast<std::size_t>(ranks));
      std::vector<unsigned long long> bytes(static_cast<std::size_t>(ranks));
      run_thread_team(ranks, [&](ThreadTeam& team) {
        const int r = team.rank();
        const IslandBlock b = island_block(r, ranks, n);
        blocks[r].assign(before.begin() + b.first, before.begin() + b.first + b.count);
        migrate(blocks[r], b.first, n, params, migration, seed, 3, team);
        bytes[r] = team.exchanged_bytes();
      });
      std::vector<Population> joined;
      unsigned long long total_bytes = 0;
      for (int r = 0; r < ranks; ++r) {
        joined.insert(joined.end(), blocks[r].begin(), blocks[r].end());
        total_bytes += bytes[r];
      }
      ASSERT_EQ(joined.size(), whole.size());
      for (int k = 0; k < n; ++k) {
        EXPECT_EQ(joined[k].keys, whole[k].keys) << topology_name(topology) << ", " << ranks << " ranks, island " << k;
        EXPECT_EQ(joined[k].fitness.size(), whole[k].fitness.size());
        for (std::size_t i = 0; i < whole[k].fitness.size(); ++i)
          EXPECT_EQ(is_evaluated(joined[k].fitness[i]), is_evaluated(whole[k].fitness[i]));
      }
      // Exactly the migrants of the routes between ranks travel, and nothing with one rank.
      unsigned long long expected_bytes = 0;
      for (const auto& r : migration_routes(topology, n, 4))
        if (island_owner(r.from, ranks, n) != island_owner(r.to, ranks, n))
          expected_bytes += static_cast<unsigned long long>(r.count) * num_keys * sizeof(double);
      EXPECT_EQ(total_bytes, expected_bytes) << topology_name(topology) << ", " << ranks << " ranks";
      if (ranks == 1) {
        EXPECT_EQ(total_bytes, 0u);
      }
    }
  }
}

TEST(IslandTeam, AdvanceGenerationOnBlocksEqualsTheWholeArchipelago) {
  IslandsConfig config;
  config.moves = {20, 26, 32, 38};
  config.brkga = {.population_size = 10, .elite_count = 3, .mutant_count = 3, .elite_inheritance = 0.7};
  config.migration = {Topology::kRing, 1, 3};
  config.seed = 5;
  const int num_keys = 4;
  auto evaluate = [](Archipelago& a) {  // any fitness that depends on the keys only
    for (auto& p : a.islands)
      for (int i = 0; i < p.size; ++i) p.fitness[i] = p.keys[static_cast<std::size_t>(i) * p.num_keys + 1];
  };
  Archipelago whole = make_archipelago(config, num_keys);
  for (int g = 0; g < 3; ++g) {
    evaluate(whole);
    advance_generation(whole, config);
  }
  const int ranks = 3;
  std::vector<Archipelago> parts(ranks);
  run_thread_team(ranks, [&](ThreadTeam& team) {
    const int r = team.rank();
    parts[r] = make_archipelago(config, num_keys, island_block(r, ranks, 4));
    for (int g = 0; g < 3; ++g) {
      evaluate(parts[r]);
      advance_generation(parts[r], config, team);
    }
  });
  int k = 0;
  for (const Archipelago& part : parts)
    for (std::size_t i = 0; i < part.islands.size(); ++i, ++k) {
      EXPECT_EQ(part.first_island + static_cast<int>(i), k);
      EXPECT_EQ(part.moves[i], config.moves[k]);
      EXPECT_EQ(part.islands[i].keys, whole.islands[k].keys) << "island " << k;
    }
  EXPECT_EQ(k, 4);
}

TEST(IslandTeam, AFailingThreadWakesTheOthersAndItsErrorIsReported) {
  // Rank 2 fails before its report; ranks 0 (gathering) and 1 (waiting for the broadcast) must
  // not wait for ever, and the error reported is rank 2's own, not a wake-up.
  std::atomic<int> woken = 0;
  try {
    run_thread_team(3, [&](ThreadTeam& team) {
      if (team.rank() == 2) fail("rank 2 broke");
      try {
        team.gather("report");
        std::string decision;
        team.broadcast(decision);
      } catch (const Error&) {
        ++woken;
        throw;
      }
    });
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "rank 2 broke");
  }
  EXPECT_EQ(woken, 2);
}
