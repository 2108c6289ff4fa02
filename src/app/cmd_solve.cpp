// evalforge solve FILE.obf: the exact score and a best move of every position of an obf file,
// with nodes, time and nodes/s, checked against the scores the file lists.
//
// --threads T threads in all, used two ways: positions side by side (each solved by its own
// thread, perfect scaling), and the threads of one position's search split between them
// (solve_parallel.hpp, YBWC) -- --threads-per-position K. By default positions go side by side
// first and the threads left over split them: 1 position on 8 threads gets all 8, 20 positions
// on 8 threads get one each. Results are printed in file order once all are done. Scores and
// moves never depend on T or K; node counts do not depend on T while K = 1 (--no-timing then
// leaves only columns that are byte-identical for any T), but vary from run to run with K > 1.
// Time is given as wall seconds and as CPU seconds (the solving threads', summed), and rates
// per CPU second: on a loaded machine the wall-clock rate understates the solver's speed.
//
// Move ordering uses an n-tuple network (--ordering): by default the built-in one in
// networks/ordering/ (docs/search.md; scripts/make-ordering-network.sh rebuilds it), any agent
// file with an n-tuple network, or none. Scores and moves do not depend on it; nodes do.
#include <fmt/core.h>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>
#include "app/commands.hpp"
#include "app/options.hpp"
#include "backends/cpu/endgame_solver.hpp"
#include "backends/cpu/network_eval.hpp"
#include "core/cpu_time.hpp"
#include "core/parallel.hpp"
#include "evalforge/core/error.hpp"
#include "evalforge/core/memory_check.hpp"
#include "evalforge/data/datasets.hpp"
#include "evalforge/data/games.hpp"
#include "evalforge/games/othello/agent_file.hpp"
#include "evalforge/games/othello/endgame.hpp"
#include "evalforge/games/othello/squares.hpp"

