// Dead and captured cells (games/hex/inferior.hpp) and the small-board solver
// (games/hex/solver.hpp), against brute force: every cell the test calls dead is dead by the
// definition (its colour changes no completion's winner), filling dead cells or captured pairs
// never changes a position's value, df-pn and negamax agree on random positions, the solver's
// opening tables match a plain minimax on boards up to 4 x 4, and the first player wins on every
// board up to 5 x 5. Virtual connections (games/hex/vc.hpp): the bridge and the edge template on
// hand positions, and soundness against the exact solver on random small positions: a full
// connection between a colour's edges wins whoever moves, a semi connection wins for the colour
// to move, and a move outside the must-play region loses. The VC alpha-beta player
// (games/hex/vc_search.hpp): every value it calls proven is the solver's, every proven win it
// plays wins, and searched to the end of the game it plays perfectly.
#include <gtest/gtest.h>
#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <string>
#include <vector>
#include "evalforge/core/error.hpp"
#include "evalforge/core/rng.hpp"
#include "evalforge/games/hex/inferior.hpp"
#include "games/hex/player_spec.hpp"
#include "games/hex/solver.hpp"
#include "games/hex/vc.hpp"
#include "games/hex/vc_search.hpp"
#include "test_support.hpp"

using namespace ef;
using namespace ef::hex;
using ef::test::error_of;

namespace {

VcSearchParams vc_search(int depth, int width, VcLeaf leaf = VcLeaf::kResistance) {
  VcSearchParams p;
  p.depth = depth;
  p.width = width;
  p.leaf = leaf;
  return p;
}

// The winner of `b` with every empty cell filled as the bits of `fill` say (bit k: the k-th empty
// cell in square order is White).
int completed_winner(const Board& b, u64 fill) {
  Board full = b;
  int k = 0;
  for (Cells e = b.empty(); e.any(); e.drop_lowest(), ++k) full.stones[(fill >> k) & 1].set(e.lowest());
  return full.connected_colour();
}

// Dead by the definition: the winner of every completion is the same with `square` Black or White.
bool dead_by_brute_force(const Board& b, int square) {
  Board black = b, white = b;
  black.stones[kBlack].set(square);
  white.stones[kWhite].set(square);
  const int empties = b.empty().count() - 1;
  for (u64 fill = 0; fill < (u64{1} << empties); ++fill)
    if (completed_winner(black, fill) != completed_winner(white, fill)) return false;
  return true;
}

// A random position on an n x n board with `stones` stones alternately Black and White, no
// player connected, side to move by parity.
Board random_position(int n, int stones, u64 seed, u32 index) {
  Rng rng(seed, Purpose::kDatagen, index);
  while (true) {
    Board b = empty_board(n);
    for (int s = 0; s < stones && !b.terminal(); ++s) {
      const Cells e = b.empty();
      b = b.play(e.nth(rng.below(static_cast<u32>(e.count()))));
    }
    if (!b.terminal()) return b;
  }
}

// Both sides to move: position i / 2 of random_position, with the other side to move than its
// stones say when i is odd.
Board random_position_either_side(int n, int stones, u64 seed, u32 i) {
  Board b = random_position(n, stones, seed, static_cast<u32>(n * 1000 + stones * 40) + i / 2);
  if (i % 2) {
    b.side = static_cast<unsigned char>(b.side ^ 1);
    b.recompute();
  }
  return b;
}

Board with_stones(int n, const std::vector<int>& black, const std::vector<int>& white, int side) {
  Board b = empty_board(n);
  for (int sq : black) b.stones[kBlack].set(sq);
  for (int sq : white) b.stones[kWhite].set(sq);
  b.side = static_cast<unsigned char>(side);
  b.recompute();
  return b;
}

Cells cells_of(const std::vector<int>& squares) {
  Cells c;
  for (int sq : squares) c.set(sq);
  return c;
}

// The VC alpha-beta's value by plain minimax over the tree vc_search.hpp defines: the same
// verdicts (dead cells filled, both colours' connections), the same move order and width, the
// same proven values, but every searched move searched with a full window and no table.
// `clamp` off: a node cut to its width whose searched moves all lose keeps its proven loss (the
// rule vc_search.hpp rejects), to find positions where the rule matters.
i32 vc_minimax(const Board& b, int depth, int width, int ply, bool clamp = true) {
  const i32 win = kVcWin;
  if (b.terminal()) return -(win - ply);
  Board f = b;
  fill_dead(f);
  if (f.terminal()) return f.winner == f.side ? win - ply - 1 : -(win - ply - 1);
  const VcGraph mine(f, f.side);
  if (mine.edges_connected() || !mine.semi(VcGraph::kEdge0, VcGraph::kEdge1).empty()) return win - ply - 1;
  const VcGraph theirs(f, f.side ^ 1);
  if (theirs.edges_connected()) return -(win - ply - 1);
  Cells moves = f.empty();
  if (!theirs.semi(VcGraph::kEdge0, VcGraph::kEdge1).empty()) moves = theirs.must_play() & f.empty();
  if (!moves.any()) return -(win - ply - 1);
  std::vector<std::pair<i32, int>> scored;  // (value, move), moves in square order
  for (Cells m = moves; m.any(); m.drop_lowest()) {
    const Board child = f.play(m.lowest());
    scored.push_back({child.terminal() ? win - ply - 1 : -ResistanceEvaluator{}.eval(child), m.lowest()});
  }
  std::stable_sort(scored.begin(), scored.end(), [](const auto& x, const auto& y) { return x.first > y.first; });
  if (depth == 1) return scored.front().first;
  i32 best = -win - 1;
  const int searched = std::min(width, static_cast<int>(scored.size()));
  for (int k = 0; k < searched; ++k) {
    const auto [value, move] = scored[static_cast<std::size_t>(k)];
    best = std::max(best, value == win - ply - 1 ? value : -vc_minimax(f.play(move), depth - 1, width, ply + 1, clamp));
  }
  if (clamp && searched < static_cast<int>(scored.size()) && best < -kClamp) best = -kClamp;  // cut: nothing proven
  return best;
}

// Plain minimax on win/loss, no table, no pruning: the reference on boards up to 3 x 3.
bool minimax_wins(const Board& b) {
  if (b.terminal()) return b.winner == b.side;
  for (Cells e = b.empty(); e.any(); e.drop_lowest())
    if (!minimax_wins(b.play(e.lowest()))) return true;
  return false;
}

}  // namespace

TEST(HexDeadCells, TheClassicPatternsAreFoundAndLiveCellsAreNot) {
  // c3 on 5 x 5 with four consecutive Black neighbours (d3, d2, c2, b3): useless to White, dead.
  Board b = empty_board(5);
  for (const int sq : {square_of(3, 2), square_of(3, 1), square_of(2, 1), square_of(1, 2)}) b.stones[kBlack].set(sq);
  b.recompute();
  EXPECT_TRUE(useless_to(b, kWhite, square_of(2, 2)));
  EXPECT_TRUE(is_dead(b, square_of(2, 2)));
  // Three of them only: White may still pass through c3 between b4 and c4... not adjacent, so
  // c3 is live for White, and Black can use it too.
  b.stones[kBlack] = Cells{};
  for (const int sq : {square_of(3, 2), square_of(3, 1), square_of(2, 1)}) b.stones[kBlack].set(sq);
  b.recompute();
  EXPECT_FALSE(is_dead(b, square_of(2, 2)));
  EXPECT_FALSE(dead_by_brute_force(b, square_of(2, 2)));
  // On the empty board nothing is dead; on 1 x 1 the one cell is Black's edge to edge.
  EXPECT_FALSE(dead_cells(empty_board(5)).any());
  EXPECT_FALSE(dead_cells(empty_board(1)).any());
}

