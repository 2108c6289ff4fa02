// The Elo round-robin GA (ga/elo_ga.hpp) as a scheduler: pairings, rating updates, the next
// population's composition, determinism; and the Othello side (games/othello/fitness_matches.hpp).
#include "evalforge/ga/elo_ga.hpp"
#include <gtest/gtest.h>
#include <cmath>
#include <set>
#include "evalforge/backends/backend.hpp"
#include "evalforge/core/error.hpp"
#include "evalforge/core/rng.hpp"
#include "evalforge/games/othello/fitness_matches.hpp"
#include "evalforge/games/othello/game.hpp"
#include "games/othello/feature_weights.hpp"

using namespace ef;
using namespace ef::ga;

namespace {

std::vector<GeneRange> feature_ranges() { return play::feature_gene_ranges(false); }

EloGaParams small_params(int n) {
  EloGaParams p;
  p.population = n;
  return p;
}

}  // namespace

TEST(EloGa, RoundRobinPlaysEveryPairTwiceWithColoursSwapped) {
  const auto games = round_robin_pairings(352);
  EXPECT_EQ(games.size(), 123552u);  // the blog's 61,776 pairings x 2
  std::set<std::pair<int, int>> seen(games.begin(), games.end());
  EXPECT_EQ(seen.size(), games.size());  // each ordered pair once: every pair with both colours
  for (const auto& [a, b] : games) EXPECT_NE(a, b);
  const auto small = round_robin_pairings(3);
  const std::vector<std::pair<int, int>> expected{{0, 1}, {1, 0}, {0, 2}, {2, 0}, {1, 2}, {2, 1}};
  EXPECT_EQ(small, expected);
}

// K openings a pair: each pair's 2K games are consecutive, colours alternating, as
// engine/round_robin.hpp's paired_games lays out pairs x openings x colours.
TEST(EloGa, SeveralOpeningsAPairKeepEachPairsGamesTogether) {
  const auto games = round_robin_pairings(3, 2);
  const std::vector<std::pair<int, int>> expected{{0, 1}, {1, 0}, {0, 1}, {1, 0}, {0, 2}, {2, 0},
                                                  {0, 2}, {2, 0}, {1, 2}, {2, 1}, {1, 2}, {2, 1}};
  EXPECT_EQ(games, expected);
  EXPECT_EQ(round_robin_pairings(352, 4).size(), 4 * 123552u);
}

// Score and Bradley-Terry selection rank by all of the generation's games at once (sequential
// Elo depends on their order and on the ratings carried in).
TEST(EloGa, ScoreAndBradleyTerrySelectionRankByTheWholeTournament) {
  // 3 players, 2 openings a pair: (0,1) (1,0) (0,1) (1,0), then the same for (0,2) and (1,2);
  // the first player's score. Player 0: 1 + 0.5 + 0 + 0 = 1.5 against 1, 4 against 2 -> 5.5 / 8.
  // Player 1: 2.5 against 0, 1 + 1 + 0 + 0 = 2 against 2 -> 4.5 / 8. Player 2: 0 + 2 -> 2 / 8.
  const std::vector<double> scores{1, 0.5, 0, 1, 1, 0, 1, 0, 1, 0, 0, 1};
  EloGaParams p = small_params(3);
  p.openings_per_pair = 2;
  p.selection = EloSelection::kScore;
  EloPopulation pop = initial_population(feature_ranges(), p, 1);
  const RatedGeneration byscore = rate_generation(pop, scores, p);
  EXPECT_DOUBLE_EQ(byscore.fitness[0], 5.5 / 8);
  EXPECT_DOUBLE_EQ(byscore.fitness[1], 4.5 / 8);
  EXPECT_DOUBLE_EQ(byscore.fitness[2], 2.0 / 8);
  EXPECT_EQ(byscore.order, (std::vector<int>{0, 1, 2}));
  // Every game counted: 8 per member.
  EXPECT_EQ(pop.members[2].wins + pop.members[2].draws + pop.members[2].losses, 8u);
  p.selection = EloSelection::kBradleyTerry;
  EloPopulation again = initial_population(feature_ranges(), p, 1);
  const RatedGeneration bybt = rate_generation(again, scores, p);
  EXPECT_EQ(bybt.order, (std::vector<int>{0, 1, 2}));
  EXPECT_GT(bybt.fitness[0], bybt.fitness[1]);
  EXPECT_THROW(rate_generation(again, std::vector<double>(6, 0.5), p), Error);  // 12 games expected
}

