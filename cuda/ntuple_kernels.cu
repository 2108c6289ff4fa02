// N-tuple kernels over the shared EF_HD bodies of ntuple.hpp. They compile in every build with
// nvcc (CI included); the CUDA backend of issue 4 builds its batched training on them.
#include <cuda_runtime.h>
#include "evalforge/core/rng.hpp"
#include "evalforge/games/othello/ntuple.hpp"

namespace ef::cuda {

// Evaluate one network on many positions: one thread per position.
__global__ void evaluate_kernel(const ntuple::Geometry* geometry, const i32* weights, const u64* black,
                                const u64* white, int n, i64* out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = ntuple::evaluate(*geometry, weights, black[i], white[i]);
}

// Plain SGD for many networks at once, one thread per network, samples in a given order:
// the simplest launcher of the shared step (the reference layout for the parity tests).
__global__ void sgd_thread_per_network_kernel(const ntuple::Geometry* geometries, i32* const* weights, int networks,
                                              const u64* black, const u64* white, const i64* label, const u32* order,
                                              int n, u32 rate, ntuple::LossSums* loss) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= networks) return;
  const ntuple::Geometry& g = geometries[k];
  u32 idx[8 * ntuple::kMaxTuples];
  ntuple::LossSums sums;
  for (int s = 0; s < n; ++s) {
    const u32 id = order[s];
    ntuple::feature_indices(g, black[id], white[id], idx);
    sums.add(ntuple::sgd_step(weights[k], idx, g.num_features(), label[id], rate));
  }
  loss[k] = sums;
}

}  // namespace ef::cuda
