// CPU vs GPU on the same work: one paper-size generation of the shape search (8 islands x 100
// individuals, Edax-size networks, 4 epochs of plain SGD, the paper's split by game: about
// 77,000 training and 19,000 validation positions per island on the logbook), side by side:
// training samples/s, individuals/s, seconds per generation and their ratio; and the GPU's
// weight traffic per generation against the device's memory bandwidth, the physical bound.
//
// The CPU side trains a few individuals (one per thread by default) and extrapolates to the
// whole generation; the output says so. The GPU side runs the whole generation. Both run
// the same jobs, and the jobs measured on both are compared bit for bit.
//
// Then self-play (Backend::play): whole games of an Edax-shape n-tuple agent (pseudo-random
// weights, as bench/solve_bench's games) against itself from random 8-ply openings, at depth 1,
// depth 4, and depth 4 with exact solves from 14 empties: games/s and nodes/s on the CPU backend
// (all threads) and the CUDA backend, each the median of several runs, and their ratio. The
// CPU plays a smaller batch (a prefix of the GPU's), whose records are compared with the GPU's.
//
// Usage: gpu_bench [--data FILE] [--games N] [--threads T] [--cpu-jobs N] [--repeats R]
//                  [--l2-experiment] [--json FILE]
//                  [--games-only | --no-games] [--cpu-games N] [--gpu-games N]
#include <fmt/core.h>
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include "bench_util.hpp"
#include "cuda/cuda_backend.hpp"
#include "data/generate.hpp"
#include "evalforge/backends/backend.hpp"
#include "evalforge/core/error.hpp"
#include "evalforge/data/games.hpp"
#include "evalforge/ga/islands.hpp"
#include "evalforge/games/othello/game.hpp"
#include "evalforge/games/othello/shape.hpp"
#include "evalforge/runs/shape_decoder.hpp"
#include "runs/shape_generation_batch.hpp"

using namespace ef;

namespace {

struct Args {
  std::string data;
  std::size_t games = 121000;  // the logbook's size: ~97,000 fitness games -> ~77,000 training positions a move
  int threads = 0;
  int cpu_jobs = 0;  // 0: one per CPU thread
  int repeats = 2;
  bool l2_experiment = false;
  std::string json;
  bool run_training = true;  // --games-only: false
  bool run_games = true;     // --no-games: false
  int cpu_games = 0;         // games per CPU batch (0: per configuration, scaled by threads)
  int gpu_games = 0;         // games per GPU batch (0: per configuration)
};

[[noreturn]] void usage(const std::string& problem) {
  fmt::print(stderr,
             "gpu_bench: {}\nusage: gpu_bench [--data FILE] [--games N] [--threads T] [--cpu-jobs N] [--repeats R] "
             "[--l2-experiment] [--json FILE] [--games-only | --no-games] [--cpu-games N] [--gpu-games N]\n",
             problem);
  std::exit(2);
}

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage(flag + " needs a value");
      return argv[++i];
    };
    auto number = [&](long lo, long hi) {
      const std::string v = value();
      char* end = nullptr;
      const long n = std::strtol(v.c_str(), &end, 10);
      if (end == v.c_str() || *end || n < lo || n > hi)
        usage(fmt::format("{}: expected an integer in [{}, {}]", flag, lo, hi));
      return n;
    };
    if (flag == "--data")
      a.data = value();
    else if (flag == "--games")
      a.games = static_cast<std::size_t>(number(100, 100'000'000));
    else if (flag == "--threads")
      a.threads = static_cast<int>(number(0, 4096));
    else if (flag == "--cpu-jobs")
      a.cpu_jobs = static_cast<int>(number(0, 100000));
    else if (flag == "--repeats")
      a.repeats = static_cast<int>(number(1, 100));
    else if (flag == "--l2-experiment")
      a.l2_experiment = true;
    else if (flag == "--json")
      a.json = value();
    else if (flag == "--games-only")
      a.run_training = false;
    else if (flag == "--no-games")
      a.run_games = false;
    else if (flag == "--cpu-games")
      a.cpu_games = static_cast<int>(number(1, 10'000'000));
    else if (flag == "--gpu-games")
      a.gpu_games = static_cast<int>(number(1, 16'000'000));
    else if (flag == "--help" || flag == "-h")
      usage("help");
    else
      usage("unknown argument " + flag);
  }
  if (!a.run_training && !a.run_games) usage("--games-only and --no-games leave nothing to measure");
  return a;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Training samples (position visits) of a set of jobs.
