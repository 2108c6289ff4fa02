// evalforge solve FILE.obf: the exact score and a best move of every position of an obf file,
// with nodes, time and nodes/s, checked against the scores the file lists.
//
// Positions are solved in parallel, one position per thread at a time, and printed in file
// order once all are done: scores, moves and node counts are the same for any thread count;
// only the time columns vary (--no-timing leaves them out, making the output byte-identical).
#include <fmt/core.h>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>
#include "app/commands.hpp"
#include "evalforge/core/parallel.hpp"
#include "data/games.hpp"
#include "evalforge/core/error.hpp"
#include "evalforge/games/squares.hpp"
#include "evalforge/search/endgame.hpp"

namespace ef::app {

namespace {

struct SolveArgs {
  std::string file;
  int threads = 0;
  int empties_limit = 30;
  int table_bits = 20;
  bool no_timing = false;
};

struct Solved {
  bool skipped = true;
  int empties = 0;
  search::SolveResult result;
  double seconds = 0;
};

std::string move_name(int move) {
  if (move == search::kPassMove) return "pass";
  if (move < 0) return "-";
  return square_name(move);
}

double per_second(double count, double seconds) { return seconds > 0 ? count / seconds : 0.0; }

void run_solve(const SolveArgs& args) {
  const std::vector<data::ObfPosition> positions = data::read_obf(args.file);  // throws file:line: what
  if (positions.empty()) fail("{}: no positions (obf lines: 64 squares, side to move, move:score entries)", args.file);

  std::vector<Solved> solved(positions.size());
  std::atomic<std::size_t> next{0};
  // Each thread owns a transposition table; every solve starts it afresh (a new stamp), so a
  // position's node count does not depend on which thread solved it or what it solved before.
  const auto worker = [&] {
    std::vector<search::endgame::HashEntry> entries(args.table_bits ? std::size_t{1} << args.table_bits : 0);
    search::endgame::HashTable table{entries.data(), entries.empty() ? 0 : entries.size() - 1, 0};
    for (std::size_t i; (i = next.fetch_add(1)) < positions.size();) {
      const data::ObfPosition& pos = positions[i];
      const othello::Board board = othello::Board::from_colors(pos.black, pos.white, pos.side);
      Solved& out = solved[i];
      out.empties = board.empties();
      if (out.empties > args.empties_limit) continue;
      const auto t0 = std::chrono::steady_clock::now();
      out.result = search::solve_endgame(board.player, board.opponent, -64, 64, entries.empty() ? nullptr : &table);
      out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      out.skipped = false;
    }
  };
  const unsigned hardware = std::max(1u, std::thread::hardware_concurrency());
  const std::size_t threads =
      std::min<std::size_t>(args.threads > 0 ? static_cast<std::size_t>(args.threads) : hardware, positions.size());
  const auto t0 = std::chrono::steady_clock::now();
  run_parallel(static_cast<int>(threads), worker);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  if (args.no_timing)
    fmt::print("{:>5} {:>7} {:>4} {:>6} {:>5} {:>10} {:>14}\n", "line", "empties", "side", "score", "move", "file",
               "nodes");
  else
    fmt::print("{:>5} {:>7} {:>4} {:>6} {:>5} {:>10} {:>14} {:>9} {:>12}\n", "line", "empties", "side", "score", "move",
               "file", "nodes", "seconds", "nodes/s");
  std::size_t done = 0, skipped = 0, mismatches = 0;
  u64 nodes = 0;
  double solve_seconds = 0;
  for (std::size_t i = 0; i < positions.size(); ++i) {
    const data::ObfPosition& pos = positions[i];
    const Solved& s = solved[i];
    const char* side = pos.side == othello::kBlack ? "X" : "O";
    if (s.skipped) {
      ++skipped;
      fmt::print("{:>5} {:>7} {:>4} {:>6} {:>5}   skipped: more than {} empties (--empties-limit)\n", pos.line,
                 s.empties, side, "", "", args.empties_limit);
      continue;
    }
    ++done;
    nodes += s.result.nodes;
    solve_seconds += s.seconds;
    // Check: the file's best listed score, and the listed score of the move chosen here.
    std::string check = "-";
    const int listed_best = pos.best_score();
    if (listed_best != data::kNoScore) {
      bool ok = listed_best == s.result.score;
      for (const auto& [square, score] : pos.move_scores)
        if (square == s.result.best_move && score != s.result.score) ok = false;
      check = fmt::format("{:+d} {}", listed_best, ok ? "ok" : "BAD");
      if (!ok) ++mismatches;
    }
    if (args.no_timing)
      fmt::print("{:>5} {:>7} {:>4} {:>+6} {:>5} {:>10} {:>14}\n", pos.line, s.empties, side, s.result.score,
                 move_name(s.result.best_move), check, s.result.nodes);
    else
      fmt::print("{:>5} {:>7} {:>4} {:>+6} {:>5} {:>10} {:>14} {:>9.3f} {:>12.0f}\n", pos.line, s.empties, side,
                 s.result.score, move_name(s.result.best_move), check, s.result.nodes, s.seconds,
                 per_second(static_cast<double>(s.result.nodes), s.seconds));
  }
  fmt::print("solved {} of {} positions ({} skipped), {} nodes", done, positions.size(), skipped, nodes);
  if (!args.no_timing)
    fmt::print(", {:.3f} s solving ({:.0f} nodes/s per thread), {:.3f} s wall on {} threads", solve_seconds,
               per_second(static_cast<double>(nodes), solve_seconds), wall, threads);
  fmt::print("\n");
  if (mismatches) fail("{}: {} of {} solved positions disagree with the scores the file lists", args.file, mismatches, done);
}

}  // namespace

void register_solve(CLI::App& app) {
  auto args = std::make_shared<SolveArgs>();
  CLI::App* cmd = app.add_subcommand("solve", "Solve Othello endgame positions (obf file) exactly: score, best move, nodes");
  cmd->add_option("file", args->file, "obf file: one position a line, '<64 squares> <X|O>; move:score; ...'")
      ->required();
  cmd->add_option("--threads", args->threads, "Positions solved in parallel (0: all cores); results do not depend on it")
      ->check(CLI::Range(0, 4096))
      ->capture_default_str();
  cmd->add_option("--empties-limit", args->empties_limit,
                  "Skip positions with more empty squares (the solve time grows ~3-4x per empty)")
      ->check(CLI::Range(0, 60))
      ->capture_default_str();
  cmd->add_option("--table-bits", args->table_bits,
                  "Transposition table of 2^B entries (24 bytes each) per thread; 0: none. Node counts depend on it")
      ->check(CLI::Range(0, 30))
      ->capture_default_str();
  cmd->add_flag("--no-timing", args->no_timing, "Leave out the time columns (output then identical for any thread count)");
  cmd->callback([args] { run_solve(*args); });
}

}  // namespace ef::app
