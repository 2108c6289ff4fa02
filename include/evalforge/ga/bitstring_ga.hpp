// A generational GA over bit strings (seed 003's GA, docs/method.md section 3; docs/tictactoe.md):
// selection (roulette wheel, linear rank, or tournament), one-point crossover with a rate,
// per-bit mutation, optional elitism. Generic: it sees bits and fitness values, never a game.
//
// One generation, from a population and its fitness (higher is better, >= 0 for roulette):
//   1. the `elitism` best (ties to the lower index) are copied unchanged, best first;
//   2. the rest is filled in pairs: two parents selected independently; with probability
//      crossover_rate a one-point crossover (cut after bit 1..L-1) gives two children, else
//      the parents' copies; every bit of a child flips with probability mutation_rate; an
//      odd last slot takes the first child.
// Selection: roulette picks i with probability f_i / sum f (uniformly when every f is 0);
// rank by linear ranking, probability proportional to n - rank (the best n, the worst 1; equal
// fitness values get distinct ranks, the lower index ranked higher, as in a stable sort);
// tournament the best of `tournament_size` uniform draws (ties to the lower index).
// Random numbers are keyed by (seed, Purpose::kEvolve, generation, role, stream << 16 | slot):
// `stream` separates populations (trials, co-evolving pairs) of one run.
#pragma once
#include <span>
#include <string>
#include <vector>
#include "evalforge/core/hd.hpp"

namespace ef::ga {

enum class Selection { kRoulette, kRank, kTournament };

struct BitGaParams {
  int population = 100;
  int bits = 0;
  Selection selection = Selection::kRoulette;
  int tournament_size = 2;
  double crossover_rate = 0.667;
  double mutation_rate = 0.001;
  int elitism = 0;
};

using BitString = std::vector<unsigned char>;  // one bit (0 or 1) per element

// Throws ef::Error naming `where` for values outside their ranges.
void validate(const BitGaParams& params, const std::string& where);

std::vector<BitString> random_bit_population(const BitGaParams& params, u64 seed, u32 stream);
// Member `index` of random_bit_population(params, seed, stream) with params.bits = bits, drawn on
// its own: a member's bits depend on its index only, not on the population's size.
BitString random_bit_member(int bits, u64 seed, u32 stream, std::size_t index);

// The population of generation `generation + 1` from generation `generation` and its fitness.
std::vector<BitString> next_bit_generation(const std::vector<BitString>& population, std::span<const double> fitness,
                                           const BitGaParams& params, u64 seed, u32 stream, int generation);

// The indices of the `k` best, best first (ties to the lower index).
std::vector<int> best_indices(std::span<const double> fitness, int k);

}  // namespace ef::ga
