// Seconds per Elo-GA generation (docs/method.md section 2): the double round robin of 352 random
// oe_fmc chromosomes, 123,552 1-ply games from the standard start, as the one Backend::play
// batch the evolve run hands the backend. CPU backend (all threads, or --threads) and, when a
// CUDA device is present, the CUDA backend on the same batch, each the median of --repeats
// runs; their ratio; and a comparison of the two backends' scores game by game. Also the rest
// of a generation (Elo updates, ranking, next population, Bradley-Terry fit), timed apart, and
// the 1-ply leaf shortcut (features::Evaluator::eval_given_moves) against the same evaluator
// without it, on one thread in the same run: games/s of each, their ratio, same moves checked.
//
// Usage: evolve_bench [--population N] [--threads T] [--repeats R] [--depth D] [--material flips|discs]
//                     [--json FILE]
#include <fmt/core.h>
#include <algorithm>
#include <chrono>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include "bench_util.hpp"
#include "cuda/cuda_backend.hpp"
#include "evalforge/backends/backend.hpp"
#include "evalforge/core/error.hpp"
#include "evalforge/ga/elo_ga.hpp"
#include "evalforge/games/othello/fitness_matches.hpp"
#include "evalforge/games/othello/tree_search.hpp"
#include "evalforge/ratings/ratings.hpp"
#include "games/othello/feature_weights.hpp"

using namespace ef;

