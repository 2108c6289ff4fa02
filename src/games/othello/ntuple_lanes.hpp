// How the CUDA backend's warp of 32 lanes shares the 8*m features of one sample (see
// cuda/train_kernels.cu), as EF_HD code: the kernels call it, and host tests check it against
// ntuple::feature_indices without a GPU.
//
// Feature f = 8*i + s (tuple i on symmetry image s, feature_indices' layout) belongs to lane
// f % 32, as its slot f / 32. Since 32 is a multiple of 8, every feature of lane l has the same
// image s = l % 8 and the tuples i = l/8 + 4j, j = 0, 1, ...: at most kMaxTuples / 4 indices a
// lane, each read from the original board through the feature's square list.
#pragma once
#include "evalforge/core/hd.hpp"
#include "evalforge/games/othello/bitboard.hpp"
#include "evalforge/games/othello/ntuple.hpp"

// Unrolled on the device (register arrays need constant indices); the host compiler ignores it.
#if defined(__CUDA_ARCH__)
#define EF_UNROLL _Pragma("unroll")
#else
#define EF_UNROLL
#endif

namespace ef::ntuple {

constexpr int kLanes = 32;
constexpr int kLaneSlots = 8 * kMaxTuples / kLanes;  // features of one lane at most
static_assert(8 * kMaxTuples % kLanes == 0, "lanes must split the features evenly");
static_assert(kLanes % 8 == 0, "a lane must keep one symmetry for all its features");

// The squares every feature reads, in digit order (ntuple::image_squares), for the whole
// network. Built once per job (in shared memory on the device, by the lanes together), so that a
// lane computes a feature index from the original board by multiply-adds: no symmetry images
// and no pext loops per sample. 6.5 KiB.
struct FeatureSquares {
  std::uint8_t square[8 * kMaxTuples][kMaxTupleSize];  // digit j of feature f is the state of square[f][j]
  std::uint8_t count[8 * kMaxTuples];                  // digits of feature f (its tuple's size)
};

// Features first, first + step, ... of g (the lanes of a warp or block share the work).
EF_HD_INLINE void build_feature_squares(const Geometry& g, FeatureSquares& t, int first, int step) {
  for (int f = first; f < g.num_features(); f += step) {
    int sq[kMaxTupleSize];
    const int n = image_squares(g.mask[f / 8], f % 8, sq);
    t.count[f] = static_cast<std::uint8_t>(n);
    for (int j = 0; j < kMaxTupleSize; ++j) t.square[f][j] = static_cast<std::uint8_t>(j < n ? sq[j] : 0);
  }
}

// A lane's tuples: it owns features lane + 32 j, i.e. tuples i = lane/8 + 4j on image lane % 8.
// In the kernel these live in registers: they are indexed only inside unrolled loops, by constants.
struct LaneGeometry {
  u32 offset[kLaneSlots];
  int slots;   // tuples this lane owns: i = lane/8 + 4j for j < slots
  int digits;  // the network's largest tuple size: the same loop bound on every lane
};

// Feature number (index into feature_indices' output) of slot j of `lane`.
EF_HD_INLINE int lane_feature(int lane, int slot) { return lane + kLanes * slot; }

EF_HD_INLINE LaneGeometry lane_geometry(const Geometry& g, int lane) {
  LaneGeometry lg;
  const int first = lane >> 3;
  lg.slots = g.num_tuples > first ? (g.num_tuples - first + 3) / 4 : 0;
  lg.digits = 0;
  for (int i = 0; i < g.num_tuples; ++i) {
    const int n = popcount64(g.mask[i]);
    if (n > lg.digits) lg.digits = n;
  }
  EF_UNROLL
  for (int j = 0; j < kLaneSlots; ++j) {
    const int i = first + 4 * j;
    lg.offset[j] = i < g.num_tuples ? g.offset[i] : 0;
  }
  return lg;
}

// sum_j 3^j (2 black[sq_j] + white[sq_j]) over the first `count` of the squares, by Horner's
// rule from digit `digits` - 1 down: every lane runs the same `digits` iterations (no
// divergence) and keeps its value unchanged above its own tuple's size.
EF_HD_INLINE u32 squares_index(const std::uint8_t* squares, int count, int digits, u64 black, u64 white) {
  u32 v = 0;
  for (int j = digits - 1; j >= 0; --j) {
    const int q = squares[j];
    const u32 digit = 2 * static_cast<u32>((black >> q) & 1) + static_cast<u32>((white >> q) & 1);
    v = j < count ? 3 * v + digit : v;
  }
  return v;
}

// The lane's share of feature_indices(g, black, white, out): idx[j] = out[lane_feature(lane, j)].
EF_HD_INLINE void lane_features(const LaneGeometry& lg, const FeatureSquares& t, int lane, u64 black, u64 white,
                                u32 (&idx)[kLaneSlots]) {
  EF_UNROLL
  for (int j = 0; j < kLaneSlots; ++j)
    if (j < lg.slots) {
      const int f = lane_feature(lane, j);
      idx[j] = lg.offset[j] + squares_index(t.square[f], t.count[f], lg.digits, black, white);
    }
}

}  // namespace ef::ntuple
