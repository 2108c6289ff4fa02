#include "games/hex/player_spec.hpp"
#include <fmt/core.h>
#include <algorithm>
#include <array>
#include <atomic>
#include <charconv>
#include <chrono>
#include <cmath>
#include <vector>
#include "core/parallel.hpp"
#include "evalforge/core/error.hpp"
#include "evalforge/games/hex/inferior.hpp"
#include "games/hex/vc.hpp"

namespace ef::play {

void HexAgent::validate() const {
  if (params.depth < 1 || params.depth > kHexMaxDepth)
    fail("hex agent '{}': depth {} is outside 1..{}", name, params.depth, kHexMaxDepth);
  if (params.epsilon_ppm > kEpsilonScale)
    fail("hex agent '{}': epsilon {} ppm is above 10^6", name, params.epsilon_ppm);
  const double g = params.betweenness.gamma;
  if (!std::isfinite(g) || g < 0 || g > 1e6) fail("hex agent '{}': gamma {} is outside 0..10^6", name, g);
  if (params.betweenness.sign != 1 && params.betweenness.sign != -1)
    fail("hex agent '{}': sign {} is neither 1 nor -1", name, params.betweenness.sign);
  if (params.betweenness.c_prime_sign != 1 && params.betweenness.c_prime_sign != -1)
    fail("hex agent '{}': cp_sign {} is neither 1 nor -1", name, params.betweenness.c_prime_sign);
}

namespace {

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  for (std::size_t start = 0;;) {
    const std::size_t k = s.find(sep, start);
    out.push_back(s.substr(start, k == std::string_view::npos ? std::string_view::npos : k - start));
    if (k == std::string_view::npos) return out;
    start = k + 1;
  }
}

double number(std::string_view spec, std::string_view key, std::string_view value) {
  double v = 0;
  const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
  if (ec != std::errc() || end != value.data() + value.size() || !std::isfinite(v))
    fail("hex player '{}': {}={} is not a number", spec, key, value);
  return v;
}

int integer(std::string_view spec, std::string_view key, std::string_view value, int lo, int hi) {
  const double v = number(spec, key, value);
  if (v != std::floor(v) || v < lo || v > hi)
    fail("hex player '{}': {}={} is not an integer in {}..{}", spec, key, value, lo, hi);
  return static_cast<int>(v);
}

}  // namespace

