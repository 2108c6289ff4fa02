// The bit-string GA (ga/bitstring_ga.hpp): selection frequencies against their formulas,
// elitism, crossover and mutation, determinism.
#include "evalforge/ga/bitstring_ga.hpp"
#include <gtest/gtest.h>
#include <map>
#include "evalforge/core/error.hpp"

using namespace ef;
using namespace ef::ga;

namespace {

// Four distinct members (member i's bits spell i) and the share of each among the offspring of
// many generations, with crossover and mutation off: the selection probabilities.
std::vector<double> selection_shares(Selection s, const std::vector<double>& fitness, int tournament_size = 2) {
  BitGaParams p;
  p.population = 4;
  p.bits = 2;
  p.selection = s;
  p.tournament_size = tournament_size;
  p.crossover_rate = 0;
  p.mutation_rate = 0;
  const std::vector<BitString> pop{{0, 0}, {0, 1}, {1, 0}, {1, 1}};
  std::vector<double> count(4, 0);
  int total = 0;
  for (int g = 0; g < 4000; ++g)
    for (const BitString& b : next_bit_generation(pop, fitness, p, 3, 0, g)) {
      count[2 * b[0] + b[1]] += 1;
      ++total;
    }
  for (double& c : count) c /= total;
  return count;
}

}  // namespace

TEST(BitStringGa, RouletteSelectsInProportionToFitness) {
  const auto share = selection_shares(Selection::kRoulette, {1, 2, 3, 4});
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(share[i], (i + 1) / 10.0, 0.015) << i;
  const auto zero = selection_shares(Selection::kRoulette, {0, 0, 0, 0});  // all zero: uniform
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(zero[i], 0.25, 0.015) << i;
}

TEST(BitStringGa, RankSelectionDependsOnTheOrderOnly) {
  // Ranks (ties to the lower index): member 3 first, then 0, 1, 2: weights 4, 3, 2, 1 of 10.
  const auto share = selection_shares(Selection::kRank, {1, 1, 1, 100});
  EXPECT_NEAR(share[3], 0.4, 0.015);
  EXPECT_NEAR(share[0], 0.3, 0.015);
  EXPECT_NEAR(share[1], 0.2, 0.015);
  EXPECT_NEAR(share[2], 0.1, 0.015);
}

TEST(BitStringGa, TournamentSelectionPicksTheBestOfItsDraws) {
  // Size 2 of 4: P(best of two draws is member i) = ((i+1)^2 - i^2) / 16 for fitness rising with i.
  const auto share = selection_shares(Selection::kTournament, {1, 2, 3, 4}, 2);
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(share[i], ((i + 1) * (i + 1) - i * i) / 16.0, 0.015) << i;
}

TEST(BitStringGa, ElitesSurviveAndCrossoverCutsOnePoint) {
  BitGaParams p;
  p.population = 10;
  p.bits = 40;
  p.elitism = 2;
  p.crossover_rate = 1;
  p.mutation_rate = 0;
  const auto pop = random_bit_population(p, 1, 0);
  std::vector<double> f{5, 1, 9, 2, 9, 3, 0, 4, 8, 1};
  const auto next = next_bit_generation(pop, f, p, 1, 0, 0);
  ASSERT_EQ(next.size(), 10u);
  EXPECT_EQ(next[0], pop[2]);  // 9, the lower index of the two
  EXPECT_EQ(next[1], pop[4]);
  // Every child is a prefix of one member and the suffix of another.
  for (int i = 2; i < 10; ++i) {
    bool found = false;
    for (int a = 0; a < 10 && !found; ++a)
      for (int b = 0; b < 10 && !found; ++b)
        for (int cut = 1; cut < 40 && !found; ++cut) {
          bool ok = true;
          for (int k = 0; k < 40 && ok; ++k) ok = next[i][k] == (k < cut ? pop[a][k] : pop[b][k]);
          found = ok;
        }
    EXPECT_TRUE(found) << i;
  }
}

TEST(BitStringGa, MutationFlipsBitsAtItsRateAndRunsAreDeterministic) {
  BitGaParams p;
  p.population = 50;
  p.bits = 200;
  p.crossover_rate = 0;
  p.mutation_rate = 0.1;
  p.selection = Selection::kTournament;
  p.tournament_size = 1;  // a uniform pick: children are mutated copies of random members
  const std::vector<BitString> pop(50, BitString(200, 0));
  const std::vector<double> f(50, 1.0);
  const auto next = next_bit_generation(pop, f, p, 7, 2, 5);
  double ones = 0;
  for (const auto& b : next)
    for (auto bit : b) ones += bit;
  EXPECT_NEAR(ones / (50 * 200), 0.1, 0.01);
  EXPECT_EQ(next_bit_generation(pop, f, p, 7, 2, 5), next);
  EXPECT_NE(next_bit_generation(pop, f, p, 7, 3, 5), next);  // another stream
  EXPECT_NE(next_bit_generation(pop, f, p, 7, 2, 6), next);  // another generation
}

TEST(BitStringGa, BadParametersAndFitnessAreErrors) {
  BitGaParams p;
  p.bits = 10;
  EXPECT_NO_THROW(validate(p, "x.toml"));
  p.elitism = 100;
  EXPECT_THROW(validate(p, "x.toml"), Error);
  p.elitism = 0;
  p.mutation_rate = 2;
  EXPECT_THROW(validate(p, "x.toml"), Error);
  p.mutation_rate = 0.001;
  const auto pop = random_bit_population(p, 1, 0);
  std::vector<double> f(100, 1.0);
  f[3] = -1;
  EXPECT_THROW(next_bit_generation(pop, f, p, 1, 0, 0), Error);
  EXPECT_EQ(best_indices(std::vector<double>{3, 7, 7, 1}, 3), (std::vector<int>{1, 2, 0}));
}
