#include "games/hex/solver.hpp"
#include <algorithm>
#include "evalforge/core/error.hpp"
#include "evalforge/games/hex/inferior.hpp"
#include "games/hex/vc.hpp"

namespace ef::hex {

namespace {

// "Infinite" proof and disproof numbers: a proven position has pn 0 and dn kInfinite (or the
// other way round). Sums saturate there; far above any count of positions this solver stores.
constexpr u64 kInfinite = u64{1} << 48;

u64 saturating_add(u64 a, u64 b) { return std::min(a + b, kInfinite); }

static_assert(kSquares <= 256, "a move fits the table's unsigned char");

}  // namespace

std::vector<unsigned char> HexSolver::ordered_moves(const Board& f, const Cells& moves) const {
  // From the centre out. (Ordering by the resistance of each child, tried, made 5 x 5 and 6 x 6
  // positions cost more nodes: 832 and 17,318 against 597 and 15,810.)
  std::vector<unsigned char> out;
  for (const int m : centre_out(moves, f.n)) out.push_back(static_cast<unsigned char>(m));
  return out;
}

bool HexSolver::wins(const Board& b) {
  if (b.swap_rule) fail("hex solve: positions with the swap rule are not supported");
  if (!options_.proof_numbers) return search(b);
  Board f = b;
  fill(f);  // search_pn takes filled positions, as its children come
  search_pn(f, kInfinite, kInfinite);
  return pn_table_.at(PositionKey::of(f)).numbers.pn == 0;
}

void HexSolver::count_node() {
  ++nodes_;
  if (options_.max_nodes && nodes_ > options_.max_nodes)
    fail("hex solve: gave up after {} nodes (the limit); a smaller board or a later position solves",
         options_.max_nodes);
}

void HexSolver::fill(Board& b) const {
  if (!options_.fill_dead) return;
  if (options_.fill_captured)
    fill_inferior(b);
  else
    fill_dead(b);
}

HexSolver::Verdict HexSolver::examine(const Board& filled) const {
  Verdict v;
  if (filled.terminal()) {
    v.decided = true;
    v.win = filled.winner == filled.side;
    return v;
  }
  v.moves = filled.empty();
  if (options_.use_vcs) {
    const VcVerdict connections = vc_verdict(filled);
    v.decided = connections.proven != 0;
    v.win = connections.proven > 0;
    v.moves = connections.moves;
  }
  if (!v.decided && options_.prune_dominated) v.moves = undominated_moves(filled, v.moves);
  return v;
}

bool HexSolver::search(Board b) {
  count_node();
  fill(b);
  if (b.terminal()) return b.winner == b.side;
  const PositionKey key = PositionKey::of(b);
  if (const auto it = table_.find(key); it != table_.end()) return it->second;
  const Verdict v = examine(b);
  bool win = v.win;
  if (!v.decided)
    for (const int m : centre_out(v.moves, b.n))
      if ((win = !search(b.play(m)))) break;
  table_.emplace(key, win);
  return win;
}

// df-pn's multiple iterative deepening at one node, in negamax form: the side to move wins when
// one child is a loss for its side to move, so this node's proof number is the least disproof
// number of its children and its disproof number the sum of their proof numbers. It searches
// under the child with the least disproof number until this node's numbers reach the
// thresholds (then the caller has a cheaper subtree elsewhere) or it is proven either way.
void HexSolver::search_pn(const Board& f, u64 proof_threshold, u64 disproof_threshold) {
  count_node();
  // Keyed by the filled position: two move orders that reach one position fill it alike, even
  // where their parents' fillings differed (1.4% fewer nodes on the 6 x 6 table than keys of
  // the unfilled boards).
  const PositionKey key = PositionKey::of(f);
  auto it = pn_table_.find(key);
  if (it == pn_table_.end()) {
    PnEntry e;
    const Verdict v = examine(f);
    if (v.decided) {
      e.numbers = v.win ? Numbers{0, kInfinite} : Numbers{kInfinite, 0};
    } else {
      e.moves = ordered_moves(f, v.moves);
      e.numbers = {1, static_cast<u64>(v.moves.count())};  // one leaf to prove, one per move to refute
    }
    it = pn_table_.emplace(key, e).first;
  }
  PnEntry& entry = it->second;  // stays valid: the map never erases
  if (entry.numbers.pn == 0 || entry.numbers.dn == 0) return;

  const std::vector<unsigned char>& moves = entry.moves;
  std::vector<Board> children;
  std::vector<PositionKey> keys;
  children.reserve(moves.size());
  keys.reserve(moves.size());
  for (const int m : moves) {
    children.push_back(f.play(m));
    fill(children.back());
    keys.push_back(PositionKey::of(children.back()));
  }
  auto numbers_of = [&](std::size_t k) -> Numbers {
    // A child over once filled is decided either way (the move connected, or the filling did).
    const Board& c = children[k];
    if (c.terminal()) return c.winner == c.side ? Numbers{0, kInfinite} : Numbers{kInfinite, 0};
    const auto found = pn_table_.find(keys[k]);
    return found == pn_table_.end() ? Numbers{} : found->second.numbers;
  };
  while (true) {
    u64 pn = kInfinite, dn = 0, second_dn = kInfinite;
    std::size_t best = 0;
    Numbers best_numbers;
    for (std::size_t k = 0; k < children.size(); ++k) {
      const Numbers c = numbers_of(k);
      dn = saturating_add(dn, c.pn);
      if (c.dn < pn) {
        second_dn = pn;
        pn = c.dn;
        best = k;
        best_numbers = c;
      } else if (c.dn < second_dn) {
        second_dn = c.dn;
      }
    }
    entry.numbers = {pn, dn};
    if (pn == 0 || dn == 0) std::vector<unsigned char>().swap(entry.moves);  // proven: never searched again
    if (pn >= proof_threshold || dn >= disproof_threshold) return;
    // The best child's thresholds: its disproof number may grow until another child is cheaper
    // (or this node's proof threshold is reached), its proof number until this node's
    // disproof threshold is.
    search_pn(children[best], saturating_add(disproof_threshold - dn, best_numbers.pn),
              std::min(proof_threshold, saturating_add(second_dn, 1)));
  }
}

OpeningTable solve_openings(int n, HexSolverOptions options,
                            const std::function<void(int square, bool black_wins)>& progress) {
  if (n < 1 || n > kMaxSide) fail_input("size", "{} is outside 1..{}", n, kMaxSide);
  OpeningTable t;
  t.n = n;
  HexSolver solver(options);
  const Board start = empty_board(n);
  for (Cells c = start.empty(); c.any(); c.drop_lowest()) {
    t.squares.push_back(c.lowest());
    t.black_wins.push_back(!solver.wins(start.play(c.lowest())));
    if (progress) progress(c.lowest(), t.black_wins.back());
  }
  t.nodes = solver.nodes();
  t.positions = solver.table_size();
  return t;
}

}  // namespace ef::hex