HexPlayer parse_hex_player(std::string_view spec) {
  // Far longer than any player spec; every message below echoes the spec, so a mistaken 100 kB
  // argument is refused here with a short excerpt instead of being echoed whole.
  constexpr std::size_t kMaxSpecBytes = 1024;
  if (spec.size() > kMaxSpecBytes)
    fail("hex player '{}...' is {} bytes, longer than any player spec (at most {})", printable(spec.substr(0, 40)),
         spec.size(), kMaxSpecBytes);
  const std::size_t colon = spec.find(':');
  const std::string_view kind = spec.substr(0, colon);
  std::vector<std::pair<std::string_view, std::string_view>> kv;
  if (colon != std::string_view::npos)
    for (std::string_view item : split(spec.substr(colon + 1), ',')) {
      const std::size_t eq = item.find('=');
      if (eq == std::string_view::npos || eq == 0) fail("hex player '{}': '{}' is not key=value", spec, item);
      for (const auto& [key, value] : kv)
        if (key == item.substr(0, eq))
          fail("hex player '{}': {} is given twice ({}={} and {}); give each key once", spec, key, key, value, item);
      kv.emplace_back(item.substr(0, eq), item.substr(eq + 1));
    }
  HexPlayer p;
  // vc=0|1, for every kind: VC-aware play (hex::vc_guarded_move) on top of the player's move.
  for (auto it = kv.begin(); it != kv.end();) {
    if (it->first != "vc") {
      ++it;
      continue;
    }
    p.vc = integer(spec, it->first, it->second, 0, 1) == 1;
    it = kv.erase(it);
  }
  HexParams& a = p.agent.params;
  auto unknown = [&](std::string_view key, const char* keys) {
    fail("hex player '{}': unknown key '{}' for {} (keys: {})", spec, key, kind, keys);
  };
  if (kind == "random") {
    a.kind = HexEvaluator::kRandom;
    for (auto [k, v] : kv) unknown(k, "vc");
    p.spec = "random";
  } else if (kind == "ev" || kind == "resistance") {
    const bool ev = kind == "ev";
    a.kind = ev ? HexEvaluator::kBetweenness : HexEvaluator::kResistance;
    double epsilon = 0;
    for (auto [k, v] : kv) {
      if (k == "depth")
        a.depth = integer(spec, k, v, 1, kHexMaxDepth);
      else if (k == "epsilon") {
        epsilon = number(spec, k, v);
        if (epsilon < 0 || epsilon > 1) fail("hex player '{}': epsilon={} is outside 0..1", spec, v);
      } else if (ev && k == "gamma")
        a.betweenness.gamma = number(spec, k, v);
      else if (ev && k == "bridges")
        a.betweenness.options.bridges = integer(spec, k, v, 0, 1) == 1;
      else if (ev && k == "edge_bridges")
        a.betweenness.options.edge_bridges = integer(spec, k, v, 0, 1) == 1;
      else if (ev && k == "groups")
        a.betweenness.options.groups = integer(spec, k, v, 0, 1) == 1;
      else if (ev && k == "cp_sign") {
        a.betweenness.c_prime_sign = integer(spec, k, v, -1, 1);
        if (a.betweenness.c_prime_sign == 0) fail("hex player '{}': cp_sign=0 (use 1 or -1)", spec);
      } else if (ev && k == "sign") {
        a.betweenness.sign = integer(spec, k, v, -1, 1);
        if (a.betweenness.sign == 0) fail("hex player '{}': sign=0 (use 1 or -1)", spec);
      } else
        unknown(k,
                ev ? "gamma, depth, bridges, edge_bridges, groups, sign, cp_sign, epsilon, vc" : "depth, epsilon, vc");
    }
    a.epsilon_ppm = static_cast<u32>(std::llround(epsilon * kEpsilonScale));
    p.spec = ev ? fmt::format("ev:gamma={},depth={},bridges={},edge_bridges={},groups={},sign={},cp_sign={},epsilon={}",
                              a.betweenness.gamma, a.depth, int(a.betweenness.options.bridges),
                              int(a.betweenness.options.edge_bridges), int(a.betweenness.options.groups),
                              a.betweenness.sign, a.betweenness.c_prime_sign, epsilon)
                : fmt::format("resistance:depth={},epsilon={}", a.depth, epsilon);
  } else if (kind == "uct") {
    p.kind = HexPlayer::Kind::kUct;
    UctParams& u = p.uct_params;
    for (auto [k, v] : kv) {
      if (k == "playouts")
        u.playouts = integer(spec, k, v, 1, 100000000);
      else if (k == "c")
        u.exploration = number(spec, k, v);
      else if (k == "expand")
        u.expand_after = integer(spec, k, v, 1, 1000000);
      else if (k == "batch")
        u.leaf_batch = integer(spec, k, v, 1, 65536);
      else if (k == "playout") {
        if (v != "random" && v != "bridge") fail("hex player '{}': playout={} (use random or bridge)", spec, v);
        u.bridge_replies = v == "bridge";
      } else if (k == "prune") {
        if (v != "none" && v != "vc") fail("hex player '{}': prune={} (use none or vc)", spec, v);
        p.vc_prune = v == "vc";
      } else
        unknown(k, "playouts, c, expand, batch, playout, prune, vc");
    }
    u.validate(fmt::format("hex player '{}'", spec));
    p.spec =
        fmt::format("uct:playouts={},c={},expand={},batch={}", u.playouts, u.exploration, u.expand_after, u.leaf_batch);
    // Absent when random, so that the specs of runs made before the key existed stay as they
    // were; random must therefore stay the default, or those runs would change what they play.
    if (u.bridge_replies) p.spec += ",playout=bridge";
    if (p.vc_prune) p.spec += ",prune=vc";  // likewise absent when off
  } else if (kind == "vcab") {
    p.kind = HexPlayer::Kind::kVcSearch;
    hex::VcSearchParams& w = p.vc_search;
    bool depth_given = false;
    for (auto [k, v] : kv) {
      if (k == "depth") {
        w.depth = integer(spec, k, v, 1, hex::kMaxVcDepth);
        depth_given = true;
      } else if (k == "width")
        w.width = integer(spec, k, v, 1, hex::kMaxSide * hex::kMaxSide);
      else if (k == "eval") {
        if (v != "resistance" && v != "ev" && v != "vc-resistance")
          fail("hex player '{}': eval={} (use resistance, ev or vc-resistance)", spec, v);
        w.leaf = v == "ev" ? hex::VcLeaf::kEv
                           : (v == "vc-resistance" ? hex::VcLeaf::kVcResistance : hex::VcLeaf::kResistance);
      } else if (k == "gamma") {
        w.ev.gamma = number(spec, k, v);
      } else if (k == "fill") {
        if (v != "dead" && v != "captured") fail("hex player '{}': fill={} (use dead or captured)", spec, v);
        w.fill_captured = v == "captured";
      } else if (k == "prune") {
        if (v != "none" && v != "dominated") fail("hex player '{}': prune={} (use none or dominated)", spec, v);
        w.prune_dominated = v == "dominated";
      } else if (k == "time") {
        w.move_seconds = number(spec, k, v);
      } else {
        unknown(k, "depth, width, eval, gamma, fill, prune, time");
      }
    }
    if (w.leaf != hex::VcLeaf::kEv && w.ev.gamma != 0) fail("hex player '{}': gamma needs eval=ev", spec);
    if (w.move_seconds > 0 && !depth_given) w.depth = hex::kMaxVcDepth;  // with a clock, the clock decides
    w.validate(fmt::format("hex player '{}'", spec));
    p.spec = fmt::format(
        "vcab:depth={},width={},eval={}", w.depth, w.width,
        w.leaf == hex::VcLeaf::kEv ? "ev" : (w.leaf == hex::VcLeaf::kVcResistance ? "vc-resistance" : "resistance"));
    if (w.leaf == hex::VcLeaf::kEv) p.spec += fmt::format(",gamma={}", w.ev.gamma);
    if (w.fill_captured) p.spec += ",fill=captured";      // absent when dead, as in runs made before the key
    if (w.prune_dominated) p.spec += ",prune=dominated";  // likewise absent when none
    if (w.move_seconds > 0) p.spec += fmt::format(",time={}", w.move_seconds);  // absent: no clock
  } else {
    fail("hex player '{}': unknown kind '{}' (random, ev, resistance, uct, vcab)", spec, kind);
  }
  if (p.vc) p.spec += p.spec.find(':') == std::string::npos ? ":vc=1" : ",vc=1";  // absent when off: older specs stay
  p.agent.name = p.spec;
  if (p.kind == HexPlayer::Kind::kAgent) p.agent.validate();
  return p;
}

