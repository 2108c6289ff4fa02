// The "tictactoe" kind of evolve run (docs/method.md section 3, docs/tictactoe.md): seed 003's
// bit-string GA of 9-18-5-1 networks under minimax, `trials` independent GAs side by side, each
// generation's games of every trial in one backend batch. Against the static evaluator, or
// co-evolving two populations whose members meet the other population's best of the previous
// generation, monitored against the static evaluator (the monitor never feeds selection).
//
// Files (besides the run directory's own): metrics.csv, one row per (generation, trial,
// population): best, mean and worst fitness (0..480; 0..540 with all 9 openings), the monitor's best and mean
// (co-evolution), seconds; best_networks.csv when complete: each population's best network of the last generation (its
// fitness and its bits in hex); checkpoint.bin: the populations to play next. oracle.csv (runs created with [monitor]
// oracle = true, the default; runs made before the table existed resume without it): one row per (generation, trial,
// population): the best network's measures against perfect play (games/tictactoe/perfect_play.hpp) and, every
// `population_every` generations and at the last, the population's share of networks that never
// lose to any opponent with either colour. Nothing in it feeds selection.
#include "runs/evolve_tictactoe.hpp"
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <fstream>
#include <sstream>
#include "core/bytes.hpp"
#include "core/parallel.hpp"
#include "evalforge/core/error.hpp"
#include "evalforge/core/files.hpp"
#include "evalforge/core/rng.hpp"
#include "evalforge/games/tictactoe/agent_file.hpp"
#include "evalforge/games/tictactoe/fitness_matches.hpp"
#include "games/tictactoe/perfect_play.hpp"

