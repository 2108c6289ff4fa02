// The exact endgame solver against brute-force minimax, and against the FFO test positions.
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

TEST(Endgame, EqualsBruteForceUpTo10Empties) {
  Rng rng(17, Purpose::kGame, 2);
  std::vector<search::endgame::HashEntry> entries(std::size_t{1} << 10);
  search::endgame::HashTable table{entries.data(), entries.size() - 1, 0};
  int solved = 0;
  for (int empties = 0; empties <= 10; ++empties) {
    const int positions = empties <= 6 ? 60 : (empties <= 8 ? 20 : 6);
    for (int i = 0; i < positions; ++i) {
      u64 P, O;
      if (!random_endgame(rng, empties, P, O)) continue;
      const int want = brute_force(P, O);
      const search::SolveResult got = search::solve_endgame(P, O);
      ASSERT_EQ(got.score, want) << "empties " << empties << " position " << i;
      ASSERT_EQ(got.best_move, brute_force_move(P, O, want)) << "empties " << empties << " position " << i;
      ASSERT_GE(got.nodes, 1u);
      const search::SolveResult with_table = search::solve_endgame(P, O, -64, 64, &table);
      ASSERT_EQ(with_table.score, want) << "empties " << empties << " position " << i;
      ASSERT_EQ(with_table.best_move, got.best_move) << "empties " << empties << " position " << i;
      // Windows: exact inside, a correct bound outside (fail-soft).
      for (const int a : {want - 3, want - 1, want, want + 1}) {
        const search::SolveResult w = search::solve_endgame(P, O, a, a + 2);
        if (want > a && want < a + 2) {
          EXPECT_EQ(w.score, want);
        } else if (want <= a) {  // an upper bound: want <= score <= a
          EXPECT_LE(w.score, a);
          EXPECT_GE(w.score, want);
        } else {  // a lower bound: a + 2 <= score <= want
          EXPECT_GE(w.score, a + 2);
          EXPECT_LE(w.score, want);
        }
      }
      ++solved;
    }
  }
  EXPECT_GT(solved, 400);
}

// The last empty square against every alpha: exact above alpha, else an upper bound no better
// than alpha (the lazy cut-off leaves the opponent's move unplayed when the player must pass).
TEST(Endgame, LastMoveScoreIsExactAboveAlphaAndAnUpperBoundBelow) {
  Rng rng(23, Purpose::kGame, 9);
  int positions = 0, lazy = 0;
  for (int i = 0; i < 400; ++i) {
    u64 P, O;
    if (!random_endgame(rng, 1, P, O)) continue;
    // Both sides to move: the side that cannot take the square is the lazy cut-off's case.
    for (const bool swap : {false, true}) {
      const u64 p = swap ? O : P, o = swap ? P : O;
      if (64 - popcount64(p | o) != 1) continue;
      const int sq = ctz64(~(p | o));
      const int want = brute_force(p, o);
      ++positions;
      for (int alpha = -65; alpha <= 64; ++alpha) {
        u64 nodes = 0;
        const int v = search::endgame::last_move_score(p, o, sq, alpha, nodes);
        if (v > alpha) {
          ASSERT_EQ(v, want) << "alpha " << alpha;
        } else {
          ASSERT_LE(want, v) << "alpha " << alpha;
          if (v != want) {
            ++lazy;
            ASSERT_EQ(nodes, 0u) << "the opponent's move was played all the same";
          }
        }
      }
    }
  }
  EXPECT_GT(positions, 300);
  EXPECT_GT(lazy, 0);  // the cut-off happened, with a bound that was not the exact score
}

// An ordering without evaluation that records the nodes the solver's visit hook reports.
struct RecordingOrder {
  static constexpr bool kEnabled = false;
  int value(u64, u64) const { return 0; }
  mutable std::vector<std::array<u64, 3>> seen;
  void visit(u64 P, u64 O, int empties) const { seen.push_back({P, O, static_cast<u64>(empties)}); }
};

