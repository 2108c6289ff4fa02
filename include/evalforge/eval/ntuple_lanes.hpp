// How the CUDA backend's warp of 32 lanes shares the 8*m features of one sample (see
// cuda/train_kernels.cu), as EF_HD code: the kernels call it, and host tests check it against
// ntuple::feature_indices without a GPU.
//
// Feature f = 8*i + s (tuple i on symmetry image s, feature_indices' layout) belongs to lane
// f % 32, as its slot f / 32. Since 32 is a multiple of 8, every feature of lane l has the same
// image s = l % 8 and the tuples i = l/8 + 4j, j = 0, 1, ...: a lane computes one image of the
// board per sample and at most kMaxTuples / 4 tuple indices.
#pragma once
#include "evalforge/core/hd.hpp"
#include "evalforge/eval/ntuple.hpp"
#include "evalforge/games/othello.hpp"

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

// A lane's tuples. In the kernel these live in registers: they are indexed only inside
// unrolled loops, by constants.
struct LaneGeometry {
  u64 mask[kLaneSlots];
  u32 offset[kLaneSlots];
  int slots;     // tuples this lane owns: i = lane/8 + 4j for j < slots
  int symmetry;  // lane % 8
};

// Feature number (index into feature_indices' output) of slot j of `lane`.
EF_HD_INLINE int lane_feature(int lane, int slot) { return lane + kLanes * slot; }

EF_HD_INLINE LaneGeometry lane_geometry(const Geometry& g, int lane) {
  LaneGeometry lg;
  lg.symmetry = lane & 7;
  const int first = lane >> 3;
  lg.slots = g.num_tuples > first ? (g.num_tuples - first + 3) / 4 : 0;
  EF_UNROLL
  for (int j = 0; j < kLaneSlots; ++j) {
    const int i = first + 4 * j;
    lg.mask[j] = i < g.num_tuples ? g.mask[i] : 0;
    lg.offset[j] = i < g.num_tuples ? g.offset[i] : 0;
  }
  return lg;
}

// The lane's share of feature_indices(g, black, white, out): idx[j] = out[lane_feature(lane, j)]
// = offset[i] + tuple_index(image s of black, image s of white, mask[i]), the same calls.
EF_HD_INLINE void lane_features(const LaneGeometry& lg, u64 black, u64 white, u32 (&idx)[kLaneSlots]) {
  const u64 b = othello::symmetry(black, lg.symmetry);
  const u64 w = othello::symmetry(white, lg.symmetry);
  EF_UNROLL
  for (int j = 0; j < kLaneSlots; ++j)
    if (j < lg.slots) idx[j] = lg.offset[j] + tuple_index(b, w, lg.mask[j]);
}

}  // namespace ef::ntuple
