// One training job on the CPU: the loop around the shared EF_HD steps of ntuple.hpp.
//
// Why it looks like this (bench/search_bench, docs/training.md "CPU speed"): in the paper's
// setting a job trains on ~77,500 positions, and a buffer of their 8*m feature indices is
// ~30 MB read in shuffled order, so every sample waited on cache and TLB misses. The loop
// therefore computes the indices of each sample when it is drawn, from the position's two
// bitboards (24 bytes, which stay in cache), and prefetches the weights of the next sample
// while the current one is stepped. How the indices are computed is a vector path chosen at
// run time (VectorPath); every path produces the same indices, so the same bits.
//
// A sample drawn at random costs one cache line beside its weights: the backend keeps a
// position set packed (both bitboards and the label in one 32-byte record, PackedPosition), and
// each epoch's shuffled order is turned into position ids before the loop reads it, so the loop
// reads the order in sequence and one record at random. Reading ids[order[k]] and three separate
// arrays cost four random lines a sample (docs/training.md, "CPU speed").
#pragma once
#include <memory>
#include <string>
#include <string_view>
#include <vector>
#include "evalforge/backends/backend.hpp"

namespace ef::cpu {

// How feature indices are computed: portable C++ (pext or its loop, as ntuple::feature_indices),
// AVX2 byte shuffles, or AVX-512 byte permutations (VBMI) with VNNI dot products.
enum class VectorPath { kPortable, kAvx2, kAvx512 };

const char* path_name(VectorPath p);
// The paths this CPU can run, best last. Portable is always there.
std::vector<VectorPath> available_paths();
// The path training uses: the best available, or the one named by the environment variable
// EF_CPU_PATH (portable|avx2|avx512; an unknown or unavailable name is an error).
VectorPath default_path();
// The path of that name; an error naming it when it is unknown or this CPU lacks it.
VectorPath path_from_name(std::string_view name);

// One position as the training loop reads it: a record of 32 bytes never straddles a line.
struct alignas(32) PackedPosition {
  u64 black = 0, white = 0;
  i64 label = 0;
  u64 unused = 0;
};
using PackedPositions = std::vector<PackedPosition>;
PackedPositions pack_positions(const PositionData& data);

struct TrainScratch {
  std::vector<u32> indices;           // one mini-batch of samples, num_features (padded) each
  std::vector<u32> order;             // one epoch's samples: position ids in the order they are stepped
  std::vector<i64> errors;            // one mini-batch
  std::vector<std::uint8_t> program;  // the job's feature program (vector paths)
};

void train_job(const PackedPositions& data, const TrainJob& job, TrainResult& result, TrainScratch& scratch,
               VectorPath path);
inline void train_job(const PackedPositions& data, const TrainJob& job, TrainResult& result, TrainScratch& scratch) {
  train_job(data, job, result, scratch, default_path());
}

}  // namespace ef::cpu
