// The Hex subcommands that talk GTP to external engines:
//   hex external   one of our players against a Hex GTP engine run as a child process (MoHex,
//                  benzene, `evalforge gtp --game hex`), colours alternating, forfeits as in
//                  `match --opponent-cmd`; prints our score with a 95% Wilson interval.
// (The engine side is `evalforge gtp --game hex`, cmd_gtp.cpp; docs/hex-gtp.md.)
#include <fmt/core.h>
#include <iostream>
#include <memory>
#include "app/commands.hpp"
#include "evalforge/core/error.hpp"
#include "evalforge/core/files.hpp"
#include "evalforge/core/memory_check.hpp"
#include "evalforge/ratings/ratings.hpp"
#include "games/hex/external_match.hpp"
#include "games/hex/gtp_engine.hpp"

namespace ef::app {

namespace {

struct HexExternalArgs {
  std::string a = "uct";
  play::HexExternalOptions options;
  std::string out;
};

// One line a game: the moves, the winner, and who we were (and the forfeit) after '#'.
std::string transcript(const std::vector<play::HexExternalGame>& games) {
  std::string t;
  for (const auto& g : games) {
    std::string moves;
    for (const int m : g.moves) {
      if (!moves.empty()) moves += ' ';
      moves += play::hex_gtp_cell(m);
    }
    t += fmt::format("{} {}  # ours {}{}\n", moves, g.winner == hex::kBlack ? "B+" : "W+",
                     g.agent_black ? "black" : "white", g.completed ? "" : ", forfeit: " + g.error);
  }
  return t;
}

void run_hex_external(const HexExternalArgs& a) {
  const play::HexPlayer player = play::parse_hex_player(a.a);
  fmt::print(stderr, "{}\n",
             check_memory("hex external", {play::hex_tree_memory({&player}, a.options.size, 1)},
                          "fewer UCT playouts (playouts=N in the player spec)"));
  std::vector<play::HexExternalGame> games;
  try {
    play::play_hex_external_match(player, a.options, games, &std::cout);
  } catch (const ef::Error&) {
    // Too many restarts (or an engine that stopped being startable): the games so far still count.
    if (!a.out.empty() && !games.empty()) {
      write_atomically(a.out, transcript(games));
      fmt::print(stderr, "{}: the {} games played before the error\n", a.out, games.size());
    }
    throw;
  }
  if (!a.out.empty()) write_atomically(a.out, transcript(games));
  std::vector<ratings::GameResult> results;
  int forfeits = 0;
  for (const auto& g : games) {
    results.push_back({0, 1, g.agent_won() ? 1.0 : 0.0});
    forfeits += !g.completed;
  }
  if (results.empty()) return;
  const auto si = ratings::expected_score_interval(results, 2, 0);
  fmt::print("{} vs '{}' on {}x{}{}: {} games, wins {} losses {} (forfeits by the engine: {})\n", player.spec,
             a.options.command, a.options.size, a.options.size, a.options.swap ? " with swap" : "", si.games, si.wins,
             si.losses, forfeits);
  fmt::print("score {:.3f}  95% interval [{:.3f}, {:.3f}] (Wilson)\n", si.mean, si.low95, si.high95);
}

}  // namespace

void register_hex_external(CLI::App& hex) {
  auto a = std::make_shared<HexExternalArgs>();
  auto* cmd = hex.add_subcommand("external",
                                 "Our player against an external Hex GTP engine (colours alternating, "
                                 "ours Black in even games; forfeits for misbehaving engines)");
  cmd->add_option("--a", a->a,
                  "Our player: random | ev[:...] | resistance[:depth=D] | uct[:playouts=P,...] | vcab[:depth=D,...]")
      ->capture_default_str();
  cmd->add_option("--opponent-cmd", a->options.command, "Engine command line (run by /bin/sh -c), speaking Hex GTP")
      ->required();
  cmd->add_option("--games", a->options.games, "Games")->check(CLI::Range(1, 10000000))->capture_default_str();
  cmd->add_option("--size", a->options.size, "Board side")->check(CLI::Range(1, 13))->capture_default_str();
  cmd->add_flag("--swap", a->options.swap, "Play with the swap rule (the engine is sent `param_game allow_swap 1`)");
  cmd->add_option("--opponent-setup", a->options.setup,
                  "A GTP command for the engine after boardsize, at every start (repeatable), e.g. "
                  "'param_mohex max_time 0.5'");
  cmd->add_option("--move-timeout", a->options.move_timeout_s, "Seconds the engine may take per command")
      ->check(CLI::Range(0.01, 86400.0))
      ->capture_default_str();
  cmd->add_option("--max-restarts", a->options.max_restarts, "Engine restarts allowed before giving up")
      ->check(CLI::Range(0, 1000000))
      ->capture_default_str();
  cmd->add_option("--seed", a->options.seed, "Seed of our player's random draws")->capture_default_str();
  cmd->add_option("--out", a->out, "Transcript file: one game a line (moves, winner, our colour, forfeit)");
  cmd->callback([a] { run_hex_external(*a); });
}

}  // namespace ef::app
