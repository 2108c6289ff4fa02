// evalforge match: the seed paper's match experiment (docs/method.md 1.4) as a resumable run
// directory (runs/match_experiment.hpp).
#include <fmt/chrono.h>
#include <fmt/core.h>
#include <ctime>
#include <iostream>
#include "app/commands.hpp"
#include "app/options.hpp"
#include "evalforge/core/error.hpp"
#include "evalforge/core/files.hpp"
#include "evalforge/core/rng.hpp"
#include "evalforge/core/run_dir.hpp"
#include "evalforge/data/datasets.hpp"
#include "evalforge/data/games.hpp"
#include "evalforge/games/othello/agent_file.hpp"
#include "evalforge/ratings/ratings.hpp"
#include "games/othello/external_match.hpp"
#include "runs/match_experiment.hpp"
#include "runs/run_kinds.hpp"

namespace ef::app {

namespace {

struct MatchArgs {
  std::string config;
  std::string out;
  std::string resume;
  bool accept_config_edits = false;
  std::string backend = "cpu";
  int threads = 0;
  // Against an external GTP engine:
  std::string opponent_cmd;
  std::string agent = "swh";
  int games = 2;
  double move_timeout = 10;
  int max_restarts = 3;
  u64 seed = 1;
  std::vector<std::string> openings_data;
  int opening_moves = 8;
};

// A transcript square: a1..h8, "--" for a pass.
std::string move_text(int m) {
  return m < 0 ? "--" : fmt::format("{}{}", static_cast<char>('a' + m % 8), static_cast<char>('1' + m / 8));
}

// `evalforge match --opponent-cmd`: the agent against a GTP engine run as a child process.
// Openings: the first opening_moves moves of random dataset games (passes made explicit), each
// played twice with colours swapped; without --openings-data, the start position.
void run_external(const MatchArgs& a) {
  if (!a.config.empty() || !a.resume.empty())
    fail("--opponent-cmd plays an agent file against an engine; drop --config/--resume");
  const play::OthelloAgent agent = play::load_agent(a.agent);
  play::ExternalMatchOptions o;
  o.command = a.opponent_cmd;
  o.games = a.games;
  o.move_timeout_s = a.move_timeout;
  o.max_restarts = a.max_restarts;
  o.seed = a.seed;
  if (!a.openings_data.empty()) {
    const data::GameDatabase db = data::load_games(data::resolve_data_specs(a.openings_data));
    std::vector<const data::Game*> long_enough;
    for (const auto& g : db.games)
      if (static_cast<int>(g.moves.size()) > a.opening_moves) long_enough.push_back(&g);
    if (long_enough.empty()) fail("--openings-data: no game has more than {} moves", a.opening_moves);
    for (int k = 0; k < (a.games + 1) / 2; ++k) {
      Rng rng(a.seed, Purpose::kGame, static_cast<u32>(k), 1u << 20, 0);
      const data::Game& g = *long_enough[rng.below(static_cast<u32>(long_enough.size()))];
      othello::Board b;
      std::vector<int> moves;
      for (int i = 0; i < a.opening_moves; ++i) {
        if (!b.can_move()) {
          b.pass();
          moves.push_back(-1);
        }
        b.play(g.moves[i]);
        moves.push_back(g.moves[i]);
      }
      o.openings.push_back(std::move(moves));
    }
  }
  std::vector<play::ExternalGame> games;
  const auto write_transcript = [&] {
    std::string t;
    for (const auto& g : games) {
      std::string moves;
      for (int m : g.moves) moves += move_text(m);
      t += fmt::format("{} {:+d}  # agent {}{}\n", moves, g.black_score, g.agent_black ? "black" : "white",
                       g.completed ? "" : ", forfeit: " + g.error);
    }
    write_atomically(a.out, t);
  };
  try {
    play::play_external_match(agent, o, games, &std::cout);
  } catch (const Error&) {
    // Too many restarts (or an engine that stopped being startable): the games so far still count.
    if (!a.out.empty() && !games.empty()) {
      write_transcript();
      fmt::print(stderr, "{}: the {} games played before the error\n", a.out, games.size());
    }
    throw;
  }
  std::vector<ratings::GameResult> results;
  int forfeits = 0, refused_passes = 0;
  double disc_sum = 0;
  int completed = 0;
  for (const auto& g : games) {
    const int s = g.agent_score();
    results.push_back({0, 1, s > 0 ? 1.0 : (s < 0 ? 0.0 : 0.5)});
    refused_passes += g.refused_passes;
    if (!g.completed)
      ++forfeits;
    else
      disc_sum += s, ++completed;
  }
  if (!a.out.empty()) write_transcript();
  const auto si = ratings::expected_score_interval(results, 2, 0);
  fmt::print("{} vs '{}': {} games, wins {} draws {} losses {} (forfeits by the engine: {}{})\n", agent.name,
             a.opponent_cmd, si.games, si.wins, si.draws, si.losses, forfeits,
             refused_passes ? fmt::format("; our passes it refused: {}", refused_passes) : "");
  fmt::print(
      "score {:.3f}  95% interval [{:.3f}, {:.3f}] (Wilson); mean disc difference {:+.1f} over {} completed games\n",
      si.mean, si.low95, si.high95, completed ? disc_sum / completed : 0.0, completed);
}

void run_match_command(const MatchArgs& a) {
  if (!a.opponent_cmd.empty()) return run_external(a);
  play::MatchRunOptions o;
  o.backend = a.backend;
  set_run_options(o, a.threads, a.accept_config_edits);
  bool stopped = false;
  o.stopped = &stopped;
  std::string dir;
  std::vector<play::MatchRound> rounds;
  if (!a.resume.empty()) {
    if (!a.config.empty() || !a.out.empty()) fail("--resume DIR takes its config from DIR; drop --config/--out");
    dir = a.resume;
    o.resume_hint = resume_command(RunKind::kMatch, dir);
    rounds = play::run_match(dir, "", o);
  } else {
    if (a.config.empty()) fail("match: give --config FILE (e.g. configs/match-2core.toml) or --resume DIR");
    dir = a.out.empty() ? fmt::format("runs/match-{:%Y%m%d-%H%M%S}", fmt::localtime(std::time(nullptr))) : a.out;
    o.resume_hint = resume_command(RunKind::kMatch, dir);
    rounds = play::run_match(dir, a.config, o);
  }
  // (a signal during the last round lets the match finish: exit 0)
  if (stopped) throw ExitStatus{kStoppedExitStatus};
  // Summary per replicate: the overall score and that of the last quarter of the rounds, with
  // 95% Wilson intervals (expected_score_interval over the rounds' games).
  int replicates = 0, last_round = 0;
  for (const auto& r : rounds) {
    replicates = std::max(replicates, r.replicate + 1);
    last_round = std::max(last_round, r.round);
  }
  for (int p = 0; p < replicates; ++p) {
    std::vector<ratings::GameResult> all, late;
    for (const auto& r : rounds) {
      if (r.replicate != p) continue;
      auto add = [&](std::vector<ratings::GameResult>& v) {
        for (int i = 0; i < r.wins; ++i) v.push_back({0, 1, 1.0});
        for (int i = 0; i < r.draws; ++i) v.push_back({0, 1, 0.5});
        for (int i = 0; i < r.losses; ++i) v.push_back({0, 1, 0.0});
      };
      add(all);
      if (r.round >= (last_round + 1) * 3 / 4) add(late);
    }
    if (all.empty()) continue;
    const auto s = ratings::expected_score_interval(all, 2, 0);
    fmt::print("replicate {}: agent 1 scores {:.3f} [{:.3f}, {:.3f}] over {} games", p, s.mean, s.low95, s.high95,
               s.games);
    if (!late.empty()) {
      const auto l = ratings::expected_score_interval(late, 2, 0);
      fmt::print("; {:.3f} [{:.3f}, {:.3f}] over the last {} games", l.mean, l.low95, l.high95, l.games);
    }
    fmt::print("\n");
  }
  fmt::print(
      "{}: rounds.csv, agents/ (play them with league, tournament, gtp); `evalforge report {}` draws the curve\n", dir,
      dir);
}

}  // namespace

void register_match(CLI::App& app) {
  auto a = std::make_shared<MatchArgs>();
  auto* cmd = app.add_subcommand("match",
                                 "The paper's match experiment: two learning n-tuple agents play rounds of "
                                 "games (resumable run directory)");
  cmd->add_option("--config", a->config,
                  "Match config (TOML), e.g. configs/paper-match.toml or configs/match-2core.toml");
  cmd->add_option("--out", a->out,
                  "Run directory (default runs/match-DATE-TIME); with --opponent-cmd: a transcript file");
  add_accept_config_edits(*cmd, cmd->add_option("--resume", a->resume, "Continue the match in this directory"),
                          a->accept_config_edits);
  cmd->add_option("--threads", a->threads, "CPU worker threads (0 = all)")->check(CLI::Range(0, 1024));
  cmd->add_option("--backend", a->backend, kPlayBackendHelp);
  auto* ext = cmd->add_option_group("external engine", "Play an agent against a GTP engine run as a child process");
  ext->add_option("--opponent-cmd", a->opponent_cmd, "Engine command line (run by /bin/sh -c), speaking GTP");
  ext->add_option("--agent", a->agent, "Our agent: file (.toml) or built-in (swh, random)");
  ext->add_option("--games", a->games, "Games (pairs of openings, colours swapped)")->check(CLI::Range(1, 10000000));
  ext->add_option("--move-timeout", a->move_timeout, "Seconds the engine may take per command")
      ->check(CLI::Range(0.01, 86400.0));
  ext->add_option("--max-restarts", a->max_restarts, "Engine restarts allowed before giving up")
      ->check(CLI::Range(0, 1000000));
  ext->add_option("--seed", a->seed, "Seed of the openings and of the agent's random moves");
  ext->add_option("--openings-data", a->openings_data, "Game records whose first moves are the openings")->take_all();
  ext->add_option("--opening-moves", a->opening_moves, "Moves of each opening")->check(CLI::Range(0, 50));
  cmd->callback([a] { run_match_command(*a); });
}

}  // namespace ef::app
