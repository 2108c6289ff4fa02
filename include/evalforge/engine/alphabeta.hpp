// Fixed-depth alpha-beta (negamax) over any Game (engine/game.hpp) and evaluator, EF_HD.
//
// The search keeps its own stack of frames instead of recursing, so the same body runs in a
// CUDA thread (where deep recursion is slow and its stack size must be guessed at launch) and
// on a CPU thread. It allocates nothing: the frames live in the function's local array.
//
// Contract
//  - Values are negamax values from the side to move, in the evaluator's units. A leaf (depth
//    exhausted) is evaluator.eval(state); a finished game anywhere in the tree is scored exactly
//    as evaluator.exact(G::final_score(state)).
//  - A forced pass does not use up depth (the opponent replies at the same remaining depth):
//    otherwise a pass near the horizon would leave one side's reply unsearched. Passes are
//    never consecutive (two passes end the game), so this cannot loop.
//  - The chosen move is the lowest square among the moves of best value, so it is a pure
//    function of (position, depth, evaluator) and independent of the move ordering. At the
//    root a move whose square is lower than the current best is searched with a window one
//    unit wider, so a tie is seen as a tie, not as a fail-low.
//  - Move ordering: at nodes with two or more plies left, children are searched by the
//    evaluator's static value from the mover's view, best first, ties by square; nodes one ply
//    from the horizon search in square order (every child is a leaf evaluated once either way).
//  - nodes counts positions visited: the root, every child played, every pass.
#pragma once
#include <concepts>
#include <cstdint>
#include "evalforge/core/hd.hpp"
#include "evalforge/engine/game.hpp"

