// Connect Four's fitness matches: a bit string as a square-weight agent, and a population's
// points against one opponent as ONE backend batch (engine/round_robin.hpp's layout), for the
// bit-string GA (ga/bitstring_ga.hpp) in the tests.
#pragma once
#include <span>
#include <string>
#include <vector>
#include "evalforge/core/error.hpp"
#include "evalforge/engine/play_backend.hpp"
#include "evalforge/engine/round_robin.hpp"
#include "evalforge/ga/bitstring_ga.hpp"
#include "evalforge/games/connect_four/players.hpp"

namespace ef::connect_four {

constexpr int kBitsPerWeight = 4;  // a weight is -8..7
constexpr int kChromosomeBits = kSquares * kBitsPerWeight;

// The agent whose weight of square s is bits [4s, 4s + 4) read as a two's-complement nibble,
// most significant bit first.
inline play::ConnectFourAgent weights_agent(const ga::BitString& bits, int depth, const std::string& name) {
  if (static_cast<int>(bits.size()) != kChromosomeBits)
    fail("agent '{}': {} bits, a Connect Four chromosome has {}", name, bits.size(), kChromosomeBits);
  play::ConnectFourAgent a;
  a.name = name;
  a.params.kind = play::ConnectFourEvaluator::kWeights;
  a.params.depth = depth;
  for (int s = 0; s < kSquares; ++s) {
    int nibble = 0;
    for (int b = 0; b < kBitsPerWeight; ++b)
      nibble = nibble << 1 | bits[static_cast<std::size_t>(kBitsPerWeight * s + b)];
    a.params.weights[s] = static_cast<signed char>(nibble >= 8 ? nibble - 16 : nibble);
  }
  return a;
}

// Every agent of `population` against `opponent` from each of the 5 one-disc openings, both
// colours (10 games each), as one batch on `backend`: points 2 a win, 1 a draw, so 0..20.
inline std::vector<double> points_against(play::PlayBackend<games::ConnectFour>& backend,
                                          std::span<const play::ConnectFourAgent> population,
                                          const play::ConnectFourAgent& opponent, u64 seed) {
  const int against = backend.add_agent(opponent);
  std::vector<play::Pairing> pairs;
  for (const auto& a : population) pairs.emplace_back(backend.add_agent(a), against);
  const auto jobs = play::paired_games<games::ConnectFour>(
      pairs, kColumns, [](std::size_t, int column) { return Board{}.play(column); }, seed);
  std::vector<play::ConnectFourRecord> records(jobs.size());
  backend.play(jobs, records);
  std::vector<double> points(population.size(), 0.0);
  for (std::size_t k = 0; k < jobs.size(); ++k)
    points[k / (2 * kColumns)] += 1 + play::pair_first_result<games::ConnectFour>(records[k], k);
  return points;
}

}  // namespace ef::connect_four
