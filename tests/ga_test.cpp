// Shape search core: decoder, BRKGA transition, island migration, fitness batches.
#include <gtest/gtest.h>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <numeric>
#include <set>
#include "evalforge/backends/backend.hpp"
#include "evalforge/core/error.hpp"
#include "evalforge/core/rng.hpp"
#include "evalforge/ga/brkga.hpp"
#include "evalforge/ga/islands.hpp"
#include "evalforge/ga/path_relinking.hpp"
#include "evalforge/ga/shake.hpp"
#include "evalforge/games/othello/bitboard.hpp"
#include "evalforge/runs/shape_decoder.hpp"
#include "evalforge/runs/shape_fitness.hpp"
#include "ga/thread_team.hpp"

using namespace ef;
using namespace ef::ga;

namespace {

std::vector<double> random_keys(int n, u64 seed) {
  Rng rng(seed, Purpose::kPopulation, 999);
  std::vector<double> keys(static_cast<std::size_t>(n));
  for (double& k : keys) k = rng.uniform();
  return keys;
}

// Fitness from the keys alone (a stand-in for training): deterministic and tie-free.
void evaluate_by_key_sum(Population& pop) {
  for (int i = 0; i < pop.size; ++i) {
    const auto keys = pop.individual(i);
    pop.fitness[i] = std::accumulate(keys.begin(), keys.end(), 0.0);
  }
}

Population evaluated_sorted_population(int size, int num_keys, u64 seed, u32 island) {
  Population pop = random_population(size, num_keys, seed, island);
  evaluate_by_key_sum(pop);
  sort_population(pop);
  return pop;
}

std::vector<double> keys_of(const Population& pop, int i) {
  const auto k = pop.individual(i);
  return {k.begin(), k.end()};
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Decoder

TEST(Decoder, PicksTheSmallestKeysOfEachTuple) {
  const Decoder decoder(default_search_region(), {3, 2});
  ASSERT_EQ(decoder.num_keys(), 48);
  std::vector<double> keys(48, 0.5);
  keys[5] = 0.1;  // tuple 0: region positions 5, 17, 2 are the smallest
  keys[17] = 0.2;
  keys[2] = 0.3;
  keys[24 + 23] = 0.0;  // tuple 1: positions 23 and 0
  keys[24 + 0] = 0.4;
  const ntuple::Shape s = decoder.decode(keys);
  ASSERT_EQ(s.tuples.size(), 2u);
  EXPECT_EQ(s.tuples[0], (std::vector<int>{2, 5, 17}));
  EXPECT_EQ(s.tuples[1], (std::vector<int>{0, 23}));
}

TEST(Decoder, TiesGoToTheLowerRegionPosition) {
  // The region is deliberately not ascending: ties follow the position in the list, not the square.
  const Decoder decoder({40, 10, 30, 20}, {3, 2});
  EXPECT_EQ(decoder.decode(std::vector<double>(8, 0.25)).tuples[0], (std::vector<int>{10, 30, 40}));
  // Tuple 1: position 1 is smallest; positions 0, 2, 3 tie for the second place -> position 0.
  const std::vector<double> keys = {0.9, 0.9, 0.9, 0.9, 0.3, 0.1, 0.3, 0.3};
  EXPECT_EQ(decoder.decode(keys).tuples[1], (std::vector<int>{10, 40}));
}

TEST(Decoder, MatchesAStableSortReferenceWithManyTies) {
  const Decoder decoder;  // default region, Edax sizes
  for (u64 seed = 1; seed <= 20; ++seed) {
    std::vector<double> keys = random_keys(decoder.num_keys(), seed);
    for (double& k : keys) k = std::floor(k * 4) / 4;  // only 4 distinct values: ties everywhere
    const ntuple::Shape s = decoder.decode(keys);
    for (int t = 0; t < decoder.num_tuples(); ++t) {
      std::vector<int> pos(24);
      std::iota(pos.begin(), pos.end(), 0);
      std::stable_sort(pos.begin(), pos.end(), [&](int a, int b) { return keys[24 * t + a] < keys[24 * t + b]; });
      std::vector<int> expect(pos.begin(), pos.begin() + decoder.tuple_sizes()[t]);
      std::sort(expect.begin(), expect.end());  // region = squares 0..23, so position = square
      EXPECT_EQ(s.tuples[t], expect) << "seed " << seed << " tuple " << t;
    }
  }
}

TEST(Decoder, DefaultIsEdaxSizesOverRowsOneToThree) {
  const Decoder decoder;
  EXPECT_EQ(decoder.keys_per_tuple(), 24);
  EXPECT_EQ(decoder.num_keys(), 24 * 12);
  EXPECT_EQ(decoder.tuple_sizes(), (std::vector<int>{9, 10, 10, 10, 8, 8, 8, 8, 7, 6, 5, 4}));
  const ntuple::Shape s = decoder.decode(random_keys(decoder.num_keys(), 5));
  EXPECT_EQ(s.tuple_sizes(), decoder.tuple_sizes());
  for (const auto& t : s.tuples) {
    EXPECT_TRUE(std::is_sorted(t.begin(), t.end()));
    EXPECT_EQ(std::set<int>(t.begin(), t.end()).size(), t.size());
    EXPECT_GE(t.front(), 0);
    EXPECT_LE(t.back(), 23);
  }
  EXPECT_EQ(s.tuples, decoder.decode(random_keys(decoder.num_keys(), 5)).tuples);  // deterministic
}

TEST(Decoder, CustomRegionOfAnyLength) {
  const std::vector<int> region = {63, 62, 54, 7, 0};
  const Decoder decoder(region, {2, 5});
  EXPECT_EQ(decoder.num_keys(), 10);
  const ntuple::Shape s = decoder.decode(random_keys(10, 3));
  EXPECT_EQ(s.tuples[1], (std::vector<int>{0, 7, 54, 62, 63}));  // all of the region
  for (int sq : s.tuples[0]) EXPECT_NE(std::find(region.begin(), region.end(), sq), region.end());
  EXPECT_EQ(s.tuples[0].size(), 2u);
}

TEST(Decoder, RejectsBadRegionsSizesAndKeys) {
  EXPECT_THROW(Decoder({}, {1}), Error);
  EXPECT_THROW(Decoder({1, 64}, {1}), Error);
  EXPECT_THROW(Decoder({3, 3}, {1}), Error);
  EXPECT_THROW(Decoder({1, 2}, {}), Error);
  EXPECT_THROW(Decoder({1, 2}, {3}), Error);                    // larger than the region
  EXPECT_THROW(Decoder(default_search_region(), {13}), Error);  // larger than kMaxTupleSize
  EXPECT_THROW(Decoder({1, 2}, {0}), Error);
  const Decoder decoder({1, 2, 3}, {2});
  EXPECT_THROW(decoder.decode(std::vector<double>(4, 0.5)), Error);
  EXPECT_THROW(decoder.decode(std::vector<double>{0.1, 1.0, 0.2}), Error);
  EXPECT_THROW(decoder.decode(std::vector<double>{0.1, std::nan(""), 0.2}), Error);
  try {
    Decoder({1, 70}, {1});
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("square 70"), std::string::npos) << e.what();
  }
}

// ---------------------------------------------------------------------------------------------
// BRKGA

TEST(Brkga, RandomPopulationIsKeyedBySeedAndIsland) {
  const Population a = random_population(6, 10, 7, 0);
  EXPECT_EQ(a.size, 6);
  EXPECT_EQ(a.keys.size(), 60u);
  for (double k : a.keys) {
    EXPECT_GE(k, 0.0);
    EXPECT_LT(k, 1.0);
  }
  for (double f : a.fitness) EXPECT_FALSE(is_evaluated(f));
  EXPECT_EQ(a.keys, random_population(6, 10, 7, 0).keys);
  EXPECT_NE(a.keys, random_population(6, 10, 8, 0).keys);
  EXPECT_NE(a.keys, random_population(6, 10, 7, 1).keys);
  // Individual i does not depend on how many others there are: each is keyed by its slot.
  EXPECT_EQ(keys_of(a, 3), keys_of(random_population(4, 10, 7, 0), 3));
}

TEST(Brkga, SortIsStableOnFitnessThenIndex) {
  Population pop = random_population(6, 2, 1, 0);
  const Population before = pop;
  pop.fitness = {3.0, 1.0, 2.0, 1.0, kNotEvaluated, 0.5};
  sort_population(pop);
  const std::vector<int> order = {5, 1, 3, 2, 0, 4};
  for (int r = 0; r < 6; ++r) EXPECT_EQ(keys_of(pop, r), keys_of(before, order[r])) << "rank " << r;
  EXPECT_EQ(pop.fitness[0], 0.5);
  EXPECT_EQ(pop.fitness[3], 2.0);
  EXPECT_FALSE(is_evaluated(pop.fitness[5]));
  EXPECT_TRUE(is_sorted_by_fitness(pop));
}

TEST(Brkga, GenerationKeepsEliteAddsMutantsAndOffspring) {
  const BrkgaParams params{.population_size = 10, .elite_count = 3, .mutant_count = 2, .elite_inheritance = 0.7};
  const Population prev = evaluated_sorted_population(10, 40, 3, 0);
  const Population next = next_generation(prev, params, 3, 0, 1);
  ASSERT_EQ(next.size, 10);
  ASSERT_EQ(next.keys.size(), prev.keys.size());
  auto same_as_some = [&](const std::vector<double>& keys, int begin, int end) {
    for (int j = begin; j < end; ++j)
      if (keys_of(prev, j) == keys) return true;
    return false;
  };
  int elite = 0, mutants = 0, offspring = 0;
  for (int slot = 0; slot < 10; ++slot) {
    const auto keys = keys_of(next, slot);
    if (slot < 3) {  // elite: unchanged, fitness kept
      EXPECT_EQ(keys, keys_of(prev, slot));
      EXPECT_EQ(next.fitness[slot], prev.fitness[slot]);
      ++elite;
      continue;
    }
    EXPECT_FALSE(is_evaluated(next.fitness[slot]));
    if (slot < 5) {  // mutant: fresh keys, none inherited
      EXPECT_FALSE(same_as_some(keys, 0, 10));
      for (int k = 0; k < 40; ++k)
        for (int j = 0; j < 10; ++j) EXPECT_NE(keys[k], prev.keys[j * 40 + k]);
      ++mutants;
      continue;
    }
    // Offspring: every key from one elite parent e or one non-elite parent o (random doubles
    // never coincide, so the parents are identifiable).
    bool found = false;
    for (int e = 0; e < 3 && !found; ++e)
      for (int o = 3; o < 10 && !found; ++o) {
        bool all = true;
        for (int k = 0; k < 40; ++k)
          all = all && (keys[k] == prev.keys[e * 40 + k] || keys[k] == prev.keys[o * 40 + k]);
        found = all;
      }
    EXPECT_TRUE(found) << "offspring in slot " << slot << " has keys from neither an elite nor a non-elite parent";
    ++offspring;
  }
  EXPECT_EQ(elite, 3);
  EXPECT_EQ(mutants, 2);
  EXPECT_EQ(offspring, 5);
}

TEST(Brkga, OffspringInheritFromTheEliteWithProbabilityRhoE) {
  // Elite keys in [0, 0.5), the others in [0.5, 1): a key's half shows which parent gave it.
  const int p = 50, pe = 10, pm = 10, n = 2000;
  Population prev = random_population(p, n, 11, 0);
  for (int i = 0; i < p; ++i) {
    for (double& k : prev.individual(i)) k = i < pe ? 0.5 * k : 0.5 + 0.5 * k;
    prev.fitness[i] = i;
  }
  auto elite_fraction = [&](double rho) {
    const BrkgaParams params{.population_size = p, .elite_count = pe, .mutant_count = pm, .elite_inheritance = rho};
    const Population next = next_generation(prev, params, 11, 0, 1);
    std::size_t from_elite = 0, total = 0;
    for (int slot = pe + pm; slot < p; ++slot)
      for (double k : next.individual(slot)) {
        from_elite += k < 0.5;
        ++total;
      }
    return static_cast<double>(from_elite) / static_cast<double>(total);
  };
  // 60,000 Bernoulli(0.7) draws: standard deviation 0.0019, so 0.01 is over 5 sigma.
  EXPECT_NEAR(elite_fraction(0.7), 0.7, 0.01);
  EXPECT_NEAR(elite_fraction(0.5), 0.5, 0.01);
  EXPECT_EQ(elite_fraction(1.0), 1.0);
  EXPECT_EQ(elite_fraction(0.0), 0.0);
}

TEST(Brkga, SameSeedSameGenerationsOtherSeedOther) {
  const BrkgaParams params{.population_size = 12, .elite_count = 3, .mutant_count = 3, .elite_inheritance = 0.7};
  auto run = [&](u64 seed) {
    Population pop = random_population(12, 30, seed, 2);
    for (u32 g = 1; g <= 5; ++g) {
      evaluate_by_key_sum(pop);
      sort_population(pop);
      pop = next_generation(pop, params, seed, 2, g);
    }
    return pop;
  };
  const Population a = run(5), b = run(5), c = run(6);
  EXPECT_EQ(a.keys, b.keys);
  EXPECT_EQ(std::memcmp(a.fitness.data(), b.fitness.data(), a.fitness.size() * sizeof(double)), 0);
  EXPECT_NE(a.keys, c.keys);
  // Minimising the key sum works: the best of the last generation beats the random start.
  Population start = random_population(12, 30, 5, 2);
  evaluate_by_key_sum(start);
  sort_population(start);
  EXPECT_LE(a.fitness[0], start.fitness[0]);
}

TEST(BrkgaMultiParent, BiasWeightsAreTheirFormulasAndNamesRoundTrip) {
  for (int r = 1; r <= 6; ++r) {
    EXPECT_DOUBLE_EQ(bias_weight(Bias::kConstant, r), 1.0);
    EXPECT_DOUBLE_EQ(bias_weight(Bias::kCubic, r), std::pow(r, -3.0));
    EXPECT_DOUBLE_EQ(bias_weight(Bias::kExponential, r), std::exp(-static_cast<double>(r)));
    EXPECT_DOUBLE_EQ(bias_weight(Bias::kLinear, r), 1.0 / r);
    EXPECT_DOUBLE_EQ(bias_weight(Bias::kLogInverse, r), 1.0 / std::log(r + 1.0));
    EXPECT_DOUBLE_EQ(bias_weight(Bias::kQuadratic, r), std::pow(r, -2.0));
  }
  for (Bias b : {Bias::kRhoE, Bias::kConstant, Bias::kCubic, Bias::kExponential, Bias::kLinear, Bias::kLogInverse,
                 Bias::kQuadratic})
    EXPECT_EQ(parse_bias(bias_name(b)), b);
  EXPECT_EQ(parse_bias("Cubic"), std::nullopt);
  EXPECT_EQ(parse_bias(""), std::nullopt);
}

// Every individual's keys all equal (i + 0.5) / p, so a child's key says which parent gave it:
// the parents of one child are the distinct values among its keys, their ranks the order of
// those values. Over 4,000 keys a child, each bias function's share of keys by rank is its
// formula's, and each child has exactly pi_e elite parents.
TEST(BrkgaMultiParent, KeysComeFromEachRankWithTheBiasFunctionsProbability) {
  const int p = 40, pe = 8, pm = 4, n = 4000;
  Population prev = random_population(p, n, 3, 0);
  for (int i = 0; i < p; ++i) {
    for (double& k : prev.individual(i)) k = (i + 0.5) / p;
    prev.fitness[i] = i;
  }
  for (Bias bias :
       {Bias::kConstant, Bias::kCubic, Bias::kExponential, Bias::kLinear, Bias::kLogInverse, Bias::kQuadratic}) {
    for (const auto& [pt, pie] : std::vector<std::pair<int, int>>{{2, 1}, {3, 1}, {4, 2}, {5, 5}}) {
      SCOPED_TRACE(std::string(bias_name(bias)) + " parents " + std::to_string(pt) + " elite " + std::to_string(pie));
      const BrkgaParams params{.population_size = p,
                               .elite_count = pe,
                               .mutant_count = pm,
                               .elite_inheritance = 0.7,
                               .parents = pt,
                               .elite_parents = pie,
                               .bias = bias};
      const Population next = next_generation(prev, params, 17, 1, 2);
      std::vector<double> count(static_cast<std::size_t>(pt), 0.0);
      double keys = 0;
      for (int slot = pe + pm; slot < p; ++slot) {
        const auto child = next.individual(slot);
        std::set<int> parents;
        for (double k : child) parents.insert(static_cast<int>(k * p));
        ASSERT_EQ(static_cast<int>(parents.size()), pt);  // every parent gave some key (4,000 draws)
        EXPECT_EQ(std::count_if(parents.begin(), parents.end(), [&](int i) { return i < pe; }), pie);
        const std::vector<int> ranked(parents.begin(), parents.end());
        for (double k : child) {
          count[std::lower_bound(ranked.begin(), ranked.end(), static_cast<int>(k * p)) - ranked.begin()] += 1;
          keys += 1;
        }
      }
      double total = 0;
      for (int r = 1; r <= pt; ++r) total += bias_weight(bias, r);
      for (int r = 1; r <= pt; ++r) {
        const double expected = bias_weight(bias, r) / total;
        // 112,000 keys: a share's standard deviation is at most 0.0015; 0.008 is over 5 of them.
        EXPECT_NEAR(count[r - 1] / keys, expected, 0.008) << "rank " << r;
      }
    }
  }
}

TEST(BrkgaMultiParent, RejectsParentCountsThatDoNotFit) {
  const Population prev = evaluated_sorted_population(10, 5, 1, 0);
  auto params = [](int pt, int pie, Bias bias) {
    return BrkgaParams{.population_size = 10,
                       .elite_count = 3,
                       .mutant_count = 2,
                       .elite_inheritance = 0.7,
                       .parents = pt,
                       .elite_parents = pie,
                       .bias = bias};
  };
  EXPECT_NO_THROW(next_generation(prev, params(3, 2, Bias::kCubic), 1, 0, 1));
  EXPECT_NO_THROW(next_generation(prev, params(10, 3, Bias::kLinear), 1, 0, 1));  // every individual a parent
  for (const BrkgaParams& bad : {params(1, 1, Bias::kCubic),                      // pi_t < 2
                                 params(3, 0, Bias::kCubic),                      // pi_e < 1
                                 params(3, 4, Bias::kCubic),                      // pi_e > pi_t
                                 params(4, 4, Bias::kCubic),                      // pi_e > pe
                                 params(11, 3, Bias::kCubic),                     // pi_t - pi_e > p - pe
                                 params(3, 1, Bias::kRhoE)}) {                    // the classic rule takes 2 parents
    EXPECT_THROW(next_generation(prev, bad, 1, 0, 1), Error);
  }
}

TEST(Brkga, RejectsBadParametersAndUnsortedOrUnevaluatedParents) {
  const Population prev = evaluated_sorted_population(10, 5, 1, 0);
  const BrkgaParams ok{.population_size = 10, .elite_count = 3, .mutant_count = 2, .elite_inheritance = 0.7};
  EXPECT_NO_THROW(next_generation(prev, ok, 1, 0, 1));
  EXPECT_THROW(next_generation(prev, ok, 1, 0, 0), Error);  // generation 0 is the initial one
  for (BrkgaParams bad : {BrkgaParams{10, 0, 2, 0.7}, BrkgaParams{10, 5, 5, 0.7}, BrkgaParams{10, 3, -1, 0.7},
                          BrkgaParams{10, 3, 2, 1.5}, BrkgaParams{12, 3, 2, 0.7}})
    EXPECT_THROW(next_generation(prev, bad, 1, 0, 1), Error);
  Population unsorted = prev;
  std::swap(unsorted.fitness[0], unsorted.fitness[9]);
  EXPECT_THROW(next_generation(unsorted, ok, 1, 0, 1), Error);
  Population unevaluated = prev;
  unevaluated.fitness[9] = kNotEvaluated;
  EXPECT_THROW(next_generation(unevaluated, ok, 1, 0, 1), Error);
}

// ---------------------------------------------------------------------------------------------
// Islands and migration

TEST(Island, TopologyNames) {
  EXPECT_EQ(parse_topology("paper"), Topology::kPaper);
  EXPECT_EQ(parse_topology("ring"), Topology::kRing);
  EXPECT_EQ(parse_topology("all"), Topology::kAll);
  EXPECT_EQ(topology_name(Topology::kRing), "ring");
  EXPECT_THROW(parse_topology("star"), Error);
}

TEST(Island, RoutesOfThePaperTopology) {
  using R = MigrationRoute;
  // Four islands, size 10: edges get 10 from their one neighbour, inner islands 5 + 5.
  EXPECT_EQ(migration_routes(Topology::kPaper, 4, 10),
            (std::vector<R>{{1, 0, 10}, {0, 1, 5}, {2, 1, 5}, {1, 2, 5}, {3, 2, 5}, {2, 3, 10}}));
  // Odd size: the lower-move neighbour sends the extra migrant.
  EXPECT_EQ(migration_routes(Topology::kPaper, 3, 5), (std::vector<R>{{1, 0, 5}, {0, 1, 3}, {2, 1, 2}, {1, 2, 5}}));
  EXPECT_EQ(migration_routes(Topology::kPaper, 2, 4), (std::vector<R>{{1, 0, 4}, {0, 1, 4}}));
  EXPECT_TRUE(migration_routes(Topology::kPaper, 1, 4).empty());
  EXPECT_TRUE(migration_routes(Topology::kPaper, 3, 0).empty());
}

TEST(Island, RoutesOfRingAndAll) {
  using R = MigrationRoute;
  EXPECT_EQ(migration_routes(Topology::kRing, 3, 4), (std::vector<R>{{2, 0, 4}, {0, 1, 4}, {1, 2, 4}}));
  // size/(N-1) = 10/3 rounds down to 3 from each of the other three islands.
  EXPECT_EQ(migration_routes(Topology::kAll, 4, 10), (std::vector<R>{{1, 0, 3},
                                                                     {2, 0, 3},
                                                                     {3, 0, 3},
                                                                     {0, 1, 3},
                                                                     {2, 1, 3},
                                                                     {3, 1, 3},
                                                                     {0, 2, 3},
                                                                     {1, 2, 3},
                                                                     {3, 2, 3},
                                                                     {0, 3, 3},
                                                                     {1, 3, 3},
                                                                     {2, 3, 3}}));
  EXPECT_THROW(migration_routes(Topology::kAll, 4, 2), Error);
  EXPECT_THROW(migration_routes(Topology::kRing, 4, -1), Error);
}

TEST(Island, MigrationIsDueEveryInterval) {
  const MigrationParams m{Topology::kPaper, 25, 10};
  EXPECT_FALSE(migration_due(m, 0));
  EXPECT_FALSE(migration_due(m, 24));
  EXPECT_TRUE(migration_due(m, 25));
  EXPECT_TRUE(migration_due(m, 50));
  EXPECT_FALSE(migration_due({Topology::kPaper, 0, 10}, 25));
}

namespace {

// Islands fresh from a generation transition, as migrate() receives them.
std::vector<Population> transitioned_islands(int n, const BrkgaParams& params, int num_keys, u64 seed) {
  std::vector<Population> islands;
  for (int k = 0; k < n; ++k) {
    const Population prev = evaluated_sorted_population(params.population_size, num_keys, seed, static_cast<u32>(k));
    islands.push_back(next_generation(prev, params, seed, static_cast<u32>(k), 1));
  }
  return islands;
}

// Checks one migration against its routes: only mutant slots change, each island receives
// exactly the best `count` of each source (as the source was before migration), immigrants
// are unevaluated, sizes are constant.
void expect_migration(const std::vector<Population>& before, const std::vector<Population>& after,
                      const std::vector<MigrationRoute>& routes, const BrkgaParams& params) {
  ASSERT_EQ(before.size(), after.size());
  const int pe = params.elite_count, pm = params.mutant_count;
  for (std::size_t k = 0; k < after.size(); ++k) {
    EXPECT_EQ(after[k].size, before[k].size);
    EXPECT_EQ(after[k].keys.size(), before[k].keys.size());
    std::multiset<std::vector<double>> expected, received;
    for (const auto& r : routes)
      if (r.to == static_cast<int>(k))
        for (int m = 0; m < r.count; ++m) expected.insert(keys_of(before[r.from], m));
    for (int slot = 0; slot < after[k].size; ++slot) {
      if (keys_of(after[k], slot) == keys_of(before[k], slot)) continue;
      EXPECT_GE(slot, pe) << "island " << k << ": an immigrant replaced non-mutant slot " << slot;
      EXPECT_LT(slot, pe + pm) << "island " << k << ": an immigrant replaced non-mutant slot " << slot;
      EXPECT_FALSE(is_evaluated(after[k].fitness[slot]));
      received.insert(keys_of(after[k], slot));
    }
    EXPECT_EQ(received, expected) << "island " << k;
  }
}

}  // namespace

TEST(Island, PaperMigrationMovesTheBestToTheNeighbours) {
  const BrkgaParams params{.population_size = 12, .elite_count = 4, .mutant_count = 4, .elite_inheritance = 0.7};
  const MigrationParams migration{Topology::kPaper, 1, 4};
  for (int n : {3, 4, 5}) {
    const auto before = transitioned_islands(n, params, 16, 21);
    auto after = before;
    migrate(after, params, migration, 21, 1);
    const auto routes = migration_routes(Topology::kPaper, n, 4);
    expect_migration(before, after, routes, params);
    // Spelled out for the edges and one inner island: island 0 receives the 4 best of island 1,
    // island 1 the 2 best of island 0 and of island 2.
    EXPECT_EQ(routes.front(), (MigrationRoute{1, 0, 4}));
    EXPECT_EQ(routes[1], (MigrationRoute{0, 1, 2}));
    EXPECT_EQ(routes[2], (MigrationRoute{2, 1, 2}));
    EXPECT_EQ(routes.back(), (MigrationRoute{n - 2, n - 1, 4}));
    // Immigrant slots are random mutant slots, chosen per island and generation.
    auto again = before;
    migrate(again, params, migration, 21, 1);
    for (int k = 0; k < n; ++k) EXPECT_EQ(again[k].keys, after[k].keys);
  }
}

TEST(Island, RingAndAllMigration) {
  const BrkgaParams params{.population_size = 14, .elite_count = 4, .mutant_count = 6, .elite_inheritance = 0.7};
  for (Topology t : {Topology::kRing, Topology::kAll}) {
    const auto before = transitioned_islands(4, params, 8, 5);
    auto after = before;
    migrate(after, params, {t, 1, 4}, 5, 1);
    expect_migration(before, after, migration_routes(t, 4, 4), params);
  }
}

TEST(Island, MigrantsComeFromThePopulationsBeforeMigration) {
  // With the ring, island 1 receives from island 0, which itself receives from island 2 first
  // in processing order; the migrants must still be island 0's own elite.
  const BrkgaParams params{.population_size = 10, .elite_count = 3, .mutant_count = 3, .elite_inheritance = 0.7};
  const auto before = transitioned_islands(3, params, 6, 9);
  auto after = before;
  migrate(after, params, {Topology::kRing, 1, 3}, 9, 1);
  for (int k = 0; k < 3; ++k)
    for (int m = 0; m < 3; ++m) EXPECT_EQ(keys_of(after[k], m), keys_of(before[k], m));  // elite untouched
  std::multiset<std::vector<double>> island1_immigrants;
  for (int slot = 3; slot < 6; ++slot) island1_immigrants.insert(keys_of(after[1], slot));
  for (int m = 0; m < 3; ++m) EXPECT_EQ(island1_immigrants.count(keys_of(before[0], m)), 1u);
}

TEST(Island, MigrationMustFitEliteAndMutants) {
  IslandsConfig config;
  config.moves = {18, 22, 26};
  config.brkga = {.population_size = 10, .elite_count = 3, .mutant_count = 2, .elite_inheritance = 0.7};
  config.migration = {Topology::kPaper, 5, 2};
  EXPECT_NO_THROW(config.validate());
  config.migration.size = 4;  // more immigrants than mutant slots (and migrants than elite)
  EXPECT_THROW(config.validate(), Error);
  config.migration.interval = 0;  // never migrates: nothing to fit
  EXPECT_NO_THROW(config.validate());
  config.migration = {Topology::kPaper, 5, 2};
  config.moves = {18, 18, 26};
  EXPECT_THROW(config.validate(), Error);
  config.moves = {};
  EXPECT_THROW(config.validate(), Error);
}

TEST(Island, AdvanceGenerationSortsTransitionsAndMigrates) {
  IslandsConfig config;
  config.moves = {18, 22, 26};
  config.brkga = {.population_size = 10, .elite_count = 3, .mutant_count = 3, .elite_inheritance = 0.7};
  config.migration = {Topology::kPaper, 2, 2};
  config.seed = 4;
  Archipelago a = make_archipelago(config, 12);
  ASSERT_EQ(a.islands.size(), 3u);
  for (int g = 0; g < 4; ++g) {
    for (auto& pop : a.islands) evaluate_by_key_sum(pop);
    std::vector<Population> sorted = a.islands;
    for (auto& pop : sorted) sort_population(pop);
    advance_generation(a, config);
    EXPECT_EQ(a.generation, g + 1);
    for (std::size_t k = 0; k < 3; ++k) {
      EXPECT_EQ(a.islands[k].size, 10);
      // The elite is the best of the generation just left, with its fitness.
      for (int m = 0; m < 3; ++m) {
        EXPECT_EQ(keys_of(a.islands[k], m), keys_of(sorted[k], m));
        EXPECT_EQ(a.islands[k].fitness[m], sorted[k].fitness[m]);
      }
      // On migration generations (2, 4) the mutant set holds the neighbours' best.
      // (Slots are counted once: an earlier immigrant can sit in the elite of two islands.)
      int from_neighbours = 0;
      for (int slot = 3; slot < 6; ++slot) {
        bool immigrant = false;
        for (std::size_t j = 0; j < 3; ++j)
          for (int m = 0; m < 3; ++m)
            immigrant = immigrant || (j != k && keys_of(a.islands[k], slot) == keys_of(sorted[j], m));
        from_neighbours += immigrant;
      }
      EXPECT_EQ(from_neighbours, (g + 1) % 2 == 0 ? 2 : 0) << "island " << k << " generation " << g + 1;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Fitness batches and a small end-to-end search on the CPU backend

namespace {

// A fixed "teacher": corners 8, other edge squares 2, the rest 1 (black minus white), so the
// labels depend on the board in a way small tuples can partly learn.
double teacher_label(u64 black, u64 white) {
  const u64 corners = 0x8100000000000081ull, edges = 0xFF818181818181FFull & ~corners;
  auto score = [&](u64 discs) {
    return 8.0 * popcount64(discs & corners) + 2.0 * popcount64(discs & edges) + popcount64(discs & ~edges & ~corners);
  };
  return score(black) - score(white);
}

// `count` positions at (about) move `move`: random legal play from the start until `move`
// discs have been placed or the game ends.
PositionData synthetic_positions(int count, int move, u64 seed) {
  PositionData data;
  for (int g = 0; g < count; ++g) {
    Rng rng(seed, Purpose::kGame, static_cast<u32>(move), static_cast<u32>(g));
    othello::Board b;
    while (b.discs() < 4 + move && !b.game_over()) {
      u64 m = b.moves();
      if (!m) {
        b.pass();
        continue;
      }
      b.play(rng.random_bit(m));
    }
    data.black.push_back(b.black());
    data.white.push_back(b.white());
    data.label.push_back(ntuple::label_to_fixed(teacher_label(b.black(), b.white())));
  }
  return data;
}

// Passes everything on, counting train calls and jobs.
class CountingBackend final : public ForwardingBackend {
 public:
  explicit CountingBackend(Backend& inner) : ForwardingBackend(inner) {}
  void train(std::span<const TrainJob> jobs, std::span<TrainResult> results) override {
    ++calls;
    num_jobs += jobs.size();
    inner_.train(jobs, results);
  }
  int calls = 0;
  std::size_t num_jobs = 0;
};

}  // namespace

TEST(IslandFitness, SplitIsSeededPerIslandAndGeneration) {
  const TrainValidationIds ids = train_validation_split(103, 0.2, 7, 1, 3);
  EXPECT_EQ(ids.validation.size(), 20u);
  EXPECT_EQ(ids.train.size(), 83u);
  EXPECT_TRUE(std::is_sorted(ids.train.begin(), ids.train.end()));
  EXPECT_TRUE(std::is_sorted(ids.validation.begin(), ids.validation.end()));
  std::vector<u32> all = ids.train;
  all.insert(all.end(), ids.validation.begin(), ids.validation.end());
  std::sort(all.begin(), all.end());
  for (u32 i = 0; i < 103; ++i) EXPECT_EQ(all[i], i);
  EXPECT_EQ(train_validation_split(103, 0.2, 7, 1, 3).validation, ids.validation);
  EXPECT_NE(train_validation_split(103, 0.2, 7, 2, 3).validation, ids.validation);  // other island
  EXPECT_NE(train_validation_split(103, 0.2, 7, 1, 4).validation, ids.validation);  // other generation
  EXPECT_NE(train_validation_split(103, 0.2, 8, 1, 3).validation, ids.validation);  // other seed
  EXPECT_EQ(train_validation_split(35, 0.2, 7, 0, 0).validation.size(), 7u);        // 0.2 * 35 is 7, not 6
  EXPECT_THROW(train_validation_split(10, 1.5, 7, 0, 0), Error);
}

TEST(IslandFitness, OneBatchPerGenerationMatchingDirectTraining) {
  auto cpu = make_backend("cpu", 2);
  CountingBackend backend(*cpu);
  const Decoder decoder(default_search_region(), {3, 3});
  const std::vector<IslandFitnessData> data = {{backend.add_positions(synthetic_positions(200, 14, 1)), 200},
                                               {backend.add_positions(synthetic_positions(150, 20, 2)), 150}};
  std::vector<Population> islands = {random_population(4, decoder.num_keys(), 3, 0),
                                     random_population(5, decoder.num_keys(), 3, 1)};
  // A twin of individual 0 on island 0: the same split and sample order give the same fitness.
  std::copy(islands[0].individual(0).begin(), islands[0].individual(0).end(), islands[0].individual(1).begin());
  FitnessOptions options;
  options.train.epochs = 2;
  evaluate_generation(backend, decoder, islands, data, options, 3, 6);
  EXPECT_EQ(backend.calls, 1);
  EXPECT_EQ(backend.num_jobs, 9u);
  for (const auto& pop : islands)
    for (double f : pop.fitness) {
      EXPECT_TRUE(std::isfinite(f));
      EXPECT_GT(f, 0.0);
    }
  EXPECT_EQ(islands[0].fitness[0], islands[0].fitness[1]);
  EXPECT_NE(islands[0].fitness[0], islands[0].fitness[2]);

  // Island 1, individual 2 trained on its own gives the same bits.
  const ntuple::Geometry g = decoder.decode(islands[1].individual(2)).geometry();
  const TrainValidationIds ids = train_validation_split(150, 0.2, 3, 1, 6);
  TrainJob job;
  job.geometry = &g;
  job.positions = data[1].positions;
  job.train_ids = ids.train;
  job.eval_ids = ids.validation;
  job.params = options.train;
  job.params.seed = 3;
  job.stream[0] = 1;
  job.stream[1] = 6;
  std::vector<TrainResult> result(1);
  cpu->train(std::span(&job, 1), result);
  EXPECT_EQ(result[0].eval_loss.mse(), islands[1].fitness[2]);

  // Mismatched inputs are errors, not silently wrong numbers.
  EXPECT_THROW(evaluate_generation(backend, decoder, islands, std::span(data).first(1), options, 3, 6), Error);
  const std::vector<IslandFitnessData> tiny = {{data[0].positions, 4}, {data[1].positions, 150}};
  EXPECT_THROW(evaluate_generation(backend, decoder, islands, tiny, options, 3, 6), Error);  // no validation ids
  const Decoder other(default_search_region(), {3});
  EXPECT_THROW(evaluate_generation(backend, other, islands, data, options, 3, 6), Error);
}

namespace {

struct SearchTrace {
  std::vector<std::vector<double>> keys, fitness;  // per (generation, island)
};

// 2 islands x 8 individuals, tuples of 3 squares, paper migration every 2 generations.
SearchTrace small_search(int threads, u64 seed, int generations) {
  auto backend = make_backend("cpu", threads);
  const Decoder decoder(default_search_region(), {3, 3});
  IslandsConfig config;
  config.moves = {14, 20};
  config.brkga = {.population_size = 8, .elite_count = 2, .mutant_count = 2, .elite_inheritance = 0.7};
  config.migration = {Topology::kPaper, 2, 2};
  config.seed = seed;
  std::vector<IslandFitnessData> data;
  for (int move : config.moves) data.push_back({backend->add_positions(synthetic_positions(300, move, 77)), 300});
  FitnessOptions options;
  options.train.epochs = 2;

  Archipelago a = make_archipelago(config, decoder.num_keys());
  SearchTrace trace;
  for (int g = 0; g < generations; ++g) {
    evaluate_generation(*backend, decoder, a.islands, data, options, seed, static_cast<u32>(a.generation));
    for (const auto& pop : a.islands) {
      trace.keys.push_back(pop.keys);
      trace.fitness.push_back(pop.fitness);
    }
    if (g + 1 < generations) advance_generation(a, config);
  }
  return trace;
}

bool same_bits(const std::vector<std::vector<double>>& a, const std::vector<std::vector<double>>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i].size() != b[i].size() || std::memcmp(a[i].data(), b[i].data(), a[i].size() * sizeof(double)) != 0)
      return false;
  return true;
}

}  // namespace

TEST(IslandEndToEnd, CpuSearchIsBitIdenticalForOneAndTwoThreads) {
  const SearchTrace one = small_search(1, 5, 5);
  const SearchTrace two = small_search(2, 5, 5);
  ASSERT_EQ(one.fitness.size(), 10u);
  EXPECT_TRUE(same_bits(one.keys, two.keys));
  EXPECT_TRUE(same_bits(one.fitness, two.fitness));
  for (const auto& island : one.fitness)
    for (double f : island) {
      EXPECT_TRUE(std::isfinite(f));
      EXPECT_GT(f, 0.0);
    }
  // Another seed takes another path (the check can fail).
  const SearchTrace other = small_search(1, 6, 2);
  EXPECT_FALSE(same_bits({one.fitness[0]}, {other.fitness[0]}));
}

// ---------------------------------------------------------------------------------------------
// Shaking and reset (shake.hpp)

TEST(Shake, StallRuleCountsGenerationsWithoutABetterBest) {
  StallState s;
  const ShakeParams p{.interval = 2, .reset_interval = 5};
  // Bests of generations 0..7; a tie is no improvement.
  const double bests[] = {5.0, 4.0, 4.0, 4.5, 3.0, 3.0, 3.0, 3.0};
  const int stalled[] = {0, 0, 1, 2, 0, 1, 2, 3};
  const ShakeAction actions[] = {ShakeAction::kNone, ShakeAction::kNone, ShakeAction::kNone,  ShakeAction::kShake,
                                 ShakeAction::kNone, ShakeAction::kNone, ShakeAction::kShake, ShakeAction::kNone};
  for (int g = 0; g < 8; ++g) {
    update_stall(s, bests[g]);
    EXPECT_EQ(s.stalled, stalled[g]) << "generation " << g;
    EXPECT_EQ(shake_action(p, s), actions[g]) << "generation " << g;
  }
  EXPECT_EQ(s.best, 3.0);
  s.stalled = 5;  // reset_interval reached: a reset, not a shake, also where both are due
  EXPECT_EQ(shake_action(p, s), ShakeAction::kReset);
  s.stalled = 4;
  EXPECT_EQ(shake_action(p, s), ShakeAction::kShake);
  EXPECT_EQ(shake_action(ShakeParams{}, s), ShakeAction::kNone);  // off
  EXPECT_FALSE(ShakeParams{}.enabled());
  EXPECT_THROW((ShakeParams{.interval = -1}.validate()), Error);
  EXPECT_THROW((ShakeParams{.interval = 3, .intensity_min = 0.5, .intensity_max = 0.4}.validate()), Error);
  EXPECT_THROW((ShakeParams{.interval = 3, .intensity_min = 0.0}.validate()), Error);
  EXPECT_NO_THROW((ShakeParams{.interval = 3, .reset_interval = 9}.validate()));
}

TEST(Shake, ShakingPerturbsTheEliteButTheBestAndRenewsTheOffspring) {
  const BrkgaParams brkga{.population_size = 12, .elite_count = 4, .mutant_count = 3};
  const int n = 40;
  for (const ShakeKind kind : {ShakeKind::kChange, ShakeKind::kSwap}) {
    const ShakeParams params{.interval = 1, .kind = kind, .intensity_min = 0.1, .intensity_max = 0.1};
    Population before = evaluated_sorted_population(brkga.population_size, n, 3, 0);
    Population after = before;
    StallState stall{.best = 1.0, .stalled = 1};
    apply_shake(ShakeAction::kShake, after, brkga, params, stall, 3, 0, 7);
    EXPECT_EQ(stall.stalled, 1);  // a shake does not reset the count
    EXPECT_EQ(keys_of(after, 0), keys_of(before, 0));
    EXPECT_EQ(after.fitness[0], before.fitness[0]);
    for (int slot = 4; slot < 7; ++slot) {  // mutants (or immigrants): untouched
      EXPECT_EQ(keys_of(after, slot), keys_of(before, slot));
      EXPECT_EQ(after.fitness[slot], before.fitness[slot]);
    }
    for (int slot = 1; slot < 4; ++slot) {
      EXPECT_FALSE(is_evaluated(after.fitness[slot]));
      const auto a = keys_of(after, slot), b = keys_of(before, slot);
      int changed = 0;
      for (int i = 0; i < n; ++i) changed += a[i] != b[i];
      // 4 rounds (0.1 x 40): at most 4 keys changed, 8 moved by swaps; swaps keep the key set.
      EXPECT_GE(changed, kind == ShakeKind::kSwap ? 2 : 1) << shake_kind_name(kind);
      EXPECT_LE(changed, kind == ShakeKind::kSwap ? 8 : 4) << shake_kind_name(kind);
      if (kind == ShakeKind::kSwap) {
        auto sa = a, sb = b;
        std::sort(sa.begin(), sa.end());
        std::sort(sb.begin(), sb.end());
        EXPECT_EQ(sa, sb);
      }
    }
    for (int slot = 7; slot < 12; ++slot) {  // offspring: new keys
      EXPECT_FALSE(is_evaluated(after.fitness[slot]));
      const auto a = keys_of(after, slot), b = keys_of(before, slot);
      int same = 0;
      for (int i = 0; i < n; ++i) same += a[i] == b[i];
      EXPECT_EQ(same, 0);
    }
    // The same call gives the same bits; another generation other bits.
    Population again = before, other = before;
    StallState s2{.best = 1.0, .stalled = 1}, s3 = s2;
    apply_shake(ShakeAction::kShake, again, brkga, params, s2, 3, 0, 7);
    apply_shake(ShakeAction::kShake, other, brkga, params, s3, 3, 0, 8);
    EXPECT_EQ(again.keys, after.keys);
    EXPECT_NE(other.keys, after.keys);
  }
}

TEST(Shake, ResetRenewsEveryoneButTheBestAndTheMutantSlots) {
  const BrkgaParams brkga{.population_size = 10, .elite_count = 3, .mutant_count = 2};
  const ShakeParams params{.reset_interval = 4};
  Population before = evaluated_sorted_population(10, 16, 5, 2);
  Population after = before;
  StallState stall{.best = 0.5, .stalled = 4};
  apply_shake(ShakeAction::kReset, after, brkga, params, stall, 5, 2, 11);
  EXPECT_EQ(stall.stalled, 0);
  EXPECT_EQ(stall.best, 0.5);  // the best so far is still in the population (slot 0)
  for (int slot = 0; slot < 10; ++slot) {
    const bool kept = slot == 0 || slot == 3 || slot == 4;
    EXPECT_EQ(keys_of(after, slot) == keys_of(before, slot), kept) << slot;
    EXPECT_EQ(is_evaluated(after.fitness[slot]), kept) << slot;
  }
  Population none = before;
  apply_shake(ShakeAction::kNone, none, brkga, params, stall, 5, 2, 11);
  EXPECT_EQ(none.keys, before.keys);
}

TEST(Shake, AdvanceGenerationShakesStalledIslandsAndKeepsItsBest) {
  IslandsConfig config;
  config.moves = {18, 22};
  config.brkga = {.population_size = 10, .elite_count = 3, .mutant_count = 3, .elite_inheritance = 0.7};
  config.migration = {Topology::kPaper, 2, 2};
  config.shake = {.interval = 1, .reset_interval = 3};
  config.seed = 4;
  Archipelago a = make_archipelago(config, 12);
  ASSERT_EQ(a.stalls.size(), 2u);
  // A fitness that never improves after generation 0 (every individual the same): island 0
  // stalls every generation: shaken after 1 and 2 stalled generations, reset after 3.
  std::vector<ShakeAction> seen;
  for (int g = 0; g < 5; ++g) {
    for (auto& pop : a.islands) std::fill(pop.fitness.begin(), pop.fitness.end(), 1.0);
    const std::vector<double> best = std::vector<double>(a.islands[0].keys.begin(), a.islands[0].keys.begin() + 12);
    const std::vector<ShakeAction> actions = advance_generation(a, config);
    ASSERT_EQ(actions.size(), 2u);
    EXPECT_EQ(actions[0], actions[1]);
    EXPECT_EQ(keys_of(a.islands[0], 0), best);  // equal fitness: the best is the old slot 0
    seen.push_back(actions[0]);
  }
  EXPECT_EQ(seen, (std::vector<ShakeAction>{ShakeAction::kNone, ShakeAction::kShake, ShakeAction::kShake,
                                            ShakeAction::kReset, ShakeAction::kShake}));
  EXPECT_EQ(a.stalls[0].stalled, 1);
  // Off: no stall states, no actions, the plain transition's bits.
  IslandsConfig plain = config;
  plain.shake = {};
  Archipelago p = make_archipelago(plain, 12), q = make_archipelago(config, 12);
  EXPECT_TRUE(p.stalls.empty());
  for (auto* x : {&p, &q})
    for (auto& pop : x->islands) evaluate_by_key_sum(pop);
  EXPECT_EQ(advance_generation(p, plain), (std::vector<ShakeAction>{ShakeAction::kNone, ShakeAction::kNone}));
  advance_generation(q, config);  // nothing stalled yet at the first transition
  EXPECT_EQ(p.islands[0].keys, q.islands[0].keys);
}

// ---------------------------------------------------------------------------------------------
// Implicit path relinking (path_relinking.hpp)

namespace {

// Blocks of 2 keys; a block differs when its first key differs (the second never matters, as a
// decoder that ignores some keys); fitness = the sum of first keys, every call recorded.
struct ToyRelink {
  std::vector<std::vector<std::vector<double>>> calls;
  RelinkProblem problem() {
    RelinkProblem p;
    p.block_size = 2;
    p.block_distance = [](std::span<const double> a, std::span<const double> b, int) {
      return a[0] == b[0] ? 0.0 : 1.0;
    };
    p.evaluate = [this](const std::vector<int>&, const std::vector<std::vector<double>>& individuals,
                        std::vector<double>& fitness) {
      calls.push_back(individuals);
      for (std::size_t i = 0; i < individuals.size(); ++i) {
        fitness[i] = 0;
        for (std::size_t k = 0; k < individuals[i].size(); k += 2) fitness[i] += individuals[i][k];
      }
    };
    return p;
  }
};

}  // namespace

TEST(PathRelinking, APathWalksFromTheBaseToTheGuideOneBlockAStep) {
  ToyRelink toy;
  const RelinkProblem problem = toy.problem();
  // Path 0: blocks 0, 2, 3, 5 differ (block 1 only in its ignored key); path 1: block 4 only.
  const std::vector<double> base{0.5, 0.1, 0.5, 0.2, 0.5, 0.3, 0.5, 0.4, 0.5, 0.5, 0.5, 0.6};
  const std::vector<double> guide{0.9, 0.1, 0.5, 0.7, 0.2, 0.3, 0.1, 0.4, 0.5, 0.5, 0.6, 0.6};
  std::vector<double> other_guide = base;
  other_guide[8] = 0.05;
  const std::vector<RelinkResult> r = relink({{base, guide, 0}, {base, other_guide, 1}}, problem, 1.0);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].distance, 4);
  EXPECT_EQ(r[1].distance, 1);
  // Every path's candidates of a step in one call: 4 + 1, then 3, 2, 1.
  ASSERT_EQ(toy.calls.size(), 4u);
  EXPECT_EQ(toy.calls[0].size(), 5u);
  EXPECT_EQ(toy.calls[1].size(), 3u);
  EXPECT_EQ(r[0].evaluations, 4 + 3 + 2 + 1);
  EXPECT_EQ(r[1].evaluations, 1);
  // The first candidates differ from the base in one block each; the distance to the guide falls
  // by one a step and ends at 0 (percentage 1 reaches the guide).
  for (std::size_t c = 0; c < 4; ++c) EXPECT_EQ(relink_distance(problem, toy.calls[0][c], base), 1) << c;
  EXPECT_EQ(r[0].guide_distances, (std::vector<double>{3, 2, 1, 0}));
  EXPECT_EQ(relink_distance(problem, toy.calls[3][0], guide), 0);
  // The best met: blocks 2 and 3 lower the sum (0.2, 0.1 for 0.5), 0 and 5 raise it. Greedy takes
  // 3 first, then 2: fitness 0.5 * 4 + 0.2 + 0.1 = 2.3.
  EXPECT_DOUBLE_EQ(r[0].fitness, 2.3);
  EXPECT_EQ(relink_distance(problem, r[0].best, base), 2);
  EXPECT_DOUBLE_EQ(r[1].fitness, 2.55);
  // Half the path: ceil(0.5 x 4) = 2 steps; alike individuals: no step.
  ToyRelink half;
  const std::vector<RelinkResult> h = relink({{base, guide, 0}, {base, base, 0}}, half.problem(), 0.5);
  EXPECT_EQ(h[0].guide_distances, (std::vector<double>{3, 2}));
  EXPECT_EQ(h[0].evaluations, 4 + 3);
  EXPECT_TRUE(h[1].best.empty());
  EXPECT_EQ(h[1].evaluations, 0);
}

