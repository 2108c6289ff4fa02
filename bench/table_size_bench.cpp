// Training speed against the size of a job's weight table, one thread: what the caches of the
// machine do to plain SGD (docs/training.md, "A job's table and the caches").
//
// Every sample reads and writes 8 x tuples random weights of the job's table. While the table
// fits the core's L2 those accesses hit; beyond it they go to L3 or memory, and the loop's
// prefetching of the next samples' weights has to hide that. The benchmark trains shapes of
// 12 tuples of k squares (k = 4..11: tables of 3.9 KB to 8.5 MB, 96 features a sample each,
// so the arithmetic per sample is the same) and the Edax shape (0.9 MB, mixed sizes) on the
// same positions: the fitness positions of one move of a game database split by game (the
// paper's split, duplicates kept; default move 38 of the Logistello book). Every vector path
// this CPU has is measured, interleaved: R rounds, each training every (shape, path) once.
//
//   build/bench/table_size_bench [--data FILE] [--move M] [--rounds R] [--epochs E]
//
// Prints per shape and path: table size, median samples/s, the range over the rounds, and the
// ratio to the smallest table on the same path; and the CPU's cache sizes from sysfs.
#include <fmt/core.h>
#include <algorithm>
#include <chrono>
#include <fstream>
#include <string>
#include <vector>
#include "backends/cpu/train_body.hpp"
#include "bench_util.hpp"
#include "evalforge/core/error.hpp"
#include "evalforge/core/rng.hpp"
#include "evalforge/data/games.hpp"
#include "evalforge/data/positions.hpp"
#include "evalforge/games/othello/shape.hpp"

using namespace ef;

namespace {

// "L1d 32K, L2 512K, L3 32768K" from /sys (what the kernel reports for CPU 0).
std::string cache_sizes() {
  std::string out;
  for (int i = 0; i < 8; ++i) {
    const std::string dir = fmt::format("/sys/devices/system/cpu/cpu0/cache/index{}/", i);
    std::ifstream level(dir + "level"), type(dir + "type"), size(dir + "size");
    std::string l, t, s;
    if (!(level >> l) || !(type >> t) || !(size >> s)) break;
    if (t == "Instruction") continue;
    out += fmt::format("{}L{}{} {}", out.empty() ? "" : ", ", l, t == "Data" ? "d" : "", s);
  }
  return out.empty() ? "cache sizes unknown" : out;
}

// 12 tuples of k distinct squares each, drawn from the whole board by a fixed stream.
ntuple::Shape uniform_shape(int k) {
  std::vector<std::vector<std::string>> tuples;
  for (u32 t = 0; t < 12; ++t) {
    Rng rng(7, Purpose::kGame, static_cast<u32>(k), t);
    u64 used = 0;
    std::vector<std::string> tuple;
    while (static_cast<int>(tuple.size()) < k) {
      const int sq = static_cast<int>(rng.below(64));
      if (used >> sq & 1) continue;
      used |= u64{1} << sq;
      tuple.push_back(fmt::format("{}{}", static_cast<char>('a' + sq % 8), 1 + sq / 8));
    }
    tuples.push_back(tuple);
  }
  return ntuple::make_shape(fmt::format("12x{}", k), tuples, "table_size_bench");
}

}  // namespace

