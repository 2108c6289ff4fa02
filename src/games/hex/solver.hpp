// An exact Hex solver for small boards and endgames (docs/hex.md, "Solving small boards"):
// depth-first negamax on win/loss with a transposition table, moves ordered from the centre out,
// and at every node:
//  - dead cells filled (games/hex/inferior.hpp);
//  - virtual connections (games/hex/vc.hpp): a side to move with a full or semi connection
//    between its edges wins; one whose opponent has a full connection loses; otherwise, when
//    the opponent has semi connections, only the cells common to their carriers (the must-play
//    region) can save it, so only they are searched (none: a loss).
// Host code: its table is a hash map. Not yet (issue 31): captured cells, dominated moves,
// proof-number search.
#pragma once
#include <array>
#include <cstdint>
#include <unordered_map>
#include <vector>
#include "games/hex/game.hpp"
#include "games/hex/position_key.hpp"

namespace ef::hex {

struct HexSolverOptions {
  bool fill_dead = true;  // fill dead cells before each node's moves
  bool use_vcs = true;    // virtual connections: won and lost positions, the must-play region
                          // (both off: the brute-force reference)
  u64 max_nodes = 0;      // give up after this many nodes (0: never); solve() then throws ef::Error
};

class HexSolver {
 public:
  explicit HexSolver(HexSolverOptions options = {}) : options_(options) {}
  // Whether the side to move in `b` wins under perfect play. Refuses (ef::Error) the swap rule
  // and a position past the node limit.
  bool wins(const Board& b);
  u64 nodes() const { return nodes_; }
  std::size_t table_size() const { return table_.size(); }

 private:
  bool search(Board b);

  HexSolverOptions options_;
  u64 nodes_ = 0;
  std::unordered_map<PositionKey, bool, PositionKeyHash> table_;
};

// The result of every first move on the empty n x n board: entry square -> whether Black, having
// played there, wins against perfect play. Squares not on the board stay false; `nodes` gets the
// nodes searched.
struct OpeningTable {
  int n = 0;
  std::vector<int> squares;  // the board's cells in square order
  std::vector<bool> black_wins;
  u64 nodes = 0;
};
OpeningTable solve_openings(int n, HexSolverOptions options = {});

}  // namespace ef::hex
