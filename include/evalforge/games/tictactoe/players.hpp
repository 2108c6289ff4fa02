// Tic-Tac-Toe's players for the playout engine (engine/playout.hpp), EF_HD: minimax (the
// alpha-beta of engine/alphabeta.hpp over games::TicTacToe) to a fixed depth with an evaluator,
// or random moves; the exploration rule and determinism contract are playout.hpp's.
//
// Evaluators: the seed paper's +-30/+-20/+-10 static evaluator (tictactoe::StaticEvaluator, the
// "known good" opponent of docs/method.md section 3), the evolved 9-18-5-1 threshold network
// (games/tictactoe/network.hpp; carried inside the parameters, so they stay self-contained),
// random play, and perfect play. A game has at most 9 plies, so minimax to depth 9 reaches a
// finished game on every line and scores it exactly: the perfect player is that search (the
// evaluator is never asked), self-contained like the others, rather than a lookup in
// perfect_play.hpp's host-side table, which a device could not read.
#pragma once
#include <string>
#include "evalforge/core/hd.hpp"
#include "evalforge/engine/alphabeta.hpp"
#include "evalforge/engine/playout.hpp"
#include "evalforge/games/tictactoe/game.hpp"
#include "evalforge/games/tictactoe/network.hpp"

namespace ef::play {

enum class TicTacToeEvaluator : u32 { kRandom = 0, kStatic = 1, kNetwork = 2, kPerfect = 3 };

// A game has 9 plies, so depth 9 searches to the end from anywhere.
constexpr int kTicTacToeMaxDepth = 9;

struct TicTacToeParams {
  TicTacToeEvaluator kind = TicTacToeEvaluator::kStatic;
  int depth = 4;               // minimax plies, 1..kTicTacToeMaxDepth (kPerfect: always the maximum)
  u32 epsilon_ppm = 0;         // probability of a random move, in millionths
  tictactoe::Network network;  // kNetwork
  // Among moves of equal value: false, the lowest square (alpha-beta's rule: the move is a pure
  // function of the position); true, a seeded draw from the game's stream, so that a set of games
  // is not a set of fixed lines a network can learn by heart (the fitness's `ties = "random"`).
  bool random_ties = false;

  EF_HD int choose(const tictactoe::Board& s, Rng& rng, u64& nodes, const PlayScratchOf<games::TicTacToe>&) const {
    const int explored =
        exploration_move(games::TicTacToe::moves(s), kind == TicTacToeEvaluator::kRandom, epsilon_ppm, rng);
    if (explored != kSearchMove) return explored;
    if (random_ties) {
      const int d = kind == TicTacToeEvaluator::kPerfect ? kTicTacToeMaxDepth : depth;
      if (kind == TicTacToeEvaluator::kNetwork) {
        tictactoe::NetworkEvaluator e;
        e.network = &network;
        return draw_among_best(s, d, e, rng, nodes);
      }
      return draw_among_best(s, d, tictactoe::StaticEvaluator{}, rng, nodes);
    }
    search::SearchResult r;
    switch (kind) {
      case TicTacToeEvaluator::kRandom:  // unreachable: exploration_move answers a random player
        break;
      case TicTacToeEvaluator::kStatic:
        r = search::alphabeta<games::TicTacToe, tictactoe::StaticEvaluator, kTicTacToeMaxDepth>(
            s, depth, tictactoe::StaticEvaluator{});
        break;
      case TicTacToeEvaluator::kPerfect:  // to the end of every line: exact values, ties to the lowest square
        r = search::alphabeta<games::TicTacToe, tictactoe::StaticEvaluator, kTicTacToeMaxDepth>(
            s, kTicTacToeMaxDepth, tictactoe::StaticEvaluator{});
        break;
      case TicTacToeEvaluator::kNetwork: {
        tictactoe::NetworkEvaluator e;
        e.network = &network;
        r = search::alphabeta<games::TicTacToe, tictactoe::NetworkEvaluator, kTicTacToeMaxDepth>(s, depth, e);
        break;
      }
    }
    nodes += r.nodes;
    return r.best_move;
  }
  EF_HD bool wants_endgame_table() const { return false; }

  // Every root move searched on its own with a full window (the child to depth - 1), then one
  // below() draw among the moves of the best value, none when there is one. The values are
  // alpha-beta's, so the lowest of these moves is the move the deterministic player plays
  // (tested over every position).
  template <class E>
  EF_HD static int draw_among_best(const tictactoe::Board& s, int depth, const E& e, Rng& rng, u64& nodes) {
    int best[games::TicTacToe::kMaxMoves];
    int count = 0;
    i32 best_value = -search::kInfinity;
    ++nodes;  // the root, as alpha-beta counts it
    for (u64 m = games::TicTacToe::moves(s); m; m &= m - 1) {
      const int square = ctz64(m);
      const search::SearchResult r =
          search::alphabeta<games::TicTacToe, E, kTicTacToeMaxDepth>(games::TicTacToe::play(s, square), depth - 1, e);
      nodes += r.nodes;
      const i32 v = -r.value;
      if (v > best_value) {
        best_value = v;
        count = 0;
      }
      if (v == best_value) best[count++] = square;
    }
    return count == 1 ? best[0] : best[rng.below(static_cast<u32>(count))];
  }
};

// A Tic-Tac-Toe agent on the host. Its parameters are self-contained (nothing to upload but
// themselves), so a backend copies device_params() as they are.
struct TicTacToeAgent {
  std::string name = "static";
  TicTacToeParams params;

  // Throws ef::Error naming the agent for a depth outside 1..9 or an epsilon outside 0..10^6 ppm.
  void validate() const;
  TicTacToeParams device_params() const { return params; }
};

// A static-evaluator, random or perfect player (a network player needs its network: see
// games/tictactoe/fitness_matches.hpp network_agent). A perfect player's depth is the maximum,
// whatever `depth` says.
inline TicTacToeAgent tictactoe_agent(TicTacToeEvaluator kind, int depth, u32 epsilon_ppm = 0) {
  TicTacToeAgent a;
  if (kind == TicTacToeEvaluator::kPerfect) depth = kTicTacToeMaxDepth;
  a.name = kind == TicTacToeEvaluator::kRandom    ? "random"
           : kind == TicTacToeEvaluator::kPerfect ? "perfect"
                                                  : "static-ply" + std::to_string(depth);
  a.params.kind = kind;
  a.params.depth = depth;
  a.params.epsilon_ppm = epsilon_ppm;
  return a;
}

using TicTacToeRecord = GameRecordOf<games::TicTacToe>;

template <>
struct Players<games::TicTacToe> {
  using Agent = TicTacToeAgent;
  using Params = TicTacToeParams;
  static constexpr const char* kName = "tictactoe";
};

}  // namespace ef::play