TEST(PathRelinking, ArchipelagoPairsInsertBetterIndividualsAndDoNotDependOnRanks) {
  IslandsConfig config;
  config.moves = {20, 26, 32};
  config.brkga = {.population_size = 10, .elite_count = 3, .mutant_count = 3, .elite_inheritance = 0.7};
  config.migration = {Topology::kRing, 0, 0};
  config.ipr = {.interval = 2, .pairs = 2, .selection = IprSelection::kRandom, .percentage = 1.0, .min_distance = 1};
  config.seed = 9;
  const int num_keys = 8;  // 4 blocks of 2
  RelinkProblem problem = ToyRelink{}.problem();
  problem.evaluate = [](const std::vector<int>& islands, const std::vector<std::vector<double>>& individuals,
                        std::vector<double>& fitness) {  // island-dependent: key sum plus the island
    for (std::size_t i = 0; i < individuals.size(); ++i)
      fitness[i] = std::accumulate(individuals[i].begin(), individuals[i].end(), 0.0) + islands[i];
  };
  auto evaluate = [](Archipelago& a) {
    for (std::size_t k = 0; k < a.islands.size(); ++k)
      for (int i = 0; i < a.islands[k].size; ++i) {
        const auto keys = a.islands[k].individual(i);
        a.islands[k].fitness[i] = std::accumulate(keys.begin(), keys.end(), 0.0) + static_cast<double>(k);
      }
  };
  // Local island indices on a rank are not global ones: evaluate by the global number there.
  Archipelago whole = make_archipelago(config, num_keys);
  evaluate(whole);
  SoloTeam solo;
  EXPECT_TRUE(path_relink(whole, config, problem, solo).empty());  // generation 0: not due
  whole.generation = 2;
  const Population before = whole.islands[1];
  const std::vector<IprReport> reports = path_relink(whole, config, problem, solo);
  ASSERT_EQ(reports.size(), 6u);
  int inserted = 0;
  for (const IprReport& r : reports) {
    EXPECT_NE(r.island, r.guide_island);
    EXPECT_GE(r.result.distance, 1);
    inserted += r.inserted;
    if (r.inserted) {
      EXPECT_LT(r.result.fitness, r.replaced_fitness);
    }
  }
  EXPECT_GT(inserted, 0);
  // Island 1: each inserted path best replaced the worst; nothing else changed.
  int changed = 0;
  for (int i = 0; i < 10; ++i) changed += keys_of(whole.islands[1], i) != keys_of(before, i);
  EXPECT_EQ(changed, reports[2].inserted + reports[3].inserted);

  const int ranks = 3;
  std::vector<Archipelago> parts(ranks);
  run_thread_team(ranks, [&](ThreadTeam& team) {
    const int r = team.rank();
    parts[r] = make_archipelago(config, num_keys, island_block(r, ranks, 3));
    for (std::size_t k = 0; k < parts[r].islands.size(); ++k)
      for (int i = 0; i < parts[r].islands[k].size; ++i) {
        const auto keys = parts[r].islands[k].individual(i);
        parts[r].islands[k].fitness[i] = std::accumulate(keys.begin(), keys.end(), 0.0) + r;
      }
    parts[r].generation = 2;
    RelinkProblem local = problem;
    local.evaluate = [&](const std::vector<int>& islands, const std::vector<std::vector<double>>& individuals,
                         std::vector<double>& fitness) {
      for (std::size_t i = 0; i < individuals.size(); ++i)
        fitness[i] =
            std::accumulate(individuals[i].begin(), individuals[i].end(), 0.0) + parts[r].first_island + islands[i];
    };
    path_relink(parts[r], config, local, team);
  });
  for (int k = 0; k < 3; ++k) EXPECT_EQ(parts[k].islands[0].keys, whole.islands[k].keys) << "island " << k;
  // Validation: more pairs than elite individuals under selection best.
  config.ipr.selection = IprSelection::kBest;
  config.ipr.pairs = 4;
  EXPECT_THROW(config.validate(), Error);
}

