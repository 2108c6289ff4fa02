// Brute-force minimax on Othello endgames, the reference of the exact solver's tests
// (search_endgame_test.cpp, search_endgame_parallel_test.cpp).
#pragma once
#include <algorithm>
#include "evalforge/core/rng.hpp"
#include "evalforge/games/othello/endgame.hpp"
#include "evalforge/games/othello/game.hpp"

namespace ef::test {

inline int final_score(u64 P, u64 O) {
  const int diff = popcount64(P) - popcount64(O), empties = 64 - popcount64(P | O);
  return diff > 0 ? diff + empties : (diff < 0 ? diff - empties : 0);
}

// Brute-force negamax on the final disc difference: every move of every line, no pruning.
inline int brute_force(u64 P, u64 O) {
  const u64 moves = othello::legal_moves(P, O);
  if (!moves) {
    if (!othello::legal_moves(O, P)) return final_score(P, O);
    return -brute_force(O, P);
  }
  int best = -65;
  for (u64 m = moves; m; m &= m - 1) {
    const int sq = ctz64(m);
    const u64 f = othello::flips(P, O, sq);
    best = std::max(best, -brute_force(O & ~f, P | f | (u64{1} << sq)));
  }
  return best;
}

// The lowest square among the moves of best value (kPassMove / kNoMove where there is none).
inline int brute_force_move(u64 P, u64 O, int best) {
  const u64 moves = othello::legal_moves(P, O);
  if (!moves) return othello::legal_moves(O, P) ? search::kPassMove : search::kNoMove;
  for (u64 m = moves; m; m &= m - 1) {
    const int sq = ctz64(m);
    const u64 f = othello::flips(P, O, sq);
    if (-brute_force(O & ~f, P | f | (u64{1} << sq)) == best) return sq;
  }
  return search::kNoMove - 1;  // unreachable when best is right
}

// A position with exactly `empties` empty squares reached by random play, or none if the game
// ended first.
inline bool random_endgame(Rng& rng, int empties, u64& P, u64& O) {
  othello::Position p;
  while (p.board.empties() > empties) {
    u64 moves = games::Othello::moves(p);
    if (!moves) {
      p = games::Othello::pass(p);
      moves = games::Othello::moves(p);
      if (!moves) return false;
    }
    p = games::Othello::play(p, rng.random_bit(moves));
  }
  P = p.board.player;
  O = p.board.opponent;
  return true;
}

}  // namespace ef::test
