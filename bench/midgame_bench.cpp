// The midgame search, before and after (issue 17): self-play games of a trained n-tuple agent
// (the built-in ordering network, networks/ordering/edax.toml: the Edax shape trained on WTHOR)
// at depth 6 and 8 from random 8-ply openings, no exact endgame, on the CPU backend. Each depth
// is played twice in the same run, with plain alpha-beta (search = "alphabeta", what agents
// used before) and with the midgame search of engine/pvs.hpp (the default): games/s, nodes/s,
// the ratio, and whether the two played the same games (they must: same value and move at the
// same depth). Median of --runs runs (default 3).
//
// With --probcut FILE a third row plays pvs with those ProbCut parameters (a selective search:
// other games, so "same games" does not apply to it).
//
//   build/bench/midgame_bench [--games N] [--threads T] [--runs R] [--depths 6,8] [--agent FILE]
//                             [--probcut FILE]
#include <fmt/core.h>
#include <algorithm>
#include <chrono>
#include <string>
#include <vector>
#include "bench_util.hpp"
#include "evalforge/backends/backend.hpp"
#include "evalforge/core/error.hpp"
#include "evalforge/core/install_paths.hpp"
#include "evalforge/core/rng.hpp"
#include "evalforge/games/othello/agent.hpp"
#include "evalforge/games/othello/agent_file.hpp"
#include "games/othello/probcut.hpp"

using namespace ef;

namespace {

struct Figures {
  double seconds = 0;  // median
  u64 nodes = 0;
  std::vector<play::OthelloRecord> records;
};

Figures run(Backend& backend, const play::OthelloAgent& agent, int games, int runs) {
  const int h = backend.add_agent(agent);
  std::vector<OthelloJob> jobs(static_cast<std::size_t>(games));
  for (int k = 0; k < games; ++k) {
    Rng rng(2024, Purpose::kGame, static_cast<u32>(k));
    jobs[k].black = jobs[k].white = h;
    jobs[k].start = othello::random_opening(rng, 8);
    jobs[k].seed = 1;
    jobs[k].game = static_cast<u32>(k);
  }
  Figures f;
  f.records.assign(jobs.size(), play::OthelloRecord{});
  std::vector<double> secs;
  for (int r = 0; r < runs; ++r) {
    const auto t = std::chrono::steady_clock::now();
    backend.play(jobs, f.records);
    secs.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count());
  }
  std::sort(secs.begin(), secs.end());
  f.seconds = secs[secs.size() / 2];
  for (const auto& rec : f.records) f.nodes += rec.nodes;
  return f;
}

}  // namespace

int main(int argc, char** argv) {
  int games = 16, threads = 1, runs = 3;
  std::vector<int> depths{6, 8};
  std::string agent_file = (ef::networks_dir() / "ordering" / "edax.toml").string(), probcut_file;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i], v = argv[i + 1];
    if (k == "--games")
      games = std::stoi(v);
    else if (k == "--threads")
      threads = std::stoi(v);
    else if (k == "--runs")
      runs = std::stoi(v);
    else if (k == "--agent")
      agent_file = v;
    else if (k == "--probcut")
      probcut_file = v;
    else if (k == "--depths") {
      depths.clear();
      for (std::size_t p = 0; p < v.size();) {
        const std::size_t q = v.find(',', p);
        depths.push_back(std::stoi(v.substr(p, q - p)));
        p = q == std::string::npos ? v.size() : q + 1;
      }
    } else {
      fmt::print(stderr, "unknown option {}\n", k);
      return 2;
    }
  }
  try {
    play::OthelloAgent agent = play::load_agent(agent_file);
    agent.limits.exact_empties = -1;
    auto backend = make_backend("cpu", threads);
    fmt::print(
        "midgame search: {} self-play from random 8-ply openings, no exact endgame; {} games, {} thread(s), "
        "median of {} runs\n  CPU: {}\n",
        agent_file, games, threads, runs, bench::cpu_model());
    fmt::print("{:<7} {:<10} {:>10} {:>12} {:>12} {:>14} {:>12} {:>10}\n", "depth", "search", "seconds", "games/s",
               "nodes", "nodes/s", "time ratio", "same games");
    for (int depth : depths) {
      agent.limits.depth = depth;
      agent.limits.algorithm = search::MidgameSearch::kAlphaBeta;
      const Figures before = run(*backend, agent, games, runs);
      agent.limits.algorithm = search::MidgameSearch::kPvs;
      const Figures after = run(*backend, agent, games, runs);
      int same = 0;
      for (std::size_t k = 0; k < before.records.size(); ++k) {
        const auto &x = before.records[k], &y = after.records[k];
        same += x.plies == y.plies && std::equal(x.moves, x.moves + x.plies, y.moves);
      }
      for (const auto* f : {&before, &after})
        fmt::print("{:<7} {:<10} {:>10.3f} {:>12.2f} {:>12} {:>14.4g} {:>12.3f} {:>7}/{}\n", depth,
                   f == &before ? "alphabeta" : "pvs", f->seconds, games / f->seconds, f->nodes,
                   static_cast<double>(f->nodes) / f->seconds, f->seconds / before.seconds, same, games);
      if (!probcut_file.empty()) {
        agent.probcut = play::load_probcut(probcut_file);
        const Figures selective = run(*backend, agent, games, runs);
        agent.probcut.reset();
        fmt::print("{:<7} {:<10} {:>10.3f} {:>12.2f} {:>12} {:>14.4g} {:>12.3f} {:>10}\n", depth, "probcut",
                   selective.seconds, games / selective.seconds, selective.nodes,
                   static_cast<double>(selective.nodes) / selective.seconds, selective.seconds / before.seconds, "-");
      }
    }
  } catch (const Error& e) {
    fmt::print(stderr, "midgame_bench: {}\n", e.what());
    return 2;
  }
  return 0;
}
