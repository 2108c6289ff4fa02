// Tournament ratings: sequential Elo, the Bradley-Terry fit with intervals and LOS, and one
// player's expected score with a 95% interval.
#include "evalforge/ratings/ratings.hpp"
#include <gtest/gtest.h>
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <span>
#include <string>
#include <vector>
#include "evalforge/core/error.hpp"
#include "evalforge/core/rng.hpp"

using namespace ef;
using namespace ef::ratings;

namespace {

constexpr double kZ95 = 1.959963984540054;

// Round robin between players of known true Elo: every pair plays games_per_pair games with
// colours alternating. A game is drawn with probability 0.8 E (1 - E) and otherwise won so that
// the expected score of the first player is exactly E = expected_score(its Elo, the other's):
// the Bradley-Terry model with draws as half points is then the true model. Each game has its
// own random stream (tournament, pair, game), so adding games does not change the earlier ones.
std::vector<GameResult> simulate_round_robin(const std::vector<double>& true_elo, int games_per_pair, u32 tournament) {
  std::vector<GameResult> games;
  const int n = static_cast<int>(true_elo.size());
  u32 pair = 0;
  for (int i = 0; i < n; ++i) {
    for (int j = i + 1; j < n; ++j, ++pair) {
      for (int k = 0; k < games_per_pair; ++k) {
        const int first = k % 2 == 0 ? i : j, second = k % 2 == 0 ? j : i;
        const double e = expected_score(true_elo[first], true_elo[second]);
        const double p_draw = 0.8 * e * (1 - e);
        const double p_win = e - 0.5 * p_draw;
        const double u = Rng(2024, Purpose::kGame, tournament, pair, static_cast<u32>(k)).uniform();
        games.push_back({first, second, u < p_win ? 1.0 : (u < p_win + p_draw ? 0.5 : 0.0)});
      }
    }
  }
  return games;
}

// `count` copies of one result.
void add_games(std::vector<GameResult>& games, int count, int first, int second, double score) {
  for (int k = 0; k < count; ++k) games.push_back({first, second, score});
}

std::string error_message(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no ef::Error thrown)";
}

}  // namespace

TEST(EloExpectedScore, FormulaAndInverse) {
  EXPECT_DOUBLE_EQ(expected_score(1500, 1500), 0.5);
  // 400 Elo ahead: 1 / (1 + 10^-1) = 10/11.
  EXPECT_DOUBLE_EQ(expected_score(400, 0), 10.0 / 11.0);
  EXPECT_DOUBLE_EQ(expected_score(0, 400), 1.0 / 11.0);
  EXPECT_NEAR(elo_difference_from_score(10.0 / 11.0), 400.0, 1e-9);
  EXPECT_NEAR(elo_difference_from_score(0.75), 400.0 * std::log10(3.0), 1e-9);
  EXPECT_EQ(elo_difference_from_score(1.0), std::numeric_limits<double>::infinity());
  EXPECT_EQ(elo_difference_from_score(0.0), -std::numeric_limits<double>::infinity());
  EXPECT_THROW(elo_difference_from_score(1.5), Error);
}

// K = 32, everybody starts at 1500.
// Game 1: player 0 (first) beats player 1. Equal ratings, so E = 0.5 and the change is
//   32 * (1 - 0.5) = 16: r0 = 1516, r1 = 1484.
// Game 2: player 1 (first) draws with player 0. E1 = 1 / (1 + 10^((1516 - 1484)/400))
//   = 1 / (1 + 10^0.08) = 1 / (1 + 1.2022644346) = 0.4540780772; the change for player 1 is
//   32 * (0.5 - 0.4540780772) = 1.4695015290: r1 = 1485.4695015290, r0 = 1514.5304984710.
TEST(EloSequential, HandComputedTwoGames) {
  const std::vector<GameResult> games = {{0, 1, 1.0}, {1, 0, 0.5}};
  const std::vector<double> r = sequential_elo(games, 2, {.k_factor = 32, .initial_rating = 1500});
  EXPECT_NEAR(r[0], 1514.5304984710, 1e-9);
  EXPECT_NEAR(r[1], 1485.4695015290, 1e-9);
  // After the first game only.
  const std::vector<double> r1 = sequential_elo(std::span(games).first(1), 2, {.k_factor = 32, .initial_rating = 1500});
  EXPECT_DOUBLE_EQ(r1[0], 1516.0);
  EXPECT_DOUBLE_EQ(r1[1], 1484.0);
}

