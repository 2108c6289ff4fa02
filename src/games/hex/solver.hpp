// An exact Hex solver for small boards and endgames (docs/hex.md, "Solving small boards"): on
// win/loss with a transposition table, either depth-first proof-number search (df-pn, the
// default) or plain negamax with moves from the centre out, and at every node:
//  - dead cells filled, and captured pairs filled with their captor's colour
//    (games/hex/inferior.hpp);
//  - virtual connections (games/hex/vc.hpp): a side to move with a full or semi connection
//    between its edges wins; one whose opponent has a full connection loses; otherwise, when
//    the opponent has semi connections, only the cells common to their carriers (the must-play
//    region) can save it, so only they are searched (none: a loss).
//  - dominated and vulnerable moves (games/hex/inferior.hpp, undominated_moves) left out of
//    the moves searched, each for a move that is searched and worth at least as much.
// Host code: its tables are hash maps.
//
// df-pn (Nagai 2002) keeps, for every position seen, a proof number (how many more leaves must
// be proven wins for the side to move to prove it wins) and a disproof number, and always
// expands under the child that is cheapest to prove or refute, within thresholds that let it
// stay in one subtree as long as that is the cheapest; in Hex it goes first where the must-play
// region leaves the opponent few answers, which is what makes the 6 x 6 openings reachable. Hex
// positions form no cycles (stones are only added), so the plain algorithm is exact here.
#pragma once
#include <array>
#include <cstdint>
#include <functional>
#include <unordered_map>
#include <vector>
#include "evalforge/games/hex/game.hpp"
#include "games/hex/position_key.hpp"

namespace ef::hex {

struct HexSolverOptions {
  bool fill_dead = true;        // fill dead cells before each node's moves
  bool fill_captured = true;    // and captured pairs (needs fill_dead)
  bool proof_numbers = true;    // df-pn; false: negamax from the centre out
  bool use_vcs = true;          // virtual connections: won and lost positions, the must-play region
                                // (both off: the brute-force reference)
  bool prune_dominated = true;  // leave out dominated and vulnerable moves
  u64 max_nodes = 0;            // give up after this many nodes (0: never); wins() then throws ef::Error.
                                // The count runs over every wins() call of one solver (they share
                                // its table), so a table of first moves or a --moves run has one budget.
};

class HexSolver {
 public:
  explicit HexSolver(HexSolverOptions options = {}) : options_(options) {}
  // Whether the side to move in `b` wins under perfect play. Refuses (ef::Error) the swap rule
  // and a position past the node limit.
  bool wins(const Board& b);
  u64 nodes() const { return nodes_; }
  std::size_t table_size() const { return table_.size() + pn_table_.size(); }

 private:
  // What a filled position's own tests say before any search: decided (and who wins), or the
  // moves worth searching.
  struct Verdict {
    bool decided = false, win = false;
    Cells moves;
  };
  Verdict examine(const Board& filled) const;
  void fill(Board& b) const;  // the inferior cells the options ask for
  void count_node();
  bool search(Board b);
  // df-pn: the proof and disproof numbers of "the side to move wins".
  struct Numbers {
    u64 pn = 1, dn = 1;
  };
  struct PnEntry {
    Numbers numbers;
    std::vector<unsigned char> moves;  // the moves searched (after filling), in the order tried
  };
  std::vector<unsigned char> ordered_moves(const Board& f, const Cells& moves) const;
  // `f` comes filled (wins() fills the root, search_pn each child).
  void search_pn(const Board& f, u64 proof_threshold, u64 disproof_threshold);

  HexSolverOptions options_;
  u64 nodes_ = 0;
  std::unordered_map<PositionKey, bool, PositionKeyHash> table_;
  std::unordered_map<PositionKey, PnEntry, PositionKeyHash> pn_table_;
};

// The result of every first move on the empty n x n board: entry square -> whether Black, having
// played there, wins against perfect play. Squares not on the board stay false; `nodes` gets the
// nodes searched.
struct OpeningTable {
  int n = 0;
  std::vector<int> squares;  // the board's cells in square order
  std::vector<bool> black_wins;
  u64 nodes = 0;
  std::size_t positions = 0;  // positions stored in the solver's table (each examined once)
};
// `progress`, when given, is called after each first move is solved (its square and whether
// Black wins), so that a long run reports what it has.
OpeningTable solve_openings(int n, HexSolverOptions options = {},
                            const std::function<void(int square, bool black_wins)>& progress = {});

}  // namespace ef::hex