int main(int argc, char** argv) {
  bench::print_lines_as_they_come();
  std::string data_file = "../shared/data/othello/logbook.gam.gz";
  int move = 38, rounds = 3, epochs = 2;
  for (int i = 1; i < argc; ++i) {
    const std::string k = argv[i];
    if (i + 1 >= argc) {
      fmt::print(stderr, "table_size_bench: {} needs a value\n", k);
      return 2;
    }
    const std::string v = argv[++i];
    try {
      if (k == "--data")
        data_file = v;
      else if (k == "--move")
        move = std::stoi(v);
      else if (k == "--rounds")
        rounds = std::stoi(v);
      else if (k == "--epochs")
        epochs = std::stoi(v);
      else {
        fmt::print(stderr, "table_size_bench: unknown option {}\n", k);
        return 2;
      }
    } catch (const std::exception&) {
      fmt::print(stderr, "table_size_bench: {} '{}' is not a number\n", k, v);
      return 2;
    }
  }
  if (move < 1 || move > 59 || rounds < 1 || epochs < 1) {
    fmt::print(stderr, "table_size_bench: --move must be in 1..59, --rounds and --epochs >= 1\n");
    return 2;
  }
  try {
    const auto db = data::load_games({data_file});
    data::PositionOptions po;
    po.duplicates = data::Duplicates::kKeep;
    const auto parts = data::fitness_test_at_move(db.games, move, data::SplitBy::kGame, 0.2, 1, po);
    PositionData pd;
    for (std::size_t i = 0; i < parts.first.size(); ++i) {
      pd.black.push_back(parts.first.black[i]);
      pd.white.push_back(parts.first.white[i]);
      pd.label.push_back(ntuple::label_to_fixed(parts.first.label[i]));
    }
    const cpu::PackedPositions packed = cpu::pack_positions(pd);
    std::vector<u32> train, eval;
    for (u32 i = 0; i < pd.black.size(); ++i) (i % 5 ? train : eval).push_back(i);

    std::vector<ntuple::Shape> shapes;
    for (int k = 4; k <= 11; ++k) shapes.push_back(uniform_shape(k));
    shapes.push_back(ntuple::edax_shape());
    std::vector<ntuple::Geometry> geometries;
    for (const auto& s : shapes) geometries.push_back(s.geometry());
    const auto paths = cpu::available_paths();

    fmt::print(
        "training speed by weight-table size: {} fitness positions of move {} of {} (split by game), "
        "{} epochs, one thread, {} rounds\n",
        pd.black.size(), move, data_file, epochs, rounds);
    fmt::print("  CPU: {}; {}\n", bench::cpu_model(), cache_sizes());

    // seconds[shape][path][round]
    std::vector<std::vector<std::vector<double>>> seconds(shapes.size(),
                                                          std::vector<std::vector<double>>(paths.size()));
    cpu::TrainScratch scratch;
    for (int r = 0; r < rounds; ++r)
      for (std::size_t s = 0; s < shapes.size(); ++s)
        for (std::size_t p = 0; p < paths.size(); ++p) {
          TrainJob job;
          job.geometry = &geometries[s];
          job.train_ids = train;
          job.eval_ids = eval;
          job.params.epochs = epochs;
          job.stream[0] = static_cast<u32>(r);
          TrainResult result;
          const auto t0 = std::chrono::steady_clock::now();
          cpu::train_job(packed, job, result, scratch, paths[p]);
          seconds[s][p].push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
        }

    const double samples = static_cast<double>(train.size()) * epochs;
    fmt::print("  {:<8} {:>10} {:>9}", "shape", "table", "features");
    for (const auto p : paths) fmt::print("  {:>28}", fmt::format("{}: M samples/s (range), ratio", cpu::path_name(p)));
    fmt::print("\n");
    std::vector<double> first(paths.size(), 0.0);
    for (std::size_t s = 0; s < shapes.size(); ++s) {
      const double kb = geometries[s].num_weights() * 4.0 / 1024.0;
      fmt::print("  {:<8} {:>10} {:>9}", shapes[s].name,
                 kb < 1024 ? fmt::format("{:.1f} KB", kb) : fmt::format("{:.2f} MB", kb / 1024),
                 geometries[s].num_features());
      for (std::size_t p = 0; p < paths.size(); ++p) {
        auto v = seconds[s][p];
        std::sort(v.begin(), v.end());
        const double rate = samples / bench::median(v) / 1e6;
        if (s == 0) first[p] = rate;
        fmt::print("  {:>28}", fmt::format("{:.2f} ({:.2f}-{:.2f}), {:.2f}x", rate, samples / v.back() / 1e6,
                                           samples / v.front() / 1e6, rate / first[p]));
      }
      fmt::print("\n");
    }
  } catch (const Error& e) {
    fmt::print(stderr, "table_size_bench: {}\n", e.what());
    return 2;
  }
  return 0;
}
