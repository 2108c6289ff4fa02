// Othello rules on bitboards, EF_HD so that CPU threads and CUDA kernels share them.
// Square = 8*row + col with a1 = 0, h1 = 7, a8 = 56, h8 = 63 (method.md 1.1).
// Functions take (player, opponent) boards: the side to move first.
#pragma once
#include "evalforge/core/hd.hpp"

namespace ef::othello {

constexpr u64 kNotFileA = 0xFEFEFEFEFEFEFEFEull;
constexpr u64 kNotFileH = 0x7F7F7F7F7F7F7F7Full;
constexpr u64 kInner = 0x7E7E7E7E7E7E7E7Eull;  // files b..g: stops horizontal wrap-around
constexpr u64 kStartBlack = (u64{1} << 28) | (u64{1} << 35);  // e4, d5
constexpr u64 kStartWhite = (u64{1} << 27) | (u64{1} << 36);  // d4, e5

enum Color : int { kBlack = 0, kWhite = 1 };

// Shift by direction d (0..7): E, W, N, S, NE, NW, SE, SW. Callers mask wrap-around.
EF_HD_INLINE u64 shift(u64 b, int d) {
  switch (d) {
    case 0: return b << 1;
    case 1: return b >> 1;
    case 2: return b << 8;
    case 3: return b >> 8;
    case 4: return b << 9;
    case 5: return b << 7;
    case 6: return b >> 7;
    default: return b >> 9;
  }
}

// One direction of move generation: squares reached across a run of opponent discs.
template <int S>
EF_HD_INLINE u64 moves_dir(u64 P, u64 mask) {
  u64 t;
  if constexpr (S > 0) {
    t = mask & (P << S);
    t |= mask & (t << S); t |= mask & (t << S); t |= mask & (t << S);
    t |= mask & (t << S); t |= mask & (t << S);
    return t << S;
  } else {
    t = mask & (P >> -S);
    t |= mask & (t >> -S); t |= mask & (t >> -S); t |= mask & (t >> -S);
    t |= mask & (t >> -S); t |= mask & (t >> -S);
    return t >> -S;
  }
}

EF_HD_INLINE u64 legal_moves(u64 P, u64 O) {
  const u64 Oh = O & kInner;
  u64 m = moves_dir<1>(P, Oh) | moves_dir<-1>(P, Oh) | moves_dir<8>(P, O) | moves_dir<-8>(P, O) |
          moves_dir<9>(P, Oh) | moves_dir<7>(P, Oh) | moves_dir<-7>(P, Oh) | moves_dir<-9>(P, Oh);
  return m & ~(P | O);
}

// Discs flipped by playing square sq (assumed empty). Zero means the move is illegal.
EF_HD_INLINE u64 flips(u64 P, u64 O, int sq) {
  const u64 m = u64{1} << sq;
  const u64 Oh = O & kInner;
  u64 result = 0;
  for (int d = 0; d < 8; ++d) {
    const u64 o = (d == 2 || d == 3) ? O : Oh;
    u64 f = 0;
    u64 x = shift(m, d);
    while (x & o) {
      f |= x;
      x = shift(x, d);
    }
    if (x & P) result |= f;
  }
  return result;
}

struct Board {
  u64 player = kStartBlack;    // side to move
  u64 opponent = kStartWhite;
  int side = kBlack;           // colour of `player`

