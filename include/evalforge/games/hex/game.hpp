// Hex (docs/method.md section 4), EF_HD and allocation-free like the Othello and Tic-Tac-Toe
// rules, on n x n boards with 1 <= n <= kMaxSide.
//
// Conventions (ICGA, as the MoHex/benzene engines use them): a cell is named by its column
// letter and row number, a1 .. k11 on 11 x 11. Black moves first and connects row 1 to row n;
// White connects column a to the last column. The neighbours of (col, row) are the cells at
// (dx, dy) in {(+-1, 0), (0, +-1), (+1, -1), (-1, +1)}, so a1 and the opposite corner are the
// acute ones (two neighbours). Nobody passes, and a game cannot end drawn: a full board has
// exactly one player connected.
//
// Squares are bit numbers in a padded layout: cell (col, row) is square row * kStride + col
// with kStride = kMaxSide + 1, whatever n is. The padding column keeps rows apart when a set of
// cells is shifted to its neighbours, so a neighbour set is six shifts and one mask (no
// per-cell tables, which device code could not read from host memory anyway). Moves are
// these squares; with the swap (pie) rule on, White's first move may also be kSwapSquare.
//
// A position also carries, for each colour and each of its two edges, the stones connected to
// that edge through the colour's own stones. play() extends them from the new stone outwards,
// so detecting the win costs a flood over the newly joined group only, not over the board:
// random playouts stay cheap to the last move.
#pragma once
#include "evalforge/core/hd.hpp"
#include "evalforge/engine/game.hpp"

#if !defined(__CUDA_ARCH__) && defined(__BMI2__)
#include <immintrin.h>
#endif

namespace ef::hex {

enum Colour : int { kBlack = 0, kWhite = 1, kNobody = -1 };

constexpr int kMaxSide = 13;
constexpr int kStride = kMaxSide + 1;         // bits per row, one of them padding
constexpr int kWords = 3;                     // 13 rows x 14 bits = 182 bits
constexpr int kSquares = kMaxSide * kStride;  // square numbers 0..181 (not all on a board)
constexpr int kSwapSquare = kSquares;         // the swap move's number (bit 182)

EF_HD_INLINE int square_of(int col, int row) { return row * kStride + col; }
EF_HD_INLINE int col_of(int square) { return square % kStride; }
EF_HD_INLINE int row_of(int square) { return square / kStride; }

// The k-th lowest set bit of a word (k < popcount).
EF_HD_INLINE int nth_bit(u64 w, u32 k) {
#if !defined(__CUDA_ARCH__) && defined(__BMI2__)
  return ctz64(_pdep_u64(u64{1} << k, w));
#else
  for (; k; --k) w &= w - 1;
  return ctz64(w);
#endif
}

// A set of squares (and the swap move's bit).
struct Cells {
  u64 w[kWords] = {0, 0, 0};

