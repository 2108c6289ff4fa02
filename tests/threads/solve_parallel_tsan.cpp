// The split endgame search (src/games/othello/solve_parallel.hpp) under ThreadSanitizer:
// scripts/sanitize-check.sh builds this file alone with -fsanitize=thread (the solver is
// header-only, so no instrumented library is needed) and runs it. Random positions of 12-17
// empties, each solved on 3 threads with nodes of 8+ empties split (many split points, many
// cut-offs while helpers work) over a 4,096-entry table shared by the threads (entries
// overwritten all the time), against the one-thread solver. Exit status 1 on any difference;
// ThreadSanitizer ends the run with its own status on a data race.
#include <cstdio>
#include <vector>
#include "evalforge/core/rng.hpp"
#include "games/othello/solve_parallel.hpp"

using namespace ef;

int main() {
  std::vector<search::endgame::HashEntry> entries(std::size_t{1} << 12);
  search::endgame::HashTable table{entries.data(), entries.size() - 1, 0};
  Rng rng(61, Purpose::kGame, 1);
  int solved = 0, wrong = 0;
  for (int game = 0; game < 48; ++game) {
    // A position of `target` empties by random play from the start (none if the game ends first).
    u64 P = 0x0000000810000000ull, O = 0x0000001008000000ull;
    const int target = 12 + game % 6;
    bool ended = false;
    while (!ended && 64 - popcount64(P | O) > target) {
      u64 moves = othello::legal_moves(P, O);
      if (!moves) {
        const u64 t = P;
        P = O;
        O = t;
        moves = othello::legal_moves(P, O);
        if (!moves) ended = true;
        continue;
      }
      const int sq = rng.random_bit(moves);
      const u64 flipped = othello::flips(P, O, sq);
      const u64 next_p = O & ~flipped, next_o = P | flipped | (u64{1} << sq);
      P = next_p;
      O = next_o;
    }
    if (ended) continue;
    const search::SolveResult one = search::solve_endgame(P, O, -64, 64, &table);
    search::ParallelSolve<> split(3, &table, nullptr, 8);
    const search::SolveResult r = split.solve(P, O);
    ++solved;
    if (r.score != one.score || r.best_move != one.best_move) {
      ++wrong;
      std::printf("position %d: %d threads say %+d (move %d), one thread %+d (move %d)\n", game, 3, r.score,
                  r.best_move, one.score, one.best_move);
    }
  }
  std::printf("solve_parallel_tsan: %d positions on 3 threads, %d differ from one thread\n", solved, wrong);
  return wrong || solved < 40 ? 1 : 0;
}