TEST(HexDeadCells, EveryCellFoundDeadIsDeadByTheDefinition) {
  // Random positions on 3 x 3 to 5 x 5 (at most 13 empties: every completion is enumerated).
  int found = 0, truly = 0, cells = 0;
  for (const auto& [n, stones] : std::vector<std::pair<int, int>>{{3, 2}, {3, 5}, {4, 4}, {4, 8}, {5, 12}, {5, 15}}) {
    for (u32 i = 0; i < 40; ++i) {
      const Board b = random_position(n, stones, 17, static_cast<u32>(n * 1000 + stones * 50) + i);
      const Cells dead = dead_cells(b);
      for (Cells e = b.empty(); e.any(); e.drop_lowest()) {
        const int sq = e.lowest();
        const bool really = dead_by_brute_force(b, sq);
        ++cells;
        truly += really;
        found += dead.has(sq);
        if (dead.has(sq)) {
          ASSERT_TRUE(really) << "n " << n << " position " << i << " square " << sq;
        }
      }
    }
  }
  // The test is sound, not complete: it finds a share of the dead cells, and some.
  EXPECT_GT(found, 0);
  EXPECT_LE(found, truly);
  std::printf("dead cells: %d found of %d dead by brute force among %d empty cells\n", found, truly, cells);
}

TEST(HexDeadCells, FillingThemNeverChangesWhoWins) {
  HexSolver plain({.fill_dead = false, .proof_numbers = false, .use_vcs = false, .prune_dominated = false}),
      filling({.fill_captured = false, .proof_numbers = false, .use_vcs = false});
  int filled_positions = 0;
  for (const auto& [n, stones] : std::vector<std::pair<int, int>>{{3, 3}, {4, 5}, {4, 8}, {5, 14}}) {
    for (u32 i = 0; i < 30; ++i) {
      const Board b = random_position(n, stones, 5, static_cast<u32>(n * 100 + stones) * 64 + i);
      Board f = b;
      filled_positions += fill_dead(f).any();
      EXPECT_EQ(plain.wins(b), filling.wins(b)) << n << " " << i;
      if (!f.terminal()) {
        EXPECT_EQ(plain.wins(b), plain.wins(f)) << n << " " << i;
      }
    }
  }
  EXPECT_GT(filled_positions, 0);
}

TEST(HexCapturedCells, TheEdgeBridgePairIsCapturedByItsColourOnly) {
  // Black c2 on row 2 of 5 x 5 reaches row 1 through c1 or d1: whichever White takes, Black takes
  // the other and White's stone touches nothing it could use. The pair is Black's.
  const int c1 = square_of(2, 0), d1 = square_of(3, 0);
  Board b = with_stones(5, {square_of(2, 1)}, {}, kWhite);
  EXPECT_TRUE(captured_pair(b, kBlack) == cells_of({c1, d1}));
  EXPECT_FALSE(captured_pair(b, kWhite).any());
  const InferiorFill filled = fill_inferior(b);
  EXPECT_TRUE(filled.captured[kBlack] == cells_of({c1, d1}));
  EXPECT_TRUE(b.stones[kBlack].has(c1) && b.stones[kBlack].has(d1));
  EXPECT_EQ(b.side, kWhite);  // filling is not a move
  // On the empty board nothing is captured; with White on c1, d1 alone is no pair.
  EXPECT_FALSE(captured_pair(empty_board(5), kBlack).any());
  EXPECT_FALSE(captured_pair(with_stones(5, {square_of(2, 1)}, {c1}, kBlack), kBlack).any());
}

TEST(HexCapturedCells, FillingThemNeverChangesWhoWins) {
  // Every pair found, filled with its captor's colour, leaves the value for the side to move as
  // plain minimax (no fill-in of its own, no connections) finds it, whichever side is to move;
  // and so does fill_inferior.
  HexSolver plain({.fill_dead = false, .proof_numbers = false, .use_vcs = false, .prune_dominated = false});
  int pairs[2] = {0, 0}, positions = 0;
  for (const auto& [n, stones] : std::vector<std::pair<int, int>>{{3, 2}, {3, 4}, {4, 3}, {4, 6}, {4, 9}, {5, 13}}) {
    for (u32 i = 0; i < 80; ++i) {
      Board b = random_position_either_side(n, stones, 29, i);  // both sides to move
      const bool value = plain.wins(b);
      for (const int colour : {kBlack, kWhite}) {
        const Cells pair = captured_pair(b, colour);
        if (!pair.any()) continue;
        ++pairs[colour];
        ASSERT_EQ(pair.count(), 2);
        ASSERT_TRUE((pair & b.empty()) == pair);
        Board f = b;
        f.stones[colour] |= pair;
        f.recompute();
        const bool filled_value = f.terminal() ? f.winner == f.side : plain.wins(f);
        ASSERT_EQ(filled_value, value) << "n " << n << " position " << i << " colour " << colour;
      }
      Board f = b;
      positions += fill_inferior(f).all().any();
      const bool filled_value = f.terminal() ? f.winner == f.side : plain.wins(f);
      ASSERT_EQ(filled_value, value) << "n " << n << " position " << i << " (fill_inferior)";
    }
  }
  EXPECT_GT(pairs[kBlack], 0);
  EXPECT_GT(pairs[kWhite], 0);
  std::printf("captured pairs: %d Black, %d White; %d positions with something filled\n", pairs[kBlack], pairs[kWhite],
              positions);
}

TEST(HexDominatedMoves, EveryDominatorIsWorthAtLeastWhatItDominates) {
  // Each relation of inferior.hpp, checked by plain minimax (no fill-in, connections or pruning
  // of its own) on random positions, both sides to move: whenever the side to move wins by
  // playing the dominated cell, it also wins by playing its dominator.
  HexSolver plain({.fill_dead = false, .proof_numbers = false, .use_vcs = false, .prune_dominated = false});
  int killed = 0, captured = 0, killed_wins = 0, captured_wins = 0;
  for (const auto& [n, stones] : std::vector<std::pair<int, int>>{{3, 2}, {3, 4}, {4, 3}, {4, 6}, {4, 9}, {5, 12}}) {
    for (u32 i = 0; i < 60; ++i) {
      Board b = random_position_either_side(n, stones, 41, i);
      if (b.terminal()) continue;
      std::vector<int> wins_after(static_cast<std::size_t>(kStride * kStride), -1);
      auto win_after = [&](int sq) {  // whether the side to move wins by playing sq
        int& w = wins_after[static_cast<std::size_t>(sq)];
        if (w < 0) w = !plain.wins(b.play(sq));
        return w == 1;
      };
      for (Cells e = b.empty(); e.any(); e.drop_lowest()) {
        const int c = e.lowest();
        for (Cells k = killers(b, c); k.any(); k.drop_lowest()) {
          const int r = k.lowest();
          ASSERT_TRUE(b.empty().has(r) && r != c);
          ++killed;
          if (win_after(c)) {
            ++killed_wins;
            ASSERT_TRUE(win_after(r)) << "n " << n << " position " << i << ": " << r << " kills " << c;
          }
        }
        for (Cells d = capture_dominated(b, c) & b.empty(); d.any(); d.drop_lowest()) {
          ASSERT_NE(d.lowest(), c);
          ++captured;
          if (win_after(d.lowest())) {
            ++captured_wins;
            ASSERT_TRUE(win_after(c)) << "n " << n << " position " << i << ": " << c << " dominates " << d.lowest();
          }
        }
      }
    }
  }
  // Both kinds occur, also where the dominated move wins (the check is not vacuous).
  EXPECT_GT(killed_wins, 0);
  EXPECT_GT(captured_wins, 0);
  std::printf("killer pairs: %d (%d with a winning dominated move); capture-dominated pairs: %d (%d)\n", killed,
              killed_wins, captured, captured_wins);
}

