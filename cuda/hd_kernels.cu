// Kernels that call the shared EF_HD bodies (rules, n-tuple index/eval/train step), so that
// every build with nvcc proves those headers compile for the device. The CUDA backend
// (issue 4) launches the same bodies; these are its first kernels.
//
// Random123 under nvcc 13: Random123/features/nvccfeatures.h needs CUDART_VERSION (it #errors
// without it) and so must see the CUDA runtime header first; nvcc force-includes
// cuda_runtime.h into every .cu, and this file includes it explicitly too, before rng.hpp.
// With that, philox.h compiles for sm_90 under nvcc 13.0 as C++20 with no further defines
// (checked: rng_kernel below).
#include <cuda_runtime.h>
#include "evalforge/core/rng.hpp"
#include "evalforge/games/othello/bitboard.hpp"
#include "evalforge/games/othello/swh.hpp"

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

// SWH values for black, in hundredths, of boards given by colours: one thread per board.
__global__ void swh_kernel(const u64* black, const u64* white, int n, int* values) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) values[i] = swh::evaluate_black(black[i], white[i]);
}

// Flips of many (player, opponent, square) triples: one thread per triple. On the device
// flips() is flips_portable(), which tests compare with the host's fast path bit for bit.
__global__ void flips_kernel(const u64* player, const u64* opponent, const int* square, int n, u64* flipped) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) flipped[i] = othello::flips(player[i], opponent[i], square[i]);
}

// Legal move sets of many positions: one thread per position.
__global__ void legal_moves_kernel(const u64* player, const u64* opponent, int n, u64* moves) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) moves[i] = othello::legal_moves(player[i], opponent[i]);
}

// Counter-based random numbers on the device: item i draws `per_item` values of each kind
// from Rng(seed, purpose, i), the same values the host draws for (seed, purpose, i).
__global__ void rng_kernel(u64 seed, u32 purpose, int n, int per_item, u32* words, u32* below_100, double* uniforms) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  Rng rng(seed, static_cast<Purpose>(purpose), static_cast<u32>(i));
  for (int k = 0; k < per_item; ++k) {
    words[i * per_item + k] = rng.next_u32();
    below_100[i * per_item + k] = rng.below(100);
    uniforms[i * per_item + k] = rng.uniform();
  }
}

}  // namespace ef::cuda