TEST(PathRelinking, TupleDistanceComparesDecodedFeaturesUpToSymmetry) {
  const Decoder decoder({0, 1, 2, 5, 6, 7, 8, 9}, {2});  // a1 b1 c1 f1 g1 h1 a2 b2; one pair
  auto keys = [](std::initializer_list<double> k) { return std::vector<double>(k); };
  const auto a1b1 = keys({0.1, 0.2, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9});
  const auto a1b1_other_keys = keys({0.3, 0.1, 0.8, 0.7, 0.9, 0.95, 0.6, 0.5});
  const auto g1h1 = keys({0.9, 0.9, 0.9, 0.9, 0.1, 0.2, 0.9, 0.9});  // a1 b1 mirrored left-right
  const auto a1a2 = keys({0.1, 0.9, 0.9, 0.9, 0.9, 0.9, 0.2, 0.9});  // a1 b1 mirrored on the diagonal
  const auto b1c1 = keys({0.9, 0.1, 0.2, 0.9, 0.9, 0.9, 0.9, 0.9});
  EXPECT_EQ(decoder.tuple_squares(a1b1, 0), (std::vector<int>{0, 1}));
  EXPECT_EQ(tuple_block_distance(decoder, a1b1, a1b1_other_keys, 0), 0);  // other keys, same squares
  EXPECT_EQ(tuple_block_distance(decoder, a1b1, g1h1, 0), 0);             // symmetric images
  EXPECT_EQ(tuple_block_distance(decoder, a1b1, a1a2, 0), 0);
  EXPECT_GT(tuple_block_distance(decoder, a1b1, b1c1, 0), 0);  // another feature
  EXPECT_EQ(canonical_tuple_mask({6, 7}), canonical_tuple_mask({0, 1}));
  EXPECT_EQ(decoder.decode(b1c1).tuples[0], decoder.tuple_squares(b1c1, 0));
}