TEST(HexDominatedMoves, TheMovesKeptHoldAWinningMoveWheneverThereIsOne) {
  // Dropping cells one at a time, each for a dominator still kept, leaves a move as good as the
  // best: the kept moves win whenever any move wins (and some move is always kept). The
  // reference: the solver without pruning (its fillings and connections are checked against
  // plain minimax above).
  HexSolver plain({.prune_dominated = false});
  int positions = 0, pruned = 0, moves = 0;
  for (const auto& [n, stones] :
       std::vector<std::pair<int, int>>{{3, 1}, {3, 3}, {4, 2}, {4, 5}, {4, 8}, {5, 10}, {5, 13}}) {
    for (u32 i = 0; i < 60; ++i) {
      Board b = random_position_either_side(n, stones, 43, i);
      if (b.terminal()) continue;
      const Cells kept = undominated_moves(b, b.empty());
      ASSERT_TRUE(kept.any());
      ASSERT_TRUE((kept & b.empty()) == kept);
      ++positions;
      moves += b.empty().count();
      pruned += b.empty().count() - kept.count();
      bool any_wins = false, kept_wins = false;
      for (Cells e = b.empty(); e.any(); e.drop_lowest()) {
        const bool w = !plain.wins(b.play(e.lowest()));
        any_wins |= w;
        kept_wins |= w && kept.has(e.lowest());
      }
      ASSERT_EQ(kept_wins, any_wins) << "n " << n << " position " << i;
    }
  }
  EXPECT_GT(pruned, 0);
  std::printf("dominated moves: %d of %d left out in %d positions\n", pruned, moves, positions);
}

TEST(HexSolver, ProofNumberSearchAndNegamaxAgreeOnEveryPosition) {
  // df-pn against the previous solver (negamax, dead cells only) on random 5 x 5 and 6 x 6
  // positions, both with connections and must-play; and df-pn without connections on 4 x 4.
  HexSolver pn, negamax({.fill_captured = false, .proof_numbers = false}),
      pn_plain({.fill_captured = false, .use_vcs = false}),
      minimax({.fill_dead = false, .proof_numbers = false, .use_vcs = false, .prune_dominated = false});
  int wins = 0, total = 0;
  for (const auto& [n, stones] : std::vector<std::pair<int, int>>{{4, 2}, {4, 5}, {5, 4}, {5, 9}, {6, 14}, {6, 18}}) {
    for (u32 i = 0; i < 25; ++i) {
      const Board b = random_position(n, stones, 31, static_cast<u32>(n * 1000 + stones * 40) + i);
      const bool value = pn.wins(b);
      wins += value;
      ++total;
      ASSERT_EQ(value, negamax.wins(b)) << "n " << n << " position " << i;
      if (n == 4) {
        ASSERT_EQ(pn_plain.wins(b), value) << "n " << n << " position " << i;
        ASSERT_EQ(minimax.wins(b), value) << "n " << n << " position " << i;
      }
    }
  }
  // Both results occur (the positions are not all one-sided).
  EXPECT_GT(wins, 0);
  EXPECT_LT(wins, total);
}

TEST(HexSolver, OpeningTablesMatchPlainMinimaxUpToFourByFour) {
  // 2 x 2 by hand: b1 and a2 touch both of the other row's cells, so Black wins from them; from
  // a1 (or b2) White takes the one cell of the far row that touches it and wins.
  const OpeningTable two = solve_openings(2);
  ASSERT_EQ(two.squares.size(), 4u);
  for (std::size_t k = 0; k < two.squares.size(); ++k) {
    const int sq = two.squares[k];
    EXPECT_EQ(two.black_wins[k], sq == square_of(1, 0) || sq == square_of(0, 1)) << sq;
  }
  for (int n = 1; n <= 4; ++n) {
    const OpeningTable t = solve_openings(n);
    const OpeningTable reference =
        solve_openings(n, {.fill_dead = false, .proof_numbers = false, .use_vcs = false, .prune_dominated = false});
    EXPECT_EQ(t.black_wins, reference.black_wins) << n;
    if (n <= 3) {
      for (std::size_t k = 0; k < t.squares.size(); ++k) {
        EXPECT_EQ(t.black_wins[k], !minimax_wins(empty_board(n).play(t.squares[k]))) << n << " " << t.squares[k];
      }
    }
    if (n >= 3) {
      EXPECT_LT(t.nodes, reference.nodes) << n;  // the fill-in and the connections save nodes
    }
  }
}

TEST(HexSolver, TheFirstPlayerWinsOnEveryBoardUpToFiveAndTablesAreSymmetric) {
  for (int n = 1; n <= 5; ++n) {
    const OpeningTable t = solve_openings(n);
    int wins = 0;
    for (std::size_t k = 0; k < t.squares.size(); ++k) {
      wins += t.black_wins[k];
      // The half-turn keeps each colour's edges: a cell and its image have one result.
      const auto image = std::find(t.squares.begin(), t.squares.end(), rotate_square(t.squares[k], n));
      ASSERT_NE(image, t.squares.end());
      EXPECT_EQ(t.black_wins[k], t.black_wins[static_cast<std::size_t>(image - t.squares.begin())]) << n;
    }
    EXPECT_GT(wins, 0) << n;  // strategy stealing: the first player has a winning move
    // The acute corner a1 is known to lose as a first move on every board from 2 x 2 on.
    if (n >= 2) {
      EXPECT_FALSE(t.black_wins[0]) << n;
    }
  }
  EXPECT_NE(error_of([] { solve_openings(4, {.max_nodes = 10}); }).find("gave up after 10 nodes"), std::string::npos);
  EXPECT_NE(error_of([] { solve_openings(0); }).find("size"), std::string::npos);
}

TEST(HexSolver, SixBySixOpeningsMatchThePublishedTable) {
  // The outside reference: the University of Alberta Hex group's solver suite (benzene,
  // regression/dfpn-solve-6x6.tst) gives the winner after each first move of Black on 6 x 6 in
  // the same cell names and edges as ours. Rows 1-6, columns a-f; W: Black wins.
  const char* published[6] = {"LLLLLW", "LWWWWW", "WWWWWW", "WWWWWW", "WWWWWL", "WLLLLL"};
  const OpeningTable t = solve_openings(6);
  ASSERT_EQ(t.squares.size(), 36u);
  for (std::size_t k = 0; k < t.squares.size(); ++k) {
    const int sq = t.squares[k];
    EXPECT_EQ(t.black_wins[k], published[row_of(sq)][col_of(sq)] == 'W') << play::hex_cell_name(sq);
  }
}

