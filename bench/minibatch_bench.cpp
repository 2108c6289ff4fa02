// What the fast mode (mini-batches, [training] batch_size = B > 1) does to the shape search,
// beside what it does to speed: one population per island of the paper's setting, every
// individual's fitness with B = 1 and with each larger B (same data, same split, same sample
// order), the Spearman rank correlation of fitness over each island's population between
// B = 1 and B, over the whole population and over the best fifth (by B = 1: the individuals
// selection acts on), and the seconds per generation of each B on this backend.
//
//   build/bench/minibatch_bench [--data FILE] [--split game|position] [--island-size N]
//                               [--batches 1,8,16,32] [--threads T] [--generations G]
//
// --generations G evolves the population G generations with B = 1 first, so that the ranks
// compared are those of a population under selection rather than of random shapes.
#include <fmt/core.h>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>
#include <sstream>
#include <string>
#include <thread>
#include "bench_util.hpp"
#include "evalforge/core/error.hpp"
#include "evalforge/runs/shape_decoder.hpp"
#include "paper_setting.hpp"

using namespace ef;

namespace {

// Ranks 1..n with ties averaged.
std::vector<double> ranks(const std::vector<double>& v) {
  std::vector<std::size_t> order(v.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return v[a] < v[b]; });
  std::vector<double> r(v.size());
  for (std::size_t i = 0; i < order.size();) {
    std::size_t j = i;
    while (j + 1 < order.size() && v[order[j + 1]] == v[order[i]]) ++j;
    for (std::size_t k = i; k <= j; ++k) r[order[k]] = 0.5 * static_cast<double>(i + j) + 1;
    i = j + 1;
  }
  return r;
}

double pearson(const std::vector<double>& x, const std::vector<double>& y) {
  const double n = static_cast<double>(x.size());
  const double mx = std::accumulate(x.begin(), x.end(), 0.0) / n, my = std::accumulate(y.begin(), y.end(), 0.0) / n;
  double sxy = 0, sxx = 0, syy = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    sxy += (x[i] - mx) * (y[i] - my);
    sxx += (x[i] - mx) * (x[i] - mx);
    syy += (y[i] - my) * (y[i] - my);
  }
  return sxx > 0 && syy > 0 ? sxy / std::sqrt(sxx * syy) : 0.0;
}

double spearman(const std::vector<double>& x, const std::vector<double>& y) { return pearson(ranks(x), ranks(y)); }

}  // namespace

int main(int argc, char** argv) {
  std::string data_file = "../shared/data/othello/logbook.gam.gz", split_name = "game", batches_arg = "1,8,16,32";
  int island_size = 100, threads = 0, generations = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i], v = argv[i + 1];
    if (k == "--data")
      data_file = v;
    else if (k == "--split")
      split_name = v;
    else if (k == "--island-size")
      island_size = std::stoi(v);
    else if (k == "--batches")
      batches_arg = v;
    else if (k == "--threads")
      threads = std::stoi(v);
    else if (k == "--generations")
      generations = std::stoi(v);
    else {
      fmt::print(stderr, "unknown option {}\n", k);
      return 2;
    }
  }
  if (threads <= 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  std::vector<int> batches;
  std::stringstream list(batches_arg);
  for (std::string b; std::getline(list, b, ',');) batches.push_back(std::stoi(b));
  if (batches.empty() || batches[0] != 1) {
    fmt::print(stderr, "--batches must start with 1 (the reference)\n");
    return 2;
  }
  try {
    auto backend = make_backend("cpu", threads);
    const bench::PaperSetting s = bench::make_paper_setting(*backend, data_file, split_name == "game", island_size);
    const ga::Decoder decoder;
    ga::Archipelago a = ga::make_archipelago(s.config, decoder.num_keys());
    ga::FitnessOptions fo;
    for (int g = 0; g < generations; ++g) {
      ga::evaluate_generation(*backend, decoder, a.islands, s.fit, fo, 1, static_cast<u32>(g));
      ga::advance_generation(a, s.config);
    }
    fmt::print(
        "mini-batch study on {} (split by {}, {} games), {} islands x {} individuals after {} generation(s), "
        "{} epochs, {} thread(s), {}\n",
        data_file, split_name, s.games, s.config.moves.size(), island_size, generations, fo.train.epochs, threads,
        bench::cpu_model());
    std::vector<std::vector<std::vector<double>>> fitness;  // [batch][island][individual]
    std::vector<double> seconds;
    for (int b : batches) {
      fo.train.batch_size = b;
      const auto t0 = std::chrono::steady_clock::now();
      ga::evaluate_generation(*backend, decoder, a.islands, s.fit, fo, 1, static_cast<u32>(generations));
      seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
      fitness.emplace_back();
      for (const ga::Population& p : a.islands) fitness.back().push_back(p.fitness);
    }
    fmt::print("{:>6} {:>10} {:>9} | Spearman vs B=1 per island (all; best fifth by B=1)   {:>10} {:>10} {:>12}\n", "B",
               "s/gen", "speed", "mean all", "mean best", "mean dMSE");
    for (std::size_t bi = 0; bi < batches.size(); ++bi) {
      std::vector<double> all, best;
      std::string per_island;
      for (std::size_t k = 0; k < a.islands.size(); ++k) {
        const auto& ref = fitness[0][k];
        const auto& got = fitness[bi][k];
        all.push_back(spearman(ref, got));
        std::vector<std::size_t> order(ref.size());
        std::iota(order.begin(), order.end(), 0);
        std::sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return ref[x] < ref[y]; });
        std::vector<double> r5, g5;
        for (std::size_t i = 0; i < std::max<std::size_t>(3, ref.size() / 5) && i < ref.size(); ++i)
          r5.push_back(ref[order[i]]), g5.push_back(got[order[i]]);
        best.push_back(spearman(r5, g5));
        per_island += fmt::format(" {:.3f};{:.2f}", all.back(), best.back());
      }
      const double mean_all = std::accumulate(all.begin(), all.end(), 0.0) / all.size();
      const double mean_best = std::accumulate(best.begin(), best.end(), 0.0) / best.size();
      // Mean fitness change against B = 1 (validation MSE, discs^2; positive: B trains worse).
      double shift = 0;
      std::size_t count = 0;
      for (std::size_t k = 0; k < a.islands.size(); ++k)
        for (std::size_t i = 0; i < fitness[0][k].size(); ++i, ++count) shift += fitness[bi][k][i] - fitness[0][k][i];
      fmt::print("{:>6} {:>10.2f} {:>8.2f}x |{}   {:>10.3f} {:>10.3f} {:>+12.4f}\n", batches[bi], seconds[bi],
                 seconds[0] / seconds[bi], per_island, mean_all, mean_best, shift / static_cast<double>(count));
    }
    fmt::print("(speed: seconds of B=1 over seconds of B, same run; moves of the islands: 18 22 26 30 34 38 42 46)\n");
  } catch (const Error& e) {
    fmt::print(stderr, "minibatch_bench: {}\n", e.what());
    return 2;
  }
  return 0;
}
