// Search throughput per core:
//  - the exact endgame solver on FFO #20-#39 (each position: time, nodes, nodes/s; and all 20
//    in one run), with mobility ordering only (BM_SolveFforum) and with the built-in ordering
//    network (BM_SolveFforumOrdered; nodes_vs_plain, cpu_s_vs_plain: the ratios to the plain
//    run of the same process; BM_SolveFforumNetworks: the networks retrained on the solver's own
//    trees (edax-tree; edax-shapes, with searched shapes) against the built-in one they were made from,
//    interleaved (BM_SolveNetworks: the same on the .obf file named by $EF_SOLVE_OBF, e.g. a
//    book set from `evalforge data convert logbook --out book21.obf --empties 21 --every 1000 --first 7`);
//    BM_SolveFforumCodeCopies: the solver's baseline, x86-64-v3 and x86-64-v4 machine code, interleaved,
//    backends/cpu/endgame_solver.hpp; BM_SolveFforumHintCeiling: the nodes when the table holds an exact search's best
//    moves, a floor for the ordering), beside Edax's ~36 M nodes/s per core on FFO #40-#42 (docs/anchors.md). Node
//    counts are not comparable one to one (engines count differently, and Edax needs far fewer nodes thanks to its
//    evaluation-guided ordering), so time per position is the figure to compare;
//  - whole games of fixed-depth alpha-beta from random openings, both sides the same evaluator,
//    in games/s at depth 1 and depth 4: SWH, and an Edax-shape n-tuple network (random
//    weights), beside the reference ~13,000 depth-1 and ~120 depth-4 n-tuple games/s per core.
//
// The obf file is found at $EF_SHARED_DATA_DIR/othello/fforum-20-39.obf, else at
// ../shared/data next to the project (from this source file's path). Without it the FFO
// benchmarks are left out with a note.
#include <benchmark/benchmark.h>
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>
#include "backends/cpu/endgame_solver.hpp"
#include "backends/cpu/network_eval.hpp"
#include "core/cpu_time.hpp"
#include "evalforge/core/rng.hpp"
#include "evalforge/data/games.hpp"
#include "evalforge/engine/alphabeta.hpp"
#include "evalforge/games/othello/agent_file.hpp"
#include "evalforge/games/othello/endgame.hpp"
#include "evalforge/games/othello/game.hpp"
#include "evalforge/games/othello/ntuple_evaluator.hpp"
#include "evalforge/games/othello/shape.hpp"
#include "evalforge/games/othello/swh.hpp"

using namespace ef;