namespace {

using bench::cpu_model;
using bench::median;

// The feature evaluator without eval_given_moves: what the search did before the shortcut.
struct PlainFeatures {
  features::Evaluator e;
  i32 eval(const othello::Position& s) const { return e.eval(s); }
  i32 exact(int score) const { return e.exact(score); }
};

// Self-play of `e` against itself at 1 ply from the start and from `openings` random openings:
// a hash of the move lists (to check two evaluators play the same moves).
template <class E>
u64 self_play(const E& e, int openings) {
  u64 h = 1469598103934665603ull;
  for (int k = 0; k < openings; ++k) {
    Rng rng(7, Purpose::kOpening, static_cast<u32>(k));
    othello::Position p = othello::random_opening(rng, k % 7);
    while (!p.board.game_over()) {
      if (!games::Othello::moves(p)) {
        p = games::Othello::pass(p);
        continue;
      }
      const int sq = search::search_othello<E>(p, {1, -1}, e).best_move;
      h = (h ^ static_cast<u64>(sq + 1)) * 1099511628211ull;
      p = games::Othello::play(p, sq);
    }
  }
  return h;
}

template <class F>
double seconds(F&& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
  bench::print_lines_as_they_come();
  int population = 352, threads = 0, repeats = 3, depth = 1, openings = 1;
  std::string material = "flips", json_file;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        fmt::print(stderr, "evolve_bench: {} needs a value\n", a);
        std::exit(2);
      }
      return argv[++i];
    };
    auto number = [&](int lo, int hi) {
      const std::string v = value();
      try {
        std::size_t end = 0;
        const int n = std::stoi(v, &end);
        if (end == v.size() && n >= lo && n <= hi) return n;
      } catch (const std::exception&) {}
      fmt::print(stderr, "evolve_bench: {} '{}' (expected an integer in {}..{})\n", a, v, lo, hi);
      std::exit(2);
    };
    if (a == "--population")
      population = number(3, 4096);
    else if (a == "--threads")
      threads = number(0, 1024);
    else if (a == "--repeats")
      repeats = number(1, 1000);
    else if (a == "--depth")
      depth = number(1, 10);
    else if (a == "--openings")
      openings = number(1, 1000);
    else if (a == "--material") {
      material = value();
      if (material != "flips" && material != "discs") {
        fmt::print(stderr, "evolve_bench: --material '{}' (expected flips or discs)\n", material);
        return 2;
      }
    } else if (a == "--json")
      json_file = value();
    else {
      fmt::print(stderr,
                 "usage: evolve_bench [--population N] [--threads T] [--repeats R] [--depth D] [--openings K] "
                 "[--material flips|discs]\n");
      return 2;
    }
  }
  try {
    ga::EloGaParams params;
    params.population = population;
    params.openings_per_pair = openings;
    const std::vector<ga::GeneRange> ranges = play::feature_gene_ranges(false);
    const ga::EloPopulation pop = ga::initial_population(ranges, params, 1);
    std::vector<std::vector<int>> genes;
    for (const auto& m : pop.members) genes.push_back(m.genes);
    play::FeaturePlayOptions options;
    options.material = material == "discs" ? features::Material::kDiscs : features::Material::kFlips;
    options.limits = {depth, -1};
    // K > 1 openings a pair (the signal fitness, docs/evolve.md): random 6-ply openings, as
    // configs/elo-signal.toml; K = 1: the blog's standard start.
    if (openings > 1) options.opening_plies = 6;
    const std::size_t games = static_cast<std::size_t>(population) * (population - 1) * openings;
    const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
    fmt::print("Elo-GA generation: {} players, {} opening(s) a pair, {} games at depth {} ({}), {} repeats\n",
               population, openings, games, depth, material, repeats);
    fmt::print("CPU: {} ({} hardware threads)\n", cpu_model(), hw);

    auto cpu = make_backend("cpu", threads);
    play::FeatureTournament cpu_t(*cpu, options);
    std::vector<double> cpu_scores;
    std::vector<double> cpu_times;
    play::TournamentCounts counts;
    for (int r = 0; r < repeats; ++r) {
      cpu_scores = cpu_t.play_round_robin(genes, 1, 0, &counts, openings);
      cpu_times.push_back(counts.play_seconds);
    }
    const double cpu_s = median(cpu_times);
    const u64 cpu_hash = counts.move_lists_hash;
    fmt::print("{:<10} {:>12} {:>14} {:>12}   black/draw/white {}/{}/{}\n", "backend", "s/generation", "games/s",
               "nodes/game", counts.black_wins, counts.draws, counts.white_wins);
    fmt::print("{:<10} {:>12.3f} {:>14.0f} {:>12.1f}   ({})\n", "cpu", cpu_s, games / cpu_s,
               static_cast<double>(counts.nodes) / games, cpu->name());

    nlohmann::json j{{"cpu_model", cpu_model()}, {"players", population},
                     {"games", games},           {"openings_per_pair", openings},
                     {"depth", depth},           {"material", material},
                     {"repeats", repeats},       {"cpu_backend", cpu->name()},
                     {"cpu_seconds", cpu_s},     {"cpu_games_per_s", games / cpu_s}};
    std::string why;
    if (cuda_device_available(&why)) {
      auto gpu = make_backend("cuda", threads);
      play::FeatureTournament gpu_t(*gpu, options);
      std::vector<double> gpu_scores, gpu_times;
      for (int r = 0; r < repeats; ++r) {
        gpu_scores = gpu_t.play_round_robin(genes, 1, 0, &counts, openings);
        gpu_times.push_back(counts.play_seconds);
      }
      const double gpu_s = median(gpu_times);
      std::size_t differ = 0;
      for (std::size_t g = 0; g < games; ++g) differ += cpu_scores[g] != gpu_scores[g];
      if (!differ && counts.move_lists_hash != cpu_hash) differ = games;  // same scores, other moves: all suspect
      fmt::print("{:<10} {:>12.4f} {:>14.0f} {:>12}   ({})\n", "cuda", gpu_s, games / gpu_s, "", gpu->name());
      fmt::print("GPU/CPU speed-up: {:.1f}x; games whose result differs: {} of {}\n", cpu_s / gpu_s, differ, games);
      j["gpu_backend"] = gpu->name();
      j["gpu_seconds"] = gpu_s;
      j["gpu_over_cpu"] = cpu_s / gpu_s;
      j["differing_games"] = differ;
    } else {
      fmt::print("cuda: not measured ({})\n", why);
    }

    // The rest of a generation, on the host.
    ga::EloPopulation rated = pop;
    std::vector<int> order;
    const double rate_s = seconds([&] { order = ga::rate_tournament(rated, cpu_scores, params); });
    const double next_s = seconds([&] { ga::next_generation(rated, order, ranges, params, 1); });
    const auto pairings = ga::round_robin_pairings(population, openings);
    std::vector<ratings::GameResult> results(games);
    for (std::size_t g = 0; g < games; ++g) results[g] = {pairings[g].first, pairings[g].second, cpu_scores[g]};
    const double bt_s = seconds([&] { ratings::fit_bradley_terry(results, population); });
    fmt::print("host: Elo updates + ranking {:.4f} s, next population {:.4f} s, Bradley-Terry fit {:.3f} s\n", rate_s,
               next_s, bt_s);
    j["host_seconds"] = {{"elo_and_ranking", rate_s}, {"next_population", next_s}, {"bradley_terry", bt_s}};
    {
      features::Evaluator with;
      with.weights = features::from_genes(genes[0], options.material, "bench");
      const PlainFeatures without{with};
      constexpr int kGames = 3000;
      std::vector<double> tw, to;
      u64 hw = 0, ho = 0;
      for (int r = 0; r < repeats; ++r) {
        tw.push_back(seconds([&] { hw = self_play(with, kGames); }));
        to.push_back(seconds([&] { ho = self_play(without, kGames); }));
      }
      const double a = median(tw), b = median(to);
      fmt::print(
          "1-ply leaf shortcut, 1 thread, {} games: {:.0f} games/s with, {:.0f} without, {:.2f}x; same moves: {}\n",
          kGames, kGames / a, kGames / b, b / a, hw == ho ? "yes" : "NO");
      j["leaf_shortcut"] = {{"games", kGames},
                            {"with_games_per_s", kGames / a},
                            {"without_games_per_s", kGames / b},
                            {"speedup", b / a},
                            {"same_moves", hw == ho}};
    }
    if (!json_file.empty()) std::ofstream(json_file) << j.dump(2) << "\n";
    if (!j["leaf_shortcut"]["same_moves"].get<bool>()) return 1;                                 // a parity failure
    if (j.contains("differing_games") && j["differing_games"].get<std::size_t>() > 0) return 1;  // a parity failure

  } catch (const std::exception& e) {
    fmt::print(stderr, "evolve_bench: {}\n", e.what());
    return 1;
  }
}