int parse_hex_cell(std::string_view text, int n) {
  if (text == "swap" || text == "swap-pieces") return hex::kSwapSquare;
  if (text.size() < 2 || text.size() > 3) return -1;
  char c = text[0];
  if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  const int col = c - 'a';
  int row = 0;
  for (char d : text.substr(1)) {
    if (d < '0' || d > '9') return -1;
    row = 10 * row + (d - '0');
  }
  if (text[1] == '0' || col < 0 || col >= n || row < 1 || row > n) return -1;
  return hex::square_of(col, row - 1);
}

std::string hex_cell_name(int square) {
  if (square == hex::kSwapSquare) return "swap";
  return fmt::format("{}{}", static_cast<char>('a' + hex::col_of(square)), hex::row_of(square) + 1);
}

std::string hex_move_list(const HexRecord& r) {
  std::string s;
  for (int k = 0; k < r.plies; ++k) {
    if (k) s += ' ';
    s += hex_cell_name(r.moves[k]);
  }
  return s;
}

MemoryPart hex_tree_memory(const std::vector<const HexPlayer*>& players, int n, int threads) {
  double tree = 0;
  for (const HexPlayer* p : players)
    if (p->kind == HexPlayer::Kind::kUct) tree = std::max(tree, Uct::tree_bytes(p->uct_params, n * n));
  return {fmt::format("UCT trees ({} threads x {})", threads, format_bytes(tree)), threads * tree};
}

HexTable::HexTable() = default;
HexTable::~HexTable() = default;

int HexTable::choose(const HexPlayer& player, const hex::Board& s, Rng& rng, u64& nodes) {
  const int move = choose_own(player, s, rng, nodes);
  return player.vc ? hex::vc_guarded_move(s, move) : move;
}

int HexTable::choose_own(const HexPlayer& player, const hex::Board& s, Rng& rng, u64& nodes) {
  if (player.kind == HexPlayer::Kind::kAgent)
    return player.agent.params.choose(s, rng, nodes, PlayScratchOf<games::Hex>{});
  if (player.kind == HexPlayer::Kind::kVcSearch) {
    const hex::VcSearchResult r = hex::VcAlphaBeta(player.vc_search).choose(s);
    nodes += r.nodes;
    return r.move;
  }
  const int explored = exploration_move(s.moves(), false, 0, rng);
  if (explored != kSearchMove) return explored;
  const u64 seed = rng.next_u64();
  const UctParams& u = player.uct_params;
  if (!uct_ || u.playouts != uct_params_.playouts || u.exploration != uct_params_.exploration ||
      u.expand_after != uct_params_.expand_after || u.leaf_batch != uct_params_.leaf_batch ||
      u.bridge_replies != uct_params_.bridge_replies) {
    uct_ = std::make_unique<Uct>(u, playouts_);
    uct_params_ = u;
  }
  if (player.vc_prune) {
    hex::Board f = s;
    hex::fill_dead(f);
    if (!f.terminal()) {
      const hex::VcVerdict v = hex::vc_verdict(f);
      if (v.proven > 0) return hex::vc_guarded_move(s, f.empty().lowest());
      if (v.proven == 0) {
        hex::Cells root = v.moves;
        if (s.swap_available()) root.set(hex::kSwapSquare);  // the connections say nothing about it
        return uct_->choose(s, seed, nodes, &root);
      }
    }
  }
  return uct_->choose(s, seed, nodes);
}

