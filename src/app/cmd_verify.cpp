// evalforge verify: one generation of the shape search, run on the CPU (the reference) and on
// the CUDA backend, compared bit for bit: every job's loss sums, and for one extra job its
// epoch losses and every trained weight. Then a self-play batch (--play-games, 256 by default:
// SWH depth 3 against an Edax-shape n-tuple agent with nonzero weights, both at epsilon 0.05 and
// exact from 14 empties, from random openings) on both backends, compared move for move.
// Exit status: 0 identical, 1 a difference (the first of each part is printed), 2 a user error,
// 4 no CUDA device (or no CUDA backend in this build).
// `--backend cpu` checks the CPU backend on one thread against the CPU on all threads instead:
// the same procedure, runnable without a GPU (the tests use it).
#include <fmt/core.h>
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include "app/commands.hpp"
#include "app/options.hpp"
#include "cuda/cuda_backend.hpp"
#include "data/generate.hpp"
#include "evalforge/core/error.hpp"
#include "evalforge/core/rng.hpp"
#include "evalforge/ga/elo_ga.hpp"
#include "evalforge/ga/islands.hpp"
#include "evalforge/games/othello/fitness_matches.hpp"
#include "evalforge/games/othello/shape.hpp"
#include "games/othello/feature_weights.hpp"
#include "runs/shape_generation_batch.hpp"

