// Feature-weight evaluator of the Elo round-robin GA (docs/method.md section 2, seed 002), EF_HD.
//
// A position reached by a move is valued, for the player who made that move ("the mover"), by
//   wf_p * Material + wm_p * Mobility + wc_p * Corners
// with the phase p from the step (move number) t: p = 1 if t <= o, 2 if o < t <= e, else 3.
//   Material  Flips: discs flipped by the move (chromosome oe_fmc), or
//             Discs: disc difference mover - opponent (chromosome oe_dmc);
//   Mobility  MINUS the opponent's number of legal replies. The blog calls the feature "the
//             opponent's legal moves" and its weights are all >= 0; counted with a plus sign a
//             GA would be rewarded for handing the opponent choices. The minus sign makes fewer
//             replies better, which is what the feature is for;
//   Corners   corner-count difference mover - opponent.
// The search wants values from the side to move, who is the mover's opponent: eval() returns
// the negated mover's value. Step t = the position's move number (discs placed so far), which
// is the number of the move that reached it.
//
// Integer arithmetic throughout. |heuristic| <= 10 * (64 + 60 + 4) = 1280 with weights in
// 0..10, and a won game is worth at least 2 discs, so exact_scale = 1000 per disc makes any
// proven win outrank any heuristic value.
//
// The positional family (chromosomes pos_fmc / pos_dmc, 26 genes: the blog's 11, then five
// weights per phase) adds, beyond the blog, the positional terms that strong hand-made
// evaluators use, each mover - opponent and with a sign that makes a weight >= 0 mean "good":
//   - wx_p * X-squares  discs on b2, g2, b7, g7 while their corner is empty (they give it away)
//   + we_p * Edges      discs on the 24 edge squares that are not corners
//   + wa_p * Anchored   discs in an unbroken run from an own corner along an edge (the corner
//                       itself and the far corner not counted): edge discs that cannot be flipped
//   - wr_p * Frontier   discs next to an empty square (they hand the opponent moves)
//   - ws_p * C-squares  discs on the edge squares next to a corner (b1, a2, g1, h2, a7, b8, h7,
//                       g8) while that corner is empty
// (Global parity is left out on purpose: every move fills one square, so it values all moves
// from a position alike and cannot change a 1-ply choice.)
// |heuristic| <= 10 * (64 + 60 + 4 + 4 + 24 + 48 + 64 + 8) = 2760 < 2 x 1500, so its proven
// wins are scaled by 1500 a disc (kPositionalExactScale).
#pragma once
#include "evalforge/core/hd.hpp"
#include "evalforge/games/othello/bitboard.hpp"
#include "evalforge/games/othello/game.hpp"

namespace ef::features {

enum class Material : int { kFlips = 0, kDiscs = 1 };

constexpr u64 kCorners = 0x8100000000000081ull;
// The edge squares that are not corners.
constexpr u64 kEdges =
    (0x00000000000000FFull | 0xFF00000000000000ull | 0x0101010101010101ull | 0x8080808080808080ull) & ~kCorners;
constexpr i32 kExactScale = 1000, kPositionalExactScale = 1500;

// The 11-integer chromosome o:e:wf1:wm1:wc1:wf2:wm2:wc2:wf3:wm3:wc3 and its material variant;
// with `positional`, 15 more genes wx1:we1:wa1:wr1:ws1:...:ws3 (see above).
struct Weights {
  int o = 1, e = 41;
  int material[3] = {0, 0, 0};  // wf (Flips) or wd (Discs) by phase
  int mobility[3] = {0, 0, 0};  // wm by phase
  int corners[3] = {0, 0, 0};   // wc by phase
  Material kind = Material::kFlips;
  bool positional = false;       // the 26-gene family: the terms below count
  int x_squares[3] = {0, 0, 0};  // wx by phase
  int edges[3] = {0, 0, 0};      // we
  int anchored[3] = {0, 0, 0};   // wa
  int frontier[3] = {0, 0, 0};   // wr
  int c_squares[3] = {0, 0, 0};  // ws