TEST(HexSolver, TheSolveCommandDrawsTheTableAndRefusesABadSize) {
  const auto [status, out] = test::run_command(std::string(EF_EVALFORGE_BIN) + " hex solve --size 3 2>&1");
  ASSERT_EQ(status, 0) << out;
  EXPECT_NE(out.find(" 1  L L W"), std::string::npos) << out;  // c1, the obtuse corner, wins
  EXPECT_NE(out.find("5 winning first moves of 9"), std::string::npos) << out;
  const auto [bad, message] = test::run_command(std::string(EF_EVALFORGE_BIN) + " hex solve --size 14 2>&1");
  EXPECT_NE(bad, 0);
  EXPECT_NE(message.find("--size"), std::string::npos) << message;
  // A position: after Black's losing a1 on 3 x 3, White to move wins, and the winning moves are
  // those the solver finds one by one.
  const auto [ok, position] = test::run_command(std::string(EF_EVALFORGE_BIN) + " hex solve --size 3 --moves a1 2>&1");
  ASSERT_EQ(ok, 0) << position;
  EXPECT_NE(position.find("White to move wins; winning moves"), std::string::npos) << position;
  HexSolver solver;
  const Board after_a1 = empty_board(3).play(square_of(0, 0));
  std::string listed;
  for (Cells e = after_a1.empty(); e.any(); e.drop_lowest())
    if (!solver.wins(after_a1.play(e.lowest()))) listed += " " + play::hex_cell_name(e.lowest());
  EXPECT_NE(position.find(":" + listed + "\n"), std::string::npos) << position << " expected" << listed;
  // --winner-only: one search, the same answer; it needs a position.
  const auto [one, winner] =
      test::run_command(std::string(EF_EVALFORGE_BIN) + " hex solve --size 3 --moves a1 --winner-only 2>&1");
  ASSERT_EQ(one, 0) << winner;
  EXPECT_NE(winner.find("White to move wins\n"), std::string::npos) << winner;
  const auto [refused, why] =
      test::run_command(std::string(EF_EVALFORGE_BIN) + " hex solve --size 3 --winner-only 2>&1");
  EXPECT_NE(refused, 0);
  EXPECT_NE(why.find("needs --moves"), std::string::npos) << why;
  // The table's progress: each first move as it is solved.
  EXPECT_NE(out.find("c1: Black wins"), std::string::npos) << out;
  // The other searches draw the same 4 x 4 table and say which search ran.
  for (const std::string flags : {"", " --negamax", " --no-captured", " --negamax --no-captured"}) {
    const auto [rc, table] =
        test::run_command(std::string(EF_EVALFORGE_BIN) + " hex solve --size 4" + flags + " 2>/dev/null");
    ASSERT_EQ(rc, 0) << flags;
    EXPECT_NE(table.find(" 1  L L L W\n  2  L L W L\n   3  L W L L\n    4  W L L L\n"), std::string::npos)
        << flags << table;
    EXPECT_NE(table.find(flags.find("negamax") != std::string::npos ? "(negamax, " : "(df-pn, "), std::string::npos)
        << table;
    EXPECT_NE(table.find(flags.find("no-captured") != std::string::npos ? "dead cells filled"
                                                                        : "dead and captured cells filled"),
              std::string::npos)
        << table;
  }
  for (const char* moves : {"a1 a1", "z9", "a1 b1 a2 b2 a3"}) {
    const auto [status, out] =
        test::run_command(std::string(EF_EVALFORGE_BIN) + " hex solve --size 3 --moves '" + moves + "' 2>&1");
    EXPECT_NE(status, 0) << moves;
    EXPECT_NE(out.find("moves"), std::string::npos) << out;
  }
}

TEST(HexVc, TheBridgeAndTheEdgeTemplateAreFullConnections) {
  // b2 and c3 share the empty neighbours c2 and b3: a bridge, carrier exactly those two.
  const int b2 = square_of(1, 1), c3 = square_of(2, 2), c2 = square_of(2, 1), b3 = square_of(1, 2);
  const Board b = with_stones(5, {b2, c3}, {}, kWhite);
  const VcGraph black(b, kBlack);
  ASSERT_FALSE(black.full(b2, c3).empty());
  EXPECT_TRUE(black.full(b2, c3).front() == cells_of({c2, b3}));
  // c2 on row 2 reaches row 1 through c1 or d1: the edge template, a full connection.
  const VcGraph edge(with_stones(5, {c2}, {}, kWhite), kBlack);
  ASSERT_FALSE(edge.full(c2, VcGraph::kEdge0).empty());
  EXPECT_TRUE(edge.full(c2, VcGraph::kEdge0).front() == cells_of({square_of(2, 0), square_of(3, 0)}));
  // With White on c1, only d1 is left: a semi connection (key d1), no full one.
  const VcGraph blocked(with_stones(5, {c2}, {square_of(2, 0)}, kBlack), kBlack);
  EXPECT_TRUE(blocked.full(c2, VcGraph::kEdge0).empty());
  ASSERT_FALSE(blocked.semi(c2, VcGraph::kEdge0).empty());
  EXPECT_TRUE(blocked.semi(c2, VcGraph::kEdge0).front().carrier == cells_of({square_of(3, 0)}));
  EXPECT_EQ(blocked.semi(c2, VcGraph::kEdge0).front().key, square_of(3, 0));
  // A stone of the other colour is no endpoint.
  EXPECT_TRUE(blocked.full(square_of(2, 0), VcGraph::kEdge0).empty());
  // On 2 x 2, b1 touches both cells of row 2: Black's edges are connected whoever moves.
  EXPECT_TRUE(VcGraph(with_stones(2, {square_of(1, 0)}, {}, kWhite), kBlack).edges_connected());
  EXPECT_FALSE(VcGraph(with_stones(2, {square_of(0, 0)}, {}, kWhite), kBlack).edges_connected());
}

TEST(HexVc, LinksAreTheFullConnectionsBeyondAdjacency) {
  // b2 and c3: the bridge, a link whose common cells are its carrier. c2 (row 2) reaches row 1
  // by the edge template: a link from edge 0 to c2, common cells c1 and d1. Adjacent cells give
  // no link.
  const int b2 = square_of(1, 1), c3 = square_of(2, 2), c2 = square_of(2, 1), b3 = square_of(1, 2);
  const VcGraph black(with_stones(5, {b2, c3}, {}, kWhite), kBlack);
  bool bridge = false;
  const Board bridged = with_stones(5, {b2, c3}, {}, kWhite);
  for (const VcLink& l : black.links()) {
    EXPECT_FALSE(l.common.without(bridged.empty()).any());  // empty cells (none: no one stone breaks it)
    EXPECT_FALSE((l.a & l.b).any());
    if (l.edge == 0 && l.a == cells_of({b2}) && l.b == cells_of({c3})) {
      bridge = true;
      EXPECT_TRUE(l.common == cells_of({c2, b3}));
    }
    const bool adjacent = l.edge == 0 && (neighbours(l.a, empty_board(5).on_board) & l.b).any();
    EXPECT_FALSE(adjacent);
  }
  EXPECT_TRUE(bridge);
  const VcGraph edge(with_stones(5, {c2}, {}, kWhite), kBlack);
  bool templ = false;
  for (const VcLink& l : edge.links())
    if (l.edge == VcGraph::kEdge0 && l.b == cells_of({c2})) {
      templ = true;
      EXPECT_TRUE(l.common == cells_of({square_of(2, 0), square_of(3, 0)}));
    }
  EXPECT_TRUE(templ);
}

