// Patterns for Hex playouts (docs/hex.md, "Bridge replies in playouts"), EF_HD like the rules,
// so that the CPU workers and the CUDA kernel play the same playouts.
//
// A bridge joins two stones of one colour that are not adjacent but share two empty neighbours,
// its carriers: whichever carrier the opponent takes, the other keeps the stones connected. An
// edge bridge is the same with the player's own edge for one of the stones: a stone on the
// second row and its two neighbours on the edge row. Uniformly random playouts do not answer an
// intrusion into a carrier, so they lose connections that any player would keep, and a UCT
// built on them underrates positions full of bridges. The reply rule of MoHex's playout
// policy (Arneson, Hayward and Henderson, "Monte Carlo Tree Search in Hex", 2010) is the
// remedy kept here: when the opponent's last stone broke a bridge of the player to move, play
// the other carrier.
#pragma once
#include "evalforge/core/hd.hpp"
#include "evalforge/games/hex/game.hpp"
#include "evalforge/games/hex/inferior.hpp"  // ring_neighbour: the six neighbours in ring order

namespace ef::hex {

// Whether (col, row) is `colour`'s for a bridge: its stone, or off the board beyond one of its
// two edges only (a position beyond both, at an obtuse corner, belongs to neither).
EF_HD_INLINE bool holds_for_bridge(const Board& b, int colour, int col, int row) {
  const int n = b.n;
  const bool beyond_black = row < 0 || row >= n, beyond_white = col < 0 || col >= n;
  if (beyond_black || beyond_white) return colour == kBlack ? !beyond_white : !beyond_black;
  return b.stones[colour].has(square_of(col, row));
}

// The carrier that restores a bridge the opponent's last stone x broke, or -1 (no last stone,
// the swap was the last move, the last stone is the mover's own, as after GTP's out-of-turn
// `play`, or no bridge was broken). Around x, ring neighbours k and k + 2
// held by the player to move (stones or its edge) with neighbour k + 1 empty between them:
// those two are not adjacent, x and k + 1 are their only common neighbours, so x was one
// carrier of their bridge and k + 1 is the other. The first such k in ring order.
EF_HD_INLINE int bridge_reply(const Board& b) {
  if (b.last < 0 || b.terminal() || !b.stones[b.side ^ 1].has(b.last)) return -1;
  const int mover = b.side, n = b.n, col = col_of(b.last), row = row_of(b.last);
  bool held[6];
  int cell[6];
  for (int k = 0; k < 6; ++k) {
    int c, r;
    ring_neighbour(col, row, k, c, r);
    held[k] = holds_for_bridge(b, mover, c, r);
    cell[k] = c >= 0 && c < n && r >= 0 && r < n ? square_of(c, r) : -1;
  }
  const Cells empty = b.empty();
  for (int k = 0; k < 6; ++k) {
    const int between = cell[(k + 1) % 6];
    if (held[k] && held[(k + 2) % 6] && between >= 0 && empty.has(between)) return between;
  }
  return -1;
}

}  // namespace ef::hex
