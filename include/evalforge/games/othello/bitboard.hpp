// Othello rules on bitboards, EF_HD so that CPU threads and CUDA kernels share them.
// Square = 8*row + col with a1 = 0, h1 = 7, a8 = 56, h8 = 63 (docs/method.md 1.1).
// Functions take (player, opponent) boards: the side to move first.
#pragma once
#include "evalforge/core/hd.hpp"
#if !defined(__CUDACC__) && defined(__AVX512CD__) && defined(__AVX512VL__)
#include <immintrin.h>  // _mm256_lzcnt_epi64 in flips_simd
#endif

namespace ef::othello {

constexpr u64 kNotFileA = 0xFEFEFEFEFEFEFEFEull;
constexpr u64 kNotFileH = 0x7F7F7F7F7F7F7F7Full;
constexpr u64 kInner = 0x7E7E7E7E7E7E7E7Eull;                 // files b..g: stops horizontal wrap-around
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

// ---- Move generation and flips --------------------------------------------------------
// Two implementations with identical results:
//  - portable scalar code (`legal_moves_portable`, `flips_portable`): EF_HD, used on the
//    device, in nvcc translation units, and on hosts without AVX2;
//  - on x86-64 hosts with AVX2 (g++/clang++ with -mavx2 or -march=native), the same
//    algorithms written with GCC vector extensions, four directions per instruction
//    (`legal_moves_simd`, `flips_simd`); about twice as fast in perft.
// `legal_moves` and `flips` pick one at compile time (define EF_OTHELLO_NO_SIMD to force the
// portable code). Both stay callable by name so that tests compare them bit for bit.
// Only integer bit operations are involved, so "identical" is exact, not approximate.
namespace detail {

// One direction of move generation: squares reached across a run of opponent discs (mask:
// the opponent discs that may be crossed in this direction). Runs of up to 6 discs are found in
// 4 dependent steps instead of 6 by doubling: steps 3 and 4 jump two squares over pairs of
// adjacent opponent discs.
template <int S>
EF_HD_INLINE u64 moves_dir(u64 P, u64 mask) {
  if constexpr (S > 0) {
    u64 t = mask & (P << S);
    t |= mask & (t << S);
    const u64 pairs = mask & (mask << S);
    t |= pairs & (t << 2 * S);
    t |= pairs & (t << 2 * S);
    return t << S;
  } else {
    u64 t = mask & (P >> -S);
    t |= mask & (t >> -S);
    const u64 pairs = mask & (mask >> -S);
    t |= pairs & (t >> -2 * S);
    t |= pairs & (t >> -2 * S);
    return t >> -S;
  }
}

// The 8 rays from a square, the square itself excluded: up[] = E, N, NE, NW (towards higher
// square numbers), down[] = W, S, SW, SE (towards lower ones). Direction k of up[] and of
// down[] steps by 1, 8, 9, 7 squares.
struct Rays {
  u64 up[4];
  u64 down[4];
};

EF_HD_INLINE constexpr Rays rays(int sq) {
  const int row = sq >> 3, col = sq & 7;
  const u64 above = ~u64{1} << sq;       // squares sq+1..63
  const u64 below = (u64{1} << sq) - 1;  // squares 0..sq-1
  const u64 file = 0x0101010101010101ull << col;
  const u64 rank = 0xFFull << (sq & 56);
  const int d = col - row;  // a1-h8 diagonal through sq: col - row is constant along it
  const u64 diag = d >= 0 ? 0x8040201008040201ull >> (8 * d) : 0x8040201008040201ull << (-8 * d);
  const int a = col + row - 7;  // h1-a8 anti-diagonal through sq: col + row is constant
  const u64 anti = a >= 0 ? 0x0102040810204080ull << (8 * a) : 0x0102040810204080ull >> (-8 * a);
  return Rays{{rank & above, file & above, diag & above, anti & above},
              {rank & below, file & below, diag & below, anti & below}};
}

// Flips along one ray. The discs a move flips on a ray run from the move square to the ray's
// first non-opponent square, the "outflank" square; they flip if that square holds one of the
// player's discs (not if it is empty, or if the ray is opponent discs to the edge).
// Going up, the outflank square is the lowest set bit of ~O & ray, and the flips are the ray
// squares below it.
EF_HD_INLINE u64 flips_up(u64 P, u64 O, u64 ray) {
  const u64 x = ~O & ray;
  const u64 outflank = x & (0 - x) & P;
  return (outflank - (outflank != 0)) & ray;
}

// Going down, it is the highest set bit, and the flips are the ray squares above it.
EF_HD_INLINE u64 flips_down(u64 P, u64 O, u64 ray) {
  const u64 x = ~O & ray;
  // x | 1 keeps clz defined; when x == 0 the stand-in bit 0 is removed by `& ray` unless
  // bit 0 is on the ray, and then it holds an opponent disc (x == 0), not a player's.
  const u64 outflank = (u64{1} << 63 >> clz64(x | 1)) & P & ray;
  return ((0 - outflank) << 1) & ray;
}

}  // namespace detail

// Squares where the player (P) may move: empty, and bracketing a run of opponent discs (O).
EF_HD_INLINE u64 legal_moves_portable(u64 P, u64 O) {
  const u64 Oh = O & kInner;
  // East (towards higher bits within a rank): adding the opponent discs next to a player's
  // disc to the opponent discs carries through each such run and sets the square after it.
  const u64 east = (Oh + ((P << 1) & Oh)) & ~Oh;
  const u64 m = east | detail::moves_dir<-1>(P, Oh) | detail::moves_dir<8>(P, O) | detail::moves_dir<-8>(P, O) |
                detail::moves_dir<9>(P, Oh) | detail::moves_dir<7>(P, Oh) | detail::moves_dir<-7>(P, Oh) |
                detail::moves_dir<-9>(P, Oh);
  return m & ~(P | O);
}

// Discs flipped by playing square sq (assumed empty). Zero means the move is illegal.
EF_HD_INLINE u64 flips_portable(u64 P, u64 O, int sq) {
  const detail::Rays r = detail::rays(sq);
  return detail::flips_up(P, O, r.up[0]) | detail::flips_up(P, O, r.up[1]) | detail::flips_up(P, O, r.up[2]) |
         detail::flips_up(P, O, r.up[3]) | detail::flips_down(P, O, r.down[0]) | detail::flips_down(P, O, r.down[1]) |
         detail::flips_down(P, O, r.down[2]) | detail::flips_down(P, O, r.down[3]);
}

#if !defined(__CUDACC__) && defined(__AVX2__) && (defined(__GNUC__) || defined(__clang__)) && \
    !defined(EF_OTHELLO_NO_SIMD)
#define EF_OTHELLO_SIMD 1

namespace detail {

typedef u64 u64x4 __attribute__((vector_size(32)));

// rays() for every square, so flips_simd loads its 8 rays with two vector loads.
struct alignas(64) RayTable {
  Rays sq[64];
};
constexpr RayTable make_ray_table() {
  RayTable t{};
  for (int sq = 0; sq < 64; ++sq) t.sq[sq] = rays(sq);
  return t;
}
inline constexpr RayTable kRayTable = make_ray_table();

inline u64 or_lanes(u64x4 v) { return v[0] | v[1] | v[2] | v[3]; }

}  // namespace detail

// legal_moves_portable with the lanes E|W, N|S, NE|SW, NW|SE (steps 1, 8, 9, 7).
// Both SIMD functions are forced inline: GCC kept them out of line in the endgame solver's
// large loops; inline, the solver takes 7% less time (docs/search.md).
inline __attribute__((always_inline)) u64 legal_moves_simd(u64 P, u64 O) {
  using detail::u64x4;
  const u64x4 step = {1, 8, 9, 7};
  const u64x4 step2 = step + step;
  const u64x4 mask = u64x4{kInner, ~u64{0}, kInner, kInner} & O;
  const u64x4 p = u64x4{} + P;
  u64x4 up = mask & (p << step);
  u64x4 down = mask & (p >> step);
  up |= mask & (up << step);
  down |= mask & (down >> step);
  const u64x4 pairs_up = mask & (mask << step), pairs_down = mask & (mask >> step);
  up |= pairs_up & (up << step2);
  down |= pairs_down & (down >> step2);
  up |= pairs_up & (up << step2);
  down |= pairs_down & (down >> step2);
  return detail::or_lanes((up << step) | (down >> step)) & ~(P | O);
}

// flips_portable with 4 rays a vector. Going down, the flips end at the highest set bit of
// ~O & ray. AVX-512 (CD and VL) counts leading zeros in each lane: that bit is 2^63 >> clz
// (a shift by 64, for an empty lane, gives 0 in vpsrlvq), and the flips are the ray's squares
// above it when it is a player's disc: ray & -(outflank << 1), 0 when outflank is 0. That is
// about 6% less time for the whole solver (docs/search.md). AVX2 has no vector clz:
// there the bit comes from smearing it down the ray, s = x | x>>k | ... | x>>7k covers the ray
// squares at or below it; its top bit is x & ~(s >> k), and the flips are ray & ~s.
inline __attribute__((always_inline)) u64 flips_simd(u64 P, u64 O, int sq) {
  using detail::u64x4;
  u64x4 up, down;
  __builtin_memcpy(&up, detail::kRayTable.sq[sq].up, sizeof up);
  __builtin_memcpy(&down, detail::kRayTable.sq[sq].down, sizeof down);
  const u64x4 o = u64x4{} + O, p = u64x4{} + P;
  const u64x4 x = ~o & up;
  const u64x4 outflank_up = x & -x & p;
  u64x4 f = (outflank_up + reinterpret_cast<u64x4>(outflank_up != 0)) & up;  // outflank - 1, or 0
  const u64x4 y = ~o & down;
#if defined(__AVX512CD__) && defined(__AVX512VL__)
  const __m256i top = _mm256_set1_epi64x(static_cast<long long>(u64{1} << 63));
  const u64x4 highest =
      reinterpret_cast<u64x4>(_mm256_srlv_epi64(top, _mm256_lzcnt_epi64(reinterpret_cast<__m256i>(y))));
  const u64x4 outflank_down = highest & p;
  f |= -(outflank_down << 1) & down;
#else
  const u64x4 step = {1, 8, 9, 7};
  u64x4 smear = y | (y >> step);
  smear |= smear >> (step + step);
  smear |= smear >> (step << 2);
  const u64x4 outflank_down = y & ~(smear >> step) & p;
  f |= reinterpret_cast<u64x4>(outflank_down != 0) & down & ~smear;
#endif
  return detail::or_lanes(f);
}

#endif

EF_HD_INLINE u64 legal_moves(u64 P, u64 O) {
#if defined(EF_OTHELLO_SIMD)
  return legal_moves_simd(P, O);
#else
  return legal_moves_portable(P, O);
#endif
}

// Discs flipped by playing square sq (assumed empty). Zero means the move is illegal.
EF_HD_INLINE u64 flips(u64 P, u64 O, int sq) {
#if defined(EF_OTHELLO_SIMD)
  return flips_simd(P, O, sq);
#else
  return flips_portable(P, O, sq);
#endif
}

struct Board {
  u64 player = kStartBlack;  // side to move
  u64 opponent = kStartWhite;
  int side = kBlack;  // colour of `player`

