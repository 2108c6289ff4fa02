// N-tuple network as a search evaluator (engine/alphabeta.hpp), EF_HD.
//
// A player keeps one weight set per move number (the match of docs/method.md 1.4: "independent
// weights per move number") or per phase (a shape and weights shared by a range of move
// numbers). Both are one table here: for each move number t = 0..60 (discs placed so far) the
// geometry and the weights that value positions at move t. Per phase = the same entry repeated
// over the phase's moves. The evaluator only points at geometry and weights, it owns nothing:
// on the device the pointers are device pointers.
//
// Units: the network outputs the final disc difference black - white in 2^-16 disc
// (ntuple.hpp). eval() returns it from the side to move (negated when white is to move),
// clamped to +-128 discs like training errors, so it fits an i32 with room to spare. A finished
// game is exact in the same units: exact(score) = score * 2^16.
#pragma once
#include "evalforge/core/hd.hpp"
#include "evalforge/games/othello/game.hpp"
#include "evalforge/games/othello/ntuple.hpp"

namespace ef::ntuple {

constexpr int kMoveNumbers = 61;  // positions at move 0..60

struct Stage {
  const Geometry* geometry = nullptr;
  const i32* weights = nullptr;  // geometry->num_weights() weights
};

struct Evaluator {
  Stage stage_of_move[kMoveNumbers];

  // One network for every move number.
  static EF_HD Evaluator single(const Geometry* geometry, const i32* weights) {
    Evaluator e;
    for (int t = 0; t < kMoveNumbers; ++t) e.stage_of_move[t] = Stage{geometry, weights};
    return e;
  }
  // One geometry, weight set t (for positions at move t) at weights + t * geometry->num_weights().
  static EF_HD Evaluator per_move(const Geometry* geometry, const i32* weights) {
    Evaluator e;
    for (int t = 0; t < kMoveNumbers; ++t)
      e.stage_of_move[t] = Stage{geometry, weights + static_cast<u64>(t) * geometry->num_weights()};
    return e;
  }

  // Network output black - white for the position, clamped (units 2^-16 disc).
  EF_HD i32 value_for_black(const othello::Position& s) const {
    int t = s.move_number();
    t = t < 0 ? 0 : (t > kMoveNumbers - 1 ? kMoveNumbers - 1 : t);
    const Stage& stage = stage_of_move[t];
    return static_cast<i32>(clamp_error(evaluate(*stage.geometry, stage.weights, s.board.black(), s.board.white())));
  }
  EF_HD i32 eval(const othello::Position& s) const {
    const i32 v = value_for_black(s);
    return s.board.side == othello::kBlack ? v : -v;
  }
  EF_HD i32 exact(int score) const { return static_cast<i32>(score * kOne); }
};

// The exact solver knows the two sides as "to move" (P) and "not" (O), not their colours. Its
// ordering estimates (games/othello/endgame.hpp) take P to be the colour that moves at this disc count
// in a game without passes (black after an even number of moves), which is what a network saw
// in training almost always, and return P's value in 1/256 disc.
struct SolverView {
  int move;      // move number of the position, clamped to 0..60
  bool p_black;  // P is taken to be black
};
EF_HD_INLINE SolverView solver_view(u64 P, u64 O) {
  int t = popcount64(P | O) - 4;
  t = t < 0 ? 0 : (t > kMoveNumbers - 1 ? kMoveNumbers - 1 : t);
  return {t, (t & 1) == 0};
}
// A network output (black - white, 2^-16 disc) as the solver's value for P.
EF_HD_INLINE int solver_value(i64 black_minus_white, bool p_black) {
  const i64 v = clamp_error(black_minus_white);
  return static_cast<int>((p_black ? v : -v) / (kOne / 256));
}

// The solver's ordering estimate (games/othello/endgame.hpp's OrderingEvaluator) from a network per
// move number, EF_HD (the CPU has a faster one: backends/cpu/network_eval.hpp).
struct SolverOrdering {
  static constexpr bool kEnabled = true;
  Evaluator evaluator;

  EF_HD_INLINE int value(u64 P, u64 O) const {
    const SolverView view = solver_view(P, O);
    const Stage& stage = evaluator.stage_of_move[view.move];
    return solver_value(evaluate(*stage.geometry, stage.weights, view.p_black ? P : O, view.p_black ? O : P),
                        view.p_black);
  }
};

}  // namespace ef::ntuple
