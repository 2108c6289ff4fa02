// evalforge search: the BRKGA-island shape search (method.md 1.2-1.3) as a resumable run.
#include <fmt/chrono.h>
#include <fmt/core.h>
#include <atomic>
#include <csignal>
#include <ctime>
#include "app/commands.hpp"
#include "evalforge/core/error.hpp"
#include "ga/search_run.hpp"

namespace ef::app {

namespace {

std::atomic<bool> g_stop{false};
// The first signal asks for a clean stop at the next checkpoint; a second one (the user is
// not waiting for the work in flight) gets the default action.
extern "C" void on_stop_signal(int sig) {
  g_stop.store(true);
  std::signal(sig, SIG_DFL);
}

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
  o.progress = !a.quiet;
  o.stop = &g_stop;
  // Ctrl-C / SIGTERM: finish the generation in flight, write a checkpoint, stop.
  std::signal(SIGINT, on_stop_signal);
  std::signal(SIGTERM, on_stop_signal);
  ga::SearchOutcome outcome;
  if (!a.resume.empty()) {
    if (!a.config.empty() || !a.data.empty() || !a.out.empty())
      fail("--resume DIR takes its config and data from DIR; drop --config/--data/--out");
    outcome = ga::resume_search(a.resume, o, a.generations);
    if (outcome.complete && !outcome.interrupted && o.progress)
      fmt::print("{}: run complete ({} generations)\n", a.resume, outcome.generations_done);
  } else {
    if (a.config.empty()) fail("search: give --config FILE (e.g. configs/quick.toml) or --resume DIR");
    ga::SearchConfig c = ga::load_search_config(a.config);
    if (!a.data.empty()) c.data_files = a.data;
    if (a.generations > 0) c.generations = a.generations;
    std::string out = a.out;
    if (out.empty()) out = fmt::format("runs/search-{:%Y%m%d-%H%M%S}", fmt::localtime(std::time(nullptr)));
    outcome = ga::run_search(c, out, o);
  }
  if (outcome.interrupted) std::exit(130);
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
  cmd->add_flag("--quiet", a->quiet, "No progress lines (log.txt still gets them)");
  cmd->callback([a] { run(*a); });
}

}  // namespace ef::app
