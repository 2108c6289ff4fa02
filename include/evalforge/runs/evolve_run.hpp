// An `evalforge evolve` run: a GA whose fitness work goes to a backend, as a run directory
// (core/run_dir.hpp) that resumes bit for bit. Today one kind, "elo-othello", the Elo
// round-robin GA of Othello feature weights (ga/elo_ga.hpp, games/othello/fitness_matches.hpp):
//   config.toml        the resolved configuration (evolve_config.hpp)
//   metrics.csv        one row per generation: the champion (best Elo) and its chromosome,
//                      Elo, Bradley-Terry rating with its 95% margin, birth generation; the
//                      population's Elo mean, spread, minimum and maximum; distinct chromosomes
//                      and mean gene distance; generations the champion has been unchanged;
//                      black wins, draws and white wins of the tournament; the champion's
//                      score against the yardstick agent; seconds in play and in all
//   hall_of_fame/      gen-GGGGG.toml (generation, zero-padded to 5 digits): an agent file
//                      each time a chromosome became champion (again, if it lost the title
//                      and won it back), playable by tournament, league and gtp
//   champion.toml      the final champion, when the run is complete
//   checkpoint.bin     the population to play next, with ratings and records (RunDir framing)
//   log.txt            the progress lines
// Resuming continues from the checkpoint with the same bits as an uninterrupted run: every
// random number is keyed by (seed, purpose, generation, ...), and the checkpoint holds the
// population exactly (ratings as their bits).
#pragma once
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>
#include "evalforge/backends/backend.hpp"
#include "evalforge/core/memory_check.hpp"
#include "evalforge/core/run_dir.hpp"
#include "evalforge/ga/island_team.hpp"
#include "evalforge/runs/evolve_config.hpp"
#include "evalforge/runs/run_session.hpp"

namespace ef::ga {

struct EvolveRunOptions : RunOptions {
  std::string backend = "cpu";
  // Several devices (`evolve --devices`): each generation's games split over one backend per
  // device (make_multi_device_backend), the same bits as one; empty: one backend.
  std::vector<int> devices;
  // Under mpirun (`mpirun -np R evalforge evolve`): rank 0 runs the GA with this team, its
  // games played on every rank (backends/team_backend.hpp); the other ranks only serve games.
  // Null: one process.
  IslandTeam* team = nullptr;
};

struct EvolveOutcome {
  int generations_done = 0;  // generations played in the run so far
  bool complete = false;     // finished: generation limit reached or the champion stalled
  bool stalled = false;      // finished because the champion stopped changing
  bool interrupted = false;  // stopped early; resume continues it
};

// Starts a new run in `dir` (created; must not hold a run already).
// What a generation of `config` allocates that grows with its values (games, ratings,
// populations), in bytes: run_evolve and resume_evolve refuse a run that needs more than the
// machine holds (core/memory_check.hpp) before allocating.
std::vector<MemoryPart> evolve_memory_estimate(const EvolveConfig& config);

EvolveOutcome run_evolve(const EvolveConfig& config, const std::filesystem::path& dir, const EvolveRunOptions& options);
// Shared by the evolve kinds' loops (evolve_run.cpp, runs/evolve_tictactoe.cpp).
namespace evolve_detail {
// The backend of a run: one, or one per device of options.devices behind one, or with
// options.team one per rank (rank 0's, in front of the others').
std::unique_ptr<Backend> make_evolve_backend(const EvolveRunOptions& options);
// The outcome of a run stopped by a signal after generation `generation` (its checkpoint
// written), logged with the hint by the session.
EvolveOutcome stopped_after(RunSession& session, int generation);
// Refuses (ef::Error naming the run) a new limit below the `played` generations.
void check_new_limit(const RunDir& run, int played, int generations);
}  // namespace evolve_detail

// Continues the run in `dir`; `generations` > 0 changes the generation limit: it extends a run
// that ended at its limit (not one whose champion stalled), and may not be below the
// generations already played (an error naming `dir`; nothing is changed).
EvolveOutcome resume_evolve(const std::filesystem::path& dir, const EvolveRunOptions& options, int generations = 0);

}  // namespace ef::ga
