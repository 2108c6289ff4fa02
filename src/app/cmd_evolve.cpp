// evalforge evolve: the GA runs (runs/evolve_run.hpp); the config's [evolve] kind says which:
// the Elo round-robin GA of Othello feature weights (configs/elo-oe_*.toml) or the Tic-Tac-Toe
// network GA (configs/ttt-*.toml). A resumable run directory either way.
#include <fmt/chrono.h>
#include <fmt/core.h>
#include <ctime>
#include <filesystem>
#include "app/commands.hpp"
#include "app/options.hpp"
#include "backends/team_backend.hpp"
#include "evalforge/core/error.hpp"
#include "evalforge/core/run_dir.hpp"
#include "evalforge/runs/evolve_run.hpp"
#include "runs/run_kinds.hpp"
#if EF_HAVE_MPI
#include "app/mpi_rank.hpp"
#endif

namespace ef::app {

namespace {

struct EvolveArgs {
  std::string config;
  std::string out;
  std::string resume;
  bool accept_config_edits = false;
  std::string backend = "cpu";
  int threads = 0;
  int generations = 0;
  bool quiet = false;
  std::vector<int> devices;
  double peer_timeout = 3600;
};

// `dir` gets the run directory as soon as it is known (for the messages of a failed MPI run).
void run(const EvolveArgs& a, ga::IslandTeam* team, std::string& dir) {
  ga::EvolveRunOptions o;
  o.backend = a.backend;
  o.devices = a.devices;
  o.team = team;
  set_run_options(o, a.threads, a.accept_config_edits, a.quiet);
  ga::EvolveOutcome outcome;
  if (!a.resume.empty()) {
    if (!a.config.empty() || !a.out.empty()) fail("--resume DIR takes its config from DIR; drop --config/--out");
    dir = a.resume;
    o.resume_hint = resume_hint(RunKind::kEvolve, dir);
    outcome = ga::resume_evolve(dir, o, a.generations);
  } else {
    if (a.config.empty()) fail("evolve: give --config FILE (e.g. configs/elo-oe_fmc.toml) or --resume DIR");
    ga::EvolveConfig c = ga::load_evolve_config(a.config);
    if (a.generations > 0) c.generations() = a.generations;
    dir = a.out.empty() ? fmt::format("runs/evolve-{:%Y%m%d-%H%M%S}", fmt::localtime(std::time(nullptr))) : a.out;
    o.resume_hint = resume_hint(RunKind::kEvolve, dir);
    outcome = ga::run_evolve(c, dir, o);
  }
  if (outcome.interrupted) throw ExitStatus{kStoppedExitStatus};
  if (std::filesystem::exists(std::filesystem::path(dir) / "best_networks.csv"))
    fmt::print(
        "{}: evolve complete, {} generations; metrics in {}/metrics.csv, best networks in {}/best_networks.csv\n", dir,
        outcome.generations_done, dir, dir);
  else
    fmt::print(
        "{}: evolve complete, {} generations{}; champion in {}/champion.toml, metrics in {}/metrics.csv, "
        "champions in {}/hall_of_fame/\n",
        dir, outcome.generations_done, outcome.stalled ? " (the champion stopped changing)" : "", dir, dir, dir);
}

// Under mpirun, rank 0 runs the GA and every rank plays a share of each batch of games
// (backends/team_backend.hpp); app/mpi_rank.hpp says how an error on any rank ends the job.
void run_command(const EvolveArgs& a) {
  const int launched = ga::launcher_world_size();
#if EF_HAVE_MPI
  if (launched > 0) {
    if (!a.devices.empty())
      fail(
          "--devices and mpirun both spread the games: under mpirun each rank takes one GPU by its local rank; "
          "drop --devices");
    mpi::MpiTeam team(a.peer_timeout);
    EvolveArgs args = a;
    share_node(team, args.threads, args.backend);
    run_as_rank(team, RunKind::kEvolve, [&](std::string& dir) {
      if (team.rank() == 0)
        run(args, &team, dir);
      else
        serve_team_backend(*make_backend(args.backend, args.threads), team);
    });
    return;
  }
#endif
  refuse_ranks_without_mpi(launched);
  std::string dir;
  run(a, nullptr, dir);
}

}  // namespace

void register_evolve(CLI::App& app) {
  auto a = std::make_shared<EvolveArgs>();
  auto* cmd = app.add_subcommand("evolve",
                                 "Run a GA whose fitness is played out (Elo round-robin GA; resumable run directory)");
  cmd->add_option("--config", a->config, "Evolve config (TOML), e.g. configs/elo-oe_fmc.toml");
  cmd->add_option("--out", a->out, "Run directory (default runs/evolve-DATE-TIME)");
  add_accept_config_edits(*cmd, cmd->add_option("--resume", a->resume, "Continue the run in this directory"),
                          a->accept_config_edits);
  cmd->add_option("--generations", a->generations, "Override the generation limit (also extends a resumed run)")
      ->check(CLI::Range(1, 100000000));
  cmd->add_option("--threads", a->threads, "CPU worker threads (0 = all)")->check(CLI::Range(0, 1024));
  cmd->add_option("--backend", a->backend, "cpu, cuda or auto");
  cmd->add_option("--devices", a->devices,
                  "Split each generation's games over these CUDA devices (e.g. 0,1), one backend each; with --backend "
                  "cpu, that many CPU backends")
      ->delimiter(',')
      ->check(CLI::Range(0, 1023));
  cmd->add_flag("--quiet", a->quiet, "No progress lines on stderr (log.txt still gets them)");
  cmd->add_option("--peer-timeout", a->peer_timeout,
                  "Under mpirun: seconds a rank waits for a message from another before it ends the run")
      ->check(CLI::Range(1.0, 1e7));
  cmd->callback([a] { run_command(*a); });
}

}  // namespace ef::app
