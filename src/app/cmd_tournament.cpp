// evalforge tournament: a round robin or gauntlet between agents from shared openings, rated by
// sequential Elo, a Bradley-Terry fit and mean scores, as a resumable run directory
// (runs/tournament.hpp).
#include <fmt/chrono.h>
#include <fmt/core.h>
#include <cstdio>
#include <ctime>
#include "app/commands.hpp"
#include "app/options.hpp"
#include "evalforge/core/error.hpp"
#include "evalforge/core/run_dir.hpp"
#include "runs/run_kinds.hpp"
#include "runs/tournament.hpp"

namespace ef::app {

namespace {

struct TournamentArgs {
  std::string config;
  std::string out;
  std::string resume;
  bool accept_config_edits = false;
  std::string backend = "cpu";
  int threads = 0;
  int chunk = 4096;
};

void run_tournament_command(const TournamentArgs& a) {
  play::TournamentRunOptions o;
  o.backend = a.backend;
  o.chunk_games = a.chunk;
  // Ctrl-C / SIGTERM: finish the chunk in flight (its games are kept), stop.
  set_run_options(o, a.threads, a.accept_config_edits);
  std::string dir;
  std::string config;
  if (!a.resume.empty()) {
    if (!a.config.empty() || !a.out.empty()) fail("--resume DIR takes its config from DIR; drop --config/--out");
    dir = a.resume;
  } else {
    if (a.config.empty()) fail("tournament: give --config FILE (e.g. configs/tournament-example.toml) or --resume DIR");
    config = a.config;
    dir = a.out.empty() ? fmt::format("runs/tournament-{:%Y%m%d-%H%M%S}", fmt::localtime(std::time(nullptr))) : a.out;
  }
  o.resume_hint = resume_command(RunKind::kTournament, dir);
  const play::TournamentOutcome r = play::run_tournament(dir, config, o);
  if (!r.complete) throw ExitStatus{kStoppedExitStatus};
  fmt::print("\n{}", r.standings.text);
  fmt::print("\n{}: games.csv, standings.txt, standings.json\n", dir);
  std::fflush(stdout);
}

}  // namespace

void register_tournament(CLI::App& app) {
  auto a = std::make_shared<TournamentArgs>();
  auto* cmd = app.add_subcommand("tournament",
                                 "Round robin or gauntlet between agents from shared openings: "
                                 "sequential Elo, Bradley-Terry with 95% margins, LOS (resumable "
                                 "run directory)");
  cmd->add_option("--config", a->config, "Tournament config (TOML), e.g. configs/tournament-example.toml");
  cmd->add_option("--out", a->out, "Run directory (default runs/tournament-DATE-TIME)");
  add_accept_config_edits(*cmd,
                          cmd->add_option("--resume", a->resume,
                                          "Play the rest of the tournament in this directory (or redo its standings)"),
                          a->accept_config_edits);
  cmd->add_option("--backend", a->backend, kPlayBackendHelp);
  cmd->add_option("--threads", a->threads, "CPU worker threads (0 = all)")->check(CLI::Range(0, 1024));
  cmd->add_option("--chunk", a->chunk,
                  "Games per backend batch: games.csv is appended and Ctrl-C is honoured "
                  "after each")
      ->check(CLI::Range(1, 100000000));
  cmd->callback([a] { run_tournament_command(*a); });
}

}  // namespace ef::app
