// Exact Othello endgame solver, EF_HD: negamax alpha-beta on the final disc difference.
//
// Scores are disc differences for the side to move with the empty squares given to the
// winner (the obf convention), under perfect play by both sides.
//
// Like alphabeta.hpp the solver keeps an explicit stack of frames (no recursion, nothing
// allocated), so one CUDA thread can solve one position. The last few empties are solved by
// unrolled code instead (solve_small<N> below: a compile-time chain of distinct functions, not
// recursion), where frames would cost more than the work they organise; the non-root nodes one
// above them in an exact pass (kSmallEmpties + 1 empties, the most numerous of the rest) by
// solve_above_small, the frame search's tree without a frame.
//
// Search: principal variation search (first move full window, the rest a null window and a
// re-search when one turns out better), fail-soft. Accelerations, all exact:
//  - stability cutoff: discs of the opponent that can never be flipped cap the side to move's
//    score at 64 - 2 * stable; when that cap is <= alpha the node fails low at once;
//  - a transposition table (HashTable below, memory owned by the caller): bounds and best moves
//    of positions met before, from kHashEmpties empties up, and the enhanced transposition
//    cutoff (a child already proven >= beta fails the node high before any search). Without a
//    table the solver still works (a CUDA thread may not have memory to spare), only slower
//    above ~18 empties.
//
// Move ordering, by remaining empties:
//  - more than kSortEmpties: the table's move first (the others are ordered only once it has
//    failed to cut off: at a cut node their keys would be wasted), then "fastest first" -- the move leaving
//    the opponent the fewest replies (corner replies counted twice, since they are the replies
//    that hurt), with a small bonus for squares in a region (board quadrant) holding an odd
//    number of empties, ties by square;
//  - with an ordering evaluation (optional, e.g. an n-tuple network: OrderingEvaluator below),
//    from kEvalOrderEmpties up the child's evaluation joins that key (in the exact pass from
//    kShallowEmpties up a 2-ply search of it, from kDeepEmpties up a 3-ply one), and from
//    kPassEmpties up solve_endgame first runs ordering passes: depth-limited searches with the
//    evaluation at their leaves, which leave their best moves in the table for the exact pass
//    and a score that centres the exact pass's aspiration window (kAspirationWindow)
//    (on FFO #20-#39: 911 M -> 173 M nodes, docs/search.md; 166 M with the lazy cut-off);
//  - down to kSortEmpties + 1 (when above kSmallEmpties): parity only -- odd regions first;
//  - the last kSmallEmpties: parity order of the empty squares (corners first, X-squares
//    last within each parity class), fixed once for the subtree.
// Parity: with an odd number of empties in a region the side that moves there first can
// usually also move there last, which is worth more than the move ordering costs this deep.
//
// One solve on several threads: solve_parallel.hpp (host only), over the pieces below.
//
// Determinism: the score and the chosen move are exact, so they cannot depend on anything
// else. The chosen move follows alphabeta.hpp's rule: the lowest square among the moves of
// best score (a lower square that ties is searched with a window one wider). Node counts depend
// on the table size, but a solve never sees another solve's entries (HashTable::stamp), so they
// do not depend on what ran before or on how many threads solve other positions.
// nodes counts positions visited: the root, every move played (re-searches again), every pass.
#pragma once
#include <concepts>
#include "evalforge/core/hd.hpp"
#include "evalforge/engine/alphabeta.hpp"
#include "evalforge/games/othello/bitboard.hpp"

namespace ef::search {

struct SolveResult {
  int score = 0;            // exact, if alpha < score < beta (else a bound on the failing side)
  int best_move = kNoMove;  // square, kPassMove or kNoMove (game over)
  u64 nodes = 0;
};

namespace endgame {

constexpr int kSmallEmpties = 5;  // solved by solve_small<N>
static_assert(kSmallEmpties == 5, "solve_few's switch covers kSmallEmpties - 1 <= 4 children");
constexpr int kSortEmpties = 5;       // fastest-first ordering above this many empties
constexpr int kHashEmpties = 8;       // transposition table from this many empties up
constexpr int kStabilityEmpties = 7;  // stability cutoff tried from this many empties up
constexpr int kEtcEmpties = 11;       // children probed for a cutoff when they have this many empties or more
constexpr int kScoreLimit = 65;       // beyond every score (|score| <= 64)
// Frame::research_alpha when no re-search is pending. It must lie below every lower bound a
// re-search can start from: that is v - 1 >= -65 for a child worth v = -64 (a wipe-out whose
// null-window scout at the root tie window (-65, -64) failed high), so -kScoreLimit itself would
// be taken for "no re-search" and the scout repeated forever.
constexpr int kNoResearch = -4 * kScoreLimit;

// The root's tie rule: among moves of equal value the lowest square is reported, so a move
// below the best so far must show a tie as a gain: its window starts one lower. Elsewhere (and
// for moves above the best) the window is the node's own.
EF_HD_INLINE int root_tie_alpha(bool root_choice, int alpha, int best_move, int sq) {
  return root_choice && best_move >= 0 && sq < best_move ? alpha - 1 : alpha;
}

constexpr u64 kCorners = 0x8100000000000081ull;
constexpr u64 kXSquares = 0x0042000000004200ull;  // b2, g2, b7, g7
constexpr u64 kFileA = 0x0101010101010101ull, kFileH = 0x8080808080808080ull;
constexpr u64 kRank1 = 0x00000000000000FFull, kRank8 = 0xFF00000000000000ull;

// ---- Transposition table ---------------------------------------------------------------------
// One entry: a position (side to move first), bounds lower <= score <= upper, the best move
// found. Three words: the data word packs stamp, bounds, move and empties; the position is
// stored as P ^ data and O ^ data, so an entry whose words come from two different writes
// (threads sharing a table, solve_parallel.hpp) fails the key check and reads as empty instead
// of lending one position another's bounds (the "lockless" scheme of chess engines). Both
// words carry the data: with P alone, a read of one write's P and data and another's O (same
// bucket, same P) would pass as the other position. Entries with another stamp
// belong to earlier solves and count as empty. All zero = empty.
struct HashEntry {
  u64 key_p = 0;  // P ^ data
  u64 key_o = 0;  // O ^ data
  u64 data = 0;   // stamp << 32 | empties << 24 | move << 16 | (u8)upper << 8 | (u8)lower
};
static_assert(sizeof(HashEntry) == 24);

// What find() returns: a copy (another thread may overwrite the slot at any time).
struct HashHit {
  bool found = false;
  int lower = 0, upper = 0;
  int move = -1;  // -1: none
};

// Word access: relaxed atomic on the host, where a table may be shared by threads (a plain mov
// on x86; no fences), plain on the device, where each thread owns its table.
EF_HD_INLINE u64 load_word(const u64& w) {
#if defined(__CUDA_ARCH__)
  return w;
#else
  return __atomic_load_n(&w, __ATOMIC_RELAXED);
#endif
}
EF_HD_INLINE void store_word(u64& w, u64 v) {
#if defined(__CUDA_ARCH__)
  w = v;
#else
  __atomic_store_n(&w, v, __ATOMIC_RELAXED);
#endif
}

// A view of caller-owned entries (a power of two of them, zero-initialised). Buckets of two:
// the first slot keeps the entry with more empties (more work saved), the second the latest.
struct HashTable {
  HashEntry* entries = nullptr;
  u64 mask = 0;   // number of entries - 1
  u32 stamp = 0;  // current solve; solve_endgame() advances it