namespace ef::ga {

namespace fs = std::filesystem;

namespace {

constexpr const char* kMetrics = "metrics.csv";
constexpr const char* kCheckpoint = "checkpoint.bin";
constexpr const char* kMetricsHeader =
    "generation,trial,population,best,mean,worst,monitor_best,monitor_mean,play_seconds,seconds";
constexpr const char* kOracle = "oracle.csv";
constexpr const char* kOracleHeader =
    "generation,trial,population,best_optimal,best_nontrivial_optimal,best_x_vs_perfect,best_o_vs_perfect,"
    "best_x_vs_any,best_o_vs_any,best_x_loss_vs_random,best_o_loss_vs_random,population_never_loses";
// Version 2 adds the oracle flag at the end of the payload; version 1 (runs made before
// oracle.csv) is read as a run without it.
constexpr u32 kVersion = 2;

struct TttState {
  int generation = 0;  // the generation to play next
  bool finished = false;
  bool oracle = false;  // the run has oracle.csv
  // pops[t][p]: trial t's population p (p = 1 only with co-evolution); top[t][p]: the best of
  // pops[t][p] in the previous generation (the other population's opponents).
  std::vector<std::vector<std::vector<BitString>>> pops, top;
};

int populations(const TicTacToeConfig& c) { return c.coevolution ? 2 : 1; }
u32 stream_of(int trial, int population) { return static_cast<u32>(2 * trial + population); }

TttState initial_state(const TicTacToeConfig& c) {
  TttState s;
  s.oracle = c.oracle;
  s.pops.resize(c.trials);
  s.top.resize(c.trials);
  for (int t = 0; t < c.trials; ++t)
    for (int p = 0; p < populations(c); ++p) {
      s.pops[t].push_back(random_bit_population(c.ga, c.seed, stream_of(t, p)));
      // Generation 0 has no ranking yet: its first members stand in.
      s.top[t].push_back(
          std::vector<BitString>(s.pops[t][p].begin(), s.pops[t][p].begin() + (c.coevolution ? c.top : 0)));
    }
  return s;
}

void put_bits(ByteWriter& w, const BitString& b) {
  for (std::size_t i = 0; i < b.size(); i += 8) {
    u32 byte = 0;
    for (std::size_t k = 0; k < 8 && i + k < b.size(); ++k) byte |= static_cast<u32>(b[i + k] & 1) << k;
    w.put<std::uint8_t>(static_cast<std::uint8_t>(byte));
  }
}
BitString get_bits(ByteReader& r, int bits) {
  BitString b(bits);
  for (int i = 0; i < bits; i += 8) {
    const u32 byte = r.get<std::uint8_t>("a bit string");
    for (int k = 0; k < 8 && i + k < bits; ++k) b[i + k] = static_cast<unsigned char>(byte >> k & 1);
  }
  return b;
}

std::string encode(const TttState& s, const TicTacToeConfig& c) {
  ByteWriter w;
  w.put<u32>(kVersion);
  w.put<i32>(s.generation);
  w.put<bool>(s.finished);
  for (int t = 0; t < c.trials; ++t)
    for (int p = 0; p < populations(c); ++p) {
      for (const BitString& b : s.pops[t][p]) put_bits(w, b);
      w.put<u32>(static_cast<u32>(s.top[t][p].size()));
      for (const BitString& b : s.top[t][p]) put_bits(w, b);
    }
  w.put<bool>(s.oracle);
  return w.take();
}

TttState decode(const std::string& payload, const std::string& file, const TicTacToeConfig& c) {
  ByteReader r(payload, file);
  const u32 version = r.get<u32>("the version");
  if (version != 1 && version != kVersion) r.bad("checkpoint version (expected 1 or 2)");
  TttState s;
  s.generation = r.get<i32>("the generation");
  if (s.generation < 0 || s.generation > 100000000) r.bad("generation out of range");
  s.finished = r.get<bool>("the finished flag");
  s.pops.resize(c.trials);
  s.top.resize(c.trials);
  for (int t = 0; t < c.trials; ++t)
    for (int p = 0; p < populations(c); ++p) {
      std::vector<BitString> pop;
      for (int i = 0; i < c.ga.population; ++i) pop.push_back(get_bits(r, c.ga.bits));
      s.pops[t].push_back(std::move(pop));
      const u32 k = r.get<u32>("the top count");
      if (k != static_cast<u32>(c.coevolution ? c.top : 0))
        r.bad(fmt::format("{} top networks (the config says {})", k, c.coevolution ? c.top : 0));
      std::vector<BitString> top;
      for (u32 i = 0; i < k; ++i) top.push_back(get_bits(r, c.ga.bits));
      s.top[t].push_back(std::move(top));
    }
  s.oracle = version >= 2 && r.get<bool>("the oracle flag");
  r.expect_end();
  return s;
}

struct Stats {
  double best = 0, mean = 0, worst = 0;
};
template <class T>
Stats stats_of(const std::vector<T>& v) {
  Stats s;
  s.best = s.worst = static_cast<double>(v[0]);
  double sum = 0;
  for (T x : v) {
    s.best = std::max(s.best, static_cast<double>(x));
    s.worst = std::min(s.worst, static_cast<double>(x));
    sum += static_cast<double>(x);
  }
  s.mean = sum / static_cast<double>(v.size());
  return s;
}

std::string openings_note(const TicTacToeConfig& c) {
  std::string note = c.openings == play::TttOpenings::kAll ? ", 9 openings (the centre too)" : "";
  if (c.random_ties)
    note += fmt::format(", ties drawn at random, {} game(s) per opening and colour", c.games_per_opening);
  return note;
}

using Agents = std::vector<std::vector<std::vector<play::TicTacToeAgent>>>;  // [trial][population][member]
using Fitness = std::vector<std::vector<std::vector<double>>>;

// Generation g's oracle.csv rows: each population's best network (the first of the highest
// fitness) measured against perfect play, and at the generations that measure it the share of
// the population that never loses to any opponent (tictactoe::never_loses). Every value is a
// pure function of the networks, so the thread count changes nothing.
std::string oracle_rows(const TicTacToeConfig& c, int g, const Agents& members, const Fitness& fitness, int threads) {
  const int np = populations(c);
  std::vector<play::TicTacToeAgent> best;
  for (int t = 0; t < c.trials; ++t)
    for (int p = 0; p < np; ++p) best.push_back(members[t][p][best_indices(fitness[t][p], 1)[0]]);
  const std::vector<tictactoe::PlayerMeasures> m = tictactoe::measure_agents(best, threads);
  const bool population = g % c.population_every == 0 || g + 1 >= c.generations;
  std::vector<const play::TicTacToeAgent*> all;
  if (population)
    for (int t = 0; t < c.trials; ++t)
      for (int p = 0; p < np; ++p)
        for (const auto& a : members[t][p]) all.push_back(&a);
  std::vector<unsigned char> holds(all.size(), 0);
  std::atomic<std::size_t> next{0};
  run_parallel(std::min(resolve_threads(threads), std::max(1, static_cast<int>(all.size()))), [&] {
    for (std::size_t i; (i = next++) < all.size();)
      holds[i] = tictactoe::never_loses(tictactoe::agent_chooser(*all[i])) ? 1 : 0;
  });
  std::string rows;
  std::size_t at = 0, member = 0;
  for (int t = 0; t < c.trials; ++t)
    for (int p = 0; p < np; ++p, ++at) {
      std::string share;
      if (population) {
        int n = 0;
        for (std::size_t i = 0; i < members[t][p].size(); ++i) n += holds[member++];
        share = fmt::format("{:.4f}", static_cast<double>(n) / static_cast<double>(members[t][p].size()));
      }
      const tictactoe::PlayerMeasures& b = m[at];
      rows +=
          fmt::format("{},{},{},{:.6f},{:.6f},{},{},{},{},{:.6f},{:.6f},{}\n", g, t, p == 0 ? "a" : "b",
                      b.optimal_share(), b.nontrivial_optimal_share(), tictactoe::result_name(b.as_x.worst_vs_perfect),
                      tictactoe::result_name(b.as_o.worst_vs_perfect), tictactoe::result_name(b.as_x.worst_vs_any),
                      tictactoe::result_name(b.as_o.worst_vs_any), b.as_x.loss, b.as_o.loss, share);
    }
  return rows;
}

// Generation g's fitness of every member, [trial][population][member], and with co-evolution
// its score against the monitor; play_s: the seconds of its games or measures. The games of all
// trials and populations go to the backend as one batch.
struct GenerationScores {
  Fitness fitness;
  std::vector<std::vector<std::vector<int>>> monitored;
  double play_s = 0;
};

GenerationScores score_generation(const TicTacToeConfig& c, int g, const Agents& members, const Agents& tops,
                                  const std::vector<play::TicTacToeAgent>& opponents,
                                  const play::TicTacToeAgent& monitor, play::TttMatches& matches, int threads) {
  const int np = populations(c);
  // The members as they play their fitness games: with ties = "random", drawing among equal
  // moves (the members themselves stay deterministic for the measures of oracle.csv).
  Agents players = members;
  for (auto& trial : players)
    for (auto& population : trial)
      for (auto& a : population) a.params.random_ties = c.random_ties;
  std::vector<play::TttMatch> list;
  for (int t = 0; t < c.trials; ++t)
    for (int p = 0; p < np; ++p)
      for (const auto& m : players[t][p]) {
        if (c.coevolution) {
          for (const auto& rival : tops[t][1 - p]) list.push_back({&m, &rival});
          list.push_back({&m, &monitor});
        } else if (c.plays_games()) {
          for (const auto& opponent : opponents) list.push_back({&m, &opponent});
        }
      }
  const auto tp = std::chrono::steady_clock::now();
  // A new draw of the ties every generation (a pure function of the run's seed and the
  // generation, so a resumed run plays the same games); seed 1 for the source's fixed games.
  const u64 games_seed = c.random_ties ? Rng(c.seed, Purpose::kFitnessGames, static_cast<u32>(g)).next_u64() : 1;
  const std::vector<int> scores = list.empty() ? std::vector<int>{} : matches.play(list, games_seed);
  // fitness = "oracle" or "safety": every member measured, in order.
  std::vector<double> measured;
  if (!c.plays_games()) {
    std::vector<play::TicTacToeAgent> all;
    for (int t = 0; t < c.trials; ++t)
      for (const auto& m : members[t][0]) all.push_back(m);
    if (c.fitness == TttFitness::kOracle)
      for (const auto& m : tictactoe::measure_agents(all, threads)) measured.push_back(oracle_fitness(m));
    else
      for (const auto& l : tictactoe::loss_vs_random_of_agents(all, threads)) measured.push_back(safety_fitness(l));
  }
  const double play_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - tp).count();

