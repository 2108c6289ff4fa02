// Inferior cells (docs/hex.md, "Dead cells"): empty cells whose colour cannot change who wins,
// found from a cell's six neighbours alone, EF_HD and allocation-free like the rules.
//
// A cell c is *dead* when, for every way of filling the other empty cells, the winner is the
// same whether c is Black or White. Then c may be filled with either colour without changing
// the position's value, and playing there is never better than any other move: a solver or a
// player need not consider it (unless nothing else is left), and filling it may make more
// cells dead.
//
// The test used here. Walk around c: its six neighbours in ring order, each adjacent to the
// next. Call a neighbour *usable* by colour C when it is empty, holds a C stone, or lies off the
// board beyond one of C's two edges (an edge acts as a C stone there; a position beyond both a
// Black and a White edge, at the obtuse corners, counts as usable by both, which only makes the
// test more cautious). If every neighbour usable by C lies within two consecutive ring positions,
// c is *useless* to C: a C chain from edge to edge that passes through c enters and leaves it
// through two neighbours that touch each other (a neighbour beyond an edge means its partner
// touches that edge), so the chain still connects without c. Then C wins a completed board with
// c coloured C exactly when it wins with c coloured the other way, and since a full Hex board
// has exactly one winner, the other colour's result does not depend on c either: a cell useless
// to either colour is dead. (The classic pattern, four consecutive neighbours of one colour, is
// the case "useless to the other colour".) The test is sound, not complete: it misses cells dead
// only through longer-range reasons (tests/hex_solver_test.cpp measures how many it finds
// against a brute-force count on small boards).
#pragma once
#include "evalforge/games/hex/game.hpp"

