// The midgame search, EF_HD: iterative deepening, principal variation search with aspiration
// windows, a transposition table, and killer/history move ordering, over any Game
// (engine/game.hpp) and evaluator (alphabeta.hpp's EvaluatorFor).
//
// It computes exactly what alphabeta() computes -- the same negamax value to the same depth,
// and the same move: the lowest square among the moves of best value -- only with fewer nodes.
// The determinism contract of engine/playout.hpp therefore holds unchanged for fixed-depth
// players, whatever table (or none) a backend hands the search. Why the enhancements cannot
// change a result:
//  - Iterative deepening and aspiration windows only decide which windows the final iteration
//    is searched with; an aspiration failure is re-searched with the failing side opened, so
//    the final value is exact. The shallower iterations leave nothing but move hints.
//  - The transposition table keys an entry by the whole State (compared word for word, so a
//    hash collision is a miss, never a wrong hit; a game whose State has padding or spare bytes
//    gives a padding-free key instead: G::table_key(s), see TableKeyOf), by the remaining depth (a bound is used only
//    at the depth it was proven for: the value of a node to depth d is a function of the state
//    and d alone, since passes do not use up depth and leaves are evaluator.eval(state)), and
//    by the search that wrote it (TranspositionTable::stamp: another search may have used
//    another evaluator). Entries of other depths give a move hint only.
//  - PVS, killers and history change the order and the windows of the children, not the
//    minimax value; fail-soft bounds stay true bounds.
//  - The root tie rule is alphabeta()'s: a root move whose square is lower than the current
//    best is searched with a window one unit wider, so a tie is seen as a tie.
//
// Stopping (time controls, host only): a Stop policy may abort the search from inside (checked
// at every node) and decide between iterations whether to start the next one; an aborted
// iteration is discarded and the last completed one answers (SearchResult::depth says which). The
// first iteration is never aborted, so a stopped search still has a move.
// A search that is never stopped is a pure function of (position, depth, evaluator).
//
// Memory: kMaxDepth + 1 frames (one per ply; a pass stays in its frame), two killers per ply
// and a history table of 256 counters, all in the function's locals (a CUDA thread's local
// memory); the transposition table is the caller's (null: none, e.g. on the device).
#pragma once
#include <cmath>
#include <cstring>
#include <utility>
#include "evalforge/core/hd.hpp"
#include "evalforge/engine/alphabeta.hpp"
#include "evalforge/engine/game.hpp"

namespace ef::search {

// ---- Transposition table ---------------------------------------------------------------------

// What identifies a state in the table: G::table_key(s) when the game has it (it must determine
// everything an evaluator may read, and have no padding), else the State itself.
template <class G>
struct TableKeyOf {
  using type = typename G::State;
  static EF_HD_INLINE const type& of(const typename G::State& s) { return s; }
};
template <class G>
requires requires(const typename G::State& s) { G::table_key(s); }
struct TableKeyOf<G> {
  using type = decltype(G::table_key(std::declval<const typename G::State&>()));
  static EF_HD_INLINE type of(const typename G::State& s) { return G::table_key(s); }
};

// Nodes this many plies from the horizon and more use the table. The nodes one ply from it are
// most of the tree, and probing and storing there cost more than they save (measured).
constexpr int kTableMinDepth = 2;

enum : u8 { kBoundNone = 0, kBoundUpper = 1, kBoundLower = 2, kBoundExact = 3 };
constexpr u8 kNoHint = 255;  // no move stored

template <class Key>
struct TranspositionEntry {
  Key key{};
  u32 stamp = 0;  // the search that wrote it (0: empty)
  i32 value = 0;
  u8 depth = 0;
  u8 bound = kBoundNone;  // kBoundNone: a move hint only
  u8 move = kNoHint;
  u8 spare = 0;
};

// A table of 2^k entries owned by the caller. begin_search() gives every search its own stamp,
// so no search reads another's bounds (clearing the table when the stamp wraps).
template <class Key>
struct TranspositionTable {
  TranspositionEntry<Key>* entries = nullptr;
  u64 mask = 0;  // entry count - 1 (a power of two minus one)
  u32 stamp = 0;