double training_samples(std::span<const TrainJob> jobs) {
  double n = 0;
  for (const TrainJob& j : jobs) n += static_cast<double>(j.train_ids.size()) * j.params.epochs;
  return n;
}

// Weight accesses of a generation on the GPU: per training sample 8m reads and 8m atomic adds,
// per validation position 8m reads. `useful` counts 4 bytes a read and 8 an add (read + write
// of the int32); `sector` counts what DRAM moves if every access misses L2: a 32-byte sector a
// read, and a sector read and written back an add.
struct Traffic {
  double reads = 0, adds = 0, useful_bytes = 0, sector_bytes = 0;
};
Traffic weight_traffic(std::span<const TrainJob> jobs) {
  Traffic t;
  for (const TrainJob& j : jobs) {
    const double nf = j.geometry->num_features();
    const double samples = static_cast<double>(j.train_ids.size()) * j.params.epochs;
    t.reads += nf * (samples + static_cast<double>(j.eval_ids.size()));
    t.adds += nf * samples;
  }
  t.useful_bytes = 4 * t.reads + 8 * t.adds;
  t.sector_bytes = 32 * t.reads + 64 * t.adds;
  return t;
}

bool same(const TrainResult& a, const TrainResult& b) {
  return a.eval_loss.squared == b.eval_loss.squared && a.eval_loss.absolute == b.eval_loss.absolute &&
         a.eval_loss.count == b.eval_loss.count;
}

// ---- self-play ----------------------------------------------------------------------------------

struct GameConfig {
  std::string name;
  search::OthelloLimits limits;
  int cpu_games_per_thread;  // CPU batch: this many games a thread (a few tenths of a second)
  int gpu_games;             // GPU batch: enough games to fill an H200 (~50,000 resident threads)
};

// The n-tuple agent of bench/solve_bench's games: the Edax shape, one network for every move,
// weights pseudo-random within +-0.5 disc.
play::OthelloAgent bench_agent(const GameConfig& c) {
  std::array<int, ntuple::kMoveNumbers> geometry_of_move{};
  play::OthelloAgent a = play::ntuple_agent_per_move("edax-shape", {ntuple::edax_shape().geometry()}, {"edax"},
                                                     geometry_of_move, c.limits);
  // One network for all moves (ntuple_agent_per_move made 61 zero ones).
  a.networks.resize(1);
  a.network_of_move.fill(0);
  Rng rng(7, Purpose::kGame, 0xBE);
  for (i32& w : a.networks[0].weights) w = static_cast<i32>(rng.below(1u << 16)) - (1 << 15);
  a.validate();
  return a;
}

// Games from random 8-ply openings (game k from opening k), both sides the agent `handle`.
std::vector<OthelloJob> bench_games(std::size_t n, int handle) {
  std::vector<OthelloJob> jobs(n);
  for (std::size_t k = 0; k < n; ++k) {
    Rng rng(2024, Purpose::kGame, static_cast<u32>(k));
    jobs[k].black = jobs[k].white = handle;
    jobs[k].start = othello::random_opening(rng, 8);
    jobs[k].seed = 1;
    jobs[k].game = static_cast<u32>(k);
  }
  return jobs;
}

struct GameFigures {
  std::size_t games = 0;
  double median_seconds = 0, games_per_s = 0, nodes_per_s = 0;
  u64 nodes = 0;  // of one run
  std::vector<double> seconds;
};

GameFigures measure_games(Backend& backend, std::span<const OthelloJob> jobs, int runs,
                          std::vector<play::OthelloRecord>& records) {
  GameFigures f;
  f.games = jobs.size();
  records.assign(jobs.size(), play::OthelloRecord{});
  for (int r = 0; r < runs; ++r) {
    const auto t = std::chrono::steady_clock::now();
    backend.play(jobs, records);
    f.seconds.push_back(seconds_since(t));
  }
  std::vector<double> sorted = f.seconds;
  std::sort(sorted.begin(), sorted.end());
  f.median_seconds =
      sorted.size() % 2 ? sorted[sorted.size() / 2] : 0.5 * (sorted[sorted.size() / 2 - 1] + sorted[sorted.size() / 2]);
  for (const auto& rec : records) f.nodes += rec.nodes;
  f.games_per_s = static_cast<double>(f.games) / f.median_seconds;
  f.nodes_per_s = static_cast<double>(f.nodes) / f.median_seconds;
  return f;
}

