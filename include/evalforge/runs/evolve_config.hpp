// Configuration of `evalforge evolve` runs. The [evolve] table's `kind` says which GA the run is:
//   "elo-othello"  the Elo round-robin GA of Othello feature weights (docs/method.md section 2,
//                  docs/evolve.md): configs/elo-oe_fmc.toml, configs/elo-oe_dmc.toml;
//   "tictactoe"    the bit-string GA of Tic-Tac-Toe networks under minimax, against the static
//                  evaluator or co-evolving (docs/method.md section 3, docs/tictactoe.md):
//                  configs/ttt-ply4.toml, ttt-ply1.toml, ttt-coevolution.toml.
// Each kind has its own tables. Every key is checked (file, table.key and the expected range
// named) and unknown keys and tables are rejected.
#pragma once
#include <string>
#include <vector>
#include "evalforge/core/hd.hpp"
#include "evalforge/ga/bitstring_ga.hpp"
#include "evalforge/ga/elo_ga.hpp"
#include "evalforge/games/othello/fitness_matches.hpp"
#include "evalforge/games/tictactoe/fitness_matches.hpp"
#include "evalforge/games/tictactoe/network.hpp"

namespace ef::ga {

struct EloOthelloConfig {
  int generations = 1000;       // at most this many generations
  int stall_generations = 100;  // stop once the champion's chromosome is unchanged this long (0: never)
  u64 seed = 1;
  EloGaParams ga;                 // [population] and [elo]
  bool bradley_terry = true;      // [elo] a whole-tournament fit per generation (reported, not selected on)
  play::FeaturePlayOptions play;  // [play] and [population] chromosome
  std::string yardstick = "swh";  // [yardstick] opponent: none, swh, random or an agent file (absolute once resolved)
  int yardstick_openings = 50;    // each played with both colours
  int yardstick_opening_plies = 6;
  int yardstick_every = 1;  // generations between yardstick matches (the last one always)
  // [crowning] "ranking" (the blog's: the generation's best-ranked member is the champion) or
  // "challenge": the best-ranked member, when it is not the champion, plays the champion over
  // fresh openings and is crowned only when its likelihood of superiority reaches `los`.
  bool challenge = false;
  int challenge_openings = 50;  // each played with both colours
  int challenge_opening_plies = 6;
  double challenge_los = 0.95;
  // [panel] a fixed set of opponents, the same every generation (play::panel_agent specs: swh,
  // swh:DEPTH, random, chromosome:TEXT, an agent file, absolute once resolved); empty: none.
  // Every `panel_every` generations (and the last) the champion, and with panel_population every
  // member, plays each from the same random openings: panel.csv.
  std::vector<std::string> panel;
  int panel_openings = 20;
  int panel_opening_plies = 6;
  int panel_every = 10;
  bool panel_population = true;
  int checkpoint_every = 1;  // [run]
};

// [fitness] kind of a Tic-Tac-Toe evolve run, declared once (kTttFitnessKinds; the switches
// over it have no default).
//   games:  matches against the opponent (the source's fitness; the default)
//   oracle: no games, the measures against perfect play (evolve_tictactoe.hpp oracle_fitness)
//   safety: no games, the exact loss probabilities against a uniformly random opponent
//           (evolve_tictactoe.hpp safety_fitness); its maximum is a network that never loses
enum class TttFitness { kGames, kOracle, kSafety };
struct TttFitnessName {
  TttFitness kind;
  const char* name;
};
inline constexpr TttFitnessName kTttFitnessKinds[] = {
    {TttFitness::kGames, "games"}, {TttFitness::kOracle, "oracle"}, {TttFitness::kSafety, "safety"}};
const char* ttt_fitness_name(TttFitness kind);

struct TicTacToeConfig {
  int generations = 100;
  int trials = 5;  // independent runs of the GA (streams of one seed), side by side
  u64 seed = 1;
  BitGaParams ga;                                             // [population]; ga.bits follows from the topology
  tictactoe::Topology topology = tictactoe::Topology::kFull;  // [network]
  int depth = 4;                                              // [network] the evolved networks' minimax plies
  bool coevolution = false;                                   // [opponent] kind = "static" | "coevolution"
  // [opponent] depth (kind = "static"): the static evaluator's plies, one depth or a list of
  // distinct depths; with several, a member plays its match against each and its fitness is the
  // mean of the match scores (still 0..480), so wins against the shallow opponents count.
  std::vector<int> opponent_depths{4};
  int top = 5;            // [opponent] co-evolution: each member meets the other population's top
  int monitor_depth = 4;  // [opponent] co-evolution: the static evaluator monitored against
  // [fitness] kind: "games" plays matches against the opponent from `openings` (the source's 8,
  // or all 9 with X's centre opening); "oracle" and "safety" play none (static opponent only).
  TttFitness fitness = TttFitness::kGames;
  bool plays_games() const { return fitness == TttFitness::kGames; }
  play::TttOpenings openings = play::TttOpenings::kSource;
  // [fitness] ties = "random": every player of the fitness games draws among its equal moves
  // (TicTacToeParams::random_ties) from a stream seeded per generation, and each opening is
  // played games_per_opening times with both colours; fitness = the match points / K (0..480).
  // "lowest" (the default, the source's): ties to the lowest square, one game per opening.
  bool random_ties = false;
  int games_per_opening = 1;
  // [monitor] oracle.csv: each generation's best networks measured against perfect play
  // (games/tictactoe/perfect_play.hpp), and every `population_every` generations (and the last)
  // the share of each population that never loses to any opponent. Never feeds selection.
  bool oracle = true;
  int population_every = 10;
  int checkpoint_every = 1;  // [run]
};

// The kinds of evolve run. Each is one entry of kEvolveKinds (its name in [evolve] kind) and
// one case of the switches in evolve_config.cpp and evolve_run.cpp, which have no default: a
// new kind that misses one is a compiler warning (-Wswitch), never a silent fallback.
enum class EvolveKind { kEloOthello, kTicTacToe };

struct EvolveKindName {
  EvolveKind kind;
  const char* name;
};
inline constexpr EvolveKindName kEvolveKinds[] = {{EvolveKind::kEloOthello, "elo-othello"},
                                                  {EvolveKind::kTicTacToe, "tictactoe"}};
// The kind's name in [evolve] kind.
const char* evolve_kind_name(EvolveKind kind);

struct EvolveConfig {
  EvolveKind kind = EvolveKind::kEloOthello;
  EloOthelloConfig elo;  // kind "elo-othello"
  TicTacToeConfig ttt;   // kind "tictactoe"
  // The kind's generation limit ([evolve] generations).
  int& generations();
};

// Reads and validates `file`. Relative agent paths resolve against the file's directory.
EvolveConfig load_evolve_config(const std::string& file);
// The resolved config as TOML (the run directory's snapshot; loadable again with the same result).
std::string evolve_config_to_toml(const EvolveConfig& config);

}  // namespace ef::ga
