#include "evalforge/runs/shape_search_run.hpp"
#include <fmt/core.h>
#include <fmt/os.h>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>
#include "core/bytes.hpp"
#include "core/parallel.hpp"
#include "evalforge/core/error.hpp"
#include "evalforge/core/memory_check.hpp"
#include "evalforge/core/run_dir.hpp"
#include "evalforge/games/othello/shape.hpp"
#include "evalforge/runs/run_session.hpp"
#include "evalforge/runs/score_table.hpp"
#include "evalforge/runs/shape_decoder.hpp"
#include "evalforge/runs/shape_fitness.hpp"
#include "runs/run_kinds.hpp"

namespace ef::ga {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view kKind = run_kind_name(RunKind::kSearch);
constexpr std::string_view kMetrics = "metrics.csv", kCheckpoint = "checkpoint.bin", kShapes = "best_shapes.json";
constexpr std::string_view kMetricsHeader = "generation,island,move,best,mean,worst,test_mse,seconds";
// search.generations' upper limit in the config reader: no row of a run has a larger generation.
constexpr i64 kMaxGenerations = 100000000;

// The state a resume continues from: the populations of one generation, and whether their
// fitness has been measured (only at the end of a run: a finished run can be extended).
struct Checkpoint {
  Archipelago archipelago;
  bool evaluated = false;  // fitness of `archipelago.generation` already measured
};

// Payload of checkpoint.bin (RunDir frames and checksums it): i32 generation, u8 evaluated,
// u32 islands, per island i32 move, i32 size, i32 keys per individual, size x keys doubles,
// size doubles of fitness (NaN: not evaluated) and, only when the config turns shaking on, its
// stall state (f64 best so far, i32 stalled generations; ga/shake.hpp), so that the checkpoints
// of runs without shaking keep the bytes they always had. Doubles are stored bit for bit: a resume
// must continue with exactly the keys it stopped with. The islands' parts are laid end to end,
// so rank 0 of a distributed run builds the payload from the parts the ranks send in rank
// order: the bytes do not depend on the number of ranks.
// (From a reference, not a Checkpoint: a copy of the archipelago would double the keys' memory.)
std::string encode_island_parts(const Archipelago& a) {
  ByteWriter w;
  for (std::size_t k = 0; k < a.islands.size(); ++k) {
    const Population& p = a.islands[k];
    w.put<i32>(a.moves[k]);
    w.put<i32>(p.size);
    w.put<i32>(p.num_keys);
    w.put_array<double>(p.keys);
    w.put_array<double>(p.fitness);
    if (!a.stalls.empty()) {
      w.put<double>(a.stalls[k].best);
      w.put<i32>(a.stalls[k].stalled);
    }
  }
  return w.take();
}

std::string encode_checkpoint(int generation, bool evaluated, int num_islands, const std::vector<std::string>& parts) {
  ByteWriter w;
  w.put<i32>(generation);
  w.put<bool>(evaluated);
  w.put<u32>(static_cast<u32>(num_islands));
  for (const std::string& part : parts) w.put_bytes(part);
  return w.take();
}

// The checkpoint back, checked against the run's config: same islands, population size and
// key count, or it is not this run's checkpoint.
Checkpoint decode_checkpoint(std::string_view payload, const fs::path& file, const SearchConfig& config, int num_keys) {
  ByteReader r(payload, file.string() + ": payload");
  Checkpoint c;
  c.archipelago.generation = r.get<i32>("generation");
  if (c.archipelago.generation < 0 || c.archipelago.generation >= kMaxGenerations)
    r.bad(fmt::format("generation {} (expected 0..{})", c.archipelago.generation, kMaxGenerations - 1));
  c.evaluated = r.get<bool>("evaluated flag");
  const u32 n = r.get<u32>("island count");
  if (n != config.islands.moves.size())
    fail("{}: {} islands, but config.toml has {}: the checkpoint is not this run's", file.string(), n,
         config.islands.moves.size());
  for (u32 k = 0; k < n; ++k) {
    const i32 move = r.get<i32>("island move");
    Population p;
    p.size = r.get<i32>("population size");
    p.num_keys = r.get<i32>("keys per individual");
    if (move != config.islands.moves[k] || p.size != config.islands.brkga.population_size || p.num_keys != num_keys)
      fail(
          "{}: island {} is move {}, {} individuals of {} keys; config.toml says move {}, {} of {}: the checkpoint "
          "is not this run's",
          file.string(), k, move, p.size, p.num_keys, config.islands.moves[k], config.islands.brkga.population_size,
          num_keys);
    p.keys = r.get_array<double>(static_cast<std::size_t>(p.size) * static_cast<std::size_t>(p.num_keys), "keys");
    p.fitness = r.get_array<double>(static_cast<std::size_t>(p.size), "fitness");
    if (config.islands.shake.enabled()) {
      StallState stall;
      stall.best = r.get<double>("best fitness so far");
      stall.stalled = r.get<i32>("stalled generations");
      if (stall.stalled < 0) r.bad(fmt::format("island {}: {} stalled generations", k, stall.stalled));
      c.archipelago.stalls.push_back(stall);
    }
    c.archipelago.moves.push_back(move);
    c.archipelago.islands.push_back(std::move(p));
  }
  r.expect_end();
  return c;
}

// A rank keeps the islands of its block (the checkpoint holds all of them).
void keep_block(Archipelago& a, IslandBlock block) {
  a.moves = std::vector<int>(a.moves.begin() + block.first, a.moves.begin() + block.first + block.count);
  std::vector<Population> mine(std::make_move_iterator(a.islands.begin() + block.first),
                               std::make_move_iterator(a.islands.begin() + block.first + block.count));
  a.islands = std::move(mine);
  if (!a.stalls.empty())
    a.stalls = std::vector<StallState>(a.stalls.begin() + block.first, a.stalls.begin() + block.first + block.count);
  a.first_island = block.first;
}

struct IslandData {
  std::vector<IslandFitnessData> fitness;
  std::vector<std::vector<u32>> fitness_ids, test_ids;
};

// Games of `files` for the run (its data or its held-out test games); skipped records are logged.
data::GameDatabase load_run_games(const std::vector<std::string>& files, const char* what, const LineSink& log) {
  for (const auto& f : files)
    if (!fs::exists(f)) fail("{}: no such {} file", f, what);
  data::ReadOptions ro;
  const data::GameDatabase db = data::load_games(std::vector<fs::path>(files.begin(), files.end()), ro);
  if (db.games.empty()) fail("{}: no usable games", files.empty() ? "(no data)" : files[0]);
  if (!db.problems.empty())
    log(fmt::format("{}: {} record(s) skipped; first: {}:{}: {}", what, db.problems.size(), db.problems[0].file,
                    db.problems[0].record, db.problems[0].what));
  return db;
}

bool is_obf(const std::string& file) { return data::detect_format(file) == data::FileFormat::kObf; }

// Makes a split resident as island data: its fitness set and the ids of both halves.
void add_island(IslandData& d, const data::Split& split, Backend& backend) {
  ResidentSplit r = make_resident(split, backend);
  d.fitness.push_back({r.handle, static_cast<u32>(split.first.size())});
  d.fitness_ids.push_back(std::move(r.fitness_ids));
  d.test_ids.push_back(std::move(r.test_ids));
}

// Positions with exact scores (.obf files, e.g. an ordering run's --samples-out) of `files`:
// all of them, or none (an error names the first file of the other kind).
std::optional<std::vector<data::ObfPosition>> load_run_positions(const std::vector<std::string>& files,
                                                                 const char* what) {
  const auto obf = std::count_if(files.begin(), files.end(), is_obf);
  if (obf == 0) return std::nullopt;
  if (obf != static_cast<std::ptrdiff_t>(files.size()))
    fail("{}: {} files mix .obf positions with game records ({}); give one kind", what, what,
         *std::find_if(files.begin(), files.end(), [](const std::string& f) { return !is_obf(f); }));
  std::vector<data::ObfPosition> all;
  for (const auto& f : files) {
    if (!fs::exists(f)) fail("{}: no such {} file", f, what);
    std::vector<data::ObfPosition> some = data::read_obf(f);  // throws file:line: what
    for (const auto& p : some)
      if (p.best_score() == data::kNoScore)
        fail("{}:{}: the position has no move score (its label is its exact value)", f, p.line);
    all.insert(all.end(), std::make_move_iterator(some.begin()), std::make_move_iterator(some.end()));
  }
  return all;
}

// upload_data for .obf positions: each island's positions at its move (60 - move empties), split
// by position as games split by position are (or, with [data] test_files, all fitness positions
// and the test files' for the test score).
IslandData upload_positions(const SearchConfig& c, const Archipelago& a,
                            const std::vector<data::ObfPosition>& positions, Backend& backend, const LineSink& log) {
  if (c.split != data::SplitBy::kPosition)
    fail("[data] split = \"game\": .obf positions come without their games; split = \"position\" splits them");
  std::optional<std::vector<data::ObfPosition>> test;
  if (!c.test_files.empty()) {
    test = load_run_positions(c.test_files, "test");
    if (!test) fail("{}: with .obf positions as data, the test files are .obf positions too", c.test_files[0]);
  }
  IslandData d;
  for (int move : a.moves) {
    const data::PositionSet all = data::scored_positions_at_move(positions, move, "data");
    data::Split split;
    if (test) {
      split.first = all;
      split.second = data::scored_positions_at_move(*test, move, "test");
    } else {
      split = data::split_positions(all, c.test_fraction, c.islands.seed, data::kFitnessTestStream);
    }
    if (split.first.size() < 5 || split.second.size() == 0)
      fail("move {}: {} fitness and {} test positions of {} empties in the data; need at least 5 and 1", move,
           split.first.size(), split.second.size(), 60 - move);
    add_island(d, split, backend);
    log(fmt::format("island move {:>2}: {} fitness, {} test positions (.obf, {} empties)", move, split.first.size(),
                    split.second.size(), 60 - move));
  }
  return d;
}

// The position sets of the islands `a` holds.
IslandData upload_data(const SearchConfig& c, const Archipelago& a, Backend& backend, const LineSink& log) {
  if (auto positions = load_run_positions(c.data_files, "data"))
    return upload_positions(c, a, *positions, backend, log);
  const data::GameDatabase db = load_run_games(c.data_files, "data", log);
  std::optional<data::GameDatabase> test_db;
  if (!c.test_files.empty()) test_db = load_run_games(c.test_files, "test", log);
  // The fitness/test positions as `score` takes them; the split (when there are no test files)
  // is the same for every generation (docs/method.md 1.3): seeded by the run seed.
  ScoreOptions so;
  so.split = c.split;
  so.positions = c.position_options();
  so.test_fraction = c.test_fraction;
  so.seed = c.islands.seed;
  so.test_games = test_db ? &test_db->games : nullptr;
  IslandData d;
  for (int move : a.moves) {
    const MoveSplit m = score_positions_at_move(db.games, move, so);
    const data::Split& split = m.split;
    if (split.first.size() < 5)
      fail("move {}: only {} fitness and {} test positions in the data", move, split.first.size(), split.second.size());
    add_island(d, split, backend);
    log(fmt::format("island move {:>2}: {} fitness, {} test positions{}", move, split.first.size(), split.second.size(),
                    test_db ? fmt::format(" (held out; {} of them also fitness positions)", m.test_seen) : ""));
  }
  return d;
}

int best_index(const Population& p) {
  int best = 0;
  for (int i = 1; i < p.size; ++i)
    if (p.fitness[i] < p.fitness[best]) best = i;  // first of equals: the lower index
  return best;
}

// Resume: metrics.csv keeps the rows of generations < `keep_below` (the generations the
// checkpoint has behind it); the run writes the others again. Every row must be one this run
// could have written: its island and move, numeric fitness, each (generation, island) once,
// and none of the kept generations missing.
void resume_metrics(RunDir& run, const SearchConfig& c, int keep_below) {
  const int n = static_cast<int>(c.islands.moves.size());
  std::map<std::pair<i64, i64>, std::string> seen;  // (generation, island) -> where
  const auto kept = run.resume_table(kMetrics, kMetricsHeader, [&](const RunDir::Row& f, const std::string& where) {
    const i64 g = parse_int_field(f[0], 0, kMaxGenerations - 1, where, "generation");
    const i64 k = parse_int_field(f[1], 0, n - 1, where, "island");
    const i64 move = parse_int_field(f[2], 0, 60, where, "move");
    if (move != c.islands.moves[k])
      fail("{}: island {} optimises move {}, but the row says move {}", where, k, c.islands.moves[k], move);
    parse_real_field(f[3], where, "best");
    parse_real_field(f[4], where, "mean");
    parse_real_field(f[5], where, "worst");
    if (!f[6].empty()) parse_real_field(f[6], where, "test_mse");
    if (parse_real_field(f[7], where, "seconds") < 0) fail("{}: seconds '{}' (expected at least 0)", where, f[7]);
    const auto [it, fresh] = seen.emplace(std::make_pair(g, k), where);
    if (!fresh) fail("{}: generation {} island {} is already recorded at {}", where, g, k, it->second);
    return g < keep_below;
  });
  if (kept.size() != static_cast<std::size_t>(keep_below) * n)
    fail("{}: {} rows for generations 0..{}, expected {} ({} islands): rows are missing", run.file(kMetrics).string(),
         kept.size(), keep_below - 1, static_cast<std::size_t>(keep_below) * n, n);
}

// What the rank holding an island reports to rank 0 after each generation: enough to write the
// island's metrics row and best shape exactly as one process would (doubles bit for bit, the
// best individual's keys for rank 0 to decode). Payload per rank: u8 stop requested there,
// then per island of its block f64 best, mean, worst, test MSE (NaN: not measured) and the
// best individual's keys.
std::string encode_reports(const Archipelago& a, const std::vector<double>& test, bool stop) {
  ByteWriter w;
  w.put<bool>(stop);
  for (std::size_t k = 0; k < a.islands.size(); ++k) {
    const Population& p = a.islands[k];
    double sum = 0, worst = p.fitness[0];
    for (double f : p.fitness) {
      sum += f;
      worst = std::max(worst, f);
    }
    const int b = best_index(p);
    w.put<double>(p.fitness[b]);
    w.put<double>(sum / p.size);
    w.put<double>(worst);
    w.put<double>(test[k]);
    w.put_array<double>(p.individual(b));
  }
  return w.take();
}

struct IslandReport {
  double best = 0, mean = 0, worst = 0, test = 0;
  std::vector<double> best_keys;
};

// Rank 0: every rank's reports, in island order; `stop` becomes true when any rank asked.
std::vector<IslandReport> decode_reports(const std::vector<std::string>& messages, int num_islands, int num_keys,
                                         bool& stop) {
  std::vector<IslandReport> reports;
  const int ranks = static_cast<int>(messages.size());
  for (int r = 0; r < ranks; ++r) {
    ByteReader in(messages[static_cast<std::size_t>(r)], fmt::format("the report of rank {}", r));
    stop = in.get<bool>("stop flag") || stop;
    for (int k = 0; k < island_block(r, ranks, num_islands).count; ++k) {
      IslandReport report;
      report.best = in.get<double>("best");
      report.mean = in.get<double>("mean");
      report.worst = in.get<double>("worst");
      report.test = in.get<double>("test MSE");
      report.best_keys = in.get_array<double>(static_cast<std::size_t>(num_keys), "best keys");
      reports.push_back(std::move(report));
    }
    in.expect_end();
  }
  return reports;
}

// Implicit path relinking after a generation's evaluation, when due (ga/path_relinking.hpp):
// blocks are the tuples' keys, the distance compares decoded tuples, and each step's candidates
// are one backend batch on the generation's own splits. The log gets a line per path.
void relink_elites(Archipelago& a, const SearchConfig& c, const Decoder& decoder, Backend& backend,
                   const IslandData& data, const FitnessOptions& fo, IslandTeam& team, const LineSink& log) {
  RelinkProblem problem;
  problem.block_size = decoder.keys_per_tuple();
  problem.block_distance = [&](std::span<const double> x, std::span<const double> y, int tuple) {
    return tuple_block_distance(decoder, x, y, tuple);
  };
  problem.evaluate = [&](const std::vector<int>& islands, const std::vector<std::vector<double>>& individuals,
                         std::vector<double>& fitness) {
    std::vector<IslandKeys> keys;
    for (std::size_t i = 0; i < individuals.size(); ++i) keys.push_back({islands[i], individuals[i]});
    evaluate_keys(backend, decoder, keys, data.fitness, fo, c.islands.seed, static_cast<u32>(a.generation),
                  static_cast<u32>(a.first_island), fitness);
  };
  for (const IprReport& r : path_relink(a, c.islands, problem, team))
    log(fmt::format(
        "generation {}: path relinking island {} (move {}) pair {} towards island {}: distance {}, {} evaluations, "
        "best {} (base {:.4f}){}",
        a.generation, r.island, c.islands.moves[static_cast<std::size_t>(r.island)], r.pair, r.guide_island,
        r.result.distance, r.result.evaluations,
        r.result.best.empty() ? std::string("none") : fmt::format("{:.4f}", r.result.fitness), r.base_fitness,
        r.inserted ? fmt::format(", replaces the worst ({:.4f})", r.replaced_fitness) : std::string()));
}

// The phases of a generation, for PhaseTimes (core/run_dir.hpp): its log says where the time goes
// every kPhaseReportEvery generations and when a session ends.
enum class SearchPhase : std::size_t { kFitness, kRelinking, kTest, kReports, kCheckpoint, kNext };
constexpr int kPhaseReportEvery = 100;
PhaseTimes search_phase_times(int first_generation) {
  return PhaseTimes({"fitness training", "path relinking", "test-set training", "decoding, reports and log",
                     "checkpoints", "crossover, migration and shaking"},
                    "generations", "gen", first_generation);
}

// checkpoint.bin of the archipelago the ranks hold together, written by rank 0.
void save_checkpoint(IslandTeam& team, RunDir* run, const Archipelago& a, bool evaluated, int num_islands) {
  const std::vector<std::string> parts = team.gather(encode_island_parts(a));
  if (run) run->write_checkpoint(kCheckpoint, encode_checkpoint(a.generation, evaluated, num_islands, parts));
}

// The run loop of every process: `run` is the run directory on rank 0 (null on the others),
// `state` this rank's islands. Each generation: evaluate and test the own islands, gather the
// reports on rank 0 (which writes the rows and shapes), agree on stopping, advance (migration
// through the team), checkpoint through rank 0.
// `session`: rank 0's (the others write nothing); a new run's directory is made here, once the
// data has loaded, so that unusable data leaves no directory behind.
SearchOutcome run_loop(const SearchConfig& c, RunSession* session, Checkpoint state, const SearchRunOptions& o,
                       IslandTeam& team) {
  const LineSink log = [&](const std::string& line) {
    if (session)
      session->log(line);
    else if (o.progress)
      o.progress(fmt::format("[rank {}] {}", team.rank(), line));
  };
  auto backend = make_backend(o.backend, o.threads, o.device);
  const Decoder decoder(c.region, c.tuple_sizes);
  Archipelago& a = state.archipelago;
  const IslandData data = upload_data(c, a, *backend, log);
  if (session && !session->resuming()) {
    // No initial checkpoint: generation 0 is a pure function of the config, and a resume that
    // finds no checkpoint.bin starts there.
    session->create({{std::string(kMetrics), std::string(kMetricsHeader)}}, search_config_to_toml(c));
    session->log(fmt::format("run directory: {}", session->path().string()));
  }
  RunDir* run = session ? &session->run() : nullptr;
  FitnessOptions fo;
  fo.train = c.train;
  fo.validation_fraction = c.validation_fraction;
  const u64 seed = c.islands.seed;
  const int n = static_cast<int>(c.islands.moves.size());
  const int own = static_cast<int>(a.islands.size());

  log(fmt::format("backend {}, {} islands x {}, {} generations, starting at generation {}", backend->name(), n,
                  c.islands.brkga.population_size, c.generations, a.generation));
  if (team.size() > 1)
    log(fmt::format("rank {} of {}: islands {}..{}", team.rank(), team.size(), a.first_island,
                    a.first_island + own - 1));

  // The transition to the next generation; shaking's actions go to the log.
  const auto advance = [&] {
    const std::vector<ShakeAction> actions = advance_generation(a, c.islands, team);
    for (int k = 0; k < own; ++k)
      if (actions[static_cast<std::size_t>(k)] != ShakeAction::kNone)
        log(fmt::format(
            "generation {}: island {} (move {}) {}", a.generation, a.first_island + k,
            a.moves[static_cast<std::size_t>(k)],
            actions[static_cast<std::size_t>(k)] == ShakeAction::kReset
                ? "reset: every individual but the best is new"
                : fmt::format("shaken after {} stalled generations", a.stalls[static_cast<std::size_t>(k)].stalled)));
  };
  SearchOutcome out;
  if (state.evaluated) {  // the checkpoint of a finished run, possibly extended now
    if (a.generation + 1 >= c.generations) {
      out.generations_done = a.generation + 1;
      out.complete = true;
      return out;
    }
    advance();
  }
  const ga::InjectedFailure failure = ga::InjectedFailure::from_environment();
  // Units: evaluated generations; those before this process do not count toward the rate.
  const ProgressMeter meter(static_cast<u64>(c.generations), static_cast<u64>(a.generation));
  PhaseTimes phases = search_phase_times(a.generation);
  while (true) {
    const int g = a.generation;
    failure.apply(team.rank(), g);
    const auto t0 = std::chrono::steady_clock::now();
    phases.lap(static_cast<std::size_t>(SearchPhase::kNext));  // the little time since the last lap (the report line)
    evaluate_generation(*backend, decoder, a.islands, data.fitness, fo, seed, static_cast<u32>(g),
                        static_cast<u32>(a.first_island));
    phases.lap(static_cast<std::size_t>(SearchPhase::kFitness));
    if (c.islands.ipr.enabled()) {
      relink_elites(a, c, decoder, *backend, data, fo, team, log);
      phases.lap(static_cast<std::size_t>(SearchPhase::kRelinking));
    }

    // Test score of every island's best at its move: train on all fitness positions, test set.
    std::vector<double> test(own, std::nan(""));
    const bool last = g + 1 >= c.generations;
    std::vector<ntuple::Geometry> geometries;
    for (int k = 0; k < own; ++k)
      geometries.push_back(decoder.decode(a.islands[k].individual(best_index(a.islands[k]))).geometry());
    if (c.test_every > 0 && (g % c.test_every == 0 || last)) {
      std::vector<TrainJob> jobs(own);
      for (int k = 0; k < own; ++k) {
        jobs[k].geometry = &geometries[k];
        jobs[k].positions = data.fitness[k].positions;
        jobs[k].train_ids = data.fitness_ids[k];
        jobs[k].eval_ids = data.test_ids[k];
        jobs[k].params = c.train;
        jobs[k].params.seed = seed;
        jobs[k].stream[0] = static_cast<u32>(a.first_island + k);
        jobs[k].stream[1] = 0x80000000u | static_cast<u32>(g);  // never equal to a fitness stream
      }
      std::vector<TrainResult> results(own);
      backend->train(jobs, results);
      for (int k = 0; k < own; ++k) test[k] = results[k].eval_loss.mse();
      phases.lap(static_cast<std::size_t>(SearchPhase::kTest));
    }
    const std::vector<std::string> messages =
        team.gather(encode_reports(a, test, o.stop_requested && o.stop_requested()));
    std::string stop_decision;
    if (run) {
      bool stop = false;
      const std::vector<IslandReport> reports = decode_reports(messages, n, decoder.num_keys(), stop);
      stop_decision.assign(1, stop ? '1' : '0');  // a char: GCC 12 warns falsely (-Wrestrict) on a literal here
      const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      std::string line = fmt::format("gen {:>5}/{} best", g, c.generations);
      std::string rows;
      std::vector<ntuple::Shape> best_shapes;
      std::vector<GenerationRow> generation_rows;
      for (int k = 0; k < n; ++k) {
        const IslandReport& r = reports[static_cast<std::size_t>(k)];
        const int move = c.islands.moves[static_cast<std::size_t>(k)];
        ntuple::Shape s = decoder.decode(r.best_keys);
        s.name = fmt::format("island-{}", move);
        s.move = move;
        best_shapes.push_back(std::move(s));
        rows += fmt::format("{},{},{},{:.6f},{:.6f},{:.6f},{},{:.3f}\n", g, k, move, r.best, r.mean, r.worst,
                            std::isnan(r.test) ? std::string() : fmt::format("{:.6f}", r.test), secs);
        line += fmt::format(" {}:{:.2f}", move, r.best);
        generation_rows.push_back({k, move, r.best, r.mean, r.worst, r.test, secs});
      }
      // The rows are on disk before any checkpoint that has their generation behind it.
      run->append_rows(kMetrics, rows);
      run->log(fmt::format("{} | {:.2f} s/gen | {}", line, secs, meter.status(static_cast<u64>(g) + 1)));
      save_shapes_json(run->file(kShapes), best_shapes);
      if (o.on_generation) o.on_generation(g, generation_rows);
    }
    // Every rank stops at the same generation: rank 0's decision.
    team.broadcast(stop_decision);
    const bool stop = stop_decision == "1";
    phases.lap(static_cast<std::size_t>(SearchPhase::kReports));

    if (last) {
      save_checkpoint(team, run, a, true, n);
      phases.lap(static_cast<std::size_t>(SearchPhase::kCheckpoint));
      log(phases.report(g));
      out.generations_done = g + 1;
      out.complete = true;
      const std::vector<std::string> traffic =
          team.gather(fmt::format("{} {}", team.exchanged_bytes(), team.exchanged_messages()));
      if (team.size() > 1 && run) {
        unsigned long long bytes = 0, messages_sent = 0;
        for (const std::string& t : traffic) {
          unsigned long long b = 0, m = 0;
          std::sscanf(t.c_str(), "%llu %llu", &b, &m);
          bytes += b;
          messages_sent += m;
        }
        run->log(fmt::format("migration traffic between the {} ranks in this session: {} bytes in {} messages",
                             team.size(), bytes, messages_sent));
      }
      if (run)
        run->log(fmt::format("search complete: {} generations; best shapes in {}", g + 1, run->file(kShapes).string()));
      return out;
    }
    advance();
    phases.lap(static_cast<std::size_t>(SearchPhase::kNext));
    if (stop || (c.checkpoint_every > 0 && a.generation % c.checkpoint_every == 0)) {
      save_checkpoint(team, run, a, false, n);
      phases.lap(static_cast<std::size_t>(SearchPhase::kCheckpoint));
    }
    if (stop || (g + 1) % kPhaseReportEvery == 0) log(phases.report(g));
    if (stop) {
      out.generations_done = a.generation;
      out.interrupted = true;
      if (session) session->stopped(fmt::format("after generation {}; checkpoint written", g));
      return out;
    }
  }
}

}  // namespace

