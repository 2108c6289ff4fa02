// The exact endgame solver's move ordering (networks, visit hook, aspiration) and its split
// search on several threads (a separate file from search_endgame_test.cpp: each instantiates
// the solver many times, which makes them the longest compiles under the sanitizers).
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <algorithm>
#include <array>
#include <chrono>
#include <filesystem>
#include <set>
#include <vector>
#include "backends/cpu/endgame_solver.hpp"
#include "backends/cpu/network_eval.hpp"
#include "endgame_brute_force.hpp"
#include "evalforge/core/error.hpp"
#include "evalforge/core/rng.hpp"
#include "evalforge/data/games.hpp"
#include "evalforge/engine/alphabeta.hpp"
#include "evalforge/games/othello/agent_file.hpp"
#include "evalforge/games/othello/endgame.hpp"
#include "evalforge/games/othello/game.hpp"
#include "evalforge/games/othello/shape.hpp"
#include "evalforge/games/othello/squares.hpp"
#include "evalforge/games/othello/swh.hpp"
#include "evalforge/games/othello/tree_search.hpp"
#include "games/othello/solve_parallel.hpp"
#include "test_support.hpp"

using namespace ef;
using ef::test::brute_force;
using ef::test::brute_force_move;
using ef::test::final_score;
using ef::test::random_endgame;

namespace {

// An Edax-shape network per move with random weights: an ordering as bad as any.
struct RandomNetwork {
  ntuple::Geometry geometry = ntuple::edax_shape().geometry();
  std::vector<i32> weights;
  explicit RandomNetwork(u64 seed) : weights(static_cast<std::size_t>(geometry.num_weights()) * ntuple::kMoveNumbers) {
    Rng rng(seed, Purpose::kPopulation, 1);
    for (i32& w : weights) w = static_cast<i32>(rng.below(1u << 24)) - (1 << 23);
  }
  ntuple::Evaluator evaluator() const { return ntuple::Evaluator::per_move(&geometry, weights.data()); }
};

std::filesystem::path builtin_ordering_file() {
  return std::filesystem::path(EF_SOURCE_DIR) / "networks/ordering/edax.toml";
}

}  // namespace

// The ordering changes the nodes, never the score or the move (the lowest square of best
// score): random positions of 12-18 empties (from kPassEmpties up the ordering passes run)
// solved without an ordering, with the built-in network, and with random weights, with and
// without a table (no table: no passes).
TEST(EndgameOrdering, ScoresAndMovesDoNotDependOnTheOrdering) {
  const RandomNetwork random(5);
  const cpu::SolverOrdering random_order(random.evaluator());
  const ntuple::SolverOrdering random_order_hd{random.evaluator()};
  ASSERT_TRUE(std::filesystem::exists(builtin_ordering_file())) << builtin_ordering_file();
  const play::OthelloAgent builtin = play::load_agent(builtin_ordering_file().string());
  const cpu::SolverOrdering builtin_order(builtin.ntuple_evaluator());
  std::vector<search::endgame::HashEntry> entries(std::size_t{1} << 16);
  search::endgame::HashTable table{entries.data(), entries.size() - 1, 0};
  Rng rng(41, Purpose::kGame, 8);
  int solved = 0;
  u64 plain_nodes = 0, ordered_nodes = 0;
  for (int empties = 12; empties <= 18; ++empties) {
    for (int i = 0; i < (empties <= 16 ? 5 : 2); ++i) {
      u64 P, O;
      if (!random_endgame(rng, empties, P, O)) continue;
      const search::SolveResult plain = search::solve_endgame(P, O, -64, 64, &table);
      const search::SolveResult ordered = search::solve_endgame(P, O, -64, 64, &table, &builtin_order);
      EXPECT_EQ(ordered.score, plain.score) << empties << " empties, position " << i;
      EXPECT_EQ(ordered.best_move, plain.best_move) << empties << " empties, position " << i;
      if (empties <= 16) {  // random weights: slow above (that is the point of a good network)
        const search::SolveResult bad = search::solve_endgame(P, O, -64, 64, &table, &random_order);
        const search::SolveResult no_table = search::solve_endgame(P, O, -64, 64, nullptr, &random_order_hd);
        for (const search::SolveResult* r : {&bad, &no_table}) {
          EXPECT_EQ(r->score, plain.score) << empties << " empties, position " << i;
          EXPECT_EQ(r->best_move, plain.best_move) << empties << " empties, position " << i;
        }
      }
      // A window: exact inside it, a bound outside, as without ordering.
      const search::SolveResult narrow =
          search::solve_endgame(P, O, plain.score - 1, plain.score + 1, &table, &builtin_order);
      EXPECT_EQ(narrow.score, plain.score);
      plain_nodes += plain.nodes;
      ordered_nodes += ordered.nodes;
      ++solved;
    }
  }
  EXPECT_GE(solved, 25);
  // Not a speed test: the counts are deterministic. The network has to order better than
  // mobility alone on these positions, or it is not worth shipping.
  EXPECT_LT(ordered_nodes, plain_nodes) << ordered_nodes << " vs " << plain_nodes;
}