TEST(EloSequential, DefaultsAreK16FromZero) {
  const std::vector<GameResult> games = {{2, 0, 0.0}};  // player 0 wins as second player
  const std::vector<double> r = sequential_elo(games, 3);
  EXPECT_DOUBLE_EQ(r[0], 8.0);  // 16 * (1 - 0.5)
  EXPECT_DOUBLE_EQ(r[1], 0.0);  // did not play
  EXPECT_DOUBLE_EQ(r[2], -8.0);
}

// The update is zero-sum, so the mean stays at the initial rating; the result depends on the
// order of the games (why docs/anchors.md asks for a whole-tournament fit beside it), while the
// Bradley-Terry fit does not.
TEST(EloSequential, ZeroSumButOrderDependent) {
  const std::vector<GameResult> games = simulate_round_robin({-100, 0, 50, 200}, 10, 7);
  const std::vector<double> forward = sequential_elo(games, 4, {.k_factor = 32, .initial_rating = 1000});
  std::vector<GameResult> reversed(games.rbegin(), games.rend());
  const std::vector<double> backward = sequential_elo(reversed, 4, {.k_factor = 32, .initial_rating = 1000});
  double sum = 0;
  for (double x : forward) sum += x;
  EXPECT_NEAR(sum / 4, 1000.0, 1e-9);
  EXPECT_NE(forward, backward);
  EXPECT_EQ(forward, sequential_elo(games, 4, {.k_factor = 32, .initial_rating = 1000}));  // deterministic

  const BradleyTerryFit a = fit_bradley_terry(games, 4), b = fit_bradley_terry(reversed, 4);
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(a.ratings[i], b.ratings[i], 1e-9);
}

TEST(EloSequential, ContinuesFromExistingRatings) {
  std::vector<double> ratings = {100.0, 100.0, -200.0};
  apply_sequential_elo(ratings, std::vector<GameResult>{{0, 1, 1.0}}, 20);
  EXPECT_DOUBLE_EQ(ratings[0], 110.0);
  EXPECT_DOUBLE_EQ(ratings[1], 90.0);
  EXPECT_DOUBLE_EQ(ratings[2], -200.0);
}

// Two players, 100 games, 60 wins + 30 draws + 10 losses = score 75%. Without a prior the fit is
// the closed form: difference 400 log10(0.75 / 0.25) = 190.8485 Elo. Its variance is the inverse
// Fisher information 1 / (N p (1 - p)) in natural units (p = 0.75, N = 100), i.e. a 95% margin of
// 1.96 * sqrt(1 / 18.75) / (ln 10 / 400) = 78.6306 Elo on the difference. Anchored at the mean,
// each player carries half of the difference and half of its margin; anchored at player 1,
// player 0 carries all of it and player 1 none.
TEST(BradleyTerry, TwoPlayersMatchClosedForm) {
  std::vector<GameResult> games;
  add_games(games, 30, 0, 1, 1.0);
  add_games(games, 30, 1, 0, 0.0);
  add_games(games, 15, 0, 1, 0.5);
  add_games(games, 15, 1, 0, 0.5);
  add_games(games, 5, 0, 1, 0.0);
  add_games(games, 5, 1, 0, 1.0);
  const double difference = 400 * std::log10(3.0), margin = 78.6306304175555;

  const BradleyTerryFit mean_zero = fit_bradley_terry(games, 2, {.prior_draws = 0});
  EXPECT_TRUE(mean_zero.converged);
  EXPECT_LT(mean_zero.iterations, 15);
  EXPECT_NEAR(mean_zero.ratings[0], difference / 2, 1e-6);
  EXPECT_NEAR(mean_zero.ratings[1], -difference / 2, 1e-6);
  EXPECT_NEAR(mean_zero.margins95[0], margin / 2, 1e-6);
  EXPECT_NEAR(mean_zero.margins95[1], margin / 2, 1e-6);
  EXPECT_NEAR(kZ95 * mean_zero.difference_std_error(0, 1), margin, 1e-6);

  const BradleyTerryFit anchored =
      fit_bradley_terry(games, 2, {.anchor = RatingAnchor::kPlayerZero, .anchor_player = 1, .prior_draws = 0});
  EXPECT_NEAR(anchored.ratings[0], difference, 1e-6);
  EXPECT_EQ(anchored.ratings[1], 0.0);
  EXPECT_NEAR(anchored.margins95[0], margin, 1e-6);
  EXPECT_NEAR(anchored.margins95[1], 0.0, 1e-9);

  // The default prior (one virtual draw each) pulls the ratings together only a little.
  const BradleyTerryFit with_prior = fit_bradley_terry(games, 2);
  EXPECT_LT(with_prior.ratings[0] - with_prior.ratings[1], difference);
  EXPECT_GT(with_prior.ratings[0] - with_prior.ratings[1], difference - 5);
}

