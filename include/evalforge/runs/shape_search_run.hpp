// A shape-search run: a run directory (core/run_dir.hpp, kind "search") that holds everything
// about one search.
//   run.toml          kind = "search" and the evalforge version
//   config.toml       the resolved configuration (data paths absolute); written last at
//                     creation: its presence marks the run
//   metrics.csv       generation, island, move, best, mean, worst fitness, test MSE (when
//                     measured), wall seconds of the generation; appended (with fsync) after
//                     every generation
//   best_shapes.json  the best shape of every island in the latest generation (loadable by
//                     `evalforge score --shapes`)
//   checkpoint.bin    populations and generation, framed and checksummed by RunDir, written
//                     atomically every checkpoint_every generations, on a stop and at the end
//   log.txt           the progress lines (also passed to SearchRunOptions::progress)
// Resuming continues from the checkpoint (from generation 0 when there is none yet): the
// metrics.csv rows of the generations behind it are validated and kept, later ones are
// dropped and written again. The result is the same bits as an uninterrupted run: every random
// number is keyed by (seed, purpose, island, generation, ...), nothing else carries state.
// The same holds for a run spread over several ranks (SearchRunOptions::team): the files are
// the single-process run's bits (but for the wall seconds), and the checkpoint does not depend
// on the rank count, so a run can be resumed with any number of ranks (docs/scale-out.md).
#pragma once
#include <filesystem>
#include <functional>
#include <string>
#include <vector>
#include "evalforge/core/memory_check.hpp"
#include "evalforge/core/run_dir.hpp"
#include "evalforge/data/games.hpp"
#include "evalforge/ga/island_team.hpp"
#include "evalforge/runs/shape_search_config.hpp"

namespace ef::ga {

// One island's line of a generation, as metrics.csv holds it (test: NaN when not measured).
struct GenerationRow {
  int island = 0, move = 0;
  double best = 0, mean = 0, worst = 0, test = 0, seconds = 0;
};

struct SearchRunOptions : RunOptions {
  std::string backend = "cpu";
  int device = 0;  // CUDA device of a cuda backend (make_backend)
  // The processes the islands are spread over (island_team.hpp); null: this process holds them
  // all. With a team of several ranks every rank calls run_search / resume_search with the
  // same arguments; only rank 0 creates, reads or writes the run directory (metrics, shapes,
  // checkpoints, log), and every rank reads the config and data files at the same paths.
  IslandTeam* team = nullptr;
  // Called on rank 0 after each generation, once its rows are in metrics.csv and its best
  // shapes in best_shapes.json (a notebook's live plot: the Python module's on_generation). An
  // exception from it ends the run there; the run directory resumes from its last checkpoint.
  std::function<void(int generation, const std::vector<GenerationRow>& rows)> on_generation;
};

struct SearchOutcome {
  int generations_done = 0;  // evaluated generations in the run so far
  bool complete = false;     // all configured generations evaluated
  bool interrupted = false;  // stopped early; resume continues it
};

// What a run of `config` allocates that grows with its values (keys, jobs, weight tables),
// in bytes: run_search and resume_search refuse, before allocating, a run that needs more than
// the machine holds (core/memory_check.hpp).
std::vector<MemoryPart> search_memory_estimate(const SearchConfig& config, const SearchRunOptions& options);

// Starts a new run in `dir` (created; must not hold a run already).
SearchOutcome run_search(const SearchConfig& config, const std::filesystem::path& dir, const SearchRunOptions& options);
// Continues the run in `dir`; `generations` > 0 extends (or shortens) the configured count.
SearchOutcome resume_search(const std::filesystem::path& dir, const SearchRunOptions& options, int generations = 0);

}  // namespace ef::ga
