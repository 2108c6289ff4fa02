#include "evalforge/ga/bitstring_ga.hpp"
#include <algorithm>
#include <cmath>
#include <numeric>
#include "evalforge/core/error.hpp"
#include "evalforge/core/rng.hpp"

namespace ef::ga {

namespace {

// Roles of the streams (the `b` field of the key), apart from those of elo_ga.cpp.
enum Role : u32 { kInitialBits = 11, kSelect = 12, kCross = 13, kMutateBits = 14 };

Rng stream_of(u64 seed, int generation, Role role, u32 stream, std::size_t slot) {
  return Rng(seed, Purpose::kEvolve, static_cast<u32>(generation), role, stream << 16 | static_cast<u32>(slot));
}

int select_one(std::span<const double> f, const std::vector<int>& order, const BitGaParams& p, Rng& rng) {
  const int n = static_cast<int>(f.size());
  switch (p.selection) {
    case Selection::kRoulette: {
      double total = 0;
      for (double v : f) total += v;
      if (!(total > 0)) return static_cast<int>(rng.below(static_cast<u32>(n)));
      const double r = rng.uniform() * total;
      double acc = 0;
      for (int i = 0; i < n; ++i) {
        acc += f[i];
        if (r < acc) return i;
      }
      for (int i = n - 1; i >= 0; --i)  // rounding at the top end: the last with nonzero fitness
        if (f[i] > 0) return i;
      return n - 1;
    }
    case Selection::kRank: {
      // order[r] is the member of rank r (0 = best), weight n - r; total n (n + 1) / 2.
      const u64 total = static_cast<u64>(n) * (n + 1) / 2;
      u64 r = static_cast<u64>(rng.uniform() * static_cast<double>(total));
      for (int k = 0; k < n; ++k) {
        const u64 w = static_cast<u64>(n - k);
        if (r < w) return order[k];
        r -= w;
      }
      return order[n - 1];
    }
    case Selection::kTournament: {
      int best = static_cast<int>(rng.below(static_cast<u32>(n)));
      for (int k = 1; k < p.tournament_size; ++k) {
        const int c = static_cast<int>(rng.below(static_cast<u32>(n)));
        if (f[c] > f[best] || (f[c] == f[best] && c < best)) best = c;
      }
      return best;
    }
  }
  return 0;
}

}  // namespace

void validate(const BitGaParams& p, const std::string& where) {
  if (p.population < 2 || p.population > 65536) fail("{}: population {} is outside 2..65536", where, p.population);
  if (p.bits < 2) fail("{}: {} bits (at least 2 expected)", where, p.bits);
  if (!(p.crossover_rate >= 0 && p.crossover_rate <= 1))
    fail("{}: crossover_rate {} is outside [0, 1]", where, p.crossover_rate);
  if (!(p.mutation_rate >= 0 && p.mutation_rate <= 1))
    fail("{}: mutation_rate {} is outside [0, 1]", where, p.mutation_rate);
  if (p.elitism < 0 || p.elitism >= p.population)
    fail("{}: elitism {} is outside 0..{}", where, p.elitism, p.population - 1);
  if (p.selection == Selection::kTournament && (p.tournament_size < 1 || p.tournament_size > p.population))
    fail("{}: tournament_size {} is outside 1..{}", where, p.tournament_size, p.population);
}

BitString random_bit_member(int bits, u64 seed, u32 stream, std::size_t index) {
  BitString member(static_cast<std::size_t>(bits));
  Rng rng = stream_of(seed, 0, kInitialBits, stream, index);
  for (int b = 0; b < bits; b += 32) {
    const u32 word = rng.next_u32();
    for (int k = 0; k < 32 && b + k < bits; ++k) member[b + k] = static_cast<unsigned char>(word >> k & 1);
  }
  return member;
}

std::vector<BitString> random_bit_population(const BitGaParams& p, u64 seed, u32 stream) {
  std::vector<BitString> pop;
  pop.reserve(static_cast<std::size_t>(p.population));
  for (int i = 0; i < p.population; ++i)
    pop.push_back(random_bit_member(p.bits, seed, stream, static_cast<std::size_t>(i)));
  return pop;
}

std::vector<int> best_indices(std::span<const double> fitness, int k) {
  std::vector<int> order(fitness.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return fitness[a] > fitness[b]; });
  order.resize(std::min<std::size_t>(order.size(), static_cast<std::size_t>(std::max(k, 0))));
  return order;
}

std::vector<BitString> next_bit_generation(const std::vector<BitString>& pop, std::span<const double> fitness,
                                           const BitGaParams& p, u64 seed, u32 stream, int generation) {
  const int n = static_cast<int>(pop.size());
  if (fitness.size() != pop.size()) fail("bit-string GA: {} fitness values for {} members", fitness.size(), pop.size());
  for (double f : fitness)
    if (!std::isfinite(f) || (p.selection == Selection::kRoulette && f < 0))
      fail("bit-string GA: fitness {} (roulette selection needs finite values >= 0)", f);
  const std::vector<int> order = best_indices(fitness, n);
  std::vector<BitString> next;
  next.reserve(n);
  for (int e = 0; e < p.elitism; ++e) next.push_back(pop[order[e]]);
  for (std::size_t pair = 0; static_cast<int>(next.size()) < n; ++pair) {
    Rng pick = stream_of(seed, generation, kSelect, stream, pair);
    const BitString& a = pop[select_one(fitness, order, p, pick)];
    const BitString& b = pop[select_one(fitness, order, p, pick)];
    BitString c = a, d = b;
    Rng cross = stream_of(seed, generation, kCross, stream, pair);
    if (cross.uniform() < p.crossover_rate) {
      const std::size_t cut = 1 + cross.below(static_cast<u32>(a.size() - 1));
      for (std::size_t k = cut; k < a.size(); ++k) std::swap(c[k], d[k]);
    }
    Rng flip = stream_of(seed, generation, kMutateBits, stream, pair);
    for (BitString* child : {&c, &d}) {
      if (static_cast<int>(next.size()) >= n) break;
      if (p.mutation_rate > 0)
        for (auto& bit : *child)
          if (flip.uniform() < p.mutation_rate) bit ^= 1;
      next.push_back(std::move(*child));
    }
  }
  return next;
}

}  // namespace ef::ga
