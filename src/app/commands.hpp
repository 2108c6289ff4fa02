// Each subcommand lives in its own file and registers itself on the CLI11 app here.
// A command's callback throws ef::Error for user errors; main() prints it and exits 2.
#pragma once
#include <fmt/core.h>
#include <CLI/CLI.hpp>
#include <cstdio>
#include <string>

namespace ef::app {

void register_perft(CLI::App& app);
void register_data(CLI::App& app);
// Adds `data generate` to the `data` subcommand: call after register_data().
void register_data_generate(CLI::App& app);
// Adds `data fetch` to the `data` subcommand: call after register_data().
void register_data_fetch(CLI::App& app);
void register_score(CLI::App& app);
void register_search(CLI::App& app);
void register_report(CLI::App& app);
void register_solve(CLI::App& app);
void register_verify(CLI::App& app);
void register_gtp(CLI::App& app);
void register_probcut(CLI::App& app);
void register_league(CLI::App& app);
void register_match(CLI::App& app);
void register_tournament(CLI::App& app);
void register_evolve(CLI::App& app);
void register_tictactoe(CLI::App& app);
void register_hex(CLI::App& app);
// Adds the GTP-engine subcommands of `hex` (cmd_hex_gtp.cpp): called by register_hex.
void register_hex_external(CLI::App& hex);

// Thrown by a command that has printed its own message and ends with this exit status
// (e.g. `verify`: 1 when the backends differ, 4 without a CUDA device).
struct ExitStatus {
  int code;
};

// The sink of a run's progress lines (core/run_dir.hpp LineSink): stderr, so that stdout holds
// only a command's results and can be piped.
inline void print_progress_line(const std::string& line) { fmt::print(stderr, "{}\n", line); }

// Exit status of a run stopped by SIGINT/SIGTERM after its checkpoint (128 + SIGINT, as a shell
// reports a Ctrl-C'd command): scripts can tell "stopped, resumable" from done (0) and error (2).
inline constexpr int kStoppedExitStatus = 130;

}  // namespace ef::app