namespace {
// The built-in network with the solver's visit hook (endgame.hpp, OrderingEvaluator): counts the
// visits by number of empties.
struct VisitCounter {
  static constexpr bool kEnabled = true;
  const cpu::SolverOrdering* order;
  std::vector<u64>* visits;  // by empties
  int value(u64 P, u64 O) const { return order->value(P, O); }
  void visit(u64 P, u64 O, int empties) const {
    EXPECT_EQ(empties, 64 - popcount64(P | O));
    ++(*visits)[static_cast<std::size_t>(empties)];
  }
};
}  // namespace

// The visit hook sees the exact passes' nodes above kSmallEmpties and changes nothing: the same
// score, move and nodes as the network without it; the root once per exact pass (one, or two
// when the aspiration window fails); none of the ordering passes' nodes.
TEST(EndgameOrdering, VisitHookSeesExactPassNodesAndChangesNothing) {
  const play::OthelloAgent builtin = play::load_agent(builtin_ordering_file().string());
  const cpu::SolverOrdering order(builtin.ntuple_evaluator());
  std::vector<search::endgame::HashEntry> entries(std::size_t{1} << 16);
  search::endgame::HashTable table{entries.data(), entries.size() - 1, 0};
  Rng rng(43, Purpose::kGame, 9);
  int solved = 0;
  for (int empties = 10; empties <= 18; ++empties) {
    u64 P, O;
    if (!random_endgame(rng, empties, P, O)) continue;
    std::vector<u64> visits(65, 0);
    const VisitCounter counter{&order, &visits};
    const search::SolveResult plain = search::solve_endgame(P, O, -64, 64, &table, &order);
    const search::SolveResult counted = search::solve_endgame(P, O, -64, 64, &table, &counter);
    EXPECT_EQ(counted.score, plain.score) << empties;
    EXPECT_EQ(counted.best_move, plain.best_move) << empties;
    EXPECT_EQ(counted.nodes, plain.nodes) << empties;
    EXPECT_GE(visits[empties], 1u) << empties;
    EXPECT_LE(visits[empties], 2u) << empties;
    u64 total = 0;
    for (int e = 0; e <= search::endgame::kSmallEmpties; ++e) EXPECT_EQ(visits[e], 0u) << e;
    for (int e = empties + 1; e <= 64; ++e) EXPECT_EQ(visits[e], 0u) << e;
    for (const u64 v : visits) total += v;
    EXPECT_GT(total, 1u) << empties;
    EXPECT_LT(total, counted.nodes) << empties;
    // The same solve pass by pass (solve_endgame's drive_passes with its own runner): the
    // ordering passes visit nothing.
    auto sum = [&] {
      u64 n = 0;
      for (const u64 v : visits) n += v;
      return n;
    };
    u64 visits_in_ordering_passes = 0;
    int ordering_passes = 0;
    auto run_pass = [&](u64 p, u64 o, int alpha, int beta, int horizon) {
      const u64 before = sum();
      const search::SolveResult r = search::endgame::solve_pass<64>(p, o, alpha, beta, &table, &counter, horizon);
      if (horizon > 0) {
        visits_in_ordering_passes += sum() - before;
        ++ordering_passes;
      }
      return r;
    };
    table.next_solve();
    const search::SolveResult by_pass = search::endgame::drive_passes(P, O, -search::endgame::kScoreLimit,
                                                                      search::endgame::kScoreLimit, true, run_pass);
    EXPECT_EQ(by_pass.score, plain.score) << empties;
    EXPECT_EQ(visits_in_ordering_passes, 0u) << empties;
    if (empties >= search::endgame::kPassEmpties) {
      EXPECT_GT(ordering_passes, 0) << empties;
    }
    ++solved;
  }
  EXPECT_GE(solved, 7);
}