namespace ef::app {

namespace {

struct SolveArgs {
  std::string file;
  int threads = 0;
  int threads_per_position = 0;  // 0: auto
  int empties_limit = 30;
  int table_bits = 20;
  std::string ordering = "auto";
  bool no_timing = false;
};

// --ordering: "auto" (the built-in network when present, else none), "builtin", "none", or an
// agent file with an n-tuple network. The agent is kept alive beside the ordering (its
// evaluator points into it).
struct Ordering {
  play::OthelloAgent agent;
  std::optional<cpu::SolverOrdering> order;
  std::string name = "none";
};

std::unique_ptr<Ordering> load_ordering(const std::string& spec) {
  auto o = std::make_unique<Ordering>();
  if (spec == "none") return o;
  std::string file = spec;
  if (spec == "auto" || spec == "builtin") {
    file = builtin_solver_ordering().string();
    if (!std::filesystem::exists(file)) {
      if (spec == "builtin")
        fail("--ordering builtin: {} is missing (scripts/make-ordering-network.sh rebuilds it)", file);
      fmt::print(stderr,
                 "note: no built-in ordering network at {}; solving with mobility ordering only "
                 "(--ordering FILE to give one)\n",
                 file);
      return o;
    }
  }
  try {
    o->agent = play::load_agent(file);
  } catch (const Error& e) {
    fail("--ordering {}: {} (expected auto, builtin, none, or an n-tuple agent file)", spec, e.what());
  }
  if (o->agent.kind != play::OthelloEvaluator::kNtuple)
    fail("--ordering {}: the agent's evaluator is not an n-tuple network", file);
  o->order.emplace(o->agent.ntuple_evaluator());
  o->name = spec == "auto" || spec == "builtin" ? "built-in network" : file;
  return o;
}

struct Solved {
  bool skipped = true;
  int empties = 0;
  search::SolveResult result;
  double seconds = 0, cpu_seconds = 0;
};

std::string move_name(int move) {
  if (move == search::kPassMove) return "pass";
  if (move < 0) return "-";
  return square_name(move);
}

double per_second(double count, double seconds) { return seconds > 0 ? count / seconds : 0.0; }

void run_solve(const SolveArgs& args) {
  // `ffo` names the FFO test positions (fetched into the cache when missing, data/datasets.hpp).
  const std::filesystem::path file = data::resolve_data_specs({args.file}).front();
  const std::vector<data::ObfPosition> positions = data::read_obf(file);  // throws file:line: what
  if (positions.empty()) fail("{}: no positions (obf lines: 64 squares, side to move, move:score entries)", args.file);

  const std::unique_ptr<Ordering> ordering = load_ordering(args.ordering);
  const cpu::SolverOrdering* order = ordering->order ? &*ordering->order : nullptr;
  std::vector<Solved> solved(positions.size());
  std::atomic<std::size_t> next{0};
  // Threads: `groups` side by side, each of `per_position` threads solving one position at a time.
  const int threads = resolve_threads(args.threads);
  int per_position = args.threads_per_position;
  // Positions the limit lets through: the ones the threads share out.
  const int to_solve = std::max<int>(
      1, static_cast<int>(std::count_if(positions.begin(), positions.end(), [&](const data::ObfPosition& p) {
        return othello::Board::from_colors(p.black, p.white, p.side).empties() <= args.empties_limit;
      })));
  if (per_position == 0) {
    per_position = args.table_bits == 0 ? 1 : threads / std::min(threads, to_solve);
  } else if (per_position > 1 && args.table_bits == 0) {
    fail(
        "--threads-per-position {}: threads splitting one position share its transposition table; "
        "--table-bits 0 leaves none (give --table-bits > 0, or --threads-per-position 1)",
        per_position);
  }
  if (per_position > threads)
    fail("--threads-per-position {} is more than --threads {} ({} cores here when --threads is 0)", per_position,
         threads, resolve_threads(0));
  const int groups = std::min(threads / per_position, to_solve);
  // The solver's machine code (cpu::make_endgame_solver), chosen before any thread starts: a bad
  // EF_SOLVER_ISA fails here.
  const cpu::SolverIsa isa = cpu::default_solver_isa();
  // Each group owns a transposition table; every solve starts it afresh (a new stamp), so with
  // one thread a position the node count does not depend on which group solved it or what it
  // solved before.
  const auto worker = [&] {
    std::vector<search::endgame::HashEntry> entries(args.table_bits ? std::size_t{1} << args.table_bits : 0);
    search::endgame::HashTable table{entries.data(), entries.empty() ? 0 : entries.size() - 1, 0};
    // One thread a position (or no table): ParallelSolve runs solve_endgame itself. The machine
    // code is the fastest copy this CPU runs (cpu::make_endgame_solver).
    const std::unique_ptr<cpu::EndgameSolver> solver = cpu::make_endgame_solver(
        per_position, entries.empty() ? nullptr : &table, order, search::endgame::kSplitEmpties, isa);
    for (std::size_t i; (i = next.fetch_add(1)) < positions.size();) {
      const data::ObfPosition& pos = positions[i];
      const othello::Board board = othello::Board::from_colors(pos.black, pos.white, pos.side);
      Solved& out = solved[i];
      out.empties = board.empties();
      if (out.empties > args.empties_limit) continue;
      const auto t0 = std::chrono::steady_clock::now();
      const double c0 = thread_cpu_seconds();
      out.result = solver->solve(board.player, board.opponent);
      out.cpu_seconds = thread_cpu_seconds() - c0 + solver->helper_cpu_seconds();
      out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      out.skipped = false;
    }
  };
  // One table per group: --table-bits 30 on 16 groups would be 412 GB.
  const double table_bytes =
      args.table_bits ? std::ldexp(1.0, args.table_bits) * sizeof(search::endgame::HashEntry) : 0;
  check_memory("solve",
               {{fmt::format("transposition tables ({} positions at a time x {})", groups, format_bytes(table_bytes)),
                 static_cast<double>(groups) * table_bytes}},
               "a smaller --table-bits, or fewer --threads or more --threads-per-position");
  const auto t0 = std::chrono::steady_clock::now();
  run_parallel(groups, worker);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  if (args.no_timing)
    fmt::print("{:>5} {:>7} {:>4} {:>6} {:>5} {:>10} {:>14}\n", "line", "empties", "side", "score", "move", "file",
               "nodes");
  else
    fmt::print("{:>5} {:>7} {:>4} {:>6} {:>5} {:>10} {:>14} {:>9} {:>9} {:>14}\n", "line", "empties", "side", "score",
               "move", "file", "nodes", "seconds", "cpu s", "nodes/cpu s");
  std::size_t done = 0, skipped = 0, mismatches = 0;
  u64 nodes = 0;
  double solve_seconds = 0, cpu_seconds = 0;
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
    cpu_seconds += s.cpu_seconds;
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
      fmt::print("{:>5} {:>7} {:>4} {:>+6} {:>5} {:>10} {:>14} {:>9.3f} {:>9.3f} {:>14.0f}\n", pos.line, s.empties,
                 side, s.result.score, move_name(s.result.best_move), check, s.result.nodes, s.seconds, s.cpu_seconds,
                 per_second(static_cast<double>(s.result.nodes), s.cpu_seconds));
  }
  fmt::print("solved {} of {} positions ({} skipped), {} nodes, ordering: {}", done, positions.size(), skipped, nodes,
             ordering->name);
  if (!args.no_timing)
    fmt::print(
        ", {:.3f} s CPU solving ({:.0f} nodes/s per CPU second), {:.3f} s solving wall ({:.0f} nodes/s), "
        "{:.3f} s wall on {} threads ({} a position), solver code {}",
        cpu_seconds, per_second(static_cast<double>(nodes), cpu_seconds), solve_seconds,
        per_second(static_cast<double>(nodes), solve_seconds), wall, groups * per_position, per_position,
        cpu::solver_isa_name(isa));
  fmt::print("\n");
  if (mismatches)
    fail("{}: {} of {} solved positions disagree with the scores the file lists", args.file, mismatches, done);
}

}  // namespace