// Random search: every generation a fresh population from the generation's own stream (the
// baseline a GA must beat at the same number of games).
TEST(EloGa, RandomSearchDrawsAFreshPopulationEachGeneration) {
  EloGaParams p = small_params(20);
  p.search = EloSearch::kRandom;
  EloPopulation pop = initial_population(feature_ranges(), p, 3);
  const std::vector<int> order = ranking(pop);
  const EloPopulation next = next_generation(pop, order, feature_ranges(), p, 3);
  ASSERT_EQ(next.members.size(), 20u);
  EXPECT_EQ(next.generation, 1);
  int kept = 0;
  for (const Member& m : next.members) {
    EXPECT_EQ(m.born, 1);
    for (const Member& old : pop.members) kept += m.genes == old.genes;
  }
  EXPECT_EQ(kept, 0);  // 11 genes: a repeat by chance is (1 / 20^2 / 11^9)-unlikely
  const EloPopulation same = next_generation(pop, order, feature_ranges(), p, 3);
  for (std::size_t i = 0; i < 20; ++i) EXPECT_EQ(same.members[i].genes, next.members[i].genes);
}

// Per-gene mutation: no mutant copies; offspring genes redrawn at the rate. At rate 0 every
// child is a pure crossover of two parents (each gene from one of them); at rate 1 no gene of a
// child equals both parents' value at that place.
TEST(EloGa, PerGeneMutationRedrawsOffspringGenesAtItsRate) {
  EloGaParams p = small_params(40);
  p.mutation_per_gene = true;
  p.mutation_rate = 0.0;
  EloPopulation pop = initial_population(feature_ranges(), p, 9);
  const std::vector<int> order = ranking(pop);
  const int parents = parent_count(p);
  auto from_parents = [&](const EloPopulation& next, std::size_t m, std::size_t i) {
    for (int r = 0; r < parents; ++r)
      if (pop.members[order[r]].genes[i] == next.members[m].genes[i]) return true;
    return false;
  };
  const EloPopulation crossed = next_generation(pop, order, feature_ranges(), p, 9);
  ASSERT_EQ(crossed.members.size(), 40u);
  for (std::size_t m = parents; m < crossed.members.size(); ++m)
    for (std::size_t i = 0; i < 11; ++i) EXPECT_TRUE(from_parents(crossed, m, i)) << m << " " << i;
  p.mutation_rate = 1.0;
  const EloPopulation mutated = next_generation(pop, order, feature_ranges(), p, 9);
  int changed = 0, genes = 0;
  for (std::size_t m = parents; m < mutated.members.size(); ++m)
    for (std::size_t i = 0; i < 11; ++i) {
      changed += mutated.members[m].genes[i] != crossed.members[m].genes[i];
      ++genes;
    }
  EXPECT_EQ(changed, genes);  // the same crossover draws, then every gene moved to another value
}

