// N-tuple network with symmetric sampling (docs/method.md 1.1, Eq. 1 and 2), in fixed point.
//
// Indexing. A tuple is a set of squares, stored in ascending square order; digit j of its
// index is the state of its j-th square (0 empty, 1 white, 2 black), least significant first:
// index = sum_j 3^j x(a_j) (Eq. 1). Symmetric sampling (Eq. 2) applies every tuple to all 8
// images of the board; the 8 placements share one weight table. With squares in ascending
// order, pext(image, mask) yields the tuple's binary digits in order, and a 2^n -> ternary
// table turns them into the index: two pext and two lookups per (tuple, image).
//
// Arithmetic. Weights are int32 in units of 2^-16 disc; a prediction is their int64 sum.
// Integer weights make training order-free where it matters (mini-batch updates commute) and
// bit-identical on every backend without any floating-point care. Errors are clamped to
// +-128 discs, which bounds every step.
#pragma once
#include "evalforge/core/hd.hpp"
#include "evalforge/games/othello/bitboard.hpp"

namespace ef::ntuple {

constexpr int kMaxTupleSize = 12;
constexpr int kMaxTuples = 64;
constexpr int kWeightShift = 16;              // weight unit = 2^-16 disc
constexpr i64 kOne = i64{1} << kWeightShift;  // one disc
constexpr i64 kMaxError = 128 * kOne;         // error clamp
constexpr int kRateShift = 24;                // learning-rate multiplier unit = 2^-24
constexpr int kLossShift = 8;                 // losses accumulate errors in units of 2^-8 disc

EF_HD_INLINE u32 pow3(int n) {
  u32 p = 1;
  for (int i = 0; i < n; ++i) p *= 3;
  return p;
}

// Binary digits (bit j set) -> the same digits in base 3: sum_j 3^j [bit j].
EF_HD_INLINE u32 binary_to_ternary_loop(u32 bits) {
  u32 t = 0, p = 1;
  for (; bits; bits >>= 1, p *= 3)
    if (bits & 1) t += p;
  return t;
}

#if !defined(__CUDA_ARCH__)
struct TernaryTable {
  u32 v[1u << kMaxTupleSize];
  constexpr TernaryTable() : v{} {
    for (u32 b = 0; b < (1u << kMaxTupleSize); ++b) {
      u32 t = 0, p = 1;
      for (u32 x = b; x; x >>= 1, p *= 3)
        if (x & 1) t += p;
      v[b] = t;
    }
  }
};
inline constexpr TernaryTable kTernary{};
#endif

EF_HD_INLINE u32 binary_to_ternary(u32 bits) {
#if defined(__CUDA_ARCH__)
  return binary_to_ternary_loop(bits);
#else
  return kTernary.v[bits];
#endif
}

// A network's geometry in a flat, device-copyable form.
struct Geometry {
  int num_tuples = 0;
  u64 mask[kMaxTuples] = {};        // squares of tuple i (ascending order is implied by the mask)
  u32 offset[kMaxTuples + 1] = {};  // weight-table start of tuple i; offset[num_tuples] = total
  EF_HD u32 num_weights() const { return offset[num_tuples]; }
  EF_HD int num_features() const { return 8 * num_tuples; }  // active weights per position
};

// Index of the tuple with square mask `mask` on the board image (black, white).
EF_HD_INLINE u32 tuple_index(u64 black, u64 white, u64 mask) {
  return 2 * binary_to_ternary(static_cast<u32>(pext64(black, mask))) +
         binary_to_ternary(static_cast<u32>(pext64(white, mask)));
}

// All 8*num_tuples weight positions (offset included) of one position, image-major:
// out[8*i + s] for tuple i on symmetry s.
EF_HD_INLINE void feature_indices(const Geometry& g, u64 black, u64 white, u32* out) {
  for (int s = 0; s < 8; ++s) {
    const u64 b = othello::symmetry(black, s), w = othello::symmetry(white, s);
    for (int i = 0; i < g.num_tuples; ++i) out[8 * i + s] = g.offset[i] + tuple_index(b, w, g.mask[i]);
  }
}

// The squares of the original board that digit j of tuple `mask` reads on symmetry image s,
// j = 0, 1, ... (ascending squares of the mask): digit j is the state of square a_j of image s,
// and image s has at a_j what the board has at the square that symmetry s moves onto a_j.
// So tuple_index(image s of (black, white), mask) = sum_j 3^j (2 black[sq_j] + white[sq_j]).
// Returns the number of squares. Feature programs of both backends are built from it.
EF_HD_INLINE int image_squares(u64 mask, int s, int* squares) {
  int n = 0;
  for (; mask; mask &= mask - 1) {
    const int a = ctz64(mask);
    int q = 0;
    while (othello::symmetry_square(q, s) != a) ++q;
    squares[n++] = q;
  }
  return n;
}

EF_HD_INLINE i64 evaluate_indices(const i32* weights, const u32* idx, int n) {
  i64 sum = 0;
  for (int k = 0; k < n; ++k) sum += weights[idx[k]];
  return sum;
}

// Eq. (2): the network's output for (black, white), in units of 2^-16 disc.
EF_HD_INLINE i64 evaluate(const Geometry& g, const i32* weights, u64 black, u64 white) {
  i64 sum = 0;
  for (int s = 0; s < 8; ++s) {
    const u64 b = othello::symmetry(black, s), w = othello::symmetry(white, s);
    for (int i = 0; i < g.num_tuples; ++i) sum += weights[g.offset[i] + tuple_index(b, w, g.mask[i])];
  }
  return sum;
}

EF_HD_INLINE i64 clamp_error(i64 e) { return e > kMaxError ? kMaxError : (e < -kMaxError ? -kMaxError : e); }

// The step of one weight for error e (units 2^-16) at rate multiplier `rate` (units 2^-24),
// rounded half away from zero so that positive and negative errors behave alike.
EF_HD_INLINE i32 weight_step(i64 e, u32 rate) {
  const i64 a = e < 0 ? -e : e;
  const i64 step = (a * static_cast<i64>(rate) + (i64{1} << (kRateShift - 1))) >> kRateShift;
  return static_cast<i32>(e < 0 ? -step : step);
}

// Weight update in two's-complement (wrap-around) arithmetic: defined behaviour, the same on
// every backend, and half the cost of a saturating add on the CPU's hot path (measured with
// bench/ntuple_bench). Errors are clamped, so only a diverging learning rate can wrap.
EF_HD_INLINE void add_weight(i32& w, i32 d) { w = static_cast<i32>(static_cast<u32>(w) + static_cast<u32>(d)); }

// Adds d to the weight of each of the n features (a feature met twice gets it twice). Feature
// counts are multiples of 8, a tuple's 8 images, so the loop goes eight at a time: the CPU then
// spends a load and an add on a feature where the rolled loop spent five instructions
// (docs/training.md, "CPU speed"). The same adds in the same order.
EF_HD_INLINE void add_to_weights(i32* weights, const u32* idx, int n, i32 d) {
  int k = 0;
  for (; k + 8 <= n; k += 8)
    for (int j = 0; j < 8; ++j) add_weight(weights[idx[k + j]], d);
  for (; k < n; ++k) add_weight(weights[idx[k]], d);
}

// One SGD step on squared error for a single position whose feature indices are known:
// e = y - F(x); every active weight moves by rate*e. Returns the clamped error before the step.
EF_HD_INLINE i64 sgd_step(i32* weights, const u32* idx, int n, i64 label, u32 rate) {
  const i64 e = clamp_error(label - evaluate_indices(weights, idx, n));
  add_to_weights(weights, idx, n, weight_step(e, rate));
  return e;
}

// Loss accumulation in exact integers (order-free): error rounded to 2^-8 disc.
struct LossSums {
  u64 squared = 0;   // sum of e8^2, e8 = error in units of 2^-8 disc (|e8| <= 2^15)
  u64 absolute = 0;  // sum of |e8|
  u64 count = 0;
  EF_HD void add(i64 e) {
    const i64 a = e < 0 ? -e : e;
    const i64 e8 = (a + (i64{1} << (kWeightShift - kLossShift - 1))) >> (kWeightShift - kLossShift);
    squared += static_cast<u64>(e8 * e8);
    absolute += static_cast<u64>(e8);
    ++count;
  }
  EF_HD void merge(const LossSums& o) {
    squared += o.squared;
    absolute += o.absolute;
    count += o.count;
  }
  EF_HD double mse() const {
    return count ? static_cast<double>(squared) / (65536.0 * static_cast<double>(count)) : 0.0;
  }
  EF_HD double mae() const {
    return count ? static_cast<double>(absolute) / (256.0 * static_cast<double>(count)) : 0.0;
  }
};

// Learning rate as the fraction of a position's error that one SGD step removes when all its
// features are distinct: per-weight rate = eta / num_features, as a 2^-24 multiplier.
inline u32 rate_multiplier(double eta, int num_features) {
  const double r = eta / num_features * static_cast<double>(1u << kRateShift);
  return r < 1 ? 1u : static_cast<u32>(r + 0.5);
}

EF_HD_INLINE i64 label_to_fixed(double label) {
  const double v = label * static_cast<double>(kOne);
  return static_cast<i64>(v < 0 ? v - 0.5 : v + 0.5);
}

}  // namespace ef::ntuple