  static EF_HD_INLINE Cells bit(int square) {
    Cells c;
    c.w[square >> 6] = u64{1} << (square & 63);
    return c;
  }
  EF_HD_INLINE bool has(int square) const { return (w[square >> 6] >> (square & 63)) & 1; }
  EF_HD_INLINE void set(int square) { w[square >> 6] |= u64{1} << (square & 63); }
  EF_HD_INLINE bool any() const { return (w[0] | w[1] | w[2]) != 0; }
  EF_HD_INLINE int count() const { return popcount64(w[0]) + popcount64(w[1]) + popcount64(w[2]); }
  EF_HD_INLINE int lowest() const { return w[0] ? ctz64(w[0]) : (w[1] ? 64 + ctz64(w[1]) : 128 + ctz64(w[2])); }
  EF_HD_INLINE void drop_lowest() {
    if (w[0])
      w[0] &= w[0] - 1;
    else if (w[1])
      w[1] &= w[1] - 1;
    else
      w[2] &= w[2] - 1;
  }
  EF_HD_INLINE int nth(u32 k) const {
    for (int i = 0; i < kWords; ++i) {
      const u32 c = static_cast<u32>(popcount64(w[i]));
      if (k < c) return 64 * i + nth_bit(w[i], k);
      k -= c;
    }
    return -1;  // k >= count(): not reached for a valid k
  }
  EF_HD_INLINE Cells operator|(const Cells& o) const { return {{w[0] | o.w[0], w[1] | o.w[1], w[2] | o.w[2]}}; }
  EF_HD_INLINE Cells operator&(const Cells& o) const { return {{w[0] & o.w[0], w[1] & o.w[1], w[2] & o.w[2]}}; }
  EF_HD_INLINE Cells without(const Cells& o) const { return {{w[0] & ~o.w[0], w[1] & ~o.w[1], w[2] & ~o.w[2]}}; }
  EF_HD_INLINE Cells& operator|=(const Cells& o) { return *this = *this | o; }
  EF_HD_INLINE bool operator==(const Cells& o) const { return w[0] == o.w[0] && w[1] == o.w[1] && w[2] == o.w[2]; }
  // Shifted towards higher squares by k (0 < k < 64) / towards lower squares.
  EF_HD_INLINE Cells up(int k) const {
    return {{w[0] << k, w[1] << k | w[0] >> (64 - k), w[2] << k | w[1] >> (64 - k)}};
  }
  EF_HD_INLINE Cells down(int k) const {
    return {{w[0] >> k | w[1] << (64 - k), w[1] >> k | w[2] << (64 - k), w[2] >> k}};
  }
};

// The cells of an n x n board.
EF_HD_INLINE Cells board_cells(int n) {
  Cells c;
  const u64 row = (u64{1} << n) - 1;
  for (int r = 0; r < n; ++r) {
    const int b = r * kStride;
    c.w[b >> 6] |= row << (b & 63);
    if ((b & 63) + n > 64) c.w[(b >> 6) + 1] |= row >> (64 - (b & 63));
  }
  return c;
}

// The cells adjacent to any cell of `c`, within `board`.
EF_HD_INLINE Cells neighbours(const Cells& c, const Cells& board) {
  return (c.up(1) | c.down(1) | c.up(kStride) | c.down(kStride) | c.up(kStride - 1) | c.down(kStride - 1)) & board;
}

// A colour's two edges: edge 0 is row 1 (Black) or column a (White), edge 1 the opposite one.
EF_HD_INLINE bool on_edge(int colour, int edge, int square, int n) {
  const int line = colour == kBlack ? row_of(square) : col_of(square);
  return line == (edge == 0 ? 0 : n - 1);
}
EF_HD_INLINE Cells edge_cells(int colour, int edge, int n) {
  Cells c;
  for (int i = 0; i < n; ++i)
    c.set(colour == kBlack ? square_of(i, edge == 0 ? 0 : n - 1) : square_of(edge == 0 ? 0 : n - 1, i));
  return c;
}

struct Board {
  Cells stones[2];              // Black's and White's stones
  Cells on_board;               // board_cells(n), kept so that moves and neighbours need no rebuild
  Cells reach[2][2];            // [colour][edge]: the colour's stones connected to that edge
  unsigned char n = 0;          // side length
  unsigned char side = kBlack;  // the colour to move
  signed char winner = kNobody;
  bool swap_rule = false;  // White may answer the first move with kSwapSquare
  short plies = 0;         // moves made, the swap included
  short last = -1;         // the square of the last stone placed; -1 before any and after the swap

  EF_HD Cells empty() const { return on_board.without(stones[0] | stones[1]); }
  // Whether White may swap now: the rule is on and Black has made exactly the first move.
  EF_HD bool swap_available() const { return swap_rule && plies == 1; }
  // Empty cells (and the swap) while the game is on; none once a player has connected.
  EF_HD Cells moves() const {
    if (winner != kNobody) return Cells{};
    Cells m = empty();
    if (swap_available()) m.set(kSwapSquare);
    return m;
  }
  EF_HD bool terminal() const { return winner != kNobody; }
  // Whether `square` is a legal move now.
  EF_HD bool legal(int square) const { return square >= 0 && square <= kSwapSquare && moves().has(square); }

  // The position after the side to move plays a legal `square`.
  EF_HD Board play(int square) const {
    Board b = *this;
    b.plies = static_cast<short>(plies + 1);
    b.side = static_cast<unsigned char>(side ^ 1);
    if (square == kSwapSquare) {
      b.swap_colours();
      b.last = -1;
      return b;
    }
    b.last = static_cast<short>(square);
    const int c = side;
    b.stones[c].set(square);
    const Cells stone = Cells::bit(square);
    const Cells near = neighbours(stone, on_board);
    for (int e = 0; e < 2; ++e)
      if (on_edge(c, e, square, n) || (near & reach[c][e]).any()) b.grow_reach(c, e, stone);
    if (b.reach[c][0].has(square) && b.reach[c][1].has(square)) b.winner = static_cast<signed char>(c);
    return b;
  }

  // The colour that has connected, judged from the stones alone (for positions built cell by
  // cell; play() keeps `winner` without this flood).
  EF_HD int connected_colour() const {
    for (int c = 0; c < 2; ++c) {
      Cells r = stones[c] & edge_cells(c, 0, n);
      for (Cells frontier = r; frontier.any();) {
        frontier = neighbours(frontier, stones[c]).without(r);
        r |= frontier;
      }
      if ((r & edge_cells(c, 1, n)).any()) return c;
    }
    return kNobody;
  }

  // Recomputes reach and winner from the stones (after placing stones directly).
  EF_HD void recompute() {
    for (int c = 0; c < 2; ++c)
      for (int e = 0; e < 2; ++e) {
        reach[c][e] = Cells{};
        grow_reach(c, e, stones[c] & edge_cells(c, e, n));
      }
    winner = kNobody;
    for (int c = 0; c < 2; ++c)
      if ((reach[c][0] & reach[c][1]).any()) winner = static_cast<signed char>(c);
  }

