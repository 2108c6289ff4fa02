// Tic-Tac-Toe (docs/method.md section 3), EF_HD and allocation-free like the Othello rules.
// Square = 3*row + col, a1 = 0 .. c3 = 8 (the Othello numbering on a 3x3 board). A position is
// two 9-bit masks and the side to move; X moves first and nobody passes.
//
// Symmetry k (0..7) applies, in this order: transpose (k&4), mirror files a<->c (k&1), mirror
// ranks 1<->3 (k&2) -- the same convention as othello::symmetry, so code written for one
// board's symmetries reads the same for the other.
//
// Everything is arithmetic on masks (no lookup arrays): device code may not read host
// constexpr arrays, and nine squares are cheap to loop over.
#pragma once
#include "evalforge/core/hd.hpp"
#include "evalforge/engine/game.hpp"

namespace ef::tictactoe {

enum Player : int { kX = 0, kO = 1, kNobody = -1 };

constexpr u32 kAll = 0x1FF;  // the nine squares

// The eight lines: rows, columns, diagonals.
constexpr u32 kRow1 = 0x007, kRow2 = 0x038, kRow3 = 0x1C0;
constexpr u32 kColA = 0x049, kColB = 0x092, kColC = 0x124;
constexpr u32 kDiag = 0x111, kAnti = 0x054;  // a1-b2-c3 and c1-b2-a3

EF_HD_INLINE u32 line(int i) {
  switch (i) {
    case 0: return kRow1;
    case 1: return kRow2;
    case 2: return kRow3;
    case 3: return kColA;
    case 4: return kColB;
    case 5: return kColC;
    case 6: return kDiag;
    default: return kAnti;
  }
}

// Whether the squares of `mask` contain a complete line.
EF_HD_INLINE bool has_line(u32 mask) {
  for (int i = 0; i < 8; ++i)
    if ((mask & line(i)) == line(i)) return true;
  return false;
}

struct Board {
  u32 x = 0;      // squares held by X
  u32 o = 0;      // squares held by O
  int side = kX;  // the player to move

  EF_HD u32 empty() const { return ~(x | o) & kAll; }
  EF_HD u32 mover() const { return side == kX ? x : o; }
  EF_HD u32 waiter() const { return side == kX ? o : x; }
  // The player with a line, or kNobody. Legal play never gives both players a line.
  EF_HD int winner() const { return has_line(x) ? kX : (has_line(o) ? kO : kNobody); }
  EF_HD bool terminal() const { return empty() == 0 || winner() != kNobody; }
  // Empty squares while the game is on; none once somebody has won or the board is full.
  EF_HD u32 moves() const { return winner() == kNobody ? empty() : 0; }
  // The position after the side to move takes `square` (assumed legal).
  EF_HD Board play(int square) const {
    Board b = *this;
    (side == kX ? b.x : b.o) |= u32{1} << square;
    b.side = side ^ 1;
    return b;
  }
  // Exact result of a finished game from the side to move: -1 lost (the player who just moved
  // completed a line), 0 draw. (+1 cannot occur: a player to move has not just won.)
  EF_HD int score() const {
    const int w = winner();
    return w == kNobody ? 0 : (w == side ? 1 : -1);
  }
  // The same from X's point of view: +1 X won, -1 O won, 0 draw or unfinished.
  EF_HD int score_for_x() const {
    const int w = winner();
    return w == kX ? 1 : (w == kO ? -1 : 0);
  }
  EF_HD bool operator==(const Board& b) const { return x == b.x && o == b.o && side == b.side; }
};

EF_HD_INLINE int symmetry_square(int sq, int k) {
  int r = sq / 3, c = sq % 3;
  if (k & 4) {
    const int t = r;
    r = c;
    c = t;
  }
  if (k & 1) c = 2 - c;
  if (k & 2) r = 2 - r;
  return 3 * r + c;
}

EF_HD_INLINE u32 symmetry(u32 mask, int k) {
  u32 image = 0;
  for (; mask; mask &= mask - 1) image |= u32{1} << symmetry_square(ctz64(mask), k);
  return image;
}

EF_HD_INLINE Board symmetry(const Board& b, int k) {
  Board image = b;
  image.x = symmetry(b.x, k);
  image.o = symmetry(b.o, k);
  return image;
}

// A key that is equal for two positions exactly when one is a symmetric image of the other:
// the smallest x | o << 9 over the 8 images (the side to move follows from the disc counts).
EF_HD_INLINE u32 canonical_key(const Board& b) {
  u32 best = ~u32{0};
  for (int k = 0; k < 8; ++k) {
    const u32 key = symmetry(b.x, k) | symmetry(b.o, k) << 9;
    if (key < best) best = key;
  }
  return best;
}

// The seed paper's static evaluator, the "known good" opponent (docs/method.md section 3), for X:
// summed over the eight lines, a line of three is +-30, two with the third square empty +-20,
// two blocked by the other player's mark +-10 (plus for X's marks, minus for O's). The source
// does not say whether the lines are summed or the best one counts; summing is the choice here.
EF_HD_INLINE int static_value_for_x(const Board& b) {
  int value = 0;
  for (int i = 0; i < 8; ++i) {
    const u32 l = line(i);
    const int nx = popcount64(b.x & l), no = popcount64(b.o & l);
    if (nx == 3)
      value += 30;
    else if (no == 3)
      value -= 30;
    else if (nx == 2)
      value += no == 0 ? 20 : 10;
    else if (no == 2)
      value -= nx == 0 ? 20 : 10;
  }
  return value;
}

}  // namespace ef::tictactoe

namespace ef::games {

// Tic-Tac-Toe as a Game (game.hpp).
struct TicTacToe {
  using State = tictactoe::Board;
  static constexpr int kMaxMoves = 9;
  static constexpr bool kHasPass = false;
  static constexpr int kSymmetries = 8;
  static constexpr int kMaxPlies = 9;
  static EF_HD int side(const State& s) { return s.side; }  // kX = 0 moves first
  static EF_HD u64 moves(const State& s) { return s.moves(); }
  static EF_HD State play(const State& s, int square) { return s.play(square); }
  static EF_HD State pass(const State& s) { return s; }  // never called: kHasPass is false
  static EF_HD bool terminal(const State& s) { return s.terminal(); }
  static EF_HD int final_score(const State& s) { return s.score(); }
  static EF_HD State symmetry(const State& s, int k) { return tictactoe::symmetry(s, k); }
};
static_assert(Game<TicTacToe>);

}  // namespace ef::games

namespace ef::tictactoe {

// static_value_for_x from the side to move, for the search. A finished game is scored exactly
// as win_value times the result, so a won line outranks any heuristic value (|static| <= 8 * 30).
struct StaticEvaluator {
  i32 win_value = 1000;
  EF_HD i32 eval(const Board& b) const { return b.side == kX ? static_value_for_x(b) : -static_value_for_x(b); }
  EF_HD i32 exact(int score) const { return score * win_value; }
};

}  // namespace ef::tictactoe
