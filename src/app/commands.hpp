// Each subcommand lives in its own file and registers itself on the CLI11 app here.
// A command's callback throws ef::Error for user errors; main() prints it and exits 2.
#pragma once
#include <fmt/core.h>
#include <CLI/CLI.hpp>
#include <cstdio>
#include <string>
#include "evalforge/core/error.hpp"
#include "evalforge/core/run_dir.hpp"
#include "evalforge/ga/island_team.hpp"
#include "runs/run_kinds.hpp"

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
void register_ordering(CLI::App& app);
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

// What every run command (search, evolve, match, tournament, hex match, hex tune) gives its run
// loop: the threads, progress lines to stderr (none when `quiet`), --accept-config-edits, and
// Ctrl-C / SIGTERM as a stop request (the signals are installed here): the loop finishes the
// step in flight, writes its checkpoint and returns.
inline void set_run_options(RunOptions& o, int threads, bool accept_config_edits, bool quiet = false) {
  o.threads = threads;
  if (!quiet) o.progress = print_progress_line;
  o.stop_requested = ef::stop_requested;
  o.accept_config_edits = accept_config_edits;
  install_stop_signals();
}

// How a user continues a run of `kind` (search, evolve) in `dir`: under a launcher, with any
// rank count ("mpirun -np R evalforge evolve --resume DIR (any R)"); else as one process.
inline std::string mpi_resume_command(RunKind kind, const std::string& dir) {
  return "mpirun -np R " + resume_command(kind, dir) + " (any R)";
}
inline std::string resume_hint(RunKind kind, const std::string& dir) {
  return ga::launcher_world_size() > 1 ? mpi_resume_command(kind, dir) : resume_command(kind, dir);
}

// A binary built without MPI started by a launcher with several ranks: every rank would write
// the same run directory, so it refuses at once (docs/scale-out.md, "Build").
inline void refuse_ranks_without_mpi(int launched) {
  if (launched > 1)
    fail(
        "started as one of {} MPI ranks, but this evalforge was built without MPI (install libopenmpi-dev and "
        "reconfigure); run it without mpirun",
        launched);
}

// Exit status of a run stopped by SIGINT/SIGTERM after its checkpoint (128 + SIGINT, as a shell
// reports a Ctrl-C'd command): scripts can tell "stopped, resumable" from done (0) and error (2).
inline constexpr int kStoppedExitStatus = 130;

}  // namespace ef::app
