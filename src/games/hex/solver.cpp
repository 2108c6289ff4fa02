#include "games/hex/solver.hpp"
#include <algorithm>
#include "core/error.hpp"
#include "games/hex/inferior.hpp"
#include "games/hex/vc.hpp"

namespace ef::hex {

bool HexSolver::wins(const Board& b) {
  if (b.swap_rule) fail("hex solve: positions with the swap rule are not supported");
  return search(b);
}

namespace {

// The cells of `moves` from the centre out (hex distance to the board's centre; ties by square),
// so that the strong central moves come first.
int order_moves(const Board& b, Cells moves, int* out) {
  const int n = b.n;
  int count = 0;
  int key[kSquares];
  for (; moves.any(); moves.drop_lowest()) {
    const int sq = moves.lowest();
    const int distance = centre_distance(sq, n);
    int at = count++;
    while (at > 0 && key[at - 1] > distance) {
      key[at] = key[at - 1];
      out[at] = out[at - 1];
      --at;
    }
    key[at] = distance;
    out[at] = sq;
  }
  return count;
}

}  // namespace

bool HexSolver::search(Board b) {
  ++nodes_;
  if (options_.max_nodes && nodes_ > options_.max_nodes)
    fail("hex solve: gave up after {} nodes (the limit); a smaller board or a later position solves",
         options_.max_nodes);
  if (options_.fill_dead) fill_dead(b);
  if (b.terminal()) return b.winner == b.side;
  const PositionKey key = PositionKey::of(b);
  if (const auto it = table_.find(key); it != table_.end()) return it->second;
  Cells candidates = b.empty();
  if (options_.use_vcs) {
    const VcGraph mine(b, b.side);
    bool decided = false, win = false;
    if (mine.edges_connected() || !mine.semi(VcGraph::kEdge0, VcGraph::kEdge1).empty()) {
      decided = win = true;
    } else {
      const VcGraph theirs(b, b.side ^ 1);
      if (theirs.edges_connected()) {
        decided = true;
      } else if (!theirs.semi(VcGraph::kEdge0, VcGraph::kEdge1).empty()) {
        candidates = candidates & theirs.must_play();
        decided = !candidates.any();
      }
    }
    if (decided) {
      table_.emplace(key, win);
      return win;
    }
  }
  int moves[kSquares];
  const int count = order_moves(b, candidates, moves);
  bool win = false;
  for (int i = 0; i < count && !win; ++i) win = !search(b.play(moves[i]));
  table_.emplace(key, win);
  return win;
}

OpeningTable solve_openings(int n, HexSolverOptions options) {
  if (n < 1 || n > kMaxSide) fail_input("size", "{} is outside 1..{}", n, kMaxSide);
  OpeningTable t;
  t.n = n;
  HexSolver solver(options);
  const Board start = empty_board(n);
  for (Cells c = start.empty(); c.any(); c.drop_lowest()) {
    t.squares.push_back(c.lowest());
    t.black_wins.push_back(!solver.wins(start.play(c.lowest())));
  }
  t.nodes = solver.nodes();
  return t;
}

}  // namespace ef::hex
