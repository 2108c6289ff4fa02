// Alpha-beta (explicit stack, move ordering, root tie rule) against plain recursive minimax,
// for Othello and Tic-Tac-Toe, with every evaluator; and the midgame search (engine/pvs.hpp:
// iterative deepening, PVS, aspiration, transposition table, killers, history) against both.
#include <gtest/gtest.h>
#include <vector>
#include "evalforge/core/rng.hpp"
#include "evalforge/engine/alphabeta.hpp"
#include "evalforge/engine/pvs.hpp"
#include "evalforge/games/othello/features.hpp"
#include "evalforge/games/othello/game.hpp"
#include "evalforge/games/othello/ntuple_evaluator.hpp"
#include "evalforge/games/othello/squares.hpp"
#include "evalforge/games/othello/swh.hpp"
#include "evalforge/games/othello/tree_search.hpp"
#include "evalforge/games/tictactoe/game.hpp"

using namespace ef;
using search::kInfinity;

namespace {

// Plain minimax, written from the contract in alphabeta.hpp and nothing else: a finished game
// is exact, the horizon is the evaluator, a forced pass keeps the depth.
template <class G, class E>
i32 minimax(const typename G::State& s, int depth, const E& e, u64& nodes) {
  ++nodes;
  if (G::terminal(s)) return e.exact(G::final_score(s));
  if (depth == 0) return e.eval(s);
  const u64 moves = G::moves(s);
  if (!moves) {
    ++nodes;  // counted like alphabeta counts a pass; the recursion below counts its position again
    --nodes;
    return -minimax<G>(G::pass(s), depth, e, nodes);
  }
  i32 best = -kInfinity;
  for (u64 m = moves; m; m &= m - 1) best = std::max(best, -minimax<G>(G::play(s, ctz64(m)), depth - 1, e, nodes));
  return best;
}

// The minimax value and the move alphabeta must choose: the lowest square of best value.
template <class G, class E>
search::SearchResult reference(const typename G::State& s, int depth, const E& e) {
  search::SearchResult r;
  r.value = minimax<G>(s, depth, e, r.nodes);
  if (G::terminal(s) || depth == 0) return r;
  const u64 moves = G::moves(s);
  if (!moves) {
    r.best_move = search::kPassMove;
    return r;
  }
  i32 best = -kInfinity;
  for (u64 m = moves; m; m &= m - 1) {
    u64 unused = 0;
    const i32 v = -minimax<G>(G::play(s, ctz64(m)), depth - 1, e, unused);
    if (v > best) {
      best = v;
      r.best_move = ctz64(m);
    }
  }
  EXPECT_EQ(best, r.value);
  return r;
}

// A position after `plies` uniformly random moves (passes when forced) from the start.
othello::Position random_othello(Rng& rng, int plies) {
  othello::Position p;
  for (int i = 0; i < plies; ++i) {
    const u64 moves = games::Othello::moves(p);
    if (!moves) {
      if (!games::Othello::moves(games::Othello::pass(p))) break;
      p = games::Othello::pass(p);
      continue;
    }
    p = games::Othello::play(p, rng.random_bit(moves));
  }
  return p;
}

tictactoe::Board random_tictactoe(Rng& rng, int plies) {
  tictactoe::Board b;
  for (int i = 0; i < plies && !b.terminal(); ++i) {
    u32 m = b.moves();
    b = b.play(rng.random_bit(m));
  }
  return b;
}

// A small n-tuple network with random weights (3 tuples), for evaluator coverage.
struct SmallNetwork {
  ntuple::Geometry geometry;
  std::vector<i32> weights;
  explicit SmallNetwork(u64 seed) {
    const u64 masks[3] = {0xFFull, 0x0000000000000707ull, 0x8040201008040201ull};
    geometry.num_tuples = 3;
    for (int i = 0; i < 3; ++i) {
      geometry.mask[i] = masks[i];
      geometry.offset[i + 1] = geometry.offset[i] + ntuple::pow3(popcount64(masks[i]));
    }
    Rng rng(seed, Purpose::kGame, 99);
    weights.resize(geometry.num_weights());
    for (i32& w : weights) w = static_cast<i32>(rng.below(1u << 18)) - (1 << 17);
  }
};

template <class G, class E, class Make>
void compare_on_random_positions(const E& evaluator, Make make, int positions, int max_plies, u64 seed) {
  Rng rng(seed, Purpose::kGame, 1);
  for (int i = 0; i < positions; ++i) {
    const typename G::State s = make(rng, static_cast<int>(rng.below(static_cast<u32>(max_plies + 1))));
    for (int depth = 1; depth <= 4; ++depth) {
      const search::SearchResult got = search::alphabeta<G>(s, depth, evaluator);
      const search::SearchResult want = reference<G>(s, depth, evaluator);
      ASSERT_EQ(got.value, want.value) << "position " << i << " depth " << depth;
      ASSERT_EQ(got.best_move, want.best_move) << "position " << i << " depth " << depth;
      ASSERT_GE(got.nodes, 1u);
      // Pruning only ever removes nodes (the minimax count includes the same root and passes).
      EXPECT_LE(got.nodes, want.nodes + 1) << "position " << i << " depth " << depth;
    }
  }
}

}  // namespace

