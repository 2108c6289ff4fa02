// The playout half of a backend, for one game G: what a game's own code (its fitness matches,
// Hex's UCT playouts) needs of a backend, without knowing which backend or which other games
// exist. backends/backend.hpp's Backend is a PlayBackend<G> for every game of
// games/registry.hpp, so a Backend& converts to the PlayBackend<G>& such code takes.
#pragma once
#include <cstdint>
#include <span>
#include "evalforge/core/hd.hpp"
#include "evalforge/core/memory_check.hpp"
#include "evalforge/engine/playout.hpp"

namespace ef {

// One game of self-play of game G (engine/playout.hpp): the players by handle
// (PlayBackend<G>::add_agent; `black` moves first), the start position (side to move included),
// and the key of the game's random stream. Trivially copyable: the CUDA backend uploads jobs as
// they are.
template <play::PlayoutGame G>
struct GameJobOf {
  int black = -1, white = -1;
  typename G::State start{};
  u64 seed = 1;
  std::uint32_t game = 0;
};

namespace play {

// Agents are copied to the backend (weights to the device for CUDA) and named by handle, one
// handle space per game; update_agent replaces one (e.g. after retraining) without changing
// its handle. play() plays every job to the end; the move lists and scores are the same on
// every backend and for every thread count (playout.hpp's determinism contract).
template <PlayoutGame G>
class PlayBackend {
 public:
  virtual ~PlayBackend() = default;
  virtual int add_agent(const AgentOf<G>& agent) = 0;
  virtual void update_agent(int handle, const AgentOf<G>& agent) = 0;
  virtual void play(std::span<const GameJobOf<G>> jobs, std::span<GameRecordOf<G>> results) = 0;
};

// The host memory of a batch of `games` jobs and their records, what play() is handed: the part
// a command's memory check counts when it plays as many games as its user asks for.
template <PlayoutGame G>
MemoryPart play_batch_memory(double games) {
  return items_memory("games and their records", games, sizeof(GameJobOf<G>) + sizeof(GameRecordOf<G>));
}

}  // namespace play
}  // namespace ef
