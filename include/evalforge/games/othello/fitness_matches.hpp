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
#include "evalforge/engine/play_backend.hpp"
#include "evalforge/ga/elo_ga.hpp"
#include "evalforge/games/othello/agent.hpp"
#include "evalforge/games/othello/features.hpp"

namespace ef::play {

struct FeaturePlayOptions {
  features::Material material = features::Material::kFlips;  // oe_fmc (flips) or oe_dmc (discs)
  search::OthelloLimits limits{1, -1};                       // the blog: 1 ply, no exact endgame
  double epsilon = 0.0;
  int opening_plies = 0;  // random plies before each pair's games (0: the standard start)
  // The chromosome family: the blog's 11 genes (oe_fmc, oe_dmc) or the positional 26 (pos_fmc,
  // pos_dmc; games/othello/features.hpp).
  bool positional = false;
};

// The GA's gene ranges of a chromosome family (features::gene_bounds): 11 or 26 genes.
std::vector<ga::GeneRange> feature_gene_ranges(bool positional);

// The agent a chromosome plays as (evaluator "features"); `name` for files and messages.
OthelloAgent feature_agent(std::span<const int> genes, const FeaturePlayOptions& options, const std::string& name);

// The opponents of a GA's fixed panel, by spec: "swh" (SWH at the players' depth), "swh:D" (SWH
// at D plies), "random", "chromosome:O:E:W..." (a feature-weight player of the run's
// chromosome kind, e.g. one of the blog's published champions), or an agent file.
// resolve_panel_spec checks a spec (ef::Error naming `where`) and makes a file's path absolute
// (relative to `config_file`'s folder); panel_agent builds the agent of a resolved spec.
std::string resolve_panel_spec(const std::string& spec, const FeaturePlayOptions& options,
                               const std::string& config_file, const std::string& where);
OthelloAgent panel_agent(const std::string& spec, const FeaturePlayOptions& options);

struct TournamentCounts {
  u64 black_wins = 0, draws = 0, white_wins = 0;
  u64 nodes = 0;
  u64 move_lists_hash = 0;  // FNV-1a of every game's plies and moves, in game-id order (parity checks)
  double play_seconds = 0;  // the Backend::play call alone
};

class FeatureTournament {
 public:
  FeatureTournament(PlayBackend<games::Othello>& backend, FeaturePlayOptions options);
  // The first player's score (1, 0.5, 0) of every game of the round robin of `population`: each
  // pair i < j plays `openings_per_pair` openings with both colours (ga::round_robin_pairings(n,
  // openings_per_pair) order), as one batch. Pair p's opening o is random opening p * K + o of
  // the generation's stream when options.opening_plies > 0, else the standard start. `seed` and
  // `generation` key the games' random streams (used only with epsilon or openings).
  std::vector<double> play_round_robin(const std::vector<std::vector<int>>& population, u64 seed, int generation,
                                       TournamentCounts* counts = nullptr, int openings_per_pair = 1);
  // Wins, draws, losses from one side's point of view.
  struct Yardstick {
    int wins = 0, draws = 0, losses = 0;
    int games() const { return wins + draws + losses; }
    double score() const { return (wins + 0.5 * draws) / std::max(1, games()); }
  };
  // `genes` against `opponent` from `openings` random openings of `opening_plies` plies, each
  // played with both colours: wins, draws, losses from the chromosome's side.
  Yardstick play_yardstick(std::span<const int> genes, const OthelloAgent& opponent, int openings, int opening_plies,
                           u64 seed, int generation);
  // A challenger against the incumbent champion, the same way but from a stream of its own (fresh
  // openings every generation, apart from the yardstick's and the tournament's).
  Yardstick play_challenge(std::span<const int> challenger, std::span<const int> incumbent, int openings,
                           int opening_plies, u64 seed, int generation);
  // Every chromosome of `members` against every agent of `panel`, from the same `openings` random
  // openings (both colours) for all of them and for every generation (they depend on `seed`
  // only), and each game keyed by (opponent, opening, colour), not by the member's place: members,
  // and champions of different generations, are compared on the same test set, and an unchanged
  // champion scores the same. One batch. Result [m][a]: member m against panel
  // agent a, from the member's side.
  std::vector<std::vector<Yardstick>> play_panel(const std::vector<std::vector<int>>& members,
                                                 const std::vector<OthelloAgent>& panel, int openings,
                                                 int opening_plies, u64 seed);

 private:
  Yardstick play_pair(const OthelloAgent& self, const OthelloAgent& opponent, int openings, int opening_plies, u64 key);
  // The handle of slot k of `pool`: the agent added on first use, replaced in place after.
  int slot(std::vector<int>& pool, std::size_t k, const OthelloAgent& agent);

  PlayBackend<games::Othello>& backend_;
  FeaturePlayOptions options_;
  std::vector<int> handles_;  // the population's agents, replaced in place each generation
  std::vector<int> pair_handles_, panel_members_, panel_agents_;
};

}  // namespace ef::play
