#include "ga/search_run.hpp"
#include <fmt/core.h>
#include <fmt/os.h>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>
#include <numeric>
#include <sstream>
#include "eval/score_table.hpp"
#include "eval/shape.hpp"
#include "core/files.hpp"
#include "evalforge/core/error.hpp"
#include "ga/decoder.hpp"
#include "ga/fitness.hpp"

namespace ef::ga {

namespace fs = std::filesystem;

namespace {

constexpr char kMagic[8] = {'E', 'F', 'C', 'K', 'P', 'T', '0', '1'};

u64 fnv1a(const std::string& bytes) {
  u64 h = 1469598103934665603ull;
  for (unsigned char c : bytes) h = (h ^ c) * 1099511628211ull;
  return h;
}

template <typename T>
void put(std::string& out, const T& v) {
  out.append(reinterpret_cast<const char*>(&v), sizeof v);
}
template <typename T>
T get(const std::string& in, std::size_t& pos, const fs::path& file) {
  if (pos + sizeof(T) > in.size()) fail("{}: checkpoint is truncated", file.string());
  T v;
  std::memcpy(&v, in.data() + pos, sizeof v);
  pos += sizeof v;
  return v;
}

// Checkpoint: magic, generation, evaluated flag, islands (size, keys, fitness), FNV-1a of all.
struct Checkpoint {
  Archipelago archipelago;
  bool evaluated = false;  // fitness of `archipelago.generation` already measured
};

void save_checkpoint(const fs::path& file, const Checkpoint& c) {
  std::string b(kMagic, sizeof kMagic);
  put<i32>(b, c.archipelago.generation);
  put<std::uint8_t>(b, c.evaluated ? 1 : 0);
  put<u32>(b, static_cast<u32>(c.archipelago.islands.size()));
  for (std::size_t k = 0; k < c.archipelago.islands.size(); ++k) {
    const Population& p = c.archipelago.islands[k];
    put<i32>(b, c.archipelago.moves[k]);
    put<i32>(b, p.size);
    put<i32>(b, p.num_keys);
    b.append(reinterpret_cast<const char*>(p.keys.data()), p.keys.size() * sizeof(double));
    b.append(reinterpret_cast<const char*>(p.fitness.data()), p.fitness.size() * sizeof(double));
  }
  put<u64>(b, fnv1a(b));
  write_atomically(file, b);
}

Checkpoint load_checkpoint(const fs::path& file) {
  const std::string b = read_file(file);
  if (b.size() < sizeof kMagic + 8 || std::memcmp(b.data(), kMagic, sizeof kMagic) != 0)
    fail("{}: not an evalforge checkpoint", file.string());
  u64 stored;
  std::memcpy(&stored, b.data() + b.size() - 8, 8);
  if (fnv1a(b.substr(0, b.size() - 8)) != stored) fail("{}: checkpoint is corrupt (checksum mismatch)", file.string());
  std::size_t pos = sizeof kMagic;
  Checkpoint c;
  c.archipelago.generation = get<i32>(b, pos, file);
  c.evaluated = get<std::uint8_t>(b, pos, file) != 0;
  const u32 n = get<u32>(b, pos, file);
  for (u32 k = 0; k < n; ++k) {
    c.archipelago.moves.push_back(get<i32>(b, pos, file));
    Population p;
    p.size = get<i32>(b, pos, file);
    p.num_keys = get<i32>(b, pos, file);
    const std::size_t nk = static_cast<std::size_t>(p.size) * p.num_keys;
    if (p.size <= 0 || p.num_keys <= 0 || pos + (nk + p.size) * sizeof(double) > b.size())
      fail("{}: checkpoint is truncated", file.string());
    p.keys.resize(nk);
    std::memcpy(p.keys.data(), b.data() + pos, nk * sizeof(double));
    pos += nk * sizeof(double);
    p.fitness.resize(p.size);
    std::memcpy(p.fitness.data(), b.data() + pos, p.size * sizeof(double));
    pos += p.size * sizeof(double);
    c.archipelago.islands.push_back(std::move(p));
  }
  return c;
}

struct IslandData {
  std::vector<IslandFitnessData> fitness;
  std::vector<std::vector<u32>> fitness_ids, test_ids;
};

IslandData upload_data(const SearchConfig& c, Backend& backend, bool progress) {
  data::ReadOptions ro;
  std::vector<fs::path> files(c.data_files.begin(), c.data_files.end());
  const data::GameDatabase db = data::load_games(files, ro);
  if (db.games.empty()) fail("{}: no usable games", files.empty() ? "(no data)" : files[0].string());
  if (progress && !db.problems.empty())
    fmt::print(stderr, "{} record(s) skipped; first: {}:{}: {}\n", db.problems.size(), db.problems[0].file,
               db.problems[0].record, db.problems[0].what);
  IslandData d;
  const auto options = c.position_options();
  for (int move : c.islands.moves) {
    // The fitness/test split is the same for every generation (method.md 1.3): seeded by the run seed.
    const data::Split split = data::fitness_test_at_move(db.games, move, c.split, c.test_fraction, c.islands.seed, options);
    if (split.first.size() < 5 || split.second.size() == 0)
      fail("move {}: only {} fitness and {} test positions in the data", move, split.first.size(), split.second.size());
    ResidentSplit r = make_resident(split, backend);
    d.fitness.push_back({r.handle, static_cast<u32>(split.first.size())});
    d.fitness_ids.push_back(std::move(r.fitness_ids));
    d.test_ids.push_back(std::move(r.test_ids));
    if (progress)
      fmt::print("island move {:>2}: {} fitness, {} test positions\n", move, split.first.size(), split.second.size());
  }
  return d;
}

int best_index(const Population& p) {
  int best = 0;
  for (int i = 1; i < p.size; ++i)
    if (p.fitness[i] < p.fitness[best]) best = i;  // first of equals: the lower index
  return best;
}

std::string format_duration(double s) {
  if (!std::isfinite(s) || s < 0) return "?";
  const long t = std::lround(s);
  if (t >= 3600) return fmt::format("{}h{:02}m", t / 3600, (t % 3600) / 60);
  if (t >= 60) return fmt::format("{}m{:02}s", t / 60, t % 60);
  return fmt::format("{}s", t);
}

// Keeps the rows of metrics.csv for generations < `generation` (a resumed run rewrites the rest).
void truncate_metrics(const fs::path& file, int generation) {
  std::ifstream in(file);
  std::string line, kept;
  bool header = true;
  while (std::getline(in, line)) {
    if (header) {
      kept += line + "\n";
      header = false;
      continue;
    }
    if (!line.empty() && std::stoi(line.substr(0, line.find(','))) < generation) kept += line + "\n";
  }
  write_atomically(file, kept);
}

SearchOutcome run_loop(const SearchConfig& c, const fs::path& dir, Checkpoint state, const SearchRunOptions& o) {
  auto backend = make_backend(o.backend, o.threads);
  const Decoder decoder(c.region, c.tuple_sizes);
  const IslandData data = upload_data(c, *backend, o.progress);
  FitnessOptions fo;
  fo.train = c.train;
  fo.validation_fraction = c.validation_fraction;
  const u64 seed = c.islands.seed;
  const int n = static_cast<int>(c.islands.moves.size());

  std::ofstream metrics(dir / "metrics.csv", std::ios::app);
  std::ofstream log(dir / "log.txt", std::ios::app);
  if (!metrics || !log) fail("{}: cannot write the run files", dir.string());
  auto say = [&](const std::string& line) {
    log << line << "\n";
    log.flush();
    if (o.progress) fmt::print("{}\n", line);
  };
  say(fmt::format("backend {}, {} islands x {}, {} generations, starting at generation {}", backend->name(), n,
                  c.islands.brkga.population_size, c.generations, state.archipelago.generation));

  SearchOutcome out;
  Archipelago& a = state.archipelago;
  if (state.evaluated) {  // the checkpoint of a finished run, possibly extended now
    if (a.generation + 1 >= c.generations) {
      out.generations_done = a.generation + 1;
      out.complete = true;
      return out;
    }
    advance_generation(a, c.islands);
  }
  double total_s = 0;
  int timed = 0, ran = 0;
  while (true) {
    const int g = a.generation;
    const auto t0 = std::chrono::steady_clock::now();
    evaluate_generation(*backend, decoder, a.islands, data.fitness, fo, seed, static_cast<u32>(g));

    // Test score of every island's best at its move: train on all fitness positions, test set.
    std::vector<double> test(n, std::nan(""));
    const bool last = g + 1 >= c.generations;
    std::vector<ntuple::Shape> best_shapes;
    std::vector<ntuple::Geometry> geometries;
    for (int k = 0; k < n; ++k) {
      const int b = best_index(a.islands[k]);
      ntuple::Shape s = decoder.decode(a.islands[k].individual(b));
      s.name = fmt::format("island-{}", a.moves[k]);
      s.move = a.moves[k];
      geometries.push_back(s.geometry());
      best_shapes.push_back(std::move(s));
    }
    if (c.test_every > 0 && (g % c.test_every == 0 || last)) {
      std::vector<TrainJob> jobs(n);
      for (int k = 0; k < n; ++k) {
        jobs[k].geometry = &geometries[k];
        jobs[k].positions = data.fitness[k].positions;
        jobs[k].train_ids = data.fitness_ids[k];
        jobs[k].eval_ids = data.test_ids[k];
        jobs[k].params = c.train;
        jobs[k].params.seed = seed;
        jobs[k].stream[0] = static_cast<u32>(k);
        jobs[k].stream[1] = 0x80000000u | static_cast<u32>(g);  // never equal to a fitness stream
      }
      std::vector<TrainResult> results(n);
      backend->train(jobs, results);
      for (int k = 0; k < n; ++k) test[k] = results[k].eval_loss.mse();
    }
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::string line = fmt::format("gen {:>5}/{} best", g, c.generations);
    for (int k = 0; k < n; ++k) {
      const Population& p = a.islands[k];
      double sum = 0, worst = p.fitness[0];
      for (double f : p.fitness) {
        sum += f;
        worst = std::max(worst, f);
      }
      const double best = p.fitness[best_index(p)];
      metrics << fmt::format("{},{},{},{:.6f},{:.6f},{:.6f},{},{:.3f}\n", g, k, a.moves[k], best, sum / p.size, worst,
                             std::isnan(test[k]) ? std::string() : fmt::format("{:.6f}", test[k]), secs);
      line += fmt::format(" {}:{:.2f}", a.moves[k], best);
    }
    metrics.flush();
    total_s += secs;
    ++timed;
    ++ran;
    line += fmt::format(" | {:.2f} s/gen, ETA {}", secs, format_duration(total_s / timed * (c.generations - g - 1)));
    say(line);
    save_shapes_json(dir / "best_shapes.json", best_shapes);

    const bool stop = (o.stop && o.stop->load()) || (o.stop_after_generations >= 0 && ran >= o.stop_after_generations);
    if (last) {
      save_checkpoint(dir / "checkpoint.bin", {a, true});
      out.generations_done = g + 1;
      out.complete = true;
      say(fmt::format("search complete: {} generations; best shapes in {}", g + 1, (dir / "best_shapes.json").string()));
      return out;
    }
    advance_generation(a, c.islands);
    if (stop || (c.checkpoint_every > 0 && a.generation % c.checkpoint_every == 0))
      save_checkpoint(dir / "checkpoint.bin", {a, false});
    if (stop) {
      out.generations_done = a.generation;
      out.interrupted = true;
      say(fmt::format("stopped after generation {}; checkpoint written; continue with: evalforge search --resume {}",
                      g, dir.string()));
      return out;
    }
  }
}

}  // namespace

SearchOutcome run_search(const SearchConfig& config, const fs::path& dir, const SearchRunOptions& options) {
  if (config.data_files.empty()) fail("search: no data (give --data FILE or [data] files in the config)");
  SearchConfig c = config;
  for (auto& f : c.data_files) {
    if (!fs::exists(f)) fail("{}: no such data file", f);
    f = fs::absolute(f).lexically_normal().string();
  }
  if (fs::exists(dir / "checkpoint.bin") || fs::exists(dir / "metrics.csv"))
    fail("{}: already holds a run (use --resume {} to continue it, or another --out)", dir.string(), dir.string());
  fs::create_directories(dir);
  if (options.progress) fmt::print("run directory: {}\n", dir.string());
  write_atomically(dir / "config.toml", search_config_to_toml(c));
  write_atomically(dir / "metrics.csv", "generation,island,move,best,mean,worst,test_mse,seconds\n");
  Checkpoint start;
  start.archipelago = make_archipelago(c.islands, Decoder(c.region, c.tuple_sizes).num_keys());
  save_checkpoint(dir / "checkpoint.bin", start);
  return run_loop(c, dir, std::move(start), options);
}

SearchOutcome resume_search(const fs::path& dir, const SearchRunOptions& options, int generations) {
  if (!fs::exists(dir / "config.toml") || !fs::exists(dir / "checkpoint.bin"))
    fail("{}: not a search run directory (no config.toml / checkpoint.bin)", dir.string());
  SearchConfig c = load_search_config((dir / "config.toml").string());
  if (generations > 0) c.generations = generations;
  Checkpoint state = load_checkpoint(dir / "checkpoint.bin");
  if (state.archipelago.moves != c.islands.moves) fail("{}: checkpoint does not match config.toml", dir.string());
  truncate_metrics(dir / "metrics.csv", state.archipelago.generation + (state.evaluated ? 1 : 0));
  return run_loop(c, dir, std::move(state), options);
}

}  // namespace ef::ga