TEST(EloGa, RatingsFollowTheSequentialEloUpdateInGameOrder) {
  EloPopulation pop = initial_population(feature_ranges(), small_params(3), 1);
  // Games (0,1) (1,0) (0,2) (2,0) (1,2) (2,1): player 0 wins all, the rest are draws.
  const std::vector<double> scores{1, 0, 1, 0, 0.5, 0.5};
  EloGaParams p = small_params(3);
  p.k_factor = 32;
  const auto order = rate_tournament(pop, scores, p);
  // By hand: E = 1 / (1 + 10^(-(ra - rb) / 400)), ra += K (s - E), rb -= K (s - E).
  double r[3] = {0, 0, 0};
  auto game = [&](int a, int b, double s) {
    const double e = 1.0 / (1.0 + std::pow(10.0, -(r[a] - r[b]) / 400.0));
    r[a] += 32 * (s - e);
    r[b] -= 32 * (s - e);
  };
  game(0, 1, 1);
  game(1, 0, 0);
  game(0, 2, 1);
  game(2, 0, 0);
  game(1, 2, 0.5);
  game(2, 1, 0.5);
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(pop.members[i].rating, r[i], 1e-9) << i;
  EXPECT_EQ(order[0], 0);
  EXPECT_EQ(pop.members[0].wins, 4u);
  EXPECT_EQ(pop.members[1].losses, 2u);
  EXPECT_EQ(pop.members[1].draws, 2u);
  EXPECT_THROW(rate_tournament(pop, std::vector<double>(5, 0.5), p), Error);
}

TEST(EloGa, RankingBreaksTiesToTheLowerIndex) {
  EloPopulation pop = initial_population(feature_ranges(), small_params(4), 1);
  pop.members[0].rating = 5;
  pop.members[1].rating = 7;
  pop.members[2].rating = 7;
  pop.members[3].rating = 5;
  EXPECT_EQ(ranking(pop), (std::vector<int>{1, 2, 0, 3}));
}

TEST(EloGa, NextGenerationKeepsParentsThenAddsMutantsAndOffspring) {
  const auto ranges = feature_ranges();
  EloGaParams p = small_params(40);
  p.mutation_rate = 0.25;
  EloPopulation pop = initial_population(ranges, p, 9);
  for (int i = 0; i < 40; ++i) pop.members[i].rating = (i * 37) % 40;  // distinct ratings
  const auto order = ranking(pop);
  const EloPopulation next = next_generation(pop, order, ranges, p, 9);
  ASSERT_EQ(next.members.size(), 40u);
  EXPECT_EQ(next.generation, 1);
  const int parents = parent_count(p);
  EXPECT_EQ(parents, 14);  // round(0.35 * 40)
  for (int r = 0; r < parents; ++r) {
    EXPECT_EQ(next.members[r].genes, pop.members[order[r]].genes);
    EXPECT_EQ(next.members[r].rating, pop.members[order[r]].rating);
    EXPECT_EQ(next.members[r].born, 0);
  }
  std::set<std::vector<int>> parent_genes;
  for (int r = 0; r < parents; ++r) parent_genes.insert(pop.members[order[r]].genes);
  for (int i = parents; i < 40; ++i) {
    const Member& m = next.members[i];
    EXPECT_EQ(m.born, 1);
    EXPECT_EQ(m.rating, p.initial_rating);
    EXPECT_EQ(m.wins + m.draws + m.losses, 0u);
    for (std::size_t k = 0; k < ranges.size(); ++k) {
      EXPECT_GE(m.genes[k], ranges[k].low);
      EXPECT_LE(m.genes[k], ranges[k].high);
    }
  }
  // Some mutants (a quarter of 40 on average): each differs from some current member in exactly one gene.
  int one_gene_away = 0;
  for (int i = parents; i < 40; ++i)
    for (const Member& old : pop.members) {
      int diff = 0;
      for (std::size_t k = 0; k < ranges.size(); ++k) diff += old.genes[k] != next.members[i].genes[k];
      if (diff == 1) {
        ++one_gene_away;
        break;
      }
    }
  EXPECT_GT(one_gene_away, 2);
  // The same inputs give the same population; another seed another one.
  const EloPopulation again = next_generation(pop, order, ranges, p, 9);
  for (int i = 0; i < 40; ++i) EXPECT_EQ(again.members[i].genes, next.members[i].genes);
  const EloPopulation other = next_generation(pop, order, ranges, p, 10);
  bool differs = false;
  for (int i = parents; i < 40; ++i) differs = differs || other.members[i].genes != next.members[i].genes;
  EXPECT_TRUE(differs);
}

