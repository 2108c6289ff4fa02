#include "evalforge/ga/elo_ga.hpp"
#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>
#include "evalforge/core/error.hpp"
#include "evalforge/core/rng.hpp"
#include "evalforge/ratings/ratings.hpp"

namespace ef::ga {

namespace {

// Roles of the GA's random streams (the `b` field of the key; a = generation, c = index).
enum Role : u32 {
  kInitial = 1,
  kMutate = 2,
  kMutantGenes = 3,
  kParents = 4,
  kCrossoverGenes = 5,
  kRandomSearch = 6,
  kGeneMutation = 7
};

Rng stream(u64 seed, int generation, Role role, std::size_t index) {
  return Rng(seed, Purpose::kEvolve, static_cast<u32>(generation), role, static_cast<u32>(index));
}

int uniform_gene(Rng& rng, const GeneRange& r) {
  return r.low + static_cast<int>(rng.below(static_cast<u32>(r.high - r.low + 1)));
}

Member newborn(std::vector<int> genes, const EloGaParams& p, int generation) {
  Member m;
  m.genes = std::move(genes);
  m.rating = p.initial_rating;
  m.born = generation;
  return m;
}

}  // namespace

std::vector<std::pair<int, int>> round_robin_pairings(int n, int openings) {
  std::vector<std::pair<int, int>> games;
  games.reserve(static_cast<std::size_t>(n) * (n - 1) * static_cast<std::size_t>(std::max(openings, 0)));
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j)
      for (int o = 0; o < openings; ++o) {
        games.emplace_back(i, j);
        games.emplace_back(j, i);
      }
  return games;
}

int parent_count(const EloGaParams& p) {
  const int k = static_cast<int>(std::lround(p.parent_fraction * p.population));
  return std::clamp(k, 2, p.population);
}

void validate(const EloGaParams& p, std::span<const GeneRange> ranges, const std::string& where) {
  if (p.population < 3 || p.population > 4096)
    fail("{}: population {} is outside 3..4096 (a tournament of n plays n(n-1) games)", where, p.population);
  if (!(p.parent_fraction > 0 && p.parent_fraction <= 1))
    fail("{}: parent_fraction {} is outside (0, 1]", where, p.parent_fraction);
  if (!(p.mutation_rate >= 0 && p.mutation_rate <= 1))
    fail("{}: mutation_rate {} is outside [0, 1]", where, p.mutation_rate);
  if (p.mutation_genes < 1 || p.mutation_genes > static_cast<int>(ranges.size()))
    fail("{}: mutation_genes {} is outside 1..{}", where, p.mutation_genes, ranges.size());
  if (!(p.k_factor > 0 && std::isfinite(p.k_factor))) fail("{}: k_factor {} must be positive", where, p.k_factor);
  if (!std::isfinite(p.initial_rating)) fail("{}: initial_rating must be finite", where);
  if (p.openings_per_pair < 1 || p.openings_per_pair > 1000)
    fail("{}: openings_per_pair {} is outside 1..1000", where, p.openings_per_pair);
  for (const GeneRange& r : ranges)
    if (r.high < r.low) fail("{}: a gene range {}..{} is empty", where, r.low, r.high);
}

EloPopulation initial_population(std::span<const GeneRange> ranges, const EloGaParams& p, u64 seed) {
  EloPopulation pop;
  pop.generation = 0;
  for (int i = 0; i < p.population; ++i) {
    Rng rng = stream(seed, 0, kInitial, static_cast<std::size_t>(i));
    std::vector<int> genes;
    for (const GeneRange& r : ranges) genes.push_back(uniform_gene(rng, r));
    pop.members.push_back(newborn(std::move(genes), p, 0));
  }
  return pop;
}

std::vector<int> ranking(const EloPopulation& pop) {
  std::vector<int> order(pop.members.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return pop.members[a].rating > pop.members[b].rating; });
  return order;
}

std::vector<int> rate_tournament(EloPopulation& pop, std::span<const double> first_scores, const EloGaParams& p) {
  return rate_generation(pop, first_scores, p).order;
}

RatedGeneration rate_generation(EloPopulation& pop, std::span<const double> first_scores, const EloGaParams& p) {
  const int n = static_cast<int>(pop.members.size());
  const auto pairings = round_robin_pairings(n, p.openings_per_pair);
  if (first_scores.size() != pairings.size())
    fail("Elo GA: {} game results for a tournament of {} games", first_scores.size(), pairings.size());
  std::vector<ratings::GameResult> games(pairings.size());
  for (std::size_t g = 0; g < pairings.size(); ++g) {
    games[g] = {pairings[g].first, pairings[g].second, first_scores[g]};
    Member& a = pop.members[pairings[g].first];
    Member& b = pop.members[pairings[g].second];
    if (first_scores[g] == 1.0) {
      ++a.wins;
      ++b.losses;
    } else if (first_scores[g] == 0.0) {
      ++a.losses;
      ++b.wins;
    } else {
      ++a.draws;
      ++b.draws;
    }
  }
  std::vector<double> ratings(n);
  for (int i = 0; i < n; ++i) ratings[i] = p.carry_ratings ? pop.members[i].rating : p.initial_rating;
  ratings::apply_sequential_elo(ratings, games, p.k_factor);
  for (int i = 0; i < n; ++i) pop.members[i].rating = ratings[i];
  RatedGeneration rated;
  switch (p.selection) {
    case EloSelection::kElo: rated.fitness = ratings; break;
    case EloSelection::kScore: {
      std::vector<double> points(n, 0.0), played(n, 0.0);
      for (const ratings::GameResult& g : games) {
        points[g.first] += g.score;
        points[g.second] += 1.0 - g.score;
        ++played[g.first];
        ++played[g.second];
      }
      rated.fitness.resize(n);
      for (int i = 0; i < n; ++i) rated.fitness[i] = played[i] > 0 ? points[i] / played[i] : 0.0;
      break;
    }
    case EloSelection::kBradleyTerry: rated.fitness = ratings::fit_bradley_terry(games, n).ratings; break;
  }
  rated.order.resize(n);
  std::iota(rated.order.begin(), rated.order.end(), 0);
  std::stable_sort(rated.order.begin(), rated.order.end(),
                   [&](int a, int b) { return rated.fitness[a] > rated.fitness[b]; });
  return rated;
}

