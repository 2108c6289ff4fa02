// Host-side checks of a searching player's limits, shared by the games whose agents validate
// them the same way (Tic-Tac-Toe, Connect Four): the depth a search stack is sized for and the
// exploration rate of engine/playout.hpp, each with one message.
#pragma once
#include <string_view>
#include "evalforge/core/error.hpp"
#include "evalforge/engine/playout.hpp"

namespace ef::play {

// Throws ef::Error "WHO: depth D is outside 1..MAX" or "WHO: epsilon E ppm is outside 0..10^6".
inline void check_search_limits(std::string_view who, int depth, int max_depth, u32 epsilon_ppm) {
  if (depth < 1 || depth > max_depth) fail("{}: depth {} is outside 1..{}", who, depth, max_depth);
  if (epsilon_ppm > kEpsilonScale) fail("{}: epsilon {} ppm is outside 0..{}", who, epsilon_ppm, kEpsilonScale);
}

}  // namespace ef::play
