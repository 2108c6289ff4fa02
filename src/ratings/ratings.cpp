#include "evalforge/ratings/ratings.hpp"
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include "evalforge/core/error.hpp"

namespace ef::ratings {

namespace {

// 97.5% quantile of the standard normal: the half-width of a two-sided 95% interval in sigmas.
constexpr double kZ95 = 1.959963984540054;

// Internally the fit works in natural units theta = r * ln(10) / 400, where E = sigmoid(theta
// difference); this is the factor between the two scales.
const double kNaturalPerElo = std::log(10.0) / 400.0;

double normal_cdf(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }

double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

// log(sigmoid(x)) without overflow or loss of precision for large |x|.
double log_sigmoid(double x) { return x >= 0 ? -std::log1p(std::exp(-x)) : x - std::log1p(std::exp(x)); }

void check_player_count(int num_players) {
  if (num_players < 2) fail("ratings: need at least 2 players, got {}", num_players);
}

// Score of `player` in `game` (which it took part in).
double score_for(const GameResult& game, int player) { return game.first == player ? game.score : 1.0 - game.score; }

// All games between the same two players, summed: the likelihood only depends on these totals.
struct PairTotals {
  int low = 0, high = 0;    // player indices, low < high
  double games = 0;         // games between them
  double score_of_low = 0;  // total score of `low` in those games
};

std::vector<PairTotals> pair_totals(std::span<const GameResult> games, int num_players) {
  std::vector<std::pair<std::uint64_t, double>> keyed;  // (low * n + high, score of low)
  keyed.reserve(games.size());
  for (const GameResult& g : games) {
    const int low = std::min(g.first, g.second), high = std::max(g.first, g.second);
    keyed.emplace_back(
        static_cast<std::uint64_t>(low) * static_cast<std::uint64_t>(num_players) + static_cast<std::uint64_t>(high),
        score_for(g, low));
  }
  std::sort(keyed.begin(), keyed.end());  // sorting the scores too keeps the sums order-free
  std::vector<PairTotals> pairs;
  for (const auto& [key, score] : keyed) {
    if (pairs.empty() || static_cast<std::uint64_t>(pairs.back().low) * num_players + pairs.back().high != key) {
      pairs.push_back({static_cast<int>(key / num_players), static_cast<int>(key % num_players), 0, 0});
    }
    pairs.back().games += 1;
    pairs.back().score_of_low += score;
  }
  return pairs;
}

// Plain maximum likelihood is finite only if, for every split of the players into two groups,
// each group scored something against the other (Hunter 2004, Assumption 1; a draw scores both
// ways). Equivalent: the graph "i -> j when i scored against j" is strongly connected, i.e.
// every player is reachable from player 0 along edges and along reversed edges.
void require_finite_likelihood_maximum(const std::vector<PairTotals>& pairs, int num_players) {
  std::vector<std::vector<int>> scored_against(num_players), conceded_to(num_players);
  for (const PairTotals& p : pairs) {
    if (p.score_of_low > 0) {
      scored_against[p.low].push_back(p.high);
      conceded_to[p.high].push_back(p.low);
    }
    if (p.score_of_low < p.games) {
      scored_against[p.high].push_back(p.low);
      conceded_to[p.low].push_back(p.high);
    }
  }
  for (const auto* edges : {&scored_against, &conceded_to}) {
    std::vector<char> seen(num_players, 0);
    std::vector<int> stack{0};
    seen[0] = 1;
    while (!stack.empty()) {
      const int v = stack.back();
      stack.pop_back();
      for (int w : (*edges)[v]) {
        if (!seen[w]) {
          seen[w] = 1;
          stack.push_back(w);
        }
      }
    }
    for (int v = 0; v < num_players; ++v) {
      if (!seen[v]) {
        fail(
            "Bradley-Terry fit: with prior_draws = 0 the ratings are infinite: players {} and 0 are not "
            "linked both ways by scores (someone won or lost every game against a group, or never "
            "played); use prior_draws > 0",
            v);
      }
    }
  }
}

// Log-posterior, gradient and negative Hessian at theta (natural units). Because theta always
// has mean 0 (see fit_bradley_terry), the "virtual average player" of the prior sits at 0.
struct Objective {
  const std::vector<PairTotals>& pairs;
  int n;
  double prior_draws;

  double value(const std::vector<double>& theta) const {
    double f = 0;
    for (const PairTotals& p : pairs) {
      const double d = theta[p.low] - theta[p.high];
      f += p.score_of_low * log_sigmoid(d) + (p.games - p.score_of_low) * log_sigmoid(-d);
    }
    const double mean = mean_of(theta);
    for (int i = 0; i < n; ++i) f += prior_draws * 0.5 * (log_sigmoid(theta[i] - mean) + log_sigmoid(mean - theta[i]));
    return f;
  }

