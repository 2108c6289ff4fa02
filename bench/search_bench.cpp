// Time per generation of the paper's search setting (8 islands x 100 individuals, Edax-size
// networks, training epochs from the defaults) on a game database, on the CPU backend:
// seconds per generation, fitness evaluations/s, training samples/s (in total and per core),
// the projected time of 4,000 generations, and the peak resident memory.
//
//   build/bench/search_bench [--data FILE] [--split position|game] [--island-size N]
//                            [--generations G] [--threads T] [--epochs E] [--batch B]
//
// EF_CPU_PATH=portable|avx2|avx512 picks the training loop's vector path (default: the best
// this CPU has), for comparing them in one session.
#include <fmt/core.h>
#include <sys/resource.h>
#include <algorithm>
#include <chrono>
#include <cstring>
#include <numeric>
#include <string>
#include <thread>
#include "backends/cpu/train_body.hpp"
#include "bench_util.hpp"
#include "evalforge/core/error.hpp"
#include "evalforge/runs/shape_decoder.hpp"
#include "paper_setting.hpp"

using namespace ef;

int main(int argc, char** argv) {
  std::string data_file = "../shared/data/othello/logbook.gam.gz", split_name = "position";
  int island_size = 100, generations = 1, threads = 0, epochs = TrainParams{}.epochs, batch = 1;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i], v = argv[i + 1];
    if (k == "--data")
      data_file = v;
    else if (k == "--split")
      split_name = v;
    else if (k == "--island-size")
      island_size = std::stoi(v);
    else if (k == "--generations")
      generations = std::stoi(v);
    else if (k == "--threads")
      threads = std::stoi(v);
    else if (k == "--epochs")
      epochs = std::stoi(v);
    else if (k == "--batch")
      batch = std::stoi(v);
    else {
      fmt::print(stderr, "unknown option {}\n", k);
      return 2;
    }
  }
  if (threads <= 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  try {
    auto backend = make_backend("cpu", threads);
    const bench::PaperSetting setting =
        bench::make_paper_setting(*backend, data_file, split_name == "game", island_size);
    const ga::IslandsConfig& config = setting.config;
    const auto& fit = setting.fit;
    const std::size_t train_positions = setting.train_positions;
    const ga::Decoder decoder;
    ga::Archipelago a = ga::make_archipelago(config, decoder.num_keys());
    ga::FitnessOptions fo;
    fo.train.epochs = epochs;
    fo.train.batch_size = batch;
    std::vector<double> secs;
    for (int g = 0; g < generations; ++g) {
      const auto t0 = std::chrono::steady_clock::now();
      ga::evaluate_generation(*backend, decoder, a.islands, fit, fo, 1, static_cast<u32>(g));
      secs.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
      ga::advance_generation(a, config);
    }
    std::sort(secs.begin(), secs.end());
    const double s = secs[secs.size() / 2];
    const int individuals = island_size * static_cast<int>(config.moves.size());
    // Sample steps: every individual of island k trains `epochs` passes over its training ids.
    const double steps = static_cast<double>(island_size) * static_cast<double>(train_positions) * epochs;
    struct rusage ru {};
    getrusage(RUSAGE_SELF, &ru);
    fmt::print(
        "search generation on {} (split by {}, {} games), {} islands x {} = {} individuals, Edax-size "
        "networks, {} epochs, batch {}, {} thread(s)\n",
        data_file, split_name, setting.games, config.moves.size(), island_size, individuals, epochs, batch, threads);
    fmt::print("  CPU: {}; training path: {}\n", bench::cpu_model(), cpu::path_name(cpu::default_path()));
    fmt::print("  training positions per island (mean): {:.0f}\n",
               static_cast<double>(train_positions) / config.moves.size());
    fmt::print("  seconds per generation (median of {}): {:.2f}\n", generations, s);
    fmt::print("  fitness evaluations/s: {:.1f} ({:.1f} per core)\n", individuals / s, individuals / s / threads);
    fmt::print("  training samples/s: {:.2f} M ({:.2f} M per core)\n", steps / s / 1e6, steps / s / 1e6 / threads);
    fmt::print("  projected 4,000 generations: {:.1f} h on {} core(s)\n", 4000 * s / 3600, threads);
    fmt::print("  peak resident memory: {:.0f} MiB\n", ru.ru_maxrss / 1024.0);
  } catch (const Error& e) {
    fmt::print(stderr, "search_bench: {}\n", e.what());
    return 2;
  }
  return 0;
}
