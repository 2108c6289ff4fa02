// A Hex match as a resumable run (core/run_dir.hpp): two players (games/hex/player_spec.hpp specs),
// N games with colours alternating (player A is Black in even games), each game a pure function
// of (players, board, seed, game number), so a resumed or re-threaded match has the same games.
//
//   config.toml  [hex_match] a, b, games, size, swap, seed
//   games.csv    game,black,white,winner,plies,seconds,moves   (black/white/winner: A or B; moves
//                space-separated cells) -- one row per finished game, in the order they finish
//
// On resume every row is checked by replaying its moves (legal, the game over at the last one,
// the winner right); the games without a row are played.
#pragma once
#include <filesystem>
#include <functional>
#include <string>
#include <vector>
#include "evalforge/core/hd.hpp"
#include "evalforge/core/run_dir.hpp"
#include "games/hex/player_spec.hpp"

namespace ef::play {

struct HexMatchConfig {
  std::string a = "ev", b = "uct";  // player specs
  int games = 200;
  int size = 11;
  bool swap = false;
  u64 seed = 1;
};

// The two players of a match, parsed from the config's specs once (games/hex/player_spec.hpp):
// what the run plays and sizes its memory check by.
struct HexMatchPlayers {
  HexPlayer a, b;
};

// Throws ef::Error naming file and key; the specs are parsed (and so checked) too, into
// `players` when given.
HexMatchConfig load_hex_match_config(const std::string& file, HexMatchPlayers* players = nullptr);
std::string hex_match_config_toml(const HexMatchConfig& c);
// Checks ranges and parses the specs; `who` names the source in messages.
HexMatchPlayers validate_hex_match_config(const HexMatchConfig& c, const std::string& who);

struct HexGameRow {
  int game = 0;
  bool a_black = true;
  bool a_won = false;
  int plies = 0;
  double seconds = 0;
  std::string moves;
};

struct HexMatchRunOptions : RunOptions {};

// A new match in `dir` (config given) or the resumption of the one there (config null).
// Returns every finished game, sorted by game number.
std::vector<HexGameRow> run_hex_match(const std::filesystem::path& dir, const HexMatchConfig* config,
                                      const HexMatchRunOptions& options);

}  // namespace ef::play
