// EF_HD marks functions shared by the CPU backend and CUDA kernels: one body, two launchers.
// Under nvcc it expands to __host__ __device__, under g++ to nothing.
#pragma once
#include <cstdint>

#if defined(__CUDACC__)
#define EF_HD __host__ __device__
#define EF_HD_INLINE __host__ __device__ __forceinline__
#else
#define EF_HD
#define EF_HD_INLINE inline __attribute__((always_inline))
#endif

#if !defined(__CUDA_ARCH__) && defined(__BMI2__)
#include <immintrin.h>
#endif

namespace ef {

using u64 = std::uint64_t;
using u32 = std::uint32_t;
using i64 = std::int64_t;
using i32 = std::int32_t;

EF_HD_INLINE int popcount64(u64 x) {
#if defined(__CUDA_ARCH__)
  return __popcll(x);
#else
  return __builtin_popcountll(x);
#endif
}

EF_HD_INLINE int ctz64(u64 x) {  // x != 0
#if defined(__CUDA_ARCH__)
  return __ffsll(static_cast<long long>(x)) - 1;
#else
  return __builtin_ctzll(x);
#endif
}

EF_HD_INLINE int clz64(u64 x) {  // x != 0
#if defined(__CUDA_ARCH__)
  return __clzll(static_cast<long long>(x));
#else
  return __builtin_clzll(x);
#endif
}

// Parallel bit extract: the bits of x at the positions set in mask, packed from the lowest
// mask bit upwards. Hardware pext where the host has BMI2; the same result by a loop elsewhere
// (the device, or hosts without BMI2).
EF_HD_INLINE u64 pext64(u64 x, u64 mask) {
#if !defined(__CUDA_ARCH__) && defined(__BMI2__)
  return _pext_u64(x, mask);
#else
  u64 out = 0;
  int k = 0;
  while (mask) {
    u64 low = mask & (~mask + 1);
    if (x & low) out |= u64{1} << k;
    ++k;
    mask &= mask - 1;
  }
  return out;
#endif
}

}  // namespace ef
