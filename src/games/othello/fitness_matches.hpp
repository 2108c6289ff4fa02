// The Othello side of the Elo round-robin GA (ga/elo_ga.hpp): chromosomes of the feature-weight
// evaluator (games/othello/features.hpp) as agents, a generation's double round robin as ONE
// Backend::play batch, and a yardstick match of one chromosome against a fixed agent.
//
// Games are played from the standard start (or, with opening_plies > 0, from a random opening
// per pair, the same for both colours), 1-ply by default, ties between equally valued moves to
// the lowest square (engine/alphabeta.hpp). With epsilon = 0 and no openings the games are pure
// functions of the two chromosomes, as in the blog.
#pragma once
#include <span>
#include <string>
#include <vector>
#include "engine/play_backend.hpp"
#include "games/othello/agent.hpp"
#include "games/othello/features.hpp"

namespace ef::play {

struct FeaturePlayOptions {
  features::Material material = features::Material::kFlips;  // oe_fmc (flips) or oe_dmc (discs)
  search::OthelloLimits limits{1, -1};                       // the blog: 1 ply, no exact endgame
  double epsilon = 0.0;
  int opening_plies = 0;  // random plies before each pair's games (0: the standard start)
};

// The agent a chromosome plays as (evaluator "features"); `name` for files and messages.
OthelloAgent feature_agent(std::span<const int> genes, const FeaturePlayOptions& options, const std::string& name);

struct TournamentCounts {
  u64 black_wins = 0, draws = 0, white_wins = 0;
  u64 nodes = 0;
  u64 move_lists_hash = 0;  // FNV-1a of every game's plies and moves, in game-id order (parity checks)
  double play_seconds = 0;  // the Backend::play call alone
};

class FeatureTournament {
 public:
  FeatureTournament(PlayBackend<games::Othello>& backend, FeaturePlayOptions options);
  // The first player's score (1, 0.5, 0) of every game of the double round robin of
  // `population` (ga::round_robin_pairings order), played as one batch. `seed` and `generation`
  // key the games' random streams (used only with epsilon or openings).
  std::vector<double> play_round_robin(const std::vector<std::vector<int>>& population, u64 seed, int generation,
                                       TournamentCounts* counts = nullptr);
  // `genes` against `opponent` from `openings` random openings of `opening_plies` plies, each
  // played with both colours: wins, draws, losses from the chromosome's side.
  struct Yardstick {
    int wins = 0, draws = 0, losses = 0;
    double score() const { return (wins + 0.5 * draws) / std::max(1, wins + draws + losses); }
  };
  Yardstick play_yardstick(std::span<const int> genes, const OthelloAgent& opponent, int openings, int opening_plies,
                           u64 seed, int generation);

 private:
  PlayBackend<games::Othello>& backend_;
  FeaturePlayOptions options_;
  std::vector<int> handles_;  // the population's agents, replaced in place each generation
  int yardstick_self_ = -1, yardstick_opponent_ = -1;
};

}  // namespace ef::play