// Maximum likelihood without a prior makes every player's expected total score equal to its
// actual total score (the gradient is zero) — checked here on an uneven random tournament.
TEST(BradleyTerry, ExpectedScoresEqualActualScoresWithoutPrior) {
  std::vector<GameResult> games = simulate_round_robin({-250, -60, 0, 30, 280}, 12, 3);
  games.resize(games.size() - 7);  // uneven game counts per pair
  const BradleyTerryFit fit = fit_bradley_terry(games, 5, {.prior_draws = 0, .tolerance_elo = 1e-9});
  ASSERT_TRUE(fit.converged);
  std::vector<double> actual(5, 0.0), expected(5, 0.0);
  for (const GameResult& g : games) {
    const double e = expected_score(fit.ratings[g.first], fit.ratings[g.second]);
    actual[g.first] += g.score;
    actual[g.second] += 1 - g.score;
    expected[g.first] += e;
    expected[g.second] += 1 - e;
  }
  double mean = 0;
  for (int i = 0; i < 5; ++i) {
    EXPECT_NEAR(expected[i], actual[i], 1e-8) << "player " << i;
    mean += fit.ratings[i] / 5;
  }
  EXPECT_NEAR(mean, 0.0, 1e-9);
}

// A cycle (0 beats 1, 1 beats 2, 2 beats 0, colours balanced) carries no information on who is
// stronger: equal ratings, LOS 0.5 everywhere.
TEST(BradleyTerry, SymmetricResultsGiveEqualRatings) {
  std::vector<GameResult> games;
  for (int i = 0; i < 3; ++i) {
    const int next = (i + 1) % 3;
    add_games(games, 5, i, next, 1.0);
    add_games(games, 5, next, i, 0.0);
    add_games(games, 2, i, next, 0.0);  // and a few upsets, so the cycle is not a pure one
    add_games(games, 2, next, i, 1.0);
  }
  for (double prior : {0.0, 1.0}) {
    const BradleyTerryFit fit = fit_bradley_terry(games, 3, {.prior_draws = prior});
    for (int i = 0; i < 3; ++i) {
      EXPECT_NEAR(fit.ratings[i], 0.0, 1e-9);
      EXPECT_NEAR(fit.margins95[i], fit.margins95[0], 1e-9);
      for (int j = 0; j < 3; ++j) EXPECT_NEAR(fit.los(i, j), 0.5, 1e-9);
    }
  }
}

// Player 3 wins every game; the others draw among themselves. The likelihood alone would send
// player 3 to +infinity (the fit refuses); the prior's virtual draw keeps it finite and on top.
TEST(BradleyTerry, PerfectPlayerGetsFiniteRatingWithPrior) {
  std::vector<GameResult> games;
  for (int i = 0; i < 3; ++i) {
    add_games(games, 4, 3, i, 1.0);
    add_games(games, 4, i, 3, 0.0);
    for (int j = i + 1; j < 3; ++j) add_games(games, 4, i, j, 0.5);
  }
  const BradleyTerryFit fit = fit_bradley_terry(games, 4);
  ASSERT_TRUE(fit.converged);
  EXPECT_LE(fit.iterations, 15);
  EXPECT_TRUE(std::isfinite(fit.ratings[3]));
  EXPECT_TRUE(std::isfinite(fit.margins95[3]));
  for (int i = 0; i < 3; ++i) {
    EXPECT_GT(fit.ratings[3], fit.ratings[i] + 200);
    EXPECT_NEAR(fit.ratings[i], fit.ratings[0], 1e-9);
    EXPECT_GT(fit.los(3, i), 0.99);
  }
  EXPECT_LT(fit.ratings[3], 2000);

  const std::string message = error_message([&] { fit_bradley_terry(games, 4, {.prior_draws = 0}); });
  EXPECT_NE(message.find("infinite"), std::string::npos) << message;
  EXPECT_NE(message.find("prior_draws"), std::string::npos) << message;
}

