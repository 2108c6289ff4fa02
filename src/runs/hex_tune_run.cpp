#include "runs/hex_tune_run.hpp"
#include <fmt/core.h>
#include <atomic>
#include <optional>
#include <thread>
#include "core/bytes.hpp"
#include "core/parallel.hpp"
#include "core/toml_reader.hpp"
#include "evalforge/core/error.hpp"
#include "evalforge/core/rng.hpp"
#include "evalforge/ga/brkga.hpp"
#include "evalforge/runs/run_session.hpp"
#include "games/hex/player_spec.hpp"
#include "runs/run_kinds.hpp"

namespace ef::ga {

namespace {
constexpr const char* kKind = run_kind_name(RunKind::kHexTune);
constexpr const char* kRows = "generations.csv";
constexpr const char* kRowsHeader = "generation,individual,gamma,wins,games,fitness";
constexpr const char* kBest = "best.csv";
constexpr const char* kBestHeader = "generation,gamma,fitness";
constexpr const char* kCheckpoint = "population.bin";
constexpr u32 kIsland = 0;

// The tuned player with its gamma set.
play::HexPlayer with_gamma(const play::HexPlayer& base, double gamma) {
  play::HexPlayer p = base;
  p.agent.params.betweenness.gamma = gamma;
  p.spec = p.agent.name = fmt::format("{} (gamma {:.17g})", base.spec, gamma);
  return p;
}
}  // namespace

HexTunePlayers validate_hex_tune_config(const HexTuneConfig& c, const std::string& who) {
  BrkgaParams p{c.population, c.elite, c.mutants, 0.7};
  p.validate();
  if (c.generations < 1 || c.generations > 100000) fail("{}: generations {} is outside 1..100000", who, c.generations);
  if (c.games < 2 || c.games > 100000 || c.games % 2) fail("{}: games {} must be even, 2..100000", who, c.games);
  if (!(c.gamma_max > 0 && c.gamma_max <= 1e6)) fail("{}: gamma_max {} is outside (0, 10^6]", who, c.gamma_max);
  if (c.size < 1 || c.size > hex::kMaxSide) fail("{}: size {} is outside 1..{}", who, c.size, hex::kMaxSide);
  HexTunePlayers players{play::parse_hex_player(c.opponent), play::parse_hex_player(c.player)};
  const play::HexPlayer& tuned = players.player;
  if (tuned.kind != play::HexPlayer::Kind::kAgent || tuned.agent.params.kind != play::HexEvaluator::kBetweenness)
    fail("{}: player '{}' is not an ev player (gamma is what is tuned)", who, c.player);
  return players;
}

HexTuneConfig load_hex_tune_config(const std::string& file, HexTunePlayers* players) {
  const toml::table t = parse_run_config(file);
  TableReader root(t, file, "");
  root.allow({"hex_tune"});
  const toml::table* m = t["hex_tune"].as_table();
  if (!m) fail("{}: [hex_tune] is required", file);
  TableReader r(*m, file, "hex_tune");
  r.allow(
      {"player", "opponent", "population", "elite", "mutants", "generations", "games", "gamma_max", "size", "seed"});
  HexTuneConfig c;
  r.text("player", c.player);
  r.text("opponent", c.opponent);
  r.integer("population", c.population, 2, 100000);
  r.integer("elite", c.elite, 1, 100000);
  r.integer("mutants", c.mutants, 0, 100000);
  r.integer("generations", c.generations, 1, 100000);
  r.integer("games", c.games, 2, 100000);
  r.real("gamma_max", c.gamma_max, 1e-9, 1e6);
  r.integer("size", c.size, 1, hex::kMaxSide);
  r.seed("seed", c.seed);
  HexTunePlayers parsed = validate_hex_tune_config(c, file);
  if (players) *players = std::move(parsed);
  return c;
}

std::string hex_tune_config_toml(const HexTuneConfig& c) {
  return fmt::format(
      "[hex_tune]\nplayer = {}\nopponent = {}\npopulation = {}\nelite = {}\nmutants = {}\ngenerations = {}\n"
      "games = {}\ngamma_max = {:.17g}\nsize = {}\nseed = {}\n",
      toml_quote(c.player), toml_quote(c.opponent), c.population, c.elite, c.mutants, c.generations, c.games,
      c.gamma_max, c.size, c.seed);
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
  if (generation > static_cast<u32>(c.generations))
    r.bad(fmt::format("generation {} is past the run's {}", generation, c.generations));
  Population p;
  p.size = r.get<i32>("population size");
  p.num_keys = r.get<i32>("keys per individual");
  if (p.size != c.population || p.num_keys != 1)
    r.bad(fmt::format("a population of {} x {} keys, not {} x 1", p.size, p.num_keys, c.population));
  p.keys = r.get_array<double>(static_cast<std::size_t>(p.size), "keys");
  p.fitness = r.get_array<double>(static_cast<std::size_t>(p.size), "fitness");
  r.expect_end();
  for (double k : p.keys)
    if (!(k >= 0 && k < 1)) r.bad(fmt::format("key {} is outside [0, 1)", k));
  return p;
}

// The opponent's and the player's trees, and the resume check's table of rows seen.
void check_hex_tune_memory(RunSession& session, const HexTuneConfig& c, const HexTunePlayers& players,
                           const HexTuneOptions& options) {
  const play::HexPlayer &opponent = players.opponent, &player = players.player;
  const int threads = resolve_threads(options.threads);
  session.check_memory("hex tune",
                       {play::hex_tree_memory({&opponent, &player}, c.size, threads),
                        {"rows seen on resume", static_cast<double>(c.generations) * c.population / 8}},
                       "fewer UCT playouts or fewer threads");
}

}  // namespace