  EF_HD_INLINE u64 bucket(u64 P, u64 O) const {
    u64 h = P * 0x9E3779B97F4A7C15ull ^ (O + 0x632BE59BD9B4E019ull) * 0xC2B2AE3D27D4EB4Full;
    h ^= h >> 31;
    return h & mask & ~u64{1};
  }
  // The slot's position if it holds one of this solve, else found == false.
  EF_HD_INLINE bool read(const HashEntry& e, u64& P, u64& O, u64& data) const {
    const u64 key_p = load_word(e.key_p), key_o = load_word(e.key_o);
    data = load_word(e.data);
    P = key_p ^ data;
    O = key_o ^ data;
    return data != 0 && static_cast<u32>(data >> 32) == stamp;
  }
  EF_HD_INLINE HashHit find(u64 P, u64 O) const {
    const u64 b = bucket(P, O);
    for (u64 i = b; i <= b + 1; ++i) {
      u64 p, o, data;
      if (read(entries[i], p, o, data) && p == P && o == O) {
        HashHit hit;
        hit.found = true;
        hit.lower = static_cast<i8>(data & 0xFF);
        hit.upper = static_cast<i8>(data >> 8 & 0xFF);
        const int move = static_cast<int>(data >> 16 & 0xFF);
        hit.move = move == 255 ? -1 : move;
        return hit;
      }
    }
    return HashHit{};
  }
  EF_HD_INLINE void store(u64 P, u64 O, int empties, int lower, int upper, int move) {
    const u64 b = bucket(P, O);
    u64 dp, dO, ddata;
    const bool deep_live = read(entries[b], dp, dO, ddata);
    const bool into_deep = !deep_live || (dp == P && dO == O) || static_cast<int>(ddata >> 24 & 0xFF) <= empties;
    write(entries[into_deep ? b : b + 1], P, O, pack(stamp, empties, lower, upper, move));
  }
  EF_HD_INLINE static u64 pack(u32 stamp, int empties, int lower, int upper, int move) {
    return u64{stamp} << 32 | u64{static_cast<u8>(empties)} << 24 | u64{static_cast<u8>(move < 0 ? 255 : move)} << 16 |
           u64{static_cast<u8>(upper)} << 8 | u64{static_cast<u8>(lower)};
  }
  EF_HD_INLINE static void write(HashEntry& slot, u64 P, u64 O, u64 data) {
    store_word(slot.key_p, P ^ data);
    store_word(slot.key_o, O ^ data);
    store_word(slot.data, data);
  }
  // What a finished node proved: within an ordering pass (horizon > 0, not an exact value)
  // only its best move, as a hint; else a lower bound when it failed high, an upper bound when
  // it failed low (no better than alpha at entry), the exact score in between.
  EF_HD_INLINE void store_result(u64 P, u64 O, int empties, int horizon, int entry_alpha, int beta, int best,
                                 int best_move) {
    if (horizon > 0)
      store(P, O, empties, -64, 64, best_move);
    else
      store(P, O, empties, best > entry_alpha ? best : -64, best < beta ? best : 64, best_move);
  }
  // Starts loading (P, O)'s bucket into the cache (host only; nothing on the device).
  EF_HD_INLINE void prefetch(u64 P, u64 O) const {
#if !defined(__CUDA_ARCH__)
    __builtin_prefetch(&entries[bucket(P, O)]);
#endif
  }
  // A measuring instrument, not part of solving (bench/solve_bench, BM_SolveFforumHintCeiling):
  // the best moves this solve found at positions of `min_empties` empties or more become the
  // next solve's entries, as move hints without bounds; the rest is forgotten. Solving the same
  // position again then shows what the search costs when the table's move is the one an exact
  // search chose at every such node: a floor for any ordering that works through table moves
  // (docs/search.md). Host only; call between two solves of one table, by one thread; the next
  // solve must advance the stamp (more than kSmallEmpties empties), or the carried entries stay
  // for the one after.
  void carry_moves_to_next_solve(int min_empties) {
    if (stamp + 1 == 0) return;  // next_solve() clears the table then
    for (u64 i = 0; i <= mask; ++i) {
      u64 p, o, data;
      if (!read(entries[i], p, o, data)) continue;
      const int empties = static_cast<int>(data >> 24 & 0xFF), move = static_cast<int>(data >> 16 & 0xFF);
      if (empties >= min_empties) write(entries[i], p, o, pack(stamp + 1, empties, -64, 64, move == 255 ? -1 : move));
    }
  }
  // A new solve: earlier entries stop counting. (After 2^32 solves the stamp would come round
  // to old entries: clear them then.)
  EF_HD_INLINE void next_solve() {
    if (++stamp == 0) {
      for (u64 i = 0; i <= mask; ++i) entries[i] = HashEntry{};
      stamp = 1;
    }
  }
};

// ---- Ordering by evaluation -----------------------------------------------------------------
// An optional estimate for move ordering at nodes with many empties: value(P, O) estimates the
// final disc difference for P (to move) in 1/kOrderUnit discs. The solver stays exact whatever
// it returns; only the node count changes. NoOrdering: mobility and parity only.
// An evaluator may also have `visit(P, O, empties) const`: the solver calls it at every node of
// an exact pass (not the ordering passes) above kSmallEmpties, before the table or any cut-off
// is tried. runs/ordering_network.cpp samples the solver's own trees through it; the solver
// itself does not depend on it.
constexpr int kOrderUnit = 256;
struct NoOrdering {
  static constexpr bool kEnabled = false;
  EF_HD_INLINE int value(u64, u64) const { return 0; }
};
template <class T>
concept OrderingEvaluator = requires(const T& t, u64 P, u64 O) {
  { t.value(P, O) } -> std::convertible_to<int>;
  { T::kEnabled } -> std::convertible_to<bool>;
};
// An evaluator's value clamped to +-kScoreLimit discs: whatever it returns, the arithmetic of
// the keys and of the passes stays far from overflow.
template <class Order>
EF_HD_INLINE int order_value(const Order& order, u64 P, u64 O) {
  constexpr int kLimit = 65 * kOrderUnit;  // kScoreLimit discs
  const int v = order.value(P, O);
  return v > kLimit ? kLimit : (v < -kLimit ? -kLimit : v);
}

// Where the evaluation orders moves, and how much it weighs (enter()). Measured on FFO #20-#39
// with the built-in network (bench/solve_bench, docs/search.md): below ~15 empties an
// evaluation costs more than the nodes it saves; a weight above ~2 per disc (against 8 per
// reply of fastest first) loses more by ignoring mobility than it gains.
//  - kEvalOrderEmpties and up: a move's key adds kEvalWeight x the child's evaluation for the
//    opponent, in discs (lower keys first), to the fastest-first key;
//  - kShallowEmpties and up (in the exact pass): the evaluation kShallowDepth plies deep
//    instead of the static one, weighing kShallowWeight per disc (a deeper value is more
//    accurate, so it may outweigh mobility more); kDeepEmpties and up: kDeepDepth plies.
//    These pay from this low only because cut nodes rarely compute keys (enter()).
constexpr int kEvalOrderEmpties = 15;
constexpr int kEvalWeight = 2;
constexpr int kShallowEmpties = 15;
constexpr int kShallowDepth = 2;
constexpr int kShallowWeight = 4;
constexpr int kDeepEmpties = 19;
constexpr int kDeepDepth = 3;
constexpr int kDeepWeight = 4;
// Ordering passes (solve_endgame): from kPassEmpties empties up, passes searching the first
// kPassFirstDepth, +kPassStep, ... plies down to kPassMinHorizon empties, the evaluation at
// their leaves, fill the table with best moves before the exact pass. They cost ~2% of the
// nodes and save most of the exact pass's misordered subtrees near the root.
constexpr int kPassEmpties = 16;
constexpr int kPassFirstDepth = 4;
constexpr int kPassStep = 2;
constexpr int kPassMinHorizon = 10;
// The exact pass after ordering passes starts with an aspiration window: the deepest pass's
// score, rounded down to an even number c (every final score is even), and the window
// (c - kAspirationWindow, c + kAspirationWindow), which holds the 5 even scores c-4 .. c+4.
// A result outside it is searched again on that side only, up to the caller's bound. With an
// even centre, 6 was best of 4, 6, 8, 10 on FFO #20-#39 and on 30 WTHOR positions of 21
// empties; windows with odd bounds (the same scores inside) cost 10-20% more nodes
// (docs/search.md).
constexpr int kAspirationWindow = 6;
static_assert(kAspirationWindow % 2 == 0, "odd window bounds cost more nodes for the same scores");

// ---- Board helpers ---------------------------------------------------------------------------

// Squares next to any square of b (8-neighbourhood, no wrap-around).
EF_HD_INLINE u64 neighbours(u64 b) {
  const u64 vertical = b | (b << 8) | (b >> 8);
  return ((vertical << 1) & othello::kNotFileA) | ((vertical >> 1) & othello::kNotFileH) | (b << 8) | (b >> 8);
}

// Empty squares in quadrants (a1-d4, e1-h4, a5-d8, e5-h8) that hold an odd number of empties.
EF_HD_INLINE u64 odd_regions(u64 empties) {
  u64 odd = 0;
  const u64 q0 = 0x000000000F0F0F0Full, q1 = 0x00000000F0F0F0F0ull, q2 = 0x0F0F0F0F00000000ull,
            q3 = 0xF0F0F0F000000000ull;
  if (popcount64(empties & q0) & 1) odd |= q0;
  if (popcount64(empties & q1) & 1) odd |= q1;
  if (popcount64(empties & q2) & 1) odd |= q2;
  if (popcount64(empties & q3) & 1) odd |= q3;
  return odd & empties;
}

// The side to move passes: the opponent moves, and the window is seen from its side.
EF_HD_INLINE void pass_turn(u64& P, u64& O, int& alpha, int& beta) {
  const u64 t = P;
  P = O;
  O = t;
  const int a = alpha;
  alpha = -beta;
  beta = -a;
}

// Final score of a finished game for the side to move (P), empties to the winner.
EF_HD_INLINE int final_score(u64 P, u64 O) {
  const int p = popcount64(P), o = popcount64(O);
  const int diff = p - o, empties = 64 - p - o;
  return diff > 0 ? diff + empties : (diff < 0 ? diff - empties : 0);
}

// Squares whose line in one direction is filled from edge to edge. `up` is the shift to the
// neighbour on one side (x >> up brings that neighbour's bit to x); edge_up / edge_down are the
// squares without a neighbour on either side (the wall stops the line there).
EF_HD_INLINE u64 full_line(u64 filled, int up, u64 edge_up, u64 edge_down) {
  u64 to_up = filled, to_down = filled;
  for (int i = 0; i < 7; ++i) {
    to_up = filled & ((to_up >> up) | edge_up);
    to_down = filled & ((to_down << up) | edge_down);
  }
  return to_up & to_down;
}

// A subset of own's discs that can never be flipped: a disc is stable when, along each of the
// four line directions, its line is full (no move can be made on it) or one of its two
// neighbours on the line is the wall or a stable disc of its own colour (nothing can bracket
// it). Grown from the empty set to a fixed point; corners start it.
EF_HD_INLINE u64 stable_discs(u64 own, u64 other) {
  const u64 filled = own | other;
  const u64 full_h = full_line(filled, 1, kFileH, kFileA);
  const u64 full_v = full_line(filled, 8, kRank8, kRank1);
  const u64 full_d = full_line(filled, 9, kFileH | kRank8, kFileA | kRank1);
  const u64 full_a = full_line(filled, 7, kFileA | kRank8, kFileH | kRank1);
  u64 stable = 0;
  for (;;) {
    const u64 h = full_h | (stable >> 1) | kFileH | (stable << 1) | kFileA;
    const u64 v = full_v | (stable >> 8) | kRank8 | (stable << 8) | kRank1;
    const u64 d = full_d | (stable >> 9) | kFileH | kRank8 | (stable << 9) | kFileA | kRank1;
    const u64 a = full_a | (stable >> 7) | kFileA | kRank8 | (stable << 7) | kFileH | kRank1;
    const u64 grown = own & h & v & d & a;
    if (grown == stable) return stable;
    stable = grown;
  }
}

// ---- The last empties ------------------------------------------------------------------------

// Score with one empty square `sq` left, fail-soft against alpha: the player takes it if it
// flips anything, else the opponent does, else the game ends with it empty. When the player
// cannot take it, the opponent's move can only lower the player's score below what the empty
// square gives; when that is already no better than alpha it is returned as the upper bound it
// is, and the opponent's move is not played (Edax's "lazy cut-off": 7.3 M of 172.9 M nodes on
// FFO #20-#39, docs/search.md). Exact when the result is above alpha.
EF_HD_INLINE int last_move_score(u64 P, u64 O, int sq, int alpha, u64& nodes) {
  const int p = popcount64(P);  // p + o = 63
  const u64 f = othello::flips(P, O, sq);
  if (f) {
    ++nodes;
    return 2 * (p + popcount64(f) + 1) - 64;
  }
  const int diff = 2 * p - 63;  // odd, never a draw
  const int square_left_empty = diff > 0 ? diff + 1 : diff - 1;
  if (square_left_empty <= alpha) return square_left_empty;
  const u64 g = othello::flips(O, P, sq);
  if (g) {
    nodes += 2;  // the pass and the opponent's move
    return 2 * (p - popcount64(g)) - 64;
  }
  return square_left_empty;
}

// Alpha-beta over the last N empty squares `sq[0..N)` (in the order to try them). kAfterPass:
// the other side has just passed, so no move here ends the game. Fail-soft.
template <int N, bool kAfterPass = false>
EF_HD_INLINE int solve_small(u64 P, u64 O, int alpha, int beta, const int* sq, u64& nodes) {
  if constexpr (N == 1) {
    return last_move_score(P, O, sq[0], alpha, nodes);
  } else {
    int best = -kScoreLimit;
    for (int i = 0; i < N; ++i) {
      const u64 bit = u64{1} << sq[i];
      if (!(neighbours(bit) & O)) continue;  // cannot flip anything
      const u64 f = othello::flips(P, O, sq[i]);
      if (!f) continue;
      ++nodes;
      int rest[N - 1];
      for (int j = 0, k = 0; j < N; ++j)
        if (j != i) rest[k++] = sq[j];
      const int v = -solve_small<N - 1>(O & ~f, P | f | bit, -beta, -alpha, rest, nodes);
      if (v > best) {
        best = v;
        if (v > alpha) {
          alpha = v;
          if (alpha >= beta) return best;
        }
      }
    }
    if (best > -kScoreLimit) return best;
    if constexpr (kAfterPass) {
      return final_score(P, O);  // neither side can move: the game is over
    } else {
      ++nodes;
      return -solve_small<N, true>(O, P, -beta, -alpha, sq, nodes);
    }
  }
}

// The order the last kSmallEmpties empty squares are tried in: odd regions first; within each
// parity class corners first and X-squares (diagonal to a corner) last, ascending otherwise.
// A corner is the move most likely to be best and an X-square the least, so cut-offs come
// sooner: 5% fewer nodes on FFO #20-#39 than ascending squares (docs/search.md), at no cost,
// since the order is fixed once for the subtree.
EF_HD_INLINE void parity_order(u64 empties, int* out) {
  const u64 odd = odd_regions(empties);
  const u64 regions[2] = {odd, empties & ~odd};
  const u64 classes[3] = {kCorners, ~(kCorners | kXSquares), kXSquares};
  int n = 0;
  for (const u64 region : regions)
    for (const u64 squares : classes)
      for (u64 m = region & squares; m; m &= m - 1) out[n++] = ctz64(m);
}

// Negamax of the ordering evaluation D plies deep (alpha-beta, fail-soft), for P to move:
// the ordering estimate of a child at nodes with many empties. Units of Order::value; a
// finished game is its exact score in those units.
template <int D, class Order>
EF_HD_INLINE int shallow_value(u64 P, u64 O, int alpha, int beta, const Order& order) {
  if constexpr (D == 0) {
    return order_value(order, P, O);
  } else {
    u64 moves = othello::legal_moves(P, O);
    // A pass: the opponent's value at the same depth, negated. Done in place rather than by
    // calling this function again: a call of an always-inline function to itself is an error
    // for GCC wherever its inliner happens to try it (in an -O1 build, or with a precompiled
    // header).
    int sign = 1;
    if (!moves) {
      if (!othello::legal_moves(O, P)) return final_score(P, O) * kOrderUnit;
      pass_turn(P, O, alpha, beta);
      sign = -1;
      moves = othello::legal_moves(P, O);
    }
    int best = -kScoreLimit * kOrderUnit;
    for (; moves; moves &= moves - 1) {
      const int sq = ctz64(moves);
      const u64 f = othello::flips(P, O, sq);
      const int v = -shallow_value<D - 1, Order>(O & ~f, P | f | (u64{1} << sq), -beta, -alpha, order);
      if (v > best) {
        best = v;
        if (v > alpha) {
          alpha = v;
          if (alpha >= beta) break;
        }
      }
    }
    return sign * best;
  }
}

// The fastest-first key of a move to `sq` giving the child (cp to move, co), `replies` its
// moves (lower keys first): 8 per reply of the opponent, corner replies counted twice, one
// per empty square next to the mover's discs (potential mobility), -3 for a square in an odd
// region and -6 for a corner.
EF_HD_INLINE int fastest_first_key(u64 cp, u64 co, u64 replies, int sq, u64 odd) {
  return 8 * (popcount64(replies) + popcount64(replies & kCorners)) + popcount64(neighbours(co) & ~(cp | co)) -
         ((odd >> sq & 1) ? 3 : 0) - ((kCorners >> sq & 1) ? 6 : 0);
}

// A node of kSmallEmpties + 1 empties in an exact pass, searched as enter() and solve_pass's
// loop search it there -- fastest-first order, principal variation search over solve_small
// children, no table, stability cut-off or evaluation at this depth (kHashEmpties,
// kStabilityEmpties, kEvalOrderEmpties) -- but without a frame: the same tree, node for node,
// for less work per node (these are the most numerous nodes above solve_small). Fail-soft.
static_assert(kHashEmpties > kSmallEmpties + 1 && kStabilityEmpties > kSmallEmpties + 1 &&
                  kEvalOrderEmpties > kSmallEmpties + 1 && kShallowEmpties > kSmallEmpties + 1 &&
                  kDeepEmpties > kSmallEmpties + 1 && kEtcEmpties > kSmallEmpties && kSortEmpties < kSmallEmpties + 1,
              "solve_above_small does without the table, the stability and transposition cut-offs and the evaluation");
template <class Order>
EF_HD_INLINE int solve_above_small(u64 P, u64 O, int alpha, int beta, const Order* order, u64& nodes) {
  constexpr int kEmpties = kSmallEmpties + 1;
  u64 moves = othello::legal_moves(P, O);
  bool passed = false;
  if (!moves) {
    moves = othello::legal_moves(O, P);
    if (!moves) return final_score(P, O);
    ++nodes;
    passed = true;
    pass_turn(P, O, alpha, beta);
  }
  if constexpr (requires { order->visit(P, O, kEmpties); }) {
    if (order) order->visit(P, O, kEmpties);
  }
  // The moves fastest first (order_rest's keys and tie rule), with their flips.
  const u64 odd = odd_regions(~(P | O));
  int keys[kEmpties], squares[kEmpties];
  u64 flipped[kEmpties];
  int count = 0;
  for (; moves; moves &= moves - 1) {
    const int sq = ctz64(moves);
    const u64 f = othello::flips(P, O, sq);
    const u64 cp = O & ~f, co = P | f | (u64{1} << sq);
    const int key = fastest_first_key(cp, co, othello::legal_moves(cp, co), sq, odd);
    int i = count++;
    for (; i > 0 && keys[i - 1] > key; --i) {
      keys[i] = keys[i - 1];
      squares[i] = squares[i - 1];
      flipped[i] = flipped[i - 1];
    }
    keys[i] = key;
    squares[i] = sq;
    flipped[i] = f;
  }
  int best = -kScoreLimit;
  for (int i = 0; i < count; ++i) {
    const u64 cp = O & ~flipped[i], co = P | flipped[i] | (u64{1} << squares[i]);
    int order_of_squares[kSmallEmpties];
    parity_order(~(cp | co), order_of_squares);
    // The first move with the full window, the others a null window and, when that proves
    // one better than alpha, a re-search from the bound it proved. (One call site: each
    // solve_small<5> is the whole unrolled chain below it.)
    bool scout = i > 0 && beta - alpha > 1;
    int lo = alpha, v;
    for (;;) {
      ++nodes;
      v = -solve_small<kSmallEmpties>(cp, co, scout ? -lo - 1 : -beta, -lo, order_of_squares, nodes);
      if (!scout || v <= lo || v >= beta) break;
      scout = false;
      lo = v - 1;
    }
    if (v > best) {
      best = v;
      if (v > alpha) alpha = v;
      if (alpha >= beta) break;
    }
  }
  return passed ? -best : best;
}

// ---- Frames of the main search -----------------------------------------------------------------

template <int kMaxEmpties>
struct Frame {
  u64 P, O;         // after a forced pass (passed == true): the position after the pass
  int alpha, beta;  // window, alpha raised as moves improve it
  int entry_alpha;  // alpha on entry: what the result is a bound against (for the table)
  int best;
  int best_move;
  int empties;
  int count, next;     // moves[next..count) are still to search
  int child_alpha;     // lower window bound the last child was searched with (this node's view)
  int research_alpha;  // != kNoResearch: search moves[next] again from this lower bound
  bool scouted;        // the last child was searched with a null window
  bool passed;         // this node's side had to pass: its value is -best
  u64 rest;            // moves not yet in moves[] (ordered once moves[0], the table's move, is done)
  u8 moves[kMaxEmpties];
};

// Appends `moves` to f.moves fastest first: insertion sort on the key, squares in ascending
// order, equal keys kept in arrival order. With `etc`, returns false with the node's value (for
// the side to move at f, a lower bound >= beta) in `cut` when a child is already known to be
// worth >= beta from here (enhanced transposition cutoff).
template <int kMaxEmpties, class Order>
EF_HD_INLINE bool order_rest(Frame<kMaxEmpties>& f, u64 moves, bool etc, const HashTable* table, const Order* order,
                             int horizon, int& cut) {
  const u64 P = f.P, O = f.O;
  const int empties = f.empties;
  const u64 odd = odd_regions(~(P | O));
  const int first = f.count;
  int keys[kMaxEmpties];
  // The children first, their table buckets fetched all at once: probing them one by one
  // (cut-off probes here, their own probe when searched) waited for one cache miss after
  // another, ~20% of the solver's time; fetched together, the misses overlap (-13% CPU time on
  // FFO #20-#39, docs/search.md).
  u64 child_p[kMaxEmpties], child_o[kMaxEmpties];
  int n = 0;
  for (u64 m = moves; m; m &= m - 1, ++n) {
    const int sq = ctz64(m);
    const u64 flipped = othello::flips(P, O, sq);
    child_p[n] = O & ~flipped;
    child_o[n] = P | flipped | (u64{1} << sq);
    if (table && empties - 1 >= kHashEmpties) table->prefetch(child_p[n], child_o[n]);
  }
  n = 0;
  for (; moves; moves &= moves - 1, ++n) {
    const int sq = ctz64(moves);
    const u64 cp = child_p[n], co = child_o[n];
    if (etc) {
      const HashHit child = table->find(cp, co);
      if (child.found && -child.upper >= f.beta) {
        cut = -child.upper;
        return false;
      }
    }
    int key = fastest_first_key(cp, co, othello::legal_moves(cp, co), sq, odd);
    if constexpr (Order::kEnabled) {
      if (order && horizon == 0 && empties >= kDeepEmpties) {
        const int inf = kScoreLimit * kOrderUnit;
        key += kDeepWeight * shallow_value<kDeepDepth>(cp, co, -inf, inf, *order) / kOrderUnit;
      } else if (order && horizon == 0 && empties >= kShallowEmpties) {
        const int inf = kScoreLimit * kOrderUnit;
        key += kShallowWeight * shallow_value<kShallowDepth>(cp, co, -inf, inf, *order) / kOrderUnit;
      } else if (order && empties >= kEvalOrderEmpties) {
        key += kEvalWeight * order_value(*order, cp, co) / kOrderUnit;
      }
    }
    ::ef::search::detail::insert_ordered<false>(keys, f.moves, f.count, first, key, sq);
  }
  return true;
}

// Sets up a frame; or returns false with the node's value in `leaf_value` when no search is
// needed: a finished game (exact), or a bound from the table or the stability cutoff that
// already decides the window. `root`: the node whose move is reported (no cutoffs there).
template <int kMaxEmpties, class Order>
EF_HD_INLINE bool enter(Frame<kMaxEmpties>& f, u64 P, u64 O, int alpha, int beta, bool root, HashTable* table,
                        const Order* order, int horizon, u64& nodes, int& leaf_value) {
  u64 moves = othello::legal_moves(P, O);
  f.passed = false;
  if (!moves) {
    moves = othello::legal_moves(O, P);
    if (!moves) {
      leaf_value = final_score(P, O);
      return false;
    }
    ++nodes;
    f.passed = true;
    pass_turn(P, O, alpha, beta);
  }
  const u64 empty = ~(P | O);
  const int empties = popcount64(empty);
  if constexpr (requires { order->visit(P, O, empties); }) {
    if (order && horizon == 0) order->visit(P, O, empties);
  }
  if constexpr (Order::kEnabled) {
    // An ordering pass (horizon > 0): the evaluation stands in for the search below the horizon.
    if (horizon > 0 && !root && empties <= horizon) {
      int v = order_value(*order, P, O);
      v = (v >= 0 ? v + kOrderUnit / 2 : v - kOrderUnit / 2) / kOrderUnit;
      v = v > 64 ? 64 : (v < -64 ? -64 : v);
      leaf_value = f.passed ? -v : v;
      return false;
    }
  }
  int table_move = -1;
  if (table && empties >= kHashEmpties) {
    if (const HashHit e = table->find(P, O); e.found) {
      table_move = e.move;
      if (!root) {
        const int lower = e.lower, upper = e.upper;
        if (lower >= beta || upper <= alpha || lower == upper) {
          const int v = lower >= beta ? lower : upper;
          leaf_value = f.passed ? -v : v;
          return false;
        }
        if (lower > alpha) alpha = lower;
        if (upper < beta) beta = upper;
      }
    }
  }
  if (!root && empties >= kStabilityEmpties && 2 * popcount64(O) >= 64 - alpha) {
    // Only worth computing when the opponent has enough discs for the cap to reach alpha.
    const int cap = 64 - 2 * popcount64(stable_discs(O, P));
    if (cap <= alpha) {
      leaf_value = f.passed ? -cap : cap;
      return false;
    }
  }
  f.P = P;
  f.O = O;
  f.alpha = alpha;
  f.entry_alpha = alpha;
  f.beta = beta;
  f.best = -kScoreLimit;
  f.best_move = kNoMove;
  f.empties = empties;
  f.next = 0;
  f.count = 0;
  f.research_alpha = kNoResearch;
  f.scouted = false;
  if (empties <= kSortEmpties) {
    f.rest = 0;
    const u64 odd = odd_regions(empty);
    for (u64 m = moves & odd; m; m &= m - 1) f.moves[f.count++] = static_cast<u8>(ctz64(m));
    for (u64 m = moves & ~odd; m; m &= m - 1) f.moves[f.count++] = static_cast<u8>(ctz64(m));
    return true;
  }
  // The table's move first; the rest fastest first (order_rest). With a table move the rest
  // are only ordered once it has been searched without a cut-off: at a cut node that move
  // usually decides, and the keys (replies, evaluations) would be computed for nothing.
  f.rest = 0;
  const bool etc = !root && table && empties - 1 >= kEtcEmpties;
  if (table_move >= 0 && (moves >> table_move & 1)) {
    f.moves[f.count++] = static_cast<u8>(table_move);
    f.rest = moves & ~(u64{1} << table_move);
    if (etc) {
      // Enhanced transposition cutoff first all the same: a child already known to be worth
      // >= beta from here fails this node high without searching anything.
      for (u64 m = f.rest; m; m &= m - 1) {
        const int sq = ctz64(m);
        const u64 flipped = othello::flips(P, O, sq);
        const HashHit child = table->find(O & ~flipped, P | flipped | (u64{1} << sq));
        if (child.found && -child.upper >= beta) {
          leaf_value = f.passed ? child.upper : -child.upper;
          return false;
        }
      }
    }
    return true;
  }
  int cut = 0;
  if (!order_rest(f, moves, etc, table, order, horizon, cut)) {
    leaf_value = f.passed ? -cut : cut;
    return false;
  }
  return true;
}

// kSmallEmpties or fewer empties at the root: each first move is tried here, so that the best
// move is known (solve_small only returns scores).
EF_HD_INLINE SolveResult solve_few(u64 P, u64 O, int alpha, int beta) {
  SolveResult result;
  result.nodes = 1;
  u64 moves = othello::legal_moves(P, O);
  bool passed = false;
  if (!moves) {
    moves = othello::legal_moves(O, P);
    if (!moves) {
      result.score = final_score(P, O);
      return result;
    }
    ++result.nodes;
    passed = true;
    pass_turn(P, O, alpha, beta);
  }
  const u64 odd = odd_regions(~(P | O));
  const int empties = popcount64(~(P | O));
  int best = -kScoreLimit, best_move = kNoMove;
  // Odd regions first, then the rest; ascending squares within each.
  for (int pass_over = 0; pass_over < 2; ++pass_over) {
    for (u64 m = moves & (pass_over == 0 ? odd : ~odd); m; m &= m - 1) {
      const int sq = ctz64(m);
      const u64 flipped = othello::flips(P, O, sq);
      const u64 cp = O & ~flipped, co = P | flipped | (u64{1} << sq);
      ++result.nodes;
      const int a = root_tie_alpha(!passed, alpha, best_move, sq);
      int order[kSmallEmpties];
      parity_order(~(cp | co), order);
      int v;
      switch (empties - 1) {
        case 0: v = -final_score(cp, co); break;
        case 1: v = -solve_small<1>(cp, co, -beta, -a, order, result.nodes); break;
        case 2: v = -solve_small<2>(cp, co, -beta, -a, order, result.nodes); break;
        case 3: v = -solve_small<3>(cp, co, -beta, -a, order, result.nodes); break;
        default: v = -solve_small<4>(cp, co, -beta, -a, order, result.nodes); break;
      }
      if (v > best || (!passed && v == best && sq < best_move)) {
        best = v;
        best_move = sq;
        if (v > alpha) alpha = v;
        if (alpha >= beta) {
          pass_over = 2;
          break;
        }
      }
    }
  }
  result.score = passed ? -best : best;
  result.best_move = passed ? kPassMove : best_move;
  return result;
}

}  // namespace endgame

namespace endgame {

// One pass of the solver over (P, O) (empties > kSmallEmpties, window already widened): exact
// when horizon == 0, else an ordering pass whose nodes at `horizon` empties or fewer take the
// evaluation's value and which leaves only move hints in the table. `root`: (P, O) is the
// position whose move is reported (no table or stability cut-offs there, ties to the lowest
// square); false for a subtree of a bigger search (solve_parallel.hpp), which only needs the
// fail-soft value.
template <int kMaxEmpties, class Order>
EF_HD SolveResult solve_pass(u64 P, u64 O, int alpha, int beta, HashTable* table, const Order* order, int horizon,
                             bool root = true) {
  SolveResult result;
  result.nodes = 1;
  Frame<kMaxEmpties> stack[kMaxEmpties - endgame::kSmallEmpties];  // one frame per ply above solve_small
  int value = 0;
  if (!endgame::enter(stack[0], P, O, alpha, beta, root, table, order, horizon, result.nodes, value)) {
    result.score = value;
    return result;
  }
  int sp = 0;
  bool child_returned = false;
  for (;;) {
    Frame<kMaxEmpties>& f = stack[sp];
    const bool at_root_choice = root && sp == 0 && !f.passed;
    if (child_returned) {
      child_returned = false;
      const int v = -value;
      const int sq = f.moves[f.next - 1];
      if (f.scouted && v > f.child_alpha && v < f.beta) {
        // The null-window search proved the move better than alpha (v is a lower bound): search
        // it again with a window that holds v, for its exact value.
        --f.next;
        f.research_alpha = v - 1;
      } else if (v > f.best || (at_root_choice && v == f.best && sq < f.best_move)) {
        f.best = v;
        f.best_move = sq;
        if (v > f.alpha) f.alpha = v;
        if (f.alpha >= f.beta) {  // cut-off
          f.next = f.count;
          f.rest = 0;
        }
      }
    }
    if (f.next == f.count && f.rest) {
      // The table's move did not cut off: order the others now.
      const u64 rest = f.rest;
      f.rest = 0;
      int cut = 0;
      if (!endgame::order_rest(f, rest, false, table, order, horizon, cut)) {
        f.best = cut;  // > f.best: cut >= beta > best
        f.best_move = kNoMove;
        f.next = f.count;
      }
    }
    if (f.next < f.count) {
      const int sq = f.moves[f.next++];
      const u64 flipped = othello::flips(f.P, f.O, sq);
      const u64 cp = f.O & ~flipped, co = f.P | flipped | (u64{1} << sq);
      ++result.nodes;
      // Principal variation search: the first move gets the full window, the others a null
      // window that only asks "better than alpha?" (cheap when the ordering is good), and a
      // re-search when the answer is yes; at the root, the tie rule's window (root_tie_alpha).
      int lo = endgame::root_tie_alpha(at_root_choice, f.alpha, f.best_move, sq);
      int hi = f.beta;
      f.scouted = false;
      if (f.research_alpha != endgame::kNoResearch) {
        lo = f.research_alpha;
        f.research_alpha = endgame::kNoResearch;
      } else if (f.next > 1 && hi - lo > 1) {
        hi = lo + 1;
        f.scouted = true;
      }
      f.child_alpha = lo;
      if (f.empties - 1 == endgame::kSmallEmpties) {
        int squares[endgame::kSmallEmpties];
        endgame::parity_order(~(cp | co), squares);
        value = endgame::solve_small<endgame::kSmallEmpties>(cp, co, -hi, -lo, squares, result.nodes);
        child_returned = true;
      } else if (f.empties - 1 == endgame::kSmallEmpties + 1 && horizon == 0) {
        value = endgame::solve_above_small(cp, co, -hi, -lo, order, result.nodes);
        child_returned = true;
      } else if (endgame::enter(stack[sp + 1], cp, co, -hi, -lo, false, table, order, horizon, result.nodes, value)) {
        ++sp;
      } else {
        child_returned = true;
      }
      continue;
    }
    // Node done: remember what it proved (a lower bound if it failed high, an upper bound if it
    // failed low, else the exact score), then hand its value to the parent.
    if (table && f.empties >= endgame::kHashEmpties)
      table->store_result(f.P, f.O, f.empties, horizon, f.entry_alpha, f.beta, f.best, f.best_move);
    value = f.passed ? -f.best : f.best;
    if (sp == 0) break;
    --sp;
    child_returned = true;
  }
  result.score = value;
  result.best_move = stack[0].passed ? kPassMove : stack[0].best_move;
  return result;
}

}  // namespace endgame

namespace endgame {

// The passes of one solve, as solve_endgame runs them: one thread, solve_pass.
template <int kMaxEmpties, class Order>
struct SerialPasses {
  HashTable* table;
  const Order* order;
  EF_HD SolveResult operator()(u64 P, u64 O, int alpha, int beta, int horizon) const {
    return solve_pass<kMaxEmpties>(P, O, alpha, beta, table, order, horizon);
  }
};

// What solve_endgame does above kSmallEmpties, whoever runs the passes (`run_pass(P, O, alpha,
// beta, horizon)`: SerialPasses here, the threads of solve_parallel.hpp there): ordering passes
// when `with_passes`, then the exact pass in an aspiration window around their score, searched
// again on the side it fails. The window is already widened; the table already advanced.
template <class RunPass>
EF_HD SolveResult drive_passes(u64 P, u64 O, int alpha, int beta, bool with_passes, const RunPass& run_pass) {
  const int empties = 64 - popcount64(P | O);
  u64 nodes = 0;
  int lo = alpha, hi = beta;  // the exact pass's first window
  if (with_passes && empties >= kPassEmpties) {
    int estimate = 0;
    for (int depth = kPassFirstDepth; empties - depth >= kPassMinHorizon; depth += kPassStep) {
      const SolveResult pass = run_pass(P, O, -kScoreLimit, kScoreLimit, empties - depth);
      nodes += pass.nodes;
      estimate = pass.score;
    }
    const int centre = estimate & ~1;  // rounded down to even
    lo = centre - kAspirationWindow > alpha ? centre - kAspirationWindow : alpha;
    hi = centre + kAspirationWindow < beta ? centre + kAspirationWindow : beta;
    if (lo >= hi) {  // the estimate lies outside the caller's window
      lo = alpha;
      hi = beta;
    }
  }
  // Fail-soft: a result <= lo is an upper bound on the score, one >= hi a lower bound. One
  // outside the aspiration window but inside the caller's is searched again between that bound
  // and the caller's, keeping the table: two passes at most, since the re-search is bounded on
  // the failed side by a proven bound and cannot fail on the other.
  SolveResult result;
  for (;;) {
    result = run_pass(P, O, lo, hi, 0);
    nodes += result.nodes;
    if (result.score <= lo && result.score > alpha) {  // (lo > alpha then)
      hi = result.score + 1;
      lo = alpha;
    } else if (result.score >= hi && result.score < beta) {
      lo = result.score - 1;
      hi = beta;
    } else {
      break;
    }
  }
  result.nodes = nodes;
  return result;
}

}  // namespace endgame

// Solves (P to move, O) within the window (alpha, beta); the default window gives the exact
// score. `table` (may be null) speeds up positions of ~15 empties and more; it is advanced to a
// new stamp, so entries of earlier solves are ignored. `order` (may be null; its passes need
// the table) is the ordering evaluation: the score and the best move do not depend on it, only
// the node count does. kMaxEmpties bounds the empties the stack is sized for (64: any board,
// even the unreachable ones an obf file may hold; a device caller picks less to save local
// memory); a position with more empties than that is not searched (score 0, best_move
// kNoMove, nodes 0). One thread; solve_parallel.hpp splits one solve over several.
template <int kMaxEmpties = 64, class Order = endgame::NoOrdering>
requires endgame::OrderingEvaluator<Order> EF_HD SolveResult solve_endgame(u64 P, u64 O, int alpha = -64, int beta = 64,
                                                                           endgame::HashTable* table = nullptr,
                                                                           const Order* order = nullptr) {
  const int empties = 64 - popcount64(P | O);
  if (empties > kMaxEmpties) return SolveResult{};
  // A window bound at +-64 is widened to +-65: scores cannot pass 64, but with beta = 64 a first
  // move worth 64 would cut off the root, and the lowest-square rule needs its ties looked at.
  if (beta >= 64) beta = endgame::kScoreLimit;
  if (alpha <= -64) alpha = -endgame::kScoreLimit;
  if (empties <= endgame::kSmallEmpties) return endgame::solve_few(P, O, alpha, beta);
  if (table) table->next_solve();
  return endgame::drive_passes(P, O, alpha, beta, Order::kEnabled && order && table,
                               endgame::SerialPasses<kMaxEmpties, Order>{table, order});
}

}  // namespace ef::search