TEST(AlphaBeta, EqualsMinimaxOnOthelloWithSwh) {
  compare_on_random_positions<games::Othello>(swh::Evaluator{}, random_othello, 150, 58, 1);
}

TEST(AlphaBeta, EqualsMinimaxOnOthelloWithFeatureWeights) {
  features::Evaluator e;
  e.weights = {8, 47, {5, 2, 1}, {0, 4, 4}, {2, 8, 2}, features::Material::kFlips};  // gen 82, oe_fmc
  compare_on_random_positions<games::Othello>(e, random_othello, 100, 58, 2);
  e.weights.kind = features::Material::kDiscs;
  compare_on_random_positions<games::Othello>(e, random_othello, 60, 58, 3);
}

TEST(AlphaBeta, EqualsMinimaxOnOthelloWithNTuple) {
  const SmallNetwork net(5);
  const ntuple::Evaluator e = ntuple::Evaluator::single(&net.geometry, net.weights.data());
  compare_on_random_positions<games::Othello>(e, random_othello, 60, 58, 4);
}

TEST(AlphaBeta, EqualsMinimaxOnTicTacToe) {
  compare_on_random_positions<games::TicTacToe>(tictactoe::StaticEvaluator{}, random_tictactoe, 300, 8, 5);
}

TEST(AlphaBeta, ForcedPassAndFinishedGameAtTheRoot) {
  // White to move with no legal move; black can still play: the root's move is the pass.
  othello::Position p;
  p.board = othello::Board::from_colors(u64{1} << 0, u64{1} << 1, othello::kWhite);
  ASSERT_EQ(games::Othello::moves(p), 0u);
  const search::SearchResult r = search::alphabeta<games::Othello>(p, 3, swh::Evaluator{});
  EXPECT_EQ(r.best_move, search::kPassMove);
  // Black takes b1 with c1 and the game is over: 3 discs to 0 with 61 empties -> white loses by 64.
  EXPECT_EQ(r.value, swh::Evaluator{}.exact(-64));
  EXPECT_EQ(r.value, reference<games::Othello>(p, 3, swh::Evaluator{}).value);

  othello::Position over = p;
  over.board = othello::Board::from_colors(u64{1} << 0, 0, othello::kWhite);
  const search::SearchResult done = search::alphabeta<games::Othello>(over, 4, swh::Evaluator{});
  EXPECT_EQ(done.best_move, search::kNoMove);
  EXPECT_EQ(done.value, swh::Evaluator{}.exact(-64));
  EXPECT_EQ(done.nodes, 1u);
}

TEST(AlphaBeta, DepthZeroIsTheEvaluatorAndTieGoesToTheLowestSquare) {
  const othello::Position start;
  const search::SearchResult r0 = search::alphabeta<games::Othello>(start, 0, swh::Evaluator{});
  EXPECT_EQ(r0.value, 0);
  EXPECT_EQ(r0.best_move, search::kNoMove);
  // The four opening moves are symmetric: equal at every depth, so d3 (the lowest) is chosen.
  for (int depth = 1; depth <= 5; ++depth) {
    const search::SearchResult r = search::alphabeta<games::Othello>(start, depth, swh::Evaluator{});
    EXPECT_EQ(r.best_move, *parse_square("d3")) << depth;
  }
}

