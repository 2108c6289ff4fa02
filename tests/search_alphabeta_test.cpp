// Alpha-beta (explicit stack, move ordering, root tie rule) against plain recursive minimax,
// for Othello and Tic-Tac-Toe, with every evaluator.
#include <gtest/gtest.h>
#include <vector>
#include "evalforge/core/rng.hpp"
#include "evalforge/eval/features.hpp"
#include "evalforge/eval/ntuple_evaluator.hpp"
#include "evalforge/eval/swh.hpp"
#include "evalforge/games/othello_game.hpp"
#include "evalforge/games/squares.hpp"
#include "evalforge/games/tictactoe.hpp"
#include "evalforge/search/alphabeta.hpp"

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
  const search::SearchResult four = search::alphabeta<games::TicTacToe>(tictactoe::Board{}, 4, tictactoe::StaticEvaluator{});
  EXPECT_EQ(clamped.value, four.value);
  EXPECT_EQ(clamped.nodes, four.nodes);
}
