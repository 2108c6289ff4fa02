#include "engine/agent_checks.hpp"
#include "evalforge/core/error.hpp"
#include "evalforge/games/tictactoe/players.hpp"

namespace ef::play {

void TicTacToeAgent::validate() const {
  check_search_limits(fmt::format("agent '{}'", name), params.depth, kTicTacToeMaxDepth, params.epsilon_ppm);
  switch (params.kind) {
    case TicTacToeEvaluator::kRandom:
    case TicTacToeEvaluator::kStatic:
    case TicTacToeEvaluator::kNetwork:
    case TicTacToeEvaluator::kPerfect: return;
  }
  fail("agent '{}': unknown evaluator kind {}", name, static_cast<u32>(params.kind));
}

}  // namespace ef::play