TEST(AlphaBeta, DeterministicAndDepthIsClamped) {
  Rng rng(9, Purpose::kGame, 3);
  for (int i = 0; i < 20; ++i) {
    const othello::Position p = random_othello(rng, 20);
    const search::SearchResult a = search::alphabeta<games::Othello>(p, 5, swh::Evaluator{});
    const search::SearchResult b = search::alphabeta<games::Othello>(p, 5, swh::Evaluator{});
    EXPECT_EQ(a.value, b.value);
    EXPECT_EQ(a.best_move, b.best_move);
    EXPECT_EQ(a.nodes, b.nodes);
  }
  const search::SearchResult clamped = search::alphabeta<games::TicTacToe, tictactoe::StaticEvaluator, 4>(
      tictactoe::Board{}, 9, tictactoe::StaticEvaluator{});
  const search::SearchResult four =
      search::alphabeta<games::TicTacToe>(tictactoe::Board{}, 4, tictactoe::StaticEvaluator{});
  EXPECT_EQ(clamped.value, four.value);
  EXPECT_EQ(clamped.nodes, four.nodes);
}

// ---- The midgame search (pvs.hpp) --------------------------------------------------------------

namespace {

// One way to run pvs(): a table of 2^table_bits entries (0: none), an aspiration half-width.
struct PvsVariant {
  int table_bits;
  i32 aspiration;
  int first_depth;
};

// pvs() must give alphabeta()'s value and move at every depth, whatever the table (a tiny one
// collides all the time), the aspiration window (1 unit: nearly every iteration fails and is
// re-searched) or the first iteration. Returns the nodes of both, summed over the last depth.
template <class G, class E, class Make>
std::pair<u64, u64> compare_pvs(const E& evaluator, Make make, int positions, int max_plies, int max_depth, u64 seed,
                                const PvsVariant& v) {
  using State = typename G::State;
  using Table = search::TableOf<G>;
  std::vector<search::TranspositionEntry<typename search::TableKeyOf<G>::type>> entries(
      v.table_bits ? std::size_t{1} << v.table_bits : 0);
  Table table{entries.data(), entries.empty() ? 0 : entries.size() - 1, 0};
  Table* t = entries.empty() ? nullptr : &table;
  search::PvsOptions options;
  options.aspiration = v.aspiration;
  options.first_depth = v.first_depth;
  Rng rng(seed, Purpose::kGame, 1);
  u64 pvs_nodes = 0, ab_nodes = 0;
  for (int i = 0; i < positions; ++i) {
    const State s = make(rng, static_cast<int>(rng.below(static_cast<u32>(max_plies + 1))));
    for (int depth = 0; depth <= max_depth; ++depth) {
      const search::PvsResult got = search::pvs<G>(s, depth, evaluator, t, options);
      const search::SearchResult want = search::alphabeta<G>(s, depth, evaluator);
      if (got.value != want.value || got.best_move != want.best_move) {
        ADD_FAILURE() << "position " << i << " depth " << depth << " table bits " << v.table_bits << " aspiration "
                      << v.aspiration << ": pvs " << got.value << " at " << got.best_move << ", alpha-beta "
                      << want.value << " at " << want.best_move;
        return {0, 0};
      }
      if (depth == max_depth) {
        pvs_nodes += got.nodes;
        ab_nodes += want.nodes;
      }
    }
  }
  return {pvs_nodes, ab_nodes};
}

constexpr PvsVariant kPvsVariants[] = {{0, 0, 1}, {12, 0, 1}, {4, 0, 1}, {12, 1, 1}, {12, 300, 2}, {0, 1, 3}};

}  // namespace

TEST(Pvs, EqualsAlphaBetaOnOthelloWithSwh) {
  for (const PvsVariant& v : kPvsVariants)
    compare_pvs<games::Othello>(swh::Evaluator{}, random_othello, 40, 56, 5, 11, v);
}