namespace {
// An ordering evaluation that says the same about every position: its passes' score (+-discs),
// which centres the exact pass's aspiration window, is far from the truth on one side or the other.
struct ConstantOrdering {
  static constexpr bool kEnabled = true;
  int discs = 0;
  int value(u64, u64) const { return discs * search::endgame::kOrderUnit; }
};
}  // namespace

// The score of solve_endgame's deepest ordering pass: what centres its aspiration window.
template <class Order>
int deepest_pass_score(u64 P, u64 O, search::endgame::HashTable& table, const Order& order) {
  namespace eg = search::endgame;
  const int empties = 64 - popcount64(P | O);
  int depth = eg::kPassFirstDepth;
  while (empties - (depth + eg::kPassStep) >= eg::kPassMinHorizon) depth += eg::kPassStep;
  table.next_solve();
  return eg::solve_pass<64>(P, O, -eg::kScoreLimit, eg::kScoreLimit, &table, &order, empties - depth).score;
}

// The exact pass starts in an aspiration window around the ordering passes' score. When that
// score is wrong (a constant evaluation of -40, 0 or 40 discs: the passes' score is then about
// +-40 or 0), the window fails low or high and the pass searches again: the score and the move
// stay exact. Windows of the caller's above and below the score still get a bound on the right
// side (fail-soft), whether the aspiration window fails inside them or lies outside them and is
// dropped.
TEST(EndgameOrdering, AspirationWindowFailsAndStaysExact) {
  namespace eg = search::endgame;
  std::vector<eg::HashEntry> entries(std::size_t{1} << 16);
  eg::HashTable table{entries.data(), entries.size() - 1, 0};
  Rng rng(43, Purpose::kGame, 9);
  int solved = 0, failed_high = 0, failed_low = 0;  // full-window solves whose first window failed that way
  for (int i = 0; i < 8; ++i) {
    u64 P, O;
    if (!random_endgame(rng, eg::kPassEmpties, P, O)) continue;
    const search::SolveResult plain = search::solve_endgame(P, O, -64, 64, &table);
    for (const int discs : {-40, 0, 40}) {
      const ConstantOrdering order{discs};
      const int centre = deepest_pass_score(P, O, table, order) & ~1;
      failed_high += plain.score >= centre + eg::kAspirationWindow;
      failed_low += plain.score <= centre - eg::kAspirationWindow;
      const search::SolveResult r = search::solve_endgame(P, O, -64, 64, &table, &order);
      EXPECT_EQ(r.score, plain.score) << "position " << i << ", estimate " << discs;
      EXPECT_EQ(r.best_move, plain.best_move) << "position " << i << ", estimate " << discs;
      const int s = plain.score;
      const search::SolveResult low = search::solve_endgame(P, O, s + 1, s + 20, &table, &order);
      EXPECT_LE(low.score, s + 1) << "position " << i << ", estimate " << discs;  // fails low:
      EXPECT_GE(low.score, s) << "position " << i << ", estimate " << discs;      // an upper bound
      const search::SolveResult high = search::solve_endgame(P, O, s - 20, s - 1, &table, &order);
      EXPECT_GE(high.score, s - 1) << "position " << i << ", estimate " << discs;  // fails high:
      EXPECT_LE(high.score, s) << "position " << i << ", estimate " << discs;      // a lower bound
      const search::SolveResult inside = search::solve_endgame(P, O, s - 3, s + 3, &table, &order);
      EXPECT_EQ(inside.score, s) << "position " << i << ", estimate " << discs;
    }
    ++solved;
  }
  EXPECT_GE(solved, 6);
  EXPECT_GT(failed_high, 0);  // both re-searches of a full-window solve were taken
  EXPECT_GT(failed_low, 0);
}

