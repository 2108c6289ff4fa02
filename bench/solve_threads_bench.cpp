// The exact solver on one position at a time, one thread against all of them: per FFO position
// and in total, nodes, CPU seconds and wall seconds of
//  - "1 thread": search::solve_endgame, the one-thread solver (what `evalforge solve` ran on
//    each position before the split search; the baseline, unchanged by it), and
//  - "T threads": search::ParallelSolve (solve_parallel.hpp) on T threads, T = 2 .. --threads,
// with the built-in ordering network, a 2^22-entry table, in the same process, the
// configurations interleaved position by position and repeated (--repeat, default 3); every
// figure is the median of the repetitions. Ratios: wall and CPU of T threads over 1 thread.
// Every score and move is checked against the file; a wrong one ends the run with status 1.
//
// Usage: solve_threads_bench [--threads T (default: all cores)] [--repeat R] [--file OBF]
//                            [--first N --last M (FFO numbers, default 20..39)]
//                            [--split-empties E (smallest nodes split, default kSplitEmpties)]
// The obf file defaults to $EF_SHARED_DATA_DIR/othello/fforum-20-39.obf, else ../shared/data
// next to the project.
#include <fmt/core.h>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>
#include "backends/cpu/endgame_solver.hpp"
#include "backends/cpu/network_eval.hpp"
#include "bench_util.hpp"
#include "core/cpu_time.hpp"
#include "evalforge/data/games.hpp"
#include "evalforge/games/othello/agent_file.hpp"
#include "evalforge/games/othello/endgame.hpp"
#include "evalforge/games/othello/squares.hpp"
#include "games/othello/solve_parallel.hpp"

using namespace ef;

namespace {

constexpr int kTableBits = 22;

struct Run {
  u64 nodes = 0;
  double cpu = 0, wall = 0;
};

[[noreturn]] void usage(const char* what) {
  fmt::print(stderr,
             "solve_threads_bench: {}\nusage: solve_threads_bench [--threads T] [--repeat R] [--file OBF] "
             "[--first N] [--last M] [--split-empties E]\n",
             what);
  std::exit(2);
}

int int_arg(int& i, int argc, char** argv) {
  if (i + 1 >= argc) usage(fmt::format("{} needs a value", argv[i]).c_str());
  char* end = nullptr;
  const long v = std::strtol(argv[++i], &end, 10);
  if (*end || v < 1 || v > 4096)
    usage(fmt::format("{} {}: expected a number from 1 to 4096", argv[i - 1], argv[i]).c_str());
  return static_cast<int>(v);
}

}  // namespace

