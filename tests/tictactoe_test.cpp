// Tic-Tac-Toe rules against the facts of docs/method.md section 3.
#include <gtest/gtest.h>
#include <set>
#include "evalforge/engine/alphabeta.hpp"
#include "evalforge/games/tictactoe/game.hpp"

using namespace ef;
using tictactoe::Board;

namespace {

void collect_reachable(const Board& b, std::set<std::pair<u32, u32>>& seen) {
  if (!seen.insert({b.x, b.o}).second) return;
  for (u32 m = b.moves(); m; m &= m - 1) collect_reachable(b.play(ctz64(m)), seen);
}

struct GameCounts {
  u64 games = 0, x_wins = 0, o_wins = 0, draws = 0;
};

void count_games(const Board& b, GameCounts& c) {
  if (b.terminal()) {
    ++c.games;
    const int s = b.score_for_x();
    (s > 0 ? c.x_wins : (s < 0 ? c.o_wins : c.draws))++;
    return;
  }
  for (u32 m = b.moves(); m; m &= m - 1) count_games(b.play(ctz64(m)), c);
}

// Exact game value for the side to move, by plain recursion over the whole tree.
int perfect_value(const Board& b) {
  if (b.terminal()) return b.score();
  int best = -2;
  for (u32 m = b.moves(); m; m &= m - 1) best = std::max(best, -perfect_value(b.play(ctz64(m))));
  return best;
}

Board from_text(const char* rows) {  // 9 chars a1..c3 row-major: X, O or -
  Board b;
  for (int sq = 0; sq < 9; ++sq) {
    if (rows[sq] == 'X') b.x |= 1u << sq;
    if (rows[sq] == 'O') b.o |= 1u << sq;
  }
  b.side = popcount64(b.x) > popcount64(b.o) ? tictactoe::kO : tictactoe::kX;
  return b;
}

}  // namespace

TEST(TicTacToe, ReachablePositions5478And765UpToSymmetry) {
  std::set<std::pair<u32, u32>> seen;
  collect_reachable(Board{}, seen);
  EXPECT_EQ(seen.size(), 5478u);
  std::set<u32> classes;
  for (const auto& [x, o] : seen) {
    Board b;
    b.x = x;
    b.o = o;
    classes.insert(tictactoe::canonical_key(b));
  }
  EXPECT_EQ(classes.size(), 765u);
}

TEST(TicTacToe, CompleteGames255168) {
  GameCounts c;
  count_games(Board{}, c);
  EXPECT_EQ(c.games, 255168u);
  EXPECT_EQ(c.x_wins, 131184u);
  EXPECT_EQ(c.o_wins, 77904u);
  EXPECT_EQ(c.draws, 46080u);
}

TEST(TicTacToe, PerfectPlayIsADraw) {
  EXPECT_EQ(perfect_value(Board{}), 0);
  // The same through the generic alpha-beta at full depth, whatever the evaluator says.
  const search::SearchResult r = search::alphabeta<games::TicTacToe>(Board{}, 9, tictactoe::StaticEvaluator{});
  EXPECT_EQ(r.value, 0);
  EXPECT_GE(r.best_move, 0);
  EXPECT_EQ(perfect_value(Board{}.play(r.best_move)), 0);  // the chosen move keeps the draw
}

TEST(TicTacToe, WinsLinesAndScores) {
  const Board won = from_text("XXXOO----");  // X completed row 1, O to move
  EXPECT_EQ(won.winner(), tictactoe::kX);
  EXPECT_TRUE(won.terminal());
  EXPECT_EQ(won.moves(), 0u);
  EXPECT_EQ(won.score(), -1);
  EXPECT_EQ(won.score_for_x(), 1);
  const Board diag = from_text("OXXXO---O");  // O on a1-b2-c3, X to move
  EXPECT_EQ(diag.winner(), tictactoe::kO);
  EXPECT_EQ(diag.score(), -1);
  const Board draw = from_text("XOXXOOOXX");
  EXPECT_EQ(draw.winner(), tictactoe::kNobody);
  EXPECT_TRUE(draw.terminal());
  EXPECT_EQ(draw.score(), 0);
  const Board open = from_text("X---O----");
  EXPECT_FALSE(open.terminal());
  EXPECT_EQ(open.moves(), 0x1FFu & ~0x11u);
  EXPECT_EQ(open.side, tictactoe::kX);
}

TEST(TicTacToe, SymmetriesFormTheDihedralGroup) {
  const Board b = from_text("XO-X-----");  // a1 X, b1 O, a2 X: no symmetry
  std::set<std::pair<u32, u32>> images;
  for (int k = 0; k < 8; ++k) {
    const Board img = tictactoe::symmetry(b, k);
    images.insert({img.x, img.o});
    EXPECT_EQ(tictactoe::canonical_key(img), tictactoe::canonical_key(b));
    EXPECT_EQ(img.winner(), b.winner());
    EXPECT_EQ(tictactoe::static_value_for_x(img), tictactoe::static_value_for_x(b));
    // Moves commute with the symmetry.
    EXPECT_EQ(img.moves(), tictactoe::symmetry(b.moves(), k));
  }
  EXPECT_EQ(images.size(), 8u);
  EXPECT_EQ(tictactoe::symmetry(0x1FFu, 5), 0x1FFu);
  EXPECT_EQ(tictactoe::symmetry_square(0, 1), 2);  // a1 -> c1 (mirror files)
  EXPECT_EQ(tictactoe::symmetry_square(0, 2), 6);  // a1 -> a3 (mirror ranks)
  EXPECT_EQ(tictactoe::symmetry_square(1, 4), 3);  // b1 -> a2 (transpose)
}

TEST(TicTacToe, StaticEvaluatorByHand) {
  EXPECT_EQ(tictactoe::static_value_for_x(Board{}), 0);
  EXPECT_EQ(tictactoe::static_value_for_x(from_text("XX-------")), 20);       // open two
  EXPECT_EQ(tictactoe::static_value_for_x(from_text("XXO------")), 10);       // blocked two
  EXPECT_EQ(tictactoe::static_value_for_x(from_text("XXXOO----")), 30 - 20);  // line; O's open two on row 2
  // Row 3 and file c: O's open twos (-20 each); a1-b2-c3: X's two blocked by O (+10);
  // c1-b2-a3: O's two blocked by X (-10).
  EXPECT_EQ(tictactoe::static_value_for_x(from_text("X-O-X-O-O")), -20 - 20 + 10 - 10);
  // The evaluator for the search is the value for the side to move.
  const Board o_to_move = from_text("XX-------");
  EXPECT_EQ(tictactoe::StaticEvaluator{}.eval(o_to_move), -20);
  EXPECT_EQ(tictactoe::StaticEvaluator{}.exact(-1), -1000);
}
