// The "tictactoe" kind of evolve run (runs/evolve_tictactoe.cpp); evolve_run.cpp dispatches to it.
#pragma once
#include <filesystem>
#include "evalforge/core/run_dir.hpp"
#include "evalforge/ga/bitstring_ga.hpp"
#include "evalforge/games/tictactoe/players.hpp"
#include "evalforge/runs/evolve_config.hpp"
#include "evalforge/runs/evolve_run.hpp"
#include "evalforge/runs/run_session.hpp"
#include "games/tictactoe/perfect_play.hpp"

namespace ef::ga {

// A new run in the session's directory (checked creatable, memory checked by the caller).
EvolveOutcome run_tictactoe(RunSession& session, const EvolveConfig& config, const EvolveRunOptions& options);
// The fitness of `[fitness] kind = "oracle"`, 0..480: 200 for each colour with which the network
// never loses to any line of perfect play, plus 80 x its share of optimal moves in the
// non-trivial positions. Holding one more colour outweighs any share; among networks that hold
// the same colours, the share ranks them.
double oracle_fitness(const tictactoe::PlayerMeasures& m);
// The fitness of `[fitness] kind = "safety"`, 0..480: 240 x (2 - the loss probability against a
// uniformly random opponent as X - that as O), exact (no sampling). 480 exactly when the network
// never loses to any opponent with either colour; below it, every line a network stops losing
// raises it, so selection has a slope where the worst case alone is flat.
double safety_fitness(const tictactoe::LossVsRandom& loss);
// The highest fitness of the run's [fitness] kind: 480 (540 for games with all 9 openings).
double ttt_max_fitness(const TicTacToeConfig& config);
// evolve_memory_estimate for this kind.
std::vector<MemoryPart> tictactoe_memory_estimate(const TicTacToeConfig& config);
// The session's evolve run, whose config.toml is `config` (kind "tictactoe").
EvolveOutcome resume_tictactoe(RunSession& session, EvolveConfig config, const EvolveRunOptions& options,
                               int generations);
// One row of best_networks.csv: a population's best network of the last generation.
struct BestNetwork {
  int trial = 0;
  std::string population;  // "a", or "b" (co-evolution's second population)
  std::string fitness;     // as the file holds it
  BitString bits;
  play::TicTacToeAgent agent;  // the bits played as the run played them (topology, depth)
};
// The best networks of a complete run (DIR/best_networks.csv, played as DIR/config.toml says:
// topology, depth), named "RUN:t<trial><population>". ef::Error naming the file and line for a
// run of another kind, an incomplete run or a bad row.
std::vector<BestNetwork> read_best_networks(const std::filesystem::path& dir);
// Their agents alone.
std::vector<play::TicTacToeAgent> load_best_networks(const std::filesystem::path& dir);
// Writes an agent file (games/tictactoe/agent_file.hpp) for each best network of the run into
// `out_dir`, named RUN-t<trial><population>.toml after the run directory (the agent's name too);
// returns the files in best_networks.csv's order.
std::vector<std::filesystem::path> save_best_network_agents(const std::filesystem::path& run,
                                                            const std::filesystem::path& out_dir);

}  // namespace ef::ga
