#include "evalforge/ga/brkga.hpp"
#include <algorithm>
#include <array>
#include <numeric>
#include <utility>
#include "evalforge/core/error.hpp"
#include "evalforge/core/rng.hpp"

namespace ef::ga {

double bias_weight(Bias bias, int rank) {
  const double r = rank;
  switch (bias) {
    case Bias::kRhoE: return 0.0;
    case Bias::kConstant: return 1.0;
    case Bias::kCubic: return 1.0 / (r * r * r);
    case Bias::kExponential: return std::exp(-r);
    case Bias::kLinear: return 1.0 / r;
    case Bias::kLogInverse: return 1.0 / std::log(r + 1.0);
    case Bias::kQuadratic: return 1.0 / (r * r);
  }
  return 0.0;
}

namespace {
constexpr std::array<std::pair<Bias, const char*>, 7> kBiasNames{{{Bias::kRhoE, "rho_e"},
                                                                  {Bias::kConstant, "constant"},
                                                                  {Bias::kCubic, "cubic"},
                                                                  {Bias::kExponential, "exponential"},
                                                                  {Bias::kLinear, "linear"},
                                                                  {Bias::kLogInverse, "loginverse"},
                                                                  {Bias::kQuadratic, "quadratic"}}};
}  // namespace

const char* bias_name(Bias bias) {
  for (const auto& [b, name] : kBiasNames)
    if (b == bias) return name;
  return "?";
}

std::optional<Bias> parse_bias(std::string_view name) {
  for (const auto& [b, n] : kBiasNames)
    if (name == n) return b;
  return std::nullopt;
}

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
  if (parents < 2) fail("brkga: parents (pi_t) = {} must be at least 2", parents);
  if (elite_parents < 1 || elite_parents > parents)
    fail("brkga: elite_parents (pi_e) = {} must be in [1, parents = {}]", elite_parents, parents);
  if (elite_parents > elite_count)
    fail("brkga: elite_parents (pi_e) = {} are more than the elite ({})", elite_parents, elite_count);
  if (parents - elite_parents > population_size - elite_count)
    fail("brkga: {} non-elite parents (parents - elite_parents) are more than the non-elite individuals ({})",
         parents - elite_parents, population_size - elite_count);
  if (bias == Bias::kRhoE && (parents != 2 || elite_parents != 1))
    fail(
        "brkga: bias \"rho_e\" (the classic rule) takes parents = 2 and elite_parents = 1, not {} and {}: name a "
        "bias function (constant, cubic, exponential, linear, loginverse, quadratic)",
        parents, elite_parents);
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

  if (params.classic()) {
    for (int slot = pe + pm; slot < p; ++slot) {
      Rng rng(seed, Purpose::kCrossover, island, generation, static_cast<u32>(slot));
      const auto elite = prev.individual(static_cast<int>(rng.below(static_cast<u32>(pe))));
      const auto other = prev.individual(pe + static_cast<int>(rng.below(static_cast<u32>(p - pe))));
      auto child = next.individual(slot);
      for (int k = 0; k < next.num_keys; ++k) child[k] = rng.uniform() < params.elite_inheritance ? elite[k] : other[k];
    }
    return next;
  }

  // Multi-parent: the cumulative bias over ranks 1..pi_t, computed once.
  const int pt = params.parents, pie = params.elite_parents;
  std::vector<double> cumulative(static_cast<std::size_t>(pt));
  double total = 0;
  for (int r = 0; r < pt; ++r) cumulative[r] = total += bias_weight(params.bias, r + 1);
  std::vector<int> chosen;
  chosen.reserve(static_cast<std::size_t>(pt));
  // `count` distinct indices uniform over [first, first + n), by rejection (pi_t is small).
  auto draw_distinct = [&](Rng& rng, int first, int n, int count) {
    const std::size_t before = chosen.size();
    while (static_cast<int>(chosen.size() - before) < count) {
      const int i = first + static_cast<int>(rng.below(static_cast<u32>(n)));
      if (std::find(chosen.begin() + static_cast<std::ptrdiff_t>(before), chosen.end(), i) == chosen.end())
        chosen.push_back(i);
    }
  };
  for (int slot = pe + pm; slot < p; ++slot) {
    Rng rng(seed, Purpose::kCrossover, island, generation, static_cast<u32>(slot));
    chosen.clear();
    draw_distinct(rng, 0, pe, pie);
    draw_distinct(rng, pe, p - pe, pt - pie);
    // The population is sorted, so a parent's index is its rank among the chosen (ties in
    // fitness keep the population's order).
    std::sort(chosen.begin(), chosen.end());
    auto child = next.individual(slot);
    for (int k = 0; k < next.num_keys; ++k) {
      const double u = rng.uniform() * total;
      int r = 0;
      while (r + 1 < pt && !(u < cumulative[r])) ++r;
      child[k] = prev.individual(chosen[r])[k];
    }
  }
  return next;
}

}  // namespace ef::ga
