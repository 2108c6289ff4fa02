// evalforge gtp --agent FILE|swh|random [--seed N]: plays an agent as a GTP engine on stdin and
// stdout, for GTP match programs and GUIs (and `match --opponent-cmd`).
//
// stdout carries the protocol only; anything else (errors) goes to stderr. An agent that cannot
// be loaded is an ef::Error before the first command is read (exit status 2).
#include <iostream>
#include <memory>
#include <string>
#include "app/commands.hpp"
#include "evalforge/core/rng.hpp"
#include "play/agent_file.hpp"
#include "play/gtp_engine.hpp"

namespace ef::app {

namespace {

struct GtpArgs {
  std::string agent;
  u64 seed = 1;
  int table_bits = 20;
};

void run_gtp(const GtpArgs& args) {
  const play::Agent agent = play::load_agent(args.agent);
  play::GtpEngine engine(agent, args.seed, args.table_bits);
  // The controller waits on each response: no buffering beyond the flush after each one.
  std::ios::sync_with_stdio(false);
  engine.run(std::cin, std::cout);
}

}  // namespace

void register_gtp(CLI::App& app) {
  auto args = std::make_shared<GtpArgs>();
  CLI::App* cmd = app.add_subcommand("gtp", "Play an agent as a GTP engine on stdin/stdout (8x8 Othello, vertices a1..h8)");
  cmd->add_option("--agent", args->agent, "Agent file (.toml), or a built-in: swh, random")->required();
  cmd->add_option("--seed", args->seed, "Seed of the agent's random draws (the same seed and commands give the same moves)")
      ->capture_default_str();
  cmd->add_option("--table-bits", args->table_bits,
                  "Endgame transposition table of 2^B entries (24 bytes each)")
      ->check(CLI::Range(1, 30))
      ->capture_default_str();
  cmd->callback([args] { run_gtp(*args); });
}

}  // namespace ef::app