int main(int argc, char** argv) {
  int threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  int repeat = 3, first = 20, last = 39, split_empties = search::endgame::kSplitEmpties;
  std::filesystem::path file;
  if (const char* dir = std::getenv("EF_SHARED_DATA_DIR"))
    file = std::filesystem::path(dir) / "othello/fforum-20-39.obf";
  else
    file = std::filesystem::path(__FILE__).parent_path() / "../../shared/data/othello/fforum-20-39.obf";
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--threads"))
      threads = int_arg(i, argc, argv);
    else if (!std::strcmp(argv[i], "--repeat"))
      repeat = int_arg(i, argc, argv);
    else if (!std::strcmp(argv[i], "--first"))
      first = int_arg(i, argc, argv);
    else if (!std::strcmp(argv[i], "--last"))
      last = int_arg(i, argc, argv);
    else if (!std::strcmp(argv[i], "--split-empties"))
      split_empties = int_arg(i, argc, argv);
    else if (!std::strcmp(argv[i], "--file") && i + 1 < argc)
      file = argv[++i];
    else
      usage(fmt::format("unknown argument {}", argv[i]).c_str());
  }
  if (!std::filesystem::exists(file)) {
    fmt::print("solve_threads_bench: {} not found (set EF_SHARED_DATA_DIR); nothing measured\n", file.string());
    return 0;
  }
  std::vector<data::ObfPosition> positions;
  for (const data::ObfPosition& p : data::read_obf(file)) {
    const int number = static_cast<int>(p.line) + 19;  // FFO numbers of fforum-20-39.obf
    if (number >= first && number <= last) positions.push_back(p);
  }
  const auto network = std::filesystem::path(__FILE__).parent_path() / "../networks/ordering/edax.toml";
  const play::OthelloAgent agent = play::load_agent(network.string());
  const cpu::SolverOrdering order(agent.ntuple_evaluator());
  std::vector<search::endgame::HashEntry> entries(std::size_t{1} << kTableBits);
  search::endgame::HashTable table{entries.data(), entries.size() - 1, 0};

  std::vector<int> configs;  // thread counts; 1 = solve_endgame
  for (int t = 1; t <= threads; ++t) configs.push_back(t);
  // runs[config][position][repetition]
  std::vector<std::vector<std::vector<Run>>> runs(configs.size(), std::vector<std::vector<Run>>(positions.size()));
  for (int r = 0; r < repeat; ++r) {
    for (std::size_t i = 0; i < positions.size(); ++i) {
      const othello::Board b = othello::Board::from_colors(positions[i].black, positions[i].white, positions[i].side);
      for (std::size_t c = 0; c < configs.size(); ++c) {
        // The machine code `evalforge solve` runs (backends/cpu/endgame_solver.hpp).
        const auto split = cpu::make_endgame_solver(configs[c], &table, &order, split_empties);
        const auto t0 = std::chrono::steady_clock::now();
        const double c0 = thread_cpu_seconds();
        const search::SolveResult res = split->solve(b.player, b.opponent);  // 1 thread: solve_endgame
        Run run;
        run.cpu = thread_cpu_seconds() - c0 + split->helper_cpu_seconds();
        run.wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        run.nodes = res.nodes;
        bool ok = res.score == positions[i].best_score();
        for (const auto& [square, score] : positions[i].move_scores)
          if (square == res.best_move && score != res.score) ok = false;
        if (!ok) {
          fmt::print("FFO #{} on {} threads: score {} move {}, the file says {}: WRONG\n", positions[i].line + 19,
                     configs[c], res.score, square_name(res.best_move), positions[i].best_score());
          return 1;
        }
        runs[c][i].push_back(run);
      }
    }
  }

  fmt::print(
      "# solve_threads_bench: FFO #{}-#{}, built-in ordering network, 2^{}-entry table, nodes of {}+ "
      "empties split, median of {} interleaved runs, solver code {}\n# CPU: {} ({} hardware threads)\n",
      first, last, kTableBits, split_empties, repeat, cpu::solver_isa_name(cpu::default_solver_isa()),
      bench::cpu_model(), std::thread::hardware_concurrency());
  fmt::print("{:>5} {:>7}", "FFO", "empties");
  for (const int t : configs) fmt::print(" | {:>2}T nodes {:>8} {:>8}", t, "cpu s", "wall s");
  fmt::print("\n");
  std::vector<Run> total(configs.size());
  for (std::size_t i = 0; i < positions.size(); ++i) {
    const othello::Board b = othello::Board::from_colors(positions[i].black, positions[i].white, positions[i].side);
    fmt::print("{:>5} {:>7}", positions[i].line + 19, b.empties());
    for (std::size_t c = 0; c < configs.size(); ++c) {
      std::vector<double> nodes, cpu, wall;
      for (const Run& r : runs[c][i]) {
        nodes.push_back(static_cast<double>(r.nodes));
        cpu.push_back(r.cpu);
        wall.push_back(r.wall);
      }
      const Run m{static_cast<u64>(bench::median(nodes)), bench::median(cpu), bench::median(wall)};
      total[c].nodes += m.nodes;
      total[c].cpu += m.cpu;
      total[c].wall += m.wall;
      fmt::print(" | {:>11} {:>8.3f} {:>8.3f}", m.nodes, m.cpu, m.wall);
    }
    fmt::print("\n");
  }
  fmt::print("{:>13}", "total");
  for (const Run& t : total) fmt::print(" | {:>11} {:>8.3f} {:>8.3f}", t.nodes, t.cpu, t.wall);
  fmt::print("\n");
  for (std::size_t c = 1; c < configs.size(); ++c)
    fmt::print("{} threads / 1 thread: wall {:.3f}x, CPU {:.3f}x, nodes {:.3f}x\n", configs[c],
               total[c].wall / total[0].wall, total[c].cpu / total[0].cpu,
               static_cast<double>(total[c].nodes) / static_cast<double>(total[0].nodes));
  return 0;
}