  // gradient: n values; negative_hessian: n*n row-major, positive semi-definite.
  void derivatives(const std::vector<double>& theta, std::vector<double>& gradient,
                   std::vector<double>& negative_hessian) const {
    gradient.assign(n, 0.0);
    negative_hessian.assign(static_cast<std::size_t>(n) * n, 0.0);
    auto h = [&](int i, int j) -> double& { return negative_hessian[static_cast<std::size_t>(i) * n + j]; };
    for (const PairTotals& p : pairs) {
      const double e = sigmoid(theta[p.low] - theta[p.high]);  // expected score of `low` per game
      const double surprise = p.score_of_low - p.games * e;
      gradient[p.low] += surprise;
      gradient[p.high] -= surprise;
      const double curvature = p.games * e * (1 - e);
      h(p.low, p.low) += curvature;
      h(p.high, p.high) += curvature;
      h(p.low, p.high) -= curvature;
      h(p.high, p.low) -= curvature;
    }
    if (prior_draws > 0) {
      // Player i's virtual game is against mean(theta): its derivative direction is
      // u_i = e_i - (1/n) 1, so the terms below are w (1/2 - q_i) u_i and w q_i (1 - q_i) u_i u_i^T.
      const double mean = mean_of(theta);
      std::vector<double> slope(n), curvature(n);
      double slope_sum = 0, curvature_sum = 0;
      for (int i = 0; i < n; ++i) {
        const double q = sigmoid(theta[i] - mean);
        slope[i] = prior_draws * (0.5 - q);
        curvature[i] = prior_draws * q * (1 - q);
        slope_sum += slope[i];
        curvature_sum += curvature[i];
      }
      for (int k = 0; k < n; ++k) {
        gradient[k] += slope[k] - slope_sum / n;
        for (int l = 0; l < n; ++l) {
          h(k, l) +=
              (k == l ? curvature[k] : 0.0) - (curvature[k] + curvature[l]) / n + curvature_sum / (double(n) * n);
        }
      }
    }
  }

