// Counter-based random numbers (Philox4x32-10 from Random123), usable on host and device.
// Every draw is a pure function of (seed, purpose, a, b, c, counter): no generator state is
// shared between work items, so results do not depend on thread count or launch layout.
#pragma once
#include <Random123/philox.h>
#include "evalforge/core/hd.hpp"

namespace ef {

// What a stream of random numbers is for; part of the key, so streams never collide.
enum class Purpose : u32 {
  kSplit = 1,           // data splits (fitness/test, train/validation)
  kShuffle = 2,         // training sample order
  kDatagen = 3,         // built-in dataset generation
  kPopulation = 4,      // GA initial keys and mutants
  kCrossover = 5,       // GA crossover
  kMigration = 6,       // GA immigrant placement
  kGame = 7,            // playouts
  kEvolve = 8,          // evolve runs' GA: initial chromosomes, selection, crossover, mutation
  kOpening = 9,         // random openings of yardstick games
  kFitnessGames = 10,   // a generation's seed for its fitness games (Tic-Tac-Toe's random ties)
  kSolverTree = 11,     // nodes sampled from the exact solver's trees (runs/ordering_network.cpp)
  kShake = 12,          // GA shaking and reset of a stalled island (ga/shake.hpp)
  kPathRelinking = 13,  // GA implicit path relinking: pairs (ga/path_relinking.hpp)
};

class Rng {
 public:
  // key: (seed lo, seed hi); counter: (purpose<<24 | a, b, c, running block index)
  EF_HD Rng(u64 seed, Purpose purpose, u32 a = 0, u32 b = 0, u32 c = 0) {
    key_ = {{static_cast<u32>(seed), static_cast<u32>(seed >> 32)}};
    // a < 2^24 for every use (generation, island, game numbers), so the fields never overlap.
    ctr_ = {{(static_cast<u32>(purpose) << 24) | (a & 0xFFFFFFu), b, c, 0}};
  }
  // 32 random bits; draws come in blocks of four.
  EF_HD u32 next_u32() {
    if (pos_ == 4) {
      block_ = philox4x32(ctr_, key_);
      ctr_.v[3]++;
      pos_ = 0;
    }
    return block_.v[pos_++];
  }
  EF_HD u64 next_u64() {
    u64 hi = next_u32();
    return (hi << 32) | next_u32();
  }
  // Uniform integer in [0, n), n > 0, without modulo bias (Lemire's multiply + rejection).
  EF_HD u32 below(u32 n) {
    u64 m = static_cast<u64>(next_u32()) * n;
    u32 low = static_cast<u32>(m);
    if (low < n) {
      u32 threshold = (0u - n) % n;
      while (low < threshold) {
        m = static_cast<u64>(next_u32()) * n;
        low = static_cast<u32>(m);
      }
    }
    return static_cast<u32>(m >> 32);
  }
  // A uniformly chosen set bit of `mask` (nonzero), e.g. a random legal move: one below() draw.
  EF_HD int random_bit(u64 mask) {
    for (u32 k = below(static_cast<u32>(popcount64(mask))); k; --k) mask &= mask - 1;
    return ctz64(mask);
  }
  // Uniform double in [0,1) with 53 random bits: exact, the same on host and device.
  EF_HD double uniform() { return static_cast<double>(next_u64() >> 11) * (1.0 / 9007199254740992.0); }

 private:
  r123::Philox4x32::key_type key_;
  r123::Philox4x32::ctr_type ctr_;
  r123::Philox4x32::ctr_type block_{};
  int pos_ = 4;
};

}  // namespace ef
