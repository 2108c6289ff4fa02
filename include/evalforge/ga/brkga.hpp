// Biased random-key genetic algorithm (Gonçalves & Resende 2011; docs/method.md 1.2), one population.
//
// Determinism: every random number comes from ef::Rng keyed by
//   (seed, Purpose::kPopulation, island, generation, slot)  initial keys (generation 0), mutants
//   (seed, Purpose::kCrossover,  island, generation, slot)  parent choice and key inheritance
// where `slot` is the individual's index in the population being built. No generator state
// passes from one individual to the next, so the result does not depend on thread counts or on
// the order in which individuals are built.
//
// Layout after a generation transition (next_generation), p = population_size:
//   slots [0, pe)          the elite: the pe best of the previous population, in rank order,
//                          keys and fitness unchanged
//   slots [pe, pe + pm)    fresh random mutants (fitness: not evaluated)
//   slots [pe + pm, p)     offspring of biased crossover (fitness: not evaluated): two parents
//                          and rho_e (the classic rule), or pi_t parents with a bias function
//                          over their ranks (BRKGA-MP, Andrade et al. 2021)
// Migration (islands.hpp) relies on this layout: migrants are taken from the elite slots and
// immigrants replace mutant slots.
#pragma once
#include <cmath>
#include <limits>
#include <optional>
#include <span>
#include <string_view>
#include <vector>
#include "evalforge/core/hd.hpp"

namespace ef::ga {

// How the multi-parent crossover weighs its parents (BRKGA-MP-IPR's bias functions): the parent
// of rank r (1 = the fittest of the chosen parents) gives each key with probability
// bias(r) / sum over the parents of bias. kRhoE is the classic rule of two parents, the elite
// one with probability rho_e; it needs parents = 2 and elite_parents = 1.
enum class Bias { kRhoE, kConstant, kCubic, kExponential, kLinear, kLogInverse, kQuadratic };
// kConstant: 1 (every parent alike); kCubic: r^-3; kExponential: e^-r; kLinear: 1/r;
// kLogInverse: 1/log(r + 1); kQuadratic: r^-2. kRhoE has no weight by rank (0 is returned).
double bias_weight(Bias bias, int rank);
// "rho_e", "constant", "cubic", "exponential", "linear", "loginverse", "quadratic".
const char* bias_name(Bias bias);
std::optional<Bias> parse_bias(std::string_view name);

struct BrkgaParams {
  int population_size = 100;       // p   (docs/method.md Table 1)
  int elite_count = 20;            // pe
  int mutant_count = 20;           // pm
  double elite_inheritance = 0.7;  // rho_e: probability that a key comes from the elite parent (Bias::kRhoE)
  int parents = 2;                 // pi_t: parents of each offspring
  int elite_parents = 1;           // pi_e: of them drawn from the elite, the rest from the non-elite
  Bias bias = Bias::kRhoE;         // how the parents are weighed; kRhoE: the classic rule
  // Throws ef::Error unless 1 <= pe, 0 <= pm, pe + pm < p (crossover needs a non-elite parent
  // and fills at least one slot), 0 <= rho_e <= 1, 2 <= pi_t, 1 <= pi_e <= pi_t, pi_e <= pe,
  // pi_t - pi_e <= p - pe, and kRhoE only with pi_t = 2, pi_e = 1.
  void validate() const;
  // The classic two-parent BRKGA (the default): next_generation then gives the bits it always gave.
  bool classic() const { return bias == Bias::kRhoE; }
};

// Fitness of an individual that has not been evaluated (yet): lower is better, and an
// unevaluated individual ranks after every evaluated one.
inline constexpr double kNotEvaluated = std::numeric_limits<double>::quiet_NaN();
inline bool is_evaluated(double fitness) { return !std::isnan(fitness); }

// p individuals of n keys each, flat: individual i owns keys [i*n, (i+1)*n).
struct Population {
  int size = 0;                 // p
  int num_keys = 0;             // n
  std::vector<double> keys;     // size * num_keys, each in [0, 1)
  std::vector<double> fitness;  // size; kNotEvaluated until evaluated
  std::span<double> individual(int i) {
    return {keys.data() + static_cast<std::size_t>(i) * num_keys, static_cast<std::size_t>(num_keys)};
  }
  std::span<const double> individual(int i) const {
    return {keys.data() + static_cast<std::size_t>(i) * num_keys, static_cast<std::size_t>(num_keys)};
  }
};

// Generation 0: `size` individuals of uniformly random keys, none evaluated.
Population random_population(int size, int num_keys, u64 seed, u32 island);

// Reorders the individuals (keys with their fitness) by ascending fitness, equal fitness by
// current index (a stable sort); unevaluated individuals go last, in index order.
void sort_population(Population& population);
bool is_sorted_by_fitness(const Population& population);

// The population of `generation` (>= 1) from the previous one, which must be fully evaluated
// and sorted (sort_population); throws ef::Error otherwise or when the parameters do not fit
// its size. Offspring, classic rule: one elite parent uniform over [0, pe), one non-elite parent
// uniform over [pe, p); each key from the elite parent when Rng::uniform() < rho_e, else from
// the other. Multi-parent: pi_e distinct elite parents uniform over [0, pe) and pi_t - pi_e
// distinct non-elite ones uniform over [pe, p), ranked by their place in the sorted population;
// each key from the parent of rank r with probability bias(r) / sum of bias (one uniform draw
// a key against the cumulative weights). The same Rng stream as the classic rule: (seed,
// kCrossover, island, generation, slot).
Population next_generation(const Population& sorted_previous, const BrkgaParams& params, u64 seed, u32 island,
                           u32 generation);

}  // namespace ef::ga
