#include "games/tictactoe/perfect_play.hpp"
#include <fmt/core.h>
#include <algorithm>
#include <atomic>
#include <cmath>
#include <functional>
#include <limits>
#include "core/parallel.hpp"
#include "evalforge/core/error.hpp"
#include "evalforge/ga/bitstring_ga.hpp"

namespace ef::tictactoe {

namespace {

constexpr int kPow3[10] = {1, 3, 9, 27, 81, 243, 729, 2187, 6561, 19683};
constexpr signed char kUnknown = 2;  // a memo slot not yet computed (results are -1..1)

// A finished game's result for `colour`.
Result result_for(const Board& b, int colour) {
  const int s = b.score_for_x();
  return static_cast<Result>(colour == kX ? s : -s);
}

}  // namespace

int position_index(const Board& b) {
  int index = 0;
  for (int sq = 0; sq < 9; ++sq) index += ((b.x >> sq & 1) ? 1 : ((b.o >> sq & 1) ? 2 : 0)) * kPow3[sq];
  return index;
}

int side_from_counts(const Board& b) { return popcount64(b.x) == popcount64(b.o) ? kX : kO; }

std::string describe(const Board& b) {
  std::string s;
  for (int sq = 0; sq < 9; ++sq) {
    if (sq && sq % 3 == 0) s += '/';
    s += (b.x >> sq & 1) ? ((b.o >> sq & 1) ? '?' : 'x') : ((b.o >> sq & 1) ? 'o' : '.');
  }
  return s + (b.side == kX ? ", X to move" : ", O to move");
}

const char* result_name(Result r) {
  switch (r) {
    case Result::kLoss: return "loss";
    case Result::kDraw: return "draw";
    case Result::kWin: return "win";
  }
  return "?";
}

PerfectPlay::PerfectPlay()
    : value_(kPositionSlots, 0),
      optimal_(kPositionSlots, 0),
      reachable_(kPositionSlots, 0),
      nontrivial_flag_(kPositionSlots, 0) {
  // Breadth first from the empty board: every position with k marks before any with k + 1, so
  // the list read backwards visits every child before its parents.
  positions_.push_back(Board{});
  reachable_[0] = 1;
  for (std::size_t i = 0; i < positions_.size(); ++i) {
    const Board b = positions_[i];
    for (u32 m = b.moves(); m; m &= m - 1) {
      const Board c = b.play(ctz64(m));
      const int slot = position_index(c);
      if (!reachable_[slot]) {
        reachable_[slot] = 1;
        positions_.push_back(c);
      }
    }
  }
  // Within one number of marks, by position_index (the breadth-first order is already by count).
  std::stable_sort(positions_.begin(), positions_.end(), [](const Board& a, const Board& b) {
    const int ca = popcount64(a.x | a.o), cb = popcount64(b.x | b.o);
    return ca != cb ? ca < cb : position_index(a) < position_index(b);
  });
  // Negamax from the leaves up, and the number of games through each position.
  std::vector<u64> games(kPositionSlots, 0), x_wins(kPositionSlots, 0), o_wins(kPositionSlots, 0);
  for (auto it = positions_.rbegin(); it != positions_.rend(); ++it) {
    const Board b = *it;
    const int slot = position_index(b);
    if (b.terminal()) {
      value_[slot] = static_cast<signed char>(b.score());
      games[slot] = 1;
      x_wins[slot] = b.winner() == kX;
      o_wins[slot] = b.winner() == kO;
      continue;
    }
    int best = -2, worst = 2;
    for (u32 m = b.moves(); m; m &= m - 1) {
      const int child = position_index(b.play(ctz64(m)));
      const int v = -value_[child];
      best = std::max(best, v);
      worst = std::min(worst, v);
      games[slot] += games[child];
      x_wins[slot] += x_wins[child];
      o_wins[slot] += o_wins[child];
    }
    value_[slot] = static_cast<signed char>(best);
    for (u32 m = b.moves(); m; m &= m - 1) {
      const int sq = ctz64(m);
      if (-value_[position_index(b.play(sq))] == best) optimal_[slot] |= static_cast<unsigned short>(1u << sq);
    }
    if (worst < best) {
      nontrivial_flag_[slot] = 1;
      ++nontrivial_;
    }
  }
  for (const Board& b : positions_)
    if (!b.terminal()) to_move_.push_back(b);
  games_.total = games[0];
  games_.x_wins = x_wins[0];
  games_.o_wins = o_wins[0];
  games_.draws = games[0] - x_wins[0] - o_wins[0];
}

const PerfectPlay& PerfectPlay::get() {
  static const PerfectPlay table;
  return table;
}

bool PerfectPlay::reachable(const Board& b) const {
  if ((b.x | b.o) & ~kAll || b.x & b.o || (b.side != kX && b.side != kO)) return false;
  return reachable_[static_cast<std::size_t>(position_index(b))] && b.side == side_from_counts(b);
}

int PerfectPlay::slot_of(const Board& b) const {
  if (!reachable(b)) fail("position {} does not arise in a game from the empty board", describe(b));
  return position_index(b);
}

int PerfectPlay::value(const Board& b) const { return value_[static_cast<std::size_t>(slot_of(b))]; }

u32 PerfectPlay::optimal_moves(const Board& b) const { return optimal_[static_cast<std::size_t>(slot_of(b))]; }

bool PerfectPlay::nontrivial(const Board& b) const { return nontrivial_flag_[static_cast<std::size_t>(slot_of(b))]; }

int PerfectPlay::lowest_optimal_move(const Board& b) const {
  const u32 best = optimal_moves(b);
  if (!best) fail("position {}: the game is over, there is no move to choose", describe(b));
  return ctz64(best);
}

int PerfectPlay::random_optimal_move(const Board& b, Rng& rng) const {
  const u32 best = optimal_moves(b);
  if (!best) fail("position {}: the game is over, there is no move to choose", describe(b));
  return popcount64(best) == 1 ? ctz64(best) : rng.random_bit(best);
}

Policy tabulate(const Chooser& chooser, const PerfectPlay& oracle) {
  Policy p;
  p.move.assign(kPositionSlots, -1);
  for (const Board& b : oracle.positions_to_move()) {
    const int sq = chooser(b);
    if (sq < 0 || sq > 8 || !(b.moves() >> sq & 1))
      fail("player: square {} is not a legal move in position {}", sq, describe(b));
    p.move[static_cast<std::size_t>(position_index(b))] = static_cast<signed char>(sq);
  }
  return p;
}

namespace {

// The enumerations of one colour: the player's moves come from the policy, the opponent's are
// every optimal move (vs_perfect), every legal move (vs_any) or uniform (random).
class Enumeration {
 public:
  Enumeration(const Policy& policy, const PerfectPlay& oracle, int colour)
      : policy_(policy), oracle_(oracle), colour_(colour) {}