TEST(HexVc, ChildCircuitsKeepTheConnectionsTheMoveCannotBreak) {
  // White's bridge b2-c3 on 5 x 5: in the circuit after a Black move on c2 (in the carrier) it
  // is gone; after a Black move elsewhere, or a White move anywhere, it stays.
  const int b2 = square_of(1, 1), c3 = square_of(2, 2), c2 = square_of(2, 1), e5 = square_of(4, 4);
  const Board b = with_stones(5, {}, {b2, c3}, kBlack);
  const std::vector<CircuitLink> links = circuit_links(VcGraph(b, kWhite).links(), b.n);
  auto has_bridge = [&](const std::vector<ResistorLink>& r) {
    return std::any_of(r.begin(), r.end(),
                       [&](const ResistorLink& l) { return (l.a == b2 && l.b == c3) || (l.a == c3 && l.b == b2); });
  };
  ASSERT_TRUE(has_bridge(child_resistors(links, kWhite, kWhite, c2)));
  EXPECT_FALSE(has_bridge(child_resistors(links, kWhite, kBlack, c2)));
  EXPECT_TRUE(has_bridge(child_resistors(links, kWhite, kBlack, e5)));
  EXPECT_LT(child_resistors(links, kWhite, kBlack, c2).size(), links.size());
  // In the search, the connections change the leaves' values: depth 1 with and without them
  // differs on most open 9 x 9 positions.
  int differ = 0, open = 0;
  for (u32 i = 0; i < 20; ++i) {
    const Board p = random_position(9, 8, 61, i);
    const VcSearchResult plain = VcAlphaBeta(vc_search(1, 10)).choose(p);
    const VcSearchResult linked = VcAlphaBeta(vc_search(1, 10, VcLeaf::kVcResistance)).choose(p);
    if (plain.proven || linked.proven) continue;
    ++open;
    differ += plain.value != linked.value;
  }
  EXPECT_GT(open, 10);
  EXPECT_GT(differ, open / 2);
  std::printf("vc-resistance leaves: %d of %d open positions valued otherwise\n", differ, open);
}

// The effective resistance of a circuit with extra resistors by a plain dense solve: the
// Laplacian over the cells joined to edge 0 (as characteristics.hpp defines the circuit), the
// links added as resistors r(a) + r(b) (r(a) to an edge), Gauss-Jordan elimination with partial
// pivoting. An implementation of its own, for the banded one to be checked against.
double dense_resistance(const Board& b, int colour, const std::vector<ResistorLink>& links) {
  const int n = b.n;
  const double own_r = 1e-4;
  const Cells members = b.on_board.without(b.stones[colour ^ 1]);
  Cells comp = members & edge_cells(colour, 0, n);
  for (Cells f = comp; f.any();) {
    f = neighbours(f, members).without(comp);
    comp |= f;
  }
  if (!(comp & edge_cells(colour, 1, n)).any()) return kNoConnection;
  std::vector<int> cells;
  std::vector<int> at(kSquares, -1);
  for (Cells c = comp; c.any(); c.drop_lowest()) {
    at[static_cast<std::size_t>(c.lowest())] = static_cast<int>(cells.size());
    cells.push_back(c.lowest());
  }
  const std::size_t m = cells.size();
  std::vector<std::vector<double>> A(m, std::vector<double>(m + 1, 0.0));  // last column: rhs
  std::vector<double> g0(m, 0.0);
  auto r = [&](int sq) { return b.stones[colour].has(sq) ? own_r : 1.0; };
  auto join = [&](int x, int y) {
    const double g = 1.0 / (r(x) + r(y));
    const std::size_t i = static_cast<std::size_t>(at[static_cast<std::size_t>(x)]),
                      j = static_cast<std::size_t>(at[static_cast<std::size_t>(y)]);
    A[i][i] += g;
    A[j][j] += g;
    A[i][j] -= g;
    A[j][i] -= g;
  };
  auto to_edge = [&](int x, int e) {
    const std::size_t i = static_cast<std::size_t>(at[static_cast<std::size_t>(x)]);
    A[i][i] += 1.0 / r(x);
    if (e == 0) {
      A[i][m] += 1.0 / r(x);
      g0[i] += 1.0 / r(x);
    }
  };
  for (int x : cells) {
    for (Cells nb = neighbours(Cells::bit(x), comp); nb.any(); nb.drop_lowest())
      if (nb.lowest() > x) join(x, nb.lowest());
    for (int e = 0; e < 2; ++e)
      if (edge_cells(colour, e, n).has(x)) to_edge(x, e);
  }
  for (const ResistorLink& l : links) {
    if (!comp.has(l.a)) continue;
    if (l.b == kLinkEdge0 || l.b == kLinkEdge1) {
      to_edge(l.a, l.b == kLinkEdge0 ? 0 : 1);
    } else if (comp.has(l.b)) {
      join(l.a, l.b);
    }
  }
  for (std::size_t k = 0; k < m; ++k) {
    std::size_t p = k;
    for (std::size_t i = k + 1; i < m; ++i)
      if (std::abs(A[i][k]) > std::abs(A[p][k])) p = i;
    std::swap(A[k], A[p]);  // rows are equations; the unknowns (columns) keep their cells
    for (std::size_t i = 0; i < m; ++i) {
      if (i == k || A[i][k] == 0.0) continue;
      const double f = A[i][k] / A[k][k];
      for (std::size_t j = k; j <= m; ++j) A[i][j] -= f * A[k][j];
    }
  }
  // Row k now holds the unknown of column k.
  double current = 0.0;
  for (std::size_t k = 0; k < m; ++k) current += g0[k] * (1.0 - A[k][m] / A[k][k]);
  return 1.0 / current;
}

