// Connect Four's players for the playout engine (engine/playout.hpp), EF_HD: alpha-beta
// (engine/alphabeta.hpp) to a fixed depth with a square-weight evaluator, or random moves.
// The weights are what the tests' bit-string GA evolves (fitness.hpp).
#pragma once
#include <string>
#include "evalforge/core/hd.hpp"
#include "evalforge/engine/alphabeta.hpp"
#include "evalforge/engine/playout.hpp"
#include "evalforge/games/connect_four/game.hpp"

namespace ef::connect_four {

// value = sum of weight[square] over the mover's discs - the same over the opponent's; a won
// game is +-kWin, beyond any sum of weights (|weight| <= 127, 20 squares).
struct WeightsEvaluator {
  static constexpr i32 kWin = 100000;
  const signed char* weights = nullptr;
  EF_HD i32 eval(const Board& b) const {
    i32 v = 0;
    for (u32 m = b.side == 0 ? b.first : b.second; m; m &= m - 1) v += weights[ctz64(m)];
    for (u32 m = b.side == 0 ? b.second : b.first; m; m &= m - 1) v -= weights[ctz64(m)];
    return v;
  }
  EF_HD i32 exact(int score) const { return score * kWin; }
};

}  // namespace ef::connect_four

namespace ef::play {

enum class ConnectFourEvaluator : u32 { kRandom = 0, kWeights = 1 };

constexpr int kConnectFourMaxDepth = 8;  // deep enough for tests; sizes the search stack

struct ConnectFourParams {
  ConnectFourEvaluator kind = ConnectFourEvaluator::kWeights;
  int depth = 2;        // alpha-beta plies, 1..kConnectFourMaxDepth
  u32 epsilon_ppm = 0;  // probability of a random move, in millionths
  signed char weights[connect_four::kSquares] = {};

  EF_HD int choose(const connect_four::Board& s, Rng& rng, u64& nodes, const PlayScratchOf<games::ConnectFour>&) const {
    const int explored =
        exploration_move(games::ConnectFour::moves(s), kind == ConnectFourEvaluator::kRandom, epsilon_ppm, rng);
    if (explored != kSearchMove) return explored;
    const search::SearchResult r =
        search::alphabeta<games::ConnectFour, connect_four::WeightsEvaluator, kConnectFourMaxDepth>(
            s, depth, connect_four::WeightsEvaluator{weights});
    nodes += r.nodes;
    return r.best_move;
  }
  EF_HD bool wants_endgame_table() const { return false; }
};

// A Connect Four agent on the host; its parameters are self-contained.
struct ConnectFourAgent {
  std::string name = "weights";
  ConnectFourParams params;

  // Throws ef::Error naming the agent for a depth outside 1..8 or an epsilon above 10^6 ppm.
  void validate() const;
  ConnectFourParams device_params() const { return params; }
};

using ConnectFourRecord = GameRecordOf<games::ConnectFour>;

template <>
struct Players<games::ConnectFour> {
  using Agent = ConnectFourAgent;
  using Params = ConnectFourParams;
  static constexpr const char* kName = "connect-four";
};

}  // namespace ef::play
