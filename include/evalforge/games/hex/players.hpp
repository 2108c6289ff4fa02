// Hex's players for the playout engine (engine/playout.hpp), EF_HD: alpha-beta (engine/alphabeta.hpp
// over games::Hex) to a fixed depth with a network-characteristics evaluator (the seed paper's
// Ev = C_W / C_B and Ev' = Ev + gamma * C'_W / C'_B, docs/method.md section 4) or the electrical
// resistance evaluator (the classic reference), or random moves. The exploration rule and the
// determinism contract are playout.hpp's.
//
// UCT, the seed's opponent, keeps a search tree in host memory and is a host player
// (games/hex/uct.hpp); its random playouts are games of two random players of this header, so
// a backend can run them in batches.
#pragma once
#include <string>
#include "evalforge/core/hd.hpp"
#include "evalforge/engine/alphabeta.hpp"
#include "evalforge/engine/playout.hpp"
#include "evalforge/games/hex/characteristics.hpp"
#include "evalforge/games/hex/game.hpp"
#include "evalforge/games/hex/playout_patterns.hpp"

namespace ef::play {

// kBridgeRandom: random moves, except that a bridge the opponent's last stone broke is restored
// (hex::bridge_reply, games/hex/playout_patterns.hpp): UCT's bridge-aware playouts.
enum class HexEvaluator : u32 { kRandom = 0, kBetweenness = 1, kResistance = 2, kBridgeRandom = 3 };

// Alpha-beta depth limit: a ply on 11 x 11 has ~100 children, each a network evaluation.
constexpr int kHexMaxDepth = 3;

struct HexParams {
  HexEvaluator kind = HexEvaluator::kBetweenness;
  int depth = 1;                          // alpha-beta plies, 1..kHexMaxDepth
  u32 epsilon_ppm = 0;                    // probability of a random move, in millionths
  hex::BetweennessEvaluator betweenness;  // kBetweenness: gamma, virtual connections, sign

  EF_HD int choose(const hex::Board& s, Rng& rng, u64& nodes, const PlayScratchOf<games::Hex>&) const {
    if (kind == HexEvaluator::kBridgeRandom) {
      // The reply needs no draw; otherwise the random player's one draw of the contract.
      const int reply = hex::bridge_reply(s);
      return reply >= 0 ? reply : exploration_move(s.moves(), true, 0, rng);
    }
    const int explored = exploration_move(s.moves(), kind == HexEvaluator::kRandom, epsilon_ppm, rng);
    if (explored != kSearchMove) return explored;
    search::SearchResult r;
    if (kind == HexEvaluator::kResistance)
      r = search::alphabeta<games::Hex, hex::ResistanceEvaluator, kHexMaxDepth>(s, depth, hex::ResistanceEvaluator{});
    else
      r = search::alphabeta<games::Hex, hex::BetweennessEvaluator, kHexMaxDepth>(s, depth, betweenness);
    nodes += r.nodes;
    return r.best_move;
  }
  EF_HD bool wants_endgame_table() const { return false; }
};

// A Hex agent on the host; its parameters are self-contained, so a backend copies them as they are.
struct HexAgent {
  std::string name = "random";
  HexParams params;

  // Throws ef::Error naming the agent for a depth outside 1..kHexMaxDepth, an epsilon outside
  // 0..10^6 ppm, or a gamma that is negative or not finite.
  void validate() const;
  HexParams device_params() const { return params; }
};

inline HexAgent hex_random_agent() {
  HexAgent a;
  a.name = "random";
  a.params.kind = HexEvaluator::kRandom;
  return a;
}

// Random moves with bridge replies: the playout policy of uct:playout=bridge.
inline HexAgent hex_bridge_random_agent() {
  HexAgent a;
  a.name = "random+bridges";
  a.params.kind = HexEvaluator::kBridgeRandom;
  return a;
}

using HexRecord = GameRecordOf<games::Hex>;

template <>
struct Players<games::Hex> {
  using Agent = HexAgent;
  using Params = HexParams;
  static constexpr const char* kName = "hex";
};

}  // namespace ef::play
