// Hex speeds (docs/hex.md): random playouts per second on 11 x 11 (one thread with the shared
// play body; a batch on the CPU backend on all threads; the same batch on the CUDA backend when
// a device is present, with the records compared game by game), network-characteristics and
// resistance evaluations per second, UCT playouts per second within a move, and the time of an
// H-search and of a VC alpha-beta move. Each figure is the median of --repeats runs, printed
// with the CPU model.
//
// Usage: hex_bench [--games N] [--threads T] [--repeats R] [--json FILE]
#include <fmt/core.h>
#include <algorithm>
#include <chrono>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include "bench_util.hpp"
#include "cuda/cuda_backend.hpp"
#include "evalforge/backends/backend.hpp"
#include "evalforge/core/error.hpp"
#include "evalforge/games/hex/characteristics.hpp"
#include "games/hex/player_spec.hpp"
#include "games/hex/uct.hpp"
#include "games/hex/vc.hpp"
#include "games/hex/vc_search.hpp"

using namespace ef;

namespace {

using bench::cpu_model;
using bench::median;

template <class F>
double seconds_of(F&& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Mid-game positions: `plies` random moves from the empty 11 x 11 board, games still on.
std::vector<hex::Board> positions(int count, int plies) {
  std::vector<hex::Board> out;
  for (u32 k = 0; static_cast<int>(out.size()) < count; ++k) {
    Rng rng(3, Purpose::kOpening, k);
    hex::Board b = hex::empty_board(11);
    for (int i = 0; i < plies && !b.terminal(); ++i) b = b.play(play::random_move(b.moves(), rng));
    if (!b.terminal()) out.push_back(b);
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) try {
  bench::print_lines_as_they_come();
  int games = 20000, threads = 0, repeats = 5;
  std::string json_file;
  for (int i = 1; i < argc; ++i) {
    auto value = [&] {
      if (i + 1 >= argc) fail("{} needs a value", argv[i]);
      return std::string(argv[++i]);
    };
    if (!std::strcmp(argv[i], "--games"))
      games = std::stoi(value());
    else if (!std::strcmp(argv[i], "--threads"))
      threads = std::stoi(value());
    else if (!std::strcmp(argv[i], "--repeats"))
      repeats = std::stoi(value());
    else if (!std::strcmp(argv[i], "--json"))
      json_file = value();
    else
      fail("unknown option {} (--games N --threads T --repeats R --json FILE)", argv[i]);
  }
  if (threads <= 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  nlohmann::json out;
  out["cpu"] = cpu_model();
  out["threads"] = threads;
  fmt::print("CPU: {} ({} threads for the batch figures)\n", cpu_model(), threads);

  // 1. Random playouts from the empty 11 x 11 board.
  const play::HexParams random = play::hex_random_agent().params;
  const hex::Board empty = hex::empty_board(11);
  std::vector<double> inline_t;
  play::HexRecord r;
  for (int k = 0; k < repeats; ++k)
    inline_t.push_back(seconds_of([&] {
      for (int g = 0; g < games; ++g) play::play_game<games::Hex>(random, random, empty, 1, static_cast<u32>(g), r, {});
    }));
  const double per_core = games / median(inline_t);
  fmt::print("random playouts, 11x11, one thread:          {:>10.0f} /s\n", per_core);
  out["playouts_per_s_one_thread"] = per_core;

  std::vector<GameJobOf<games::Hex>> jobs(games);
  for (int g = 0; g < games; ++g) jobs[g] = {0, 0, empty, 1, static_cast<u32>(g)};
  auto batch = [&](Backend& b, std::vector<play::HexRecord>& records) {
    std::vector<double> t;
    records.resize(jobs.size());
    for (int k = 0; k < repeats; ++k)
      t.push_back(seconds_of(
          [&] { b.play(std::span<const GameJobOf<games::Hex>>(jobs), std::span<play::HexRecord>(records)); }));
    return games / median(t);
  };
  auto cpu = make_backend("cpu", threads);
  const int h = cpu->add_agent(play::hex_random_agent());
  for (auto& j : jobs) j.black = j.white = h;
  std::vector<play::HexRecord> cpu_records;
  const double cpu_rate = batch(*cpu, cpu_records);
  fmt::print("random playouts, 11x11, CPU backend batch:   {:>10.0f} /s ({:.2f} x one thread)\n", cpu_rate,
             cpu_rate / per_core);
  out["playouts_per_s_cpu_batch"] = cpu_rate;
  std::string why;
  if (cuda_device_available(&why)) {
    auto gpu = make_backend("cuda", threads);
    const int gh = gpu->add_agent(play::hex_random_agent());
    for (auto& j : jobs) j.black = j.white = gh;
    std::vector<play::HexRecord> gpu_records;
    const double gpu_rate = batch(*gpu, gpu_records);
    int differ = 0;
    for (int g = 0; g < games; ++g)
      differ += play::hex_move_list(gpu_records[g]) != play::hex_move_list(cpu_records[g]) ||
                gpu_records[g].black_score != cpu_records[g].black_score;
    fmt::print(
        "random playouts, 11x11, CUDA backend batch:  {:>10.0f} /s ({:.2f} x the CPU batch); games differing: {}\n",
        gpu_rate, gpu_rate / cpu_rate, differ);
    out["playouts_per_s_cuda_batch"] = gpu_rate;
    out["cuda_games_differing"] = differ;
  } else {
    fmt::print("CUDA backend: not measured ({})\n", why);
  }

  // 2. Evaluations of mid-game positions (30 random plies), one thread.
  const auto mid = positions(200, 30);
  auto evals = [&](auto evaluator) {
    std::vector<double> t;
    i64 sink = 0;
    for (int k = 0; k < repeats; ++k)
      t.push_back(seconds_of([&] {
        for (const auto& b : mid) sink += evaluator.eval(b);
      }));
    if (sink == 42) fmt::print(" ");
    return static_cast<double>(mid.size()) / median(t);
  };
  hex::BetweennessEvaluator ev;
  hex::BetweennessEvaluator evp;
  evp.gamma = 0.1;
  hex::BetweennessEvaluator plain;
  plain.options.bridges = plain.options.edge_bridges = false;
  const double ev_rate = evals(ev), evp_rate = evals(evp), plain_rate = evals(plain),
               res_rate = evals(hex::ResistanceEvaluator{});
  fmt::print("Ev evaluations (bridges), one thread:        {:>10.0f} /s\n", ev_rate);
  fmt::print("Ev' (gamma 0.1) evaluations, one thread:     {:>10.0f} /s\n", evp_rate);
  fmt::print("Ev evaluations (adjacency only), one thread: {:>10.0f} /s\n", plain_rate);
  fmt::print("resistance evaluations, one thread:          {:>10.0f} /s\n", res_rate);
  out["ev_evals_per_s"] = ev_rate;
  out["evp_evals_per_s"] = evp_rate;
  out["ev_adjacency_evals_per_s"] = plain_rate;
  out["resistance_evals_per_s"] = res_rate;

  // 3. UCT: playouts per second within one move of 5,000 playouts, from the empty board and
  // from mid-game positions; inline playouts, one thread; random playouts and playouts with
  // bridge replies (uct:playout=bridge) interleaved run by run, so that their ratio is the
  // equal-time conversion of docs/hex.md.
  play::InlinePlayouts inline_playouts;
  for (const auto& [what, start] :
       {std::pair<const char*, hex::Board>{"empty board", empty}, {"30 plies in", mid[0]}}) {
    play::UctParams random_up, bridge_up;
    bridge_up.bridge_replies = true;
    play::Uct random_uct(random_up, inline_playouts), bridge_uct(bridge_up, inline_playouts);
    std::vector<double> t_random, t_bridge;
    u64 n = 0;
    for (int k = 0; k < repeats; ++k) {
      t_random.push_back(seconds_of([&] { random_uct.choose(start, 5, n); }));
      t_bridge.push_back(seconds_of([&] { bridge_uct.choose(start, 5, n); }));
    }
    const double rate = random_up.playouts / median(t_random), bridge_rate = bridge_up.playouts / median(t_bridge);
    fmt::print("UCT playouts per second in a move ({}): {:>10.0f} /s ({:.1f} ms a move)\n", what, rate,
               1000 * median(t_random));
    fmt::print("  with bridge replies:                  {:>10.0f} /s ({:.1f} ms a move; {:.2f}x the time)\n",
               bridge_rate, 1000 * median(t_bridge), median(t_bridge) / median(t_random));
    const std::string key = what[0] == 'e' ? "empty" : "mid";
    out["uct_playouts_per_s_" + key] = rate;
    out["uct_bridge_playouts_per_s_" + key] = bridge_rate;
  }
  // 4. Virtual connections: one H-search (one colour) on the mid-game positions, and a move of
  // the VC alpha-beta (vcab) at depths 1-3 from ten of them beside a move of UCT with bridge
  // replies and 5,000 playouts from the same ten, interleaved run by run: the ratio converts
  // vcab's time into UCT playouts for the equal-time comparisons of docs/hex.md.
  {
    std::vector<double> t_vc;
    std::size_t sink = 0;
    for (int k = 0; k < repeats; ++k)
      t_vc.push_back(seconds_of([&] {
        for (const auto& b : mid)
          sink += hex::VcGraph(b, b.side).full(hex::VcGraph::kEdge0, hex::VcGraph::kEdge1).size();
      }));
    if (sink == 42) fmt::print(" ");
    const double vc_ms = 1000 * median(t_vc) / static_cast<double>(mid.size());
    fmt::print("H-search, one colour, 30 plies in, one thread: {:.2f} ms\n", vc_ms);
    out["hsearch_ms"] = vc_ms;
    const std::vector<hex::Board> ten(mid.begin(), mid.begin() + 10);
    play::UctParams bridge_up;
    bridge_up.bridge_replies = true;
    play::Uct bridge_uct(bridge_up, inline_playouts);
    std::vector<double> t_uct, t_vcab[3];
    u64 n = 0;
    for (int k = 0; k < repeats; ++k) {
      t_uct.push_back(seconds_of([&] {
        for (const auto& b : ten) bridge_uct.choose(b, 5, n);
      }));
      for (int d = 1; d <= 3; ++d) {
        hex::VcSearchParams p;
        p.depth = d;
        t_vcab[d - 1].push_back(seconds_of([&] {
          for (const auto& b : ten) n += hex::VcAlphaBeta(p).choose(b).nodes;
        }));
      }
    }
    const double uct_ms = 100 * median(t_uct);  // per move: 1000 ms / 10 positions
    fmt::print("UCT 5,000 playouts with bridge replies, 30 plies in: {:.1f} ms a move\n", uct_ms);
    for (int d = 1; d <= 3; ++d) {
      const double ms = 100 * median(t_vcab[d - 1]);
      fmt::print(
          "vcab:depth={},width=10, 30 plies in: {:>7.1f} ms a move ({:.2f}x UCT 5,000 with bridges: "
          "{:.0f} playouts at equal time)\n",
          d, ms, ms / uct_ms, 5000 * ms / uct_ms);
      out[fmt::format("vcab_depth{}_ms", d)] = ms;
    }
    out["uct_bridge_5000_ms"] = uct_ms;
  }
  if (!json_file.empty()) std::ofstream(json_file) << out.dump(2) << "\n";
  return 0;
} catch (const std::exception& e) {
  fmt::print(stderr, "hex_bench: {}\n", e.what());
  return 2;
}
