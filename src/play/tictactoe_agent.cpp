#include "evalforge/play/tictactoe_player.hpp"
#include "evalforge/core/error.hpp"

namespace ef::play {

void TicTacToeAgent::validate() const {
  if (params.depth < 1 || params.depth > kTicTacToeMaxDepth)
    fail("agent '{}': depth {} is outside 1..{}", name, params.depth, kTicTacToeMaxDepth);
  if (params.epsilon_ppm > kEpsilonScale)
    fail("agent '{}': epsilon {} ppm is outside 0..{}", name, params.epsilon_ppm, kEpsilonScale);
  switch (params.kind) {
    case TicTacToeEvaluator::kRandom:
    case TicTacToeEvaluator::kStatic:
    case TicTacToeEvaluator::kNetwork:
      return;
  }
  fail("agent '{}': unknown evaluator kind {}", name, static_cast<u32>(params.kind));
}

}  // namespace ef::play