  // The worst result for the player from b over the opponent's choices, memoised.
  Result worst(const Board& b, bool perfect_opponent) {
    auto& memo = perfect_opponent ? worst_perfect_ : worst_any_;
    const std::size_t slot = static_cast<std::size_t>(position_index(b));
    if (memo[slot] != kUnknown) return static_cast<Result>(memo[slot]);
    Result r;
    if (b.terminal()) {
      r = result_for(b, colour_);
    } else if (b.side == colour_) {
      r = worst(b.play(policy_.at(b)), perfect_opponent);
    } else {
      r = Result::kWin;
      for (u32 m = replies(b, perfect_opponent); m; m &= m - 1)
        r = std::min(r, worst(b.play(ctz64(m)), perfect_opponent));
    }
    memo[slot] = static_cast<signed char>(r);
    return r;
  }

  // One game from the empty board that ends in worst(empty): the lowest such opponent move first.
  std::vector<int> worst_line(bool perfect_opponent) {
    const Result target = worst(Board{}, perfect_opponent);
    std::vector<int> line;
    for (Board b; !b.terminal();) {
      int sq = -1;
      if (b.side == colour_) {
        sq = policy_.at(b);
      } else {
        for (u32 m = replies(b, perfect_opponent); m && sq < 0; m &= m - 1)
          if (worst(b.play(ctz64(m)), perfect_opponent) == target) sq = ctz64(m);
      }
      line.push_back(sq);
      b = b.play(sq);
    }
    return line;
  }

