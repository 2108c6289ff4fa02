// Batched n-tuple training on the GPU: many independent jobs (individuals) at once, plain
// sequential SGD (or the CPU's mini-batch rule) inside each, bit-identical to the CPU
// reference (src/backends/cpu/train_body.cpp). The arithmetic is the shared EF_HD code of
// ntuple.hpp and ntuple_lanes.hpp: feature indices from the features' square lists (the same
// values as feature_indices), clamp_error, weight_step, evaluate and LossSums.
//
// Layout: one warp per job.
//   - A job is a chain of dependent steps (sample k+1 reads the weights sample k wrote), so the
//     parallelism is across jobs; a generation of the shape search has hundreds (800 in the
//     paper's setup), enough warps to cover a GPU. Within a job, the warp's 32 lanes share
//     the 8*m (tuple, symmetry) features of one sample: feature f = 8*i + s (the layout of
//     ntuple::feature_indices) goes to lane f % 32. As 32 is a multiple of 8, every feature
//     of lane l has the same symmetry s = l % 8: the lane computes the indices of tuples l/8,
//     l/8 + 4, ... (at most kMaxTuples/4 = 16) on image s. It does so from the original board:
//     the warp builds, once per job, the list of board squares each feature reads (6.5 KiB of
//     shared memory), and an index is then a Horner sum over the squares' states, the same
//     number of steps on every lane (the network's largest tuple size): no per-sample symmetry
//     images, no software pext loops (about 1,300 instructions a sample a lane before, about 8
//     per square now). The mapping is EF_HD code in ntuple_lanes.hpp, checked against
//     feature_indices on the host.
//   - Prediction: each lane sums its weights into an int64, the warp adds the 32 partial sums
//     (cub::WarpReduce). Integer addition is associative, so this order-free sum equals the
//     CPU's sequential evaluate_indices bit for bit; every lane then derives the same clamped
//     error and the same step.
//   - Update: integer atomicAdd on the job's int32 weights. Two features of one sample can hit
//     the same weight (a tuple mapped onto itself by an image, e.g. the four corners, or the
//     all-empty pattern of a tuple under several images): the atomics make both adds land,
//     in either order, with the same result as the CPU's sequential adds. The add is done on
//     the weights reinterpreted as uint32: two's-complement wrap-around, which is exactly
//     ntuple::add_weight. Only the step (the same on every lane) matters, so a zero step
//     skips the adds altogether.
//   - Ordering: after its adds every lane fences (__threadfence_block: the table belongs to
//     this block's one warp, so no GPU-wide fence is needed) and the warp meets at __syncwarp
//     before any lane reads weights for the next sample, so sample k+1 sees all of sample k's
//     updates. Weights are read with ld.global.cg (L2, the point where the atomics
//     are performed) so that no stale L1 line can be read.
//   - Why int32 weights: 4 bytes a weight halves the memory traffic of the gathers and the
//     atomic read-modify-writes against int64, native 32-bit atomics exist, and integers make
//     the sum order-free (a float sum over a warp would depend on the reduction tree).
//   - Latency hiding: the boards and label of sample k+1 are loaded before sample k's gather,
//     and its feature indices (pure ALU) are computed while sample k's atomics are in flight,
//     before the fence that waits for them; its weight lines are then prefetched into L2.
//   - Mini-batches (batch_size B > 1), exactly the CPU's rule: the errors of the B samples are
//     taken with the weights as they were before the batch (gathers only, no fence needed
//     between them), their steps and feature indices are kept in a per-job scratch (B int32
//     and B * 8m uint32: the indices are computed once per sample), then all updates are
//     applied (integer adds commute), then the fence.
//   - Evaluation: after training, each lane evaluates whole validation positions with
//     ntuple::evaluate itself (the CPU's call), 32 positions at a time; the warp adds the
//     lanes' LossSums (integers again, order-free).
//
// Memory: per job its weights, the square lists (shared memory) and, for mini-batches, one
// batch's steps and indices. Indices are computed per sample, as on the CPU backend: stored for
// every training position they would be n * 8m words a job, 24 GB at 800 jobs x 77,000
// positions x 96 features, and on the GPU their ALU work is done while the previous sample's
// atomics travel. On an H200 (docs/cuda.md, "Measured on an H200") a 64-job batch runs one
// chain in 0.24 s (0.78 us a sample) and the paper's 800 jobs take 0.96 s: memory-bound.
//
// L2: a warp's working set is the part of its weight table its positions actually touch; at
// one move number most tuple patterns never occur, so that part is smaller than the table (an
// Edax-size table is 0.9 MB; 800 of them are 0.7 GB against the H200's 60 MiB L2). Weight
// reads and atomics both go to L2, so what stays hot there is served without DRAM traffic; but
// measured, a paper generation takes 50% of the time DRAM needs with every access a missed
// 32-byte sector, so at 800 jobs that hot part does not fit either. Pinning
// (cudaAccessPolicyWindow) would cover one window, not 800 tables, and is not used.
// bench/gpu_bench reports the DRAM-bound time with every access a miss as the pessimistic
// physical bound.
#include <cuda_runtime.h>
#include <cub/warp/warp_reduce.cuh>
#include "cuda/train_kernels.hpp"
#include "evalforge/games/othello/ntuple.hpp"
#include "games/othello/ntuple_lanes.hpp"