HexRecord HexTable::play(const HexPlayer& black, const HexPlayer& white, const hex::Board& start, u64 seed, u32 game) {
  // A player of play_game's interface that routes each move to its HexPlayer through this table,
  // timing it on the colour's clock.
  struct Seat {
    HexTable* table;
    const HexPlayer* player;
    int choose(const hex::Board& s, Rng& rng, u64& nodes, const PlayScratchOf<games::Hex>&) const {
      const auto t0 = std::chrono::steady_clock::now();
      const int move = table->choose(*player, s, rng, nodes);
      HexClock& c = table->clock_[s.side];
      c.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      ++c.moves;
      return move;
    }
  };
  clock_[0] = clock_[1] = HexClock{};
  // play_game takes one player type for both sides; each seat carries its player.
  struct Either {
    Seat seat[2];
    int choose(const hex::Board& s, Rng& rng, u64& nodes, const PlayScratchOf<games::Hex>& scratch) const {
      return seat[s.side].choose(s, rng, nodes, scratch);
    }
  };
  const Either both{{Seat{this, &black}, Seat{this, &white}}};
  HexRecord r;
  play_game<games::Hex>(both, both, start, seed, game, r, PlayScratchOf<games::Hex>{});
  return r;
}

hex::Board hex_random_opening(const hex::Board& start, int plies, u64 seed, u32 index) {
  Rng rng(seed, Purpose::kOpening, index);
  hex::Board b = start;
  for (int k = 0; k < plies && !b.terminal(); ++k) {
    const hex::Cells cells = b.empty();
    const hex::Board next = b.play(cells.nth(rng.below(static_cast<u32>(cells.count()))));
    if (next.terminal()) break;
    b = next;
  }
  return b;
}

std::vector<ratings::GameResult> hex_round_robin(std::span<const HexPlayer> players, int games, const hex::Board& start,
                                                 u64 seed, int threads, int opening_plies,
                                                 std::vector<HexClock>* clocks) {
  const int n = static_cast<int>(players.size());
  if (n > 64) fail("hex round robin: {} players (at most 64)", n);
  if (opening_plies < 0) fail("hex round robin: {} opening plies", opening_plies);
  if (opening_plies > 0 && games % 2)
    fail("hex round robin: {} games a pair is odd; with random openings each is played once with each colour", games);
  struct Unit {
    int i, j, k;
  };
  std::vector<Unit> units;
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j)
      for (int k = 0; k < games; ++k) units.push_back({i, j, k});
  std::vector<ratings::GameResult> results(units.size());
  std::vector<std::array<HexClock, 2>> unit_clocks(units.size());  // [Black, White] of each game
  std::atomic<std::size_t> next{0};
  run_parallel(std::min<int>(resolve_threads(threads), static_cast<int>(units.size())), [&] {
    HexTable table;
    for (std::size_t u; (u = next.fetch_add(1)) < units.size();) {
      const Unit& x = units[u];
      const int black = x.k % 2 == 0 ? x.i : x.j, white = x.k % 2 == 0 ? x.j : x.i;
      const u32 game = static_cast<u32>(x.i) << 20 | static_cast<u32>(x.j) << 10 | static_cast<u32>(x.k);
      const hex::Board from =
          opening_plies > 0 ? hex_random_opening(start, opening_plies, seed, static_cast<u32>(x.k / 2)) : start;
      const HexRecord r = table.play(players[black], players[white], from, seed, game);
      results[u] = {black, white, r.black_score > 0 ? 1.0 : 0.0};
      unit_clocks[u] = {table.clock(hex::kBlack), table.clock(hex::kWhite)};
    }
  });
  if (clocks) {
    clocks->assign(static_cast<std::size_t>(n), HexClock{});
    for (std::size_t u = 0; u < units.size(); ++u) {
      (*clocks)[static_cast<std::size_t>(results[u].first)].add(unit_clocks[u][0]);
      (*clocks)[static_cast<std::size_t>(results[u].second)].add(unit_clocks[u][1]);
    }
  }
  return results;
}

}  // namespace ef::play