// networks/ordering/edax.{toml,efnet} is what scripts/make-ordering-network.sh writes from WTHOR:
// the shipped network is reproducible from the repository (a few seconds of training).
TEST(EndgameOrdering, BuiltinNetworkIsReproducible) {
  const std::filesystem::path wthor = std::filesystem::path(EF_SHARED_DATA_DIR) / "othello/wthor";
  if (!std::filesystem::exists(wthor / "WTH_2015.wtb")) GTEST_SKIP() << wthor << " not found";
  const auto out = test::scratch_dir("ordering", "network");
  const auto [status, text] =
      test::run_command(fmt::format("EVALFORGE='{}' '{}/scripts/make-ordering-network.sh' '{}' '{}' wthor 2>&1",
                                    EF_EVALFORGE_BIN, EF_SOURCE_DIR, wthor.string(), out.string()));
  ASSERT_EQ(status, 0) << text;
  EXPECT_EQ(test::file_bytes(out / "edax.efnet"),
            test::file_bytes(std::filesystem::path(EF_SOURCE_DIR) / "networks/ordering/edax.efnet"));
  EXPECT_EQ(test::file_bytes(out / "edax.toml"), test::file_bytes(builtin_ordering_file()));
}

// ---- One position on several threads (solve_parallel.hpp) -------------------------------------

// Random positions of 12-24 empties: the score and the move (the lowest square of best score)
// are the same on 1 and 2 threads, and up to 18 empties on 3 and 5 (more threads than this
// machine's cores, which interleaves them more); with the ordering network, and where it is
// quick without it (up to 18 empties) and with a 256-entry table (up to 20; the threads
// overwrite each other's entries all the time); and equal to the one-thread solver without a
// table and without ordering up to 16. Also the caller's windows (up to 20 empties): exact
// inside, the right bound outside.
TEST(EndgameParallel, ScoresAndMovesDoNotDependOnThreadsOrderingOrTable) {
  ASSERT_TRUE(std::filesystem::exists(builtin_ordering_file())) << builtin_ordering_file();
  const play::OthelloAgent builtin = play::load_agent(builtin_ordering_file().string());
  const cpu::SolverOrdering order(builtin.ntuple_evaluator());
  std::vector<search::endgame::HashEntry> big(std::size_t{1} << 20), tiny(std::size_t{1} << 8);
  search::endgame::HashTable big_table{big.data(), big.size() - 1, 0};
  search::endgame::HashTable tiny_table{tiny.data(), tiny.size() - 1, 0};
  Rng rng(47, Purpose::kGame, 12);
  int solved = 0;
  for (int empties = 12; empties <= 24; empties += 2) {
    for (int i = 0; i < (empties <= 18 ? 3 : 1); ++i) {
      u64 P, O;
      if (!random_endgame(rng, empties, P, O)) continue;
      const search::SolveResult ref = search::solve_endgame(P, O, -64, 64, &big_table, &order);
      if (empties <= 16) {
        const search::SolveResult plain = search::solve_endgame(P, O);  // no table, no ordering
        EXPECT_EQ(plain.score, ref.score) << empties << " empties, position " << i;
        EXPECT_EQ(plain.best_move, ref.best_move) << empties << " empties, position " << i;
      }
      for (const int threads : {2, 3, 5}) {
        if (threads != 2 && empties > 18) continue;
        search::ParallelSolve<cpu::SolverOrdering> ordered(threads, &big_table, &order);
        search::ParallelSolve<cpu::SolverOrdering> unordered(threads, &big_table, nullptr);
        search::ParallelSolve<cpu::SolverOrdering> crowded(threads, &tiny_table, &order);
        std::vector<search::SolveResult> results = {ordered.solve(P, O)};
        if (empties <= 18) results.push_back(unordered.solve(P, O));  // slow above (no network)
        if (empties <= 20) results.push_back(crowded.solve(P, O));    // slow above (a table of 256)
        for (const search::SolveResult& r : results) {
          EXPECT_EQ(r.score, ref.score) << empties << " empties, position " << i << ", " << threads << " threads";
          EXPECT_EQ(r.best_move, ref.best_move)
              << empties << " empties, position " << i << ", " << threads << " threads";
          EXPECT_GT(r.nodes, 0u);
        }
        // Windows of the caller's: inside, exact; above the score, an upper bound (fails low);
        // below it, a lower bound (fails high).
        if (empties > 20) continue;
        const int s = ref.score;
        EXPECT_EQ(ordered.solve(P, O, s - 3, s + 3).score, s);
        const int low = ordered.solve(P, O, s + 1, s + 9).score;
        EXPECT_GE(low, s);
        EXPECT_LE(low, s + 1);
        const int high = ordered.solve(P, O, s - 9, s - 1).score;
        EXPECT_LE(high, s);
        EXPECT_GE(high, s - 1);
      }
      ++solved;
    }
  }
  EXPECT_GE(solved, 15);
}