TEST(HexVc, ResistanceWithLinksMatchesADenseSolve) {
  // Random positions, random links (cell to cell up to two rows apart, cell to edge): the banded
  // solve equals a dense one; no links gives the plain evaluator's resistance bit for bit; links
  // lower the resistance (or leave it); a link wider than the band (27 cells in row order) is left out.
  int checked = 0;
  for (const auto& [n, stones] : std::vector<std::pair<int, int>>{{3, 2}, {5, 6}, {7, 12}, {9, 20}, {11, 30}}) {
    for (u32 i = 0; i < 8; ++i) {
      const Board b = random_position(n, stones, 53, static_cast<u32>(n * 100) + i);
      Rng rng(59, Purpose::kDatagen, static_cast<u32>(n * 100) + i);
      const Cells cells = b.on_board;
      for (int colour : {kBlack, kWhite}) {
        std::vector<ResistorLink> links;
        for (int k = 0; k < 3 * n; ++k) {
          const int a = cells.nth(rng.below(static_cast<u32>(cells.count())));
          if (k % 4 == 0) {
            links.push_back({a, k % 8 == 0 ? kLinkEdge0 : kLinkEdge1});
            continue;
          }
          const int dc = static_cast<int>(rng.below(5)) - 2, dr = static_cast<int>(rng.below(3));
          const int col = col_of(a) + dc, row = row_of(a) + dr;
          if (col < 0 || col >= n || row >= n || (dc == 0 && dr == 0)) continue;
          links.push_back({a, square_of(col, row)});
        }
        const double plain = effective_resistance(b, colour);
        EXPECT_EQ(effective_resistance(b, colour, 1e-4, nullptr, 0), plain);
        const double banded = effective_resistance(b, colour, 1e-4, links.data(), static_cast<int>(links.size()));
        const double dense = dense_resistance(b, colour, links);
        if (plain >= kNoConnection) {
          EXPECT_GE(banded, kNoConnection);
          continue;
        }
        EXPECT_NEAR(banded, dense, 1e-9 * dense) << n << " " << i << " colour " << colour;
        EXPECT_LE(banded, plain * (1 + 1e-12));
        ++checked;
        // A link wider than the band (a1 to the far corner, 48+ cells apart in row order) is left out.
        const std::vector<ResistorLink> wide = {{square_of(0, 0), square_of(n - 1, n - 1)}};
        if (n >= 7 && b.empty().has(square_of(0, 0)) && b.empty().has(square_of(n - 1, n - 1))) {
          EXPECT_EQ(effective_resistance(b, colour, 1e-4, wide.data(), 1), plain);
        }
      }
    }
  }
  EXPECT_GT(checked, 40);
}

TEST(HexVc, EdgeConnectionsAndTheMustPlayRegionAreSoundAgainstTheExactSolver) {
  HexSolver exact({.use_vcs = false});  // dead and captured cells filled: sound (tests above)
  int full = 0, semi = 0, keys = 0, pruned = 0;
  for (const auto& [n, stones] : std::vector<std::pair<int, int>>{{3, 1}, {3, 3}, {4, 3}, {4, 6}, {5, 10}, {5, 13}}) {
    for (u32 i = 0; i < 40; ++i) {
      const Board b = random_position(n, stones, 23, static_cast<u32>(n * 1000 + stones * 40) + i);
      for (int colour : {kBlack, kWhite}) {
        const VcGraph g(b, colour);
        const bool colour_wins = (b.side == colour) == exact.wins(b);
        if (g.edges_connected()) {
          ++full;
          EXPECT_TRUE(colour_wins) << n << " " << i << " colour " << colour;
        }
        if (b.side == colour && !g.semi(VcGraph::kEdge0, VcGraph::kEdge1).empty()) {
          ++semi;
          EXPECT_TRUE(colour_wins) << n << " " << i << " colour " << colour;
          // Each key is in its carrier and wins: it makes the connection full.
          for (const SemiVc& v : g.semi(VcGraph::kEdge0, VcGraph::kEdge1)) {
            ++keys;
            EXPECT_TRUE(v.carrier.has(v.key)) << n << " " << i << " key " << v.key;
            EXPECT_FALSE(exact.wins(b.play(v.key))) << n << " " << i << " key " << v.key;
          }
        }
        if (b.side != colour && !g.edges_connected() && !g.semi(VcGraph::kEdge0, VcGraph::kEdge1).empty()) {
          // Every move of the side to move outside the must-play region loses.
          for (Cells outside = b.empty().without(g.must_play()); outside.any(); outside.drop_lowest()) {
            ++pruned;
            EXPECT_TRUE(exact.wins(b.play(outside.lowest()))) << n << " " << i << " move " << outside.lowest();
          }
        }
      }
    }
  }
  // The positions did exercise every rule.
  EXPECT_GT(full, 10);
  EXPECT_GT(semi, 10);
  EXPECT_GT(keys, semi);
  EXPECT_GT(pruned, 10);
  std::printf("edge connections checked: %d full, %d semi (%d keys), %d moves outside the must-play region\n", full,
              semi, keys, pruned);
}

TEST(HexVc, GuardedMovesKeepWonGamesAndStayInTheMustPlayRegion) {
  // Random positions where one side has an edge connection: with the connected side to move,
  // the guard turns any move into one that still wins; with the other side to move, into one
  // inside the must-play region.
  HexSolver exact({.use_vcs = false});
  int kept = 0, defended = 0;
  for (const auto& [n, stones] : std::vector<std::pair<int, int>>{{4, 4}, {4, 6}, {5, 10}, {5, 12}}) {
    for (u32 i = 0; i < 60; ++i) {
      const Board b = random_position(n, stones, 29, static_cast<u32>(n * 1000 + stones * 60) + i);
      Board f = b;
      fill_dead(f);
      if (f.terminal()) continue;
      const VcGraph mine(f, b.side), theirs(f, b.side ^ 1);
      const bool won = mine.edges_connected() || !mine.semi(VcGraph::kEdge0, VcGraph::kEdge1).empty();
      const bool threatened =
          !won && !theirs.edges_connected() && !theirs.semi(VcGraph::kEdge0, VcGraph::kEdge1).empty();
      if (!won && !threatened) continue;
      for (Cells e = b.empty(); e.any(); e.drop_lowest()) {
        const int m = vc_guarded_move(b, e.lowest());
        ASSERT_TRUE(b.legal(m)) << n << " " << i;
        if (won) {
          ++kept;
          EXPECT_FALSE(exact.wins(b.play(m))) << n << " " << i << " chose " << e.lowest() << " played " << m;
        } else {
          ++defended;
          EXPECT_TRUE(theirs.must_play().has(m)) << n << " " << i;
        }
      }
    }
  }
  EXPECT_GT(kept, 20);
  EXPECT_GT(defended, 20);
  // 6 x 6, Black f4, White b2, Black to move: Black's semi connection wins (c2, e2, d3 and c4
  // win, by the solver), but after none of them does H-search prove a full connection. The guard
  // used to keep the player's f1 then, which loses; a semi connection's key wins by construction.
  Board corner = empty_board(6).play(square_of(5, 3)).play(square_of(1, 1));
  const int m = vc_guarded_move(corner, square_of(5, 0));
  HexSolver solver;                                        // with VCs: fast on 6 x 6, and sound (tests above)
  EXPECT_TRUE(solver.wins(corner.play(square_of(5, 0))));  // f1 loses
  EXPECT_FALSE(solver.wins(corner.play(m))) << "played " << m;
  // Specs: vc=1 for any kind, canonical only when on; a bad value is refused.
  EXPECT_EQ(play::parse_hex_player("uct:playouts=100,vc=1").spec, "uct:playouts=100,c=0.38,expand=1,batch=1,vc=1");
  EXPECT_TRUE(play::parse_hex_player("random:vc=1").vc);
  EXPECT_EQ(play::parse_hex_player("random:vc=1").spec, "random:vc=1");
  EXPECT_FALSE(play::parse_hex_player("resistance:vc=0").vc);
  EXPECT_EQ(play::parse_hex_player("resistance:vc=0").spec, "resistance:depth=1,epsilon=0");
  EXPECT_NE(error_of([] { play::parse_hex_player("ev:vc=2"); }).find("vc=2"), std::string::npos);
}

