// evalforge match: the seed paper's match experiment (method.md 1.4) as a resumable run
// directory (play/match.hpp).
#include <fmt/chrono.h>
#include <fmt/core.h>
#include <atomic>
#include <csignal>
#include <ctime>
#include <iostream>
#include "app/commands.hpp"
#include "evalforge/core/error.hpp"
#include "ga/ratings.hpp"
#include "play/match.hpp"

namespace ef::app {

namespace {

std::atomic<bool> g_stop{false};
// The first signal asks for a clean stop at the next checkpoint; a second one (the user is
// not waiting for the work in flight) gets the default action.
extern "C" void on_match_stop_signal(int sig) {
  g_stop.store(true);
  std::signal(sig, SIG_DFL);
}

struct MatchArgs {
  std::string config;
  std::string out;
  std::string resume;
  std::string backend = "cpu";
  int threads = 0;
};

void run_match_command(const MatchArgs& a) {
  play::MatchRunOptions o;
  o.backend = a.backend;
  o.threads = a.threads;
  o.stop_requested = [] { return g_stop.load(); };
  // Ctrl-C / SIGTERM: finish the round in flight, write a checkpoint, stop.
  std::signal(SIGINT, on_match_stop_signal);
  std::signal(SIGTERM, on_match_stop_signal);
  std::string dir;
  std::vector<play::MatchRound> rounds;
  if (!a.resume.empty()) {
    if (!a.config.empty() || !a.out.empty()) fail("--resume DIR takes its config from DIR; drop --config/--out");
    dir = a.resume;
    rounds = play::run_match(dir, "", o, std::cout);
  } else {
    if (a.config.empty()) fail("match: give --config FILE (e.g. configs/match-2core.toml) or --resume DIR");
    dir = a.out.empty() ? fmt::format("runs/match-{:%Y%m%d-%H%M%S}", fmt::localtime(std::time(nullptr))) : a.out;
    rounds = play::run_match(dir, a.config, o, std::cout);
  }
  if (g_stop.load()) std::exit(130);
  // Summary per replicate: the overall score and that of the last quarter of the rounds, with
  // 95% Wilson intervals (expected_score_interval over the rounds' games).
  int replicates = 0, last_round = 0;
  for (const auto& r : rounds) {
    replicates = std::max(replicates, r.replicate + 1);
    last_round = std::max(last_round, r.round);
  }
  for (int p = 0; p < replicates; ++p) {
    std::vector<tournament::GameResult> all, late;
    for (const auto& r : rounds) {
      if (r.replicate != p) continue;
      auto add = [&](std::vector<tournament::GameResult>& v) {
        for (int i = 0; i < r.wins; ++i) v.push_back({0, 1, 1.0});
        for (int i = 0; i < r.draws; ++i) v.push_back({0, 1, 0.5});
        for (int i = 0; i < r.losses; ++i) v.push_back({0, 1, 0.0});
      };
      add(all);
      if (r.round >= (last_round + 1) * 3 / 4) add(late);
    }
    if (all.empty()) continue;
    const auto s = tournament::expected_score_interval(all, 2, 0);
    fmt::print("replicate {}: agent 1 scores {:.3f} [{:.3f}, {:.3f}] over {} games", p, s.mean, s.low95, s.high95,
               s.games);
    if (!late.empty()) {
      const auto l = tournament::expected_score_interval(late, 2, 0);
      fmt::print("; {:.3f} [{:.3f}, {:.3f}] over the last {} games", l.mean, l.low95, l.high95, l.games);
    }
    fmt::print("\n");
  }
  fmt::print("{}: rounds.csv, agents/ (play them with league, tournament, gtp); `evalforge report {}` draws the curve\n",
             dir, dir);
}

}  // namespace

void register_match(CLI::App& app) {
  auto a = std::make_shared<MatchArgs>();
  auto* cmd = app.add_subcommand("match", "The paper's match experiment: two learning n-tuple agents play rounds of "
                                          "games (resumable run directory)");
  cmd->add_option("--config", a->config, "Match config (TOML), e.g. configs/paper-match.toml or configs/match-2core.toml");
  cmd->add_option("--out", a->out, "Run directory (default runs/match-DATE-TIME)");
  cmd->add_option("--resume", a->resume, "Continue the match in this directory");
  cmd->add_option("--threads", a->threads, "CPU worker threads (0 = all)")->check(CLI::Range(0, 1024));
  cmd->add_option("--backend", a->backend, "cpu, cuda or auto");
  cmd->callback([a] { run_match_command(*a); });
}

}  // namespace ef::app