  std::size_t at = 0;
  Fitness fitness(c.trials);
  std::vector<std::vector<std::vector<int>>> monitored(c.trials);
  for (int t = 0; t < c.trials; ++t)
    for (int p = 0; p < np; ++p) {
      fitness[t].emplace_back();
      monitored[t].emplace_back();
      for (std::size_t i = 0; i < members[t][p].size(); ++i) {
        if (c.coevolution) {
          double sum = 0;
          for (int k = 0; k < c.top; ++k) sum += scores[at++];
          fitness[t][p].push_back(sum / c.top);  // the mean over the other's top, 0..480
          monitored[t][p].push_back(scores[at++]);
        } else if (!c.plays_games()) {
          fitness[t][p].push_back(measured[at++]);
        } else {
          double sum = 0;
          for (std::size_t k = 0; k < opponents.size(); ++k) sum += scores[at++];
          // The mean over opponents and repetitions: 0..480 (540 with all openings).
          fitness[t][p].push_back(sum / static_cast<double>(opponents.size() * c.games_per_opening));
        }
      }
    }
  return {std::move(fitness), std::move(monitored), play_s};
}

EvolveOutcome loop(RunSession& session, const TicTacToeConfig& c, TttState state, std::unique_ptr<Backend> backend,
                   int threads) {
  RunDir& run = session.run();
  EvolveOutcome out;
  if (state.finished) {
    out.generations_done = state.generation;
    out.complete = true;
    return out;
  }
  if (state.generation >= c.generations)  // resume_tictactoe refuses such a limit
    fail("{}: internal error: generation {} is bred but the limit is {}", run.path().string(), state.generation,
         c.generations);
  play::TttMatches matches(*backend, c.openings, c.games_per_opening);
  std::vector<play::TicTacToeAgent> opponents;
  for (const int d : c.opponent_depths) {
    opponents.push_back(play::static_agent(d));
    opponents.back().params.random_ties = c.random_ties;
  }
  const play::TicTacToeAgent monitor = play::static_agent(c.monitor_depth);
  const int np = populations(c);
  run.log(fmt::format(
      "evolve tictactoe: {} trial(s) x {} population(s) of {} {} networks ({} bits), ply {}, {}, "
      "backend {}, generations {}..{}",
      c.trials, np, c.ga.population, c.topology == tictactoe::Topology::kFull ? "full" : "paper", c.ga.bits, c.depth,
      c.fitness == TttFitness::kOracle ? std::string("fitness from the measures against perfect play (no games)")
      : c.fitness == TttFitness::kSafety
          ? std::string("fitness from the exact loss probabilities against a random opponent (no games)")
      : c.coevolution
          ? fmt::format("co-evolution against the other's top {}, monitored against the "
                        "static evaluator at ply {}{}",
                        c.top, c.monitor_depth, openings_note(c))
          : fmt::format("against the static evaluator at ply {}{}{}", fmt::join(c.opponent_depths, ", "),
                        c.opponent_depths.size() > 1 ? " (fitness: the mean of the matches)" : "", openings_note(c)),
      backend->name(), state.generation, c.generations - 1));
  if (state.oracle)
    run.log(
        fmt::format("monitored against perfect play (oracle.csv): the best networks every generation, the "
                    "populations every {} generation(s) and at the last",
                    c.population_every));
  else
    run.log("not monitored against perfect play (no oracle.csv: [monitor] oracle = false, or a run made before it)");
  ProgressMeter meter(static_cast<u64>(c.generations), static_cast<u64>(state.generation));
  while (true) {
    const auto t0 = std::chrono::steady_clock::now();
    const int g = state.generation;
    // Agents of every member, and of every population's previous top.
    Agents members(c.trials), tops(c.trials);
    for (int t = 0; t < c.trials; ++t)
      for (int p = 0; p < np; ++p) {
        members[t].emplace_back();
        tops[t].emplace_back();
        for (std::size_t i = 0; i < state.pops[t][p].size(); ++i)
          members[t][p].push_back(play::network_agent(state.pops[t][p][i], c.topology, c.depth, "member"));
        for (const BitString& b : state.top[t][p])
          tops[t][p].push_back(play::network_agent(b, c.topology, c.depth, "top"));
      }
    GenerationScores scored = score_generation(c, g, members, tops, opponents, monitor, matches, threads);
    const Fitness& fitness = scored.fitness;
    const auto& monitored = scored.monitored;
    const double play_s = scored.play_s;
    std::string rows;
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::string line = fmt::format("gen {:>4}", g);
    for (int t = 0; t < c.trials; ++t)
      for (int p = 0; p < np; ++p) {
        const Stats f = stats_of(fitness[t][p]);
        std::string monitor_cols = ",";
        if (c.coevolution) {
          const Stats m = stats_of(monitored[t][p]);
          monitor_cols = fmt::format("{:.0f},{:.3f}", m.best, m.mean);
        }
        rows += fmt::format("{},{},{},{:.3f},{:.3f},{:.3f},{},{:.3f},{:.3f}\n", g, t, p == 0 ? "a" : "b", f.best,
                            f.mean, f.worst, monitor_cols, play_s, secs);
        line += fmt::format(" {}{}:{:.0f}/{:.0f}", t, np > 1 ? (p == 0 ? "a" : "b") : "", f.best, f.mean);
      }
    run.append_rows(kMetrics, rows);
    std::string oracle_note;
    if (state.oracle) {
      const auto to = std::chrono::steady_clock::now();
      run.append_rows(kOracle, oracle_rows(c, g, members, fitness, threads));
      oracle_note = fmt::format(" | oracle {:.2f} s",
                                std::chrono::duration<double>(std::chrono::steady_clock::now() - to).count());
    }
    run.log(fmt::format("{} (best/mean) | {:.2f} s/gen{} | {}", line, secs, oracle_note,
                        meter.status(static_cast<u64>(g + 1))));

    // The next generation; co-evolution keeps each population's best as the other's opponents.
    for (int t = 0; t < c.trials; ++t)
      for (int p = 0; p < np; ++p) {
        if (c.coevolution) {
          std::vector<BitString> best;
          for (int i : best_indices(fitness[t][p], c.top)) best.push_back(state.pops[t][p][i]);
          state.top[t][p] = std::move(best);
        }
        if (g + 1 >= c.generations) {
          // The last generation's best, for best_networks.csv (the population stays as played).
          continue;
        }
        state.pops[t][p] = next_bit_generation(state.pops[t][p], fitness[t][p], c.ga, c.seed, stream_of(t, p), g);
      }
    const bool last = g + 1 >= c.generations;
    const bool stop = session.stop_requested();
    if (last) {
      std::string best = "trial,population,fitness,monitor,bits\n";
      for (int t = 0; t < c.trials; ++t)
        for (int p = 0; p < np; ++p) {
          const int i = best_indices(fitness[t][p], 1)[0];
          best += fmt::format("{},{},{:.3f},{},{}\n", t, p == 0 ? "a" : "b", fitness[t][p][i],
                              c.coevolution ? std::to_string(monitored[t][p][i]) : "",
                              play::ttt_bits_to_hex(state.pops[t][p][i]));
        }
      run.write_file("best_networks.csv", best);
      state.generation = g + 1;
      state.finished = true;
      run.write_checkpoint(kCheckpoint, encode(state, c));
      out.generations_done = g + 1;
      out.complete = true;
      run.log(fmt::format("evolve complete after {} generations; best networks in {}", g + 1,
                          run.file("best_networks.csv").string()));
      return out;
    }
    state.generation = g + 1;
    if (stop || state.generation % c.checkpoint_every == 0) run.write_checkpoint(kCheckpoint, encode(state, c));
    if (stop) return evolve_detail::stopped_after(session, g);
  }
}

}  // namespace

