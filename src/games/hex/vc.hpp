// Virtual connections by H-search (Anshelevich 2002; docs/hex.md, "Virtual connections"), for
// one colour of a Hex position. Host code: its connection lists are vectors.
//
// The nodes are the colour's two edges, its groups (stones connected through its own stones) and
// the empty cells. A *full* connection between two nodes x, y with carrier C (a set of empty
// cells, never x or y) means the colour can connect x and y even if the opponent moves first,
// playing only inside C; a *semi* connection means it can if it moves first (the carrier
// includes the move, the key). Built from:
//  - base: adjacent nodes (a cell or group touching an edge is adjacent to it): full, carrier {};
//  - AND: full (x, z) with carrier A and full (z, y) with carrier B, A and B disjoint and neither
//    holding x or y: through a group z, full (x, y) with A + B; through an empty cell z, semi
//    (x, y) with A + B + {z} (z must be played);
//  - OR: semi connections (x, y) whose carriers have no cell in common (two, three, or all of
//    them): the opponent cannot break them all with one move, so full (x, y) with their union.
// Applied until a pass adds no full connection. Lists are kept short (a carrier that contains
// another of the same pair is dropped; at most `max_full` / `max_semi` per pair), as Six and
// MoHex do, so the search is not complete, only sound: every connection it reports is real
// (tests/hex_vc_test.cpp checks the edge-to-edge ones against an exact solver).
//
// Edges are endpoints only, never the middle of an AND (two groups touching one edge are not
// connected to each other by it).
#pragma once
#include <utility>
#include <vector>
#include "evalforge/games/hex/game.hpp"

namespace ef::hex {

// The cells of `c` from the board's centre out (hex distance to the centre; ties in square
// order): the strong central moves first, the order the solver and the guards try moves in.
std::vector<int> centre_out(Cells c, int n);

struct VcOptions {
  int max_full = 8;   // carriers kept per pair of nodes
  int max_semi = 12;  // semi carriers kept per pair
};

// A semi connection: its carrier, and the key, the cell of the carrier that makes it full when
// the colour plays it (the empty cell z of the AND that built it).
struct SemiVc {
  Cells carrier;
  int key = -1;
};

// A full connection as a link of a circuit: its endpoints' cells (a group's stones or one empty
// cell; `a` is empty when that endpoint is the edge named in `edge`, VcGraph::kEdge0 or kEdge1),
// and the cells common to all its carriers. A stone of the other colour on a common cell may
// break it; on any other cell it leaves one carrier whole, so the connection stays.
struct VcLink {
  Cells a, b;
  int edge = 0;  // 0: `a` is cells
  Cells common;
};

class VcGraph {
 public:
  // An endpoint: one of the colour's edges (kEdge0, kEdge1), or a square: the group holding a
  // stone of the colour there, or the empty cell.
  static constexpr int kEdge0 = -1, kEdge1 = -2;

  VcGraph(const Board& b, int colour, VcOptions options = {});

  // Full / semi carriers between two endpoints (empty when none was found; a stone of the other
  // colour is no endpoint).
  const std::vector<Cells>& full(int a, int b) const { return between(full_, a, b); }
  const std::vector<SemiVc>& semi(int a, int b) const { return between(semi_, a, b); }
  // The colour has connected its edges virtually: it wins even with the opponent to move.
  bool edges_connected() const { return !full(kEdge0, kEdge1).empty(); }
  // The full connections that are more than adjacency (every carrier non-empty), between two
  // endpoints that are not both edges: the extra resistors of resistance over connections
  // (vc_search.hpp, eval=vc-resistance).
  std::vector<VcLink> links() const;
  // Where the opponent, to move, must play to stop the colour's semi connections between its
  // edges: the cells common to all their carriers (every cell when there is none). Empty while
  // some exist: the opponent cannot stop them all (OR would have made them full, unless the
  // lists were cut short).
  Cells must_play() const;

 private:
  int node_of(int endpoint) const;
  template <typename T>
  const std::vector<T>& between(const std::vector<std::vector<T>>& lists, int a, int b) const;
  std::size_t index(int x, int y) const;  // of the pair's lists
  template <typename T>
  std::vector<T>& list(std::vector<std::vector<T>>& lists, int x, int y) {
    return lists[index(x, y)];
  }
  int changed(int x, int y) const { return full_changed_[index(x, y)]; }
  bool add_full(int x, int y, const Cells& carrier);
  // Both return whether a full connection was added (OR may make one from a semi).
  bool add_semi(int x, int y, const Cells& carrier, int key);

  Cells empty_;  // the position's empty cells
  VcOptions options_;
  int nodes_ = 0;
  std::vector<Cells> cells_;               // a node's own cells (empty for the edges)
  std::vector<bool> group_;                // the node is a group of stones (an AND through it is full)
  std::vector<int> node_of_square_;        // -1 for squares that are no node (the opponent's stones)
  std::vector<std::vector<Cells>> full_;   // per pair x < y, index x * nodes + y
  std::vector<std::vector<SemiVc>> semi_;  // the same
  std::vector<SemiVc> or_scratch_;         // add_semi's snapshot of a pair's semi connections
  std::vector<int> full_changed_;          // per pair: the AND pass that last added a full carrier
  int pass_ = 0;
};

template <typename T>
inline const std::vector<T>& VcGraph::between(const std::vector<std::vector<T>>& lists, int a, int b) const {
  static const std::vector<T> none;
  int x = node_of(a), y = node_of(b);
  if (x < 0 || y < 0 || x == y) return none;
  if (x > y) std::swap(x, y);
  return lists[static_cast<std::size_t>(x) * nodes_ + y];
}

// What the connections of both colours say about a position `filled` (its dead cells filled,
// the game still on), from the side to move's view: proven = +1 when the side to move has a full
// or semi connection between its edges (it wins), -1 when the opponent has a full one or semi
// ones whose must-play region is empty (it loses); otherwise 0, and `moves` holds the moves
// worth playing: the opponent's must-play region when it has semi connections, else every empty
// cell. `searches` counts the H-searches run (one or two).
struct VcVerdict {
  int proven = 0;
  Cells moves;
  int searches = 0;
  // With keep_links, for an open position (proven == 0): each colour's VcGraph::links().
  std::vector<VcLink> links[2];
};
VcVerdict vc_verdict(const Board& filled, VcOptions options = {}, bool keep_links = false);

// VC-aware play (docs/hex.md, "Players that see connections"): the move a player about to play
// `chosen` in `s` plays instead, by the connections of the position with its dead cells filled.
//  - The side to move has a full or semi connection between its edges: a move after which the
//    connection is full (`chosen` when H-search proves it so; else a semi connection's key or
//    a carrier's cell that H-search proves; else a semi connection's key, which makes it full by
//    construction, or `chosen` when only full ones exist, since any move keeps those): the won
//    game stays won, which weak searches often fumble.
//  - Otherwise, when the opponent has semi connections between its edges: a move inside the
//    must-play region (`chosen` when it is there; else the first of its cells, from the centre
//    out, after which the opponent has no edge connection left, or the first of them), since any
//    other move loses.
//  - Otherwise `chosen`. The swap move and finished games are left alone. Deterministic.
int vc_guarded_move(const Board& s, int chosen, VcOptions options = {});

}  // namespace ef::hex