std::vector<MemoryPart> search_memory_estimate(const SearchConfig& c, const SearchRunOptions& o) {
  const double islands = static_cast<double>(c.islands.moves.size());
  const double size = c.islands.brkga.population_size;
  const double keys = Decoder(c.region, c.tuple_sizes).num_keys();
  const double individuals = islands * size;
  const int threads = resolve_threads(o.threads);
  double weights = 0;  // one network's table: sum of 3^size entries of 4 bytes
  for (int t : c.tuple_sizes) weights += std::pow(3.0, t) * 4;
  // The CPU loop keeps each mini-batch sample's 8 x tuples indices (rounded up to 16).
  const double stride = std::ceil(8.0 * static_cast<double>(c.tuple_sizes.size()) / 16) * 16;
  std::vector<MemoryPart> parts;
  // The population, and at a checkpoint its serialised payload and the framed file bytes.
  parts.push_back({fmt::format("keys and their checkpoint ({} islands x {} x {} keys x 8 B x 3)", islands, size, keys),
                   individuals * (keys + 1) * 8 * 3});
  parts.push_back({"next generation of one island", size * (keys + 1) * 8});
  parts.push_back(
      {fmt::format("training jobs of a generation ({} x {} B)", individuals,
                   sizeof(ntuple::Geometry) + sizeof(TrainJob) + sizeof(TrainResult)),
       individuals * static_cast<double>(sizeof(ntuple::Geometry) + sizeof(TrainJob) + sizeof(TrainResult))});
  if (o.backend != "cuda") {  // "auto" may fall back to the CPU: count its parts too
    parts.push_back(
        {fmt::format("weight tables ({} threads x {})", threads, format_bytes(weights)), threads * weights});
    parts.push_back({fmt::format("mini-batch scratch ({} threads x {} samples x {} indices x 4 B)", threads,
                                 c.train.batch_size, stride),
                     threads * std::max(4.0, static_cast<double>(c.train.batch_size)) * stride * 4});
  }
  if (o.backend != "cpu") {
    // Device memory is planned by the backend; its host side orders every job's epochs.
    parts.push_back({fmt::format("sample orders ({} jobs x {} epochs x 4 B)", individuals, c.train.epochs),
                     individuals * c.train.epochs * 4});
  }
  return parts;
}