// With the prior, players who never met anyone still get a rating (0, the pool average) and a
// wide interval instead of a singular system.
TEST(BradleyTerry, PriorHandlesPlayersWithoutGames) {
  std::vector<GameResult> games;
  add_games(games, 10, 0, 1, 1.0);
  add_games(games, 10, 1, 0, 0.5);
  const BradleyTerryFit fit = fit_bradley_terry(games, 3);
  EXPECT_GT(fit.ratings[0], fit.ratings[1]);
  EXPECT_GT(fit.margins95[2], fit.margins95[0]);
  EXPECT_THROW(fit_bradley_terry(games, 3, {.prior_draws = 0}), Error);
}

// Known strengths: 20 independent round robins of 6 players (mean true Elo 0, 40 games per
// pair). The mean-anchored fit should land within its reported 95% interval about 95% of the
// time (a bit more: the simulated draws make games less noisy than the model assumes), and
// never absurdly far. Checked for the ratings and for all pairwise differences.
TEST(BradleyTerry, RecoversKnownStrengthsWithinIntervals) {
  const std::vector<double> true_elo = {-300, -120, -40, 0, 90, 370};
  int rating_checks = 0, ratings_inside = 0, difference_checks = 0, differences_inside = 0;
  for (u32 t = 0; t < 20; ++t) {
    const BradleyTerryFit fit = fit_bradley_terry(simulate_round_robin(true_elo, 40, 100 + t), 6);
    ASSERT_TRUE(fit.converged);
    EXPECT_LE(fit.iterations, 10);  // Newton: a handful of steps, not the iteration cap
    for (int i = 0; i < 6; ++i) {
      const double error = std::abs(fit.ratings[i] - true_elo[i]);
      ++rating_checks;
      ratings_inside += error <= fit.margins95[i];
      EXPECT_LT(error, 2.2 * fit.margins95[i]) << "tournament " << t << " player " << i;  // ~4.3 sigma
      for (int j = i + 1; j < 6; ++j) {
        const double diff_error = std::abs((fit.ratings[i] - fit.ratings[j]) - (true_elo[i] - true_elo[j]));
        ++difference_checks;
        differences_inside += diff_error <= kZ95 * fit.difference_std_error(i, j);
      }
    }
  }
  EXPECT_GE(ratings_inside, 0.88 * rating_checks) << ratings_inside << " of " << rating_checks;
  EXPECT_GE(differences_inside, 0.88 * difference_checks) << differences_inside << " of " << difference_checks;
  EXPECT_LE(ratings_inside, rating_checks);
}

// The blog GA's tournament size: 352 players, every pair twice with colours swapped (123,552
// games). Converges in a few Newton steps, and the ratings stay within their intervals.
TEST(BradleyTerry, GaSizedPoolConvergesQuickly) {
  std::vector<double> true_elo(352);
  for (int i = 0; i < 352; ++i) true_elo[i] = 2.0 * i - 351.0;  // -351 .. +351, mean 0
  const std::vector<GameResult> games = simulate_round_robin(true_elo, 2, 42);
  ASSERT_EQ(games.size(), 123552u);
  const BradleyTerryFit fit = fit_bradley_terry(games, 352);
  ASSERT_TRUE(fit.converged);
  EXPECT_LE(fit.iterations, 10);
  int inside = 0;
  for (int i = 0; i < 352; ++i) inside += std::abs(fit.ratings[i] - true_elo[i]) <= fit.margins95[i];
  EXPECT_GE(inside, 0.88 * 352) << inside;
  EXPECT_GT(fit.los(351, 0), 0.999999);
}

// Four times the games: intervals about half as wide (1/sqrt(4)).
TEST(BradleyTerry, IntervalsShrinkWithMoreGames) {
  const std::vector<double> true_elo = {-150, 0, 50, 100};
  const BradleyTerryFit few = fit_bradley_terry(simulate_round_robin(true_elo, 100, 1), 4);
  const BradleyTerryFit many = fit_bradley_terry(simulate_round_robin(true_elo, 400, 1), 4);
  for (int i = 0; i < 4; ++i) {
    const double ratio = many.margins95[i] / few.margins95[i];
    EXPECT_GT(ratio, 0.4) << "player " << i;
    EXPECT_LT(ratio, 0.6) << "player " << i;
    EXPECT_LT(std::abs(many.ratings[i] - true_elo[i]), many.margins95[i] * 2.2);
  }
}