  EF_HD u64 black() const { return side == kBlack ? player : opponent; }
  EF_HD u64 white() const { return side == kBlack ? opponent : player; }
  EF_HD u64 moves() const { return legal_moves(player, opponent); }
  EF_HD int discs() const { return popcount64(player | opponent); }
  EF_HD int empties() const { return 64 - discs(); }
  EF_HD bool can_move() const { return moves() != 0; }
  EF_HD bool game_over() const { return legal_moves(player, opponent) == 0 && legal_moves(opponent, player) == 0; }
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
  EF_HD bool operator==(const Board& o) const { return player == o.player && opponent == o.opponent && side == o.side; }
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
  t = 0x0F0F0F0F00000000ull & (x ^ (x << 28));
  x ^= t ^ (t >> 28);
  t = 0x3333000033330000ull & (x ^ (x << 14));
  x ^= t ^ (t >> 14);
  t = 0x5500550055005500ull & (x ^ (x << 7));
  x ^= t ^ (t >> 7);
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
  if (s & 4) {
    int t = r;
    r = c;
    c = t;
  }
  if (s & 1) c = 7 - c;
  if (s & 2) r = 7 - r;
  return 8 * r + c;
}

// ---- Perft ----------------------------------------------------------------------------
// Leaf count to `depth` plies from (P,O), a pass counted as a ply; a finished game is a leaf.
// Leaves at the last ply are counted in bulk (popcount of the move set), and each node's move
// set is computed once and handed down, so a pass node does not generate it twice.
namespace detail {

// depth >= 1; moves == legal_moves(P, O).
EF_HD inline u64 perft_node(u64 P, u64 O, u64 moves, int depth) {
  if (!moves) {
    // At the last ply a pass and a finished game are both one leaf.
    if (depth == 1) return 1;
    const u64 reply = legal_moves(O, P);
    if (!reply) return 1;  // game over before the horizon
    return perft_node(O, P, reply, depth - 1);
  }
  if (depth == 1) return static_cast<u64>(popcount64(moves));
  u64 n = 0;
  if (depth == 2) {
    // Children are depth-1 nodes: their move count, or one leaf for a pass or a finished game.
    for (u64 m = moves; m; m &= m - 1) {
      const int sq = ctz64(m);
      const u64 f = flips(P, O, sq);
      const u64 child = legal_moves(O & ~f, P | f | (u64{1} << sq));
      n += child ? static_cast<u64>(popcount64(child)) : 1;
    }
    return n;
  }
  for (u64 m = moves; m; m &= m - 1) {
    const int sq = ctz64(m);
    const u64 f = flips(P, O, sq);
    const u64 cp = O & ~f, co = P | f | (u64{1} << sq);
    n += perft_node(cp, co, legal_moves(cp, co), depth - 1);
  }
  return n;
}

}  // namespace detail

EF_HD inline u64 perft(u64 P, u64 O, int depth) {
  if (depth <= 0) return 1;
  return detail::perft_node(P, O, legal_moves(P, O), depth);
}

}  // namespace ef::othello