namespace {
// Refuses a run that cannot fit; logs the estimate.
void check_search_memory(RunSession& session, const SearchConfig& c, const SearchRunOptions& o) {
  session.check_memory("search", search_memory_estimate(c, o),
                       "fewer islands, a smaller island_size, fewer or smaller tuples, or fewer threads");
}
}  // namespace

SearchOutcome run_search(const SearchConfig& config, const fs::path& dir, const SearchRunOptions& options) {
  if (config.data_files.empty()) fail("search: no data (give the data files in the config's [data] files)");
  SoloTeam solo;
  IslandTeam& team = options.team ? *options.team : solo;
  SearchConfig c = config;
  for (auto* files : {&c.data_files, &c.test_files})
    for (auto& f : *files) {
      if (!fs::exists(f)) fail("{}: no such {} file", f, files == &c.data_files ? "data" : "test");
      f = fs::absolute(f).lexically_normal().string();
    }
  const IslandBlock block = island_block(team.rank(), team.size(), static_cast<int>(c.islands.moves.size()));
  std::optional<RunSession> session;
  if (team.rank() == 0) {
    session = RunSession::start_new(dir, kKind, options);
    check_search_memory(*session, c, options);
  }
  Checkpoint start;
  start.archipelago = make_archipelago(c.islands, Decoder(c.region, c.tuple_sizes).num_keys(), block);
  return run_loop(c, session ? &*session : nullptr, std::move(start), options, team);
}