TEST(EloGa, OffspringGenesComeFromTheirParents) {
  const auto ranges = feature_ranges();
  EloGaParams p = small_params(30);
  p.mutation_rate = 0;
  p.crossover = CrossoverKind::kOnePoint;
  EloPopulation pop = initial_population(ranges, p, 4);
  const auto order = ranking(pop);
  const EloPopulation next = next_generation(pop, order, ranges, p, 4);
  const int parents = parent_count(p);
  for (int i = parents; i < 30; ++i) {
    // A one-point child is a prefix of one parent and the suffix of another.
    bool found = false;
    for (int a = 0; a < parents && !found; ++a)
      for (int b = 0; b < parents && !found; ++b) {
        if (a == b) continue;
        const auto& x = pop.members[order[a]].genes;
        const auto& y = pop.members[order[b]].genes;
        for (std::size_t cut = 1; cut < x.size() && !found; ++cut) {
          bool ok = true;
          for (std::size_t k = 0; k < x.size(); ++k) ok = ok && next.members[i].genes[k] == (k < cut ? x[k] : y[k]);
          found = ok;
        }
      }
    EXPECT_TRUE(found) << "offspring " << i;
  }
}

TEST(EloGa, BadParametersAreErrorsNamingTheFile) {
  const auto ranges = feature_ranges();
  EloGaParams p;
  p.population = 2;
  try {
    validate(p, ranges, "x.toml");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("x.toml"), std::string::npos);
  }
  p = {};
  p.mutation_genes = 12;
  EXPECT_THROW(validate(p, ranges, "x.toml"), Error);
  p = {};
  p.k_factor = 0;
  EXPECT_THROW(validate(p, ranges, "x.toml"), Error);
}

TEST(EloGa, DiversityCountsDistinctChromosomesAndGeneDistance) {
  EloPopulation pop = initial_population(feature_ranges(), small_params(3), 1);
  pop.members[1].genes = pop.members[0].genes;
  pop.members[2].genes = pop.members[0].genes;
  pop.members[2].genes[0] = pop.members[0].genes[0] == 1 ? 2 : 1;
  const Diversity d = diversity(pop);
  EXPECT_EQ(d.distinct, 2);
  EXPECT_NEAR(d.mean_gene_distance, (0 + 1 + 1) / 3.0 / 11.0, 1e-12);
}

TEST(FeatureTournament, RoundRobinScoresAreTheGamesOfTheChromosomesForAnyThreadCount) {
  const auto ranges = feature_ranges();
  const EloPopulation pop = initial_population(ranges, small_params(12), 3);
  std::vector<std::vector<int>> genes;
  for (const auto& m : pop.members) genes.push_back(m.genes);
  play::FeaturePlayOptions o;
  auto one = make_backend("cpu", 1), two = make_backend("cpu", 2);
  play::FeatureTournament t1(*one, o), t2(*two, o);
  play::TournamentCounts c1, c2;
  const auto s1 = t1.play_round_robin(genes, 5, 0, &c1);
  const auto s2 = t2.play_round_robin(genes, 5, 0, &c2);
  EXPECT_EQ(s1, s2);
  EXPECT_EQ(c1.move_lists_hash, c2.move_lists_hash);
  ASSERT_EQ(s1.size(), 132u);
  EXPECT_EQ(c1.black_wins + c1.draws + c1.white_wins, 132u);
  // Game 2k+1 of a pair is game 2k with colours swapped: replay one pair through the agents.
  auto cpu = make_backend("cpu", 1);
  const int a = cpu->add_agent(play::feature_agent(genes[0], o, "a"));
  const int b = cpu->add_agent(play::feature_agent(genes[1], o, "b"));
  std::vector<OthelloJob> jobs(2);
  jobs[0].black = a;
  jobs[0].white = b;
  jobs[1].black = b;
  jobs[1].white = a;
  std::vector<play::OthelloRecord> r(2);
  cpu->play(jobs, r);
  auto score = [](int s) { return s > 0 ? 1.0 : (s < 0 ? 0.0 : 0.5); };
  EXPECT_EQ(s1[0], score(r[0].black_score));
  EXPECT_EQ(s1[1], score(r[1].black_score));
  // Deterministic 1-ply play from the start: a later generation plays the same games.
  EXPECT_EQ(t1.play_round_robin(genes, 5, 7), s1);
}

