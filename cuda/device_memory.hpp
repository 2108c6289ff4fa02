// Device memory for the CUDA backend's host side: CUDA status checks, the owning buffer, uploads
// and the memory budget's pieces (alignment, the reserve left to the runtime,
// EF_CUDA_MEMORY_LIMIT_MB). A header of its own because the backend's .cpp files (cuda_backend.cpp,
// cuda_train.cpp, cuda_play.cpp) all allocate and copy with them; the functions are inline and
// live in ef::cuda::detail, which nothing outside the backend names.
#pragma once
#include <cuda_runtime.h>
#include <fmt/format.h>
#include <cstddef>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include "cuda/cuda_backend.hpp"
#include "evalforge/core/error.hpp"

namespace ef::cuda::detail {

inline std::string describe(cudaError_t e) {
  return fmt::format("{} ({})", cudaGetErrorString(e), cudaGetErrorName(e));
}

inline void check(cudaError_t e, std::string_view what) {
  if (e != cudaSuccess) fail("CUDA backend: {}: {}", what, describe(e));
}

inline double mib(std::size_t bytes) { return static_cast<double>(bytes) / (1024.0 * 1024.0); }

// One cudaMalloc, freed on destruction.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(std::size_t bytes, std::string_view what) : size_(bytes) {
    if (bytes) check(cudaMalloc(&ptr_, bytes), fmt::format("cudaMalloc ({:.1f} MiB for {})", mib(bytes), what));
  }
  DeviceBuffer(DeviceBuffer&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), size_(std::exchange(o.size_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    if (this != &o) {
      release();
      ptr_ = std::exchange(o.ptr_, nullptr);
      size_ = std::exchange(o.size_, 0);
    }
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() { release(); }
  void release() {
    if (ptr_) cudaFree(ptr_);
    ptr_ = nullptr;
    size_ = 0;
  }
  std::byte* get() const { return static_cast<std::byte*>(ptr_); }
  std::size_t size() const { return size_; }

 private:
  void* ptr_ = nullptr;
  std::size_t size_ = 0;
};

template <typename T>
void upload(T* device, const T* host, std::size_t count, cudaStream_t stream, std::string_view what) {
  if (count) check(cudaMemcpyAsync(device, host, count * sizeof(T), cudaMemcpyHostToDevice, stream), what);
}

inline constexpr std::size_t kAlign = 256;
inline std::size_t aligned(std::size_t bytes) { return (bytes + kAlign - 1) / kAlign * kAlign; }

// Device memory left to the runtime (kernel stacks, launch queues) when planning against free memory.
inline std::size_t reserve_bytes(std::size_t total) { return (std::size_t{64} << 20) + total / 100; }

// EF_CUDA_MEMORY_LIMIT_MB, when set: a positive number of MiB.
inline std::optional<std::size_t> memory_limit_from_env() {
  const char* text = std::getenv(kCudaMemoryLimitEnv);
  if (!text || !*text) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(text, &end);
  if (end == text || *end != '\0' || !(v > 0) || v > 1e9)
    fail("{}: '{}' is not a positive number of MiB", kCudaMemoryLimitEnv, text);
  return static_cast<std::size_t>(v * 1024.0 * 1024.0);
}

// The calling thread's current device: 0 unless a backend made for another device selected it
// in this thread (`search --devices`: one thread and one backend per device).
inline int current_device() {
  int device = 0;
  check(cudaGetDevice(&device), "cudaGetDevice");
  return device;
}

}  // namespace ef::cuda::detail
