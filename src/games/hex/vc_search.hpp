// A Wolve-style alpha-beta player over virtual connections (docs/hex.md, "The VC alpha-beta
// player"; Wolve is the alpha-beta program of the benzene suite beside MoHex). Host code: its
// connection lists are vectors and its verdicts sit in a hash map.
//
// Negamax alpha-beta to a fixed depth, from the side to move's view. At every node above the
// leaves, on the position with its dead cells filled (games/hex/inferior.hpp; with
// `fill_captured`, captured pairs too):
//  - the connections of both colours (games/hex/vc.hpp H-search) decide it when they can: the
//    side to move wins with a full or semi connection between its edges, loses against the
//    opponent's full one, and otherwise, when the opponent has semi connections, may only play
//    in their must-play region (none left: a loss);
//  - every candidate move is scored by the leaf evaluation of the position after it
//    (resistance, the seed paper's Ev / Ev', or resistance over the node's connections), and only the best `width` are
//    searched deeper, best first. A node one ply above the leaves takes the best of those scores directly, so the
//    leaves are every candidate's child and no H-search runs on them.
// The root deepens iteratively (depth 1, 2, .. depth), each pass searching the root's moves in
// the order of the last pass's values; the connection verdicts of a move's search are kept in a
// table, so a later pass does not repeat an H-search. With a clock (`move_seconds`), it deepens
// until the time is spent: a pass starts only while less than half of it is gone (a pass costs
// more than all before it), a pass the clock stops is thrown away, and the move is the last
// finished pass's (depth 1, the ordering, always finishes). A proven win is played as
// hex::vc_guarded_move plays it (a move after which the connection is full). The swap move is
// never chosen.
//
// Values: the evaluators' (|v| <= hex::kClamp) or proven: kVcWin - ply for a win found `ply`
// plies down (a connection proof counts one ply more than a win on the board, so a connected
// game ends sooner), the negation for a loss. A node whose moves were cut to the width and all
// lose gets -kClamp, not a proven loss: the moves beyond the width were not searched. Without a
// clock the move is a pure function of (position, parameters): no random draws. With one it also
// depends on the machine's speed, so games with such a player are not reproducible.
#pragma once
#include <chrono>
#include <string>
#include <unordered_map>
#include <vector>
#include "evalforge/games/hex/characteristics.hpp"
#include "games/hex/position_key.hpp"
#include "games/hex/vc.hpp"

namespace ef::hex {

// The leaf evaluation: resistance (ResistanceEvaluator), the seed paper's Ev / Ev', or
// resistance over connections: the circuit of each colour gets a resistor for every full
// connection that H-search found at the node above the leaf (as if its endpoints were adjacent,
// as benzene's Wolve adds them), those the leaf's last move cannot break.
enum class VcLeaf { kResistance, kEv, kVcResistance };

// A full connection as eval=vc-resistance uses it: its resistor (characteristics.hpp), and the
// cells on which a stone of the other colour may break it (the cells common to all its
// carriers, and its endpoints' cells).
struct CircuitLink {
  ResistorLink resistor;
  Cells breaks;
};
// The circuit links of a position's connections (VcGraph::links of one colour, n x n board):
// each joined at the pair of its endpoints' cells nearest each other in the circuit's row order;
// those wider than kMaxLinkWidth are left out.
std::vector<CircuitLink> circuit_links(const std::vector<VcLink>& links, int n);
// The resistors of `colour`'s `links` in the circuit of the position after `mover` played `sq`:
// all of them for the mover (its stone only adds to its connections); for the other colour,
// those whose breaks do not hold sq.
std::vector<ResistorLink> child_resistors(const std::vector<CircuitLink>& links, int colour, int mover, int sq);

constexpr int kMaxVcDepth = 8;        // beyond 4 plies, only with a clock in practice (width^depth nodes)
constexpr i32 kVcWin = i32{1} << 30;  // above every evaluator value (kClamp = 2^29)

struct VcSearchParams {
  int depth = 2;   // plies, 1..kMaxVcDepth; with a clock, the most it deepens to
  int width = 10;  // moves searched deeper per node, 1..kMaxSide^2
  // The evaluation of the leaves and of the move order; resistance over connections by default
  // (docs/hex.md: it beats plain resistance leaves at a fraction of their depth's time).
  VcLeaf leaf = VcLeaf::kVcResistance;
  BetweennessEvaluator ev;     // kEv's evaluator (gamma, networks)
  VcOptions vc;                // H-search's list caps
  bool fill_captured = false;  // fill captured pairs too, not only dead cells (fill=captured)
  // Leave dominated and vulnerable moves out of each node's candidates (prune=dominated;
  // games/hex/inferior.hpp, undominated_moves): each is worth no more than a move kept.
  bool prune_dominated = false;
  // > 0: seconds a move (time=S): deepen until they are spent (above), up to `depth`. 0: every
  // move searched to `depth`.
  double move_seconds = 0;
  // Throws ef::Error naming `who` for a value out of range.
  void validate(const std::string& who) const;
};

struct VcSearchResult {
  int move = -1;
  i32 value = 0;     // for the side to move
  int proven = 0;    // +1: a win proven by connections or by the board, -1: a proven loss, 0: an evaluation
  u64 nodes = 0;     // positions searched or evaluated
  u64 searches = 0;  // H-searches run (one colour each)
  int depth = 0;     // the deepest pass finished (1: the ordering alone)
};

class VcAlphaBeta {
 public:
  explicit VcAlphaBeta(VcSearchParams params = {});
  // The move for the side to move of `s`, a game still on.
  VcSearchResult choose(const Board& s);

 private:
  // What the connections say about a position (vc.hpp's VcVerdict), with, for kVcResistance at
  // an open node, both colours' circuit links.
  struct Verdict {
    int proven = 0;
    Cells moves;
    std::vector<CircuitLink> links[2];
  };
  struct Scored {
    int move;
    i32 value;
  };

  const Verdict& verdict(const Board& f);
  i32 leaf(const Board& b) const;
  // kVcResistance's value of `child`, the position after the side to move of the open node
  // whose verdict is `v` played `sq`.
  i32 linked_leaf(const Board& child, const Verdict& v, int sq) const;
  // The candidate moves of an open node `f` (verdict `v`) scored by their children's leaf
  // values, best first (ties: the lower square).
  std::vector<Scored> ordered(const Board& f, const Verdict& v, const Cells& moves, int ply);
  i32 search(const Board& b, int depth, i32 alpha, i32 beta, int ply);
  void fill(Board& b) const;  // the inferior cells params_ asks for

  // With a clock: whether it has run out (checked at every node; a node costs milliseconds).
  bool out_of_time();

  VcSearchParams params_;
  u64 nodes_ = 0, searches_ = 0;
  std::chrono::steady_clock::time_point deadline_;
  bool aborted_ = false;
  std::unordered_map<PositionKey, Verdict, PositionKeyHash> verdicts_;
};

}  // namespace ef::hex