  static double mean_of(const std::vector<double>& v) {
    double s = 0;
    for (double x : v) s += x;
    return s / static_cast<double>(v.size());
  }
};

// In-place Cholesky factorization A = L L^T of a symmetric positive definite row-major matrix
// (L in the lower triangle). Returns false if A is not positive definite.
bool cholesky(std::vector<double>& a, int n) {
  for (int j = 0; j < n; ++j) {
    double* row_j = &a[static_cast<std::size_t>(j) * n];
    double diag = row_j[j];
    for (int k = 0; k < j; ++k) diag -= row_j[k] * row_j[k];
    if (!(diag > 0)) return false;
    row_j[j] = std::sqrt(diag);
    for (int i = j + 1; i < n; ++i) {
      double* row_i = &a[static_cast<std::size_t>(i) * n];
      double s = row_i[j];
      for (int k = 0; k < j; ++k) s -= row_i[k] * row_j[k];
      row_i[j] = s / row_j[j];
    }
  }
  return true;
}

// Solves L L^T x = b in place.
void cholesky_solve(const std::vector<double>& l, int n, double* b) {
  for (int i = 0; i < n; ++i) {
    double s = b[i];
    for (int k = 0; k < i; ++k) s -= l[static_cast<std::size_t>(i) * n + k] * b[k];
    b[i] = s / l[static_cast<std::size_t>(i) * n + i];
  }
  for (int i = n - 1; i >= 0; --i) {
    double s = b[i];
    for (int k = i + 1; k < n; ++k) s -= l[static_cast<std::size_t>(k) * n + i] * b[k];
    b[i] = s / l[static_cast<std::size_t>(i) * n + i];
  }
}

// The negative Hessian M is singular along the all-ones vector 1 (shifting every rating changes
// nothing). M + alpha 1 1^T is positive definite whenever that is M's only null direction, and
// for a right-hand side orthogonal to 1 its solution is orthogonal to 1 as well (1^T M = 0), so
// it is exactly the Newton step within the mean-zero subspace; alpha only affects conditioning.
std::vector<double> factor_gauge_fixed(const std::vector<double>& negative_hessian, int n) {
  double trace = 0;
  for (int i = 0; i < n; ++i) trace += negative_hessian[static_cast<std::size_t>(i) * n + i];
  const double alpha = trace > 0 ? trace / (double(n) * n) : 1.0;
  std::vector<double> m = negative_hessian;
  for (double& x : m) x += alpha;
  if (!cholesky(m, n)) {
    fail(
        "Bradley-Terry fit: the information matrix is singular (some players are not linked by games; "
        "use prior_draws > 0)");
  }
  return m;
}

void check_index(int player, int num_players, const char* what) {
  if (player < 0 || player >= num_players) fail("{}: player index {} out of range [0, {})", what, player, num_players);
}

}  // namespace

void validate_games(std::span<const GameResult> games, int num_players) {
  check_player_count(num_players);
  for (std::size_t k = 0; k < games.size(); ++k) {
    const GameResult& g = games[k];
    for (int player : {g.first, g.second}) {
      if (player < 0 || player >= num_players)
        fail("game {}: player index {} out of range [0, {})", k, player, num_players);
    }
    if (g.first == g.second) fail("game {}: player {} cannot play itself", k, g.first);
    if (g.score != 0.0 && g.score != 0.5 && g.score != 1.0)
      fail("game {}: score {} for the first player is not 0, 0.5 or 1", k, g.score);
  }
}

double expected_score(double rating, double opponent_rating) {
  return 1.0 / (1.0 + std::pow(10.0, (opponent_rating - rating) / 400.0));
}

double elo_difference_from_score(double score) {
  if (!(score >= 0.0 && score <= 1.0)) fail("elo_difference_from_score: score {} is not in [0, 1]", score);
  if (score == 0.0) return -std::numeric_limits<double>::infinity();
  if (score == 1.0) return std::numeric_limits<double>::infinity();
  return 400.0 * std::log10(score / (1.0 - score));
}

// ---------------------------------------------------------------------------------------------

void apply_sequential_elo(std::span<double> ratings, std::span<const GameResult> games, double k_factor) {
  if (!(k_factor > 0) || !std::isfinite(k_factor))
    fail("sequential Elo: K factor {} must be positive and finite", k_factor);
  validate_games(games, static_cast<int>(ratings.size()));  // all checks before any update
  for (const GameResult& g : games) {
    const double change = k_factor * (g.score - expected_score(ratings[g.first], ratings[g.second]));
    ratings[g.first] += change;
    ratings[g.second] -= change;
  }
}

std::vector<double> sequential_elo(std::span<const GameResult> games, int num_players,
                                   const SequentialEloOptions& options) {
  check_player_count(num_players);
  if (!std::isfinite(options.initial_rating))
    fail("sequential Elo: initial rating {} is not finite", options.initial_rating);
  std::vector<double> ratings(num_players, options.initial_rating);
  apply_sequential_elo(ratings, games, options.k_factor);
  return ratings;
}

// ---------------------------------------------------------------------------------------------

double BradleyTerryFit::difference_std_error(int i, int j) const {
  check_index(i, num_players, "LOS");
  check_index(j, num_players, "LOS");
  // Clamped: rounding can leave a tiny negative number when the true value is 0.
  return std::sqrt(std::max(0.0, covariance(i, i) + covariance(j, j) - 2 * covariance(i, j)));
}

double BradleyTerryFit::los(int i, int j) const {
  const double sd = difference_std_error(i, j);
  if (i == j) return 0.5;
  const double diff = ratings[i] - ratings[j];
  if (sd == 0) return diff > 0 ? 1.0 : (diff < 0 ? 0.0 : 0.5);
  return normal_cdf(diff / sd);
}

std::vector<double> BradleyTerryFit::los_table() const {
  std::vector<double> table(static_cast<std::size_t>(num_players) * num_players);
  for (int i = 0; i < num_players; ++i)
    for (int j = 0; j < num_players; ++j) table[static_cast<std::size_t>(i) * num_players + j] = los(i, j);
  return table;
}

BradleyTerryFit fit_bradley_terry(std::span<const GameResult> games, int num_players,
                                  const BradleyTerryOptions& options) {
  validate_games(games, num_players);
  if (options.anchor == RatingAnchor::kPlayerZero)
    check_index(options.anchor_player, num_players, "Bradley-Terry anchor");
  if (!(options.prior_draws >= 0) || !std::isfinite(options.prior_draws))
    fail("Bradley-Terry fit: prior_draws {} must be >= 0 and finite", options.prior_draws);
  if (!(options.tolerance_elo > 0)) fail("Bradley-Terry fit: tolerance_elo {} must be positive", options.tolerance_elo);
  if (options.max_iterations < 1) fail("Bradley-Terry fit: max_iterations {} must be >= 1", options.max_iterations);

  const int n = num_players;
  const std::vector<PairTotals> pairs = pair_totals(games, n);
  if (options.prior_draws == 0) require_finite_likelihood_maximum(pairs, n);
  const Objective objective{pairs, n, options.prior_draws};

  BradleyTerryFit fit;
  fit.num_players = n;
  std::vector<double> theta(n, 0.0), gradient, negative_hessian;
  double value = objective.value(theta);
  for (fit.iterations = 0; fit.iterations < options.max_iterations && !fit.converged;) {
    objective.derivatives(theta, gradient, negative_hessian);
    const std::vector<double> factor = factor_gauge_fixed(negative_hessian, n);
    std::vector<double> step = gradient;
    cholesky_solve(factor, n, step.data());
    double max_step = 0, slope = 0;
    for (int i = 0; i < n; ++i) {
      max_step = std::max(max_step, std::abs(step[i]));
      slope += gradient[i] * step[i];
    }
    ++fit.iterations;
    if (max_step / kNaturalPerElo < options.tolerance_elo) {
      fit.converged = true;  // the remaining full step is below tolerance; the change is negligible
      break;
    }
    // Backtracking (Armijo): a full Newton step can overshoot far from the optimum, e.g. when one
    // player won nearly everything; halving until the objective rises enough keeps every step an
    // improvement, so the iteration cannot diverge. Near the optimum the gain of a step drops below
    // the rounding error of the objective (a sum over all pairs), so a step that does not make it
    // measurably worse is taken as well: there the Newton step is the reliable guide.
    const double rounding = 1e-12 * (1.0 + std::abs(value));
    std::vector<double> trial(n);
    double t = 1.0, trial_value = value;
    for (int halvings = 0; halvings < 60; ++halvings, t *= 0.5) {
      for (int i = 0; i < n; ++i) trial[i] = theta[i] + t * step[i];
      trial_value = objective.value(trial);
      if (trial_value >= value + 1e-4 * t * slope || trial_value >= value - rounding) break;
    }
    if (!(trial_value >= value - rounding)) {
      // Not even a tiny step improves the objective in floating point: theta is optimal to rounding.
      fit.converged = true;
      break;
    }
    const double mean = Objective::mean_of(trial);
    for (double& x : trial) x -= mean;  // remove rounding drift out of the mean-zero subspace
    theta = trial;
    value = trial_value;
  }

  // Covariance of the mean-zero natural ratings: the pseudo-inverse of the negative Hessian at the
  // optimum, (M + alpha 1 1^T)^-1 projected onto the mean-zero subspace (P X P, P = I - 1 1^T / n).
  objective.derivatives(theta, gradient, negative_hessian);
  const std::vector<double> factor = factor_gauge_fixed(negative_hessian, n);
  std::vector<double> inverse(static_cast<std::size_t>(n) * n, 0.0);  // row k = column k (symmetric)
  for (int k = 0; k < n; ++k) {
    double* column = &inverse[static_cast<std::size_t>(k) * n];
    column[k] = 1.0;
    cholesky_solve(factor, n, column);
  }
  std::vector<double> row_mean(n, 0.0);
  double total_mean = 0;
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) row_mean[i] += inverse[static_cast<std::size_t>(i) * n + j];
    row_mean[i] /= n;
    total_mean += row_mean[i];
  }
  total_mean /= n;
  std::vector<double> mean_zero_cov(static_cast<std::size_t>(n) * n);
  const double elo_squared = 1.0 / (kNaturalPerElo * kNaturalPerElo);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      mean_zero_cov[static_cast<std::size_t>(i) * n + j] =
          (inverse[static_cast<std::size_t>(i) * n + j] - row_mean[i] - row_mean[j] + total_mean) * elo_squared;

  fit.ratings.resize(n);
  for (int i = 0; i < n; ++i) fit.ratings[i] = theta[i] / kNaturalPerElo;
  if (options.anchor == RatingAnchor::kMeanZero) {
    fit.covariances = std::move(mean_zero_cov);
  } else {
    // r'_i = r_i - r_a: cov(r'_i, r'_j) = C_ij - C_ia - C_aj + C_aa.
    const int a = options.anchor_player;
    const double shift = fit.ratings[a];
    for (double& r : fit.ratings) r -= shift;
    auto c = [&](int i, int j) { return mean_zero_cov[static_cast<std::size_t>(i) * n + j]; };
    fit.covariances.resize(static_cast<std::size_t>(n) * n);
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j)
        fit.covariances[static_cast<std::size_t>(i) * n + j] = c(i, j) - c(i, a) - c(a, j) + c(a, a);
    fit.ratings[a] = 0.0;  // exactly, not up to rounding
  }
  fit.margins95.resize(n);
  for (int i = 0; i < n; ++i) fit.margins95[i] = kZ95 * std::sqrt(std::max(0.0, fit.covariance(i, i)));
  return fit;
}

