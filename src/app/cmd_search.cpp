// evalforge search: the BRKGA-island shape search (docs/method.md 1.2-1.3) as a resumable run.
#include <fmt/chrono.h>
#include <fmt/core.h>
#include <ctime>
#include <filesystem>
#include <memory>
#include <string_view>
#include <thread>
#include "app/commands.hpp"
#include "app/options.hpp"
#include "evalforge/core/error.hpp"
#include "evalforge/core/run_dir.hpp"
#include "evalforge/data/datasets.hpp"
#include "evalforge/runs/shape_search_run.hpp"
#include "ga/thread_team.hpp"
#include "runs/run_kinds.hpp"
#if EF_HAVE_MPI
#include "app/mpi_rank.hpp"
#endif

namespace ef::app {

namespace {

struct SearchArgs {
  std::string config;
  std::vector<std::string> data;
  std::string out;
  std::string resume;
  bool accept_config_edits = false;
  std::string backend = "cpu";
  int threads = 0;
  int generations = 0;
  bool quiet = false;
  double peer_timeout = 3600;
  std::vector<int> devices;  // --devices: one in-process rank per entry
};

// `dir` gets the run directory as soon as it is known (for the messages of a failed MPI run).
void run(const SearchArgs& a, ga::IslandTeam* team, std::string& dir) {
  ga::SearchRunOptions o;
  o.backend = a.backend;
  o.team = team;
  if (team && !a.devices.empty()) o.device = a.devices[static_cast<std::size_t>(team->rank())];
  // Progress from rank 0 (the run's lines); the other ranks say only what concerns their own
  // islands, prefixed with their rank (run_loop).
  set_run_options(o, a.threads, a.accept_config_edits, a.quiet);
  ga::SearchOutcome outcome;
  if (!a.resume.empty()) {
    if (!a.config.empty() || !a.data.empty() || !a.out.empty())
      fail("--resume DIR takes its config and data from DIR; drop --config/--data/--out");
    dir = a.resume;
    o.resume_hint = resume_hint(RunKind::kSearch, dir);
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
    o.resume_hint = resume_hint(RunKind::kSearch, dir);
    outcome = ga::run_search(c, dir, o);
  }
  if (outcome.interrupted) throw ExitStatus{kStoppedExitStatus};
  if (team && team->rank() != 0) return;
  // The result on stdout (progress went to stderr and log.txt).
  fmt::print("{}: search complete, {} generations; best shapes in {}/best_shapes.json, metrics in {}/metrics.csv\n",
             dir, outcome.generations_done, dir, dir);
}

// Under mpirun, every rank runs the search as a member of the MPI team (app/mpi_rank.hpp says
// how an error on any rank ends the job).
void run_command(const SearchArgs& a) {
  const int launched = ga::launcher_world_size();
  if (!a.devices.empty()) {
    // Several devices in one process: the islands spread over one thread per device, each
    // with its own backend, talking through an in-memory team (the same run loop and bits as
    // mpirun with one rank per device). With --backend cpu the entries only count the ranks.
    if (launched > 0)
      fail(
          "--devices and mpirun both spread the islands: under mpirun each rank takes one GPU by its local rank; "
          "drop --devices");
    for (std::size_t i = 0; i < a.devices.size(); ++i)
      for (std::size_t j = 0; j < i; ++j)
        if (a.devices[i] == a.devices[j]) fail("--devices: lists device {} twice", a.devices[i]);
    const int ranks = static_cast<int>(a.devices.size());
    SearchArgs args = a;
    if (args.threads == 0) args.threads = std::max(1, static_cast<int>(std::thread::hardware_concurrency()) / ranks);
    ga::run_thread_team(ranks, [&](ga::ThreadTeam& team) {
      std::string dir;
      run(args, &team, dir);
    });
    return;
  }
#if EF_HAVE_MPI
  if (launched > 0) {
    mpi::MpiTeam team(a.peer_timeout);
    SearchArgs args = a;
    share_node(team, args.threads, args.backend);
    run_as_rank(team, RunKind::kSearch, [&](std::string& dir) { run(args, &team, dir); });
    return;
  }
#endif
  refuse_ranks_without_mpi(launched);
  std::string dir;
  run(a, nullptr, dir);
}

}  // namespace

void register_search(CLI::App& app) {
  auto a = std::make_shared<SearchArgs>();
  auto* cmd = app.add_subcommand("search", "Search n-tuple shapes with BRKGA islands (resumable run directory)");
  cmd->add_option("--config", a->config, "Search config (TOML), e.g. configs/quick.toml or configs/paper.toml");
  cmd->add_option("--data", a->data,
                  "Game records, or .obf positions with exact scores (e.g. evalforge ordering --samples-out); "
                  "overrides [data] files")
      ->take_all();
  cmd->add_option("--out", a->out, "Run directory (default runs/search-DATE-TIME)");
  add_accept_config_edits(*cmd, cmd->add_option("--resume", a->resume, "Continue the run in this directory"),
                          a->accept_config_edits);
  cmd->add_option("--generations", a->generations, "Override the number of generations (also extends a resumed run)")
      ->check(CLI::Range(1, 100000000));
  cmd->add_option("--threads", a->threads, "CPU worker threads (0 = all)")->check(CLI::Range(0, 1024));
  cmd->add_option("--backend", a->backend, "cpu, cuda or auto");
  cmd->add_flag("--quiet", a->quiet, "No progress lines on stderr (log.txt still gets them)");
  cmd->add_option("--devices", a->devices,
                  "Spread the islands over these CUDA devices in one process (e.g. 0,1), one thread and backend "
                  "each; with --backend cpu, that many in-process ranks")
      ->delimiter(',')
      ->check(CLI::Range(0, 1023));
  cmd->add_option("--peer-timeout", a->peer_timeout,
                  "Under mpirun: seconds a rank waits for a message from another before it ends the run")
      ->check(CLI::Range(1.0, 1e7));
  cmd->callback([a] { run_command(*a); });
}

}  // namespace ef::app