TEST(HexVc, PrunedUctKeepsWonGamesDefendsAndNeverPlaysADeadCell) {
  // uct:prune=vc on random small positions: a side with an edge connection plays a move that still
  // wins (exact solver: plain minimax, or with connections on open 5 x 5 positions, as below;
  // none on the larger boards), a threatened side plays in the must-play region, and no move is
  // a cell the filling found dead.
  HexSolver plain({.use_vcs = false}), with_vcs;
  const play::HexPlayer pruned = play::parse_hex_player("uct:playouts=40,prune=vc");
  play::HexTable table;
  int kept = 0, defended = 0, open = 0;
  for (const auto& [n, stones] :
       std::vector<std::pair<int, int>>{{4, 4}, {4, 6}, {5, 10}, {5, 4}, {5, 6}, {6, 4}, {6, 8}, {7, 6}, {7, 10}}) {
    HexSolver* exact = n == 4 || (n == 5 && stones >= 10) ? &plain : (n == 5 ? &with_vcs : nullptr);
    for (u32 i = 0; i < 30; ++i) {
      const Board b = random_position(n, stones, 43, static_cast<u32>(n * 1000 + stones * 40) + i);
      Board f = b;
      const Cells dead = fill_dead(f);
      if (f.terminal()) continue;
      const VcGraph mine(f, b.side), theirs(f, b.side ^ 1);
      const bool won = mine.edges_connected() || !mine.semi(VcGraph::kEdge0, VcGraph::kEdge1).empty();
      const bool lost = !won && theirs.edges_connected();
      const bool threatened = !won && !lost && !theirs.semi(VcGraph::kEdge0, VcGraph::kEdge1).empty();
      Rng rng(7, Purpose::kGame, i);
      u64 nodes = 0;
      const int m = table.choose(pruned, b, rng, nodes);
      ASSERT_TRUE(b.legal(m)) << n << " " << i;
      if (won) {
        ++kept;
        if (exact) {
          EXPECT_FALSE(exact->wins(b.play(m))) << n << " " << i << " played " << m;
        }
      } else if (threatened) {
        ++defended;
        EXPECT_TRUE(theirs.must_play().has(m)) << n << " " << i;
      } else if (!lost) {
        ++open;
        EXPECT_FALSE(dead.has(m)) << n << " " << i;
      }
    }
  }
  EXPECT_GT(kept, 20);
  EXPECT_GT(defended, 5);
  EXPECT_GT(open, 5);
  std::printf("pruned UCT: %d won positions kept, %d defended, %d open\n", kept, defended, open);
}

TEST(HexVcSearch, ProvenValuesAreTheSolversAndProvenWinsArePlayed) {
  // Positions small enough for plain minimax (dead cells filled, no connections) are nearly all
  // proven at the root already; open 5 x 5 positions with few stones get the solver with
  // connections, whose own tables are checked against plain minimax above and against strategy
  // stealing (its connections are the same H-search, but not the cuts of the search under test).
  HexSolver plain({.use_vcs = false}), with_vcs;
  int wins = 0, losses = 0, open = 0;
  for (const auto& [n, stones] :
       std::vector<std::pair<int, int>>{{4, 2}, {4, 5}, {5, 11}, {5, 13}, {6, 20}, {5, 2}, {5, 4}, {5, 6}}) {
    HexSolver& exact = n == 5 && stones < 10 ? with_vcs : plain;
    for (u32 i = 0; i < 30; ++i) {
      const Board b = random_position(n, stones, 31, static_cast<u32>(n * 1000 + stones * 40) + i);
      // Depth 3 with width 1 or 2 cuts most nodes: a loss there must not be called proven.
      VcSearchParams captured = vc_search(3, 2);
      captured.fill_captured = true;  // captured pairs filled too
      for (const VcSearchParams& p :
           {vc_search(2, 6), vc_search(2, 6, VcLeaf::kEv), vc_search(2, 6, VcLeaf::kVcResistance), vc_search(3, 2),
            vc_search(3, 1), captured}) {
        const VcSearchResult r = VcAlphaBeta(p).choose(b);
        ASSERT_TRUE(b.legal(r.move)) << n << " " << i;
        ASSERT_NE(r.move, kSwapSquare);
        const bool won = exact.wins(b);
        if (r.proven > 0) {
          ++wins;
          EXPECT_TRUE(won) << n << " " << i;
          EXPECT_FALSE(exact.wins(b.play(r.move))) << n << " " << i << " move " << r.move;
        } else if (r.proven < 0) {
          ++losses;
          EXPECT_FALSE(won) << n << " " << i;
        } else {
          ++open;
        }
        EXPECT_GT(r.nodes, 0u);
      }
    }
  }
  // The positions exercised both proofs and plain evaluations.
  EXPECT_GT(wins, 40);
  EXPECT_GT(losses, 10);
  EXPECT_GT(open, 20);
  std::printf("VC alpha-beta: %d proven wins, %d proven losses, %d evaluated\n", wins, losses, open);
}

TEST(HexVcSearch, AlphaBetaGivesThePlainMinimaxValueOfTheSameTree) {
  // Cutoffs, the root's iterative deepening and the verdict table change the work, not the value:
  // the root value is the minimax value of the tree, and the move played has that value.
  int searched = 0, cut_losses = 0;
  for (const auto& [n, stones, depth, width] : std::vector<std::array<int, 4>>{
           {6, 4, 3, 4}, {7, 6, 3, 4}, {7, 8, 4, 3}, {9, 10, 3, 5}, {8, 6, 3, 1}, {9, 8, 4, 1}, {6, 6, 4, 1}}) {
    for (u32 i = 0; i < 12; ++i) {
      const Board b = random_position(n, stones, 41, static_cast<u32>(n * 1000 + stones * 12) + i);
      const VcSearchResult r = VcAlphaBeta(vc_search(depth, width)).choose(b);
      const i32 value = vc_minimax(b, depth, width, 0);
      EXPECT_EQ(r.value, value) << n << " " << i;
      if (value != vc_minimax(b, depth, width, 0, false)) ++cut_losses;
      Board f = b;
      fill_dead(f);
      if (r.proven > 0 || f.terminal()) continue;  // a won root plays vc_guarded_move's move
      if (r.searches > 2) ++searched;              // the root was open and its moves were searched
      // The move's own value: its child's, negated, one ply down (a cut root whose moves all
      // lose reports -kClamp, hence the floor on both sides).
      const Board after = f.play(r.move);
      const i32 own = after.terminal() ? kVcWin - 1 : -vc_minimax(after, depth - 1, width, 1);
      EXPECT_EQ(std::max(own, -kClamp), std::max(r.value, -kClamp)) << n << " " << i << " move " << r.move;
    }
  }
  EXPECT_GT(searched, 20);
  EXPECT_GT(cut_losses, 0);  // some trees had a cut node whose searched moves all lost
}

TEST(HexVcSearch, SearchedToTheEndOfTheGameItPlaysPerfectly) {
  // With at most `depth` empty cells and every move searched, each line ends on the board, so the
  // search is an exact minimax: its value is the solver's and a won position gets a winning move.
  HexSolver exact({.use_vcs = false});
  int won = 0, lost = 0;
  for (const auto& [n, stones] : std::vector<std::pair<int, int>>{{3, 5}, {3, 6}, {4, 12}, {4, 13}}) {
    for (u32 i = 0; i < 30; ++i) {
      const Board b = random_position(n, stones, 37, static_cast<u32>(n * 1000 + stones * 30) + i);
      ASSERT_LE(b.empty().count(), kMaxVcDepth);
      const VcSearchResult r = VcAlphaBeta(vc_search(kMaxVcDepth, n * n)).choose(b);
      const bool wins = exact.wins(b);
      EXPECT_EQ(r.proven, wins ? 1 : -1) << n << " " << i;
      if (wins) {
        ++won;
        EXPECT_FALSE(exact.wins(b.play(r.move))) << n << " " << i << " move " << r.move;
      } else {
        ++lost;
      }
    }
  }
  EXPECT_GT(won, 10);
  EXPECT_GT(lost, 10);
}

