// The Othello player's search, EF_HD: a fixed-depth midgame search (pvs.hpp by default, or the
// plain alpha-beta of alphabeta.hpp, which computes the same value and move with more nodes),
// the exact endgame solver from a configurable number of empties on (the match of
// docs/method.md 1.4: depth 7, exact from 20 empties). The switch is made at the root: a
// position with at most exact_empties empty squares is solved, any other searched to `depth`.
#pragma once
#include <type_traits>
#include "evalforge/engine/alphabeta.hpp"
#include "evalforge/engine/pvs.hpp"
#include "evalforge/games/othello/endgame.hpp"
#include "evalforge/games/othello/game.hpp"

namespace ef::search {

// The midgame search algorithm. Both give the same value and move at the same depth (pvs.hpp);
// kAlphaBeta is kept as the reference and for comparing the two (bench, tournaments). kPvs
// needs a transposition table; without one (the CUDA play kernels today) alpha-beta runs.
enum class MidgameSearch : int { kPvs = 0, kAlphaBeta = 1 };

struct OthelloLimits {
  int depth = 7;           // plies of alpha-beta in the midgame
  int exact_empties = 20;  // solve exactly at or below this many empties (-1: never)
  MidgameSearch algorithm = MidgameSearch::kPvs;
  const ProbCut* probcut = nullptr;  // selective midgame search (host memory; pvs.hpp); null: none
};

// The midgame search's transposition table (pvs.hpp) over Othello positions: 40 bytes an entry.
using OthelloTable = TableOf<games::Othello>;
// The midgame table's size wherever agents play (CPU backend workers, GTP, external matches):
// 2^16 entries (2.5 MiB). Without ProbCut the size changes node counts only; with it, moves
// too, so one size everywhere keeps a ProbCut agent's moves the same wherever it plays.
constexpr int kMidgameTableBits = 16;
static_assert(sizeof(TranspositionEntry<games::OthelloKey>) == 40);

// value: negamax value in the evaluator's units (an exact solve gives evaluator.exact(score));
// best_move: as alphabeta() and solve_endgame() choose it (the lowest square of best value).
// `table` (may be null) serves the exact solves, `midgame` (may be null) the midgame search;
// neither changes a value or a move, except for a ProbCut agent (limits.probcut), whose
// selective search depends on the midgame table's size (kMidgameTableBits everywhere). `stop` (host time controls) may
// end the midgame search early: the deepest completed iteration answers then (pvs.hpp). kMaxEmpties sizes the solver's
// stack: a position with more empties than that is searched by alpha-beta even below exact_empties.
template <class E, int kMaxDepth = 16, int kMaxEmpties = 64, class Stop = NeverStop>
requires EvaluatorFor<E, games::Othello> EF_HD SearchResult
search_othello(const othello::Position& position, const OthelloLimits& limits, const E& evaluator,
               endgame::HashTable* table = nullptr, OthelloTable* midgame = nullptr, const Stop& stop = {}) {
  const int empties = position.board.empties();
  if (empties <= limits.exact_empties && empties <= kMaxEmpties) {
    const SolveResult s = solve_endgame<kMaxEmpties>(position.board.player, position.board.opponent, -64, 64, table);
    SearchResult r;
    r.value = static_cast<i32>(evaluator.exact(s.score));
    r.best_move = s.best_move;
    r.nodes = s.nodes;
    return r;
  }
  // Without a table iterative deepening has no move hints to pass on, and pvs() costs more than
  // alphabeta() (1.3x at depth 6, docs/search.md): both give the same answer, so take the cheaper.
  // The device gives no table (the play kernels keep their stack to alpha-beta's frames), so
  // pvs() is compiled for the host only.
#if defined(__CUDA_ARCH__)
  (void)midgame;
  (void)stop;
  return alphabeta<games::Othello, E, kMaxDepth>(position, limits.depth, evaluator);
#else
  // A stop (time controls) needs pvs(): alphabeta() cannot be stopped.
  constexpr bool kStoppable = !std::is_same_v<Stop, NeverStop>;
  if (!kStoppable && limits.probcut == nullptr && (limits.algorithm == MidgameSearch::kAlphaBeta || midgame == nullptr))
    return alphabeta<games::Othello, E, kMaxDepth>(position, limits.depth, evaluator);
  PvsOptions options;
  options.probcut = limits.probcut;
  return pvs<games::Othello, E, kMaxDepth, Stop>(position, limits.depth, evaluator, midgame, options, stop);
#endif
}

}  // namespace ef::search