namespace ef::search {

using u8 = std::uint8_t;  // move lists in frames: squares fit a byte, and frames stay small
using i8 = std::int8_t;

constexpr i32 kInfinity = i32{1} << 30;  // beyond every evaluator's range
constexpr int kPassMove = -1;            // best "move" when the side to move must pass (obf's pass = -1)
constexpr int kNoMove = -2;              // no move chosen: the game is over, or depth 0

// An evaluator for game G: eval(state) is a heuristic value for the side to move; exact(score)
// converts a finished game's G::final_score into the same units (it should outrank every
// heuristic value a position can get, so that a proven win is preferred to a hoped-for one).
template <class E, class G>
concept EvaluatorFor = games::Game<G> && requires(const E& e, const typename G::State& s, int score) {
  { e.eval(s) } -> std::convertible_to<i32>;
  { e.exact(score) } -> std::convertible_to<i32>;
};

struct SearchResult {
  i32 value = 0;            // negamax value for the side to move, evaluator units
  int best_move = kNoMove;  // square, kPassMove or kNoMove
  u64 nodes = 0;
  int depth = 0;  // plies of the (deepest completed) midgame search; 0 for a leaf or an exact solve
};

namespace detail {

template <class G>
struct AlphaBetaFrame {
  typename G::State state;  // after a forced pass (passed == true): the position after the pass
  i32 alpha, beta, best;
  int depth;
  int best_move;
  int count, next;  // moves[next..count) are still to search
  bool passed;      // the node's own side passed: its value is -best
  u8 moves[G::kMaxMoves];
};

// A leaf's value. An evaluator that needs the side to move's legal moves (mobility) may offer
// eval_given_moves(state, moves), which must equal eval(state): the search has the moves at
// hand, and generating them twice is most of a 1-ply search's work.
template <class E, class State, class Moves>
EF_HD_INLINE i32 leaf_value_of(const E& evaluator, const State& state, const Moves& moves) {
  if constexpr (requires { evaluator.eval_given_moves(state, moves); })
    return static_cast<i32>(evaluator.eval_given_moves(state, moves));
  else
    return static_cast<i32>(evaluator.eval(state));
}

// Puts (key, square) into moves[first..count) and keys[first..count), kept best first: by
// descending key (kDescending) or ascending; an equal key goes after its equals, so squares that
// arrive in ascending order stay so among ties. count grows by one. Shared by every search's
// move ordering (alphabeta, pvs.hpp, endgame.hpp).
template <bool kDescending, class Key>
EF_HD_INLINE void insert_ordered(Key* keys, u8* moves, int& count, int first, Key key, int square) {
  int i = count++;
  while (i > first && (kDescending ? keys[i - 1] < key : keys[i - 1] > key)) {
    keys[i] = keys[i - 1];
    moves[i] = moves[i - 1];
    --i;
  }
  keys[i] = key;
  moves[i] = static_cast<u8>(square);
}

// The common start of a node (alphabeta() and pvs.hpp): the moves of `state`, or a forced pass --
// then `node_state` is the position after it, `passed` is set and the window is the
// opponent's -- or a leaf: returns false with its value in `leaf_value` (a finished game,
// exact; depth 0, the evaluator's value).
template <class G, class E>
EF_HD_INLINE bool open_node(const typename G::State& state, int depth, i32& alpha, i32& beta, const E& evaluator,
                            u64& nodes, i32& leaf_value, typename G::State& node_state, bool& passed,
                            games::MovesOf<G>& moves) {
  using State = typename G::State;
  using Moves = games::MovesOf<G>;
  using Set = games::MoveSet<Moves>;
  moves = G::moves(state);
  passed = false;
  if (!Set::any(moves)) {
    if constexpr (G::kHasPass) {
      const State after_pass = G::pass(state);
      const Moves replies = G::moves(after_pass);
      if (!Set::any(replies)) {
        leaf_value = static_cast<i32>(evaluator.exact(G::final_score(state)));
        return false;
      }
      if (depth == 0) {
        leaf_value = static_cast<i32>(evaluator.eval(state));
        return false;
      }
      ++nodes;
      passed = true;
      node_state = after_pass;
      const i32 a = alpha;
      alpha = -beta;
      beta = -a;
      moves = replies;
    } else {
      leaf_value = static_cast<i32>(evaluator.exact(G::final_score(state)));
      return false;
    }
  }
  if (depth == 0) {
    leaf_value = leaf_value_of(evaluator, state, moves);
    return false;
  }
  if (!passed) node_state = state;
  return true;
}

// Sets up a frame for `state`, or returns false with the value of a leaf (depth 0 or a
// finished game) in `leaf_value`.
template <class G, class E>
EF_HD_INLINE bool enter_node(AlphaBetaFrame<G>& f, const typename G::State& state, int depth, i32 alpha, i32 beta,
                             const E& evaluator, u64& nodes, i32& leaf_value) {
  using Moves = games::MovesOf<G>;
  using Set = games::MoveSet<Moves>;
  Moves moves;
  if (!open_node<G>(state, depth, alpha, beta, evaluator, nodes, leaf_value, f.state, f.passed, moves)) return false;
  f.alpha = alpha;
  f.beta = beta;
  f.best = -kInfinity;
  f.depth = depth;
  f.best_move = kNoMove;
  f.next = 0;
  f.count = 0;
  if (depth == 1) {
    // (The count bound is G's promise; spelled out, it also lets the compiler see the array
    // cannot overflow.)
    for (; Set::any(moves) && f.count < G::kMaxMoves; Set::drop_lowest(moves))
      f.moves[f.count++] = static_cast<u8>(Set::lowest(moves));
    return true;
  }
  // Insertion sort on the mover's static value of each child, best first, ties by square.
  i32 keys[G::kMaxMoves];
  for (; Set::any(moves) && f.count < G::kMaxMoves; Set::drop_lowest(moves)) {
    const int sq = Set::lowest(moves);
    insert_ordered<true>(keys, f.moves, f.count, 0, -static_cast<i32>(evaluator.eval(G::play(f.state, sq))), sq);
  }
  return true;
}

}  // namespace detail

// Negamax alpha-beta to `depth` plies (clamped to 0..kMaxDepth) from `root`.
template <games::Game G, class E, int kMaxDepth = 16>
requires EvaluatorFor<E, G> EF_HD SearchResult alphabeta(const typename G::State& root, int depth, const E& evaluator) {
  using State = typename G::State;
  if (depth < 0) depth = 0;
  if (depth > kMaxDepth) depth = kMaxDepth;
  detail::AlphaBetaFrame<G> stack[kMaxDepth + 1];  // passes stay in their frame: one frame a ply
  SearchResult result;
  result.nodes = 1;
  result.depth = depth;
  i32 value = 0;
  if (!detail::enter_node<G>(stack[0], root, depth, -kInfinity, kInfinity, evaluator, result.nodes, value)) {
    result.value = value;
    return result;
  }
  int sp = 0;
  bool child_returned = false;
  for (;;) {
    detail::AlphaBetaFrame<G>& f = stack[sp];
    const bool at_root_choice = sp == 0 && !f.passed;
    if (child_returned) {
      child_returned = false;
      const i32 v = -value;
      const int sq = f.moves[f.next - 1];
      if (v > f.best || (at_root_choice && v == f.best && sq < f.best_move)) {
        f.best = v;
        f.best_move = sq;
        if (v > f.alpha) f.alpha = v;
        if (f.alpha >= f.beta) f.next = f.count;  // cut-off
      }
    }
    if (f.next < f.count) {
      const int sq = f.moves[f.next++];
      const State child = G::play(f.state, sq);
      ++result.nodes;
      // Root tie rule: a lower square that merely equals the best so far must be seen exactly.
      const i32 alpha = (at_root_choice && f.best_move >= 0 && sq < f.best_move) ? f.alpha - 1 : f.alpha;
      if (detail::enter_node<G>(stack[sp + 1], child, f.depth - 1, -f.beta, -alpha, evaluator, result.nodes, value))
        ++sp;
      else
        child_returned = true;
      continue;
    }
    value = f.passed ? -f.best : f.best;
    if (sp == 0) break;
    --sp;
    child_returned = true;
  }
  result.value = value;
  result.best_move = stack[0].passed ? kPassMove : stack[0].best_move;
  return result;
}

}  // namespace ef::search
