#include "games/hex/vc_search.hpp"
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include "evalforge/core/error.hpp"
#include "evalforge/games/hex/inferior.hpp"

namespace ef::hex {

namespace {

constexpr i32 kBound = kVcWin + 1;  // outside every value: the full window

// A win `ply` plies below the root; the loser's value is its negation.
i32 won_at(int ply) { return kVcWin - ply; }
bool is_proven(i32 v) { return v > kClamp || v < -kClamp; }
// The value of a node whose moves were cut to the width: every searched move losing proves
// nothing about the others, so a loss becomes the lowest evaluation instead. (A monotone map of
// the searched value, so alpha-beta's bounds stay bounds.)
i32 unproven_loss(i32 v) { return v < -kClamp ? -kClamp : v; }
int proven_sign(i32 v) { return v > kClamp ? 1 : (v < -kClamp ? -1 : 0); }

}  // namespace

void VcSearchParams::validate(const std::string& who) const {
  if (depth < 1 || depth > kMaxVcDepth) fail("{}: depth {} is outside 1..{}", who, depth, kMaxVcDepth);
  if (width < 1 || width > kMaxSide * kMaxSide) fail("{}: width {} is outside 1..{}", who, width, kMaxSide * kMaxSide);
  if (!std::isfinite(ev.gamma) || ev.gamma < 0 || ev.gamma > 1e6)
    fail("{}: gamma {} is outside 0..10^6", who, ev.gamma);
  if (vc.max_full < 1 || vc.max_semi < 1) fail("{}: connection lists need room for one carrier", who);
  if (!std::isfinite(move_seconds) || move_seconds < 0 || move_seconds > 3600)
    fail("{}: time {} is outside 0..3600 seconds", who, move_seconds);
}

bool VcAlphaBeta::out_of_time() {
  if (params_.move_seconds > 0 && !aborted_ && std::chrono::steady_clock::now() >= deadline_) aborted_ = true;
  return aborted_;
}

VcAlphaBeta::VcAlphaBeta(VcSearchParams params) : params_(params) {}

void VcAlphaBeta::fill(Board& b) const {
  if (params_.fill_captured)
    fill_inferior(b);
  else
    fill_dead(b);
}

const VcAlphaBeta::Verdict& VcAlphaBeta::verdict(const Board& f) {
  const PositionKey key = PositionKey::of(f);
  if (const auto it = verdicts_.find(key); it != verdicts_.end()) return it->second;
  const VcVerdict v = vc_verdict(f, params_.vc, params_.leaf == VcLeaf::kVcResistance);
  searches_ += static_cast<u64>(v.searches);
  Verdict kept{v.proven, params_.prune_dominated && v.proven == 0 ? undominated_moves(f, v.moves) : v.moves, {}};
  for (int colour : {kBlack, kWhite}) kept.links[colour] = circuit_links(v.links[colour], f.n);
  // unordered_map keeps references to its elements valid across later insertions.
  return verdicts_.emplace(key, std::move(kept)).first->second;
}

i32 VcAlphaBeta::leaf(const Board& b) const {
  return params_.leaf == VcLeaf::kEv ? params_.ev.eval(b) : ResistanceEvaluator{}.eval(b);
}

std::vector<CircuitLink> circuit_links(const std::vector<VcLink>& links, int n) {
  auto index = [n](int sq) { return row_of(sq) * n + col_of(sq); };
  std::vector<CircuitLink> out;
  out.reserve(links.size());
  for (const VcLink& l : links) {
    CircuitLink c;
    c.breaks = l.common | l.a | l.b;
    if (l.edge) {
      c.resistor = {l.b.lowest(), l.edge == VcGraph::kEdge0 ? kLinkEdge0 : kLinkEdge1};
      out.push_back(c);
      continue;
    }
    int width = kSquares;
    for (Cells a = l.a; a.any(); a.drop_lowest())
      for (Cells b = l.b; b.any(); b.drop_lowest()) {
        const int w = std::abs(index(a.lowest()) - index(b.lowest()));
        if (w < width) {
          width = w;
          c.resistor = {a.lowest(), b.lowest()};
        }
      }
    if (width <= kMaxLinkWidth) out.push_back(c);
  }
  return out;
}

std::vector<ResistorLink> child_resistors(const std::vector<CircuitLink>& links, int colour, int mover, int sq) {
  std::vector<ResistorLink> out;
  out.reserve(links.size());
  for (const CircuitLink& l : links)
    if (colour == mover || !l.breaks.has(sq)) out.push_back(l.resistor);
  return out;
}

i32 VcAlphaBeta::linked_leaf(const Board& child, const Verdict& v, int sq) const {
  const int mover = child.side ^ 1;
  double r[2];
  for (int colour : {kBlack, kWhite}) {
    const std::vector<ResistorLink> links = child_resistors(v.links[colour], colour, mover, sq);
    r[colour] = effective_resistance(child, colour, ResistanceEvaluator{}.own_resistance, links.data(),
                                     static_cast<int>(links.size()));
  }
  return resistance_value(r[child.side], r[child.side ^ 1]);
}

std::vector<VcAlphaBeta::Scored> VcAlphaBeta::ordered(const Board& f, const Verdict& v, const Cells& moves, int ply) {
  // An open node has its connections (vc_verdict keeps them for kVcResistance); a proven root's
  // moves are ordered by plain resistance.
  const bool linked = params_.leaf == VcLeaf::kVcResistance && !v.proven;
  std::vector<Scored> out;
  for (Cells m = moves; m.any(); m.drop_lowest()) {
    const int sq = m.lowest();
    const Board child = f.play(sq);
    ++nodes_;
    out.push_back({sq, child.terminal() ? won_at(ply + 1) : -(linked ? linked_leaf(child, v, sq) : leaf(child))});
  }
  // Stable: equal values keep the square order.
  std::stable_sort(out.begin(), out.end(), [](const Scored& a, const Scored& b) { return a.value > b.value; });
  return out;
}

i32 VcAlphaBeta::search(const Board& b, int depth, i32 alpha, i32 beta, int ply) {
  if (out_of_time()) return 0;  // the pass is thrown away
  ++nodes_;
  if (b.terminal()) return -won_at(ply);  // the opponent's last move connected
  Board f = b;
  fill(f);
  // Only dead cells were left, or the connections decide: a proof, one ply later than a win on
  // the board.
  if (f.terminal()) return f.winner == f.side ? won_at(ply + 1) : -won_at(ply + 1);
  const Verdict& v = verdict(f);
  if (v.proven) return v.proven > 0 ? won_at(ply + 1) : -won_at(ply + 1);
  const std::vector<Scored> moves = ordered(f, v, v.moves, ply);
  if (depth == 1) return moves.front().value;
  i32 best = -kBound;
  const std::size_t width = std::min(moves.size(), static_cast<std::size_t>(params_.width));
  // Stop at a cutoff, or at a win on the board (no value is higher).
  for (std::size_t k = 0; k < width && best < beta && best < won_at(ply + 1); ++k) {
    const Scored& m = moves[k];
    // A child that ends the game was scored exactly by ordered().
    const i32 value = m.value == won_at(ply + 1)
                          ? m.value
                          : -search(f.play(m.move), depth - 1, -beta, -std::max(alpha, best), ply + 1);
    best = std::max(best, value);
  }
  return width < moves.size() ? unproven_loss(best) : best;
}

VcSearchResult VcAlphaBeta::choose(const Board& s) {
  if (s.terminal()) fail("hex VC alpha-beta: the game is over");
  nodes_ = searches_ = 0;
  verdicts_.clear();
  const auto start = std::chrono::steady_clock::now();
  const auto budget = std::chrono::duration<double>(params_.move_seconds);
  deadline_ = start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(budget);
  aborted_ = false;
  VcSearchResult r;
  r.depth = 1;
  Board f = s;
  fill(f);
  if (f.terminal()) {
    // Every empty cell is dead (or captured): the winner is decided, and any move keeps it so
    // (an extra stone never hurts). Keeping it later means answering an intrusion into a
    // captured pair with the pair's other cell, a move the search sees win one ply down.
    r.move = s.empty().lowest();
    r.value = f.winner == f.side ? won_at(1) : -won_at(1);
    r.proven = proven_sign(r.value);
    r.nodes = 1;  // the root, examined
    return r;
  }
  const Verdict& v = verdict(f);
  // A proven node still gets a move: the best by the evaluation among every empty cell.
  std::vector<Scored> order = ordered(f, v, v.proven ? f.empty() : v.moves, 0);
  r.move = order.front().move;
  r.value = order.front().value;
  if (v.proven > 0) {
    r.move = vc_guarded_move(s, r.move, params_.vc);  // a move after which the connection is full
    r.value = won_at(1);
  } else if (v.proven < 0) {
    r.value = -won_at(1);
  } else if (params_.depth >= 2 && !is_proven(r.value)) {
    const bool cut = order.size() > static_cast<std::size_t>(params_.width);
    order.resize(std::min(order.size(), static_cast<std::size_t>(params_.width)));
    std::vector<Scored> pass;
    for (int d = 2; d <= params_.depth; ++d) {
      // With a clock, a pass starts only while less than half the time is gone.
      if (params_.move_seconds > 0 && d > 2 && std::chrono::steady_clock::now() - start > budget / 2) break;
      pass = order;
      i32 alpha = -kBound;
      int best = pass.front().move;
      for (Scored& m : pass) {
        m.value = -search(f.play(m.move), d - 1, -kBound, -alpha, 1);
        if (aborted_) break;
        if (m.value > alpha) {
          alpha = m.value;
          best = m.move;
        }
      }
      if (aborted_) break;  // the last finished pass decides
      r.move = best;
      r.value = cut ? unproven_loss(alpha) : alpha;
      r.depth = d;
      if (is_proven(r.value)) break;  // won or lost whatever the depth
      // The next pass searches this pass's best first (the others' values are upper bounds).
      std::stable_sort(pass.begin(), pass.end(), [](const Scored& a, const Scored& b) { return a.value > b.value; });
      order = pass;
    }
  }
  r.proven = proven_sign(r.value);
  r.nodes = nodes_;
  r.searches = searches_;
  return r;
}

}  // namespace ef::hex
