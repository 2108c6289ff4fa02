// Ratings for tournaments between programs (issue #5; docs/method.md 2, docs/anchors.md "Tournament tools").
//
// Three tools, all on the Elo scale, where a rating difference D means an expected score of
//   E(D) = 1 / (1 + 10^(-D/400))                        (D = own rating - opponent's rating)
// for the higher-rated side:
//
//  * sequential_elo: the classic update after every game, in the given order (the blog's Elo
//    round-robin GA). Cheap and familiar, but the result depends on the order of the games and on
//    K, so it is best reported beside a whole-tournament fit.
//  * fit_bradley_terry: one maximum-likelihood (with a weak prior) fit to all games at once, as
//    Ordo and BayesElo do, with 95% intervals and a likelihood-of-superiority table. Order-free.
//  * expected_score_interval: one player's mean score over its games with a 95% interval (e.g.
//    the Othello League benchmark's expected score against SWH), plus the Elo difference it implies.
//
// Players are indexed 0..num_players-1. Every function validates its input first and throws
// ef::Error with the game number and the offending value before doing any work.
#pragma once
#include <span>
#include <vector>

namespace ef::ratings {

// One finished game. "first" is the player who moved first (Black in Othello, White in chess);
// colour does not enter any model below, it is recorded so callers can balance colours.
struct GameResult {
  int first = 0;       // player index, 0..num_players-1
  int second = 0;      // player index, 0..num_players-1, != first
  double score = 0.5;  // score of `first`: exactly 1 (win), 0.5 (draw) or 0 (loss)
};

// Throws ef::Error unless num_players >= 2 and every game has both indices in range, two
// different players and a score of exactly 0, 0.5 or 1.
void validate_games(std::span<const GameResult> games, int num_players);

// E(rating - opponent_rating): the expected score of a player rated `rating`.
double expected_score(double rating, double opponent_rating);

// The rating difference whose expected score is `score`: 400 log10(s / (1 - s)); +inf at 1,
// -inf at 0. Throws ef::Error outside [0, 1].
double elo_difference_from_score(double score);

// ---------------------------------------------------------------------------------------------
// Sequential Elo
// ---------------------------------------------------------------------------------------------

struct SequentialEloOptions {
  // Points moved per unit of surprise. 16 rather than 32: in a round robin every player plays
  // hundreds of games (the blog's GA: 702 per program per generation), so a small K keeps the
  // final ratings from being dominated by the last few games.
  double k_factor = 16.0;
  // Everybody starts here. 0, so the pool's mean rating is 0 as in the Bradley-Terry fit
  // (the update is zero-sum, so the mean never moves), and the magnitudes match the blog's
  // reports (generation-1 best Elo 395).
  double initial_rating = 0.0;
};

// Ratings after updating, game by game in the given order:
//   E_first = expected_score(r_first, r_second)
//   r_first  += K (score - E_first),   r_second -= K (score - E_first)
// Deterministic. Throws ef::Error on bad games (validate_games) or k_factor <= 0 / not finite.
std::vector<double> sequential_elo(std::span<const GameResult> games, int num_players,
                                   const SequentialEloOptions& options = {});

// The same update applied to existing ratings (e.g. parents carried into the next generation
// keep their Elo); ratings.size() is the number of players.
void apply_sequential_elo(std::span<double> ratings, std::span<const GameResult> games, double k_factor);

// ---------------------------------------------------------------------------------------------
// Bradley-Terry fit to all games at once
// ---------------------------------------------------------------------------------------------

enum class RatingAnchor {
  kMeanZero,   // the pool's mean rating is 0; a player's interval is that of (r_i - mean)
  kPlayerZero  // BradleyTerryOptions::anchor_player is rated exactly 0 (interval 0); the others'
               // intervals are those of their difference to it (Ordo's "-a" style)
};

struct BradleyTerryOptions {
  RatingAnchor anchor = RatingAnchor::kMeanZero;
  int anchor_player = 0;  // used with RatingAnchor::kPlayerZero
  // Prior, in virtual draws per player against a virtual player rated at the pool's mean.
  // One virtual draw keeps a player who won (or lost) every game at a finite rating and gives
  // players who never met a common reference, while moving ratings backed by hundreds of games
  // by a fraction of an Elo point. 0 gives the plain maximum-likelihood fit, which exists only
  // when the "scored against" graph is strongly connected (every player scored something
  // against someone who, through a chain, scored against them); otherwise the fit throws.
  double prior_draws = 1.0;
  double tolerance_elo = 1e-6;  // stop when a full Newton step moves no rating by more than this
  int max_iterations = 100;     // Newton typically needs < 10; the cap guards pathological input
};

struct BradleyTerryFit {
  int num_players = 0;
  std::vector<double> ratings;      // Elo, anchored as requested
  std::vector<double> margins95;    // ± Elo: 1.959964 sqrt(covariance(i, i))
  std::vector<double> covariances;  // row-major num_players^2, Elo^2, of the anchored ratings
  int iterations = 0;               // Newton steps taken
  bool converged = false;           // false only if max_iterations ran out

