// Each subcommand lives in its own file and registers itself on the CLI11 app here.
// A command's callback throws ef::Error for user errors; main() prints it and exits 2.
#pragma once
#include <CLI/CLI.hpp>

namespace ef::app {

void register_perft(CLI::App& app);
void register_data(CLI::App& app);
// Adds `data generate` to the `data` subcommand: call after register_data().
void register_data_generate(CLI::App& app);
void register_score(CLI::App& app);
void register_search(CLI::App& app);
void register_report(CLI::App& app);
void register_solve(CLI::App& app);
void register_verify(CLI::App& app);
void register_gtp(CLI::App& app);
void register_league(CLI::App& app);
void register_match(CLI::App& app);
void register_tournament(CLI::App& app);

// Thrown by a command that has printed its own message and ends with this exit status
// (e.g. `verify`: 1 when the backends differ, 4 without a CUDA device).
struct ExitStatus {
  int code;
};

}  // namespace ef::app