double los_from_wins_losses(double wins, double losses) {
  if (!(wins >= 0) || !(losses >= 0)) fail("LOS: wins {} and losses {} must be >= 0", wins, losses);
  if (wins + losses == 0) return 0.5;
  return normal_cdf((wins - losses) / std::sqrt(wins + losses));
}

// ---------------------------------------------------------------------------------------------

ScoreInterval expected_score_interval(std::span<const GameResult> games, int num_players, int player,
                                      ScoreIntervalMethod method) {
  validate_games(games, num_players);
  check_index(player, num_players, "expected score");
  int wins = 0, draws = 0, losses = 0;
  for (const GameResult& g : games) {
    if (g.first != player && g.second != player) continue;
    const double s = score_for(g, player);
    (s == 1.0 ? wins : (s == 0.5 ? draws : losses))++;
  }
  if (wins + draws + losses == 0) fail("expected score: player {} played no game", player);
  return score_interval(wins, draws, losses, method);
}

ScoreInterval score_interval(int wins, int draws, int losses, ScoreIntervalMethod method) {
  if (wins < 0 || draws < 0 || losses < 0 || wins + draws + losses == 0)
    fail("score interval: {} wins, {} draws, {} losses (counts >= 0, at least one game)", wins, draws, losses);
  ScoreInterval out;
  out.wins = wins;
  out.draws = draws;
  out.losses = losses;
  out.games = wins + draws + losses;
  const double n = out.games;
  const double total = wins + 0.5 * draws, total_squares = wins + 0.25 * draws;
  out.mean = total / n;
  // Population variance of the per-game scores (the maximum-likelihood estimate of the trinomial's).
  const double variance = std::max(0.0, total_squares / n - out.mean * out.mean);
  out.standard_error = std::sqrt(variance / n);
  if (method == ScoreIntervalMethod::kNormal) {
    out.low95 = std::max(0.0, out.mean - kZ95 * out.standard_error);
    out.high95 = std::min(1.0, out.mean + kZ95 * out.standard_error);
  } else {
    const double z2 = kZ95 * kZ95;
    const double center = (out.mean + z2 / (2 * n)) / (1 + z2 / n);
    const double half = kZ95 / (1 + z2 / n) * std::sqrt(out.mean * (1 - out.mean) / n + z2 / (4 * n * n));
    // The interval holds the mean; at a score of 0 or 1 center - half (center + half) is 0 (1)
    // only up to rounding (4e-19 was seen), so the bound is clamped to the mean.
    out.low95 = std::min(out.mean, std::max(0.0, center - half));
    out.high95 = std::max(out.mean, std::min(1.0, center + half));
  }
  out.elo = elo_difference_from_score(out.mean);
  out.elo_low95 = elo_difference_from_score(out.low95);
  out.elo_high95 = elo_difference_from_score(out.high95);
  return out;
}

}  // namespace ef::ratings