double ttt_max_fitness(const TicTacToeConfig& c) {
  switch (c.fitness) {
    case TttFitness::kGames: return static_cast<double>(play::ttt_max_points(c.openings));
    case TttFitness::kOracle:
    case TttFitness::kSafety: return 480.0;
  }
  fail("evolve tictactoe: fitness kind {} has no maximum", static_cast<int>(c.fitness));
}

double safety_fitness(const tictactoe::LossVsRandom& loss) { return 240.0 * (2.0 - loss.as_x - loss.as_o); }

double oracle_fitness(const tictactoe::PlayerMeasures& m) {
  const int held =
      (m.as_x.worst_vs_perfect != tictactoe::Result::kLoss) + (m.as_o.worst_vs_perfect != tictactoe::Result::kLoss);
  return 200.0 * held + 80.0 * m.nontrivial_optimal_share();
}

std::vector<MemoryPart> tictactoe_memory_estimate(const TicTacToeConfig& c) {
  const double groups = static_cast<double>(c.trials) * populations(c);  // populations in all
  const double members = groups * c.ga.population, tops = groups * (c.coevolution ? c.top : 0);
  // A member meets the other population's top (and the monitor) or the static player: 16 games
  // (18 with all openings); none with the oracle's fitness.
  const double matches = !c.plays_games() ? 0.0 : members * (c.coevolution ? c.top + 1 : 1);
  const double games = matches * play::ttt_match_games(c.openings);
  const double bits = static_cast<double>(c.ga.bits) + sizeof(BitString);
  std::vector<MemoryPart> parts;
  parts.push_back(
      {fmt::format("bit strings ({} members and tops x {} B, with the bred next generation)", members + tops, bits),
       (2 * members + tops) * bits});
  parts.push_back(
      {fmt::format("agents ({} x {} B, and the backend's copies)", members + tops, sizeof(play::TicTacToeAgent)),
       2 * (members + tops) * static_cast<double>(sizeof(play::TicTacToeAgent))});
  parts.push_back(
      {fmt::format("a generation's games ({} matches of {} games)", matches, play::ttt_match_games(c.openings)),
       matches * sizeof(play::TttMatch) +
           games * static_cast<double>(sizeof(GameJobOf<games::TicTacToe>) + sizeof(play::TicTacToeRecord))});
  return parts;
}

