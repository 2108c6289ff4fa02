#include "games/hex/vc.hpp"
#include <algorithm>
#include "evalforge/core/error.hpp"
#include "evalforge/games/hex/inferior.hpp"

namespace ef::hex {

namespace {

bool subset(const Cells& a, const Cells& b) { return !a.without(b).any(); }  // a within b

// The most cells a guard tries (each try is one H-search). 16 was too few: on 5 x 5 a semi
// connection's carrier can hold more cells than that ahead of its key, and a proven win then
// played a losing move.
constexpr int kGuardTries = 64;

}  // namespace

std::vector<int> centre_out(Cells c, int n) {
  std::vector<int> out;
  for (; c.any(); c.drop_lowest()) out.push_back(c.lowest());
  std::stable_sort(out.begin(), out.end(), [n](int a, int b) { return centre_distance(a, n) < centre_distance(b, n); });
  return out;
}

VcGraph::VcGraph(const Board& b, int colour, VcOptions options) : empty_(b.empty()), options_(options) {
  const int n = b.n;
  // Nodes: the two edges, the colour's groups, the empty cells.
  cells_ = {Cells{}, Cells{}};
  group_ = {false, false};
  node_of_square_.assign(kSquares, -1);
  for (Cells left = b.stones[colour]; left.any();) {
    Cells group = Cells::bit(left.lowest());
    for (Cells frontier = group; frontier.any();) {
      frontier = neighbours(frontier, b.stones[colour]).without(group);
      group |= frontier;
    }
    for (Cells c = group; c.any(); c.drop_lowest())
      node_of_square_[static_cast<std::size_t>(c.lowest())] = static_cast<int>(cells_.size());
    cells_.push_back(group);
    group_.push_back(true);
    left = left.without(group);
  }
  for (Cells e = empty_; e.any(); e.drop_lowest()) {
    node_of_square_[static_cast<std::size_t>(e.lowest())] = static_cast<int>(cells_.size());
    cells_.push_back(Cells::bit(e.lowest()));
    group_.push_back(false);
  }
  nodes_ = static_cast<int>(cells_.size());
  full_.assign(static_cast<std::size_t>(nodes_) * nodes_, {});
  full_changed_.assign(static_cast<std::size_t>(nodes_) * nodes_, 0);
  semi_.assign(static_cast<std::size_t>(nodes_) * nodes_, {});

  // Base: adjacent nodes, and nodes touching an edge.
  for (int x = 2; x < nodes_; ++x) {
    for (int e = 0; e < 2; ++e)
      if ((cells_[x] & edge_cells(colour, e, n)).any()) add_full(e, x, Cells{});
    const Cells near = neighbours(cells_[x], b.on_board);
    for (int y = x + 1; y < nodes_; ++y)
      if ((near & cells_[y]).any()) add_full(x, y, Cells{});
  }
  // AND (and OR inside add_semi) until a pass adds no full connection. A pair of lists neither
  // of which changed since the pass before last was combined, carrier by carrier, in the last
  // pass already: it is skipped (pass_ numbers the passes; the base is pass 0).
  for (bool added = true; added;) {
    added = false;
    ++pass_;
    std::vector<int> linked;  // the nodes with a full connection to z, ascending
    for (int z = 2; z < nodes_; ++z) {
      // Adds below change only pairs (x, y) with neither being z, so z's links stay as listed.
      linked.clear();
      for (int x = 0; x < nodes_; ++x)
        if (x != z && !list(full_, x, z).empty()) linked.push_back(x);
      for (std::size_t i = 0; i < linked.size(); ++i) {
        const int x = linked[i];
        for (std::size_t j = i + 1; j < linked.size(); ++j) {
          const int y = linked[j];
          // References: the adds below change only the lists of (x, y), never (x, z) or (z, y)
          // (z is neither x nor y), and every pair's list is a vector of its own.
          if (changed(x, z) < pass_ - 1 && changed(z, y) < pass_ - 1) continue;
          const std::vector<Cells>& xz = list(full_, x, z);
          const std::vector<Cells>& zy = list(full_, z, y);
          for (const Cells& a : xz)
            for (const Cells& c : zy) {
              if ((a & c).any() || (a & cells_[y]).any() || (c & cells_[x]).any()) continue;
              if (group_[z])
                added |= add_full(x, y, a | c);
              else
                added |= add_semi(x, y, a | c | cells_[z], cells_[z].lowest());
            }
        }
      }
    }
  }
}

int VcGraph::node_of(int endpoint) const {
  if (endpoint == kEdge0) return 0;
  if (endpoint == kEdge1) return 1;
  if (endpoint < 0 || endpoint >= kSquares) fail("hex: no endpoint {}", endpoint);
  return node_of_square_[static_cast<std::size_t>(endpoint)];
}

std::size_t VcGraph::index(int x, int y) const {
  if (x > y) std::swap(x, y);
  return static_cast<std::size_t>(x) * nodes_ + y;
}

bool VcGraph::add_full(int x, int y, const Cells& carrier) {
  std::vector<Cells>& l = list(full_, x, y);
  for (const Cells& c : l)
    if (subset(c, carrier)) return false;  // as small a carrier is there already
  l.erase(std::remove_if(l.begin(), l.end(), [&](const Cells& c) { return subset(carrier, c); }), l.end());
  if (static_cast<int>(l.size()) >= options_.max_full) return false;
  l.push_back(carrier);
  full_changed_[index(x, y)] = pass_;
  // Semi connections that hold a full one are of no more use.
  std::vector<SemiVc>& s = list(semi_, x, y);
  s.erase(std::remove_if(s.begin(), s.end(), [&](const SemiVc& c) { return subset(carrier, c.carrier); }), s.end());
  return true;
}

bool VcGraph::add_semi(int x, int y, const Cells& carrier, int key) {
  for (const Cells& c : list(full_, x, y))
    if (subset(c, carrier)) return false;
  std::vector<SemiVc>& s = list(semi_, x, y);
  for (const SemiVc& c : s)
    if (subset(c.carrier, carrier)) return false;
  s.erase(std::remove_if(s.begin(), s.end(), [&](const SemiVc& c) { return subset(carrier, c.carrier); }), s.end());
  if (static_cast<int>(s.size()) >= options_.max_semi) return false;
  // OR: with one other semi connection, two others, or all of them.
  // A snapshot (add_full below may drop entries of s); a member, so that its storage is reused.
  // add_full never calls add_semi, so nothing else writes it meanwhile.
  std::vector<SemiVc>& others = or_scratch_;
  others.assign(s.begin(), s.end());
  s.push_back({carrier, key});
  bool added = false;
  for (std::size_t i = 0; i < others.size(); ++i) {
    const Cells& a = others[i].carrier;
    if (!(a & carrier).any()) {
      added |= add_full(x, y, a | carrier);
      continue;
    }
    for (std::size_t j = i + 1; j < others.size(); ++j)
      if (!(a & others[j].carrier & carrier).any()) added |= add_full(x, y, a | others[j].carrier | carrier);
  }
  Cells common = carrier, all = carrier;
  for (const SemiVc& c : others) {
    common = common & c.carrier;
    all |= c.carrier;
  }
  if (!common.any()) added |= add_full(x, y, all);
  return added;
}

Cells VcGraph::must_play() const {
  Cells common = empty_;
  for (const SemiVc& c : semi(kEdge0, kEdge1)) common = common & c.carrier;
  return common;
}

std::vector<VcLink> VcGraph::links() const {
  std::vector<VcLink> out;
  for (int x = 0; x < nodes_; ++x)
    for (int y = std::max(x + 1, 2); y < nodes_; ++y) {
      const std::vector<Cells>& l = full_[index(x, y)];
      if (l.empty()) continue;
      VcLink link;
      link.common = empty_;
      bool base = false;
      for (const Cells& c : l) {
        base |= !c.any();
        link.common = link.common & c;
      }
      if (base) continue;  // adjacent: the circuit has it already
      link.a = cells_[x];
      link.b = cells_[y];
      link.edge = x == 0 ? kEdge0 : (x == 1 ? kEdge1 : 0);
      out.push_back(link);
    }
  return out;
}

VcVerdict vc_verdict(const Board& f, VcOptions options, bool keep_links) {
  VcVerdict v;
  const int me = f.side;
  ++v.searches;
  const VcGraph mine(f, me, options);
  if (mine.edges_connected() || !mine.semi(VcGraph::kEdge0, VcGraph::kEdge1).empty()) {
    v.proven = 1;
    return v;
  }
  ++v.searches;
  const VcGraph theirs(f, me ^ 1, options);
  if (theirs.edges_connected()) {
    v.proven = -1;
    return v;
  }
  v.moves = f.empty();
  // Any move outside the region lets the opponent play a key that survives it.
  if (!theirs.semi(VcGraph::kEdge0, VcGraph::kEdge1).empty()) v.moves = theirs.must_play() & f.empty();
  if (!v.moves.any()) v.proven = -1;
  if (keep_links && !v.proven) {
    v.links[me] = mine.links();
    v.links[me ^ 1] = theirs.links();
  }
  return v;
}

int vc_guarded_move(const Board& s, int chosen, VcOptions options) {
  if (s.terminal() || chosen == kSwapSquare) return chosen;
  Board f = s;
  fill_dead(f);
  if (f.terminal()) return chosen;  // every empty cell is dead: the winner is decided
  const int me = f.side, them = me ^ 1;
  const bool chosen_live = f.empty().has(chosen);
  const VcGraph mine(f, me, options);
  if (mine.edges_connected() || !mine.semi(VcGraph::kEdge0, VcGraph::kEdge1).empty()) {
    // Whether the position after m is still won: over once filled (dead and captured cells;
    // a reply into a captured pair is answered at the next move), or connected by H-search.
    auto keeps = [&](int m) {
      Board c = f.play(m);
      fill_inferior(c);
      return c.terminal() ? c.winner == me : VcGraph(c, me, options).edges_connected();
    };
    if (chosen_live && keeps(chosen)) return chosen;
    // A semi connection's key makes it full: playing it keeps the win by construction, whether
    // or not H-search proves the connection again afterwards. Any move keeps a full connection
    // (an extra stone never hurts in Hex). The guard still prefers a move that H-search proves
    // again, since the next move's guard sees only what H-search proves: the keys first, then the
    // carriers' other cells from the centre out.
    const std::vector<SemiVc>& semis = mine.semi(VcGraph::kEdge0, VcGraph::kEdge1);
    const int fallback = semis.empty() ? chosen : semis.front().key;
    Cells tried;
    int tries = 0;
    auto first_kept = [&](Cells cells) {
      for (int m : centre_out(cells.without(tried), f.n)) {
        if (tries++ >= kGuardTries) return -1;
        tried.set(m);
        if (keeps(m)) return m;
      }
      return -1;
    };
    Cells keys;
    for (const SemiVc& v : semis) {
      if (v.key < 0) fail("hex: a semi connection without its key");  // every AND through a cell sets one
      keys.set(v.key);
    }
    int m = first_kept(keys);
    for (const SemiVc& v : semis)
      if (m < 0) m = first_kept(v.carrier & f.empty());
    for (const Cells& carrier : mine.full(VcGraph::kEdge0, VcGraph::kEdge1))
      if (m < 0) m = first_kept(carrier & f.empty());
    return m >= 0 ? m : fallback;
  }
  const VcGraph theirs(f, them, options);
  if (theirs.edges_connected() || theirs.semi(VcGraph::kEdge0, VcGraph::kEdge1).empty()) return chosen;
  const Cells region = theirs.must_play() & f.empty();
  if (region.has(chosen) || !region.any()) return chosen;
  const std::vector<int> cells = centre_out(region, f.n);
  for (int k = 0; k < static_cast<int>(cells.size()) && k < kGuardTries; ++k) {
    const VcGraph after(f.play(cells[static_cast<std::size_t>(k)]), them, options);
    if (!after.edges_connected() && after.semi(VcGraph::kEdge0, VcGraph::kEdge1).empty())
      return cells[static_cast<std::size_t>(k)];
  }
  return cells.front();
}

}  // namespace ef::hex
