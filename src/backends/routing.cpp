// The cost model of `--backend auto` (routing.hpp).
#include "backends/routing.hpp"
#include <algorithm>

namespace ef::routing {

TrainWork train_work(std::span<const TrainJob> jobs) {
  TrainWork w;
  w.jobs = jobs.size();
  for (const TrainJob& j : jobs) {
    const double steps = static_cast<double>(j.train_ids.size()) * std::max(0, j.params.epochs);
    w.samples += steps + static_cast<double>(j.eval_ids.size());
    w.chain = std::max(w.chain, steps);
  }
  return w;
}

bool searches(const play::AgentOf<games::Othello>& a) {
  return a.kind != play::OthelloEvaluator::kRandom && (a.limits.depth > 1 || a.limits.exact_empties > 0);
}
bool searches(const play::AgentOf<games::TicTacToe>& a) {
  return a.params.kind != play::TicTacToeEvaluator::kRandom &&
         (a.params.kind == play::TicTacToeEvaluator::kPerfect || a.params.depth > 1);
}
// Hex's evaluators (network characteristics, resistance) evaluate every child of every move:
// latency-bound on the device even at one ply (docs/cuda.md: 200 such games took 37 s).
bool searches(const play::AgentOf<games::Hex>& a) {
  return a.params.kind != play::HexEvaluator::kRandom && a.params.kind != play::HexEvaluator::kBridgeRandom;
}
bool searches(const play::AgentOf<games::ConnectFour>& a) {
  return a.params.kind != play::ConnectFourEvaluator::kRandom && a.params.depth > 1;
}

namespace {

// The CPU's part of a batch that costs `seconds_one_thread` on one thread, on `threads`.
double on_threads(double seconds_one_thread, int threads) { return seconds_one_thread / std::max(1, threads); }

// The best of all-CPU, all-device and the split where both parts take equally long, for parts
// whose times are given as functions of the device's share: the CPU's falls as the share grows,
// the device's grows (from its fixed costs at a share just above 0), so they cross at most once;
// found by bisection.
template <class Cpu, class Device>
double best_share(const Cpu& cpu, const Device& device) {
  auto finish = [&](double share) { return std::max(share < 1 ? cpu(share) : 0.0, share > 0 ? device(share) : 0.0); };
  double best = 0, best_time = finish(0);
  double lo = 0, hi = 1;
  if (cpu(1e-12) > device(1e-12)) {  // the device's fixed costs leave room: they cross inside
    for (int i = 0; i < 60; ++i) {
      const double mid = 0.5 * (lo + hi);
      (cpu(mid) > device(mid) ? lo : hi) = mid;
    }
    if (finish(hi) < best_time) {
      best = hi;
      best_time = finish(hi);
    }
  }
  if (finish(1.0) < best_time) best = 1.0;
  return best;
}

}  // namespace

double CostModel::cpu_seconds(const TrainWork& w, int threads, double share) const {
  if (share >= 1 || w.jobs == 0) return 0;
  return std::max(on_threads((1 - share) * w.samples * cpu_sample, threads), w.chain * cpu_sample);
}
double CostModel::device_seconds(const TrainWork& w, double share) const {
  if (share <= 0 || w.jobs == 0) return 0;
  return device_batch + std::max(share * w.samples * device_sample, w.chain * device_chain_sample);
}
double CostModel::cpu_seconds(const PlayWork& w, int threads, double share) const {
  return on_threads((1 - share) * static_cast<double>(w.games) * (w.searching ? cpu_searching_game : cpu_shallow_game),
                    threads);
}
double CostModel::device_seconds(const PlayWork& w, double share) const {
  if (share <= 0 || w.games == 0) return 0;
  const double games = share * static_cast<double>(w.games);
  if (w.searching) return device_batch + std::max(device_searching_floor, games * device_searching_game);
  return device_batch + games * device_shallow_game;
}

double CostModel::device_share(const TrainWork& w, int cpu_threads) const {
  if (w.jobs == 0) return 0;
  return best_share([&](double f) { return cpu_seconds(w, cpu_threads, f); },
                    [&](double f) { return device_seconds(w, f); });
}
double CostModel::device_share(const PlayWork& w, int cpu_threads) const {
  if (w.games == 0) return 0;
  return best_share([&](double f) { return cpu_seconds(w, cpu_threads, f); },
                    [&](double f) { return device_seconds(w, f); });
}

}  // namespace ef::routing
