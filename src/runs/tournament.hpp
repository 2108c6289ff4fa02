// Tournaments between agents (issue #5): a round robin or a gauntlet from shared openings, each
// opening played twice per pairing with colours swapped, rated three ways (ratings/ratings.hpp):
// sequential Elo in game-id order, a Bradley-Terry fit with 95% margins and a likelihood-of-
// superiority table, and each agent's mean score with its 95% Wilson interval.
//
// Config (TOML; every key checked, errors name the file and key):
//   [tournament]
//   format = "round-robin"      # or "gauntlet": the first agent plays each other one, they don't meet
//   openings = 20               # each opening is played twice per pairing, colours swapped
//   opening_source = "random"   # "random": opening_moves random legal moves from the start;
//                               # "dataset": the position at opening_moves of random [data] games
//   opening_moves = 8
//   seed = 1                    # openings and the random moves of the games
//   k_factor = 16               # sequential Elo K
//   [data]
//   files = []                  # game files, for opening_source = "dataset"
//   [[agent]]                   # two or more
//   file = "swh"                # built-in (swh, random) or agent file (relative to the config, or cwd)
//   name = "swh-2ply"           # optional: the name in games.csv and the standings (default: the agent's)
//   depth = 2                   # optional overrides of the agent's search limits and epsilon
//   exact_empties = -1
//   epsilon = 0.0
//   search = "alphabeta"        # optional: the midgame search, pvs (default) or alphabeta (same moves, slower)
//
// Games: opening i is one position for every pairing (a Philox stream keyed by (seed, i)). With
// P pairings, in order (0,1), (0,2), ..., (1,2), ... (gauntlet: (0,1), (0,2), ...), pairing p
// (a, b) plays opening i as game 2 (i P + p) with a black and game 2 (i P + p) + 1 with b black;
// the game id is also OthelloJob::game, so every game's random stream is fixed by (seed, id), and
// ids of existing games do not change when `openings` is raised. Games are played in id order,
// in chunks of RunOptions::chunk_games per Backend::play batch.
//
// Run directory (core/run_dir.hpp, kind "tournament"):
//   run.toml        kind = "tournament" and the evalforge version
//   config.toml     the config file, byte for byte as given; written last at creation: its
//                   presence marks the tournament
//   source.toml     where relative paths in it resolve (the config's directory and the working
//                   directory at the start) and a fingerprint of every agent: a resume with an
//                   agent file that has changed since is refused
//   games.csv       game,black,white,opening,black_score,result,moves -- one row per game, in id
//                   order, appended (with an fsync) after every chunk. black_score: final disc
//                   difference black - white with the empties to the winner; result: black's
//                   score, 1, 0.5 or 0; moves: the transcript from the opening position ("f5d6c3"),
//                   squares only -- passes are omitted, as in the transcript files of data/games.hpp.
//   standings.txt   the standings (also printed), written when every game has been played
//   standings.json  the same numbers as JSON
//   log.txt         progress
// games.csv is the checkpoint: a resume validates every row (players and opening of its id, the
// moves replayed to its score, each id once), drops a torn last line, and plays the games that
// have no row. A resumed tournament gives byte-identical games.csv and standings to an
// uninterrupted one.
#pragma once
#include <filesystem>
#include <functional>
#include <string>
#include <utility>
#include <vector>
#include "evalforge/backends/backend.hpp"
#include "evalforge/core/memory_check.hpp"
#include "evalforge/core/run_dir.hpp"

