// The fast move generator and flip computation against a plain reference: a ray walk from the
// move square, written here independently of the header's bit tricks.
#include <gtest/gtest.h>
#include <vector>
#include "evalforge/core/rng.hpp"
#include "evalforge/games/othello/bitboard.hpp"

using namespace ef;
using namespace ef::othello;

namespace {

// Flips by walking each of the 8 directions square by square: a run of opponent discs ended
// by a player's disc flips. Does not look at sq itself, like othello::flips.
u64 reference_flips(u64 P, u64 O, int sq) {
  static const int kDirs[8][2] = {{0, 1}, {0, -1}, {1, 0}, {-1, 0}, {1, 1}, {1, -1}, {-1, 1}, {-1, -1}};
  u64 result = 0;
  for (const auto& d : kDirs) {
    int r = (sq >> 3) + d[0], c = (sq & 7) + d[1];
    u64 run = 0;
    while (r >= 0 && r < 8 && c >= 0 && c < 8 && (O >> (8 * r + c) & 1)) {
      run |= u64{1} << (8 * r + c);
      r += d[0];
      c += d[1];
    }
    if (r >= 0 && r < 8 && c >= 0 && c < 8 && (P >> (8 * r + c) & 1)) result |= run;
  }
  return result;
}

u64 reference_moves(u64 P, u64 O) {
  u64 m = 0;
  for (int sq = 0; sq < 64; ++sq)
    if (!((P | O) >> sq & 1) && reference_flips(P, O, sq)) m |= u64{1} << sq;
  return m;
}

// Positions reached by uniformly random play from the start (passes included), every ply kept.
std::vector<Board> random_positions(int games, u64 seed) {
  std::vector<Board> out;
  for (int g = 0; g < games; ++g) {
    Rng rng(seed, Purpose::kGame, static_cast<u32>(g));
    Board b;
    for (;;) {
      out.push_back(b);
      const u64 m = b.moves();
      if (!m) {
        if (b.game_over()) break;
        b.pass();
        continue;
      }
      EXPECT_TRUE(b.play(rng.random_bit(m)));
    }
  }
  return out;
}

// Checks every implementation on (P, O) for all 64 squares (occupied ones too: no
// implementation looks at the move square itself, so all must agree there as well).
void check_position(u64 P, u64 O) {
  const u64 moves = reference_moves(P, O);
  ASSERT_EQ(legal_moves(P, O), moves) << std::hex << "P=" << P << " O=" << O;
  ASSERT_EQ(legal_moves_portable(P, O), moves) << std::hex << "P=" << P << " O=" << O;
#if defined(EF_OTHELLO_SIMD)
  ASSERT_EQ(legal_moves_simd(P, O), moves) << std::hex << "P=" << P << " O=" << O;
#endif
  for (int sq = 0; sq < 64; ++sq) {
    const u64 want = reference_flips(P, O, sq);
    ASSERT_EQ(flips(P, O, sq), want) << std::hex << "P=" << P << " O=" << O << std::dec << " sq=" << sq;
    ASSERT_EQ(flips_portable(P, O, sq), want) << std::hex << "P=" << P << " O=" << O << std::dec << " sq=" << sq;
#if defined(EF_OTHELLO_SIMD)
    ASSERT_EQ(flips_simd(P, O, sq), want) << std::hex << "P=" << P << " O=" << O << std::dec << " sq=" << sq;
#endif
  }
}

}  // namespace

TEST(Flips, MatchReferenceOnRandomReachablePositions) {
  const std::vector<Board> positions = random_positions(3000, 20240601);
  ASSERT_GT(positions.size(), 150000u);
  for (const Board& b : positions) {
    check_position(b.player, b.opponent);
    if (HasFatalFailure()) return;
  }
}

// Arbitrary disjoint boards (not necessarily reachable) at all densities: edge and corner
// runs, full rays of opponent discs, lone discs.
TEST(Flips, MatchReferenceOnRandomBoards) {
  Rng rng(7, Purpose::kGame, 0xABCDEF);
  for (int i = 0; i < 40000; ++i) {
    const u64 occupied = rng.next_u64() | (i % 4 == 0 ? rng.next_u64() : 0) | (i % 8 == 1 ? rng.next_u64() : 0);
    u64 owner = rng.next_u64();
    if (i % 5 == 0) owner |= rng.next_u64();  // mostly one colour
    check_position(occupied & owner, occupied & ~owner);
    if (HasFatalFailure()) return;
  }
  check_position(0, 0);
  check_position(~u64{0}, 0);
  check_position(0, ~u64{0});
  check_position(u64{1}, ~u64{1});
  check_position(u64{1} << 63, ~(u64{1} << 63));
}

TEST(Flips, PlayMatchesReferenceAlongGames) {
  for (const Board& b : random_positions(200, 99)) {
    for (u64 m = b.moves(); m; m &= m - 1) {
      const int sq = ctz64(m);
      Board c = b;
      ASSERT_TRUE(c.play(sq));
      const u64 f = reference_flips(b.player, b.opponent, sq);
      EXPECT_EQ(c.opponent, b.player | f | (u64{1} << sq));
      EXPECT_EQ(c.player, b.opponent & ~f);
    }
  }
}

// docs/anchors.md: perft with a pass counted as a ply, depths 10 and 11 (1..9 in othello_rules_test).
TEST(Perft, MatchesPublishedCountsAtDepth10And11) {
  EXPECT_EQ(perft(kStartBlack, kStartWhite, 10), 24571284u);
  EXPECT_EQ(perft(kStartBlack, kStartWhite, 11), 212258800u);
}