namespace ef::ratings {

namespace {
// Ranks 1..n of `v` (ascending), ties sharing the mean of their ranks.
std::vector<double> mid_ranks(std::span<const double> v) {
  std::vector<std::size_t> order(v.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return v[a] < v[b]; });
  std::vector<double> r(v.size());
  for (std::size_t i = 0; i < order.size();) {
    std::size_t j = i;
    while (j + 1 < order.size() && v[order[j + 1]] == v[order[i]]) ++j;
    const double mid = (static_cast<double>(i) + static_cast<double>(j)) / 2 + 1;
    for (std::size_t k = i; k <= j; ++k) r[order[k]] = mid;
    i = j + 1;
  }
  return r;
}
}  // namespace

double spearman(std::span<const double> a, std::span<const double> b) {
  if (a.size() != b.size() || a.size() < 2)
    fail("spearman: {} and {} values (the same number, at least 2)", a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i)
    if (!std::isfinite(a[i]) || !std::isfinite(b[i])) fail("spearman: value {} is not finite", i);
  const std::vector<double> x = mid_ranks(a), y = mid_ranks(b);
  const double n = static_cast<double>(x.size()), mean = (n + 1) / 2;
  double sxy = 0, sxx = 0, syy = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    sxy += (x[i] - mean) * (y[i] - mean);
    sxx += (x[i] - mean) * (x[i] - mean);
    syy += (y[i] - mean) * (y[i] - mean);
  }
  return sxx > 0 && syy > 0 ? sxy / std::sqrt(sxx * syy) : std::nan("");
}

}  // namespace ef::ratings
