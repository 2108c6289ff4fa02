#include "evalforge/games/othello/fitness_matches.hpp"
#include <fmt/format.h>
#include <charconv>
#include <chrono>
#include <filesystem>
#include <optional>
#include "core/bytes.hpp"
#include "evalforge/core/error.hpp"
#include "evalforge/core/rng.hpp"
#include "evalforge/engine/round_robin.hpp"
#include "evalforge/games/othello/agent_file.hpp"
#include "evalforge/games/othello/players.hpp"
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

std::vector<ga::GeneRange> feature_gene_ranges(bool positional) {
  std::vector<ga::GeneRange> ranges;
  for (const auto& b : features::gene_bounds(positional)) ranges.push_back({b.low, b.high});
  return ranges;
}

OthelloAgent feature_agent(std::span<const int> genes, const FeaturePlayOptions& o, const std::string& name) {
  OthelloAgent a;
  a.name = name;
  a.kind = OthelloEvaluator::kFeatures;
  a.limits = o.limits;
  a.epsilon = o.epsilon;
  a.features = features::from_genes(genes, o.material, name);
  if (a.features.positional != o.positional)
    fail("{}: {} genes, but the run's chromosome has {}", name, genes.size(),
         o.positional ? features::kPositionalGenes : features::kGenes);
  return a;
}

namespace {

// "swh:D" -> D (1..kMaxDepth); nullopt for any other spec.
std::optional<int> swh_depth(const std::string& spec, const std::string& where) {
  if (!spec.starts_with("swh:")) return std::nullopt;
  int d = 0;
  const std::string_view digits = std::string_view(spec).substr(4);
  const auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), d);
  if (digits.empty() || ec != std::errc() || p != digits.data() + digits.size() || d < 1 || d > kMaxDepth)
    fail("{}: '{}': the depth after swh: must be an integer in 1..{}", where, spec, kMaxDepth);
  return d;
}

}  // namespace

std::string resolve_panel_spec(const std::string& spec, const FeaturePlayOptions& o, const std::string& config_file,
                               const std::string& where) {
  if (spec == "swh" || spec == "random" || swh_depth(spec, where)) return spec;
  if (spec.starts_with("chromosome:")) {
    features::parse_chromosome(std::string_view(spec).substr(11), o.material, where);
    return spec;
  }
  std::filesystem::path p(spec);
  if (p.is_relative()) p = std::filesystem::absolute(std::filesystem::path(config_file)).parent_path() / p;
  if (!std::filesystem::is_regular_file(p))
    fail("{}: '{}' is not swh, swh:DEPTH, random, chromosome:TEXT or an agent file", where, spec);
  return p.lexically_normal().string();
}

OthelloAgent panel_agent(const std::string& spec, const FeaturePlayOptions& o) {
  if (spec == "swh") return swh_agent(o.limits);
  if (spec == "random") return random_agent();
  if (const auto d = swh_depth(spec, "panel")) {
    OthelloAgent a = swh_agent({*d, -1});
    a.name = spec;
    return a;
  }
  if (spec.starts_with("chromosome:")) {
    // A panel opponent of either family (the blog's 11-gene champions play a positional run too).
    const features::Weights w = features::parse_chromosome(std::string_view(spec).substr(11), o.material, "panel");
    FeaturePlayOptions own = o;
    own.positional = w.positional;
    return feature_agent(features::to_genes(w), own, spec);
  }
  return load_agent(spec);
}

FeatureTournament::FeatureTournament(PlayBackend<games::Othello>& backend, FeaturePlayOptions options)
    : backend_(backend), options_(options) {}

int FeatureTournament::slot(std::vector<int>& pool, std::size_t k, const OthelloAgent& agent) {
  if (k < pool.size()) {
    backend_.update_agent(pool[k], agent);
  } else {
    pool.push_back(backend_.add_agent(agent));
  }
  return pool[k];
}