// Nodes of kSmallEmpties + 1 empties are searched without a frame (solve_above_small): the
// frame search's tree node for node, so the same fail-soft value, node count and visited nodes
// (the visit hook's calls, in order), whatever the window, for positions where the side to move
// must pass too; every value is right against brute force (exact inside the window, a bound on
// the failing side).
TEST(Endgame, FramelessNodesAboveTheLastEmptiesSearchTheFrameTree) {
  namespace eg = search::endgame;
  constexpr int kEmpties = eg::kSmallEmpties + 1;
  Rng rng(31, Purpose::kGame, 6);
  int positions = 0, passes = 0, wide = 0;
  for (int i = 0; i < 300; ++i) {
    u64 P, O;
    if (!random_endgame(rng, kEmpties, P, O)) continue;
    for (const bool swap : {false, true}) {
      const u64 p = swap ? O : P, o = swap ? P : O;
      if (!othello::legal_moves(p, o) && !othello::legal_moves(o, p)) continue;
      ++positions;
      passes += othello::legal_moves(p, o) == 0;
      const int want = brute_force(p, o);
      for (auto [alpha, beta] : {std::pair{-65, 65}, std::pair{want - 1, want + 1}, std::pair{want, want + 1},
                                 std::pair{want - 1, want}, std::pair{-65, want - 3}, std::pair{want + 2, 65}}) {
        alpha = std::clamp(alpha, -65, 64);  // a window of the solver's range, never empty
        beta = std::clamp(beta, alpha + 1, 65);
        RecordingOrder frame_order, order;
        const search::SolveResult frame = eg::solve_pass<64>(p, o, alpha, beta, nullptr, &frame_order, 0, false);
        u64 nodes = 0;
        const int v = eg::solve_above_small(p, o, alpha, beta, &order, nodes);
        ASSERT_EQ(v, frame.score) << p << " " << o << " window " << alpha << " " << beta;
        ASSERT_EQ(nodes, frame.nodes - 1) << p << " " << o;  // solve_pass counts the node itself
        ASSERT_EQ(order.seen, frame_order.seen) << p << " " << o;
        ASSERT_EQ(order.seen.size(), 1u);  // the node itself (after a pass, the position after it)
        if (v > alpha && v < beta) {
          ASSERT_EQ(v, want);
        }
        if (v <= alpha) {
          ASSERT_GE(v, want);
        }
        if (v >= beta) {
          ASSERT_LE(v, want);
        }
        // Open windows at nodes of several moves: the later moves get null windows.
        wide += beta - alpha > 1 && popcount64(othello::legal_moves(p, o)) > 1;
      }
    }
  }
  EXPECT_GT(positions, 400);
  EXPECT_GT(passes, 0);
  EXPECT_GT(wide, 1000);
}

TEST(Endgame, PassesAndFinishedGames) {
  // White to move without a move, black takes b1 via c1 and the game ends: 3-0, empties to black.
  const search::SolveResult pass = search::solve_endgame(u64{1} << 1, u64{1} << 0);
  EXPECT_EQ(pass.score, -64);
  EXPECT_EQ(pass.best_move, search::kPassMove);
  const search::SolveResult over = search::solve_endgame(0, u64{1} << 0);
  EXPECT_EQ(over.score, -64);
  EXPECT_EQ(over.best_move, search::kNoMove);
  EXPECT_EQ(over.nodes, 1u);
  // A full board: the disc difference itself.
  const search::SolveResult full = search::solve_endgame(0x00000000FFFFFFFFull, 0xFFFFFFFF00000000ull);
  EXPECT_EQ(full.score, 0);
}

TEST(Endgame, WipeoutTiesGoToTheLowestSquare) {
  // White's only disc g7; black f6 and f7. h7 and h8 both take it (+64); h8, a corner, is
  // searched first, and a score of 64 must not cut off the root before h7 is seen.
  const u64 black = (u64{1} << *parse_square("f6")) | (u64{1} << *parse_square("f7"));
  const u64 white = u64{1} << *parse_square("g7");
  const search::SolveResult r = search::solve_endgame(black, white);
  EXPECT_EQ(r.score, 64);
  EXPECT_EQ(r.best_move, *parse_square("h7"));
  EXPECT_EQ(brute_force_move(black, white, 64), *parse_square("h7"));
}

TEST(Endgame, EveryMoveWipedOutTerminates) {
  // Found by a match (14 empties, side to move loses every line by 64): the root's tie window
  // scouts a lower square with (-65, -64); the scout fails high at -64 and the re-search starts
  // from -65, which the solver once mistook for "no re-search pending" and scouted forever.
  const u64 P = 0x0205020c00000000ull, O = 0x0000bdf3ffffffffull;
  for (bool with_table : {false, true}) {
    std::vector<search::endgame::HashEntry> entries(std::size_t{1} << 12);
    search::endgame::HashTable table{entries.data(), entries.size() - 1, 0};
    const search::SolveResult r = search::solve_endgame(P, O, -64, 64, with_table ? &table : nullptr);
    EXPECT_EQ(r.score, -64);
    // Lowest square among the (all equally lost) moves: every move loses by 64.
    EXPECT_EQ(r.best_move, ctz64(othello::legal_moves(P, O)));
  }
}