TEST(BradleyTerry, LikelihoodOfSuperiority) {
  // Equal players: even results give 0.5 exactly.
  std::vector<GameResult> even;
  add_games(even, 20, 0, 1, 1.0);
  add_games(even, 20, 1, 0, 1.0);
  const BradleyTerryFit equal = fit_bradley_terry(even, 2);
  EXPECT_NEAR(equal.los(0, 1), 0.5, 1e-12);

  // Very different players, and the table is consistent: LOS(i, j) + LOS(j, i) = 1.
  const BradleyTerryFit fit = fit_bradley_terry(simulate_round_robin({-400, 0, 10, 400}, 50, 5), 4);
  EXPECT_GT(fit.los(3, 0), 0.999999);
  EXPECT_LT(fit.los(0, 3), 1e-6);
  EXPECT_GT(fit.los(3, 1), 0.9999);
  const std::vector<double> table = fit.los_table();
  ASSERT_EQ(table.size(), 16u);
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(table[i * 4 + i], 0.5);
    for (int j = 0; j < 4; ++j) EXPECT_NEAR(table[i * 4 + j] + table[j * 4 + i], 1.0, 1e-12);
  }
  // Close players (10 Elo apart): far from certain either way.
  EXPECT_GT(fit.los(2, 1), 0.05);
  EXPECT_LT(fit.los(2, 1), 0.95);

  // The head-to-head shortcut: W = L gives 0.5; 60-40 gives Phi(20 / 10) = Phi(2) = 0.97725.
  EXPECT_DOUBLE_EQ(los_from_wins_losses(30, 30), 0.5);
  EXPECT_NEAR(los_from_wins_losses(60, 40), 0.9772498680518208, 1e-12);
  EXPECT_DOUBLE_EQ(los_from_wins_losses(0, 0), 0.5);
  EXPECT_THROW(los_from_wins_losses(-1, 3), Error);
}

// Anchoring moves ratings and intervals but not differences, their uncertainty or LOS.
TEST(BradleyTerry, AnchorChoiceKeepsDifferences) {
  const std::vector<GameResult> games = simulate_round_robin({-100, 20, 80}, 30, 9);
  const BradleyTerryFit mean_zero = fit_bradley_terry(games, 3);
  const BradleyTerryFit anchored =
      fit_bradley_terry(games, 3, {.anchor = RatingAnchor::kPlayerZero, .anchor_player = 2});
  EXPECT_EQ(anchored.ratings[2], 0.0);
  EXPECT_NEAR(anchored.margins95[2], 0.0, 1e-9);
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) {
      EXPECT_NEAR(anchored.ratings[i] - anchored.ratings[j], mean_zero.ratings[i] - mean_zero.ratings[j], 1e-9);
      EXPECT_NEAR(anchored.difference_std_error(i, j), mean_zero.difference_std_error(i, j), 1e-9);
      EXPECT_NEAR(anchored.los(i, j), mean_zero.los(i, j), 1e-12);
    }
    EXPECT_NEAR(anchored.margins95[i], kZ95 * mean_zero.difference_std_error(i, 2), 1e-9);
  }
}