std::vector<double> FeatureTournament::play_round_robin(const std::vector<std::vector<int>>& population, u64 seed,
                                                        int generation, TournamentCounts* counts,
                                                        int openings_per_pair) {
  const int n = static_cast<int>(population.size());
  for (int i = 0; i < n; ++i) slot(handles_, i, feature_agent(population[i], options_, fmt::format("member-{}", i)));
  // ga::round_robin_pairings' order is engine/round_robin.hpp's layout of the pairs i < j with
  // K openings each: pair p's games are 2(pK + o) and 2(pK + o) + 1.
  std::vector<Pairing> pairs;
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j) pairs.emplace_back(handles_[i], handles_[j]);
  const u64 key = generation_seed(seed, generation);
  const u32 k_openings = static_cast<u32>(openings_per_pair);
  const auto jobs = paired_games<games::Othello>(
      pairs, openings_per_pair,
      [&](std::size_t p, int o) {
        return options_.opening_plies > 0
                   ? random_opening(key, static_cast<u32>(p) * k_openings + static_cast<u32>(o), options_.opening_plies)
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

FeatureTournament::Yardstick FeatureTournament::play_pair(const OthelloAgent& self, const OthelloAgent& opponent,
                                                          int openings, int opening_plies, u64 key) {
  const Pairing pair{slot(pair_handles_, 0, self), slot(pair_handles_, 1, opponent)};
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

FeatureTournament::Yardstick FeatureTournament::play_yardstick(std::span<const int> genes, const OthelloAgent& opponent,
                                                               int openings, int opening_plies, u64 seed,
                                                               int generation) {
  // Its own stream keys, apart from the tournament's: another seed into generation_seed.
  return play_pair(feature_agent(genes, options_, "champion"), opponent, openings, opening_plies,
                   generation_seed(seed ^ 0x5941524453544B21ull, generation));
}

FeatureTournament::Yardstick FeatureTournament::play_challenge(std::span<const int> challenger,
                                                               std::span<const int> incumbent, int openings,
                                                               int opening_plies, u64 seed, int generation) {
  return play_pair(feature_agent(challenger, options_, "challenger"), feature_agent(incumbent, options_, "champion"),
                   openings, opening_plies, generation_seed(seed ^ 0x4348414C4C454E47ull, generation));
}

std::vector<std::vector<FeatureTournament::Yardstick>> FeatureTournament::play_panel(
    const std::vector<std::vector<int>>& members, const std::vector<OthelloAgent>& panel, int openings,
    int opening_plies, u64 seed) {
  for (std::size_t m = 0; m < members.size(); ++m)
    slot(panel_members_, m, feature_agent(members[m], options_, fmt::format("member-{}", m)));
  for (std::size_t a = 0; a < panel.size(); ++a) slot(panel_agents_, a, panel[a]);
  std::vector<Pairing> pairs;
  for (std::size_t m = 0; m < members.size(); ++m)
    for (std::size_t a = 0; a < panel.size(); ++a) pairs.emplace_back(panel_members_[m], panel_agents_[a]);
  // Opening k is the same for every pair and every generation: common random numbers make
  // members and generations comparable.
  const u64 key = generation_seed(seed ^ 0x50414E454C2D3031ull, 0);
  const auto paired_jobs = paired_games<games::Othello>(
      pairs, openings, [&](std::size_t, int k) { return random_opening(key, static_cast<u32>(k), opening_plies); },
      key);
  // A game's stream is keyed by its id: give game (member, a, k, colour) the id (a * openings + k)
  // * 2 + colour, the same for every member, so that a member's games (the random mover's moves,
  // an epsilon's draws) do not depend on its place in the population.
  auto jobs = paired_jobs;
  const std::size_t per_pair = 2 * static_cast<std::size_t>(openings);
  for (std::size_t g = 0; g < jobs.size(); ++g)
    jobs[g].game = static_cast<u32>((g / per_pair) % panel.size() * per_pair + g % per_pair);
  std::vector<OthelloRecord> records(jobs.size());
  backend_.play(jobs, records);
  std::vector<std::vector<Yardstick>> out(members.size(), std::vector<Yardstick>(panel.size()));
  for (std::size_t g = 0; g < jobs.size(); ++g) {
    const std::size_t p = g / per_pair;
    Yardstick& y = out[p / panel.size()][p % panel.size()];
    const int s = pair_first_result<games::Othello>(records[g], g);
    (s > 0 ? y.wins : (s < 0 ? y.losses : y.draws))++;
  }
  return out;
}

}  // namespace ef::play
