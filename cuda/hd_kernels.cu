// Kernels that call the shared EF_HD bodies (rules, n-tuple index/eval/train step), so that
// every build with nvcc proves those headers compile for the device. The CUDA backend
// (issue 4) launches the same bodies; these are its first kernels.
#include <cuda_runtime.h>
#include "evalforge/games/othello.hpp"

namespace ef::cuda {

// Perft from many roots at once: one thread per root.
__global__ void perft_kernel(const u64* player, const u64* opponent, int n, int depth, u64* leaves) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) leaves[i] = othello::perft(player[i], opponent[i], depth);
}

// The 8 symmetric images of boards, as used by symmetric sampling.
__global__ void symmetry_kernel(const u64* boards, int n, u64* images) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    for (int s = 0; s < 8; ++s) images[8 * i + s] = othello::symmetry(boards[i], s);
}

}  // namespace ef::cuda