  // The swap (pie) rule as benzene plays it: the first stone changes colour and is mirrored in
  // the long diagonal (col, row) -> (row, col), so that it keeps its relation to its edges;
  // Black, now the other player, moves next.
  EF_HD void swap_colours() {
    if (!stones[kBlack].any()) return;  // (only reachable through legal(): Black has its stone)
    const int sq = stones[kBlack].lowest();
    stones[kBlack] = Cells{};
    stones[kWhite] = Cells::bit(square_of(row_of(sq), col_of(sq)));
    recompute();
  }

  // The position only: `last` is history, and two boards reached by different orders are equal.
  EF_HD bool operator==(const Board& o) const {
    return stones[0] == o.stones[0] && stones[1] == o.stones[1] && n == o.n && side == o.side &&
           swap_rule == o.swap_rule && plies == o.plies;
  }

 private:
  // Adds to reach[c][e] every stone of c connected to `seeds` through c's stones.
  EF_HD void grow_reach(int c, int e, const Cells& seeds) {
    Cells& r = reach[c][e];
    r |= seeds;
    for (Cells frontier = seeds; frontier.any();) {
      frontier = neighbours(frontier, stones[c]).without(r);
      r |= frontier;
    }
  }
};

// The empty n x n board, Black to move.
EF_HD_INLINE Board empty_board(int n, bool swap_rule = false) {
  Board b;
  b.n = static_cast<unsigned char>(n);
  b.on_board = board_cells(n);
  b.swap_rule = swap_rule;
  return b;
}

// Twice the hex distance of `square` from the centre of an n x n board: an order of cells from
// the centre out (the solver's move order, VC-aware play's candidates).
EF_HD_INLINE int centre_distance(int square, int n) {
  const int dc = 2 * col_of(square) - (n - 1), dr = 2 * row_of(square) - (n - 1);
  const int adc = dc < 0 ? -dc : dc, adr = dr < 0 ? -dr : dr, ads = dc + dr < 0 ? -(dc + dr) : dc + dr;
  return (adc + adr + ads) / 2;
}

// The 180-degree rotation (col, row) -> (n-1-col, n-1-row), Hex's one symmetry that keeps each
// colour's edges.
EF_HD_INLINE int rotate_square(int square, int n) { return square_of(n - 1 - col_of(square), n - 1 - row_of(square)); }
EF_HD_INLINE Cells rotate(Cells c, int n) {
  Cells image;
  for (; c.any(); c.drop_lowest()) image.set(rotate_square(c.lowest(), n));
  return image;
}

}  // namespace ef::hex

namespace ef::games {

template <>
struct MoveSet<hex::Cells> {
  static EF_HD_INLINE bool any(const hex::Cells& m) { return m.any(); }
  static EF_HD_INLINE bool single(const hex::Cells& m) { return m.count() == 1; }
  static EF_HD_INLINE int lowest(const hex::Cells& m) { return m.lowest(); }
  static EF_HD_INLINE void drop_lowest(hex::Cells& m) { m.drop_lowest(); }
  static EF_HD_INLINE int count(const hex::Cells& m) { return m.count(); }
  static EF_HD_INLINE int nth(const hex::Cells& m, u32 k) { return m.nth(k); }
};

// Hex as a Game (game.hpp).
struct Hex {
  using State = hex::Board;
  static constexpr int kMaxMoves = hex::kMaxSide * hex::kMaxSide + 1;  // every cell, or the swap
  static constexpr bool kHasPass = false;
  static constexpr int kSymmetries = 2;
  static constexpr int kMaxPlies = hex::kMaxSide * hex::kMaxSide + 1;
  static EF_HD int side(const State& s) { return s.side; }
  static EF_HD hex::Cells moves(const State& s) { return s.moves(); }
  static EF_HD State play(const State& s, int square) { return s.play(square); }
  static EF_HD State pass(const State& s) { return s; }  // never called: kHasPass is false
  static EF_HD bool terminal(const State& s) { return s.terminal(); }
  // -1: the player who just moved has connected (+1 cannot occur); 0 for a game still on.
  static EF_HD int final_score(const State& s) { return s.winner == hex::kNobody ? 0 : (s.winner == s.side ? 1 : -1); }
  static EF_HD State symmetry(const State& s, int k) {
    if (k == 0) return s;
    State r = s;
    r.stones[0] = hex::rotate(s.stones[0], s.n);
    r.stones[1] = hex::rotate(s.stones[1], s.n);
    r.last = static_cast<short>(s.last < 0 ? -1 : hex::rotate_square(s.last, s.n));
    r.recompute();
    return r;
  }
};
static_assert(Game<Hex>);

}  // namespace ef::games