TEST(Pvs, EqualsAlphaBetaOnOthelloWithFeatureWeights) {
  features::Evaluator e;
  e.weights = {8, 47, {5, 2, 1}, {0, 4, 4}, {2, 8, 2}, features::Material::kFlips};
  for (const PvsVariant& v : kPvsVariants) compare_pvs<games::Othello>(e, random_othello, 30, 56, 5, 12, v);
}

namespace {
// Counts the evaluations a search asks for: most of a search's cost with an n-tuple network.
struct CountingEvaluator {
  const ntuple::Evaluator* inner;
  u64* calls;
  i32 eval(const othello::Position& s) const {
    ++*calls;
    return inner->eval(s);
  }
  i32 exact(int score) const { return inner->exact(score); }
};
}  // namespace

TEST(Pvs, EqualsAlphaBetaOnOthelloWithNTupleAndEvaluatesLess) {
  const SmallNetwork net(6);
  const ntuple::Evaluator e = ntuple::Evaluator::single(&net.geometry, net.weights.data());
  for (const PvsVariant& v : kPvsVariants) compare_pvs<games::Othello>(e, random_othello, 30, 56, 5, 13, v);
  // Depth 7 with a table: the same answers, fewer evaluations in all.
  u64 pvs_calls = 0, ab_calls = 0;
  std::vector<search::TranspositionEntry<games::OthelloKey>> entries(std::size_t{1} << 16);
  search::OthelloTable table{entries.data(), entries.size() - 1, 0};
  Rng rng(17, Purpose::kGame, 1);
  for (int i = 0; i < 20; ++i) {
    const othello::Position p = random_othello(rng, 16 + static_cast<int>(rng.below(24)));
    search::pvs<games::Othello>(p, 7, CountingEvaluator{&e, &pvs_calls}, &table);
    search::alphabeta<games::Othello>(p, 7, CountingEvaluator{&e, &ab_calls});
  }
  EXPECT_LT(pvs_calls, ab_calls);
}

TEST(Pvs, EqualsMinimaxOnTicTacToe) {
  for (const PvsVariant& v : kPvsVariants)
    compare_pvs<games::TicTacToe>(tictactoe::StaticEvaluator{}, random_tictactoe, 100, 8, 9, 15, v);
  Rng rng(16, Purpose::kGame, 1);
  for (int i = 0; i < 100; ++i) {
    const tictactoe::Board b = random_tictactoe(rng, static_cast<int>(rng.below(9)));
    const search::PvsResult got = search::pvs<games::TicTacToe>(b, 9, tictactoe::StaticEvaluator{});
    const search::SearchResult want = reference<games::TicTacToe>(b, 9, tictactoe::StaticEvaluator{});
    ASSERT_EQ(got.value, want.value) << i;
    ASSERT_EQ(got.best_move, want.best_move) << i;
  }
}

TEST(Pvs, PassAndFinishedGameAtTheRootAndTies) {
  othello::Position p;
  p.board = othello::Board::from_colors(u64{1} << 0, u64{1} << 1, othello::kWhite);
  const search::PvsResult r = search::pvs<games::Othello>(p, 3, swh::Evaluator{});
  EXPECT_EQ(r.best_move, search::kPassMove);
  EXPECT_EQ(r.value, swh::Evaluator{}.exact(-64));
  othello::Position over = p;
  over.board = othello::Board::from_colors(u64{1} << 0, 0, othello::kWhite);
  const search::PvsResult done = search::pvs<games::Othello>(over, 4, swh::Evaluator{});
  EXPECT_EQ(done.best_move, search::kNoMove);
  EXPECT_EQ(done.value, swh::Evaluator{}.exact(-64));
  for (int depth = 1; depth <= 6; ++depth)
    EXPECT_EQ(search::pvs<games::Othello>(othello::Position{}, depth, swh::Evaluator{}).best_move, *parse_square("d3"))
        << depth;
}

namespace {
// Every position is worth the same: every root move ties, at every depth.
struct ConstantEvaluator {
  i32 eval(const othello::Position&) const { return 7; }
  i32 exact(int score) const { return score * 1000; }
};
}  // namespace

