#include "games/hex/uct.hpp"
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include "evalforge/core/error.hpp"
#include "evalforge/games/hex/players.hpp"

namespace ef::play {

void UctParams::validate(const std::string& who) const {
  if (playouts < 1 || playouts > 100000000) fail("{}: playouts {} is outside 1..10^8", who, playouts);
  if (!std::isfinite(exploration) || exploration < 0 || exploration > 100)
    fail("{}: exploration {} is outside 0..100", who, exploration);
  if (expand_after < 1 || expand_after > 1000000) fail("{}: expand_after {} is outside 1..10^6", who, expand_after);
  if (leaf_batch < 1 || leaf_batch > 65536) fail("{}: leaf_batch {} is outside 1..65536", who, leaf_batch);
}

namespace {
const HexParams kRandomParams = hex_random_agent().params;
const HexParams kBridgeRandomParams = hex_bridge_random_agent().params;

signed char winner_of(const HexRecord& r) {
  return static_cast<signed char>(r.black_score > 0 ? hex::kBlack : hex::kWhite);
}
}  // namespace

void InlinePlayouts::run(std::span<const hex::Board> starts, u64 seed, u32 first_game, std::span<signed char> winners,
                         bool bridge_replies) {
  const HexParams& policy = bridge_replies ? kBridgeRandomParams : kRandomParams;
  HexRecord record;
  for (std::size_t i = 0; i < starts.size(); ++i) {
    play_game<games::Hex>(policy, policy, starts[i], seed, first_game + static_cast<u32>(i), record, {});
    winners[i] = winner_of(record);
  }
}

BackendPlayouts::BackendPlayouts(PlayBackend<games::Hex>& backend)
    : backend_(backend), random_(backend.add_agent(hex_random_agent())) {}

void BackendPlayouts::run(std::span<const hex::Board> starts, u64 seed, u32 first_game, std::span<signed char> winners,
                          bool bridge_replies) {
  if (bridge_replies && bridge_random_ < 0) bridge_random_ = backend_.add_agent(hex_bridge_random_agent());
  const int policy = bridge_replies ? bridge_random_ : random_;
  jobs_.resize(starts.size());
  records_.resize(starts.size());
  for (std::size_t i = 0; i < starts.size(); ++i) {
    GameJobOf<games::Hex>& j = jobs_[i];
    j.black = j.white = policy;
    j.start = starts[i];
    j.seed = seed;
    j.game = first_game + static_cast<u32>(i);
  }
  backend_.play(std::span<const GameJobOf<games::Hex>>(jobs_), std::span<HexRecord>(records_));
  for (std::size_t i = 0; i < starts.size(); ++i) winners[i] = winner_of(records_[i]);
}

Uct::Uct(const UctParams& params, HexPlayouts& playouts) : params_(params), playouts_(playouts) {
  params_.validate("uct");
}

int Uct::select_child(const Node& n) const {
  const double log_n = std::log(static_cast<double>(n.visits + n.pending));
  int best = n.first_child;
  double best_value = -1;
  for (int c = n.first_child; c < n.first_child + n.children; ++c) {
    const Node& k = nodes_[c];
    const int visits = k.visits + k.pending;  // a pending playout counts as a lost visit
    if (visits == 0) return c;                // unvisited first, lowest square first
    const double value = k.wins / visits + params_.exploration * std::sqrt(2 * log_n / visits);
    if (value > best_value) {
      best_value = value;
      best = c;
    }
  }
  return best;
}

double Uct::tree_bytes(const UctParams& params, int cells) {
  const double expansions = std::ceil(static_cast<double>(params.playouts) / std::max(1, params.expand_after));
  const double nodes = std::min(1 + expansions * cells, static_cast<double>(std::numeric_limits<int>::max()));
  return nodes * sizeof(Node);
}

void Uct::expand(int node, const hex::Board& s, const hex::Cells& moves) {
  // Node numbers are ints: refuse a tree that would outgrow them (~10^7 playouts on 13x13).
  if (nodes_.size() + games::Hex::kMaxMoves > static_cast<std::size_t>(std::numeric_limits<int>::max()))
    fail("uct: the search tree outgrew {} nodes; use fewer playouts per move", nodes_.size());
  const int first = static_cast<int>(nodes_.size());
  int count = 0;
  for (hex::Cells m = moves; m.any(); m.drop_lowest()) {
    Node child;
    child.parent = node;
    child.move = static_cast<short>(m.lowest());
    child.mover = static_cast<signed char>(s.side);
    nodes_.push_back(child);
    ++count;
  }
  nodes_[node].first_child = first;
  nodes_[node].children = static_cast<short>(count);
}

void Uct::backup(int leaf, int winner) {
  for (int n = leaf; n >= 0; n = nodes_[n].parent) {
    Node& k = nodes_[n];
    ++k.visits;
    if (k.mover == winner) k.wins += 1;
  }
}

int Uct::choose(const hex::Board& root, u64 seed, u64& playouts, const hex::Cells* root_moves) {
  if (root.terminal()) fail("uct: the game is over");
  nodes_.clear();
  nodes_.push_back(Node{});
  const hex::Cells restricted = root_moves ? *root_moves & root.moves() : hex::Cells{};
  expand(0, root, restricted.any() ? restricted : root.moves());
  std::vector<int> leaves;
  std::vector<hex::Board> starts;
  std::vector<signed char> winners;
  u32 next_game = 0;
  for (int done = 0; done < params_.playouts;) {
    const int batch = std::min(params_.leaf_batch, params_.playouts - done);
    leaves.clear();
    starts.clear();
    for (int b = 0; b < batch; ++b) {
      int n = 0;
      hex::Board s = root;
      for (;;) {
        Node& k = nodes_[n];
        if (k.winner >= 0) break;
        if (k.children == 0) {
          if (n != 0 && k.visits + k.pending < params_.expand_after) break;
          expand(n, s, s.moves());
          // (expand may have moved nodes_: no reference into it survives this point)
        }
        n = select_child(nodes_[n]);
        s = s.play(nodes_[n].move);
        if (s.terminal()) {
          nodes_[n].winner = s.winner;
          break;
        }
      }
      for (int p = n; p >= 0; p = nodes_[p].parent) ++nodes_[p].pending;
      leaves.push_back(n);
      starts.push_back(s);
    }
    // Leaves whose game is over need no playout; the others run as one batch.
    std::vector<hex::Board> open;
    std::vector<int> open_index;
    for (int b = 0; b < batch; ++b)
      if (nodes_[leaves[b]].winner < 0) {
        open.push_back(starts[b]);
        open_index.push_back(b);
      }
    winners.assign(open.size(), hex::kNobody);
    if (!open.empty()) playouts_.run(open, seed, next_game, winners, params_.bridge_replies);
    next_game += static_cast<u32>(open.size());
    playouts += open.size();
    std::vector<int> result(batch);
    for (int b = 0; b < batch; ++b) result[b] = nodes_[leaves[b]].winner;
    for (std::size_t i = 0; i < open.size(); ++i) result[open_index[i]] = winners[i];
    for (int b = 0; b < batch; ++b) {
      for (int p = leaves[b]; p >= 0; p = nodes_[p].parent) --nodes_[p].pending;
      backup(leaves[b], result[b]);
    }
    done += batch;
  }
  const Node& r = nodes_[0];
  int best = r.first_child;
  for (int c = r.first_child; c < r.first_child + r.children; ++c)
    if (nodes_[c].visits > nodes_[best].visits) best = c;
  return nodes_[best].move;
}

std::vector<std::pair<int, int>> Uct::root_visits() const {
  std::vector<std::pair<int, int>> out;
  if (nodes_.empty()) return out;
  const Node& r = nodes_[0];
  for (int c = r.first_child; c < r.first_child + r.children; ++c) out.emplace_back(nodes_[c].move, nodes_[c].visits);
  return out;
}

}  // namespace ef::play
