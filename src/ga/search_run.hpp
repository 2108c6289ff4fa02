// A shape-search run: a directory that holds everything about one search.
//   config.toml       the resolved configuration (data paths absolute)
//   metrics.csv       generation, island, move, best, mean, worst fitness, test MSE (when
//                     measured), wall seconds of the generation
//   best_shapes.json  the best shape of every island in the latest generation (loadable by
//                     `evalforge score --shapes`)
//   checkpoint.bin    populations and generation, written atomically (temp file + rename)
//   log.txt           the progress lines
// Resuming continues from the checkpoint and produces the same bits as an uninterrupted run:
// every random number is keyed by (seed, purpose, island, generation, ...), nothing else
// carries state.
#pragma once
#include <atomic>
#include <filesystem>
#include <string>
#include "data/games.hpp"
#include "ga/search_config.hpp"

namespace ef::ga {

struct SearchRunOptions {
  std::string backend = "cpu";
  int threads = 0;
  bool progress = true;                        // print a line per generation
  const std::atomic<bool>* stop = nullptr;     // set by a signal: checkpoint and return
  int stop_after_generations = -1;             // tests: behave as if stopped after this many more generations
};

struct SearchOutcome {
  int generations_done = 0;  // evaluated generations in the run so far
  bool complete = false;     // all configured generations evaluated
  bool interrupted = false;  // stopped early; resume continues it
};

// Starts a new run in `dir` (created; must not hold a run already).
SearchOutcome run_search(const SearchConfig& config, const std::filesystem::path& dir, const SearchRunOptions& options);
// Continues the run in `dir`; `generations` > 0 extends (or shortens) the configured count.
SearchOutcome resume_search(const std::filesystem::path& dir, const SearchRunOptions& options, int generations = 0);

}  // namespace ef::ga
