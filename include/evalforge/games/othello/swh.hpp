// The standard weighted piece counter (SWH) of the Othello League (docs/anchors.md; Lucas &
// Runarsson, Jaskowski & Szubert): value = sum of w(own squares) - sum of w(opponent squares).
//
// Exact integer arithmetic: the published weights have two decimals, so they are held as
// integers in hundredths (1.00 -> 100, -0.25 -> -25), and host and device agree bit for bit.
// The weights take six distinct values; the evaluator sums, per value, the difference of the
// popcounts of the two colours on that value's squares. The masks are constexpr scalars, which
// device code may read (a constexpr array it may not), and six popcounts beat 64 lookups.
#pragma once
#include "evalforge/core/hd.hpp"
#include "evalforge/games/othello/game.hpp"

namespace ef::swh {

constexpr int kScale = 100;  // weights are in units of 1/kScale

// Weight of each square in hundredths, square = 8*row + col (a1 = 0): rank 1 first, files a..h.
inline constexpr int kWeights[64] = {
    100, -25, 10, 5, 5, 10, -25, 100,  //
    -25, -25, 1,  1, 1, 1,  -25, -25,  //
    10,  1,   5,  2, 2, 5,  1,   10,   //
    5,   1,   2,  1, 1, 2,  1,   5,    //
    5,   1,   2,  1, 1, 2,  1,   5,    //
    10,  1,   5,  2, 2, 5,  1,   10,   //
    -25, -25, 1,  1, 1, 1,  -25, -25,  //
    100, -25, 10, 5, 5, 10, -25, 100,  //
};

namespace detail {
constexpr u64 squares_weighing(int w) {
  u64 m = 0;
  for (int sq = 0; sq < 64; ++sq)
    if (kWeights[sq] == w) m |= u64{1} << sq;
  return m;
}
}  // namespace detail

// The squares of each weight value.
constexpr u64 kSquares100 = detail::squares_weighing(100);
constexpr u64 kSquaresMinus25 = detail::squares_weighing(-25);
constexpr u64 kSquares10 = detail::squares_weighing(10);
constexpr u64 kSquares5 = detail::squares_weighing(5);
constexpr u64 kSquares2 = detail::squares_weighing(2);
constexpr u64 kSquares1 = detail::squares_weighing(1);
static_assert((kSquares100 | kSquaresMinus25 | kSquares10 | kSquares5 | kSquares2 | kSquares1) == ~u64{0} &&
                  (kSquares100 ^ kSquaresMinus25 ^ kSquares10 ^ kSquares5 ^ kSquares2 ^ kSquares1) == ~u64{0},
              "every square must carry exactly one of the six weight values");

namespace detail {
EF_HD_INLINE int count_diff(u64 own, u64 opp, u64 mask) { return popcount64(own & mask) - popcount64(opp & mask); }
}  // namespace detail

// Sum of w(own) - sum of w(opp), in hundredths. (own, opp) = (black, white) gives the value for
// black; (player, opponent) the value for the side to move.
EF_HD_INLINE int evaluate(u64 own, u64 opp) {
  return 100 * detail::count_diff(own, opp, kSquares100) - 25 * detail::count_diff(own, opp, kSquaresMinus25) +
         10 * detail::count_diff(own, opp, kSquares10) + 5 * detail::count_diff(own, opp, kSquares5) +
         2 * detail::count_diff(own, opp, kSquares2) + detail::count_diff(own, opp, kSquares1);
}

// The value for black of a position given by colours.
EF_HD_INLINE int evaluate_black(u64 black, u64 white) { return evaluate(black, white); }

// For display: the value in the published units (1.00 per corner).
inline double to_units(int hundredths) { return static_cast<double>(hundredths) / kScale; }

// SWH as a search evaluator (engine/alphabeta.hpp): the value for the side to move in
// hundredths. A finished game scores exact_scale per disc of the final difference; |SWH| <= 876
// (the sum of |w|) and a won game is worth at least 2 discs, so any win outranks any heuristic
// value at the default 1000.
struct Evaluator {
  i32 exact_scale = 1000;
  EF_HD i32 eval(const othello::Position& s) const { return evaluate(s.board.player, s.board.opponent); }
  EF_HD i32 exact(int score) const { return score * exact_scale; }
};

}  // namespace ef::swh
