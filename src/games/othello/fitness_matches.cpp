#include "games/othello/fitness_matches.hpp"
#include <fmt/format.h>
#include <chrono>
#include "core/bytes.hpp"
#include "core/error.hpp"
#include "core/rng.hpp"
#include "engine/round_robin.hpp"
#include "games/othello/feature_weights.hpp"

namespace ef::play {

namespace {

// One key per generation for the games' streams: game ids restart at 0 every generation.
u64 generation_seed(u64 seed, int generation) {
  u64 z = seed + 0x9E3779B97F4A7C15ull * (static_cast<u64>(generation) + 1);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// A random opening of its own stream per index.
othello::Position random_opening(u64 seed, u32 index, int plies) {
  Rng rng(seed, Purpose::kOpening, index);
  return othello::random_opening(rng, plies);
}

}  // namespace

OthelloAgent feature_agent(std::span<const int> genes, const FeaturePlayOptions& o, const std::string& name) {
  OthelloAgent a;
  a.name = name;
  a.kind = OthelloEvaluator::kFeatures;
  a.limits = o.limits;
  a.epsilon = o.epsilon;
  a.features = features::from_genes(genes, o.material, name);
  return a;
}

FeatureTournament::FeatureTournament(PlayBackend<games::Othello>& backend, FeaturePlayOptions options)
    : backend_(backend), options_(options) {}

std::vector<double> FeatureTournament::play_round_robin(const std::vector<std::vector<int>>& population, u64 seed,
                                                        int generation, TournamentCounts* counts) {
  const int n = static_cast<int>(population.size());
  for (int i = 0; i < n; ++i) {
    const OthelloAgent a = feature_agent(population[i], options_, fmt::format("member-{}", i));
    if (i < static_cast<int>(handles_.size()))
      backend_.update_agent(handles_[i], a);
    else
      handles_.push_back(backend_.add_agent(a));
  }
  // ga::round_robin_pairings' order (i, j), (j, i) for i < j is engine/round_robin.hpp's layout
  // of the pairs i < j with one opening each: pair p's games are 2p and 2p + 1.
  std::vector<Pairing> pairs;
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j) pairs.emplace_back(handles_[i], handles_[j]);
  const u64 key = generation_seed(seed, generation);
  const auto jobs = paired_games<games::Othello>(
      pairs, 1,
      [&](std::size_t p, int) {
        return options_.opening_plies > 0 ? random_opening(key, static_cast<u32>(p), options_.opening_plies)
                                          : othello::Position{};
      },
      key);
  std::vector<OthelloRecord> records(jobs.size());
  const auto t0 = std::chrono::steady_clock::now();
  backend_.play(jobs, records);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::vector<double> scores(jobs.size());
  TournamentCounts c;
  Fnv1a moves;
  for (std::size_t g = 0; g < jobs.size(); ++g) {
    moves.add_value(records[g].plies);
    moves.add_bytes(records[g].moves, static_cast<std::size_t>(records[g].plies));
    const int s = records[g].black_score;
    scores[g] = s > 0 ? 1.0 : (s < 0 ? 0.0 : 0.5);
    (s > 0 ? c.black_wins : (s < 0 ? c.white_wins : c.draws))++;
    c.nodes += records[g].nodes;
  }
  c.move_lists_hash = moves.value();
  c.play_seconds = seconds;
  if (counts) *counts = c;
  return scores;
}

FeatureTournament::Yardstick FeatureTournament::play_yardstick(std::span<const int> genes, const OthelloAgent& opponent,
                                                               int openings, int opening_plies, u64 seed,
                                                               int generation) {
  const OthelloAgent self = feature_agent(genes, options_, "champion");
  if (yardstick_self_ < 0) {
    yardstick_self_ = backend_.add_agent(self);
    yardstick_opponent_ = backend_.add_agent(opponent);
  } else {
    backend_.update_agent(yardstick_self_, self);
    backend_.update_agent(yardstick_opponent_, opponent);
  }
  // Its own stream keys, apart from the tournament's: another seed into generation_seed.
  const u64 key = generation_seed(seed ^ 0x5941524453544B21ull, generation);
  const Pairing pair{yardstick_self_, yardstick_opponent_};
  const auto jobs = paired_games<games::Othello>(
      std::span(&pair, 1), openings,
      [&](std::size_t, int k) { return random_opening(key, static_cast<u32>(k), opening_plies); }, key);
  std::vector<OthelloRecord> records(jobs.size());
  backend_.play(jobs, records);
  Yardstick y;
  for (std::size_t g = 0; g < jobs.size(); ++g) {
    const int s = pair_first_result<games::Othello>(records[g], g);
    (s > 0 ? y.wins : (s < 0 ? y.losses : y.draws))++;
  }
  return y;
}

}  // namespace ef::play
