// evalforge search: the BRKGA-island shape search (docs/method.md 1.2-1.3) as a resumable run.
#include <fmt/chrono.h>
#include <fmt/core.h>
#include <ctime>
#include "app/commands.hpp"
#include "data/datasets.hpp"
#include "core/run_dir.hpp"
#include "evalforge/core/error.hpp"
#include "ga/search_run.hpp"

namespace ef::app {

namespace {

struct SearchArgs {
  std::string config;
  std::vector<std::string> data;
  std::string out;
  std::string resume;
  std::string backend = "cpu";
  int threads = 0;
  int generations = 0;
  bool quiet = false;
};

void run(const SearchArgs& a) {
  ga::SearchRunOptions o;
  o.backend = a.backend;
  o.threads = a.threads;
  if (!a.quiet) o.progress = print_progress_line;
  o.stop_requested = ef::stop_requested;
  // Ctrl-C / SIGTERM: finish the generation in flight, write a checkpoint, stop.
  install_stop_signals();
  ga::SearchOutcome outcome;
  std::string dir;
  if (!a.resume.empty()) {
    if (!a.config.empty() || !a.data.empty() || !a.out.empty())
      fail("--resume DIR takes its config and data from DIR; drop --config/--data/--out");
    dir = a.resume;
    o.resume_hint = fmt::format("evalforge search --resume {}", dir);
    outcome = ga::resume_search(dir, o, a.generations);
  } else {
    if (a.config.empty()) fail("search: give --config FILE (e.g. configs/quick.toml) or --resume DIR");
    ga::SearchConfig c = ga::load_search_config(a.config);
    if (!a.data.empty()) c.data_files = a.data;
    if (c.data_files.empty()) fail("search: no data (give --data FILE or [data] files in {})", a.config);
    // Data-set names (logbook, wthor:1990-2015) become the cached files; the run keeps the paths.
    c.data_files = data::expand_dataset_names(c.data_files);
    c.test_files = data::expand_dataset_names(c.test_files);
    if (a.generations > 0) c.generations = a.generations;
    dir = a.out.empty() ? fmt::format("runs/search-{:%Y%m%d-%H%M%S}", fmt::localtime(std::time(nullptr))) : a.out;
    o.resume_hint = fmt::format("evalforge search --resume {}", dir);
    outcome = ga::run_search(c, dir, o);
  }
  if (outcome.interrupted) throw ExitStatus{kStoppedExitStatus};
  // The result on stdout (progress went to stderr and log.txt).
  fmt::print("{}: search complete, {} generations; best shapes in {}/best_shapes.json, metrics in {}/metrics.csv\n",
             dir, outcome.generations_done, dir, dir);
}

}  // namespace

void register_search(CLI::App& app) {
  auto a = std::make_shared<SearchArgs>();
  auto* cmd = app.add_subcommand("search", "Search n-tuple shapes with BRKGA islands (resumable run directory)");
  cmd->add_option("--config", a->config, "Search config (TOML), e.g. configs/quick.toml or configs/paper.toml");
  cmd->add_option("--data", a->data, "Game records (overrides [data] files)")->take_all();
  cmd->add_option("--out", a->out, "Run directory (default runs/search-DATE-TIME)");
  cmd->add_option("--resume", a->resume, "Continue the run in this directory");
  cmd->add_option("--generations", a->generations, "Override the number of generations (also extends a resumed run)")
      ->check(CLI::Range(1, 100000000));
  cmd->add_option("--threads", a->threads, "CPU worker threads (0 = all)")->check(CLI::Range(0, 1024));
  cmd->add_option("--backend", a->backend, "cpu, cuda or auto");
  cmd->add_flag("--quiet", a->quiet, "No progress lines on stderr (log.txt still gets them)");
  cmd->callback([a] { run(*a); });
}

}  // namespace ef::app