EvolveOutcome run_tictactoe(RunSession& session, const EvolveConfig& config, const EvolveRunOptions& options) {
  const TicTacToeConfig& c = config.ttt;
  auto backend = evolve_detail::make_evolve_backend(options);
  TttState start = initial_state(c);
  RunSession::Tables tables{{kMetrics, kMetricsHeader}};
  if (c.oracle) tables.emplace_back(kOracle, kOracleHeader);
  session.create(tables, evolve_config_to_toml(config),
                 [&](RunDir& run) { run.write_checkpoint(kCheckpoint, encode(start, c)); });
  return loop(session, c, std::move(start), std::move(backend), options.threads);
}

EvolveOutcome resume_tictactoe(RunSession& session, EvolveConfig config, const EvolveRunOptions& options,
                               int generations) {
  RunDir& run = session.run();
  TicTacToeConfig& c = config.ttt;
  const auto payload = run.read_checkpoint(kCheckpoint);
  TttState state = payload ? decode(*payload, run.file(kCheckpoint).string(), c) : initial_state(c);
  if (!payload) state.oracle = run.has(kOracle);
  // The checkpoint says whether the run has oracle.csv (a run made before it has not, whatever
  // its config.toml's defaults say now); a config rewritten below records that.
  c.oracle = state.oracle;
  if (state.finished && generations > c.generations)
    fail(
        "{}: a finished Tic-Tac-Toe run is not extended (its last populations were not bred); start a new run with "
        "more generations",
        run.path().string());
  evolve_detail::check_new_limit(run, state.generation, generations);
  // An unfinished run's checkpoint holds generation N bred but not played: its last generation
  // must be N or later (the last one is the generation whose best networks are kept).
  if (!state.finished && generations > 0 && generations <= state.generation)
    fail_input("generations",
               "{}: the limit must be at least {}: the populations of generation {} are bred but not played",
               run.path().string(), state.generation + 1, state.generation);
  auto backend = evolve_detail::make_evolve_backend(options);
  const int rows_per_generation = c.trials * populations(c);
  const int next = state.generation;
  i64 rows = 0;
  run.resume_table(kMetrics, kMetricsHeader, [&](const RunDir::Row& f, const std::string& where) {
    const i64 g = parse_int_field(f[0], 0, 100000000, where, "generation");
    const i64 t = parse_int_field(f[1], 0, c.trials - 1, where, "trial");
    if (f[2] != "a" && !(c.coevolution && f[2] == "b"))
      fail("{}: population '{}' (expected a{})", where, f[2], c.coevolution ? " or b" : "");
    if (g * rows_per_generation + t * populations(c) + (f[2] == "b") != rows)
      fail("{}: row out of order (generation {}, trial {}, population {})", where, g, t, f[2]);
    ++rows;
    for (int k = 3; k <= 5; ++k) {
      const double v = parse_real_field(f[k], where, "a fitness");
      if (v < 0 || v > ttt_max_fitness(c)) fail("{}: fitness {} is outside 0..{}", where, v, ttt_max_fitness(c));
    }
    if (c.coevolution) {
      for (int k : {6, 7}) {
        const double v = parse_real_field(f[k], where, "a monitor fitness");
        if (v < 0 || v > ttt_max_fitness(c))
          fail("{}: monitor fitness {} is outside 0..{}", where, v, ttt_max_fitness(c));
      }
    } else if (!f[6].empty() || !f[7].empty()) {
      fail("{}: monitor columns in a run without co-evolution", where);
    }
    parse_real_field(f[8], where, "play_seconds");
    parse_real_field(f[9], where, "seconds");
    return g < next;
  });
  if (rows < static_cast<i64>(next) * rows_per_generation)
    fail("{}: rows end before generation {} (the checkpoint's)", run.file(kMetrics).string(), next);
  if (state.oracle) {
    i64 oracle_count = 0;
    run.resume_table(kOracle, kOracleHeader, [&](const RunDir::Row& f, const std::string& where) {
      const i64 g = parse_int_field(f[0], 0, 100000000, where, "generation");
      const i64 t = parse_int_field(f[1], 0, c.trials - 1, where, "trial");
      if (f[2] != "a" && !(c.coevolution && f[2] == "b"))
        fail("{}: population '{}' (expected a{})", where, f[2], c.coevolution ? " or b" : "");
      if (g * rows_per_generation + t * populations(c) + (f[2] == "b") != oracle_count)
        fail("{}: row out of order (generation {}, trial {}, population {})", where, g, t, f[2]);
      ++oracle_count;
      auto share = [&](const std::string& v, const char* what) {
        const double x = parse_real_field(v, where, what);
        if (x < 0 || x > 1) fail("{}: {} {} is outside 0..1", where, what, x);
      };
      share(f[3], "best_optimal");
      share(f[4], "best_nontrivial_optimal");
      for (int k = 5; k <= 8; ++k)
        if (f[k] != "win" && f[k] != "draw" && f[k] != "loss")
          fail("{}: result '{}' (expected win, draw or loss)", where, f[k]);
      share(f[9], "best_x_loss_vs_random");
      share(f[10], "best_o_loss_vs_random");
      if (!f[11].empty()) share(f[11], "population_never_loses");
      return g < next;
    });
    if (oracle_count < static_cast<i64>(next) * rows_per_generation)
      fail("{}: rows end before generation {} (the checkpoint's)", run.file(kOracle).string(), next);
  }
  if (generations > 0 && generations != c.generations) {
    c.generations = generations;
    run.commit_config(evolve_config_to_toml(config));
  }
  if (options.check_only) {
    EvolveOutcome checked;
    checked.generations_done = next;
    return checked;
  }
  return loop(session, c, std::move(state), std::move(backend), options.threads);
}