// 10 games of player 0: 6 wins, 2 draws, 2 losses, some as the second player. Mean 0.7.
// Normal: per-game variance E[s^2] - mean^2 = 0.65 - 0.49 = 0.16, standard error sqrt(0.016) =
//   0.1264911; interval 0.7 -/+ 1.959964 * 0.1264911 = [0.4520820, 0.9479180].
// Wilson (n = 10, z^2 = 3.841459): center (0.7 + 0.1920729) / 1.3841459 = 0.6444934, half-width
//   1.959964 / 1.3841459 * sqrt(0.021 + 0.0096036) = 0.2477153: [0.3967781, 0.8922087].
TEST(RatingsExpectedScore, HandComputedNormalAndWilson) {
  std::vector<GameResult> games;
  add_games(games, 4, 0, 1, 1.0);
  add_games(games, 2, 2, 0, 0.0);  // wins as second player
  add_games(games, 2, 0, 2, 0.5);
  add_games(games, 1, 0, 1, 0.0);
  add_games(games, 1, 1, 0, 1.0);  // loss as second player
  add_games(games, 5, 1, 2, 1.0);  // not player 0's games: ignored

  const ScoreInterval normal = expected_score_interval(games, 3, 0, ScoreIntervalMethod::kNormal);
  EXPECT_EQ(normal.games, 10);
  EXPECT_EQ(normal.wins, 6);
  EXPECT_EQ(normal.draws, 2);
  EXPECT_EQ(normal.losses, 2);
  EXPECT_DOUBLE_EQ(normal.mean, 0.7);
  EXPECT_NEAR(normal.standard_error, std::sqrt(0.016), 1e-12);
  EXPECT_NEAR(normal.low95, 0.4520819870781754, 1e-9);
  EXPECT_NEAR(normal.high95, 0.9479180129218245, 1e-9);
  EXPECT_NEAR(normal.elo, 400 * std::log10(0.7 / 0.3), 1e-9);
  EXPECT_NEAR(normal.elo_low95, elo_difference_from_score(normal.low95), 1e-9);

  const ScoreInterval wilson = expected_score_interval(games, 3, 0);  // Wilson is the default
  EXPECT_DOUBLE_EQ(wilson.mean, 0.7);
  EXPECT_NEAR(wilson.low95, 0.39677814746114537, 1e-9);
  EXPECT_NEAR(wilson.high95, 0.8922087325936989, 1e-9);
  EXPECT_LT(wilson.elo_low95, wilson.elo);
  EXPECT_GT(wilson.elo_high95, wilson.elo);
}

// Against a much weaker opponent a player may win every game: Wilson still gives a useful
// interval (lower bound 0.7225 for 10 of 10), the normal approximation collapses to a point.
TEST(RatingsExpectedScore, AllWins) {
  std::vector<GameResult> games;
  add_games(games, 10, 1, 0, 0.0);
  const ScoreInterval wilson = expected_score_interval(games, 2, 0);
  EXPECT_DOUBLE_EQ(wilson.mean, 1.0);
  EXPECT_NEAR(wilson.low95, 0.7224672001371107, 1e-9);
  EXPECT_NEAR(wilson.high95, 1.0, 1e-12);
  EXPECT_EQ(wilson.elo, std::numeric_limits<double>::infinity());
  EXPECT_GT(wilson.elo_low95, 100);
  EXPECT_TRUE(std::isfinite(wilson.elo_low95));

  const ScoreInterval normal = expected_score_interval(games, 2, 0, ScoreIntervalMethod::kNormal);
  EXPECT_EQ(normal.standard_error, 0.0);
  EXPECT_EQ(normal.low95, 1.0);
  // The opponent's view: all losses.
  const ScoreInterval loser = expected_score_interval(games, 2, 1);
  EXPECT_EQ(loser.losses, 10);
  EXPECT_NEAR(loser.high95, 1 - 0.7224672001371107, 1e-9);
  // The bounds at a score of 0 or 1 are the score itself, exactly (not 4e-19 off by rounding),
  // for any number of games: the interval always holds the mean.
  for (int n : {1, 10, 600, 200000}) {
    EXPECT_EQ(score_interval(0, 0, n).low95, 0.0) << n;
    EXPECT_EQ(score_interval(n, 0, 0).high95, 1.0) << n;
  }
}

