#include "engine/agent_checks.hpp"
#include "evalforge/core/error.hpp"
#include "evalforge/games/connect_four/players.hpp"

namespace ef::play {

void ConnectFourAgent::validate() const {
  check_search_limits(fmt::format("agent '{}'", name), params.depth, kConnectFourMaxDepth, params.epsilon_ppm);
  switch (params.kind) {
    case ConnectFourEvaluator::kRandom:
    case ConnectFourEvaluator::kWeights: return;
  }
  fail("agent '{}': unknown evaluator kind {}", name, static_cast<u32>(params.kind));
}

}  // namespace ef::play
