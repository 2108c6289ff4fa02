#include "evalforge/games/othello/swh.hpp"
#include <gtest/gtest.h>
#include "evalforge/core/rng.hpp"
#include "evalforge/games/othello/bitboard.hpp"
#include "evalforge/games/othello/squares.hpp"

using namespace ef;

namespace {

// The table of docs/anchors.md as published (rank 1 first, files a..h), in its own units.
constexpr double kPublished[8][8] = {
    {1.00, -0.25, 0.10, 0.05, 0.05, 0.10, -0.25, 1.00},   {-0.25, -0.25, 0.01, 0.01, 0.01, 0.01, -0.25, -0.25},
    {0.10, 0.01, 0.05, 0.02, 0.02, 0.05, 0.01, 0.10},     {0.05, 0.01, 0.02, 0.01, 0.01, 0.02, 0.01, 0.05},
    {0.05, 0.01, 0.02, 0.01, 0.01, 0.02, 0.01, 0.05},     {0.10, 0.01, 0.05, 0.02, 0.02, 0.05, 0.01, 0.10},
    {-0.25, -0.25, 0.01, 0.01, 0.01, 0.01, -0.25, -0.25}, {1.00, -0.25, 0.10, 0.05, 0.05, 0.10, -0.25, 1.00},
};

int table_sum(u64 own, u64 opp) {
  int v = 0;
  for (int sq = 0; sq < 64; ++sq) v += ((own >> sq & 1) - (opp >> sq & 1)) * swh::kWeights[sq];
  return v;
}

}  // namespace

TEST(Swh, WeightsAreThePublishedTableInHundredths) {
  for (int r = 0; r < 8; ++r)
    for (int c = 0; c < 8; ++c)
      EXPECT_NEAR(swh::kWeights[8 * r + c] / 100.0, kPublished[r][c], 1e-12) << square_name(8 * r + c);
  EXPECT_EQ(swh::kWeights[*parse_square("a1")], 100);
  EXPECT_EQ(swh::kWeights[*parse_square("b2")], -25);
  EXPECT_EQ(swh::kWeights[*parse_square("c3")], 5);
  EXPECT_EQ(swh::kWeights[*parse_square("d4")], 1);
}

TEST(Swh, ValuesOfSimplePositions) {
  EXPECT_EQ(swh::evaluate(othello::kStartBlack, othello::kStartWhite), 0);
  EXPECT_EQ(swh::evaluate(u64{1} << 0, 0), 100);
  EXPECT_EQ(swh::evaluate(0, u64{1} << 63), -100);
  EXPECT_EQ(swh::evaluate(u64{1} << 9, u64{1} << 18), -30);  // b2 (-0.25) vs c3 (0.05)
  EXPECT_EQ(swh::evaluate(~u64{0}, 0), 4 * 100 + 12 * -25 + 8 * 10 + 12 * 5 + 8 * 2 + 20 * 1);
  EXPECT_DOUBLE_EQ(swh::to_units(swh::evaluate(~u64{0}, 0)), 2.76);
}

TEST(Swh, MatchesTableSumAndIsAntisymmetricAndSymmetric) {
  Rng rng(3, Purpose::kGame, 77);
  for (int i = 0; i < 20000; ++i) {
    const u64 occ = rng.next_u64() | rng.next_u64(), owner = rng.next_u64();
    const u64 a = occ & owner, b = occ & ~owner;
    const int v = swh::evaluate(a, b);
    ASSERT_EQ(v, table_sum(a, b));
    ASSERT_EQ(swh::evaluate(b, a), -v);
    ASSERT_EQ(swh::evaluate_black(a, b), v);
    for (int s = 0; s < 8; ++s) ASSERT_EQ(swh::evaluate(othello::symmetry(a, s), othello::symmetry(b, s)), v);
  }
}
