// evalforge gtp --agent FILE|swh|random [--seed N] [--move-time S | --game-time S]: plays an
// agent as a GTP engine on stdin and stdout, for GTP match programs and GUIs (and
// `match --opponent-cmd`). Without a time limit the agent searches to its fixed depth.
// evalforge gtp --game hex --agent SPEC [--size N] [--swap] [--seed N]: the same for Hex, with a
// Hex player spec (uct, vcab, ev, resistance, random: games/hex/player_spec.hpp; docs/hex-gtp.md), for Hex
// GUIs and controllers (and `hex external`).
// evalforge gtp --game tictactoe --agent FILE|perfect|random|static [--seed N]: the same for
// Tic-Tac-Toe, with a Tic-Tac-Toe agent file (games/tictactoe/agent_file.hpp; docs/tictactoe.md,
// "Playing a network").
//
// stdout carries the protocol only; anything else (errors) goes to stderr. An agent that cannot
// be loaded is an ef::Error before the first command is read (exit status 2).
#include <cmath>
#include <iostream>
#include <memory>
#include <string>
#include "app/commands.hpp"
#include "evalforge/core/error.hpp"
#include "evalforge/core/memory_check.hpp"
#include "evalforge/core/rng.hpp"
#include "evalforge/games/othello/agent_file.hpp"
#include "evalforge/games/tictactoe/agent_file.hpp"
#include "games/hex/gtp_engine.hpp"
#include "games/hex/player_spec.hpp"
#include "games/othello/gtp_engine.hpp"
#include "games/tictactoe/gtp_engine.hpp"

namespace ef::app {

namespace {

struct GtpArgs {
  std::string game = "othello";
  std::string agent;
  u64 seed = 1;
  int table_bits = 20;
  play::TimeControl time;
  int size = 11;
  bool swap = false;
  bool size_given = false;
};

void run_hex_gtp(const GtpArgs& args) {
  const play::HexPlayer player = play::parse_hex_player(args.agent);
  // Before the engine answers anything: a UCT player whose tree cannot fit is refused, as hex
  // match refuses it (the estimate's line is not printed: stdout is the protocol's).
  (void)check_memory("gtp --game hex", {play::hex_tree_memory({&player}, args.size, 1)},
                     "fewer UCT playouts (playouts=N in the player spec)");
  play::HexGtpEngine engine(player, args.size, args.swap, args.seed);
  std::ios::sync_with_stdio(false);
  engine.run(std::cin, std::cout);
}

void run_tictactoe_gtp(const GtpArgs& args) {
  const play::TicTacToeAgent agent = play::load_tictactoe_agent(args.agent);
  play::TttGtpEngine engine(agent, args.seed);
  std::ios::sync_with_stdio(false);
  engine.run(std::cin, std::cout);
}

void run_gtp(const GtpArgs& args) {
  if (args.time.timed() && args.game != "othello") fail("gtp: --move-time and --game-time are for Othello");
  if (args.game == "hex") return run_hex_gtp(args);
  if (args.size_given || args.swap) fail("gtp: --size and --swap are for --game hex");
  if (args.game == "tictactoe") return run_tictactoe_gtp(args);
  const play::OthelloAgent agent = play::load_agent(args.agent);
  (void)check_memory(
      "gtp",
      {{fmt::format("endgame table (2^{} entries x {} B)", args.table_bits, sizeof(search::endgame::HashEntry)),
        std::ldexp(1.0, args.table_bits) * sizeof(search::endgame::HashEntry)}},
      "a smaller --table-bits");
  play::GtpEngine engine(agent, args.seed, args.table_bits, args.time);
  // The controller waits on each response: no buffering beyond the flush after each one.
  std::ios::sync_with_stdio(false);
  engine.run(std::cin, std::cout);
}

}  // namespace

void register_gtp(CLI::App& app) {
  auto args = std::make_shared<GtpArgs>();
  CLI::App* cmd = app.add_subcommand(
      "gtp",
      "Play an agent as a GTP engine on stdin/stdout (8x8 Othello, vertices a1..h8; or Hex with --game hex, "
      "Tic-Tac-Toe with --game tictactoe)");
  cmd->add_option("--game", args->game, "othello, hex or tictactoe")
      ->check(CLI::IsMember({"othello", "hex", "tictactoe"}))
      ->capture_default_str();
  cmd->add_option(
         "--agent", args->agent,
         "Othello: agent file (.toml), or a built-in: swh, random. Hex: a player spec, e.g. uct:playouts=1000, "
         "vcab:depth=3, ev, resistance:depth=1, random. Tic-Tac-Toe: agent file (.toml), or a built-in: perfect, "
         "random, static")
      ->required();
  auto* size = cmd->add_option("--size", args->size, "Hex: the board side at the start (boardsize changes it)")
                   ->check(CLI::Range(1, 13))
                   ->capture_default_str();
  cmd->add_flag("--swap", args->swap, "Hex: play with the swap (pie) rule (param_game allow_swap changes it)");
  cmd->add_option("--seed", args->seed,
                  "Seed of the agent's random draws (the same seed and commands give the same moves)")
      ->capture_default_str();
  cmd->add_option("--table-bits", args->table_bits, "Endgame transposition table of 2^B entries (24 bytes each)")
      ->check(CLI::Range(1, 30))
      ->capture_default_str();
  cmd->add_option("--move-time", args->time.move_seconds,
                  "Othello: seconds per move; the midgame search deepens until they are spent (default: the agent's "
                  "fixed depth). GTP's time_settings/time_left override it")
      ->check(CLI::Range(0.0, 1e6));
  cmd->add_option("--game-time", args->time.game_seconds,
                  "Othello: seconds for all of the engine's moves in a game, shared out move by move")
      ->check(CLI::Range(0.0, 1e6));
  cmd->callback([args, size] {
    args->size_given = size->count() > 0;
    run_gtp(*args);
  });
}

}  // namespace ef::app
