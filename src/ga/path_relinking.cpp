#include "evalforge/ga/path_relinking.hpp"
#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include "core/bytes.hpp"
#include "evalforge/core/error.hpp"
#include "evalforge/core/rng.hpp"
#include "evalforge/ga/islands.hpp"

namespace ef::ga {

const char* ipr_selection_name(IprSelection selection) {
  return selection == IprSelection::kRandom ? "random" : "best";
}

std::optional<IprSelection> parse_ipr_selection(std::string_view name) {
  if (name == "best") return IprSelection::kBest;
  if (name == "random") return IprSelection::kRandom;
  return std::nullopt;
}

void IprParams::validate(int elite_count) const {
  if (interval < 0) fail("ipr: interval {} must not be negative (0 = never)", interval);
  if (pairs < 1) fail("ipr: pairs = {} must be at least 1", pairs);
  if (!(percentage > 0.0 && percentage <= 1.0)) fail("ipr: percentage = {} is outside (0, 1]", percentage);
  if (!(min_distance >= 0.0)) fail("ipr: min_distance = {} must not be negative", min_distance);
  if (enabled() && selection == IprSelection::kBest && pairs > elite_count)
    fail("ipr: pairs = {} with selection best needs as many elite individuals (elite = {})", pairs, elite_count);
}

double relink_distance(const RelinkProblem& problem, std::span<const double> a, std::span<const double> b) {
  if (a.size() != b.size() || problem.block_size < 1 || a.size() % static_cast<std::size_t>(problem.block_size) != 0)
    fail("path relinking: individuals of {} and {} keys in blocks of {}", a.size(), b.size(), problem.block_size);
  const std::size_t bs = static_cast<std::size_t>(problem.block_size);
  double d = 0;
  for (std::size_t block = 0; block * bs < a.size(); ++block)
    d += problem.block_distance(a.subspan(block * bs, bs), b.subspan(block * bs, bs), static_cast<int>(block));
  return d;
}

std::vector<RelinkResult> relink(const std::vector<RelinkPath>& paths, const RelinkProblem& problem,
                                 double percentage) {
  const std::size_t bs = static_cast<std::size_t>(problem.block_size);
  struct Walk {
    std::vector<double> current;
    std::vector<int> moves;  // blocks still to take from the guide, ascending
    int steps_left = 0;
  };
  std::vector<Walk> walks(paths.size());
  std::vector<RelinkResult> results(paths.size());
  for (std::size_t p = 0; p < paths.size(); ++p) {
    const RelinkPath& path = paths[p];
    const double d = relink_distance(problem, path.base, path.guide);
    results[p].distance = d;
    walks[p].current = path.base;
    for (std::size_t block = 0; block * bs < path.base.size(); ++block) {
      const std::span<const double> a(path.base.data() + block * bs, bs), b(path.guide.data() + block * bs, bs);
      if (problem.block_distance(a, b, static_cast<int>(block)) > 0) walks[p].moves.push_back(static_cast<int>(block));
    }
    const auto moves = static_cast<double>(walks[p].moves.size());
    walks[p].steps_left = walks[p].moves.empty() ? 0
                                                 : std::clamp(static_cast<int>(std::ceil(percentage * moves - 1e-9)), 1,
                                                              static_cast<int>(walks[p].moves.size()));
  }
  while (true) {
    // Every path's candidates of this step, one batch.
    std::vector<int> islands;
    std::vector<std::vector<double>> candidates;
    for (std::size_t p = 0; p < paths.size(); ++p) {
      if (walks[p].steps_left == 0) continue;
      for (const int block : walks[p].moves) {
        std::vector<double> c = walks[p].current;
        std::copy_n(paths[p].guide.begin() + static_cast<std::ptrdiff_t>(block * bs), bs,
                    c.begin() + static_cast<std::ptrdiff_t>(block * bs));
        candidates.push_back(std::move(c));
        islands.push_back(paths[p].island);
      }
    }
    if (candidates.empty()) break;
    std::vector<double> fitness(candidates.size(), std::numeric_limits<double>::quiet_NaN());
    problem.evaluate(islands, candidates, fitness);
    std::size_t at = 0;
    for (std::size_t p = 0; p < paths.size(); ++p) {
      Walk& w = walks[p];
      if (w.steps_left == 0) continue;
      std::size_t chosen = 0;  // index into w.moves
      for (std::size_t m = 1; m < w.moves.size(); ++m)
        if (fitness[at + m] < fitness[at + chosen]) chosen = m;
      const double f = fitness[at + chosen];
      RelinkResult& r = results[p];
      r.evaluations += static_cast<int>(w.moves.size());
      w.current = std::move(candidates[at + chosen]);
      if (r.best.empty() || f < r.fitness) {
        r.best = w.current;
        r.fitness = f;
      }
      at += w.moves.size();
      w.moves.erase(w.moves.begin() + static_cast<std::ptrdiff_t>(chosen));
      --w.steps_left;
      r.guide_distances.push_back(relink_distance(problem, w.current, paths[p].guide));
    }
  }
  return results;
}

namespace {

// Indices of a population's pe best individuals, best first (fitness, then index).
std::vector<int> elite_indices(const Population& p, int pe) {
  std::vector<int> order(static_cast<std::size_t>(p.size));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return p.fitness[a] < p.fitness[b]; });
  order.resize(static_cast<std::size_t>(std::min(pe, p.size)));
  return order;
}

}  // namespace