TEST(FeatureTournament, YardstickPlaysBothColoursOfEveryOpening) {
  auto cpu = make_backend("cpu", 2);
  play::FeatureTournament t(*cpu, {});
  const std::vector<int> genes{14, 42, 0, 0, 4, 0, 4, 10, 2, 7, 9};
  const auto y = t.play_yardstick(genes, play::random_agent(), 20, 4, 1, 0);
  EXPECT_EQ(y.wins + y.draws + y.losses, 40);
  EXPECT_GT(y.score(), 0.6);  // a searched evaluator beats random play
  EXPECT_THROW(play::feature_agent(std::vector<int>{0, 42, 0, 0, 4, 0, 4, 10, 2, 7, 9}, {}, "bad"), Error);
}

// The search's leaf shortcut (alphabeta.hpp leaf_value_of) must value a leaf exactly as eval().
TEST(FeatureEvaluator, EvalGivenMovesEqualsEvalOnRandomPositions) {
  features::Evaluator e;
  e.weights = features::parse_chromosome("8:47:5:3:2:2:4:8:1:4:2", features::Material::kDiscs, "test");
  for (u32 game = 0; game < 50; ++game) {
    Rng rng(3, Purpose::kDatagen, game);
    othello::Position p;
    while (!p.board.game_over()) {
      const u64 moves = games::Othello::moves(p);
      if (!moves) {
        p = games::Othello::pass(p);
        continue;
      }
      EXPECT_EQ(e.eval_given_moves(p, moves), e.eval(p));
      p = games::Othello::play(p, rng.random_bit(moves));
    }
  }
}

// With openings, both games of a pair start from the pair's own opening; different pairs
// (almost always) from different ones.
TEST(FeatureTournament, BothColoursOfAPairShareItsOpening) {
  const auto ranges = feature_ranges();
  const EloPopulation pop = initial_population(ranges, small_params(4), 8);
  std::vector<std::vector<int>> genes;
  for (const auto& m : pop.members) genes.push_back(m.genes);
  // A backend that keeps the jobs it is given.
  struct Recording final : ForwardingBackend {
    using ForwardingBackend::ForwardingBackend;
    using ForwardingBackend::play;
    void play(std::span<const OthelloJob> jobs, std::span<play::OthelloRecord> results) override {
      seen.assign(jobs.begin(), jobs.end());
      inner_.play(jobs, results);
    }
    std::vector<OthelloJob> seen;
  };
  auto cpu = make_backend("cpu", 1);
  Recording rec(*cpu);
  play::FeaturePlayOptions o;
  o.opening_plies = 4;
  play::FeatureTournament t(rec, o);
  t.play_round_robin(genes, 2, 3);
  ASSERT_EQ(rec.seen.size(), 12u);
  std::set<std::pair<u64, u64>> openings;
  for (std::size_t g = 0; g < rec.seen.size(); g += 2) {
    const auto& a = rec.seen[g].start;
    const auto& b = rec.seen[g + 1].start;
    EXPECT_EQ(a.board.black(), b.board.black());
    EXPECT_EQ(a.board.white(), b.board.white());
    EXPECT_EQ(a.board.discs(), 8);  // 4 plies from the start
    EXPECT_EQ(rec.seen[g].black, rec.seen[g + 1].white);
    openings.insert({a.board.black(), a.board.white()});
  }
  EXPECT_GT(openings.size(), 3u);
}
