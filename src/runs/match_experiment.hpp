// The seed paper's match experiment (docs/method.md 1.4, Section 5.3): two n-tuple agents learn
// while they play each other.
//
//   loop: play a round of games (default 64) from the move-24 positions of random dataset
//         games, each start twice with colours swapped; record agent 1's score; train both
//         agents' per-move networks on the positions of those games (label: the game's final
//         disc difference); until the target number of games.
//
// Agent 1 uses searched shapes by phase, agent 2 the Edax shape; both keep one network per move
// number, from zero weights. Beyond the paper: `replicates` independent matches run side by
// side (one backend batch per round: the GPU needs more than 64 games at a time, and the spread
// between replicates shows how much of a curve is noise).
//
// Run directory (core/run_dir.hpp, kind "match"): run.toml; config.toml (the resolved config,
// written last at creation: its presence marks the match); rounds.csv (one row per replicate
// and round, appended with an fsync after every round); checkpoint/ (both agents of every
// replicate under names that carry the round, then checkpoint/state.toml naming the next round,
// written atomically last: it is the checkpoint's commit point; every checkpoint_every rounds,
// on a stop and at the end); agents/ (the final agents, playable with league, tournament and
// gtp); log.txt. A resume starts from state.toml (from round 0 without one), keeps the
// validated rounds.csv rows before its round and plays the later rounds again: the same bits as
// an uninterrupted match, since openings and sample orders are Philox streams keyed by
// (seed, round, replicate).
#pragma once
#include <filesystem>
#include <functional>
#include <string>
#include <utility>
#include <vector>
#include "evalforge/backends/backend.hpp"
#include "evalforge/core/memory_check.hpp"
#include "evalforge/core/run_dir.hpp"
#include "evalforge/games/othello/shape.hpp"

namespace ef::play {

struct MatchAgentConfig {
  std::string name;
  std::string shapes = "edax";  // "edax" or a shape file (games/othello/shape.hpp)
  // (last move, shape move): moves up to `last move` use the shape searched for `shape move`
  // (the shape file's `move` field); phases ascend and the last covers move 60. Empty: the
  // shape file must hold exactly one shape, used for every move.
  ntuple::Phases phases;  // games/othello/shape.hpp: read and mapped as `score --phases` does
  search::OthelloLimits limits{7, 20};
  double epsilon = 0.0;
};

struct MatchConfig {
  int games = 300000;        // target games per replicate (whole rounds)
  int games_per_round = 64;  // even: each start position twice, colours swapped
  int start_move = 24;       // games start from the position at this move of a dataset game
  int replicates = 1;
  u64 seed = 1;
  std::vector<std::string> data_files;
  MatchAgentConfig agents[2];
  double learning_rate = 0.03;  // fraction of a position's error one SGD step removes
  int epochs = 1;               // passes over each round's positions
  int checkpoint_every = 50;    // rounds
  int rounds() const { return (games + games_per_round - 1) / games_per_round; }
};

// Reads and validates a match config (TOML: [match], [data], [agent1], [agent2], [training],
// [run]); every error names the file and key.
MatchConfig load_match_config(const std::string& file);

struct MatchRound {
  int replicate = 0, round = 0;
  int wins = 0, draws = 0, losses = 0;  // agent 1's
  double score() const { return (wins + 0.5 * draws) / (wins + draws + losses); }
};

struct MatchRunOptions : RunOptions {
  std::string backend = "cpu";
};

// What a match of `config` allocates that grows with its values (agents' networks, a round's
// games and positions), in bytes; `config_file` names the config in errors, `threads` as in
// MatchRunOptions. run_match refuses a match that needs more than the machine holds
// (core/memory_check.hpp) before loading data or agents.
std::vector<MemoryPart> match_memory_estimate(const MatchConfig& config, const std::string& config_file, int threads);

// Starts a match in `dir` (which must not hold a run) from `config_file`, or resumes the match
// in `dir` when config_file is empty. Returns every round's result (resumed ones included).
std::vector<MatchRound> run_match(const std::filesystem::path& dir, const std::string& config_file,
                                  const MatchRunOptions& options);

}  // namespace ef::play