std::vector<BestNetwork> read_best_networks(const fs::path& dir) {
  const EvolveConfig c = load_evolve_config((dir / "config.toml").string());
  if (c.kind != EvolveKind::kTicTacToe)
    fail("{}: not a tictactoe evolve run (kind {})", dir.string(), evolve_kind_name(c.kind));
  const fs::path file = dir / "best_networks.csv";
  std::error_code ec;
  if (!fs::exists(file, ec)) fail("{}: no such file (is the run complete?)", file.string());
  std::istringstream in(read_file(file, FileKind::kRunTable));
  std::vector<BestNetwork> out;
  std::string line;
  std::getline(in, line);
  for (std::size_t lineno = 2; std::getline(in, line); ++lineno) {
    const std::string where = fmt::format("{}:{}", file.string(), lineno);
    std::vector<std::string> f;
    std::stringstream ss(line);
    for (std::string x; std::getline(ss, x, ',');) f.push_back(x);
    if (f.size() != 5) fail("{}: expected 5 columns (trial,population,fitness,monitor,bits)", where);
    BestNetwork n;
    n.trial = static_cast<int>(parse_int_field(f[0], 0, 1000, where, "trial"));
    if (f[1] != "a" && f[1] != "b") fail("{}: population '{}' (expected a or b)", where, f[1]);
    n.population = f[1];
    n.fitness = f[2];
    n.bits = play::ttt_bits_from_hex(f[4], c.ttt.ga.bits, where);
    n.agent = play::network_agent(n.bits, c.ttt.topology, c.ttt.depth,
                                  fmt::format("{}:t{}{}", dir.filename().string(), n.trial, n.population));
    out.push_back(std::move(n));
  }
  if (out.empty()) fail("{}: no networks", file.string());
  return out;
}

std::vector<play::TicTacToeAgent> load_best_networks(const fs::path& dir) {
  std::vector<play::TicTacToeAgent> out;
  for (BestNetwork& n : read_best_networks(dir)) out.push_back(std::move(n.agent));
  return out;
}

std::vector<fs::path> save_best_network_agents(const fs::path& run, const fs::path& out_dir) {
  const std::vector<BestNetwork> best = read_best_networks(run);
  // The run directory's own name keeps the files of several runs apart in one directory; a ':'
  // (the agents' name separator) would not be portable in a file name.
  const std::string stem = fs::absolute(run).lexically_normal().filename().string();
  std::vector<fs::path> files;
  for (const BestNetwork& n : best) {
    play::TicTacToeAgent agent = n.agent;
    agent.name = fmt::format("{}-t{}{}", stem.empty() ? "run" : stem, n.trial, n.population);
    files.push_back(out_dir / (agent.name + ".toml"));
    play::save_tictactoe_agent(agent, files.back());
  }
  return files;
}

}  // namespace ef::ga