TEST(Endgame, OthelloSearchSolvesFromTheEmptiesLimit) {
  Rng rng(31, Purpose::kGame, 5);
  for (int i = 0; i < 10; ++i) {
    u64 P, O;
    if (!random_endgame(rng, 12, P, O)) continue;
    othello::Position p;
    p.board.player = P;
    p.board.opponent = O;
    const swh::Evaluator swh;
    const search::SolveResult exact = search::solve_endgame(P, O);
    const search::SearchResult solved = search::search_othello(p, {3, 12}, swh);
    EXPECT_EQ(solved.value, swh.exact(exact.score));
    EXPECT_EQ(solved.best_move, exact.best_move);
    EXPECT_EQ(solved.nodes, exact.nodes);
    const search::SearchResult searched = search::search_othello(p, {3, 11}, swh);
    const search::SearchResult ab = search::alphabeta<games::Othello>(p, 3, swh);
    EXPECT_EQ(searched.value, ab.value);
    EXPECT_EQ(searched.best_move, ab.best_move);
  }
}

TEST(Endgame, AgreesWithAlphaBetaAtFullDepthOnExactScores) {
  // alphabeta with an evaluator that is never consulted (depth beyond the end) is an exact
  // solver too: both must agree, value and move.
  struct ExactOnly {
    i32 eval(const othello::Position&) const { return 0; }
    i32 exact(int score) const { return score; }
  };
  Rng rng(23, Purpose::kGame, 4);
  for (int i = 0; i < 30; ++i) {
    u64 P, O;
    if (!random_endgame(rng, 7, P, O)) continue;
    othello::Position p;
    p.board.player = P;
    p.board.opponent = O;
    const search::SearchResult ab = search::alphabeta<games::Othello>(p, 16, ExactOnly{});
    const search::SolveResult eg = search::solve_endgame(P, O);
    EXPECT_EQ(ab.value, eg.score);
    EXPECT_EQ(ab.best_move, eg.best_move);
  }
}

// FFO #20-#39 (the Edax test file): the exact score of the positions that solve in under half a
// second each here (CPU time on the 2-core development machine, release build, 2^20-entry
// table: #20 0.00 s, #21 0.01, #22 0.06, #23 0.05, #24 0.18, #25 0.29, #27 0.20, #29 0.17,
// #31 0.34; the others take 0.4-60 s). All 20 are solved by bench/solve_bench.cpp and by
// `evalforge solve`.
TEST(Endgame, FforumPositionsExactScores) {
  const std::filesystem::path file = std::filesystem::path(EF_SHARED_DATA_DIR) / "othello/fforum-20-39.obf";
  if (!std::filesystem::exists(file)) GTEST_SKIP() << file << " not found";
  const std::vector<data::ObfPosition> positions = data::read_obf(file);
  ASSERT_EQ(positions.size(), 20u);
  const std::set<int> quick = {20, 21, 22, 23, 24, 25, 27, 29, 31};  // FFO numbers = line + 19
  std::vector<search::endgame::HashEntry> entries(std::size_t{1} << 20);
  search::endgame::HashTable table{entries.data(), entries.size() - 1, 0};
  const play::OthelloAgent builtin =
      play::load_agent((std::filesystem::path(EF_SOURCE_DIR) / "networks/ordering/edax.toml").string());
  const cpu::SolverOrdering order(builtin.ntuple_evaluator());
  for (const data::ObfPosition& pos : positions) {
    const int number = static_cast<int>(pos.line) + 19;
    if (!quick.count(number)) continue;
    const othello::Board b = othello::Board::from_colors(pos.black, pos.white, pos.side);
    const auto t0 = std::chrono::steady_clock::now();
    const search::SolveResult r = search::solve_endgame(b.player, b.opponent, -64, 64, &table);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_EQ(r.score, pos.best_score()) << "FFO #" << number;
    bool move_listed = false;
    for (const auto& [square, score] : pos.move_scores) {
      if (square == r.best_move) {
        move_listed = true;
        EXPECT_EQ(score, r.score) << "FFO #" << number << " move " << square_name(square);
      }
    }
    EXPECT_TRUE(move_listed) << "FFO #" << number;
    // With the built-in ordering network: the same score and move.
    const search::SolveResult ordered = search::solve_endgame(b.player, b.opponent, -64, 64, &table, &order);
    EXPECT_EQ(ordered.score, r.score) << "FFO #" << number;
    EXPECT_EQ(ordered.best_move, r.best_move) << "FFO #" << number;
    // The same without a table: the same exact score and move (only the node count differs).
    if (b.empties() <= 18) {
      const search::SolveResult plain = search::solve_endgame(b.player, b.opponent);
      EXPECT_EQ(plain.score, r.score) << "FFO #" << number;
      EXPECT_EQ(plain.best_move, r.best_move) << "FFO #" << number;
    }
    std::printf("FFO #%d: %d empties, score %+d, move %s, %llu nodes, %.3f s\n", number, b.empties(), r.score,
                square_name(r.best_move).c_str(), static_cast<unsigned long long>(r.nodes), s);
  }
}

