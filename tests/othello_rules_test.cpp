#include <gtest/gtest.h>
#include "evalforge/games/othello/bitboard.hpp"
#include "evalforge/games/othello/squares.hpp"

using namespace ef;
using namespace ef::othello;

// Perft values from docs/anchors.md (a pass counted as a move), depths 1..9.
TEST(Perft, MatchesPublishedCountsToDepth9) {
  const u64 expected[] = {4, 12, 56, 244, 1396, 8200, 55092, 390216, 3005288};
  for (int d = 1; d <= 9; ++d) EXPECT_EQ(perft(kStartBlack, kStartWhite, d), expected[d - 1]) << "depth " << d;
}

TEST(Squares, NamesRoundTrip) {
  EXPECT_EQ(parse_square("a1"), 0);
  EXPECT_EQ(parse_square("h1"), 7);
  EXPECT_EQ(parse_square("A8"), 56);
  EXPECT_EQ(parse_square("h8"), 63);
  EXPECT_FALSE(parse_square("i1"));
  EXPECT_FALSE(parse_square("a9"));
  EXPECT_FALSE(parse_square("a10"));
  for (int sq = 0; sq < 64; ++sq) EXPECT_EQ(parse_square(square_name(sq)), sq);
}

TEST(Rules, OpeningMovesAndFlips) {
  Board b;
  // Black's four legal first moves: d3, c4, f5, e6.
  const u64 expected = (u64{1} << *parse_square("d3")) | (u64{1} << *parse_square("c4")) |
                       (u64{1} << *parse_square("f5")) | (u64{1} << *parse_square("e6"));
  EXPECT_EQ(b.moves(), expected);
  EXPECT_FALSE(b.play(*parse_square("a1")));
  ASSERT_TRUE(b.play(*parse_square("f5")));  // flips e5
  EXPECT_EQ(b.side, kWhite);
  EXPECT_EQ(popcount64(b.black()), 4);
  EXPECT_EQ(popcount64(b.white()), 1);
  EXPECT_TRUE(b.black() >> *parse_square("e5") & 1);
}

TEST(Rules, PassAndGameEnd) {
  // Black: a1 only; white: b1. White to move: white has no move (no black disc to bracket
  // with an empty beyond... a1 is at the edge), black at a1 cannot capture b1 either (c1 empty
  // beyond b1 needs black at the far end) -> game over.
  Board b = Board::from_colors(u64{1} << 0, u64{1} << 1, kWhite);
  EXPECT_EQ(b.moves(), 0u);
  // Black can play c1 to capture b1.
  Board c = b;
  c.pass();
  EXPECT_EQ(c.side, kBlack);
  EXPECT_EQ(c.moves(), u64{1} << 2);
  EXPECT_FALSE(b.game_over());
  ASSERT_TRUE(c.play(2));
  EXPECT_TRUE(c.game_over());
  EXPECT_EQ(c.disc_diff(), 3);
  EXPECT_EQ(c.disc_diff_empties_to_winner(), 64);
}

TEST(Symmetry, BitboardAndSquareMapsAgree) {
  for (int s = 0; s < 8; ++s)
    for (int sq = 0; sq < 64; ++sq)
      EXPECT_EQ(symmetry(u64{1} << sq, s), u64{1} << symmetry_square(sq, s)) << "s=" << s << " sq=" << sq;
}

TEST(Symmetry, EightDistinctImagesOfAnAsymmetricBoard) {
  const u64 x = (u64{1} << 1) | (u64{1} << 2) | (u64{1} << 10);  // b1 c1 c2: no symmetry
  for (int s = 0; s < 8; ++s)
    for (int t = s + 1; t < 8; ++t) EXPECT_NE(symmetry(x, s), symmetry(x, t));
}

TEST(Symmetry, MovesCommuteWithSymmetry) {
  // Play a fixed line; at every position legal moves of the transformed board are the
  // transformed legal moves.
  Board b;
  const char* line[] = {"f5", "d6", "c3", "d3", "c4", "f4", "f6", "f3", "e6", "e7"};
  for (const char* m : line) {
    for (int s = 0; s < 8; ++s)
      EXPECT_EQ(legal_moves(symmetry(b.player, s), symmetry(b.opponent, s)), symmetry(b.moves(), s));
    ASSERT_TRUE(b.play(*parse_square(m))) << m;
  }
}
