// evalforge perft DEPTH: leaf counts from the start position (a pass counted as a move).
#include <fmt/core.h>
#include <chrono>
#include "app/commands.hpp"
#include "evalforge/core/error.hpp"
#include "evalforge/games/othello/bitboard.hpp"

namespace ef::app {

void register_perft(CLI::App& app) {
  auto* cmd = app.add_subcommand("perft", "Count leaves of the Othello game tree from the start position");
  auto depth = std::make_shared<int>(9);
  auto all = std::make_shared<bool>(false);
  cmd->add_option("depth", *depth, "Depth in plies (a pass counts as a ply)")->check(CLI::Range(1, 20));
  cmd->add_flag("--all", *all, "Print every depth from 1 to DEPTH");
  cmd->callback([depth, all] {
    fmt::print("{:>5} {:>16} {:>10} {:>14}\n", "depth", "leaves", "seconds", "leaves/s");
    for (int d = *all ? 1 : *depth; d <= *depth; ++d) {
      const auto t0 = std::chrono::steady_clock::now();
      const u64 n = othello::perft(othello::kStartBlack, othello::kStartWhite, d);
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      fmt::print("{:>5} {:>16} {:>10.3f} {:>14.0f}\n", d, n, s, s > 0 ? n / s : 0.0);
    }
  });
}

}  // namespace ef::app