EloPopulation next_generation(const EloPopulation& rated, std::span<const int> order, std::span<const GeneRange> ranges,
                              const EloGaParams& p, u64 seed) {
  const int g = rated.generation;
  const int parents = parent_count(p);
  EloPopulation next;
  next.generation = g + 1;
  if (p.search == EloSearch::kRandom) {
    for (int i = 0; i < p.population; ++i) {
      Rng rng = stream(seed, g + 1, kRandomSearch, static_cast<std::size_t>(i));
      std::vector<int> genes;
      for (const GeneRange& r : ranges) genes.push_back(uniform_gene(rng, r));
      next.members.push_back(newborn(std::move(genes), p, g + 1));
    }
    return next;
  }
  for (int r = 0; r < parents; ++r) next.members.push_back(rated.members[order[r]]);
  // Mutants: each current member in index order may yield one (not with per-gene mutation).
  for (std::size_t i = 0;
       !p.mutation_per_gene && i < rated.members.size() && static_cast<int>(next.members.size()) < p.population; ++i) {
    Rng coin = stream(seed, g, kMutate, i);
    if (!(coin.uniform() < p.mutation_rate)) continue;
    Rng rng = stream(seed, g, kMutantGenes, i);
    std::vector<int> genes = rated.members[i].genes;
    std::vector<int> free(genes.size());
    std::iota(free.begin(), free.end(), 0);
    for (int m = 0; m < p.mutation_genes; ++m) {
      // A distinct gene, redrawn to a different value (a range of one value stays as it is).
      const std::size_t pick = rng.below(static_cast<u32>(free.size() - m));
      const int k = free[pick];
      std::swap(free[pick], free[free.size() - 1 - m]);
      const GeneRange& range = ranges[k];
      const int width = range.high - range.low + 1;
      if (width < 2) continue;
      const int v = range.low + static_cast<int>(rng.below(static_cast<u32>(width - 1)));
      genes[k] = v >= genes[k] ? v + 1 : v;
    }
    next.members.push_back(newborn(std::move(genes), p, g + 1));
  }
  // Offspring of two distinct parents.
  for (std::size_t k = 0; static_cast<int>(next.members.size()) < p.population; ++k) {
    Rng pick = stream(seed, g, kParents, k);
    const int a = static_cast<int>(pick.below(static_cast<u32>(parents)));
    int b = static_cast<int>(pick.below(static_cast<u32>(parents - 1)));
    if (b >= a) ++b;
    const std::vector<int>& x = rated.members[order[a]].genes;
    const std::vector<int>& y = rated.members[order[b]].genes;
    Rng rng = stream(seed, g, kCrossoverGenes, k);
    std::vector<int> child(x.size());
    if (p.crossover == CrossoverKind::kUniform) {
      for (std::size_t i = 0; i < x.size(); ++i) child[i] = (rng.next_u32() & 1) ? y[i] : x[i];
    } else {
      const std::size_t cut = 1 + rng.below(static_cast<u32>(x.size() - 1));  // 1..L-1 genes from x
      for (std::size_t i = 0; i < x.size(); ++i) child[i] = i < cut ? x[i] : y[i];
    }
    if (p.mutation_per_gene) {
      Rng mutate = stream(seed, g, kGeneMutation, k);
      for (std::size_t i = 0; i < child.size(); ++i) {
        const bool redraw = mutate.uniform() < p.mutation_rate;
        const int width = ranges[i].high - ranges[i].low + 1;
        const int v = ranges[i].low + static_cast<int>(mutate.below(static_cast<u32>(std::max(width - 1, 1))));
        if (redraw && width >= 2) child[i] = v >= child[i] ? v + 1 : v;
      }
    }
    next.members.push_back(newborn(std::move(child), p, g + 1));
  }
  return next;
}

Diversity diversity(const EloPopulation& pop) {
  Diversity d;
  std::set<std::vector<int>> distinct;
  for (const Member& m : pop.members) distinct.insert(m.genes);
  d.distinct = static_cast<int>(distinct.size());
  const std::size_t n = pop.members.size();
  if (n < 2) return d;
  u64 differing = 0;
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = i + 1; j < n; ++j)
      for (std::size_t k = 0; k < pop.members[i].genes.size(); ++k)
        differing += pop.members[i].genes[k] != pop.members[j].genes[k];
  const double pairs = static_cast<double>(n) * (n - 1) / 2;
  d.mean_gene_distance = static_cast<double>(differing) / (pairs * static_cast<double>(pop.members[0].genes.size()));
  return d;
}

}  // namespace ef::ga