  EF_HD void begin_search() {
    if (++stamp == 0) {
      for (u64 i = 0; i <= mask; ++i) entries[i].stamp = 0;
      stamp = 1;
    }
  }
};

namespace detail {

static_assert(sizeof(u32) == 4);

// A key's bytes as 32-bit words.
template <class Key>
EF_HD_INLINE u64 key_hash(const Key& s) {
  static_assert(sizeof(Key) % 4 == 0, "a table key must be a whole number of 32-bit words");
  u32 w[sizeof(Key) / 4];
  memcpy(w, &s, sizeof(Key));
  u64 h = 0x9E3779B97F4A7C15ull;
  for (unsigned i = 0; i < sizeof(Key) / 4; ++i) {
    h ^= w[i];
    h *= 0xBF58476D1CE4E5B9ull;
    h ^= h >> 29;
  }
  return h ^ (h >> 32);
}

template <class Key>
EF_HD_INLINE bool same_key(const Key& a, const Key& b) {
  u32 x[sizeof(Key) / 4], y[sizeof(Key) / 4];
  memcpy(x, &a, sizeof(Key));
  memcpy(y, &b, sizeof(Key));
  for (unsigned i = 0; i < sizeof(Key) / 4; ++i)
    if (x[i] != y[i]) return false;
  return true;
}

}  // namespace detail

// ---- ProbCut ---------------------------------------------------------------------------------
//
// Selective search (Buro's ProbCut, with Edax's choice of shallow depths): at a null-window node
// d plies from the horizon, a search of s(d) plies predicts the d-ply value as
// a * v_s + b with residual spread sigma (fitted on sample positions: `evalforge probcut`,
// docs/search.md); when the prediction clears beta by threshold x sigma the node fails high
// at once, when it falls below alpha by as much, low. It changes results -- that is the point --
// so it is off unless an agent names a parameter file, and a search with it is a pure function
// of (position, depth, evaluator, parameters, table size), no longer equal to alphabeta().

constexpr int kProbCutMaxDepth = 16;
constexpr int kProbCutPhases = 4;

struct ProbCut {
  int min_depth = 3;       // nodes this many plies from the horizon and more try a cut
  float threshold = 1.5f;  // in sigmas
  float a[kProbCutMaxDepth + 1][kProbCutPhases] = {};
  float b[kProbCutMaxDepth + 1][kProbCutPhases] = {};
  float sigma[kProbCutMaxDepth + 1][kProbCutPhases] = {};  // <= 0: no cut at this depth and phase
};

// The shallow search's depth for a node d plies from the horizon (Edax: 2 floor(d / 4) + d mod 2).
EF_HD_INLINE int probcut_shallow_depth(int d) {
  const int s = 2 * (d / 4) + (d & 1);
  return s < 1 ? 1 : s;
}

// The game phase ProbCut's parameters are fitted by: G::probcut_phase(s) when the game has it.
template <class G>
EF_HD_INLINE int probcut_phase(const typename G::State& s) {
  if constexpr (requires { G::probcut_phase(s); }) {
    const int p = G::probcut_phase(s);
    return p < 0 ? 0 : (p >= kProbCutPhases ? kProbCutPhases - 1 : p);
  } else {
    return 0;
  }
}

// ---- Options and stopping --------------------------------------------------------------------

struct PvsOptions {
  // Half-width of the aspiration window around the previous iteration's value, in evaluator
  // units (0: full windows).
  i32 aspiration = 0;
  // The first iteration's depth (iterative deepening runs first_depth, first_depth + 1, ...).
  int first_depth = 1;
  // Selective search (null: none, the default; see ProbCut above).
  const ProbCut* probcut = nullptr;
};

// The default Stop policy: never stops (fixed-depth search).
struct NeverStop {
  EF_HD_INLINE bool abort(u64 /*nodes*/) const { return false; }
  EF_HD_INLINE bool next_iteration(int /*depth_done*/, u64 /*nodes*/) const { return true; }
};

// SearchResult::depth is the deepest completed iteration (the one that chose best_move).
using PvsResult = SearchResult;

// The table type of game G's searches.
template <class G>
using TableOf = TranspositionTable<typename TableKeyOf<G>::type>;

namespace detail {

template <class G>
struct PvsFrame {
  typename G::State state;  // after a forced pass (passed == true): the position after the pass
  i32 alpha, beta, best;
  i32 alpha_in;     // alpha at entry (post-pass view), for the stored bound's kind
  i32 child_alpha;  // the lower edge of the window the pending child was searched with
  int depth;
  int best_move;
  int count, next;  // moves[next..count) are still to search
  bool passed;      // the node's own side passed: its value is -best
  bool scout;       // the pending child was searched with a null window (a re-search may follow)
  u8 moves[G::kMaxMoves];
};

// Search-wide ordering memory: killers per ply, history per square.
template <int kMaxDepth>
struct PvsOrdering {
  u8 killer[kMaxDepth + 1][2];
  u32 history[256];
};

template <class Key>
EF_HD_INLINE TranspositionEntry<Key>* table_slot(TranspositionTable<Key>* table, const Key& key) {
  return &table->entries[key_hash(key) & table->mask];
}

template <games::Game G, class E, int kMaxDepth, class Stop, bool kSelective>
EF_HD bool pvs_iteration(const typename G::State& root, int depth, i32 alpha, i32 beta, const E& evaluator,
                         TableOf<G>* table, PvsOrdering<kMaxDepth>& order, const Stop& stop, bool may_abort,
                         SearchResult& result, const ProbCut* probcut);

// The value of `s` to `depth` plies against a null window at `bound` (fail-soft: >= bound or
// < bound), by a non-selective search with its own stack and ordering memory.
template <games::Game G, class E>
EF_HD_INLINE i32 probcut_probe(const typename G::State& s, int depth, i32 bound, const E& evaluator, TableOf<G>* table,
                               u64& nodes) {
  constexpr int kShallowMax = kProbCutMaxDepth / 2 + 1;
  PvsOrdering<kShallowMax> order;
  for (auto& k : order.killer) k[0] = k[1] = kNoHint;
  for (u32& h : order.history) h = 0;
  SearchResult r;
  pvs_iteration<G, E, kShallowMax, NeverStop, false>(s, depth, bound - 1, bound, evaluator, table, order, NeverStop{},
                                                     false, r, nullptr);
  nodes += r.nodes;
  return r.value;
}

// Sets up a frame for `state` at ply `ply`, or returns false with the node's value in
// `leaf_value` (a leaf: depth 0 or a finished game; or a bound from the table that decides it).
template <class G, class E, int kMaxDepth, bool kSelective>
EF_HD_INLINE bool pvs_enter(PvsFrame<G>& f, const typename G::State& state, int depth, i32 alpha, i32 beta,
                            const E& evaluator, u64& nodes, i32& leaf_value, int ply, TableOf<G>* table,
                            const PvsOrdering<kMaxDepth>& order, const ProbCut* probcut) {
  using Moves = games::MovesOf<G>;
  using Set = games::MoveSet<Moves>;
  Moves moves;
  if (!open_node<G>(state, depth, alpha, beta, evaluator, nodes, leaf_value, f.state, f.passed, moves)) return false;
  int hint = kNoHint;
  if (table && depth >= kTableMinDepth) {
    const auto key = TableKeyOf<G>::of(f.state);
    const auto& e = *table_slot(table, key);
    if (e.stamp == table->stamp && same_key(e.key, key)) {
      hint = e.move;
      if (ply > 0 && e.depth == depth && e.bound != kBoundNone) {
        const bool decides = e.bound == kBoundExact || (e.bound == kBoundLower && e.value >= beta) ||
                             (e.bound == kBoundUpper && e.value <= alpha);
        if (decides) {
          leaf_value = f.passed ? -e.value : e.value;
          return false;
        }
      }
    }
  }
  if constexpr (kSelective) {
    if (probcut && ply > 0 && alpha + 1 == beta && depth >= probcut->min_depth && depth <= kProbCutMaxDepth) {
      const int phase = probcut_phase<G>(f.state);
      const float sigma = probcut->sigma[depth][phase], a = probcut->a[depth][phase], b = probcut->b[depth][phase];
      if (sigma > 0 && a > 0) {
        const int shallow = probcut_shallow_depth(depth);
        const float margin = probcut->threshold * sigma;
        const float limit = static_cast<float>(kInfinity / 4);
        const float hi = (static_cast<float>(beta) + margin - b) / a, lo = (static_cast<float>(alpha) - margin - b) / a;
        if (hi < limit && hi > -limit) {
          const i32 bound = static_cast<i32>(ceilf(hi));
          if (probcut_probe<G, E>(f.state, shallow, bound, evaluator, table, nodes) >= bound) {
            leaf_value = f.passed ? -beta : beta;
            return false;
          }
        }
        if (lo < limit && lo > -limit) {
          const i32 bound = static_cast<i32>(floorf(lo));
          if (probcut_probe<G, E>(f.state, shallow, bound + 1, evaluator, table, nodes) <= bound) {
            leaf_value = f.passed ? -alpha : alpha;
            return false;
          }
        }
      }
    }
  }
  f.alpha = alpha;
  f.alpha_in = alpha;
  f.beta = beta;
  f.best = -kInfinity;
  f.depth = depth;
  f.best_move = kNoMove;
  f.next = 0;
  f.count = 0;
  f.scout = false;
  // Ordering keys, best first; squares arrive in ascending order and an equal key goes after its
  // equals, so ties stay by square. The table's move comes first (iterative deepening leaves
  // one at every node of the last iteration's tree). Nodes two or more plies from the horizon
  // then order "fastest first": the move that leaves the opponent the fewest replies, killers
  // first among equals. Nodes one ply from it (whose children are leaves, evaluated once either
  // way) order by killers, then history, which cost nothing to look up. Measured with the
  // built-in n-tuple network (docs/search.md): ordering by the evaluator's value of each child,
  // as alphabeta() does, saves few nodes once the table's moves are there, and costs an
  // evaluation per child -- at depth 8 it made the search 1.9x slower.
  i32 keys[G::kMaxMoves];
  const int k0 = ply <= kMaxDepth ? order.killer[ply][0] : kNoHint;
  const int k1 = ply <= kMaxDepth ? order.killer[ply][1] : kNoHint;
  for (; Set::any(moves) && f.count < G::kMaxMoves; Set::drop_lowest(moves)) {
    const int sq = Set::lowest(moves);
    i32 key;
    if (sq == hint)
      key = kInfinity;
    else if (depth >= 2)
      key = -64 * static_cast<i32>(Set::count(G::moves(G::play(f.state, sq)))) + ((sq == k0 || sq == k1) ? 32 : 0);
    else if (sq == k0)
      key = kInfinity - 1;
    else if (sq == k1)
      key = kInfinity - 2;
    else
      key = static_cast<i32>(order.history[sq & 255] >> 1);  // < 2^30 - 3: below the killers
    insert_ordered<true>(keys, f.moves, f.count, 0, key, sq);
  }
  return true;
}

template <class G>
EF_HD_INLINE void pvs_store(const PvsFrame<G>& f, TableOf<G>* table, bool root) {
  const auto key = TableKeyOf<G>::of(f.state);
  auto& e = *table_slot(table, key);
  e.key = key;
  e.stamp = table->stamp;
  e.value = f.best;
  e.depth = static_cast<u8>(f.depth);
  e.move = f.best_move >= 0 ? static_cast<u8>(f.best_move) : kNoHint;
  // The root's children were searched with the tie rule's widened windows: keep its move only.
  e.bound = root ? kBoundNone : (f.best >= f.beta ? kBoundLower : (f.best > f.alpha_in ? kBoundExact : kBoundUpper));
}

// One iteration: a fail-soft PVS of `root` to `depth` with window (alpha, beta). Returns false
// when `stop` aborted it.
template <games::Game G, class E, int kMaxDepth, class Stop, bool kSelective>
EF_HD bool pvs_iteration(const typename G::State& root, int depth, i32 alpha, i32 beta, const E& evaluator,
                         TableOf<G>* table, PvsOrdering<kMaxDepth>& order, const Stop& stop, bool may_abort,
                         SearchResult& result, const ProbCut* probcut) {
  using State = typename G::State;
  PvsFrame<G> stack[kMaxDepth + 1];
  i32 value = 0;
  ++result.nodes;
  if (!pvs_enter<G, E, kMaxDepth, kSelective>(stack[0], root, depth, alpha, beta, evaluator, result.nodes, value, 0,
                                              table, order, probcut)) {
    result.value = value;
    result.best_move = kNoMove;
    return true;
  }
  int sp = 0;
  bool child_returned = false;
  for (;;) {
    PvsFrame<G>& f = stack[sp];
    const bool at_root_choice = sp == 0 && !f.passed;
    if (child_returned) {
      child_returned = false;
      const i32 v = -value;
      const int sq = f.moves[f.next - 1];
      if (f.scout && v > f.child_alpha && v < f.beta) {
        // The null window failed high inside (alpha, beta): search the same move again, fully.
        f.scout = false;
        const State child = G::play(f.state, sq);
        ++result.nodes;
        if (pvs_enter<G, E, kMaxDepth, kSelective>(stack[sp + 1], child, f.depth - 1, -f.beta, -f.child_alpha,
                                                   evaluator, result.nodes, value, sp + 1, table, order, probcut))
          ++sp;
        else
          child_returned = true;
        continue;
      }
      f.scout = false;
      if (v > f.best || (at_root_choice && v == f.best && sq < f.best_move)) {
        f.best = v;
        f.best_move = sq;
        if (v > f.alpha) f.alpha = v;
        if (f.alpha >= f.beta) {  // cut-off: remember the move
          f.next = f.count;
          if (sp <= kMaxDepth && order.killer[sp][0] != sq) {
            order.killer[sp][1] = order.killer[sp][0];
            order.killer[sp][0] = static_cast<u8>(sq);
          }
          if (order.history[sq & 255] < u32{1} << 30) order.history[sq & 255] += static_cast<u32>(f.depth * f.depth);
        }
      }
    }
    if (f.next < f.count) {
      if (may_abort && stop.abort(result.nodes)) return false;
      const int sq = f.moves[f.next];
      const bool first = f.next == 0;
      ++f.next;
      const State child = G::play(f.state, sq);
      ++result.nodes;
      // Root tie rule: a lower square that merely equals the best so far must be seen exactly.
      const i32 a = (at_root_choice && f.best_move >= 0 && sq < f.best_move) ? f.alpha - 1 : f.alpha;
      f.child_alpha = a;
      // The first move gets the full window; the others a null window, re-searched when they
      // fail high inside it.
      f.scout = !first && a + 1 < f.beta;  // (no overflow: a >= -kInfinity - 1)
      const i32 b = f.scout ? a + 1 : f.beta;
      if (pvs_enter<G, E, kMaxDepth, kSelective>(stack[sp + 1], child, f.depth - 1, -b, -a, evaluator, result.nodes,
                                                 value, sp + 1, table, order, probcut))
        ++sp;
      else
        child_returned = true;
      continue;
    }
    if (table && f.depth >= kTableMinDepth) pvs_store<G>(f, table, sp == 0);
    value = f.passed ? -f.best : f.best;
    if (sp == 0) break;
    --sp;
    child_returned = true;
  }
  result.value = value;
  result.best_move = stack[0].passed ? kPassMove : stack[0].best_move;
  return true;
}

}  // namespace detail

// Iterative deepening to `depth` plies (clamped to 0..kMaxDepth) from `root`. Without a stop
// or ProbCut the result equals alphabeta<G, E, kMaxDepth>(root, depth, evaluator) in value and move;
// nodes counts every iteration's positions (re-searches again). `table` may be null.
template <games::Game G, class E, int kMaxDepth = 16, class Stop = NeverStop>
requires EvaluatorFor<E, G> EF_HD PvsResult pvs(const typename G::State& root, int depth, const E& evaluator,
                                                TableOf<G>* table = nullptr, const PvsOptions& options = {},
                                                const Stop& stop = {}) {
  if (depth < 0) depth = 0;
  if (depth > kMaxDepth) depth = kMaxDepth;
  if (table) table->begin_search();
  detail::PvsOrdering<kMaxDepth> order;
  for (auto& k : order.killer) k[0] = k[1] = kNoHint;
  for (u32& h : order.history) h = 0;
  PvsResult best;
  best.best_move = kNoMove;
  u64 nodes = 0;
  int d = options.first_depth < 1 ? 1 : options.first_depth;
  if (d > depth) d = depth;
  for (;; ++d) {
    // Aspiration: a window around the last value, opened on the side that fails.
    i32 alpha = -kInfinity, beta = kInfinity;
    if (options.aspiration > 0 && best.depth > 0) {
      alpha = best.value - options.aspiration;
      beta = best.value + options.aspiration;
    }
    SearchResult r;
    for (;;) {
      r.nodes = 0;
      const bool done = detail::pvs_iteration<G, E, kMaxDepth, Stop, true>(
          root, d, alpha, beta, evaluator, table, order, stop, best.depth > 0, r, options.probcut);
      nodes += r.nodes;
      if (!done) {
        best.nodes = nodes;
        return best;  // aborted: the last completed iteration answers
      }
      if (r.value <= alpha && alpha > -kInfinity)
        alpha = -kInfinity;
      else if (r.value >= beta && beta < kInfinity)
        beta = kInfinity;
      else
        break;
    }
    best.value = r.value;
    best.best_move = r.best_move;
    best.depth = d;
    if (d >= depth || !stop.next_iteration(d, nodes)) break;
  }
  best.nodes = nodes;
  return best;
}

}  // namespace ef::search
