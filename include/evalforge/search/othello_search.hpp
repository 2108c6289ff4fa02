// The Othello player's search, EF_HD: fixed-depth alpha-beta in the midgame, the exact endgame
// solver from a configurable number of empties on (the match of docs/method.md 1.4: depth 7, exact
// from 20 empties). The switch is made at the root: a position with at most exact_empties
// empty squares is solved, any other searched to `depth`.
#pragma once
#include "evalforge/games/othello_game.hpp"
#include "evalforge/search/alphabeta.hpp"
#include "evalforge/search/endgame.hpp"

namespace ef::search {

struct OthelloLimits {
  int depth = 7;           // plies of alpha-beta in the midgame
  int exact_empties = 20;  // solve exactly at or below this many empties (-1: never)
};

// value: negamax value in the evaluator's units (an exact solve gives evaluator.exact(score));
// best_move: as alphabeta() and solve_endgame() choose it (the lowest square of best value).
// `table` (may be null) serves the exact solves. kMaxEmpties sizes the solver's stack: a
// position with more empties than that is searched by alpha-beta even below exact_empties.
template <class E, int kMaxDepth = 16, int kMaxEmpties = 64>
  requires EvaluatorFor<E, games::Othello>
EF_HD SearchResult search_othello(const othello::Position& position, const OthelloLimits& limits, const E& evaluator,
                                  endgame::HashTable* table = nullptr) {
  const int empties = position.board.empties();
  if (empties <= limits.exact_empties && empties <= kMaxEmpties) {
    const SolveResult s =
        solve_endgame<kMaxEmpties>(position.board.player, position.board.opponent, -64, 64, table);
    SearchResult r;
    r.value = static_cast<i32>(evaluator.exact(s.score));
    r.best_move = s.best_move;
    r.nodes = s.nodes;
    return r;
  }
  return alphabeta<games::Othello, E, kMaxDepth>(position, limits.depth, evaluator);
}

}  // namespace ef::search