SearchOutcome resume_search(const fs::path& dir, const SearchRunOptions& options, int generations) {
  SoloTeam solo;
  IslandTeam& team = options.team ? *options.team : solo;
  // Rank 0 opens and checks the directory and hands the checkpoint to the others; they read
  // only config.toml.
  std::optional<RunSession> session;
  std::string checkpoint;  // "" (no checkpoint yet) or "C" + payload: the broadcast message
  if (team.rank() == 0) session = RunSession::resume(dir, kKind, options);
  SearchConfig c = load_search_config((dir / "config.toml").string());
  if (generations > 0) c.generations = generations;
  const int num_keys = Decoder(c.region, c.tuple_sizes).num_keys();
  RunDir* run = session ? &session->run() : nullptr;
  if (run) {
    check_search_memory(*session, c, options);
    if (run->has(kCheckpoint) && read_file_head(run->file(kCheckpoint), FileKind::kCheckpoint, 8) == "EFCKPT01")
      fail(
          "{}: a checkpoint of an older evalforge (format EFCKPT01), which this version does not resume; start the "
          "search again in a new directory",
          run->file(kCheckpoint).string());
    if (std::optional<std::string> payload = run->read_checkpoint(kCheckpoint)) checkpoint = "C" + *payload;
  }
  team.broadcast(checkpoint);
  Checkpoint state;
  if (!checkpoint.empty()) {
    state = decode_checkpoint(std::string_view(checkpoint).substr(1), dir / kCheckpoint, c, num_keys);
  } else {
    // Stopped (or crashed) before the first checkpoint: generation 0 again, the same bits.
    if (run) run->log(fmt::format("{}: no checkpoint yet; starting again from generation 0", dir.string()));
    state.archipelago = make_archipelago(c.islands, num_keys);
  }
  keep_block(state.archipelago, island_block(team.rank(), team.size(), static_cast<int>(c.islands.moves.size())));
  if (run) resume_metrics(*run, c, state.archipelago.generation + (state.evaluated ? 1 : 0));
  if (options.check_only) return {state.archipelago.generation + (state.evaluated ? 1 : 0), false, false};
  return run_loop(c, session ? &*session : nullptr, std::move(state), options, team);
}

}  // namespace ef::ga
