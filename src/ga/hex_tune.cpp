#include "ga/hex_tune.hpp"
#include <fmt/core.h>
#include <atomic>
#include <optional>
#include <thread>
#include "core/bytes.hpp"
#include "core/toml_reader.hpp"
#include "evalforge/core/error.hpp"
#include "evalforge/core/parallel.hpp"
#include "evalforge/core/rng.hpp"
#include "ga/brkga.hpp"
#include "play/hex_match.hpp"

namespace ef::ga {

namespace {
constexpr const char* kKind = "hex-tune";
constexpr const char* kRows = "generations.csv";
constexpr const char* kRowsHeader = "generation,individual,gamma,wins,games,fitness";
constexpr const char* kBest = "best.csv";
constexpr const char* kBestHeader = "generation,gamma,fitness";
constexpr const char* kCheckpoint = "population.bin";
constexpr u32 kIsland = 0;

std::string ev_spec(double gamma, int depth) { return fmt::format("ev:gamma={:.17g},depth={},groups=1", gamma, depth); }
}  // namespace

void validate_hex_tune_config(const HexTuneConfig& c, const std::string& who) {
  BrkgaParams p{c.population, c.elite, c.mutants, 0.7};
  p.validate();
  if (c.generations < 1 || c.generations > 100000) fail("{}: generations {} is outside 1..100000", who, c.generations);
  if (c.games < 2 || c.games > 100000 || c.games % 2) fail("{}: games {} must be even, 2..100000", who, c.games);
  if (!(c.gamma_max > 0 && c.gamma_max <= 1e6)) fail("{}: gamma_max {} is outside (0, 10^6]", who, c.gamma_max);
  if (c.size < 1 || c.size > hex::kMaxSide) fail("{}: size {} is outside 1..{}", who, c.size, hex::kMaxSide);
  play::parse_hex_player(c.opponent);
  play::parse_hex_player(ev_spec(c.gamma_max, c.depth));  // checks the depth
}

HexTuneConfig load_hex_tune_config(const std::string& file) {
  const toml::table t = parse_toml_file(file);
  TableReader root(t, file, "");
  root.allow({"hex_tune"});
  const toml::table* m = t["hex_tune"].as_table();
  if (!m) fail("{}: [hex_tune] is required", file);
  TableReader r(*m, file, "hex_tune");
  r.allow({"opponent", "population", "elite", "mutants", "generations", "games", "gamma_max", "depth", "size", "seed"});
  HexTuneConfig c;
  r.text("opponent", c.opponent);
  r.integer("population", c.population, 2, 100000);
  r.integer("elite", c.elite, 1, 100000);
  r.integer("mutants", c.mutants, 0, 100000);
  r.integer("generations", c.generations, 1, 100000);
  r.integer("games", c.games, 2, 100000);
  r.real("gamma_max", c.gamma_max, 1e-9, 1e6);
  r.integer("depth", c.depth, 1, play::kHexMaxDepth);
  r.integer("size", c.size, 1, hex::kMaxSide);
  r.seed("seed", c.seed);
  validate_hex_tune_config(c, file);
  return c;
}

std::string hex_tune_config_toml(const HexTuneConfig& c) {
  return fmt::format(
      "[hex_tune]\nopponent = {}\npopulation = {}\nelite = {}\nmutants = {}\ngenerations = {}\ngames = {}\n"
      "gamma_max = {:.17g}\ndepth = {}\nsize = {}\nseed = {}\n",
      toml_quote(c.opponent), c.population, c.elite, c.mutants, c.generations, c.games, c.gamma_max, c.depth, c.size, c.seed);
}

namespace {

std::string encode(u32 generation, const Population& p) {
  ByteWriter w;
  w.put<u32>(generation);
  w.put<i32>(p.size);
  w.put<i32>(p.num_keys);
  w.put_array<double>(p.keys);
  w.put_array<double>(p.fitness);
  return w.take();
}

Population decode(const std::string& bytes, const HexTuneConfig& c, const std::string& source, u32& generation) {
  ByteReader r(bytes, source);
  generation = r.get<u32>("generation");
  if (generation > static_cast<u32>(c.generations)) r.bad(fmt::format("generation {} is past the run's {}", generation, c.generations));
  Population p;
  p.size = r.get<i32>("population size");
  p.num_keys = r.get<i32>("keys per individual");
  if (p.size != c.population || p.num_keys != 1) r.bad(fmt::format("a population of {} x {} keys, not {} x 1", p.size, p.num_keys, c.population));
  p.keys = r.get_array<double>(static_cast<std::size_t>(p.size), "keys");
  p.fitness = r.get_array<double>(static_cast<std::size_t>(p.size), "fitness");
  r.expect_end();
  for (double k : p.keys)
    if (!(k >= 0 && k < 1)) r.bad(fmt::format("key {} is outside [0, 1)", k));
  return p;
}

}  // namespace

HexTuneResult run_hex_tune(const std::filesystem::path& dir, const HexTuneConfig* config, const HexTuneOptions& options) {
  std::optional<RunDir> run;
  HexTuneConfig c;
  Population pop;
  u32 generation = 0;
  if (config) {
    c = *config;
    validate_hex_tune_config(c, "hex tune");
    c.opponent = play::parse_hex_player(c.opponent).spec;  // canonical: defaults may change, runs may not
    run = RunDir::create(dir, kKind, options.resume_hint, {{kRows, kRowsHeader}, {kBest, kBestHeader}});
    run->set_sink(options.progress);
    pop = random_population(c.population, 1, c.seed, kIsland);
    run->write_checkpoint(kCheckpoint, encode(0, pop));
    run->commit_config(hex_tune_config_toml(c));
  } else {
    run = RunDir::open(dir, kKind);
    run->set_sink(options.progress);
    c = load_hex_tune_config(run->file("config.toml").string());
    const auto bytes = run->read_checkpoint(kCheckpoint);
    if (!bytes) fail("{}: no checkpoint", run->file(kCheckpoint).string());
    pop = decode(*bytes, c, run->file(kCheckpoint).string(), generation);
    // Rows of the generation in flight at the stop are replayed: drop them.
    auto keep = [&](const RunDir::Row& f, const std::string& where) {
      return parse_int_field(f[0], 0, c.generations - 1, where, "generation") < generation;
    };
    run->resume_table(kRows, kRowsHeader, keep);
    run->resume_table(kBest, kBestHeader, keep);
  }
  const play::HexPlayer opponent = play::parse_hex_player(c.opponent);
  const int threads = options.threads > 0 ? options.threads : std::max(1u, std::thread::hardware_concurrency());
  run->log(fmt::format("hex tune: gamma in [0, {}] against {}, population {} (elite {}, mutants {}), {} generations of {} "
                       "games each{}",
                       c.gamma_max, opponent.spec, c.population, c.elite, c.mutants, c.generations, c.games,
                       generation ? fmt::format(", resuming at generation {}", generation) : ""));
  const BrkgaParams params{c.population, c.elite, c.mutants, 0.7};
  const hex::Board start = hex::empty_board(c.size);
  HexTuneResult result;
  for (; generation < static_cast<u32>(c.generations); ++generation) {
    if (options.stop_requested && options.stop_requested()) {
      if (options.stopped) *options.stopped = true;
      break;
    }
    // The individuals still to evaluate (the elite carries its fitness over).
    std::vector<int> todo;
    for (int i = 0; i < pop.size; ++i)
      if (!is_evaluated(pop.fitness[i])) todo.push_back(i);
    std::vector<play::HexPlayer> players(pop.size);
    for (int i : todo) players[i] = play::parse_hex_player(ev_spec(pop.keys[i] * c.gamma_max, c.depth));
    // The games' stream: the same for every individual of this generation.
    const u64 game_seed = Rng(c.seed, Purpose::kGame, generation, 0xC0FFEE, 0).next_u64();
    std::vector<std::atomic<int>> wins(pop.size);
    std::atomic<std::size_t> next{0};
    const std::size_t units = todo.size() * static_cast<std::size_t>(c.games);
    run_parallel(std::min<int>(threads, static_cast<int>(std::max<std::size_t>(units, 1))), [&] {
      play::HexTable table;
      for (std::size_t k; (k = next.fetch_add(1)) < units;) {
        const int i = todo[k / c.games];
        const u32 g = static_cast<u32>(k % c.games);
        const bool black = g % 2 == 0;
        const play::HexRecord r = black ? table.play(players[i], opponent, start, game_seed, g)
                                        : table.play(opponent, players[i], start, game_seed, g);
        if ((r.black_score > 0) == black) ++wins[i];
      }
    });
    std::string rows;
    for (int i : todo) {
      pop.fitness[i] = 1.0 - static_cast<double>(wins[i]) / c.games;
      rows += fmt::format("{},{},{:.17g},{},{},{:.17g}\n", generation, i, pop.keys[i] * c.gamma_max, wins[i].load(), c.games,
                          pop.fitness[i]);
    }
    sort_population(pop);
    run->append_rows(kRows, rows);
    run->append_rows(kBest, fmt::format("{},{:.17g},{:.17g}\n", generation, pop.keys[0] * c.gamma_max, pop.fitness[0]));
    run->log(fmt::format("hex tune: generation {}: best gamma {:.4f} wins {:.1f}% ({} evaluated)", generation,
                         pop.keys[0] * c.gamma_max, 100 * (1 - pop.fitness[0]), todo.size()));
    if (generation + 1 < static_cast<u32>(c.generations)) pop = next_generation(pop, params, c.seed, kIsland, generation + 1);
    run->write_checkpoint(kCheckpoint, encode(generation + 1, pop));
  }
  result.generations_done = static_cast<int>(generation);
  if (is_evaluated(pop.fitness[0])) {
    result.best_gamma = pop.keys[0] * c.gamma_max;
    result.best_fitness = pop.fitness[0];
  }
  return result;
}

}  // namespace ef::ga