// The CPU solver's copies (baseline build, x86-64-v3 and x86-64-v4, backends/cpu/endgame_solver.hpp)
// search the same tree: on one thread the same score, move and node count, with and without the
// ordering network; on two threads the same score and move. Each copy this CPU runs is compared
// with the baseline.
TEST(EndgameParallel, SolverCodeCopiesSearchTheSameTree) {
  const std::vector<cpu::SolverIsa> isas = cpu::available_solver_isas();
  ASSERT_EQ(isas.front(), cpu::SolverIsa::kBaseline);
  if (isas.size() < 2) GTEST_SKIP() << "only the baseline copy runs here";
  const play::OthelloAgent builtin = play::load_agent(builtin_ordering_file().string());
  const cpu::SolverOrdering order(builtin.ntuple_evaluator());
  std::vector<search::endgame::HashEntry> entries(std::size_t{1} << 18);
  search::endgame::HashTable table{entries.data(), entries.size() - 1, 0};
  Rng rng(53, Purpose::kGame, 14);
  int compared = 0;
  for (int empties = 8; empties <= 22; ++empties) {
    u64 P, O;
    if (!random_endgame(rng, empties, P, O)) continue;
    for (const cpu::SolverOrdering* o : {&order, static_cast<const cpu::SolverOrdering*>(nullptr)}) {
      if (!o && empties > 18) continue;  // slow without the network
      for (int threads : {1, 2}) {
        const auto base = cpu::make_endgame_solver(threads, &table, o, search::endgame::kSplitEmpties, isas[0]);
        const search::SolveResult a = base->solve(P, O);
        for (std::size_t k = 1; k < isas.size(); ++k) {
          const auto wide = cpu::make_endgame_solver(threads, &table, o, search::endgame::kSplitEmpties, isas[k]);
          EXPECT_EQ(wide->isa(), isas[k]);
          const search::SolveResult b = wide->solve(P, O);
          const char* name = cpu::solver_isa_name(isas[k]);
          EXPECT_EQ(a.score, b.score) << name << ", " << empties << " empties, " << threads << " threads";
          EXPECT_EQ(a.best_move, b.best_move) << name << ", " << empties << " empties, " << threads << " threads";
          if (threads == 1) {
            EXPECT_EQ(a.nodes, b.nodes) << name << ", " << empties << " empties";
          }
          ++compared;
        }
      }
    }
  }
  EXPECT_GE(compared, 40);
  EXPECT_THROW(
      cpu::make_endgame_solver(1, &table, nullptr, search::endgame::kSplitEmpties, static_cast<cpu::SolverIsa>(7)),
      Error);
}

