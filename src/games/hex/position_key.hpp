// A Hex position as the key of a host-side hash table (the solver's transposition table, the VC
// alpha-beta's verdicts): both colours' stones, the side to move and the board side (one table
// may see several sizes). `last` and the ply count are history, not position, and stay out.
#pragma once
#include <algorithm>
#include <cstddef>
#include <iterator>
#include "evalforge/games/hex/game.hpp"

namespace ef::hex {

struct PositionKey {
  u64 w[2 * kWords + 1] = {};

  static PositionKey of(const Board& b) {
    PositionKey k;
    for (int i = 0; i < kWords; ++i) {
      k.w[i] = b.stones[0].w[i];
      k.w[kWords + i] = b.stones[1].w[i];
    }
    k.w[2 * kWords] = u64{b.side} | u64{b.n} << 8;
    return k;
  }
  bool operator==(const PositionKey& o) const { return std::equal(std::begin(w), std::end(w), std::begin(o.w)); }
};

struct PositionKeyHash {
  std::size_t operator()(const PositionKey& k) const {
    u64 h = 0x9e3779b97f4a7c15ull;
    for (u64 v : k.w) {
      h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
      h *= 0xff51afd7ed558ccdull;
    }
    return static_cast<std::size_t>(h ^ (h >> 33));
  }
};

}  // namespace ef::hex