namespace ef::app {

namespace {

constexpr int kExitDifferent = 1;
constexpr int kExitNoDevice = 4;

struct VerifyArgs {
  std::string config = "configs/quick.toml";
  std::vector<std::string> data;
  std::size_t games = 3000;
  bool games_given = false;  // --games on the command line: generated games even if the config lists files
  int generation = 0;
  int individuals = 0;  // 0: all
  int batch_size = 0;   // 0: the config's
  int threads = 0;
  int play_games = 256;          // self-play games compared (0: none)
  std::string backend = "cuda";  // the backend under test; the reference is always the CPU
  std::string json;
};

struct Difference {
  std::size_t job;
  std::string what;
  std::string cpu, cuda;
};

// The first field in which the tested backend's results differ from the reference's.
std::optional<Difference> first_difference(const std::vector<TrainResult>& cpu, const std::vector<TrainResult>& cuda) {
  auto loss = [](const ntuple::LossSums& s) {
    return fmt::format("(squared {}, absolute {}, count {})", s.squared, s.absolute, s.count);
  };
  auto same = [](const ntuple::LossSums& a, const ntuple::LossSums& b) {
    return a.squared == b.squared && a.absolute == b.absolute && a.count == b.count;
  };
  for (std::size_t k = 0; k < cpu.size(); ++k) {
    if (!same(cpu[k].eval_loss, cuda[k].eval_loss))
      return Difference{k, "validation loss sums", loss(cpu[k].eval_loss), loss(cuda[k].eval_loss)};
    if (cpu[k].epoch_loss.size() != cuda[k].epoch_loss.size())
      return Difference{k, "number of epoch losses", std::to_string(cpu[k].epoch_loss.size()),
                        std::to_string(cuda[k].epoch_loss.size())};
    for (std::size_t e = 0; e < cpu[k].epoch_loss.size(); ++e)
      if (!same(cpu[k].epoch_loss[e], cuda[k].epoch_loss[e]))
        return Difference{k, fmt::format("training loss sums of epoch {}", e), loss(cpu[k].epoch_loss[e]),
                          loss(cuda[k].epoch_loss[e])};
    if (cpu[k].weights.size() != cuda[k].weights.size())
      return Difference{k, "number of weights", std::to_string(cpu[k].weights.size()),
                        std::to_string(cuda[k].weights.size())};
    for (std::size_t w = 0; w < cpu[k].weights.size(); ++w)
      if (cpu[k].weights[w] != cuda[k].weights[w])
        return Difference{k, fmt::format("weight {}", w), std::to_string(cpu[k].weights[w]),
                          std::to_string(cuda[k].weights[w])};
  }
  return std::nullopt;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// ---- self-play part -------------------------------------------------------------------------

// The agents of the games check: SWH depth 3 and an Edax-shape n-tuple agent (depth 3, one
// network per phase of 15 moves, pseudo-random weights of up to +-0.5 disc), both exploring at
// epsilon 0.05 and solving exactly from 14 empties (through the endgame tables).
std::vector<play::OthelloAgent> verify_agents() {
  constexpr search::OthelloLimits kLimits{3, 14};
  play::OthelloAgent swh = play::swh_agent(kLimits);
  swh.epsilon = 0.05;
  play::OthelloAgent nt;
  nt.name = "edax-shape (pseudo-random weights)";
  nt.kind = play::OthelloEvaluator::kNtuple;
  nt.limits = kLimits;
  nt.epsilon = 0.05;
  nt.geometries = {ntuple::edax_shape().geometry()};
  nt.geometry_names = {"edax"};
  constexpr int kPhases = 4;
  for (int k = 0; k < kPhases; ++k) {
    play::Network n;
    n.weights.resize(nt.geometries[0].num_weights());
    Rng rng(2024, Purpose::kPopulation, 0xED, static_cast<u32>(k));
    for (i32& w : n.weights)
      w = static_cast<i32>(rng.below(static_cast<u32>(ntuple::kOne))) - static_cast<i32>(ntuple::kOne / 2);
    nt.networks.push_back(std::move(n));
  }
  for (int t = 0; t < ntuple::kMoveNumbers; ++t) nt.network_of_move[t] = std::min(t / 15, kPhases - 1);
  nt.validate();
  return {swh, nt};
}

// n games between agent handles a and b, colours alternating, each from its own random opening
// of 4 or 5 plies (either side to move), game ids 0..n-1 of seed 1.
std::vector<OthelloJob> verify_games(int n, int a, int b) {
  std::vector<OthelloJob> jobs;
  for (int k = 0; k < n; ++k) {
    OthelloJob j;
    j.black = k % 2 ? b : a;
    j.white = k % 2 ? a : b;
    Rng rng(1, Purpose::kDatagen, 0x6A3E, static_cast<u32>(k));
    j.start = othello::random_opening(rng, 4 + k % 2);
    j.seed = 1;
    j.game = static_cast<u32>(k);
    jobs.push_back(j);
  }
  return jobs;
}

struct GameDifference {
  std::size_t game;
  std::string what;
};

template <class G>
std::optional<GameDifference> first_game_difference(const std::vector<play::GameRecordOf<G>>& cpu,
                                                    const std::vector<play::GameRecordOf<G>>& cuda) {
  for (std::size_t k = 0; k < cpu.size(); ++k) {
    const play::GameRecordOf<G>&a = cpu[k], &b = cuda[k];
    const int common = std::min(a.plies, b.plies);
    for (int i = 0; i < common; ++i)
      if (a.moves[i] != b.moves[i])
        return GameDifference{k, fmt::format("ply {}: move {} vs {}", i, a.moves[i], b.moves[i])};
    if (a.plies != b.plies) return GameDifference{k, fmt::format("plies {} vs {}", a.plies, b.plies)};
    if (a.black_score != b.black_score)
      return GameDifference{k, fmt::format("black score {} vs {}", a.black_score, b.black_score)};
  }
  return std::nullopt;
}

struct GamesOutcome {
  int games = 0;
  double reference_seconds = 0, tested_seconds = 0;
  u64 reference_nodes = 0, tested_nodes = 0;
  std::optional<GameDifference> diff;
};

GamesOutcome verify_games_on(Backend& cpu, Backend& tested, int n) {
  const auto agents = verify_agents();
  std::vector<int> handles;
  for (const auto& a : agents) {
    const int h = cpu.add_agent(a);
    if (tested.add_agent(a) != h) fail("verify: the backends numbered an agent differently");
    handles.push_back(h);
  }
  const auto jobs = verify_games(n, handles[0], handles[1]);
  fmt::print("games: {} games, {} vs {} (depth {}, exact from {} empties, epsilon {}), colours alternating\n", n,
             agents[0].name, agents[1].name, agents[0].limits.depth, agents[0].limits.exact_empties, agents[0].epsilon);
  GamesOutcome o;
  o.games = n;
  std::vector<play::OthelloRecord> on_cpu(jobs.size()), on_tested(jobs.size());
  auto t0 = std::chrono::steady_clock::now();
  cpu.play(jobs, on_cpu);
  o.reference_seconds = seconds_since(t0);
  t0 = std::chrono::steady_clock::now();
  tested.play(jobs, on_tested);
  o.tested_seconds = seconds_since(t0);
  for (const auto& r : on_cpu) o.reference_nodes += r.nodes;
  for (const auto& r : on_tested) o.tested_nodes += r.nodes;
  fmt::print("  {}: {:.3f} s ({} nodes)\n  {}: {:.3f} s ({} nodes)\n", cpu.name(), o.reference_seconds,
             o.reference_nodes, tested.name(), o.tested_seconds, o.tested_nodes);
  o.diff = first_game_difference<games::Othello>(on_cpu, on_tested);
  if (o.diff) {
    const OthelloJob& j = jobs[o.diff->game];
    fmt::print("DIFFERENT: game {} ({} black): {} ({} vs {})\n", o.diff->game, j.black == handles[0] ? "swh" : "ntuple",
               o.diff->what, cpu.name(), tested.name());
  } else {
    fmt::print("games: {} identical (move lists, plies and scores)\n", n);
  }
  return o;
}

// The other playout game and the Elo GA's batch: Tic-Tac-Toe minimax at depths 1, 4 and 9 with
// epsilon and random players from either side to move, and one generation of a 64-player Elo
// round robin (4,032 1-ply games of feature-weight chromosomes). Returns whether both agree.
struct OtherGamesOutcome {
  std::optional<GameDifference> tictactoe;
  std::optional<std::size_t> elo_game;  // first game whose score differs
  std::size_t tictactoe_games = 0, elo_games = 0;
};

OtherGamesOutcome verify_other_games_on(Backend& cpu, Backend& tested) {
  OtherGamesOutcome o;
  const std::vector<play::TicTacToeAgent> agents{play::tictactoe_agent(play::TicTacToeEvaluator::kStatic, 1),
                                                 play::tictactoe_agent(play::TicTacToeEvaluator::kStatic, 4, 100000),
                                                 play::tictactoe_agent(play::TicTacToeEvaluator::kStatic, 9),
                                                 play::tictactoe_agent(play::TicTacToeEvaluator::kRandom, 1)};
  std::vector<int> handles;
  for (const auto& a : agents) {
    const int h = cpu.add_agent(a);
    if (tested.add_agent(a) != h) fail("verify: the backends numbered an agent differently");
    handles.push_back(h);
  }
  std::vector<GameJobOf<games::TicTacToe>> jobs;
  for (int x : handles)
    for (int y : handles)
      for (int k = 0; k < 64; ++k) {
        GameJobOf<games::TicTacToe> j;
        j.black = x;
        j.white = y;
        if (k % 3 == 1) j.start = tictactoe::Board{}.play(k % 9);
        j.seed = 2;
        j.game = static_cast<u32>(jobs.size());
        jobs.push_back(j);
      }
  std::vector<play::TicTacToeRecord> a(jobs.size()), b(jobs.size());
  cpu.play(jobs, a);
  tested.play(jobs, b);
  o.tictactoe_games = jobs.size();
  o.tictactoe = first_game_difference<games::TicTacToe>(a, b);
  if (o.tictactoe)
    fmt::print("DIFFERENT: Tic-Tac-Toe game {}: {}\n", o.tictactoe->game, o.tictactoe->what);
  else
    fmt::print("tictactoe: {} games identical\n", jobs.size());

  ga::EloGaParams params;
  params.population = 64;
  const std::vector<ga::GeneRange> ranges = play::feature_gene_ranges(false);
  std::vector<std::vector<int>> genes;
  for (const auto& m : ga::initial_population(ranges, params, 1).members) genes.push_back(m.genes);
  play::FeatureTournament on_cpu(cpu, {}), on_tested(tested, {});
  play::TournamentCounts ca, cb;
  const auto sa = on_cpu.play_round_robin(genes, 1, 0, &ca), sb = on_tested.play_round_robin(genes, 1, 0, &cb);
  o.elo_games = sa.size();
  for (std::size_t k = 0; k < sa.size() && !o.elo_game; ++k)
    if (sa[k] != sb[k]) o.elo_game = k;
  if (!o.elo_game && ca.move_lists_hash != cb.move_lists_hash) o.elo_game = sa.size();  // same scores, other moves
  if (o.elo_game && *o.elo_game == sa.size())
    fmt::print("DIFFERENT: Elo-GA generation: the same scores but other move lists\n");
  else if (o.elo_game)
    fmt::print("DIFFERENT: Elo-GA game {}: score {} vs {}\n", *o.elo_game, sa[*o.elo_game], sb[*o.elo_game]);
  else
    fmt::print("elo generation: {} games (64 feature-weight chromosomes, 1 ply) identical\n", sa.size());
  return o;
}

void run_verify(const VerifyArgs& a) {
  if (a.backend != "cuda" && a.backend != "cpu")
    fail("--backend: '{}' is not a backend to verify (expected cuda or cpu)", a.backend);
  std::string why;
  if (a.backend == "cuda" && !cuda_device_available(&why)) {
    fmt::print(stderr, "evalforge verify: {}\n", why);
    throw ExitStatus{kExitNoDevice};
  }
  ga::SearchConfig config = ga::load_search_config(a.config);
  if (a.batch_size > 0) config.train.batch_size = a.batch_size;

  // Data: --data, else --games (generated), else the config's files, else generated games.
  if (!a.data.empty() && a.games_given) fail("verify: give --data or --games, not both");
  std::vector<data::Game> games;
  std::string data_name;
  const std::vector<std::string> no_files;
  const std::vector<std::string>& files = !a.data.empty() ? a.data : (a.games_given ? no_files : config.data_files);
  if (!files.empty()) {
    games = load_data_files(files, data::ReadOptions{}, true).games;
    data_name = fmt::format("{}", fmt::join(files, ", "));
  } else {
    data::GenerateOptions go;
    go.games = a.games;
    go.seed = 1;
    go.threads = a.threads;
    games = data::generate_games(go);
    data_name = fmt::format("{} generated games (seed 1)", a.games);
  }
  const auto islands_data = ga::island_positions(games, config);

  auto cpu = make_backend("cpu", a.threads);
  auto cuda = make_backend(a.backend, a.backend == "cpu" ? 1 : a.threads);  // the backend under test
  std::vector<ga::IslandFitnessData> fitness;
  for (const auto& island : islands_data) {
    const int h = cpu->add_positions(island.data);
    if (cuda->add_positions(island.data) != h) fail("verify: the backends numbered a position set differently");
    fitness.push_back({h, island.num_fitness});
  }

  const ga::Decoder decoder(config.region, config.tuple_sizes);
  ga::Archipelago archipelago = ga::make_archipelago(config.islands, decoder.num_keys());
  ga::FitnessOptions options;
  options.train = config.train;
  options.validation_fraction = config.validation_fraction;
  const u64 seed = config.islands.seed;
  if (a.generation > 0) {
    // The populations of generation G are those the search reaches: evolve there on the device.
    fmt::print("evolving to generation {} on the {} backend\n", a.generation, a.backend);
    while (archipelago.generation < a.generation) {
      ga::evaluate_generation(*cuda, decoder, archipelago.islands, fitness, options, seed,
                              static_cast<u32>(archipelago.generation));
      ga::advance_generation(archipelago, config.islands);
    }
  }
  const ga::GenerationBatch batch =
      ga::build_generation_batch(decoder, archipelago.islands, fitness, options, seed, static_cast<u32>(a.generation));

  // --individuals N: N jobs taken round-robin over the islands (slot 0 of each, then slot 1, ...).
  std::vector<TrainJob> jobs;
  std::vector<std::pair<int, int>> who;
  const std::size_t limit = a.individuals > 0 ? static_cast<std::size_t>(a.individuals) : batch.jobs.size();
  for (int slot = 0; jobs.size() < limit; ++slot) {
    bool any = false;
    for (std::size_t k = 0; k < batch.jobs.size() && jobs.size() < limit; ++k)
      if (batch.individual[k].second == slot) {
        jobs.push_back(batch.jobs[k]);
        who.push_back(batch.individual[k]);
        any = true;
      }
    if (!any) break;
  }
  // One more job with its weights and epoch losses returned: the last one chosen, again.
  TrainJob with_weights = jobs.back();
  with_weights.return_weights = true;
  with_weights.record_epoch_loss = true;
  jobs.push_back(with_weights);
  who.push_back(who.back());

  fmt::print(
      "verify: {}, generation {}, {} islands, {} jobs (+1 returning its {} weights), {} epochs, batch {}, "
      "data: {}\n",
      a.config, a.generation, islands_data.size(), jobs.size() - 1, with_weights.geometry->num_weights(),
      config.train.epochs, config.train.batch_size, data_name);
  std::vector<TrainResult> on_cpu(jobs.size()), on_cuda(jobs.size());
  auto t0 = std::chrono::steady_clock::now();
  cpu->train(jobs, on_cpu);
  const double cpu_s = seconds_since(t0);
  t0 = std::chrono::steady_clock::now();
  cuda->train(jobs, on_cuda);
  const double cuda_s = seconds_since(t0);
  fmt::print("  {}: {:.3f} s\n  {}: {:.3f} s\n", cpu->name(), cpu_s, cuda->name(), cuda_s);

  const auto diff = first_difference(on_cpu, on_cuda);
  if (diff)
    fmt::print("DIFFERENT: job {} (island {}, slot {}): {}: {} {} vs {} {}\n", diff->job, who[diff->job].first,
               who[diff->job].second, diff->what, cpu->name(), diff->cpu, cuda->name(), diff->cuda);
  else
    fmt::print("identical: all {} jobs' loss sums, {} epoch losses and {} weights agree bit for bit\n", jobs.size(),
               on_cpu.back().epoch_loss.size(), on_cpu.back().weights.size());

  std::optional<GamesOutcome> games_outcome;
  std::optional<OtherGamesOutcome> other;
  if (a.play_games > 0) {
    games_outcome = verify_games_on(*cpu, *cuda, a.play_games);
    other = verify_other_games_on(*cpu, *cuda);
  }
  const bool games_identical =
      (!games_outcome || !games_outcome->diff) && (!other || (!other->tictactoe && !other->elo_game));

  if (!a.json.empty()) {
    nlohmann::json j{{"config", a.config},
                     {"data", data_name},
                     {"generation", a.generation},
                     {"jobs", jobs.size()},
                     {"epochs", config.train.epochs},
                     {"batch_size", config.train.batch_size},
                     {"weights_compared", with_weights.geometry->num_weights()},
                     {"reference_backend", cpu->name()},
                     {"tested_backend", cuda->name()},
                     {"reference_seconds", cpu_s},
                     {"tested_seconds", cuda_s},
                     {"training_identical", !diff.has_value()},
                     {"identical", !diff.has_value() && games_identical}};
    if (diff)
      j["first_difference"] = {{"job", diff->job},   {"island", who[diff->job].first}, {"slot", who[diff->job].second},
                               {"what", diff->what}, {"reference", diff->cpu},         {"tested", diff->cuda}};
    if (games_outcome) {
      const GamesOutcome& g = *games_outcome;
      j["games"] = {{"games", g.games},
                    {"identical", !g.diff.has_value()},
                    {"reference_seconds", g.reference_seconds},
                    {"tested_seconds", g.tested_seconds},
                    {"reference_nodes", g.reference_nodes},
                    {"tested_nodes", g.tested_nodes}};
      if (g.diff) j["games"]["first_difference"] = {{"game", g.diff->game}, {"what", g.diff->what}};
    }
    if (other) {
      j["tictactoe"] = {{"games", other->tictactoe_games}, {"identical", !other->tictactoe.has_value()}};
      j["elo_generation"] = {{"games", other->elo_games}, {"identical", !other->elo_game.has_value()}};
    }
    std::ofstream(a.json) << j.dump(2) << "\n";
  }
  if (diff || !games_identical) throw ExitStatus{kExitDifferent};
}

}  // namespace

void register_verify(CLI::App& app) {
  auto a = std::make_shared<VerifyArgs>();
  auto* cmd = app.add_subcommand("verify",
                                 "Run one search generation and a self-play batch on the CPU and CUDA backends and "
                                 "compare every output bit for bit");
  cmd->add_option("--config", a->config, "Search config (TOML) whose generation is built")->capture_default_str();
  cmd->add_option("--data", a->data, "Game records (default: the config's [data] files, else generated games)")
      ->take_all();
  cmd->add_option("--games", a->games,
                  "Generated games (seed 1): used when no data files are given, or always when this flag is")
      ->capture_default_str()
      ->check(CLI::Range(std::size_t{10}, std::size_t{10'000'000}));
  cmd->add_option("--generation", a->generation, "Generation to verify (reached by evolving on the device)")
      ->check(CLI::Range(0, 1'000'000));
  cmd->add_option("--individuals", a->individuals, "Jobs to compare, round-robin over the islands (0 = all)")
      ->check(CLI::Range(0, 100'000'000));
  cmd->add_option("--batch", a->batch_size, "Override the config's training batch size")
      ->check(CLI::Range(1, kMaxBatchSize));
  cmd->add_option("--threads", a->threads, "CPU worker threads (0 = all)")->check(CLI::Range(0, 1024));
  cmd->add_option("--play-games", a->play_games,
                  "Self-play games to compare after the training check (SWH depth 3 vs an Edax-shape n-tuple agent; "
                  "0 = none)")
      ->capture_default_str()
      ->check(CLI::Range(0, 10'000'000));
  cmd->add_option("--backend", a->backend,
                  "Backend under test: cuda, or cpu (one thread against all threads: the check without a GPU)")
      ->capture_default_str();
  cmd->add_option("--json", a->json, "Also write the outcome as JSON to this file");
  cmd->callback([a, cmd] {
    a->games_given = cmd->count("--games") > 0;
    run_verify(*a);
  });
}

}  // namespace ef::app