nlohmann::json figures_json(const GameFigures& f) {
  return {{"games", f.games},
          {"median_seconds", f.median_seconds},
          {"seconds_all_runs", f.seconds},
          {"games_per_s", f.games_per_s},
          {"nodes", f.nodes},
          {"nodes_per_s", f.nodes_per_s}};
}

// `save` writes the figures so far after each configuration: a run stopped by a time limit keeps
// the configurations it finished.
void games_bench(const Args& a, int threads, Backend& cpu, Backend* gpu, const std::string& why, nlohmann::json& out,
                 const std::function<void()>& save) {
  const std::vector<GameConfig> configs{{"ntuple depth 1", {1, -1}, 1024, 65536},
                                        {"ntuple depth 4", {4, -1}, 32, 32768},
                                        {"ntuple depth 4, exact from 14", {4, 14}, 16, 16384}};
  const int runs = std::max(3, a.repeats);
  fmt::print(
      "\nself-play: Edax-shape n-tuple agent (pseudo-random weights) against itself from random 8-ply openings; "
      "median of {} runs\n",
      runs);
  fmt::print("{:<32} {:>14} {:>14} {:>14} {:>14} {:>9} {:>8}\n", "configuration", "CPU games/s", "CPU nodes/s",
             "GPU games/s", "GPU nodes/s", "GPU/CPU", "parity");
  for (const GameConfig& c : configs) {
    const play::OthelloAgent agent = bench_agent(c);
    const int hc = cpu.add_agent(agent);
    const std::size_t cpu_n =
        static_cast<std::size_t>(a.cpu_games > 0 ? a.cpu_games : c.cpu_games_per_thread * threads);
    const std::size_t gpu_n = static_cast<std::size_t>(a.gpu_games > 0 ? a.gpu_games : c.gpu_games);
    const auto jobs = bench_games(std::max(cpu_n, gpu ? gpu_n : 0), hc);
    std::vector<play::OthelloRecord> cpu_records, gpu_records;
    const GameFigures fc = measure_games(cpu, std::span(jobs).first(cpu_n), runs, cpu_records);
    nlohmann::json j{{"configuration", c.name},
                     {"depth", c.limits.depth},
                     {"exact_empties", c.limits.exact_empties},
                     {"cpu", figures_json(fc)}};
    j["cpu"]["backend"] = cpu.name();
    std::string gpu_games = "-", gpu_nodes = "-", ratio = "-", parity = "-";
    if (gpu) {
      const int hg = gpu->add_agent(agent);
      if (hg != hc) fail("the backends numbered an agent differently");
      if (&c == &configs.front()) {
        // Warm-up, once, with the cheapest configuration (depth 1): the stack limit, the
        // arena and the clocks.
        std::vector<play::OthelloRecord> r;
        measure_games(*gpu, std::span(jobs).first(std::min<std::size_t>(jobs.size(), 256)), 1, r);
      }
      const GameFigures fg = measure_games(*gpu, std::span(jobs).first(gpu_n), runs, gpu_records);
      std::size_t same = 0;
      const std::size_t compared = std::min(cpu_n, gpu_n);
      for (std::size_t k = 0; k < compared; ++k) {
        const auto &x = cpu_records[k], &y = gpu_records[k];
        same += x.plies == y.plies && x.black_score == y.black_score && std::equal(x.moves, x.moves + x.plies, y.moves);
      }
      const auto stats = cuda_batch_stats(*gpu);
      j["gpu"] = figures_json(fg);
      j["gpu"]["backend"] = gpu->name();
      j["gpu"]["chunks"] = stats ? stats->chunks : 0;
      j["gpu_over_cpu"] = fg.games_per_s / fc.games_per_s;
      j["parity_games_identical"] = same;
      j["parity_games_compared"] = compared;
      gpu_games = fmt::format("{:.4g}", fg.games_per_s);
      gpu_nodes = fmt::format("{:.4g}", fg.nodes_per_s);
      ratio = fmt::format("{:.2f}x", fg.games_per_s / fc.games_per_s);
      parity = fmt::format("{}/{}", same, compared);
    }
    fmt::print("{:<32} {:>14.4g} {:>14.4g} {:>14} {:>14} {:>9} {:>8}\n", c.name, fc.games_per_s, fc.nodes_per_s,
               gpu_games, gpu_nodes, ratio, parity);
    fmt::print("  CPU: {} games a run ({}){}\n", cpu_n, cpu.name(),
               gpu ? fmt::format("; GPU: {} games a run", gpu_n) : "");
    out["games"].push_back(j);
    save();
  }
  if (!gpu) fmt::print("GPU games: {}\n", why);
}

}  // namespace