std::vector<IprReport> path_relink(Archipelago& a, const IslandsConfig& config, const RelinkProblem& problem,
                                   IslandTeam& team) {
  const IprParams& ipr = config.ipr;
  const int g = a.generation;
  if (!ipr.enabled() || g == 0 || g % ipr.interval != 0) return {};
  const int pe = config.brkga.elite_count;
  const int n = static_cast<int>(config.moves.size());
  for (const Population& p : a.islands)
    for (int i = 0; i < p.size; ++i)
      if (!is_evaluated(p.fitness[i])) fail("path relinking at generation {}: an individual is not evaluated", g);

  // Every island's elite keys on every rank: this rank's islands in order, gathered and broadcast.
  ByteWriter mine;
  for (const Population& p : a.islands)
    for (const int i : elite_indices(p, pe)) {
      const std::span<const double> keys = p.individual(i);
      mine.put_array<double>(keys);
    }
  std::vector<std::string> parts = team.gather(mine.take());
  std::string all;
  for (const std::string& part : parts) all += part;
  team.broadcast(all);
  const int num_keys = a.islands.empty() ? 0 : a.islands[0].num_keys;
  const std::size_t per_island = static_cast<std::size_t>(pe) * static_cast<std::size_t>(num_keys) * sizeof(double);
  if (all.size() != per_island * static_cast<std::size_t>(n))
    fail("path relinking at generation {}: {} bytes of elites, expected {}", g, all.size(),
         per_island * static_cast<std::size_t>(n));
  auto elite_of = [&](int island, int rank) {
    std::vector<double> keys(static_cast<std::size_t>(num_keys));
    std::memcpy(keys.data(),
                all.data() + per_island * static_cast<std::size_t>(island) +
                    static_cast<std::size_t>(rank) * static_cast<std::size_t>(num_keys) * sizeof(double),
                static_cast<std::size_t>(num_keys) * sizeof(double));
    return keys;
  };

  std::vector<RelinkPath> paths;
  std::vector<IprReport> reports;
  for (std::size_t k = 0; k < a.islands.size(); ++k) {
    const int island = a.first_island + static_cast<int>(k);
    const std::vector<int> elite = elite_indices(a.islands[k], pe);
    for (int pair = 0; pair < ipr.pairs; ++pair) {
      Rng rng(config.seed, Purpose::kPathRelinking, static_cast<u32>(island), static_cast<u32>(g),
              static_cast<u32>(pair));
      const int base_rank = ipr.selection == IprSelection::kBest ? pair : static_cast<int>(rng.below(pe));
      const std::span<const double> base_keys = a.islands[k].individual(elite[base_rank]);
      for (int attempt = 0; attempt < 8; ++attempt) {
        int other = island;
        if (n > 1) {
          other = static_cast<int>(rng.below(static_cast<u32>(n - 1)));
          if (other >= island) ++other;
        }
        int guide_rank = ipr.selection == IprSelection::kBest ? 0 : static_cast<int>(rng.below(pe));
        if (other == island && guide_rank == base_rank) guide_rank = (guide_rank + 1) % pe;
        std::vector<double> guide = elite_of(other, guide_rank);
        if (relink_distance(problem, base_keys, guide) < ipr.min_distance || (other == island && pe < 2)) continue;
        IprReport report;
        report.island = island;
        report.guide_island = other;
        report.pair = pair;
        report.base_fitness = a.islands[k].fitness[elite[base_rank]];
        reports.push_back(report);
        paths.push_back(
            {std::vector<double>(base_keys.begin(), base_keys.end()), std::move(guide), static_cast<int>(k)});
        break;
      }
    }
  }
  const std::vector<RelinkResult> results = relink(paths, problem, ipr.percentage);
  for (std::size_t p = 0; p < paths.size(); ++p) {
    IprReport& report = reports[p];
    report.result = results[p];
    if (results[p].best.empty()) continue;
    Population& pop = a.islands[static_cast<std::size_t>(paths[p].island)];
    int worst = 0;
    for (int i = 1; i < pop.size; ++i)
      if (pop.fitness[i] >= pop.fitness[worst]) worst = i;
    if (!(results[p].fitness < pop.fitness[worst])) continue;
    bool present = false;
    for (int i = 0; i < pop.size && !present; ++i)
      present = relink_distance(problem, pop.individual(i), results[p].best) == 0;
    if (present) continue;
    report.inserted = true;
    report.replaced_fitness = pop.fitness[worst];
    std::copy(results[p].best.begin(), results[p].best.end(), pop.individual(worst).begin());
    pop.fitness[worst] = results[p].fitness;
  }
  return reports;
}

}  // namespace ef::ga
