// Connect Four on a small board (5 columns, 4 rows, four in a row wins): a game that only the
// tests use. It is here to prove that a game is one folder: this folder and one line of
// games/registry.hpp are all it took to play it through the playout engine on every backend (the
// CUDA play kernel is instantiated for it too), in round robins (engine/round_robin.hpp) and
// through the bit-string GA (tests/connect_four_test.cpp).
//
// Square = kColumns * row + column, row 0 at the bottom. A move is the square a disc lands on
// (the lowest empty square of its column), so the legal moves are a set of squares like every
// other game's. Nobody passes; a full board is a draw.
#pragma once
#include "evalforge/core/hd.hpp"
#include "evalforge/engine/game.hpp"

namespace ef::connect_four {

constexpr int kColumns = 5, kRows = 4, kSquares = kColumns * kRows;
constexpr u32 kAll = (u32{1} << kSquares) - 1;

// Whether `mask` holds four in a row: across (2 places a row), up (1 a column) or along a
// diagonal (2 each way); computed from shifted line masks, no tables (device code).
EF_HD_INLINE bool has_four(u32 mask) {
  for (int r = 0; r < kRows; ++r)
    for (int c = 0; c + 3 < kColumns; ++c)
      if (const u32 l = u32{0xF} << (kColumns * r + c); (mask & l) == l) return true;
  constexpr u32 kUp = 1u | 1u << kColumns | 1u << 2 * kColumns | 1u << 3 * kColumns;
  constexpr u32 kUpRight = 1u | 1u << (kColumns + 1) | 1u << 2 * (kColumns + 1) | 1u << 3 * (kColumns + 1);
  constexpr u32 kUpLeft = 1u | 1u << (kColumns - 1) | 1u << 2 * (kColumns - 1) | 1u << 3 * (kColumns - 1);
  for (int c = 0; c < kColumns; ++c) {
    if ((mask & kUp << c) == kUp << c) return true;
    if (c + 3 < kColumns && (mask & kUpRight << c) == kUpRight << c) return true;
    if (c >= 3 && (mask & kUpLeft << c) == kUpLeft << c) return true;  // from (0, c) up and left
  }
  return false;
}

struct Board {
  u32 first = 0;   // discs of the first player
  u32 second = 0;  // discs of the second player
  int side = 0;    // 0: the first player is to move

  EF_HD u32 occupied() const { return first | second; }
  EF_HD bool won(int player) const { return has_four(player == 0 ? first : second); }
  EF_HD bool terminal() const { return won(0) || won(1) || occupied() == kAll; }
  // The lowest empty square of every column that has one; none once the game is over.
  EF_HD u64 moves() const {
    if (won(0) || won(1)) return 0;
    u64 m = 0;
    for (int c = 0; c < kColumns; ++c)
      for (int r = 0; r < kRows; ++r) {
        const int sq = kColumns * r + c;
        if (!(occupied() >> sq & 1)) {
          m |= u64{1} << sq;
          break;
        }
      }
    return m;
  }
  EF_HD Board play(int square) const {
    Board b = *this;
    (side == 0 ? b.first : b.second) |= u32{1} << square;
    b.side = side ^ 1;
    return b;
  }
  // A finished game from the side to move: -1 when the other player has four in a row, else 0.
  EF_HD int score() const { return won(side ^ 1) ? -1 : 0; }
};

// The mirror image (columns reversed): symmetry 1.
EF_HD_INLINE u32 mirror(u32 mask) {
  u32 image = 0;
  for (; mask; mask &= mask - 1) {
    const int sq = ctz64(mask), r = sq / kColumns, c = sq % kColumns;
    image |= u32{1} << (kColumns * r + kColumns - 1 - c);
  }
  return image;
}

}  // namespace ef::connect_four

namespace ef::games {

// Connect Four as a Game (engine/game.hpp).
struct ConnectFour {
  using State = connect_four::Board;
  static constexpr int kMaxMoves = connect_four::kColumns;
  static constexpr bool kHasPass = false;
  static constexpr int kSymmetries = 2;
  static constexpr int kMaxPlies = connect_four::kSquares;
  static EF_HD int side(const State& s) { return s.side; }
  static EF_HD u64 moves(const State& s) { return s.moves(); }
  static EF_HD State play(const State& s, int square) { return s.play(square); }
  static EF_HD State pass(const State& s) { return s; }  // never called: kHasPass is false
  static EF_HD bool terminal(const State& s) { return s.terminal(); }
  static EF_HD int final_score(const State& s) { return s.score(); }
  static EF_HD State symmetry(const State& s, int k) {
    if (k == 0) return s;
    State m = s;
    m.first = connect_four::mirror(s.first);
    m.second = connect_four::mirror(s.second);
    return m;
  }
};
static_assert(Game<ConnectFour>);

}  // namespace ef::games
