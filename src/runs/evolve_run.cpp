#include "evalforge/runs/evolve_run.hpp"
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include "backends/team_backend.hpp"
#include "core/bytes.hpp"
#include "evalforge/backends/backend.hpp"
#include "evalforge/core/error.hpp"
#include "evalforge/core/memory_check.hpp"
#include "evalforge/games/othello/agent_file.hpp"
#include "evalforge/ratings/ratings.hpp"
#include "games/othello/feature_weights.hpp"
#include "runs/evolve_tictactoe.hpp"
#include "runs/run_kinds.hpp"

namespace ef::ga {

namespace fs = std::filesystem;

namespace {

constexpr const char* kKind = run_kind_name(RunKind::kEvolve);
constexpr const char* kMetrics = "metrics.csv";
constexpr const char* kCheckpoint = "checkpoint.bin";
constexpr const char* kMetricsHeader =
    "generation,champion,champion_elo,champion_bt,champion_bt_margin95,champion_born,elo_mean,elo_sd,elo_min,"
    "elo_max,distinct,gene_distance,unchanged,black_wins,draws,white_wins,yardstick_games,yardstick_score,"
    "play_seconds,seconds";
// Only in runs that ask for them ([crowning] rule = "challenge", a [panel]):
constexpr const char* kCrowning = "crowning.csv";
constexpr const char* kCrowningHeader = "generation,leader,champion,wins,draws,losses,los,crowned";
constexpr const char* kPanel = "panel.csv";
constexpr const char* kPanelHeader =
    "generation,members,champion_score,champion_low95,champion_high95,champion_by_opponent,champion_rank,"
    "population_mean,population_best,spearman";
constexpr u32 kCheckpointVersion = 1;

// Where a run stands between two generations.
struct State {
  EloPopulation population;        // the members of generation population.generation, to play next
  int unchanged = 0;               // generations the last champion had been champion in a row, minus one
  std::vector<int> last_champion;  // empty before generation 0
  bool finished = false;
};

std::string encode(const State& s) {
  ByteWriter w;
  w.put<u32>(kCheckpointVersion);
  w.put<i32>(s.population.generation);
  w.put<bool>(s.finished);
  w.put<i32>(s.unchanged);
  w.put<u32>(static_cast<u32>(s.last_champion.size()));
  w.put_array<int>(s.last_champion);
  w.put<u32>(static_cast<u32>(s.population.members.size()));
  for (const Member& m : s.population.members) {
    w.put<u32>(static_cast<u32>(m.genes.size()));
    w.put_array<int>(m.genes);
    w.put<double>(m.rating);
    w.put<i32>(m.born);
    w.put<u64>(m.wins);
    w.put<u64>(m.draws);
    w.put<u64>(m.losses);
  }
  return w.take();
}

// Decodes and checks a checkpoint against the config it must continue: a population of the
// configured size, chromosomes of 11 genes (26 for pos_fmc, pos_dmc) in their ranges, finite ratings.
State decode(const std::string& payload, const std::string& file, const EloOthelloConfig& c,
             std::span<const GeneRange> ranges) {
  ByteReader r(payload, file);
  if (r.get<u32>("the version") != kCheckpointVersion) r.bad("checkpoint version (expected 1)");
  State s;
  s.population.generation = r.get<i32>("the generation");
  if (s.population.generation < 0 || s.population.generation > 100000000) r.bad("generation out of range");
  s.finished = r.get<bool>("the finished flag");
  s.unchanged = r.get<i32>("the unchanged count");
  if (s.unchanged < 0 || s.unchanged > s.population.generation) r.bad("unchanged count out of range");
  auto genes = [&](const char* what) {
    const u32 n = r.get<u32>(what);
    if (n != ranges.size() && !(n == 0 && std::string(what) == "the last champion"))
      r.bad(fmt::format("{} has {} genes ({} expected)", what, n, ranges.size()));
    std::vector<int> g = r.get_array<int>(n, what);
    for (std::size_t k = 0; k < g.size(); ++k)
      if (g[k] < ranges[k].low || g[k] > ranges[k].high) r.bad(fmt::format("{}: gene {} out of range", what, k + 1));
    return g;
  };
  s.last_champion = genes("the last champion");
  const u32 n = r.get<u32>("the population size");
  if (static_cast<int>(n) != c.ga.population)
    r.bad(fmt::format("a population of {} (the config says {})", n, c.ga.population));
  for (u32 i = 0; i < n; ++i) {
    Member m;
    m.genes = genes("a member");
    m.rating = r.get<double>("a rating");
    if (!std::isfinite(m.rating)) r.bad("a rating is not finite");
    m.born = r.get<i32>("a birth generation");
    if (m.born < 0 || m.born > s.population.generation) r.bad("a birth generation out of range");
    m.wins = r.get<u64>("a record");
    m.draws = r.get<u64>("a record");
    m.losses = r.get<u64>("a record");
    s.population.members.push_back(std::move(m));
  }
  r.expect_end();
  return s;
}

std::string chromosome_text(std::span<const int> genes) {
  return features::format_chromosome(features::from_genes(genes, features::Material::kFlips, "chromosome"));
}

play::OthelloAgent yardstick_agent(const EloOthelloConfig& c) {
  if (c.yardstick == "swh") return play::swh_agent(c.play.limits);
  if (c.yardstick == "random") return play::random_agent();
  return play::load_agent(c.yardstick);
}

std::string hall_of_fame_file(int generation) { return fmt::format("hall_of_fame/gen-{:05}.toml", generation); }

bool stalled(const EloOthelloConfig& c, const State& s) {
  return c.stall_generations > 0 && s.unchanged >= c.stall_generations;
}

// What a run needs before its first generation; built before anything is written, so that a
// bad backend or yardstick agent leaves no run directory behind.
struct Setup {
  std::unique_ptr<Backend> backend;
  play::OthelloAgent opponent;            // the yardstick (unused with "none")
  std::vector<play::OthelloAgent> panel;  // [panel] opponents
};

Setup make_setup(const EloOthelloConfig& c, const EvolveRunOptions& o) {
  Setup s;
  s.backend = evolve_detail::make_evolve_backend(o);
  if (c.yardstick != "none") s.opponent = yardstick_agent(c);
  for (const std::string& spec : c.panel) s.panel.push_back(play::panel_agent(spec, c.play));
  return s;
}

// A finished run's last files: champion.toml first, then the checkpoint that says the run is
// finished, so that a crash in between leaves a run that resume finishes again.
void finish(RunDir& run, const EloOthelloConfig& c, State& state) {
  play::save_agent(play::feature_agent(state.last_champion, c.play, "elo-champion"), run.file("champion.toml"));
  state.finished = true;
  run.write_checkpoint(kCheckpoint, encode(state));
}

// The champion of generation g among the rated members, whose best-ranked is `leader`; returns
// its index. Ranking rule: the leader. Challenge rule: the first leader is crowned; after that a
// leader that is not the champion plays it (play_challenge) and takes the crown only with a
// likelihood of superiority of at least c.challenge_los (crowning.csv has every match). The
// champion is in the population: keep_champion carries it into each next generation.
int crown(RunDir& run, const EloOthelloConfig& c, play::FeatureTournament& tournament, const EloPopulation& pop,
          int leader, const State& state, int g) {
  if (!c.challenge || state.last_champion.empty()) return leader;
  int incumbent = -1;
  for (std::size_t i = 0; i < pop.members.size() && incumbent < 0; ++i)
    if (pop.members[i].genes == state.last_champion) incumbent = static_cast<int>(i);
  if (incumbent < 0)
    fail("{}: generation {} lost its champion {} (keep_champion carries it over)", run.path().string(), g,
         chromosome_text(state.last_champion));
  const Member& l = pop.members[leader];
  if (l.genes == state.last_champion) return incumbent;
  const auto y = tournament.play_challenge(l.genes, state.last_champion, c.challenge_openings,
                                           c.challenge_opening_plies, c.seed, g);
  const double los = ratings::los_from_wins_losses(y.wins, y.losses);
  const bool crowned = los >= c.challenge_los;
  run.append_rows(kCrowning,
                  fmt::format("{},{},{},{},{},{},{:.4f},{}\n", g, chromosome_text(l.genes),
                              chromosome_text(state.last_champion), y.wins, y.draws, y.losses, los, crowned ? 1 : 0));
  return crowned ? leader : incumbent;
}

// With the challenge rule or random search the champion must survive into the next generation
// (the GA's parents might not include it; random search draws everyone anew): it takes the last
// place when it is not there already.
void keep_champion(EloPopulation& next, const Member& champion, const EloOthelloConfig& c) {
  if (!c.challenge && c.ga.search != EloSearch::kRandom) return;
  for (const Member& m : next.members)
    if (m.genes == champion.genes) return;
  next.members.back() = champion;
}

// The panel of generation g: the champion (and with panel_population every member) against every
// panel opponent from the same openings; one panel.csv row.
void play_panel(RunDir& run, const EloOthelloConfig& c, play::FeatureTournament& tournament,
                const std::vector<play::OthelloAgent>& panel, const EloPopulation& pop, const RatedGeneration& rated,
                int champion_index, int g) {
  std::vector<std::vector<int>> members;
  std::vector<int> index;  // member of pop for each row of the panel
  for (std::size_t i = 0; i < pop.members.size(); ++i)
    if (c.panel_population || static_cast<int>(i) == champion_index) {
      members.push_back(pop.members[i].genes);
      index.push_back(static_cast<int>(i));
    }
  const auto results = tournament.play_panel(members, panel, c.panel_openings, c.panel_opening_plies, c.seed);
  std::vector<double> score(members.size()), fitness(members.size());
  int champion_row = 0;
  std::vector<std::string> by_opponent;
  int wins = 0, draws = 0, losses = 0;
  for (std::size_t m = 0; m < members.size(); ++m) {
    int w = 0, d = 0, l = 0;
    for (const auto& y : results[m]) {
      w += y.wins;
      d += y.draws;
      l += y.losses;
    }
    score[m] = (w + 0.5 * d) / std::max(1, w + d + l);
    fitness[m] = rated.fitness[index[m]];
    if (index[m] == champion_index) {
      champion_row = static_cast<int>(m);
      wins = w;
      draws = d;
      losses = l;
      for (const auto& y : results[m]) by_opponent.push_back(fmt::format("{:.4f}", y.score()));
    }
  }
  const ratings::ScoreInterval ci = ratings::score_interval(wins, draws, losses);
  int rank = 1;  // the champion's place by panel score among the members played (1 = best)
  for (std::size_t m = 0; m < members.size(); ++m) rank += score[m] > score[champion_row];
  double mean = 0, best = 0;
  for (double x : score) {
    mean += x;
    best = std::max(best, x);
  }
  mean /= static_cast<double>(score.size());
  const double rho = members.size() >= 2 ? ratings::spearman(fitness, score) : std::nan("");
  run.append_rows(kPanel, fmt::format("{},{},{:.4f},{:.4f},{:.4f},{},{},{:.4f},{:.4f},{}\n", g, members.size(), ci.mean,
                                      ci.low95, ci.high95, fmt::join(by_opponent, ";"), rank, mean, best,
                                      std::isnan(rho) ? std::string() : fmt::format("{:.4f}", rho)));
  run.log(fmt::format("gen {:>5} panel: champion {:.3f} [{:.3f}, {:.3f}], rank {} of {}, population mean {:.3f}{}", g,
                      ci.mean, ci.low95, ci.high95, rank, members.size(), mean,
                      std::isnan(rho) ? "" : fmt::format(", fitness-panel rank correlation {:+.2f}", rho)));
}

EvolveOutcome run_loop(RunSession& session, const EloOthelloConfig& c, State state, Setup setup) {
  RunDir& run = session.run();
  const std::vector<GeneRange> ranges = play::feature_gene_ranges(c.play.positional);
  EvolveOutcome out;
  // Finished already (its limit reached, or its champion stalled), or a limit lowered to the
  // generations played: complete, with champion.toml (re)written from the checkpoint.
  if (!state.last_champion.empty() && (state.population.generation >= c.generations || stalled(c, state))) {
    if (!state.finished || !run.has("champion.toml")) finish(run, c, state);
    out.generations_done = state.population.generation;
    out.complete = true;
    out.stalled = stalled(c, state) && state.population.generation < c.generations;
    return out;
  }
  state.finished = false;
  Backend* backend = setup.backend.get();
  play::FeatureTournament tournament(*backend, c.play);
  const bool yardstick = c.yardstick != "none";
  const play::OthelloAgent& opponent = setup.opponent;
  const std::vector<play::OthelloAgent>& panel = setup.panel;
  const int n = c.ga.population;
  run.log(fmt::format(
      "evolve elo-othello: {} players ({}), {} games a generation, backend {}, generations {}..{}{}", n,
      c.play.material == features::Material::kFlips ? "oe_fmc" : "oe_dmc",
      static_cast<u64>(n) * (n - 1) * c.ga.openings_per_pair, backend->name(), state.population.generation,
      c.generations - 1,
      c.stall_generations > 0 ? fmt::format(" (or until the champion is unchanged for {})", c.stall_generations) : ""));
  ProgressMeter meter(static_cast<u64>(c.generations), static_cast<u64>(state.population.generation));
  while (true) {
    const auto t0 = std::chrono::steady_clock::now();
    EloPopulation& pop = state.population;
    const int g = pop.generation;
    std::vector<std::vector<int>> genes;
    for (const Member& m : pop.members) genes.push_back(m.genes);
    play::TournamentCounts counts;
    const std::vector<double> scores = tournament.play_round_robin(genes, c.seed, g, &counts, c.ga.openings_per_pair);
    const RatedGeneration rated = rate_generation(pop, scores, c.ga);
    const std::vector<int>& order = rated.order;
    // The champion: the generation's leader (the blog's rule), or with [crowning] "challenge" the
    // incumbent unless the leader beats it over fresh openings (crown() below).
    const int champion_index = crown(run, c, tournament, pop, order[0], state, g);
    const Member& champion = pop.members[champion_index];

    double bt = std::nan(""), bt_margin = std::nan("");
    if (c.bradley_terry) {
      const auto pairings = round_robin_pairings(n, c.ga.openings_per_pair);
      std::vector<ratings::GameResult> results(scores.size());
      for (std::size_t k = 0; k < scores.size(); ++k) results[k] = {pairings[k].first, pairings[k].second, scores[k]};
      const ratings::BradleyTerryFit fit = ratings::fit_bradley_terry(results, n);
      bt = fit.ratings[champion_index];
      bt_margin = fit.margins95[champion_index];
    }
    const bool same_champion = !state.last_champion.empty() && champion.genes == state.last_champion;
    state.unchanged = same_champion ? state.unchanged + 1 : 0;
    const bool last_allowed = g + 1 >= c.generations;
    const bool stalled_now = stalled(c, state);
    const bool finished = last_allowed || stalled_now;
    // The yardstick every `yardstick_every` generations and at the last one, however the run ends.
    int yard_games = 0;
    double yard_score = std::nan("");
    if (yardstick && (g % c.yardstick_every == 0 || finished)) {
      const auto y = tournament.play_yardstick(champion.genes, opponent, c.yardstick_openings,
                                               c.yardstick_opening_plies, c.seed, g);
      yard_games = y.wins + y.draws + y.losses;
      yard_score = y.score();
    }
    if (!c.panel.empty() && (g % c.panel_every == 0 || finished))
      play_panel(run, c, tournament, panel, pop, rated, champion_index, g);
    if (!same_champion) {
      play::OthelloAgent a = play::feature_agent(champion.genes, c.play, fmt::format("elo-gen-{}", g));
      fs::create_directories(run.file("hall_of_fame"));
      play::save_agent(a, run.file(hall_of_fame_file(g)));
    }
    state.last_champion = champion.genes;

    double sum = 0, lo = champion.rating, hi = champion.rating;
    for (const Member& m : pop.members) {
      sum += m.rating;
      lo = std::min(lo, m.rating);
      hi = std::max(hi, m.rating);
    }
    const double mean = sum / n;
    double var = 0;
    for (const Member& m : pop.members) var += (m.rating - mean) * (m.rating - mean);
    const Diversity div = diversity(pop);
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    auto real = [](double v) { return std::isnan(v) ? std::string() : fmt::format("{:.3f}", v); };
    run.append_rows(
        kMetrics,
        fmt::format("{},{},{:.3f},{},{},{},{:.3f},{:.3f},{:.3f},{:.3f},{},{:.4f},{},{},{},{},{},{},{:.3f},{:.3f}\n", g,
                    chromosome_text(champion.genes), champion.rating, real(bt), real(bt_margin), champion.born, mean,
                    std::sqrt(var / n), lo, hi, div.distinct, div.mean_gene_distance, state.unchanged,
                    counts.black_wins, counts.draws, counts.white_wins, yard_games,
                    std::isnan(yard_score) ? "" : fmt::format("{:.4f}", yard_score), counts.play_seconds, secs));
    run.log(fmt::format("gen {:>5} champion {} elo {:.0f}{}{} unchanged {} | {:.2f} s/gen | {}", g,
                        chromosome_text(champion.genes), champion.rating,
                        std::isnan(bt) ? "" : fmt::format(" bt {:.0f}+-{:.0f}", bt, bt_margin),
                        std::isnan(yard_score) ? "" : fmt::format(" vs {} {:.3f}", opponent.name, yard_score),
                        state.unchanged, secs, meter.status(static_cast<u64>(g + 1))));

    const Member crowned = champion;  // `champion` refers into the population replaced here
    state.population = next_generation(pop, order, ranges, c.ga, c.seed);
    keep_champion(state.population, crowned, c);
    const bool stop = session.stop_requested();
    if (finished) {
      finish(run, c, state);
      out.generations_done = g + 1;
      out.complete = true;
      out.stalled = stalled_now && !last_allowed;
      run.log(fmt::format("evolve complete after {} generations ({}); champion {} in {}", g + 1,
                          out.stalled ? fmt::format("champion unchanged for {}", state.unchanged) : "generation limit",
                          chromosome_text(state.last_champion), run.file("champion.toml").string()));
      return out;
    }
    if (stop || state.population.generation % c.checkpoint_every == 0) run.write_checkpoint(kCheckpoint, encode(state));
    if (stop) return evolve_detail::stopped_after(session, g);
  }
}

}  // namespace

namespace evolve_detail {

std::unique_ptr<Backend> make_evolve_backend(const EvolveRunOptions& o) {
  if (o.team) {
    if (!o.devices.empty()) fail("--devices and MPI ranks both spread the games: give one of them");
    return make_team_backend(make_backend(o.backend, o.threads), *o.team);
  }
  if (o.devices.empty()) return make_backend(o.backend, o.threads);
  return make_multi_device_backend(o.backend, o.threads, o.devices);
}

EvolveOutcome stopped_after(RunSession& session, int generation) {
  session.stopped(fmt::format("after generation {}; checkpoint written", generation));
  EvolveOutcome out;
  out.generations_done = generation + 1;
  out.interrupted = true;
  return out;
}

void check_new_limit(const RunDir& run, int played, int generations) {
  if (generations > 0 && generations < played)
    fail_input("generations", "{}: {} generations are played already; a limit of {} would end the run before them",
               run.path().string(), played, generations);
}

}  // namespace evolve_detail

namespace {

std::vector<MemoryPart> elo_othello_memory_estimate(const EloOthelloConfig& c) {
  const double n = c.ga.population;
  const double games = n * (n - 1) * c.ga.openings_per_pair;  // a round robin, both colours, K openings
  // Per game: the job and record of the backend batch, its pairing (built three times), its
  // score and two rating results.
  const double per_game = sizeof(OthelloJob) + sizeof(play::OthelloRecord) + 3 * 8 + 8 + 2 * 16;
  std::vector<MemoryPart> parts;
  parts.push_back({fmt::format("a generation's round robin ({} games x {} B)", games, per_game), games * per_game});
  if (c.bradley_terry || c.ga.selection == EloSelection::kBradleyTerry)
    parts.push_back({fmt::format("Bradley-Terry fit (5 matrices of {} x {} x 8 B)", n, n), 5 * n * n * 8});
  if (c.challenge) {
    const double challenge = 2.0 * c.challenge_openings;
    parts.push_back({fmt::format("challenge games ({})", challenge),
                     challenge * (sizeof(OthelloJob) + sizeof(play::OthelloRecord))});
  }
  if (!c.panel.empty()) {
    const double panel = (c.panel_population ? n : 1) * static_cast<double>(c.panel.size()) * 2 * c.panel_openings;
    parts.push_back(
        {fmt::format("panel games ({})", panel), panel * (sizeof(OthelloJob) + sizeof(play::OthelloRecord))});
  }
  if (c.yardstick != "none") {
    const double yard = 2.0 * c.yardstick_openings;
    parts.push_back(
        {fmt::format("yardstick games ({})", yard), yard * (sizeof(OthelloJob) + sizeof(play::OthelloRecord))});
  }
  return parts;
}

}  // namespace

// The evolve kinds' own code, by kind: a switch without default each (evolve_config.hpp).
std::vector<MemoryPart> evolve_memory_estimate(const EvolveConfig& config) {
  switch (config.kind) {
    case EvolveKind::kEloOthello: return elo_othello_memory_estimate(config.elo);
    case EvolveKind::kTicTacToe: return tictactoe_memory_estimate(config.ttt);
  }
  fail("evolve: kind {} has no memory estimate", static_cast<int>(config.kind));
}

namespace {

// The tables of an elo-othello run: metrics.csv, and those its config asks for.
RunSession::Tables elo_tables(const EloOthelloConfig& c) {
  RunSession::Tables t{{kMetrics, kMetricsHeader}};
  if (c.challenge) t.emplace_back(kCrowning, kCrowningHeader);
  if (!c.panel.empty()) t.emplace_back(kPanel, kPanelHeader);
  return t;
}

void check_evolve_memory(RunSession& session, const EvolveConfig& config) {
  const char* smaller = "";
  switch (config.kind) {
    case EvolveKind::kEloOthello: smaller = "a smaller population"; break;
    case EvolveKind::kTicTacToe: smaller = "fewer trials, a smaller population or a smaller co-evolution top"; break;
  }
  session.check_memory("evolve", evolve_memory_estimate(config), smaller);
}

EvolveOutcome run_elo_othello(RunSession& session, const EvolveConfig& config, const EvolveRunOptions& options) {
  const EloOthelloConfig& c = config.elo;
  Setup setup = make_setup(c, options);
  State start;
  start.population = initial_population(play::feature_gene_ranges(c.play.positional), c.ga, c.seed);
  session.create(elo_tables(c), evolve_config_to_toml(config),
                 [&](RunDir& run) { run.write_checkpoint(kCheckpoint, encode(start)); });
  return run_loop(session, c, std::move(start), std::move(setup));
}

EvolveOutcome resume_elo_othello(RunSession& session, EvolveConfig config, const EvolveRunOptions& options,
                                 int generations);

}  // namespace

EvolveOutcome run_evolve(const EvolveConfig& config, const fs::path& dir, const EvolveRunOptions& options) {
  RunSession session = RunSession::start_new(dir, kKind, options);
  check_evolve_memory(session, config);
  switch (config.kind) {
    case EvolveKind::kEloOthello: return run_elo_othello(session, config, options);
    case EvolveKind::kTicTacToe: return run_tictactoe(session, config, options);
  }
  fail("evolve: kind {} cannot run", static_cast<int>(config.kind));
}

EvolveOutcome resume_evolve(const fs::path& dir, const EvolveRunOptions& options, int generations) {
  RunSession session = RunSession::resume(dir, kKind, options);
  EvolveConfig config = load_evolve_config(session.config_file());
  check_evolve_memory(session, config);
  switch (config.kind) {
    case EvolveKind::kEloOthello: return resume_elo_othello(session, std::move(config), options, generations);
    case EvolveKind::kTicTacToe: return resume_tictactoe(session, std::move(config), options, generations);
  }
  fail("evolve: kind {} cannot resume", static_cast<int>(config.kind));
}

namespace {

EvolveOutcome resume_elo_othello(RunSession& session, EvolveConfig config, const EvolveRunOptions& options,
                                 int generations) {
  RunDir& run = session.run();
  EloOthelloConfig& c = config.elo;
  const std::vector<GeneRange> ranges = play::feature_gene_ranges(c.play.positional);
  const auto payload = run.read_checkpoint(kCheckpoint);
  State state;
  if (payload) {
    state = decode(*payload, run.file(kCheckpoint).string(), c, ranges);
  } else {
    state.population = initial_population(ranges, c.ga, c.seed);  // a crash before the first checkpoint
  }
  const int next = state.population.generation;
  // A new limit: never below the generations already played (they cannot be unplayed). A longer
  // limit reopens a run that ended at its limit, not one that stalled: its champion has stopped
  // changing, which more generations of the same GA do not undo.
  evolve_detail::check_new_limit(run, next, generations);
  Setup setup = make_setup(c, options);
  int previous = -1;
  const i64 n = c.ga.population;
  run.resume_table(kMetrics, kMetricsHeader, [&](const RunDir::Row& f, const std::string& where) {
    const i64 g = parse_int_field(f[0], 0, 100000000, where, "generation");
    if (g != previous + 1) fail("{}: generation {} follows generation {}", where, g, previous);
    previous = static_cast<int>(g);
    features::parse_chromosome(f[1], features::Material::kFlips, where);
    auto optional_real = [&](const std::string& v, const char* what) {
      if (!v.empty()) parse_real_field(v, where, what);
    };
    parse_real_field(f[2], where, "champion_elo");
    optional_real(f[3], "champion_bt");
    optional_real(f[4], "champion_bt_margin95");
    parse_int_field(f[5], 0, g, where, "champion_born");
    for (int k = 6; k <= 9; ++k) parse_real_field(f[k], where, "an Elo statistic");
    parse_int_field(f[10], 1, n, where, "distinct");
    const double distance = parse_real_field(f[11], where, "gene_distance");
    if (distance < 0 || distance > 1) fail("{}: gene_distance '{}' (expected 0..1)", where, f[11]);
    parse_int_field(f[12], 0, g, where, "unchanged");
    i64 games = 0;
    const i64 tournament = n * (n - 1) * c.ga.openings_per_pair;
    for (int k = 13; k <= 15; ++k) games += parse_int_field(f[k], 0, tournament, where, "a game count");
    if (games != tournament) fail("{}: {} games counted, a tournament of {} plays {}", where, games, n, tournament);
    parse_int_field(f[16], 0, 2 * static_cast<i64>(c.yardstick_openings), where, "yardstick_games");
    optional_real(f[17], "yardstick_score");
    parse_real_field(f[18], where, "play_seconds");
    parse_real_field(f[19], where, "seconds");
    return g < next;
  });
  if (previous + 1 < next)
    fail("{}: rows end at generation {} but the checkpoint is at generation {}", run.file(kMetrics).string(), previous,
         next);
  // The optional tables: rows of generations before the checkpoint stay, in order; later ones
  // are played again.
  auto generation_of = [&](const RunDir::Row& f, const std::string& where, int& last) {
    const i64 g = parse_int_field(f[0], 0, 100000000, where, "generation");
    if (g <= last) fail("{}: generation {} follows generation {}", where, g, last);
    last = static_cast<int>(g);
    return g;
  };
  if (c.challenge) {
    int last = -1;
    run.resume_table(kCrowning, kCrowningHeader, [&](const RunDir::Row& f, const std::string& where) {
      const i64 g = generation_of(f, where, last);
      features::parse_chromosome(f[1], features::Material::kFlips, where);
      features::parse_chromosome(f[2], features::Material::kFlips, where);
      const i64 games = parse_int_field(f[3], 0, 2000000, where, "wins") +
                        parse_int_field(f[4], 0, 2000000, where, "draws") +
                        parse_int_field(f[5], 0, 2000000, where, "losses");
      if (games != 2 * static_cast<i64>(c.challenge_openings))
        fail("{}: {} games, a challenge plays {}", where, games, 2 * c.challenge_openings);
      const double los = parse_real_field(f[6], where, "los");
      if (los < 0 || los > 1) fail("{}: los '{}' (expected 0..1)", where, f[6]);
      parse_int_field(f[7], 0, 1, where, "crowned");
      return g < next;
    });
  }
  if (!c.panel.empty()) {
    int last = -1;
    run.resume_table(kPanel, kPanelHeader, [&](const RunDir::Row& f, const std::string& where) {
      const i64 g = generation_of(f, where, last);
      const i64 members = parse_int_field(f[1], 1, n, where, "members");
      for (int k : {2, 3, 4, 7, 8}) {
        const double v = parse_real_field(f[k], where, "a score");
        if (v < 0 || v > 1) fail("{}: score '{}' (expected 0..1)", where, f[k]);
      }
      parse_int_field(f[6], 1, members, where, "champion_rank");
      if (!f[9].empty()) parse_real_field(f[9], where, "spearman");
      return g < next;
    });
  }
  if (generations > 0 && generations != c.generations) {  // after every check: nothing changes on an error
    c.generations = generations;
    run.commit_config(evolve_config_to_toml(config));
  }
  if (options.check_only) {
    EvolveOutcome checked;
    checked.generations_done = next;
    return checked;
  }
  return run_loop(session, c, std::move(state), std::move(setup));
}

}  // namespace

}  // namespace ef::ga