namespace ef::hex {

// Neighbour k of (col, row) in ring order, k = 0..5: each is adjacent to the next, and the last
// to the first. A function rather than a table so that device code can use it too.
EF_HD_INLINE void ring_neighbour(int col, int row, int k, int& c, int& r) {
  // (dcol, drow) for k = 0..5: (+1, 0) (+1, -1) (0, -1) (-1, 0) (-1, +1) (0, +1).
  const int dc = k < 2 ? 1 : k == 2 || k == 5 ? 0 : -1;
  const int dr = k == 0 || k == 3 ? 0 : k < 3 ? -1 : 1;
  c = col + dc;
  r = row + dr;
}

// Bit k set when ring neighbour k of `square` is usable by `colour` (above).
EF_HD_INLINE unsigned usable_ring(const Board& b, int colour, int square) {
  const int col = col_of(square), row = row_of(square), n = b.n;
  unsigned usable = 0;
  for (int k = 0; k < 6; ++k) {
    int c, r;
    ring_neighbour(col, row, k, c, r);
    const bool beyond_black_edge = r < 0 || r >= n, beyond_white_edge = c < 0 || c >= n;
    bool ok;
    if (beyond_black_edge || beyond_white_edge) {
      ok = colour == kBlack ? beyond_black_edge : beyond_white_edge;
    } else {
      const int sq = square_of(c, r);
      ok = !b.stones[colour ^ 1].has(sq);
    }
    if (ok) usable |= 1u << k;
  }
  return usable;
}

// Whether the usable neighbours (a 6-bit ring mask) lie within two consecutive positions.
EF_HD_INLINE bool within_two_consecutive(unsigned ring) {
  for (int k = 0; k < 6; ++k) {
    const unsigned arc = (1u << k) | (1u << ((k + 1) % 6));
    if ((ring & ~arc) == 0) return true;
  }
  return false;
}

// Whether the empty cell `square` is useless to `colour` / dead (above).
EF_HD_INLINE bool useless_to(const Board& b, int colour, int square) {
  return within_two_consecutive(usable_ring(b, colour, square));
}
EF_HD_INLINE bool is_dead(const Board& b, int square) {
  return useless_to(b, kBlack, square) || useless_to(b, kWhite, square);
}

// The empty cells the test finds dead in `b` (none once the game is over).
EF_HD_INLINE Cells dead_cells(const Board& b) {
  Cells dead;
  if (b.terminal()) return dead;
  for (Cells e = b.empty(); e.any(); e.drop_lowest()) {
    const int sq = e.lowest();
    if (is_dead(b, sq)) dead.set(sq);
  }
  return dead;
}

// Fills the dead cells with `fill_colour` (any colour keeps the value; Black by default) until
// the test finds none: each filling may make neighbours dead. Returns the cells filled. The side to move and the ply
// count stay as they were: filling is not a move. The winner is recomputed: when only dead cells were left, the filled
// board has one.
EF_HD_INLINE Cells fill_dead(Board& b, int fill_colour = kBlack) {
  Cells filled;
  for (Cells dead = dead_cells(b); dead.any(); dead = dead_cells(b)) {
    b.stones[fill_colour] |= dead;
    filled |= dead;
    b.recompute();
  }
  return filled;
}

// Captured cells (docs/hex.md, "Captured cells"). A set of empty cells is *captured* by a colour
// when that colour can answer every intrusion into it, inside it, so that the intruder's stone
// ends up dead: then filling the set with the colour's stones changes nobody's result, whoever
// is to move. (If the colour wins with the set filled, it wins without: it plays the same way
// and answers an intrusion with the other cell; the intruding stone is dead by then, and stays
// dead as stones are added, so it could as well be the colour's. The other way round, extra
// stones never hurt a Hex player.) The pairs found here: two adjacent empty cells a, b such
// that a stone of the colour on b leaves a dead by the test above, and one on a leaves b dead.
// Sound for the same reason the dead-cell test is; the classic pattern, the two cells between a
// stone on the second row and its edge, is a case of it (a bridge's two cells between two stones
// are not: the intruder's stone there keeps three usable neighbours in a row).
// Returns the first such pair in square order as one Cells (empty when none).
EF_HD_INLINE Cells captured_pair(const Board& b, int colour) {
  const Cells empty = b.empty();
  for (Cells e = empty; e.any(); e.drop_lowest()) {
    const int a = e.lowest(), col = col_of(a), row = row_of(a);
    // Each pair is seen once, from its lower square.
    for (int k = 0; k < 6; ++k) {
      int c, r;
      ring_neighbour(col, row, k, c, r);
      if (c < 0 || r < 0 || c >= b.n || r >= b.n) continue;
      const int other = square_of(c, r);
      if (other < a || !empty.has(other)) continue;
      Board with_other = b, with_a = b;
      with_other.stones[colour].set(other);
      with_a.stones[colour].set(a);
      if (is_dead(with_other, a) && is_dead(with_a, other)) {
        Cells pair = Cells::bit(a);
        pair.set(other);
        return pair;
      }
    }
  }
  return Cells{};
}

// What fill_inferior() filled: the dead cells (filled Black) and each colour's captured cells.
struct InferiorFill {
  Cells dead, captured[2];
  EF_HD_INLINE Cells all() const { return dead | captured[0] | captured[1]; }
};

// Fills dead cells (Black) and captured pairs (their captor's colour), one pair at a time, until
// neither test finds more: each fill may make more cells dead or captured. Keeps the value of the
// position for the side to move; like fill_dead(), not a move (side and ply stay).
EF_HD_INLINE InferiorFill fill_inferior(Board& b) {
  InferiorFill f;
  while (true) {
    f.dead |= fill_dead(b);
    if (b.terminal()) return f;
    int colour = kBlack;
    Cells pair = captured_pair(b, kBlack);
    if (!pair.any()) pair = captured_pair(b, colour = kWhite);
    if (!pair.any()) return f;
    b.stones[colour] |= pair;
    f.captured[colour] |= pair;
    b.recompute();
    if (b.terminal()) return f;
  }
}

// Dominated moves (docs/hex.md, "Dominated and vulnerable moves"). A move d *dominates* a move c
// of the side to move P when the position after P's stone on d is worth at least as much to P
// as the one after P's stone on c: then c need not be searched as long as d is. Two sound tests
// built on the dead-cell test above (the swap rule aside: both assume no swap is pending):
//
//  - Capture domination. Fill the position after P's stone on d with P's colour: every dead
//    cell and every P-captured pair, until none is left. Each filling keeps the value, so the
//    position after d is worth what the filled one is; and the filled one holds every stone of
//    the position after c (c among the filled cells) plus more of P's, which never hurts P.
//  - Vulnerable cells. A killer of c is an empty cell r such that, after P's stone on c and the
//    opponent's on r, c is dead. Then r dominates c. Swap the two cells: P plays r, and answers
//    as a strategy that had played c would, reading c for r and r for c. At the end the real
//    board is the imagined one with c and r exchanged. If the imagined r is P's, the two boards
//    have the same stones; if it is the opponent's, c is dead on the imagined board (a dead cell
//    stays dead as stones are added), so recolouring the imagined c gives the same winner, and
//    that board is the real one with r the opponent's instead of P's. Either way P wins the real
//    game whenever the imagined one is won.
//
// Domination is transitive, and two cells may dominate each other, so cells are dropped one at
// a time, each only for a dominator still kept: whatever a dropped cell is worth, a kept cell
// is worth as much (the dominator, or the cell kept for it in turn).

// The cells filled in P's colour (P: the side to move) after P's stone on d, as above; not d
// itself. None when that stone ends the game.
EF_HD_INLINE Cells capture_dominated(const Board& b, int d) {
  const int p = b.side;
  Board a = b;
  a.stones[p].set(d);
  a.recompute();
  const Cells before = a.stones[p];
  while (!a.terminal()) {
    // Both fillings at once: the tests are monotone (a cell found dead, or a pair found captured,
    // stays so as stones are added), so each stays sound after the other.
    const Cells add = dead_cells(a) | captured_pair(a, p);
    if (!add.any()) break;
    a.stones[p] |= add;
    a.recompute();
  }
  return a.stones[p].without(before);
}

// The killers of the empty cell c for the side to move (above): its empty neighbours r after
// whose stone, with the side to move's on c, c is dead. Only a neighbour can change c's ring.
EF_HD_INLINE Cells killers(const Board& b, int c) {
  Cells found;
  Board a = b;  // the dead-cell test reads the stones alone: no recompute needed
  a.stones[b.side].set(c);
  const Cells empty = b.empty();
  for (int k = 0; k < 6; ++k) {
    int col, row;
    ring_neighbour(col_of(c), row_of(c), k, col, row);
    if (col < 0 || row < 0 || col >= b.n || row >= b.n) continue;
    const int r = square_of(col, row);
    if (!empty.has(r)) continue;
    a.stones[b.side ^ 1].set(r);
    if (is_dead(a, c)) found.set(r);
    a.stones[b.side ^ 1] = b.stones[b.side ^ 1];
  }
  return found;
}

// `moves` without the cells dominated (above) by a cell kept: vulnerable cells first (cheap),
// then capture domination, each in square order. A position with the swap move pending, or
// over, keeps its moves.
EF_HD_INLINE Cells undominated_moves(const Board& b, Cells moves) {
  if (b.terminal() || b.swap_available()) return moves;
  Cells keep = moves;
  for (Cells m = moves; m.any(); m.drop_lowest()) {
    const int c = m.lowest();
    if ((killers(b, c) & keep).without(Cells::bit(c)).any()) keep = keep.without(Cells::bit(c));
  }
  for (Cells m = moves; m.any(); m.drop_lowest()) {
    const int d = m.lowest();
    if (!keep.has(d)) continue;
    keep = keep.without(capture_dominated(b, d).without(Cells::bit(d)));
  }
  return keep;
}

}  // namespace ef::hex
