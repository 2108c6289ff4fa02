// The Tic-Tac-Toe evaluator of seed 003 (docs/method.md section 3; docs/tictactoe.md), EF_HD: a
// 9-18-5-1 network of threshold units that scores a board for X, decoded from a bit string of
// 5-bit genes. Integer arithmetic throughout, so every backend gets the same value.
//
//  - Inputs: one per square, X = +1, O = -1, empty 0 (square = 3 * row + col).
//  - Parameters: each a 5-bit gene g (most significant bit first), value -8 + g / 2, i.e.
//    -8 .. 7.5 in steps of 1/2. Stored here in half units (2 * value = g - 16, -16 .. 15), so
//    every sum below is an exact integer in half units.
//  - A hidden unit is a threshold unit: output 1 when its weighted input sum reaches its
//    threshold (sum >= threshold), else 0.
//  - The output unit is linear: its weighted sum of the second hidden layer minus its threshold,
//    in half units (|value| <= 5 * 16 + 16 = 96). A thresholded output would value every
//    unfinished board 0 or 1, leaving minimax nothing to choose between.
//
// Topologies (the source is inconsistent: it states 95 weights + 23 thresholds = 590 bits, but a
// fully connected 9-18-5-1 net has 257 weights + 24 thresholds = 1,405 bits):
//  - kFull (default): 9 -> 18 -> 5 -> 1 fully connected. Genes: w1 (18 x 9, unit-major), t1 (18),
//    w2 (5 x 18), t2 (5), w3 (5), t3 (1): 281 genes, 1,405 bits.
//  - kPaper: the stated counts, read as a net whose first layer is a fixed encoding: unit 2j sees
//    square j with weight +1, unit 2j+1 with weight -1 (an X-detector and an O-detector per
//    square once their thresholds are evolved), then 18 -> 5 -> 1 fully connected, and no output
//    threshold. Genes: t1 (18), w2 (5 x 18), t2 (5), w3 (5): 95 weights + 23 thresholds, 118
//    genes, 590 bits. This reading is ours (the source does not say which weights are absent).
#pragma once
#include "evalforge/core/hd.hpp"
#include "evalforge/games/tictactoe/game.hpp"

namespace ef::tictactoe {

enum class Topology : u32 { kFull = 0, kPaper = 1 };

inline const char* topology_name(Topology t) { return t == Topology::kFull ? "full" : "paper"; }

constexpr int kHidden1 = 18, kHidden2 = 5;
constexpr int kGeneBits = 5;

EF_HD_INLINE int network_genes(Topology t) {
  return t == Topology::kFull ? kHidden1 * 9 + kHidden1 + kHidden2 * kHidden1 + kHidden2 + kHidden2 + 1
                              : kHidden1 + kHidden2 * kHidden1 + kHidden2 + kHidden2;
}
EF_HD_INLINE int network_bits(Topology t) { return network_genes(t) * kGeneBits; }

struct Network {
  Topology topology = Topology::kFull;
  signed char w1[kHidden1][9] = {};  // kFull only; half units
  signed char t1[kHidden1] = {};
  signed char w2[kHidden2][kHidden1] = {};
  signed char t2[kHidden2] = {};
  signed char w3[kHidden2] = {};
  signed char t3 = 0;  // kFull only

  // The board's value for X, in half units.
  EF_HD int value_for_x(const Board& b) const {
    int h1[kHidden1];
    for (int i = 0; i < kHidden1; ++i) {
      int sum = 0;
      if (topology == Topology::kFull) {
        for (int j = 0; j < 9; ++j) {
          const int x = (b.x >> j & 1) ? 1 : ((b.o >> j & 1) ? -1 : 0);
          sum += w1[i][j] * x;
        }
      } else {
        const int j = i / 2;
        const int x = (b.x >> j & 1) ? 1 : ((b.o >> j & 1) ? -1 : 0);
        sum = (i % 2 ? -2 : 2) * x;  // weight +-1 = +-2 half units
      }
      h1[i] = sum >= t1[i] ? 1 : 0;
    }
    int out = topology == Topology::kFull ? -t3 : 0;
    for (int k = 0; k < kHidden2; ++k) {
      int sum = 0;
      for (int i = 0; i < kHidden1; ++i) sum += w2[k][i] * h1[i];
      if (sum >= t2[k]) out += w3[k];
    }
    return out;
  }
};

// Decodes network_bits(t) bits (one per byte, 0 or 1) in the gene order above; gene g (5 bits,
// most significant first) becomes the half-unit value g - 16.
inline Network decode_network(const unsigned char* bits, Topology t) {
  Network n;
  n.topology = t;
  int at = 0;
  auto next = [&]() {
    int g = 0;
    for (int k = 0; k < kGeneBits; ++k) g = 2 * g + (bits[at++] & 1);
    return static_cast<signed char>(g - 16);
  };
  if (t == Topology::kFull)
    for (int i = 0; i < kHidden1; ++i)
      for (int j = 0; j < 9; ++j) n.w1[i][j] = next();
  for (int i = 0; i < kHidden1; ++i) n.t1[i] = next();
  for (int k = 0; k < kHidden2; ++k)
    for (int i = 0; i < kHidden1; ++i) n.w2[k][i] = next();
  for (int k = 0; k < kHidden2; ++k) n.t2[k] = next();
  for (int k = 0; k < kHidden2; ++k) n.w3[k] = next();
  if (t == Topology::kFull) n.t3 = next();
  return n;
}

// The network under the search (engine/alphabeta.hpp): values from the side to move; a
// finished game outranks every network value (|value| <= 96 half units).
struct NetworkEvaluator {
  const Network* network = nullptr;
  i32 win_value = 1000;
  EF_HD i32 eval(const Board& b) const {
    const int v = network->value_for_x(b);
    return b.side == kX ? v : -v;
  }
  EF_HD i32 exact(int score) const { return score * win_value; }
};

}  // namespace ef::tictactoe
