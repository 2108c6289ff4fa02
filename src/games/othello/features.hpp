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
#pragma once
#include "core/hd.hpp"
#include "games/othello/bitboard.hpp"
#include "games/othello/game.hpp"

namespace ef::features {

enum class Material : int { kFlips = 0, kDiscs = 1 };

constexpr u64 kCorners = 0x8100000000000081ull;

// The 11-integer chromosome o:e:wf1:wm1:wc1:wf2:wm2:wc2:wf3:wm3:wc3 and its material variant.
struct Weights {
  int o = 1, e = 41;
  int material[3] = {0, 0, 0};  // wf (Flips) or wd (Discs) by phase
  int mobility[3] = {0, 0, 0};  // wm by phase
  int corners[3] = {0, 0, 0};   // wc by phase
  Material kind = Material::kFlips;

  EF_HD int phase(int step) const { return step <= o ? 0 : (step <= e ? 1 : 2); }  // 0-based
};

// The mover's value of a position reached by a move: `mover` just moved (flipping `flips`
// discs), `to_move` is to reply. `step` is the move number.
// `replies` is the reply count when the caller has it (the opponent's legal moves, popcounted).
EF_HD_INLINE int mover_value_given_replies(const Weights& w, u64 mover, u64 to_move, int flips, int step, int replies) {
  const int p = w.phase(step);
  const int material = w.kind == Material::kFlips ? flips : popcount64(mover) - popcount64(to_move);
  const int corners = popcount64(mover & kCorners) - popcount64(to_move & kCorners);
  return w.material[p] * material - w.mobility[p] * replies + w.corners[p] * corners;
}
EF_HD_INLINE int mover_value(const Weights& w, u64 mover, u64 to_move, int flips, int step) {
  return mover_value_given_replies(w, mover, to_move, flips, step, popcount64(othello::legal_moves(to_move, mover)));
}

struct Evaluator {
  Weights weights;
  i32 exact_scale = 1000;
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

}  // namespace ef::features