// The FFO positions the tests solve quickly, on 2 and 4 threads: the file's scores, and a move
// the file lists with that score.
TEST(EndgameParallel, FforumPositionsExactOnSeveralThreads) {
  const std::filesystem::path file = std::filesystem::path(EF_SHARED_DATA_DIR) / "othello/fforum-20-39.obf";
  if (!std::filesystem::exists(file)) GTEST_SKIP() << file << " not found";
  const play::OthelloAgent builtin = play::load_agent(builtin_ordering_file().string());
  const cpu::SolverOrdering order(builtin.ntuple_evaluator());
  std::vector<search::endgame::HashEntry> entries(std::size_t{1} << 20);
  search::endgame::HashTable table{entries.data(), entries.size() - 1, 0};
  const std::set<int> quick = {21, 22, 23, 24, 25, 27, 29, 30, 31};
  for (const data::ObfPosition& pos : data::read_obf(file)) {
    const int number = static_cast<int>(pos.line) + 19;
    if (!quick.count(number)) continue;
    const othello::Board b = othello::Board::from_colors(pos.black, pos.white, pos.side);
    const search::SolveResult one = search::solve_endgame(b.player, b.opponent, -64, 64, &table, &order);
    for (const int threads : {2, 4}) {
      search::ParallelSolve<cpu::SolverOrdering> split(threads, &table, &order);
      const search::SolveResult r = split.solve(b.player, b.opponent);
      EXPECT_EQ(r.score, pos.best_score()) << "FFO #" << number << ", " << threads << " threads";
      EXPECT_EQ(r.best_move, one.best_move) << "FFO #" << number << ", " << threads << " threads";
      bool listed = false;
      for (const auto& [square, score] : pos.move_scores) listed |= square == r.best_move && score == r.score;
      EXPECT_TRUE(listed) << "FFO #" << number << ": " << square_name(r.best_move);
    }
  }
}

// A wipe-out at the root: every winning move ties at +64, and the split search must still
// return the lowest square among them, like the one-thread search
// (Endgame.WipeoutTiesGoToTheLowestSquare), whichever thread finishes first. Positions where
// several moves share the best score, found among random ones.
TEST(EndgameParallel, TiesAtTheRootGoToTheLowestSquare) {
  std::vector<search::endgame::HashEntry> entries(std::size_t{1} << 16);
  search::endgame::HashTable table{entries.data(), entries.size() - 1, 0};
  Rng rng(53, Purpose::kGame, 3);
  int ties = 0;
  for (int i = 0; i < 200 && ties < 6; ++i) {
    u64 P, O;
    if (!random_endgame(rng, 13, P, O)) continue;
    // Moves of best score, by the one-thread solver on each child.
    int best = -65, tied = 0;
    for (u64 m = othello::legal_moves(P, O); m; m &= m - 1) {
      const int sq = ctz64(m);
      const u64 f = othello::flips(P, O, sq);
      const int v = -search::solve_endgame(O & ~f, P | f | (u64{1} << sq), -64, 64, &table).score;
      if (v > best) {
        best = v;
        tied = 1;
      } else if (v == best) {
        ++tied;
      }
    }
    if (tied < 2) continue;
    ++ties;
    const search::SolveResult one = search::solve_endgame(P, O, -64, 64, &table);
    for (int run = 0; run < 4; ++run) {
      search::ParallelSolve<> split(3, &table, nullptr);
      const search::SolveResult r = split.solve(P, O);
      EXPECT_EQ(r.score, one.score) << "position " << i;
      EXPECT_EQ(r.best_move, one.best_move) << "position " << i << ", run " << run;
    }
    // Without a table the threads have nothing to share: one thread solves, the same result.
    search::ParallelSolve<> no_table(3, nullptr, nullptr);
    const search::SolveResult r = no_table.solve(P, O);
    EXPECT_EQ(r.score, one.score) << "position " << i;
    EXPECT_EQ(r.best_move, one.best_move) << "position " << i;
    EXPECT_EQ(r.nodes, search::solve_endgame(P, O).nodes) << "position " << i;
  }
  EXPECT_GE(ties, 6);
}
