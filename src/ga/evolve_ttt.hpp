// The "tictactoe" kind of evolve run (evolve_ttt.cpp); evolve_run.cpp dispatches to it.
#pragma once
#include <filesystem>
#include "core/run_dir.hpp"
#include "ga/evolve_config.hpp"
#include "ga/evolve_run.hpp"

namespace ef::ga {

EvolveOutcome run_tictactoe(const EvolveConfig& config, const std::filesystem::path& dir,
                            const EvolveRunOptions& options);
// evolve_memory_estimate for this kind.
std::vector<MemoryPart> tictactoe_memory_estimate(const TicTacToeConfig& config);
// `run` opened as an evolve run whose config.toml is `config` (kind "tictactoe").
EvolveOutcome resume_tictactoe(RunDir& run, EvolveConfig config, const EvolveRunOptions& options, int generations);

}  // namespace ef::ga