HexTuneResult run_hex_tune(const std::filesystem::path& dir, const HexTuneConfig* config,
                           const HexTuneOptions& options) {
  RunSession session = config ? RunSession::start_new(dir, kKind, options) : RunSession::resume(dir, kKind, options);
  HexTuneConfig c;
  HexTunePlayers players;  // parsed once, here or by the loader
  Population pop;
  u32 generation = 0;
  if (config) {
    c = *config;
    players = validate_hex_tune_config(c, "hex tune");
    // Canonical specs (numbers in their shortest exact form): defaults may change, a run may not.
    c.opponent = players.opponent.spec;
    c.player = players.player.spec;
    check_hex_tune_memory(session, c, players, options);
    pop = random_population(c.population, 1, c.seed, kIsland);
    session.create({{kRows, kRowsHeader}, {kBest, kBestHeader}}, hex_tune_config_toml(c),
                   [&](RunDir& run) { run.write_checkpoint(kCheckpoint, encode(0, pop)); });
  } else {
    c = load_hex_tune_config(session.config_file(), &players);
    check_hex_tune_memory(session, c, players, options);
    RunDir* run = &session.run();
    const auto bytes = run->read_checkpoint(kCheckpoint);
    if (!bytes) fail("{}: no checkpoint", run->file(kCheckpoint).string());
    pop = decode(*bytes, c, run->file(kCheckpoint).string(), generation);
    // Rows of the generation in flight at the stop are replayed: drop them. Kept rows must be
    // ones this run could have written.
    std::vector<std::vector<bool>> seen(c.generations, std::vector<bool>(c.population, false));
    run->resume_table(kRows, kRowsHeader, [&](const RunDir::Row& f, const std::string& where) {
      const i64 g = parse_int_field(f[0], 0, c.generations - 1, where, "generation");
      if (g >= generation) return false;
      const i64 i = parse_int_field(f[1], 0, c.population - 1, where, "individual");
      if (seen[g][i]) fail("{}: individual {} of generation {} appears twice", where, i, g);
      seen[g][i] = true;
      const double gamma = parse_real_field(f[2], where, "gamma");
      if (gamma < 0 || gamma > c.gamma_max) fail("{}: gamma {} is outside [0, {}]", where, gamma, c.gamma_max);
      const i64 wins = parse_int_field(f[3], 0, c.games, where, "wins");
      if (parse_int_field(f[4], c.games, c.games, where, "games") != c.games)
        fail("{}: games is not {}", where, c.games);
      const double fitness = parse_real_field(f[5], where, "fitness");
      if (fitness != 1.0 - static_cast<double>(wins) / c.games)
        fail("{}: fitness {} is not 1 - wins / games", where, fitness);
      return true;
    });
    run->resume_table(kBest, kBestHeader, [&](const RunDir::Row& f, const std::string& where) {
      if (parse_int_field(f[0], 0, c.generations - 1, where, "generation") >= generation) return false;
      const double gamma = parse_real_field(f[1], where, "gamma");
      const double fitness = parse_real_field(f[2], where, "fitness");
      if (gamma < 0 || gamma > c.gamma_max || fitness < 0 || fitness > 1)
        fail("{}: gamma {} or fitness {} out of range", where, gamma, fitness);
      return true;
    });
  }
  if (options.check_only) {
    HexTuneResult checked;
    checked.generations_done = static_cast<int>(generation);
    return checked;
  }
  RunDir* run = &session.run();
  const play::HexPlayer& opponent = players.opponent;
  const play::HexPlayer& base = players.player;
  const int threads = resolve_threads(options.threads);
  run->log(
      fmt::format("hex tune: gamma of {} in [0, {}] against {}, population {} (elite {}, mutants {}), {} generations "
                  "of {} games each{}",
                  base.spec, c.gamma_max, opponent.spec, c.population, c.elite, c.mutants, c.generations, c.games,
                  generation ? fmt::format(", resuming at generation {}", generation) : ""));
  const BrkgaParams params{c.population, c.elite, c.mutants, 0.7};
  const hex::Board start = hex::empty_board(c.size);
  HexTuneResult result;
  for (; generation < static_cast<u32>(c.generations); ++generation) {
    if (session.stop_requested()) {
      session.stopped(fmt::format("before generation {}", generation));
      break;
    }
    // The individuals still to evaluate (the elite carries its fitness over).
    std::vector<int> todo;
    for (int i = 0; i < pop.size; ++i)
      if (!is_evaluated(pop.fitness[i])) todo.push_back(i);
    std::vector<play::HexPlayer> players(pop.size);
    for (int i : todo) players[i] = with_gamma(base, pop.keys[i] * c.gamma_max);
    // The games' stream: the same for every individual of this generation.
    const u64 game_seed = Rng(c.seed, Purpose::kGame, generation, 0xC0FFEE, 0).next_u64();
    std::vector<std::atomic<int>> wins(pop.size);
    std::atomic<std::size_t> next{0};
    std::atomic<bool> abandoned{false};
    const std::size_t units = todo.size() * static_cast<std::size_t>(c.games);
    run_parallel(std::min<int>(threads, static_cast<int>(std::max<std::size_t>(units, 1))), [&] {
      play::HexTable table;
      for (std::size_t k; (k = next.fetch_add(1)) < units;) {
        // A stop request abandons the generation: nothing of it is written, and a resume
        // plays it again from the checkpoint with the same games.
        if (session.stop_requested()) {
          abandoned = true;
          return;
        }
        const int i = todo[k / c.games];
        const u32 g = static_cast<u32>(k % c.games);
        const bool black = g % 2 == 0;
        const play::HexRecord r = black ? table.play(players[i], opponent, start, game_seed, g)
                                        : table.play(opponent, players[i], start, game_seed, g);
        if ((r.black_score > 0) == black) ++wins[i];
      }
    });
    if (abandoned) {
      session.stopped(fmt::format("during generation {}, which a resume plays again", generation));
      break;
    }
    std::string rows;
    for (int i : todo) {
      pop.fitness[i] = 1.0 - static_cast<double>(wins[i]) / c.games;
      rows += fmt::format("{},{},{:.17g},{},{},{:.17g}\n", generation, i, pop.keys[i] * c.gamma_max, wins[i].load(),
                          c.games, pop.fitness[i]);
    }
    sort_population(pop);
    run->append_rows(kRows, rows);
    run->append_rows(kBest, fmt::format("{},{:.17g},{:.17g}\n", generation, pop.keys[0] * c.gamma_max, pop.fitness[0]));
    run->log(fmt::format("hex tune: generation {}: best gamma {:.4f} wins {:.1f}% ({} evaluated)", generation,
                         pop.keys[0] * c.gamma_max, 100 * (1 - pop.fitness[0]), todo.size()));
    if (generation + 1 < static_cast<u32>(c.generations))
      pop = next_generation(pop, params, c.seed, kIsland, generation + 1);
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