// With every move tied, the table's and the killers' reordering must not change the answer:
// the lowest legal square, as alpha-beta gives it.
TEST(Pvs, AllMovesTiedGivesTheLowestSquare) {
  std::vector<search::TranspositionEntry<games::OthelloKey>> entries(std::size_t{1} << 12);
  search::OthelloTable table{entries.data(), entries.size() - 1, 0};
  Rng rng(41, Purpose::kGame, 1);
  for (int i = 0; i < 30; ++i) {
    const othello::Position p = random_othello(rng, 6 + static_cast<int>(rng.below(30)));
    const u64 moves = games::Othello::moves(p);
    if (!moves) continue;
    for (int depth = 1; depth <= 4; ++depth) {
      const search::SearchResult r = search::pvs<games::Othello>(p, depth, ConstantEvaluator{}, &table);
      ASSERT_EQ(r.best_move, search::alphabeta<games::Othello>(p, depth, ConstantEvaluator{}).best_move) << i;
      if (r.value == 7 || r.value == -7) {  // no finished game in reach
        EXPECT_EQ(r.best_move, ctz64(moves)) << i;
      }
    }
  }
}

// A table shared by searches with different evaluators (as a backend's worker shares one between
// the two agents of a game) must not carry one evaluator's bounds into the other's search.
TEST(Pvs, TableSharedBetweenEvaluatorsKeepsEachResult) {
  const SmallNetwork a(21), b(22);
  const ntuple::Evaluator ea = ntuple::Evaluator::single(&a.geometry, a.weights.data());
  const ntuple::Evaluator eb = ntuple::Evaluator::single(&b.geometry, b.weights.data());
  std::vector<search::TranspositionEntry<games::OthelloKey>> entries(std::size_t{1} << 14);
  search::OthelloTable table{entries.data(), entries.size() - 1, 0};
  Rng rng(23, Purpose::kGame, 1);
  for (int i = 0; i < 30; ++i) {
    const othello::Position p = random_othello(rng, 10 + static_cast<int>(rng.below(30)));
    for (const ntuple::Evaluator* e : {&ea, &eb, &ea}) {
      const search::PvsResult got = search::pvs<games::Othello>(p, 5, *e, &table);
      const search::SearchResult want = search::alphabeta<games::Othello>(p, 5, *e);
      ASSERT_EQ(got.value, want.value) << i;
      ASSERT_EQ(got.best_move, want.best_move) << i;
    }
  }
}

namespace {
// Aborts once `budget` nodes are spent (never between iterations), as a clock would.
struct NodeBudget {
  u64 budget;
  bool abort(u64 nodes) const { return nodes >= budget; }
  bool next_iteration(int, u64) const { return true; }
};
}  // namespace

// A stopped search answers with its deepest completed iteration, which is exactly the
// fixed-depth search to that depth; the first iteration always completes.
TEST(Pvs, StoppedSearchAnswersWithTheLastCompletedIteration) {
  std::vector<search::TranspositionEntry<games::OthelloKey>> entries(std::size_t{1} << 14);
  search::OthelloTable table{entries.data(), entries.size() - 1, 0};
  Rng rng(31, Purpose::kGame, 1);
  int stopped_early = 0;
  for (int i = 0; i < 20; ++i) {
    const othello::Position p = random_othello(rng, 12 + static_cast<int>(rng.below(20)));
    for (u64 budget : {u64{1}, u64{200}, u64{3000}}) {
      const search::PvsResult r = search::pvs<games::Othello, swh::Evaluator, 16, NodeBudget>(
          p, 8, swh::Evaluator{}, &table, {}, NodeBudget{budget});
      if (!games::Othello::moves(p)) continue;
      ASSERT_GE(r.depth, 1);
      ASSERT_LE(r.depth, 8);
      stopped_early += r.depth < 8;
      const search::SearchResult want = search::alphabeta<games::Othello>(p, r.depth, swh::Evaluator{});
      ASSERT_EQ(r.value, want.value) << i << " budget " << budget;
      ASSERT_EQ(r.best_move, want.best_move) << i << " budget " << budget;
    }
  }
  EXPECT_GT(stopped_early, 20);
}
