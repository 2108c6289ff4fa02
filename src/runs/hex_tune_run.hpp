// A BRKGA (ga/brkga.hpp) tuning gamma of Ev' = C_W/C_B + gamma * C'_W/C'_B (docs/hex.md) by
// play: each individual is one key, gamma = key * gamma_max, and its fitness is the share of
// `games` games it loses against a fixed opponent (by default UCT with 1,000 playouts), colours
// alternating. Every individual of a generation plays the same game streams (common random
// numbers: seed and generation key them), so fitness differences come from gamma, not luck of
// the draw; the elite keeps its fitness from the generation it was evaluated in.
//
// A resumable run (core/run_dir.hpp):
//   config.toml      [hex_tune] player (the Ev' player whose gamma is tuned, a full spec),
//                    opponent, population, elite, mutants, generations, games, gamma_max,
//                    size, seed
//   generations.csv  generation,individual,gamma,wins,games,fitness   (every evaluated individual)
//   best.csv         generation,gamma,fitness                         (the best after each one)
//   population.bin   checkpoint: the next generation's population (checksummed)
#pragma once
#include <filesystem>
#include <functional>
#include <string>
#include "evalforge/core/hd.hpp"
#include "evalforge/core/run_dir.hpp"
#include "games/hex/player_spec.hpp"

namespace ef::ga {

struct HexTuneConfig {
  std::string player = "ev";  // an ev spec: every key but gamma is kept as given
  std::string opponent = "uct:playouts=1000";
  int population = 8, elite = 2, mutants = 2, generations = 6;
  int games = 24;          // per individual and generation (even: both colours equally)
  double gamma_max = 2.0;  // gamma = key * gamma_max
  int size = 11;
  u64 seed = 1;
};

// The opponent and the tuned player, parsed from the config's specs once
// (games/hex/player_spec.hpp): what the run plays and sizes its memory check by.
struct HexTunePlayers {
  play::HexPlayer opponent, player;
};

// Throws ef::Error naming file and key; the specs are parsed (and so checked) too, into
// `players` when given.
HexTuneConfig load_hex_tune_config(const std::string& file, HexTunePlayers* players = nullptr);
std::string hex_tune_config_toml(const HexTuneConfig& c);
// Checks ranges and parses the specs (the player must be an ev player); `who` names the source.
HexTunePlayers validate_hex_tune_config(const HexTuneConfig& c, const std::string& who);

struct HexTuneOptions : RunOptions {};

struct HexTuneResult {
  int generations_done = 0;
  double best_gamma = 0, best_fitness = 1;
};

// A new run in `dir` (config given) or the resumption of the one there (config null).
HexTuneResult run_hex_tune(const std::filesystem::path& dir, const HexTuneConfig* config,
                           const HexTuneOptions& options);

}  // namespace ef::ga