TEST(RatingsInput, BadInputThrowsClearMessages) {
  const std::vector<GameResult> out_of_range = {{0, 1, 1.0}, {0, 3, 0.5}};
  std::string m = error_message([&] { fit_bradley_terry(out_of_range, 3); });
  EXPECT_NE(m.find("game 1"), std::string::npos) << m;
  EXPECT_NE(m.find("player index 3 out of range [0, 3)"), std::string::npos) << m;
  m = error_message([&] { sequential_elo(std::vector<GameResult>{{-1, 0, 1.0}}, 3); });
  EXPECT_NE(m.find("player index -1"), std::string::npos) << m;

  const std::vector<GameResult> bad_score = {{0, 1, 0.3}};
  m = error_message([&] { sequential_elo(bad_score, 2); });
  EXPECT_NE(m.find("game 0: score 0.3"), std::string::npos) << m;
  EXPECT_NE(m.find("not 0, 0.5 or 1"), std::string::npos) << m;
  EXPECT_THROW(fit_bradley_terry(bad_score, 2), Error);
  EXPECT_THROW(expected_score_interval(bad_score, 2, 0), Error);
  EXPECT_THROW(sequential_elo(std::vector<GameResult>{{0, 1, std::nan("")}}, 2), Error);

  for (int players : {1, 0, -3}) {
    m = error_message([&] { fit_bradley_terry({}, players); });
    EXPECT_NE(m.find("at least 2 players"), std::string::npos) << m;
    EXPECT_THROW(sequential_elo({}, players), Error);
    EXPECT_THROW(validate_games({}, players), Error);
  }

  m = error_message([&] { validate_games(std::vector<GameResult>{{1, 1, 0.5}}, 2); });
  EXPECT_NE(m.find("cannot play itself"), std::string::npos) << m;

  // Nothing is updated when a later game is bad.
  std::vector<double> ratings = {0.0, 0.0};
  EXPECT_THROW(apply_sequential_elo(ratings, std::vector<GameResult>{{0, 1, 1.0}, {0, 1, 2.0}}, 16), Error);
  EXPECT_EQ(ratings, (std::vector<double>{0.0, 0.0}));

  // Bad options.
  const std::vector<GameResult> ok = {{0, 1, 1.0}, {1, 0, 1.0}};
  EXPECT_THROW(sequential_elo(ok, 2, {.k_factor = 0}), Error);
  EXPECT_THROW(sequential_elo(ok, 2, {.k_factor = -16}), Error);
  EXPECT_THROW(fit_bradley_terry(ok, 2, {.anchor = RatingAnchor::kPlayerZero, .anchor_player = 2}), Error);
  EXPECT_THROW(fit_bradley_terry(ok, 2, {.prior_draws = -1}), Error);
  EXPECT_THROW(fit_bradley_terry(ok, 2, {.tolerance_elo = 0}), Error);
  EXPECT_THROW(fit_bradley_terry(ok, 2, {.max_iterations = 0}), Error);
  EXPECT_THROW(fit_bradley_terry(ok, 2).los(0, 2), Error);

  // A player without games has no expected score.
  m = error_message([&] { expected_score_interval(ok, 3, 2); });
  EXPECT_NE(m.find("player 2 played no game"), std::string::npos) << m;
  EXPECT_THROW(expected_score_interval(ok, 2, 5), Error);
}

// Spearman's rho against values worked by hand: monotone = +1, reversed = -1; with ties the
// mean ranks (textbook example: x = 1 2 3 4 5, y = 2 1 4 3 5 -> d^2 = 4 -> 1 - 6*4/(5*24) = 0.8).
TEST(Spearman, KnownValues) {
  const std::vector<double> x{1, 2, 3, 4, 5};
  EXPECT_DOUBLE_EQ(ratings::spearman(x, std::vector<double>{10, 20, 30, 40, 50}), 1.0);
  EXPECT_DOUBLE_EQ(ratings::spearman(x, std::vector<double>{5, 4, 3, 2, 1}), -1.0);
  EXPECT_NEAR(ratings::spearman(x, std::vector<double>{2, 1, 4, 3, 5}), 0.8, 1e-12);
  // Ties: y ranks 1.5 1.5 3 4 5; Pearson of the ranks by hand = 0.9746794...
  EXPECT_NEAR(ratings::spearman(x, std::vector<double>{7, 7, 8, 9, 10}), 0.974679434480896, 1e-12);
  EXPECT_TRUE(std::isnan(ratings::spearman(x, std::vector<double>{3, 3, 3, 3, 3})));
  EXPECT_THROW(ratings::spearman(x, std::vector<double>{1, 2}), Error);
}

// The record form of the score interval is the game-list form.
TEST(ScoreInterval, FromARecordEqualsFromItsGames) {
  std::vector<ratings::GameResult> games;
  for (int k = 0; k < 7; ++k) games.push_back({0, 1, 1.0});
  for (int k = 0; k < 2; ++k) games.push_back({1, 0, 0.5});
  for (int k = 0; k < 3; ++k) games.push_back({1, 0, 1.0});
  const auto a = ratings::expected_score_interval(games, 2, 0);
  const auto b = ratings::score_interval(7, 2, 3);
  EXPECT_EQ(a.mean, b.mean);
  EXPECT_EQ(a.low95, b.low95);
  EXPECT_EQ(a.high95, b.high95);
  EXPECT_NEAR(b.mean, 8.0 / 12, 1e-15);
  EXPECT_THROW(ratings::score_interval(0, 0, 0), Error);
}