namespace {

constexpr double kEdaxNodesPerSecond = 36e6;  // Edax, one core, FFO #40-#42
constexpr double kRefGamesDepth1 = 13000;     // n-tuple games/s per core at depth 1
constexpr double kRefGamesDepth4 = 120;       // n-tuple games/s per core at depth 4
constexpr int kTableBits = 22;                // 2^22 entries, 96 MiB

std::filesystem::path fforum_file() {
  if (const char* dir = std::getenv("EF_SHARED_DATA_DIR"))
    return std::filesystem::path(dir) / "othello/fforum-20-39.obf";
  return std::filesystem::path(__FILE__).parent_path() / "../../shared/data/othello/fforum-20-39.obf";
}

struct Table {
  std::vector<search::endgame::HashEntry> entries =
      std::vector<search::endgame::HashEntry>(std::size_t{1} << kTableBits);
  search::endgame::HashTable view{entries.data(), entries.size() - 1, 0};
};

Table& table() {
  static Table t;
  return t;
}

void add_solver_counters(benchmark::State& state, u64 nodes, double seconds) {
  const double rate = seconds > 0 ? static_cast<double>(nodes) / seconds : 0.0;
  state.counters["nodes"] = static_cast<double>(nodes) / static_cast<double>(state.iterations());
  state.counters["nodes/s"] = rate;
  state.counters["cpu_s/solve"] = seconds / static_cast<double>(state.iterations());
  state.counters["ref_edax_nodes/s"] = kEdaxNodesPerSecond;
  state.counters["ratio_edax"] = rate / kEdaxNodesPerSecond;
}

// An ordering network of networks/ordering/ (docs/search.md) as the solver's evaluator, or null
// when the file is missing.
std::unique_ptr<cpu::SolverOrdering> load_ordering(const char* name) {
  static std::vector<std::unique_ptr<play::OthelloAgent>> agents;  // kept alive for the evaluators
  const auto file = std::filesystem::path(__FILE__).parent_path() / "../networks/ordering" / name;
  if (!std::filesystem::exists(file)) return nullptr;
  agents.push_back(std::make_unique<play::OthelloAgent>(play::load_agent(file.string())));
  return std::make_unique<cpu::SolverOrdering>(agents.back()->ntuple_evaluator());
}
// The built-in one (edax: trained on WTHOR), the one made from it by retraining two of its
// networks on the solver's own trees (edax-tree, `evalforge ordering`), and the one whose two
// networks have shapes searched on those trees' positions (edax-shapes).
const cpu::SolverOrdering* builtin_ordering() {
  static const std::unique_ptr<cpu::SolverOrdering> order = load_ordering("edax.toml");
  return order.get();
}
const cpu::SolverOrdering* tree_ordering() {
  static const std::unique_ptr<cpu::SolverOrdering> order = load_ordering("edax-tree.toml");
  return order.get();
}
const cpu::SolverOrdering* shapes_ordering() {
  static const std::unique_ptr<cpu::SolverOrdering> order = load_ordering("edax-shapes.toml");
  return order.get();
}

// All 20 without the network, for the ratios of the ordered run (measured in the same process).
struct Totals {
  u64 nodes = 0;
  double seconds = 0;
};
Totals plain_totals;

// Solves each position once, adding to `nodes` and `seconds` (CPU); false, with the benchmark
// marked failed, when a score differs from the file's.
// Positions without scores in the file (e.g. from `evalforge data convert --empties`) are
// checked against `seen`, the first solve's scores, when given: every ordering must agree.
bool solve_each(benchmark::State& state, cpu::EndgameSolver& solver, const std::vector<data::ObfPosition>& positions,
                u64& nodes, double& seconds, std::vector<int>* seen = nullptr) {
  if (seen) seen->resize(positions.size(), data::kNoScore);
  for (std::size_t i = 0; i < positions.size(); ++i) {
    const data::ObfPosition& pos = positions[i];
    const othello::Board b = othello::Board::from_colors(pos.black, pos.white, pos.side);
    const double t0 = thread_cpu_seconds();
    const search::SolveResult r = solver.solve(b.player, b.opponent);
    seconds += thread_cpu_seconds() - t0;
    int expected = pos.best_score();
    if (expected == data::kNoScore && seen) {
      if ((*seen)[i] == data::kNoScore) (*seen)[i] = r.score;
      expected = (*seen)[i];
    }
    if (r.score != expected) {
      state.SkipWithError(pos.move_scores.empty() ? "scores differ between orderings" : "score differs from the file");
      return false;
    }
    nodes += r.nodes;
    if (positions.size() == 1) state.counters["empties"] = b.empties();
  }
  return true;
}

// One FFO position (or all of them), checked against the file's best score; with the ordering
// network `order`, or mobility ordering only (null). The solver is the one `evalforge solve`
// runs, in the machine-code copy it runs (backends/cpu/endgame_solver.hpp).
void solve_positions(benchmark::State& state, const std::vector<data::ObfPosition>& positions,
                     const cpu::SolverOrdering* order = nullptr) {
  u64 nodes = 0;
  double seconds = 0;
  const auto solver = cpu::make_endgame_solver(1, &table().view, order);
  for (auto _ : state)
    if (!solve_each(state, *solver, positions, nodes, seconds)) return;
  add_solver_counters(state, nodes, seconds);
  if (positions.size() > 1 && !order) plain_totals = {nodes, seconds};
  if (positions.size() > 1 && order && plain_totals.nodes > 0) {
    state.counters["nodes_vs_plain"] = static_cast<double>(nodes) / static_cast<double>(plain_totals.nodes);
    state.counters["cpu_s_vs_plain"] = seconds / plain_totals.seconds;
  }
}

// How far the ordering is from perfect: each position is solved twice with the built-in
// network (endgame::drive_passes, one thread), the second time with the first solve's best moves
// as the table's hints, without bounds, at every position of `min_empties` empties or more
// (HashTable::carry_moves_to_next_solve). The second solve replays the first one's ordering
// passes (their scores, so the same aspiration window) instead of running them again: run
// again, they would overwrite the carried moves with their own. Counters: pass_nodes and
// exact_nodes of the ordinary solves; exact_nodes_hinted of the second ones, a floor for the
// exact pass of any ordering that works through the table's moves from that many empties up;
// hinted_vs_exact their ratio. This solver is compiled with the benchmark's own flags (a
// baseline build runs slower than `evalforge solve`); the nodes do not depend on that.
struct RecordedPasses {
  search::endgame::SerialPasses<64, cpu::SolverOrdering> serial;
  std::vector<search::SolveResult>* passes;  // the ordering passes' results, in order
  bool replay = false;
  mutable std::size_t next = 0;
  mutable u64 exact_nodes = 0;
  search::SolveResult operator()(u64 P, u64 O, int alpha, int beta, int horizon) const {
    if (horizon == 0) {
      const search::SolveResult r = serial(P, O, alpha, beta, 0);
      exact_nodes += r.nodes;
      return r;
    }
    if (replay) {
      search::SolveResult r = passes->at(next++);
      r.nodes = 0;
      return r;
    }
    passes->push_back(serial(P, O, alpha, beta, horizon));
    return passes->back();
  }
};

void solve_with_exact_hints(benchmark::State& state, const std::vector<data::ObfPosition>& positions, int min_empties) {
  u64 nodes = 0, exact = 0, hinted = 0;
  double seconds = 0, hinted_seconds = 0;
  search::endgame::HashTable& view = table().view;
  const cpu::SolverOrdering* order = builtin_ordering();
  for (auto _ : state) {
    for (const data::ObfPosition& pos : positions) {
      const othello::Board b = othello::Board::from_colors(pos.black, pos.white, pos.side);
      if (b.empties() <= search::endgame::kSmallEmpties) continue;  // no table, no passes
      std::vector<search::SolveResult> passes;
      const RecordedPasses record{{&view, order}, &passes};
      const double t0 = thread_cpu_seconds();
      view.next_solve();
      const search::SolveResult first = search::endgame::drive_passes(
          b.player, b.opponent, -search::endgame::kScoreLimit, search::endgame::kScoreLimit, true, record);
      const double t1 = thread_cpu_seconds();
      view.carry_moves_to_next_solve(min_empties);
      view.next_solve();
      const RecordedPasses replay{{&view, order}, &passes, true};
      const double t2 = thread_cpu_seconds();
      const search::SolveResult again = search::endgame::drive_passes(
          b.player, b.opponent, -search::endgame::kScoreLimit, search::endgame::kScoreLimit, true, replay);
      seconds += t1 - t0;
      hinted_seconds += thread_cpu_seconds() - t2;
      if (first.score != pos.best_score() || again.score != pos.best_score() || again.best_move != first.best_move ||
          replay.next != passes.size()) {
        state.SkipWithError("score or move differs from the file or between the two solves");
        return;
      }
      nodes += first.nodes;
      exact += record.exact_nodes;
      hinted += replay.exact_nodes;
    }
  }
  const double runs = static_cast<double>(state.iterations());
  add_solver_counters(state, nodes, seconds);
  state.counters["pass_nodes"] = static_cast<double>(nodes - exact) / runs;
  state.counters["exact_nodes"] = static_cast<double>(exact) / runs;
  state.counters["exact_nodes_hinted"] = static_cast<double>(hinted) / runs;
  state.counters["hinted_vs_exact"] = static_cast<double>(hinted) / static_cast<double>(exact);
  state.counters["cpu_s_hinted"] = hinted_seconds / runs;
  state.counters["min_empties"] = min_empties;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// The machine-code copies of the solver this CPU runs (baseline build, x86-64-v3, x86-64-v4) on
// all 20 with the network, interleaved in `rounds` rounds: each copy's median CPU seconds for
// the 20, and for each wider copy the median of the per-round ratios of its time to the
// baseline's (same nodes, checked).
void solve_code_copies(benchmark::State& state, const std::vector<data::ObfPosition>& positions, int rounds) {
  const std::vector<cpu::SolverIsa> isas = cpu::available_solver_isas();
  std::vector<std::vector<double>> seconds(isas.size()), ratios(isas.size());  // ratios to the baseline, per round
  for (auto _ : state) {
    for (int round = 0; round < rounds; ++round) {
      std::vector<u64> nodes(isas.size(), 0);
      // Odd rounds run the copies in the other order, so neither always goes first.
      for (std::size_t step = 0; step < isas.size(); ++step) {
        const std::size_t k = round % 2 ? isas.size() - 1 - step : step;
        const auto solver =
            cpu::make_endgame_solver(1, &table().view, builtin_ordering(), search::endgame::kSplitEmpties, isas[k]);
        double total = 0;
        if (!solve_each(state, *solver, positions, nodes[k], total)) return;
        seconds[k].push_back(total);
      }
      for (std::size_t k = 1; k < isas.size(); ++k)
        if (nodes[k] != nodes[0]) {
          state.SkipWithError("the copies searched different trees");
          return;
        }
      for (std::size_t k = 1; k < isas.size(); ++k) ratios[k].push_back(seconds[k].back() / seconds.front().back());
    }
  }
  for (std::size_t k = 0; k < isas.size(); ++k) {
    const std::string name = cpu::solver_isa_name(isas[k]);
    state.counters["cpu_s_" + name] = median(seconds[k]);
    if (k > 0) state.counters[name + "_vs_baseline"] = median(ratios[k]);
  }
}

// The networks made from the built-in one (edax-tree: two networks retrained on the solver's own
// trees; edax-shapes: those networks with shapes searched on the trees' positions, each file
// when present) against the built-in one, on all positions, interleaved in `rounds` rounds (the
// order rotating): each one's nodes and median CPU seconds, and the median of the per-round
// ratios of its time to the built-in one's.
void solve_networks(benchmark::State& state, const std::vector<data::ObfPosition>& positions, int rounds) {
  std::vector<std::pair<std::string, const cpu::SolverOrdering*>> orders{{"wthor", builtin_ordering()}};
  if (tree_ordering()) orders.emplace_back("tree", tree_ordering());
  if (shapes_ordering()) orders.emplace_back("shapes", shapes_ordering());
  const std::size_t n_orders = orders.size();
  std::vector<std::vector<double>> seconds(n_orders), ratios(n_orders);
  std::vector<u64> nodes(n_orders, 0);
  std::vector<int> seen;  // scores of positions the file gives none for
  for (auto _ : state) {
    for (int round = 0; round < rounds; ++round) {
      for (std::size_t step = 0; step < n_orders; ++step) {
        const std::size_t k = (step + static_cast<std::size_t>(round)) % n_orders;
        const auto solver = cpu::make_endgame_solver(1, &table().view, orders[k].second);
        u64 n = 0;
        double total = 0;
        if (!solve_each(state, *solver, positions, n, total, &seen)) return;
        nodes[k] = n;  // (the same every round: node counts do not depend on the machine)
        seconds[k].push_back(total);
      }
      for (std::size_t k = 1; k < n_orders; ++k) ratios[k].push_back(seconds[k].back() / seconds[0].back());
    }
  }
  for (std::size_t k = 0; k < n_orders; ++k) {
    const std::string& name = orders[k].first;
    state.counters["nodes_" + name + "_network"] = static_cast<double>(nodes[k]);
    state.counters["cpu_s_" + name + "_network"] = median(seconds[k]);
    if (k == 0) continue;
    state.counters["nodes_" + name + "_vs_wthor"] = static_cast<double>(nodes[k]) / static_cast<double>(nodes[0]);
    state.counters["cpu_s_" + name + "_vs_wthor"] = median(ratios[k]);
  }
}

// A position after `plies` uniformly random moves from the start (game `index`).
othello::Position random_opening(u32 index, int plies) {
  Rng rng(2024, Purpose::kGame, index);
  return othello::random_opening(rng, plies);
}

// Plays one game to the end with both sides searching `depth` plies with `evaluator`.
template <class E>
u64 play_game(othello::Position p, int depth, const E& evaluator) {
  u64 nodes = 0;
  for (;;) {
    const search::SearchResult r = search::alphabeta<games::Othello>(p, depth, evaluator);
    nodes += r.nodes;
    if (r.best_move == search::kNoMove) return nodes;
    p = r.best_move == search::kPassMove ? games::Othello::pass(p) : games::Othello::play(p, r.best_move);
  }
}

template <class E>
void games_per_second(benchmark::State& state, const E& evaluator) {
  const int depth = static_cast<int>(state.range(0));
  u32 game = 0;
  u64 nodes = 0;
  for (auto _ : state) nodes += play_game(random_opening(game++, 8), depth, evaluator);
  state.counters["games/s"] = benchmark::Counter(static_cast<double>(game), benchmark::Counter::kIsRate);
  state.counters["nodes/s"] = benchmark::Counter(static_cast<double>(nodes), benchmark::Counter::kIsRate);
  state.counters["ref_ntuple_games/s"] = depth == 1 ? kRefGamesDepth1 : (depth == 4 ? kRefGamesDepth4 : 0.0);
}

void BM_GamesSwh(benchmark::State& state) { games_per_second(state, swh::Evaluator{}); }
// Rates over CPU time (not UseRealTime): the per-core figure on a shared machine.
BENCHMARK(BM_GamesSwh)->Arg(1)->Arg(4)->Unit(benchmark::kMillisecond);

struct EdaxNetwork {
  ntuple::Geometry geometry = ntuple::edax_shape().geometry();
  std::vector<i32> weights;
  EdaxNetwork() {
    Rng rng(7, Purpose::kGame, 0xBE);
    weights.resize(geometry.num_weights());
    for (i32& w : weights) w = static_cast<i32>(rng.below(1u << 16)) - (1 << 15);  // +-0.5 disc
  }
};

void BM_GamesNTupleEdaxShape(benchmark::State& state) {
  static const EdaxNetwork net;
  games_per_second(state, ntuple::Evaluator::single(&net.geometry, net.weights.data()));
}
BENCHMARK(BM_GamesNTupleEdaxShape)->Arg(1)->Arg(4)->Unit(benchmark::kMillisecond);

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::AddCustomContext("solver_reference",
                              "Edax ~36 M nodes/s per core on FFO #40-#42; ratio_edax = our nodes/s / 36 M");
  benchmark::AddCustomContext("games_reference", "~13,000 depth-1 and ~120 depth-4 n-tuple games/s per core");
  const std::filesystem::path file = fforum_file();
  static std::vector<data::ObfPosition> positions;
  if (std::filesystem::exists(file)) {
    table();  // allocated (and its pages touched) before any timing
    positions = data::read_obf(file);
    for (const data::ObfPosition& pos : positions) {
      const std::string name = "BM_SolveFforum/" + std::to_string(pos.line + 19);
      benchmark::RegisterBenchmark(name.c_str(), [&pos](benchmark::State& state) { solve_positions(state, {pos}); })
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime()
          ->Iterations(1);
    }
    benchmark::RegisterBenchmark("BM_SolveFforum/all_20_39",
                                 [](benchmark::State& state) { solve_positions(state, positions); })
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime()
        ->Iterations(1);
    if (builtin_ordering()) {
      for (const data::ObfPosition& pos : positions) {
        const std::string name = "BM_SolveFforumOrdered/" + std::to_string(pos.line + 19);
        benchmark::RegisterBenchmark(
            name.c_str(), [&pos](benchmark::State& state) { solve_positions(state, {pos}, builtin_ordering()); })
            ->Unit(benchmark::kMillisecond)
            ->UseRealTime()
            ->Iterations(1);
      }
      benchmark::RegisterBenchmark(
          "BM_SolveFforumOrdered/all_20_39",
          [](benchmark::State& state) { solve_positions(state, positions, builtin_ordering()); })
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime()
          ->Iterations(1);
      benchmark::RegisterBenchmark("BM_SolveFforumCodeCopies/all_20_39/rounds:3",
                                   [](benchmark::State& state) { solve_code_copies(state, positions, 3); })
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime()
          ->Iterations(1);
      if (tree_ordering() || shapes_ordering())
        benchmark::RegisterBenchmark("BM_SolveFforumNetworks/all_20_39/rounds:5",
                                     [](benchmark::State& state) { solve_networks(state, positions, 5); })
            ->Unit(benchmark::kMillisecond)
            ->UseRealTime()
            ->Iterations(1);
      for (const int min_empties : {8, 11, 14, 17}) {
        const std::string name = "BM_SolveFforumHintCeiling/all_20_39/min_empties:" + std::to_string(min_empties);
        benchmark::RegisterBenchmark(
            name.c_str(),
            [min_empties](benchmark::State& state) { solve_with_exact_hints(state, positions, min_empties); })
            ->Unit(benchmark::kMillisecond)
            ->UseRealTime()
            ->Iterations(1);
      }
    } else {
      benchmark::AddCustomContext("ordering", "networks/ordering/edax.toml not found: ordered solves left out");
    }
  } else {
    benchmark::AddCustomContext("fforum", "not found: " + file.string() + " (set EF_SHARED_DATA_DIR)");
  }
  // Any other test set, e.g. positions of 21 empties from the Logistello book (the networks'
  // differences show better on 122 typical positions than on FFO's 20, where one dominates).
  static std::vector<data::ObfPosition> other;
  if (const char* extra = std::getenv("EF_SOLVE_OBF"); extra && *extra && builtin_ordering()) {
    table();
    other = data::read_obf(extra);  // throws file:line: what
    const std::string name = "BM_SolveNetworks/" + std::filesystem::path(extra).filename().string() + "/rounds:3";
    benchmark::RegisterBenchmark(name.c_str(), [](benchmark::State& state) { solve_networks(state, other, 3); })
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime()
        ->Iterations(1);
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