// One paper-size generation of training, CPU (extrapolated) and GPU.
void training_bench(const Args& a, int threads, Backend& cpu_backend, Backend* gpu, const std::string& why,
                    nlohmann::json& out) {
  Backend* const cpu = &cpu_backend;
  // The paper's setup (configs/paper.toml, with the paper's split by game).
  ga::SearchConfig config;
  config.islands.moves = {18, 22, 26, 30, 34, 38, 42, 46};
  config.islands.brkga = {.population_size = 100, .elite_count = 20, .mutant_count = 20, .elite_inheritance = 0.7};
  config.islands.seed = 1;
  config.tuple_sizes = ga::edax_tuple_sizes();
  config.region = ga::default_search_region();
  config.split = data::SplitBy::kGame;
  config.test_fraction = 0.2;
  config.validation_fraction = 0.2;
  config.train = TrainParams{};  // lr 0.03, 4 epochs, batch 1 (docs/training.md)

  std::string data_file = a.data;
  if (data_file.empty() && std::filesystem::exists("../shared/data/othello/logbook.gam.gz"))
    data_file = "../shared/data/othello/logbook.gam.gz";
  std::vector<data::Game> games;
  const auto t_data = std::chrono::steady_clock::now();
  if (!data_file.empty()) {
    games = data::load_games({std::filesystem::path(data_file)}, data::ReadOptions{}).games;
    out["data"] = data_file;
  } else {
    data::GenerateOptions go;
    go.games = a.games;
    go.seed = 1;
    games = data::generate_games(go);
    out["data"] = fmt::format("{} generated games (seed 1)", a.games);
  }
  const auto islands_data = ga::island_positions(games, config);
  fmt::print("data: {} ({} games, {:.1f} s to load and replay)\n", out["data"].get<std::string>(), games.size(),
             seconds_since(t_data));

  std::vector<ga::IslandFitnessData> fitness;
  for (const auto& island : islands_data) {
    const int h = cpu->add_positions(island.data);
    if (gpu && gpu->add_positions(island.data) != h) fail("the backends numbered a position set differently");
    fitness.push_back({h, island.num_fitness});
  }
  const ga::Decoder decoder(config.region, config.tuple_sizes);
  const ga::Archipelago archipelago = ga::make_archipelago(config.islands, decoder.num_keys());
  ga::FitnessOptions options;
  options.train = config.train;
  options.validation_fraction = config.validation_fraction;
  const ga::GenerationBatch batch =
      ga::build_generation_batch(decoder, archipelago.islands, fitness, options, config.islands.seed, 0);
  const std::size_t num_jobs = batch.jobs.size();
  const double gen_samples = training_samples(batch.jobs);
  fmt::print("generation: {} islands x {} individuals = {} jobs, {} epochs, batch {}; training positions per island:",
             islands_data.size(), config.islands.brkga.population_size, num_jobs, config.train.epochs,
             config.train.batch_size);
  for (const auto& s : batch.splits) fmt::print(" {}", s.train.size());
  fmt::print(" (validation: {}); {:.3g} training samples a generation\n", batch.splits[0].validation.size(),
             gen_samples);
  out["jobs_per_generation"] = num_jobs;
  out["training_samples_per_generation"] = gen_samples;
  out["epochs"] = config.train.epochs;
  for (std::size_t k = 0; k < batch.splits.size(); ++k)
    out["islands"].push_back({{"move", islands_data[k].move},
                              {"training_positions", batch.splits[k].train.size()},
                              {"validation_positions", batch.splits[k].validation.size()}});

  // CPU: a few individuals, round-robin over the islands, extrapolated.
  const std::size_t cpu_jobs = std::min<std::size_t>(num_jobs, a.cpu_jobs > 0 ? a.cpu_jobs : threads);
  std::vector<TrainJob> cpu_batch;
  std::vector<std::size_t> cpu_index;
  const std::size_t islands = batch.splits.size(), per_island = num_jobs / islands;
  for (std::size_t i = 0; cpu_batch.size() < cpu_jobs; ++i) {
    const std::size_t k = (i % islands) * per_island + i / islands;
    cpu_batch.push_back(batch.jobs[k]);
    cpu_index.push_back(k);
  }
  std::vector<TrainResult> cpu_results(cpu_batch.size());
  const auto t_cpu = std::chrono::steady_clock::now();
  cpu->train(cpu_batch, cpu_results);
  const double cpu_s = seconds_since(t_cpu);
  const double cpu_ind_s = static_cast<double>(cpu_jobs) / cpu_s;
  const double cpu_samples_s = training_samples(cpu_batch) / cpu_s;
  const double cpu_gen_s = static_cast<double>(num_jobs) / cpu_ind_s;
  fmt::print(
      "CPU ({}): {} individuals in {:.2f} s, extrapolated to the generation: {:.3g} samples/s, {:.2f} "
      "individuals/s, {:.1f} s per generation\n",
      cpu->name(), cpu_jobs, cpu_s, cpu_samples_s, cpu_ind_s, cpu_gen_s);
  out["cpu"] = {{"backend", cpu->name()},
                {"threads", threads},
                {"measured_individuals", cpu_jobs},
                {"measured_seconds", cpu_s},
                {"extrapolated", true},
                {"training_samples_per_s", cpu_samples_s},
                {"individuals_per_s", cpu_ind_s},
                {"seconds_per_generation", cpu_gen_s}};

  if (!gpu) {
    fmt::print("GPU: {}\n", why);
    out["gpu"] = nullptr;
    out["gpu_unavailable"] = why;
  } else {
    const auto info = cuda_device_info();
    // Warm-up (context, allocations, clocks): a small slice of the same batch.
    {
      std::vector<TrainResult> r(std::min<std::size_t>(num_jobs, 16));
      gpu->train(std::span(batch.jobs).first(r.size()), r);
    }
    std::vector<TrainResult> gpu_results(num_jobs);
    std::vector<double> times;
    for (int r = 0; r < a.repeats; ++r) {
      const auto t = std::chrono::steady_clock::now();
      gpu->train(batch.jobs, gpu_results);
      times.push_back(seconds_since(t));
    }
    const auto stats = cuda_batch_stats(*gpu);
    std::sort(times.begin(), times.end());
    const double gpu_s = times.front();
    const double gpu_samples_s = gen_samples / gpu_s, gpu_ind_s = static_cast<double>(num_jobs) / gpu_s;
    std::size_t agree = 0;
    for (std::size_t i = 0; i < cpu_index.size(); ++i) agree += same(cpu_results[i], gpu_results[cpu_index[i]]);
    const Traffic t = weight_traffic(batch.jobs);
    const double bw = info->memory_bandwidth_bytes_per_s;
    fmt::print("GPU ({}): {:.3f} s per generation (best of {}; {} chunk(s)): {:.3g} samples/s, {:.1f} individuals/s\n",
               gpu->name(), gpu_s, a.repeats, stats ? stats->chunks : 0, gpu_samples_s, gpu_ind_s);
    fmt::print("GPU / CPU: {:.1f}x (seconds per generation {:.1f} vs {:.3f})\n", cpu_gen_s / gpu_s, cpu_gen_s, gpu_s);
    fmt::print("parity: {} of the {} CPU-measured jobs have the same loss sums on the GPU\n", agree, cpu_index.size());
    fmt::print(
        "weight traffic per generation: {:.3g} reads + {:.3g} atomic adds = {:.1f} GB at 4 bytes a weight, "
        "{:.1f} GB if every access missed L2 (32-byte sectors)\n",
        t.reads, t.adds, t.useful_bytes / 1e9, t.sector_bytes / 1e9);
    fmt::print(
        "memory bandwidth {:.2f} TB/s ({}): bound {:.3f} s (4-byte) / {:.3f} s (sectors); measured {:.3f} s = "
        "{:.0f}% / {:.0f}% of the bound\n",
        bw / 1e12, info->bandwidth_from_device ? "from the device attributes" : "H200 datasheet, device gave none",
        t.useful_bytes / bw, t.sector_bytes / bw, gpu_s, 100 * t.useful_bytes / bw / gpu_s,
        100 * t.sector_bytes / bw / gpu_s);
    out["gpu"] = {{"backend", gpu->name()},
                  {"device", info->name},
                  {"multiprocessors", info->multiprocessors},
                  {"l2_bytes", info->l2_bytes},
                  {"seconds_per_generation", gpu_s},
                  {"seconds_all_repeats", times},
                  {"chunks", stats ? stats->chunks : 0},
                  {"training_samples_per_s", gpu_samples_s},
                  {"individuals_per_s", gpu_ind_s},
                  {"parity_jobs_identical", agree},
                  {"parity_jobs_compared", cpu_index.size()},
                  {"weight_reads", t.reads},
                  {"weight_atomic_adds", t.adds},
                  {"weight_bytes_4byte", t.useful_bytes},
                  {"weight_bytes_sectors", t.sector_bytes},
                  {"memory_bandwidth_bytes_per_s", bw},
                  {"bandwidth_from_device", info->bandwidth_from_device},
                  {"bound_seconds_4byte", t.useful_bytes / bw},
                  {"bound_seconds_sectors", t.sector_bytes / bw}};
    out["gpu_over_cpu"] = cpu_gen_s / gpu_s;

    if (a.l2_experiment && info->l2_bytes > 0) {
      // Fewer jobs resident at once, so that their tables fit in L2: the memory budget capped at
      // the L2 size splits the generation into chunks of a few dozen jobs, run one after another.
      const std::string mb = std::to_string(std::max<std::size_t>(1, info->l2_bytes >> 20));
      setenv(kCudaMemoryLimitEnv, mb.c_str(), 1);
      std::vector<TrainResult> r(num_jobs);
      const auto t0 = std::chrono::steady_clock::now();
      gpu->train(batch.jobs, r);
      const double s = seconds_since(t0);
      unsetenv(kCudaMemoryLimitEnv);
      const auto st = cuda_batch_stats(*gpu);
      std::size_t agree_all = 0;
      for (std::size_t k = 0; k < num_jobs; ++k) agree_all += same(r[k], gpu_results[k]);
      fmt::print(
          "L2 experiment: budget {} MiB -> {} chunks, {:.3f} s per generation ({:.2f}x the single launch); "
          "{} of {} jobs identical to it\n",
          mb, st ? st->chunks : 0, s, s / gpu_s, agree_all, num_jobs);
      out["l2_experiment"] = {{"budget_mib", std::stoul(mb)},
                              {"chunks", st ? st->chunks : 0},
                              {"seconds_per_generation", s},
                              {"jobs_identical", agree_all}};
    }
  }
}

int main(int argc, char** argv) try {
  bench::print_lines_as_they_come();
  const Args a = parse(argc, argv);
  const int threads = a.threads > 0 ? a.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  nlohmann::json out;
  std::string why;
  const bool gpu_ok = cuda_device_available(&why);
  auto cpu = make_backend("cpu", threads);
  std::unique_ptr<Backend> gpu = gpu_ok ? make_backend("cuda", threads) : nullptr;
  if (!gpu) out["gpu_unavailable"] = why;
  if (a.run_training) training_bench(a, threads, *cpu, gpu.get(), why, out);
  const auto save = [&] {
    if (a.json.empty()) return;
    std::ofstream f(a.json);
    if (!f) fail("{}: cannot write", a.json);
    f << out.dump(2) << "\n";
  };
  if (a.run_games) games_bench(a, threads, *cpu, gpu.get(), why, out, save);
  save();
  if (!a.json.empty()) fmt::print("figures written to {}\n", a.json);
  return 0;
} catch (const ef::Error& e) {
  fmt::print(stderr, "gpu_bench: error: {}\n", e.what());
  return 2;
}