namespace ef::play {

enum class TournamentFormat { kRoundRobin, kGauntlet };
enum class OpeningSource { kRandom, kDataset };

struct TournamentAgentConfig {
  std::string file;                    // as written in the config
  std::string path;                    // resolved: a built-in name or the agent file's path
  std::string name;                    // empty: the agent's own name
  int depth = -2, exact_empties = -2;  // -2: keep the agent's
  double epsilon = -1;                 // < 0: keep the agent's
  std::string search;                  // "pvs" / "alphabeta"; empty: keep the agent's
};

struct TournamentConfig {
  TournamentFormat format = TournamentFormat::kRoundRobin;
  int openings = 20;
  OpeningSource opening_source = OpeningSource::kRandom;
  int opening_moves = 8;
  u64 seed = 1;
  double k_factor = 16.0;
  std::vector<std::string> data_files;  // resolved paths
  std::vector<TournamentAgentConfig> agents;
  std::string source_file;  // the config file (for messages)

  // The pairings (a, b), a < b, in game-id order.
  std::vector<std::pair<int, int>> pairings() const;
  // pairings().size() * 2 * openings, counted without building the pairings.
  std::size_t num_games() const;
};

// Reads and validates a config. Relative agent and data paths are looked up in `base_dirs` in
// order (default: the config file's directory, then the working directory).
TournamentConfig load_tournament_config(const std::string& file,
                                        const std::vector<std::filesystem::path>& base_dirs = {});

// What a tournament of `config` allocates that grows with its values (per-game bookkeeping,
// openings, the rating fit), in bytes: run_tournament refuses one that needs more than the
// machine holds (core/memory_check.hpp) before loading agents or creating its directory.
std::vector<MemoryPart> tournament_memory_estimate(const TournamentConfig& config);

// The loaded agents (overrides applied, validated; names unique and fit for CSV).
std::vector<OthelloAgent> load_tournament_agents(const TournamentConfig& config);

// The openings: position i is opening i (a root: last_flips 0; never a finished game).
std::vector<othello::Position> tournament_openings(const TournamentConfig& config);

// One game as games.csv records it.
struct TournamentGame {
  u32 id = 0;
  int black = 0, white = 0;  // agent indices
  int opening = 0;
  int black_score = 0;
  double result() const { return black_score > 0 ? 1.0 : (black_score < 0 ? 0.0 : 0.5); }
};

// The game with id `id`: players and opening (ids 0 .. num_games-1).
TournamentGame tournament_game(const TournamentConfig& config, u32 id);

struct AgentStanding {
  std::string name;
  int games = 0, wins = 0, draws = 0, losses = 0;
  double score = 0, score_low95 = 0, score_high95 = 0;  // mean score with its Wilson interval
  double bt_elo = 0, bt_margin95 = 0;                   // Bradley-Terry (mean 0)
  double sequential_elo = 0;                            // games in id order, K from the config
};

struct Standings {
  std::vector<AgentStanding> agents;  // in config order
  std::vector<int> ranking;           // agent indices, best first (Bradley-Terry rating)
  std::vector<double> los;            // row-major n x n: P(row stronger than column)
  std::vector<double> cross_score;    // row-major n x n: row's mean score against column (NaN: never met)
  std::vector<int> cross_games;       // row-major n x n: games between row and column
  int games = 0;
  std::string text;  // standings.txt
  std::string json;  // standings.json
};

// Standings of `games` (any order; rated in id order). Every agent must have played.
Standings compute_standings(const TournamentConfig& config, const std::vector<std::string>& names,
                            std::vector<TournamentGame> games);

struct TournamentRunOptions : RunOptions {
  std::string backend = "cpu";
  int chunk_games = 4096;  // games per Backend::play batch (progress, checkpoints; a stop waits for the chunk)
};

struct TournamentOutcome {
  bool complete = false;  // false: stopped before the last game (resume to finish)
  std::size_t games_played = 0, games_total = 0;
  Standings standings;  // when complete
};

// Starts a tournament in `dir` (which must not hold a run) from `config_file`, or resumes the
// one in `dir` when config_file is empty. Progress goes to DIR/log.txt and options.progress; the
// standings are written to DIR when complete (and returned, not printed).
TournamentOutcome run_tournament(const std::filesystem::path& dir, const std::string& config_file,
                                 const TournamentRunOptions& options);

}  // namespace ef::play