namespace ef::cuda {

namespace {

constexpr int kWarpSize = ntuple::kLanes;
constexpr unsigned kFullMask = 0xFFFFFFFFu;
constexpr int kSlots = ntuple::kLaneSlots;
using ntuple::FeatureSquares;
using ntuple::lane_features;
using ntuple::lane_geometry;
using ntuple::LaneGeometry;

using WarpSumI64 = cub::WarpReduce<i64>;
using WarpSumU64 = cub::WarpReduce<u64>;

// Sum of the lane's weights at idx, read from L2 (see "Ordering" above).
__device__ __forceinline__ i64 lane_weight_sum(const LaneGeometry& lg, const i32* weights, const u32 (&idx)[kSlots]) {
  i64 sum = 0;
#pragma unroll
  for (int j = 0; j < kSlots; ++j)
    if (j < lg.slots) sum += __ldcg(weights + idx[j]);
  return sum;
}

// ntuple::add_weight(weights[idx[j]], step) for the lane's features, atomically: the uint32
// add wraps around exactly like add_weight's.
__device__ __forceinline__ void lane_add(const LaneGeometry& lg, i32* weights, const u32 (&idx)[kSlots], i32 step) {
#pragma unroll
  for (int j = 0; j < kSlots; ++j)
    if (j < lg.slots) atomicAdd(reinterpret_cast<unsigned int*>(weights + idx[j]), static_cast<unsigned int>(step));
}

// The warp's total of the lanes' values, on every lane.
__device__ __forceinline__ i64 warp_total(i64 partial, WarpSumI64::TempStorage& storage) {
  const i64 total = WarpSumI64(storage).Sum(partial);  // valid in lane 0
  __syncwarp();                                        // the temp storage may be reused by the next call
  return __shfl_sync(kFullMask, total, 0);
}

// Sample k+1 becomes visible to the warp only after every lane's adds for sample k. The job's
// table is touched by this warp only (one warp per block), so a block-scope fence orders the
// lane's atomics before its later reads as the other lanes see them; __syncwarp makes every
// lane wait for all of them.
__device__ __forceinline__ void publish_updates() {
  __threadfence_block();
  __syncwarp();
}

// Asks L2 for the lines of the lane's weights of a later sample: the gathers and atomics are
// served there, and a table line that is not yet in L2 then arrives while the current sample
// is still being stepped. A hint: it changes no value.
__device__ __forceinline__ void lane_prefetch(const LaneGeometry& lg, const i32* weights, const u32 (&idx)[kSlots]) {
#pragma unroll
  for (int j = 0; j < kSlots; ++j)
    if (j < lg.slots) asm volatile("prefetch.global.L2 [%0];" ::"l"(weights + idx[j]));
}

// One epoch of plain SGD (batch_size 1) over `samples` (position ids in this epoch's order).
__device__ void train_epoch_sgd(const DeviceJob& job, const LaneGeometry& lg, const FeatureSquares& squares, int lane,
                                const u32* samples, WarpSumI64::TempStorage& storage, ntuple::LossSums& loss) {
  const u32 n = job.num_train;
  if (n == 0) return;
  i32* const w = job.weights;
  u32 idx[kSlots], next_idx[kSlots];  // entries j >= lg.slots are never written or read
  const u32 first = samples[0];
  i64 label = job.label[first];
  lane_features(lg, squares, lane, job.black[first], job.white[first], idx);
  u32 next_id = n > 1 ? samples[1] : 0;
  for (u32 k = 0; k < n; ++k) {
    // The next sample's board and label (and the id after it) do not depend on the weights:
    // their loads are in flight while this sample is gathered and reduced.
    u64 next_black = 0, next_white = 0;
    i64 next_label = 0;
    u32 after_next = 0;
    const bool more = k + 1 < n;
    if (more) {
      next_black = job.black[next_id];
      next_white = job.white[next_id];
      next_label = job.label[next_id];
      if (k + 2 < n) after_next = samples[k + 2];
    }
    const i64 prediction = warp_total(lane_weight_sum(lg, w, idx), storage);
    const i64 e = ntuple::clamp_error(label - prediction);
    if (lane == 0) loss.add(e);
    const i32 step = ntuple::weight_step(e, job.rate);
    if (step != 0) lane_add(lg, w, idx, step);
    if (more) {
      lane_features(lg, squares, lane, next_black, next_white, next_idx);  // ALU while the adds travel
      lane_prefetch(lg, w, next_idx);
    }
    publish_updates();
#pragma unroll
    for (int j = 0; j < kSlots; ++j)
      if (j < lg.slots) idx[j] = next_idx[j];
    label = next_label;
    next_id = after_next;
  }
}

// One epoch with mini-batches of job.batch_size > 1 (train_body.cpp's rule).
__device__ void train_epoch_minibatch(const DeviceJob& job, const LaneGeometry& lg, const FeatureSquares& squares,
                                      int lane, const u32* samples, WarpSumI64::TempStorage& storage,
                                      ntuple::LossSums& loss) {
  const u32 n = job.num_train;
  const u32 batch = static_cast<u32>(job.batch_size);
  const int num_features = job.geometry->num_features();
  i32* const w = job.weights;
  u32 idx[kSlots];  // entries j >= lg.slots are never read
  for (u32 b0 = 0; b0 < n; b0 += batch) {
    const u32 b1 = n - b0 < batch ? n : b0 + batch;
    // Errors of the whole batch with the weights before the batch; each lane keeps its
    // features' indices in the job's scratch for the updates (its own entries only, so no
    // synchronisation is needed between the writes and the reads).
    for (u32 k = b0; k < b1; ++k) {
      const u32 id = samples[k];
      lane_features(lg, squares, lane, job.black[id], job.white[id], idx);
      u32* const kept = job.batch_indices + static_cast<std::size_t>(k - b0) * num_features;
#pragma unroll
      for (int j = 0; j < kSlots; ++j)
        if (j < lg.slots) kept[ntuple::lane_feature(lane, j)] = idx[j];
      const i64 e = ntuple::clamp_error(job.label[id] - warp_total(lane_weight_sum(lg, w, idx), storage));
      if (lane == 0) {
        loss.add(e);
        job.steps[k - b0] = ntuple::weight_step(e, job.rate);
      }
    }
    __syncwarp();  // lane 0's steps are visible to the warp
    // Then every update of the batch (integer adds commute: any order gives the CPU's bits).
    for (u32 k = b0; k < b1; ++k) {
      const i32 step = job.steps[k - b0];
      if (step == 0) continue;
      const u32* const kept = job.batch_indices + static_cast<std::size_t>(k - b0) * num_features;
#pragma unroll
      for (int j = 0; j < kSlots; ++j)
        if (j < lg.slots) idx[j] = kept[ntuple::lane_feature(lane, j)];
      lane_add(lg, w, idx, step);
    }
    publish_updates();
  }
}

// One warp (= one block) per job.
__global__ void __launch_bounds__(kWarpSize) train_kernel(const DeviceJob* jobs, int num_jobs) {
  // Raw storage: Geometry has default member initialisers, which __shared__ variables may not have.
  __shared__ alignas(ntuple::Geometry) unsigned char geometry_storage[sizeof(ntuple::Geometry)];
  __shared__ WarpSumI64::TempStorage sum_storage;
  __shared__ WarpSumU64::TempStorage loss_storage;
  __shared__ FeatureSquares squares;
  if (static_cast<int>(blockIdx.x) >= num_jobs) return;
  const DeviceJob job = jobs[blockIdx.x];
  const int lane = static_cast<int>(threadIdx.x);

  // The geometry in shared memory (evaluate reads it per tuple), then the lane's part in registers.
  static_assert(sizeof(ntuple::Geometry) % sizeof(u32) == 0);
  constexpr int kWords = sizeof(ntuple::Geometry) / sizeof(u32);
  const u32* src = reinterpret_cast<const u32*>(job.geometry);
  u32* dst = reinterpret_cast<u32*>(geometry_storage);
  for (int k = lane; k < kWords; k += kWarpSize) dst[k] = src[k];
  __syncwarp();
  const ntuple::Geometry& geometry = *reinterpret_cast<const ntuple::Geometry*>(geometry_storage);
  ntuple::build_feature_squares(geometry, squares, lane, kWarpSize);
  __syncwarp();
  const LaneGeometry lg = lane_geometry(geometry, lane);

  for (int epoch = 0; epoch < job.epochs; ++epoch) {
    ntuple::LossSums train_loss;  // meaningful in lane 0
    const u32* samples = job.epoch_samples[epoch];
    if (job.batch_size == 1)
      train_epoch_sgd(job, lg, squares, lane, samples, sum_storage, train_loss);
    else
      train_epoch_minibatch(job, lg, squares, lane, samples, sum_storage, train_loss);
    if (job.epoch_loss && lane == 0) job.epoch_loss[epoch] = train_loss;
  }

  // Validation loss with the trained weights (all updates published above).
  ntuple::LossSums mine;
  for (u32 k = static_cast<u32>(lane); k < job.num_eval; k += kWarpSize) {
    const u32 id = job.eval_ids[k];
    mine.add(
        ntuple::clamp_error(job.label[id] - ntuple::evaluate(geometry, job.weights, job.black[id], job.white[id])));
  }
  ntuple::LossSums total;
  total.squared = WarpSumU64(loss_storage).Sum(mine.squared);
  __syncwarp();
  total.absolute = WarpSumU64(loss_storage).Sum(mine.absolute);
  __syncwarp();
  total.count = WarpSumU64(loss_storage).Sum(mine.count);
  if (lane == 0) *job.eval_loss = total;
}

// Symmetric sampling for tests: one warp per position, the training kernel's lane code.
constexpr int kFeatureWarpsPerBlock = 4;
__global__ void __launch_bounds__(kFeatureWarpsPerBlock* kWarpSize)
    feature_indices_kernel(const ntuple::Geometry* geometry, const u64* black, const u64* white, int n, u32* out) {
  __shared__ FeatureSquares squares;
  const int warp = static_cast<int>(threadIdx.x) / kWarpSize;
  const int lane = static_cast<int>(threadIdx.x) % kWarpSize;
  const int p = static_cast<int>(blockIdx.x) * kFeatureWarpsPerBlock + warp;
  ntuple::build_feature_squares(*geometry, squares, static_cast<int>(threadIdx.x), kFeatureWarpsPerBlock * kWarpSize);
  __syncthreads();
  if (p >= n) return;
  const LaneGeometry lg = lane_geometry(*geometry, lane);
  u32 idx[kSlots];  // entries j >= lg.slots are never read
  lane_features(lg, squares, lane, black[p], white[p], idx);
  const std::size_t nf = static_cast<std::size_t>(geometry->num_features());
#pragma unroll
  for (int j = 0; j < kSlots; ++j)
    if (j < lg.slots)
      out[static_cast<std::size_t>(p) * nf + static_cast<std::size_t>(ntuple::lane_feature(lane, j))] = idx[j];
}

}  // namespace

cudaError_t launch_train(const DeviceJob* jobs, int num_jobs, cudaStream_t stream) {
  if (num_jobs <= 0) return cudaSuccess;
  train_kernel<<<num_jobs, kWarpSize, 0, stream>>>(jobs, num_jobs);
  return cudaGetLastError();
}

cudaError_t train_kernel_attributes(cudaFuncAttributes* attributes) {
  return cudaFuncGetAttributes(attributes, train_kernel);
}

cudaError_t launch_feature_indices(const ntuple::Geometry* geometry, const u64* black, const u64* white, int n,
                                   u32* out, cudaStream_t stream) {
  if (n <= 0) return cudaSuccess;
  const int blocks = (n + kFeatureWarpsPerBlock - 1) / kFeatureWarpsPerBlock;
  feature_indices_kernel<<<blocks, kFeatureWarpsPerBlock * kWarpSize, 0, stream>>>(geometry, black, white, n, out);
  return cudaGetLastError();
}

}  // namespace ef::cuda