  EF_HD int phase(int step) const { return step <= o ? 0 : (step <= e ? 1 : 2); }  // 0-based
};

// Discs of `own` on an X-square whose corner is empty.
EF_HD_INLINE int x_squares_of(u64 own, u64 empty) {
  constexpr int kX[4] = {9, 14, 49, 54}, kCorner[4] = {0, 7, 56, 63};  // b2 g2 b7 g7, a1 h1 a8 h8
  int n = 0;
  for (int i = 0; i < 4; ++i) n += static_cast<int>((own >> kX[i] & 1) & (empty >> kCorner[i] & 1));
  return n;
}

// Discs of `own` on a C-square (an edge square next to a corner) whose corner is empty.
EF_HD_INLINE int c_squares_of(u64 own, u64 empty) {
  constexpr int kC[8] = {1, 8, 6, 15, 48, 57, 55, 62};  // b1 a2, g1 h2, a7 b8, h7 g8
  constexpr int kCorner[8] = {0, 0, 7, 7, 56, 56, 63, 63};
  int n = 0;
  for (int i = 0; i < 8; ++i) n += static_cast<int>((own >> kC[i] & 1) & (empty >> kCorner[i] & 1));
  return n;
}

// Discs of `own` in an unbroken run from a corner `own` holds, along its two edges; each run
// stops before the far corner, so a square is counted at most twice (once from each end).
EF_HD_INLINE int anchored_of(u64 own) {
  constexpr int kCorner[4] = {0, 7, 56, 63};
  constexpr int kStep[4][2] = {{1, 8}, {-1, 8}, {1, -8}, {-1, -8}};
  int n = 0;
  for (int c = 0; c < 4; ++c) {
    if (!(own >> kCorner[c] & 1)) continue;
    for (int d = 0; d < 2; ++d)
      for (int k = 1, sq = kCorner[c] + kStep[c][d]; k <= 6 && (own >> sq & 1); ++k, sq += kStep[c][d]) ++n;
  }
  return n;
}

// The squares next to (any of the 8 directions) a square of `b`.
EF_HD_INLINE u64 neighbours_of(u64 b) {
  const u64 east = (b & othello::kNotFileH) << 1, west = (b & othello::kNotFileA) >> 1;
  const u64 row = b | east | west;
  return east | west | row << 8 | row >> 8;
}

// The positional terms of the mover's value (0 unless w.positional), phase p.
EF_HD_INLINE int positional_value(const Weights& w, u64 mover, u64 to_move, int p) {
  const u64 empty = ~(mover | to_move);
  const u64 near_empty = neighbours_of(empty);
  const int x = x_squares_of(mover, empty) - x_squares_of(to_move, empty);
  const int edges = popcount64(mover & kEdges) - popcount64(to_move & kEdges);
  const int anchored = anchored_of(mover) - anchored_of(to_move);
  const int frontier = popcount64(mover & near_empty) - popcount64(to_move & near_empty);
  const int c = c_squares_of(mover, empty) - c_squares_of(to_move, empty);
  return -w.x_squares[p] * x + w.edges[p] * edges + w.anchored[p] * anchored - w.frontier[p] * frontier -
         w.c_squares[p] * c;
}

// The mover's value of a position reached by a move: `mover` just moved (flipping `flips`
// discs), `to_move` is to reply. `step` is the move number.
// `replies` is the reply count when the caller has it (the opponent's legal moves, popcounted).
EF_HD_INLINE int mover_value_given_replies(const Weights& w, u64 mover, u64 to_move, int flips, int step, int replies) {
  const int p = w.phase(step);
  const int material = w.kind == Material::kFlips ? flips : popcount64(mover) - popcount64(to_move);
  const int corners = popcount64(mover & kCorners) - popcount64(to_move & kCorners);
  const int blog = w.material[p] * material - w.mobility[p] * replies + w.corners[p] * corners;
  return w.positional ? blog + positional_value(w, mover, to_move, p) : blog;
}
EF_HD_INLINE int mover_value(const Weights& w, u64 mover, u64 to_move, int flips, int step) {
  return mover_value_given_replies(w, mover, to_move, flips, step, popcount64(othello::legal_moves(to_move, mover)));
}

struct Evaluator {
  Weights weights;
  i32 exact_scale = kExactScale;  // evaluator_of(weights) sets the family's scale
  EF_HD i32 eval(const othello::Position& s) const {
    return -mover_value(weights, s.board.opponent, s.board.player, s.last_flips, s.move_number());
  }
  // eval(s) when `moves` are the side to move's legal moves (alphabeta.hpp's leaf_value_of).
  EF_HD i32 eval_given_moves(const othello::Position& s, u64 moves) const {
    return -mover_value_given_replies(weights, s.board.opponent, s.board.player, s.last_flips, s.move_number(),
                                      popcount64(moves));
  }
  EF_HD i32 exact(int score) const { return score * exact_scale; }
};

// The evaluator of `weights`, with the exact scale of its family (so that a proven win outranks
// any heuristic value).
inline Evaluator evaluator_of(const Weights& weights) {
  Evaluator e;
  e.weights = weights;
  e.exact_scale = weights.positional ? kPositionalExactScale : kExactScale;
  return e;
}

}  // namespace ef::features
