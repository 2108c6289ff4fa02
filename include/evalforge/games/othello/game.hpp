// Othello as a Game (game.hpp): an adapter over ef::othello::Board.
//
// The state carries, besides the board, how many discs the move that reached it flipped: the
// feature-weight evaluator (docs/method.md section 2) scores "a position reached by a move" by that
// count, and it cannot be recovered from the board alone. It is 0 at a root and after a pass.
#pragma once
#include "evalforge/core/hd.hpp"
#include "evalforge/core/rng.hpp"
#include "evalforge/engine/game.hpp"
#include "evalforge/games/othello/bitboard.hpp"

namespace ef::othello {

struct Position {
  Board board;
  int last_flips = 0;  // discs flipped by the move that led here (0: root or pass)

  // Move number of the move that led here: discs placed so far (passes not counted), 0..60.
  // It is also the "position at move k" of the data layer (positions.hpp).
  EF_HD int move_number() const { return board.discs() - 4; }
};

}  // namespace ef::othello

namespace ef::games {

// What identifies an Othello position for a transposition table (engine/pvs.hpp): everything
// an evaluator may read, without the Board's padding.
struct OthelloKey {
  u64 player, opponent;
  u32 side, last_flips;
};

struct Othello {
  using State = othello::Position;
  // Reachable positions have at most 33 legal moves; any board with 60 empties at most 60.
  static constexpr int kMaxMoves = 64;
  static constexpr bool kHasPass = true;
  static constexpr int kSymmetries = 8;
  // At most 60 moves from any start, and never two passes in a row before the end.
  static constexpr int kMaxPlies = 120;

  static EF_HD int side(const State& s) { return s.board.side; }  // kBlack = 0 moves first
  static EF_HD u64 moves(const State& s) { return othello::legal_moves(s.board.player, s.board.opponent); }
  static EF_HD State play(const State& s, int square) {
    const u64 f = othello::flips(s.board.player, s.board.opponent, square);
    State c;
    c.board.player = s.board.opponent & ~f;
    c.board.opponent = s.board.player | f | (u64{1} << square);
    c.board.side = s.board.side ^ 1;
    c.last_flips = popcount64(f);
    return c;
  }
  static EF_HD State pass(const State& s) {
    State c = s;
    c.board.pass();
    c.last_flips = 0;
    return c;
  }
  static EF_HD bool terminal(const State& s) { return s.board.game_over(); }
  // Disc difference for the side to move with the empty squares given to the winner (the obf
  // and WTHOR convention, which the endgame solver also returns).
  static EF_HD int final_score(const State& s) {
    const int diff = popcount64(s.board.player) - popcount64(s.board.opponent);
    const int empties = s.board.empties();
    return diff > 0 ? diff + empties : (diff < 0 ? diff - empties : 0);
  }
  // ProbCut's phase (engine/pvs.hpp): moves 0-14, 15-29, 30-44, 45-60.
  static EF_HD int probcut_phase(const State& s) {
    const int m = s.move_number() / 15;
    return m > 3 ? 3 : m;
  }
  static EF_HD OthelloKey table_key(const State& s) {
    return {s.board.player, s.board.opponent, static_cast<u32>(s.board.side), static_cast<u32>(s.last_flips)};
  }
  static EF_HD State symmetry(const State& s, int k) {
    State c = s;
    c.board.player = othello::symmetry(s.board.player, k);
    c.board.opponent = othello::symmetry(s.board.opponent, k);
    return c;
  }
};
static_assert(Game<Othello>);

}  // namespace ef::games

namespace ef::othello {

// The position after `plies` uniformly random legal moves from `start` (one rng.random_bit per
// move), stopping early at a position whose side to move has no move (which the first dozen
// plies from the start never reach). Openings for tournaments, yardsticks, tests, benchmarks.
EF_HD_INLINE Position random_opening(Rng& rng, int plies, Position start = {}) {
  for (int i = 0; i < plies; ++i) {
    const u64 moves = games::Othello::moves(start);
    if (!moves) break;
    start = games::Othello::play(start, rng.random_bit(moves));
  }
  return start;
}

}  // namespace ef::othello