void register_solve(CLI::App& app) {
  auto args = std::make_shared<SolveArgs>();
  CLI::App* cmd =
      app.add_subcommand("solve", "Solve Othello endgame positions (obf file) exactly: score, best move, nodes");
  cmd->add_option("file", args->file,
                  "obf file: one position a line, '<64 squares> <X|O>; move:score; ...'; or ffo (FFO #20-#39, "
                  "data fetch)")
      ->required();
  cmd->add_option("--threads", args->threads,
                  "Threads in all (0: all cores): positions side by side, the rest splitting each position's "
                  "search (--threads-per-position). Scores and moves do not depend on it")
      ->check(CLI::Range(0, 4096))
      ->capture_default_str();
  cmd->add_option("--threads-per-position", args->threads_per_position,
                  "Threads that split one position's search (0: auto, --threads / the number of positions within "
                  "--empties-limit, at least 1). Above 1, node counts vary from run to run; scores and moves do not")
      ->check(CLI::Range(0, 4096))
      ->capture_default_str();
  cmd->add_option("--empties-limit", args->empties_limit,
                  "Skip positions with more empty squares (the solve time grows ~3-4x per empty)")
      ->check(CLI::Range(0, 60))
      ->capture_default_str();
  cmd->add_option("--table-bits", args->table_bits,
                  "Transposition table of 2^B entries (24 bytes each) per position solved at a time; 0: none. Node "
                  "counts depend on it")
      ->check(CLI::Range(0, 30))
      ->capture_default_str();
  cmd->add_option("--ordering", args->ordering,
                  "Move-ordering network: auto (the built-in one when present), builtin, none, or an agent file "
                  "with an n-tuple network. Scores and moves do not depend on it, nodes do")
      ->capture_default_str();
  cmd->add_flag("--no-timing", args->no_timing,
                "Leave out the time columns (output then identical for any --threads, with --threads-per-position 1)");
  cmd->callback([args] { run_solve(*args); });
}

}  // namespace ef::app