TEST(Endgame, TableGivesTheSameResultsAndRepeatableNodeCounts) {
  Rng rng(29, Purpose::kGame, 6);
  std::vector<search::endgame::HashEntry> entries(std::size_t{1} << 12);  // small: many collisions
  search::endgame::HashTable table{entries.data(), entries.size() - 1, 0};
  u32 solves = 0;
  for (int i = 0; i < 12; ++i) {
    u64 P, O;
    if (!random_endgame(rng, 14, P, O)) continue;
    solves += 2;
    const search::SolveResult plain = search::solve_endgame(P, O);
    const search::SolveResult first = search::solve_endgame(P, O, -64, 64, &table);
    const search::SolveResult again = search::solve_endgame(P, O, -64, 64, &table);  // stale entries ignored
    EXPECT_EQ(first.score, plain.score);
    EXPECT_EQ(first.best_move, plain.best_move);
    EXPECT_EQ(again.score, first.score);
    EXPECT_EQ(again.best_move, first.best_move);
    EXPECT_EQ(again.nodes, first.nodes);
  }
  EXPECT_EQ(table.stamp, solves);
}

// The measuring instrument of bench/solve_bench (HashTable::carry_moves_to_next_solve): the
// next solve sees the root's entry as its best move without bounds, and nothing of positions
// below min_empties; a solve from carried moves gives the same score and move; carrying
// nothing leaves a table as good as empty (the same nodes as the first solve), and carried
// moves do change the search.
TEST(Endgame, CarriedMovesAreHintsOnly) {
  Rng rng(31, Purpose::kGame, 7);
  std::vector<search::endgame::HashEntry> entries(std::size_t{1} << 16);
  search::endgame::HashTable table{entries.data(), entries.size() - 1, 0};
  int changed = 0, solved = 0;
  for (int i = 0; i < 10; ++i) {
    u64 P, O;
    if (!random_endgame(rng, 16, P, O)) continue;
    ++solved;
    const search::SolveResult first = search::solve_endgame(P, O, -64, 64, &table);
    search::endgame::HashTable next = table;  // the view the next solve will have
    ++next.stamp;
    const search::endgame::HashHit stored = table.find(P, O);
    ASSERT_TRUE(stored.found);
    EXPECT_EQ(stored.lower, first.score);  // the root's exact score, stored as both bounds
    EXPECT_EQ(stored.upper, first.score);
    EXPECT_EQ(stored.move, first.best_move);
    table.carry_moves_to_next_solve(17);  // the root has 16 empties: not carried
    EXPECT_FALSE(next.find(P, O).found);
    table.carry_moves_to_next_solve(16);
    const search::endgame::HashHit carried = next.find(P, O);
    ASSERT_TRUE(carried.found);
    EXPECT_EQ(carried.lower, -64);
    EXPECT_EQ(carried.upper, 64);
    EXPECT_EQ(carried.move, first.best_move);
    (void)search::solve_endgame(P, O, -64, 64, &table);
    table.carry_moves_to_next_solve(65);  // no position has 65 empties: nothing carried
    const search::SolveResult none = search::solve_endgame(P, O, -64, 64, &table);
    EXPECT_EQ(none.nodes, first.nodes);
    (void)search::solve_endgame(P, O, -64, 64, &table);
    table.carry_moves_to_next_solve(search::endgame::kHashEmpties);
    const search::SolveResult hinted = search::solve_endgame(P, O, -64, 64, &table);
    EXPECT_EQ(hinted.score, first.score);
    EXPECT_EQ(hinted.best_move, first.best_move);
    if (hinted.nodes != first.nodes) ++changed;
  }
  EXPECT_GE(solved, 8);
  EXPECT_GE(changed, solved / 2);
}

// ---- Move ordering by evaluation ---------------------------------------------------------------
