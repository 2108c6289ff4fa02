#include "evalforge/ga/brkga.hpp"
#include <algorithm>
#include <numeric>
#include "evalforge/core/error.hpp"
#include "evalforge/core/rng.hpp"

namespace ef::ga {

void BrkgaParams::validate() const {
  if (elite_count < 1) fail("brkga: elite count {} must be at least 1", elite_count);
  if (mutant_count < 0) fail("brkga: mutant count {} must not be negative", mutant_count);
  if (elite_count + mutant_count >= population_size)
    fail(
        "brkga: elite ({}) + mutants ({}) must be smaller than the population size ({}), so that crossover has "
        "non-elite parents and offspring slots",
        elite_count, mutant_count, population_size);
  if (!(elite_inheritance >= 0.0 && elite_inheritance <= 1.0))
    fail("brkga: elite inheritance rho_e = {} is outside [0, 1]", elite_inheritance);
}

namespace {

void fill_random_keys(std::span<double> keys, u64 seed, u32 island, u32 generation, u32 slot) {
  Rng rng(seed, Purpose::kPopulation, island, generation, slot);
  for (double& k : keys) k = rng.uniform();
}

// Strict weak order on fitness with every unevaluated (NaN) value after every number.
bool fitter(double a, double b) {
  if (!is_evaluated(a)) return false;
  if (!is_evaluated(b)) return true;
  return a < b;
}

}  // namespace

Population random_population(int size, int num_keys, u64 seed, u32 island) {
  if (size < 1 || num_keys < 1) fail("brkga: population of {} individuals with {} keys each", size, num_keys);
  Population pop;
  pop.size = size;
  pop.num_keys = num_keys;
  pop.keys.resize(static_cast<std::size_t>(size) * num_keys);
  pop.fitness.assign(static_cast<std::size_t>(size), kNotEvaluated);
  for (int i = 0; i < size; ++i) fill_random_keys(pop.individual(i), seed, island, 0, static_cast<u32>(i));
  return pop;
}

void sort_population(Population& pop) {
  std::vector<int> order(static_cast<std::size_t>(pop.size));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return fitter(pop.fitness[a], pop.fitness[b]); });
  Population sorted;
  sorted.size = pop.size;
  sorted.num_keys = pop.num_keys;
  sorted.keys.resize(pop.keys.size());
  sorted.fitness.resize(pop.fitness.size());
  for (int r = 0; r < pop.size; ++r) {
    const auto from = pop.individual(order[r]);
    std::copy(from.begin(), from.end(), sorted.individual(r).begin());
    sorted.fitness[r] = pop.fitness[order[r]];
  }
  pop = std::move(sorted);
}

bool is_sorted_by_fitness(const Population& pop) {
  for (int i = 1; i < pop.size; ++i)
    if (fitter(pop.fitness[i], pop.fitness[i - 1])) return false;
  return true;
}

Population next_generation(const Population& prev, const BrkgaParams& params, u64 seed, u32 island, u32 generation) {
  params.validate();
  if (prev.size != params.population_size)
    fail("brkga: island {} has {} individuals; the parameters say {}", island, prev.size, params.population_size);
  if (generation < 1) fail("brkga: generation 0 is the random initial population; transitions make generation >= 1");
  for (int i = 0; i < prev.size; ++i)
    if (!is_evaluated(prev.fitness[i]))
      fail("brkga: island {}, generation {}: individual {} of the previous population has no fitness", island,
           generation, i);
  if (!is_sorted_by_fitness(prev))
    fail("brkga: island {}, generation {}: the previous population is not sorted by fitness", island, generation);

  const int p = params.population_size, pe = params.elite_count, pm = params.mutant_count;
  Population next;
  next.size = p;
  next.num_keys = prev.num_keys;
  next.keys.resize(prev.keys.size());
  next.fitness.assign(static_cast<std::size_t>(p), kNotEvaluated);

  // Elite: copied with their fitness, so they stay ranked (and serve as migrants) until the
  // next evaluation.
  std::copy(prev.keys.begin(), prev.keys.begin() + static_cast<std::ptrdiff_t>(pe) * prev.num_keys, next.keys.begin());
  std::copy(prev.fitness.begin(), prev.fitness.begin() + pe, next.fitness.begin());

  for (int slot = pe; slot < pe + pm; ++slot)
    fill_random_keys(next.individual(slot), seed, island, generation, static_cast<u32>(slot));

  for (int slot = pe + pm; slot < p; ++slot) {
    Rng rng(seed, Purpose::kCrossover, island, generation, static_cast<u32>(slot));
    const auto elite = prev.individual(static_cast<int>(rng.below(static_cast<u32>(pe))));
    const auto other = prev.individual(pe + static_cast<int>(rng.below(static_cast<u32>(p - pe))));
    auto child = next.individual(slot);
    for (int k = 0; k < next.num_keys; ++k) child[k] = rng.uniform() < params.elite_inheritance ? elite[k] : other[k];
  }
  return next;
}

}  // namespace ef::ga