  double covariance(int i, int j) const { return covariances[static_cast<std::size_t>(i) * num_players + j]; }
  // Standard deviation of r_i - r_j (anchor-independent).
  double difference_std_error(int i, int j) const;
  // Likelihood of superiority, P(true r_i > true r_j) = Phi((r_i - r_j) / sd(r_i - r_j)), using
  // the full covariance (not the wins/losses shortcut, which ignores indirect evidence through
  // common opponents). LOS(i, i) = 0.5. Throws ef::Error for an index out of range.
  double los(int i, int j) const;
  // All of them, row-major: los_table()[i * num_players + j] = los(i, j).
  std::vector<double> los_table() const;
};

// Maximizes over ratings r (Elo) the log-likelihood
//   sum over games g:  s_g log E(r_first - r_second) + (1 - s_g) log E(r_second - r_first)
//   + prior_draws * sum over players i:  0.5 log E(r_i - mean r) + 0.5 log E(mean r - r_i)
// i.e. a draw counts as half a win and half a loss (the Bradley-Terry model has no draw
// parameter; this keeps the score equations "expected score = actual score" per player).
// Method: Newton's method with backtracking line search on this concave function, from all
// ratings 0, restricted to the mean-zero subspace (the likelihood does not change when every
// rating moves by the same amount). Newton rather than Hunter's MM algorithm because it
// converges quadratically in a handful of steps and its final Hessian is exactly the observed
// Fisher information needed for the intervals: the covariance of the anchored ratings is the
// inverse of the negative Hessian on the anchored subspace (pseudo-inverse for mean 0).
// Cost: O(games + n^3) per step with a dense n x n Hessian, fine up to a few thousand players.
// Throws ef::Error on bad games or options, or (prior_draws == 0) when no finite maximum exists.
BradleyTerryFit fit_bradley_terry(std::span<const GameResult> games, int num_players,
                                  const BradleyTerryOptions& options = {});

// Shortcut LOS from one head-to-head record, Phi((W - L) / sqrt(W + L)) (draws ignored), as
// engine testers quote it for a single match. 0.5 when W + L == 0. Throws on negative counts.
double los_from_wins_losses(double wins, double losses);

// ---------------------------------------------------------------------------------------------
// One player's expected score with a 95% interval
// ---------------------------------------------------------------------------------------------

enum class ScoreIntervalMethod {
  // Wilson score interval for a proportion, with the mean score (draws = 1/2) as the proportion.
  // Stays inside [0, 1] and keeps a sensible width when the player scores 0% or 100% — the usual
  // case against a much stronger or weaker opponent such as SWH. Treating a draw as half a win
  // overstates the variance slightly, so it errs on the wide side when there are draws.
  kWilson,
  // mean ± 1.96 * standard_error with the empirical per-game variance (what cutechess-cli uses
  // for its Elo margin), clipped to [0, 1]. Collapses to zero width at 0% or 100%.
  kNormal
};

struct ScoreInterval {
  int games = 0;
  int wins = 0, draws = 0, losses = 0;  // from the player's side
  double mean = 0;                      // (wins + draws/2) / games
  double standard_error = 0;            // sqrt(empirical variance of the game scores / games)
  double low95 = 0, high95 = 0;         // interval for the expected score, by the chosen method
  // The same three numbers as Elo differences to the opponents (elo_difference_from_score);
  // infinite when the score (bound) is 0 or 1.
  double elo = 0, elo_low95 = 0, elo_high95 = 0;
};

// Over the games in which `player` took part (either side; other games are ignored), from that
// player's side (score of a game as `second` = 1 - score). Throws ef::Error on bad games, a
// player index out of range, or when the player played no game.
ScoreInterval expected_score_interval(std::span<const GameResult> games, int num_players, int player,
                                      ScoreIntervalMethod method = ScoreIntervalMethod::kWilson);
// The same from a record (wins, draws, losses from the player's side; at least one game).
ScoreInterval score_interval(int wins, int draws, int losses,
                             ScoreIntervalMethod method = ScoreIntervalMethod::kWilson);

// Spearman's rank correlation of two equally long series (ties get their mean rank): +1 when
// one orders the values as the other does, -1 reversed; NaN when a series is constant. Throws
// on different lengths, fewer than 2 values or a value that is not finite.
double spearman(std::span<const double> a, std::span<const double> b);

}  // namespace ef::ratings