TEST(HexVcSearch, AClockStopsThePassesAndTheLastFinishedOneDecides) {
  // Without the clock firing (an hour a move), a clocked search is the fixed-depth one; with no
  // time at all, the first pass is stopped and the ordering's move (depth 1) is played. In
  // between, the depth finished lies between them and the move is legal (how deep it gets
  // depends on the machine: nothing here asks for a depth that takes time).
  for (u32 i = 0; i < 6; ++i) {
    const Board b = random_position(7, 6, 47, i);
    if (b.terminal()) continue;
    for (const bool prune : {false, true}) {
      VcSearchParams fixed = vc_search(2, 6, VcLeaf::kVcResistance), shallow = vc_search(1, 6, VcLeaf::kVcResistance);
      fixed.prune_dominated = shallow.prune_dominated = prune;
      VcSearchParams hour = fixed, none = fixed, some = fixed;
      hour.move_seconds = 3600;
      none.move_seconds = 1e-9;
      some.move_seconds = 0.05;
      some.depth = kMaxVcDepth;
      const VcSearchResult want = VcAlphaBeta(fixed).choose(b), got = VcAlphaBeta(hour).choose(b);
      EXPECT_EQ(got.move, want.move) << i;
      EXPECT_EQ(got.value, want.value) << i;
      EXPECT_EQ(got.nodes, want.nodes) << i;
      if (want.proven == 0) {
        EXPECT_EQ(want.depth, 2) << i;
      }
      const VcSearchResult first = VcAlphaBeta(shallow).choose(b), stopped = VcAlphaBeta(none).choose(b);
      EXPECT_EQ(stopped.move, first.move) << i;
      EXPECT_EQ(stopped.depth, 1) << i;
      const VcSearchResult r = VcAlphaBeta(some).choose(b);
      EXPECT_TRUE(b.legal(r.move)) << i;
      EXPECT_GE(r.depth, 1);
      EXPECT_LE(r.depth, kMaxVcDepth);
    }
  }
}

TEST(HexVcSearch, SpecsParseToCanonicalFormsAndBadOnesNameTheProblem) {
  const play::HexPlayer p = play::parse_hex_player("vcab");
  EXPECT_EQ(p.kind, play::HexPlayer::Kind::kVcSearch);
  EXPECT_EQ(p.spec, "vcab:depth=2,width=10,eval=vc-resistance");  // the default leaves
  const play::HexPlayer ev = play::parse_hex_player("vcab:eval=ev,gamma=0.25,depth=3,width=7");
  EXPECT_EQ(ev.spec, "vcab:depth=3,width=7,eval=ev,gamma=0.25");
  EXPECT_EQ(ev.vc_search.leaf, VcLeaf::kEv);
  EXPECT_EQ(play::parse_hex_player(ev.spec).spec, ev.spec);
  EXPECT_EQ(play::parse_hex_player("vcab:vc=1").spec, "vcab:depth=2,width=10,eval=vc-resistance,vc=1");
  const play::HexPlayer captured = play::parse_hex_player("vcab:fill=captured,depth=3");
  EXPECT_EQ(captured.spec, "vcab:depth=3,width=10,eval=vc-resistance,fill=captured");
  EXPECT_TRUE(captured.vc_search.fill_captured);
  EXPECT_EQ(play::parse_hex_player(captured.spec).spec, captured.spec);
  EXPECT_EQ(play::parse_hex_player("vcab:fill=dead").spec, p.spec);  // the default
  const play::HexPlayer pruned = play::parse_hex_player("vcab:prune=dominated,fill=captured");
  EXPECT_EQ(pruned.spec, "vcab:depth=2,width=10,eval=vc-resistance,fill=captured,prune=dominated");
  EXPECT_TRUE(pruned.vc_search.prune_dominated);
  EXPECT_EQ(play::parse_hex_player(pruned.spec).spec, pruned.spec);
  EXPECT_EQ(play::parse_hex_player("vcab:prune=none").spec, p.spec);      // the default
  const play::HexPlayer timed = play::parse_hex_player("vcab:time=0.5");  // a clock: the clock decides the depth
  EXPECT_EQ(timed.spec, "vcab:depth=8,width=10,eval=vc-resistance,time=0.5");
  EXPECT_EQ(play::parse_hex_player("vcab:time=0.5,depth=3").spec, "vcab:depth=3,width=10,eval=vc-resistance,time=0.5");
  EXPECT_EQ(play::parse_hex_player(timed.spec).spec, timed.spec);
  const play::HexPlayer linked = play::parse_hex_player("vcab:eval=vc-resistance,depth=3");
  EXPECT_EQ(linked.spec, "vcab:depth=3,width=10,eval=vc-resistance");
  EXPECT_EQ(linked.vc_search.leaf, VcLeaf::kVcResistance);
  EXPECT_EQ(play::parse_hex_player(linked.spec).spec, linked.spec);
  const play::HexPlayer plain = play::parse_hex_player("vcab:eval=resistance");
  EXPECT_EQ(plain.spec, "vcab:depth=2,width=10,eval=resistance");
  EXPECT_EQ(plain.vc_search.leaf, VcLeaf::kResistance);
  const std::pair<const char*, const char*> bad[] = {
      {"vcab:width=0", "width=0"},
      {"vcab:eval=uct", "eval=uct (use resistance, ev or vc-resistance)"},
      {"vcab:gamma=0.1", "gamma needs eval=ev"},
      {"vcab:eval=ev,gamma=-1", "gamma -1"},
      {"vcab:playouts=10", "unknown key 'playouts'"},
      {"vcab:fill=all", "fill=all"},
      {"vcab:prune=all", "prune=all (use none or dominated)"},
      {"vcab:time=-1", "time -1 is outside 0..3600 seconds"},
      {"vcab:depth=9", "depth=9"}};
  for (const auto& case_ : bad) {
    const char* spec = case_.first;  // plain variables: clang < 16 cannot capture structured bindings
    const char* message = case_.second;
    const std::string e = error_of([&] { play::parse_hex_player(spec); });
    EXPECT_NE(e.find(message), std::string::npos) << spec << ": " << e;
  }
  // Under the swap rule, vcab as White never swaps, and every move of its games is legal.
  play::HexTable table;
  const play::HexPlayer resistance = play::parse_hex_player("resistance");
  for (u64 seed : {5, 6}) {
    const play::HexRecord r = table.play(resistance, p, empty_board(6, true), seed, 0);
    ASSERT_GE(r.plies, 2);
    EXPECT_NE(r.moves[1], kSwapSquare);
    Board b = empty_board(6, true);
    for (int k = 0; k < r.plies; ++k) {
      ASSERT_TRUE(b.legal(r.moves[k])) << k;
      b = b.play(r.moves[k]);
    }
    EXPECT_TRUE(b.terminal());
  }
}