  EF_HD u64 black() const { return side == kBlack ? player : opponent; }
  EF_HD u64 white() const { return side == kBlack ? opponent : player; }
  EF_HD u64 moves() const { return legal_moves(player, opponent); }
  EF_HD int discs() const { return popcount64(player | opponent); }
  EF_HD int empties() const { return 64 - discs(); }
  EF_HD bool can_move() const { return moves() != 0; }
  EF_HD bool game_over() const {
    return legal_moves(player, opponent) == 0 && legal_moves(opponent, player) == 0;
  }
  // Plays sq for the side to move; returns false (board unchanged) if illegal.
  EF_HD bool play(int sq) {
    if (sq < 0 || sq > 63 || ((player | opponent) >> sq & 1)) return false;
    const u64 f = flips(player, opponent, sq);
    if (!f) return false;
    const u64 p = player | f | (u64{1} << sq);
    player = opponent & ~f;
    opponent = p;
    side ^= 1;
    return true;
  }
  EF_HD void pass() {
    const u64 t = player;
    player = opponent;
    opponent = t;
    side ^= 1;
  }
  // Final disc difference black - white, raw count (the logbook's convention).
  EF_HD int disc_diff() const { return popcount64(black()) - popcount64(white()); }
  // Disc difference with empty squares given to the winner (WTHOR's and obf's convention).
  EF_HD int disc_diff_empties_to_winner() const {
    const int d = disc_diff();
    const int e = empties();
    return d > 0 ? d + e : (d < 0 ? d - e : 0);
  }
  static EF_HD Board from_colors(u64 black, u64 white, int side) {
    Board b;
    b.side = side;
    b.player = side == kBlack ? black : white;
    b.opponent = side == kBlack ? white : black;
    return b;
  }
  EF_HD bool operator==(const Board& o) const {
    return player == o.player && opponent == o.opponent && side == o.side;
  }
};

// ---- The 8 board symmetries --------------------------------------------------------------
// Symmetry s (0..7) applies, in this order: transpose (s&4), mirror files a<->h (s&1),
// mirror ranks 1<->8 (s&2). s = 0 is the identity; the 8 images form the dihedral group.

EF_HD_INLINE u64 mirror_ranks(u64 x) {  // (r,c) -> (7-r,c): byte swap
  x = ((x >> 8) & 0x00FF00FF00FF00FFull) | ((x & 0x00FF00FF00FF00FFull) << 8);
  x = ((x >> 16) & 0x0000FFFF0000FFFFull) | ((x & 0x0000FFFF0000FFFFull) << 16);
  return (x >> 32) | (x << 32);
}
EF_HD_INLINE u64 mirror_files(u64 x) {  // (r,c) -> (r,7-c): bit reverse inside each byte
  x = ((x >> 1) & 0x5555555555555555ull) | ((x & 0x5555555555555555ull) << 1);
  x = ((x >> 2) & 0x3333333333333333ull) | ((x & 0x3333333333333333ull) << 2);
  return ((x >> 4) & 0x0F0F0F0F0F0F0F0Full) | ((x & 0x0F0F0F0F0F0F0F0Full) << 4);
}
EF_HD_INLINE u64 transpose(u64 x) {  // (r,c) -> (c,r): reflect in the a1-h8 diagonal
  u64 t;
  t = 0x0F0F0F0F00000000ull & (x ^ (x << 28)); x ^= t ^ (t >> 28);
  t = 0x3333000033330000ull & (x ^ (x << 14)); x ^= t ^ (t >> 14);
  t = 0x5500550055005500ull & (x ^ (x << 7));  x ^= t ^ (t >> 7);
  return x;
}
EF_HD_INLINE u64 symmetry(u64 x, int s) {
  if (s & 4) x = transpose(x);
  if (s & 1) x = mirror_files(x);
  if (s & 2) x = mirror_ranks(x);
  return x;
}
EF_HD_INLINE int symmetry_square(int sq, int s) {
  int r = sq >> 3, c = sq & 7;
  if (s & 4) { int t = r; r = c; c = t; }
  if (s & 1) c = 7 - c;
  if (s & 2) r = 7 - r;
  return 8 * r + c;
}

// ---- Perft ----------------------------------------------------------------------------
// Leaf count to `depth` plies from (P,O), a pass counted as a ply; a finished game is a leaf.
// Leaves at the last ply are counted in bulk (popcount of the move set).
EF_HD inline u64 perft(u64 P, u64 O, int depth) {
  if (depth == 0) return 1;
  const u64 moves = legal_moves(P, O);
  if (!moves) {
    if (!legal_moves(O, P)) return 1;  // game over before the horizon
    return depth == 1 ? 1 : perft(O, P, depth - 1);
  }
  if (depth == 1) return static_cast<u64>(popcount64(moves));
  u64 n = 0;
  for (u64 m = moves; m; m &= m - 1) {
    const int sq = ctz64(m);
    const u64 f = flips(P, O, sq);
    n += perft(O & ~f, P | f | (u64{1} << sq), depth - 1);
  }
  return n;
}

}  // namespace ef::othello