  // Win, draw and loss probabilities against a uniformly random opponent, memoised.
  const std::array<double, 3>& random(const Board& b) {
    const std::size_t slot = static_cast<std::size_t>(position_index(b));
    if (random_done_[slot]) return random_[slot];
    std::array<double, 3> p{0, 0, 0};  // win, draw, loss
    if (b.terminal()) {
      const Result r = result_for(b, colour_);
      p[r == Result::kWin ? 0 : (r == Result::kDraw ? 1 : 2)] = 1;
    } else if (b.side == colour_) {
      p = random(b.play(policy_.at(b)));
    } else {
      const u32 moves = b.moves();
      const double weight = 1.0 / popcount64(moves);
      for (u32 m = moves; m; m &= m - 1) {
        const std::array<double, 3>& c = random(b.play(ctz64(m)));
        for (int k = 0; k < 3; ++k) p[k] += weight * c[k];
      }
    }
    random_done_[slot] = 1;
    random_[slot] = p;
    return random_[slot];
  }

 private:
  u32 replies(const Board& b, bool perfect_opponent) const {
    return perfect_opponent ? oracle_.optimal_moves(b) : b.moves();
  }

  const Policy& policy_;
  const PerfectPlay& oracle_;
  int colour_;
  std::vector<signed char> worst_perfect_ = std::vector<signed char>(kPositionSlots, kUnknown);
  std::vector<signed char> worst_any_ = std::vector<signed char>(kPositionSlots, kUnknown);
  std::vector<std::array<double, 3>> random_ = std::vector<std::array<double, 3>>(kPositionSlots);
  std::vector<unsigned char> random_done_ = std::vector<unsigned char>(kPositionSlots, 0);
};

ColourMeasures measure_colour(const Policy& policy, const PerfectPlay& oracle, int colour) {
  Enumeration e(policy, oracle, colour);
  ColourMeasures m;
  m.worst_vs_perfect = e.worst(Board{}, true);
  m.worst_vs_any = e.worst(Board{}, false);
  m.line_vs_perfect = e.worst_line(true);
  m.line_vs_any = e.worst_line(false);
  const std::array<double, 3> p = e.random(Board{});
  m.win = p[0];
  m.draw = p[1];
  m.loss = p[2];
  return m;
}

}  // namespace

PlayerMeasures measure(const Policy& policy, const PerfectPlay& oracle) {
  if (policy.move.size() != static_cast<std::size_t>(kPositionSlots))
    fail("policy: {} slots, expected {}", policy.move.size(), kPositionSlots);
  PlayerMeasures m;
  for (const Board& b : oracle.positions_to_move()) {
    const int sq = policy.at(b);
    if (sq < 0 || sq > 8 || !(b.moves() >> sq & 1))
      fail("policy: no legal move for position {} (square {})", describe(b), sq);
    const bool optimal = oracle.optimal_moves(b) >> sq & 1;
    ++m.positions;
    m.optimal += optimal;
    if (oracle.nontrivial(b)) {
      ++m.nontrivial_positions;
      m.nontrivial_optimal += optimal;
    }
  }
  m.as_x = measure_colour(policy, oracle, kX);
  m.as_o = measure_colour(policy, oracle, kO);
  return m;
}

bool never_loses(const Chooser& chooser) {
  // memo[slot]: kUnknown, or whether the player avoids a loss from there against every opponent.
  // A memo entry holds for the colour of the search that wrote it, so it is reset between them.
  std::vector<signed char> memo(kPositionSlots, kUnknown);
  int colour = kX;
  std::function<bool(const Board&)> holds = [&](const Board& b) -> bool {
    const std::size_t slot = static_cast<std::size_t>(position_index(b));
    if (memo[slot] != kUnknown) return memo[slot] != 0;
    bool ok = true;
    if (b.terminal()) {
      ok = result_for(b, colour) != Result::kLoss;
    } else if (b.side == colour) {
      const int sq = chooser(b);
      if (sq < 0 || sq > 8 || !(b.moves() >> sq & 1))
        fail("player: square {} is not a legal move in position {}", sq, describe(b));
      ok = holds(b.play(sq));
    } else {
      for (u32 m = b.moves(); m && ok; m &= m - 1) ok = holds(b.play(ctz64(m)));
    }
    memo[slot] = ok ? 1 : 0;
    return ok;
  };
  if (!holds(Board{})) return false;
  std::fill(memo.begin(), memo.end(), kUnknown);
  colour = kO;
  return holds(Board{});
}

LossVsRandom loss_vs_random(const Chooser& chooser) {
  // memo[slot]: the loss probability from there (NaN: not yet computed), for the colour being
  // measured; reset between the colours. The sums run over the opponent's moves in ascending
  // order with the same weights as Enumeration::random, so the doubles are the same.
  std::vector<double> memo(kPositionSlots, std::numeric_limits<double>::quiet_NaN());
  int colour = kX;
  std::function<double(const Board&)> loss = [&](const Board& b) -> double {
    const std::size_t slot = static_cast<std::size_t>(position_index(b));
    if (!std::isnan(memo[slot])) return memo[slot];
    double p = 0;
    if (b.terminal()) {
      p = result_for(b, colour) == Result::kLoss ? 1 : 0;
    } else if (b.side == colour) {
      const int sq = chooser(b);
      if (sq < 0 || sq > 8 || !(b.moves() >> sq & 1))
        fail("player: square {} is not a legal move in position {}", sq, describe(b));
      p = loss(b.play(sq));
    } else {
      const u32 moves = b.moves();
      const double weight = 1.0 / popcount64(moves);
      for (u32 m = moves; m; m &= m - 1) p += weight * loss(b.play(ctz64(m)));
    }
    memo[slot] = p;
    return p;
  };
  LossVsRandom out;
  out.as_x = loss(Board{});
  std::fill(memo.begin(), memo.end(), std::numeric_limits<double>::quiet_NaN());
  colour = kO;
  out.as_o = loss(Board{});
  return out;
}

Chooser agent_chooser(const play::TicTacToeAgent& agent) {
  agent.validate();
  if (agent.params.kind == play::TicTacToeEvaluator::kRandom)
    fail("agent '{}': a random player has no single move to measure", agent.name);
  if (agent.params.random_ties)
    fail("agent '{}': it draws among equal moves; measures need a deterministic player (ties to the lowest square)",
         agent.name);
  if (agent.params.epsilon_ppm > 0)
    fail("agent '{}': epsilon_ppm {} makes its moves random; measures need a deterministic player", agent.name,
         agent.params.epsilon_ppm);
  const play::TicTacToeParams params = agent.device_params();
  return [params](const Board& b) {
    Rng rng(0, Purpose::kGame);  // never drawn from: a deterministic player draws nothing
    u64 nodes = 0;
    const play::PlayScratchOf<games::TicTacToe> scratch;
    return params.choose(b, rng, nodes, scratch);
  };
}

namespace {

// f(chooser) of every agent, on `threads` threads: each agent's chooser is made (and checked)
// before any work, and out[i] is agent i's whatever the thread count.
template <class Out, class F>
std::vector<Out> of_each_agent(std::span<const play::TicTacToeAgent> agents, int threads, const F& f) {
  std::vector<Chooser> choosers;
  for (const play::TicTacToeAgent& a : agents) choosers.push_back(agent_chooser(a));
  std::vector<Out> out(agents.size());
  std::atomic<std::size_t> next{0};
  const int n = std::min(resolve_threads(threads), std::max(1, static_cast<int>(agents.size())));
  run_parallel(n, [&] {
    for (std::size_t i; (i = next++) < choosers.size();) out[i] = f(choosers[i]);
  });
  return out;
}

}  // namespace

std::vector<PlayerMeasures> measure_agents(std::span<const play::TicTacToeAgent> agents, int threads) {
  const PerfectPlay& oracle = PerfectPlay::get();
  return of_each_agent<PlayerMeasures>(agents, threads, [&](const Chooser& c) { return measure(c, oracle); });
}

std::vector<LossVsRandom> loss_vs_random_of_agents(std::span<const play::TicTacToeAgent> agents, int threads) {
  return of_each_agent<LossVsRandom>(agents, threads, [](const Chooser& c) { return loss_vs_random(c); });
}

Chooser perfect_chooser(const PerfectPlay& oracle) {
  return [&oracle](const Board& b) { return oracle.lowest_optimal_move(b); };
}

play::TicTacToeAgent constant_agent(int depth) {
  play::TicTacToeAgent a;
  a.name = fmt::format("constant-ply{}", depth);
  a.params.kind = play::TicTacToeEvaluator::kNetwork;
  a.params.depth = depth;
  a.params.network = Network{};  // every weight and threshold 0
  return a;
}

std::vector<play::TicTacToeAgent> random_network_agents(int count, Topology topology, int depth, u64 seed, i64 first) {
  if (count < 0) fail_input("random_networks", "{} is negative", count);
  if (first < 0) fail_input("random_networks", "the first network's index {} is negative", first);
  std::vector<play::TicTacToeAgent> agents;
  for (i64 i = first; i < first + count; ++i) {
    const ga::BitString bits = ga::random_bit_member(network_bits(topology), seed, 0, static_cast<std::size_t>(i));
    play::TicTacToeAgent a;
    a.name = fmt::format("random-net{}", i);
    a.params.kind = play::TicTacToeEvaluator::kNetwork;
    a.params.depth = depth;
    a.params.network = decode_network(bits.data(), topology);
    a.validate();
    agents.push_back(a);
  }
  return agents;
}

RandomScreen screen_random_networks(i64 count, Topology topology, int depth, u64 seed, int threads) {
  if (count < 0) fail_input("screen_random", "{} is negative", count);
  constexpr i64 kChunk = 4096;  // networks drawn and screened at a time
  RandomScreen out;
  out.count = count;
  for (i64 first = 0; first < count; first += kChunk) {
    const auto agents =
        random_network_agents(static_cast<int>(std::min(kChunk, count - first)), topology, depth, seed, first);
    const std::vector<char> holds =
        of_each_agent<char>(agents, threads, [](const Chooser& c) { return static_cast<char>(never_loses(c)); });
    for (std::size_t i = 0; i < holds.size(); ++i)
      if (holds[i]) {
        if (out.first < 0) out.first = first + static_cast<i64>(i);
        ++out.never_lose;
      }
  }
  return out;
}

MeasureSummary summarize(const std::vector<PlayerMeasures>& sample) {
  MeasureSummary s;
  s.players = static_cast<int>(sample.size());
  if (sample.empty()) return s;
  auto spread = [&](auto get) {
    Spread r{0, get(sample[0]), get(sample[0])};
    for (const PlayerMeasures& m : sample) {
      const double v = get(m);
      r.mean += v;
      r.min = std::min(r.min, v);
      r.max = std::max(r.max, v);
    }
    r.mean /= static_cast<double>(sample.size());
    return r;
  };
  s.optimal_share = spread([](const PlayerMeasures& m) { return m.optimal_share(); });
  s.nontrivial_optimal_share = spread([](const PlayerMeasures& m) { return m.nontrivial_optimal_share(); });
  s.x_win = spread([](const PlayerMeasures& m) { return m.as_x.win; });
  s.x_draw = spread([](const PlayerMeasures& m) { return m.as_x.draw; });
  s.x_loss = spread([](const PlayerMeasures& m) { return m.as_x.loss; });
  s.o_win = spread([](const PlayerMeasures& m) { return m.as_o.win; });
  s.o_draw = spread([](const PlayerMeasures& m) { return m.as_o.draw; });
  s.o_loss = spread([](const PlayerMeasures& m) { return m.as_o.loss; });
  for (const PlayerMeasures& m : sample) {
    s.x_lose_vs_perfect += m.as_x.worst_vs_perfect == Result::kLoss;
    s.o_lose_vs_perfect += m.as_o.worst_vs_perfect == Result::kLoss;
    s.lose_vs_perfect += !m.holds_perfect_play();
    s.x_lose_vs_any += m.as_x.worst_vs_any == Result::kLoss;
    s.o_lose_vs_any += m.as_o.worst_vs_any == Result::kLoss;
    s.lose_vs_any += !m.never_loses();
  }
  return s;
}

}  // namespace ef::tictactoe
