// The CUDA backend's host side, in four parts: the device memory helpers (device_memory.hpp), the
// class CudaBackend (cuda_backend_impl.hpp), its training path (cuda_train.cpp: resident position
// sets, per-batch planning, uploads, the launch, the results) and its self-play path
// (cuda_play.cpp: agents on the device, play batches). The kernels are in the .cu files
// (train_kernels.cu, play_kernels.cu).
//
// This file: the backend's construction and the public entry points of cuda_backend.hpp (device
// checks and information, make_cuda_backend, the batch statistics, the feature test kernel).
#include "cuda/cuda_backend.hpp"
#include <cuda_runtime.h>
#include <fmt/format.h>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>
#include "core/parallel.hpp"
#include "cuda/cuda_backend_impl.hpp"
#include "cuda/device_memory.hpp"
#include "cuda/train_kernels.hpp"
#include "evalforge/core/error.hpp"

namespace ef {

namespace cuda::detail {

CudaBackend::CudaBackend(int threads, int device) : threads_(resolve_threads(threads)) {
  // CUDA's current device belongs to the host thread: this thread uses `device` from here on.
  check(cudaSetDevice(device), fmt::format("selecting device {}", device));
  check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "creating a stream");
  const auto info = cuda_device_info();
  name_ =
      info ? fmt::format("cuda{} ({}, {} SMs, {:.0f} GiB)", device == 0 ? "" : fmt::format(" device {}", device),
                         info->name, info->multiprocessors, static_cast<double>(info->global_memory_bytes) / (1u << 30))
           : std::string("cuda");
}

CudaBackend::~CudaBackend() {
  arena_.release();
  agents_ = {};
  sets_.clear();
  if (stream_) cudaStreamDestroy(stream_);
}

}  // namespace cuda::detail

using cuda::detail::check;
using cuda::detail::CudaBackend;
using cuda::detail::current_device;
using cuda::detail::describe;
using cuda::detail::DeviceBuffer;

bool cuda_device_available(std::string* why) {
  auto say = [&](std::string text) {
    if (why) *why = std::move(text);
    return false;
  };
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) {
    cudaGetLastError();  // not sticky, but leave no error behind
    return say(fmt::format("no CUDA device: {}", describe(e)));
  }
  if (count == 0) return say("no CUDA device: the CUDA runtime sees none (check CUDA_VISIBLE_DEVICES)");
  cudaFuncAttributes attributes{};
  const cudaError_t k = cuda::train_kernel_attributes(&attributes);
  if (k != cudaSuccess) {
    cudaGetLastError();
    cudaDeviceProp p{};
    const bool known = cudaGetDeviceProperties(&p, 0) == cudaSuccess;
    cudaGetLastError();
    return say(fmt::format(
        "no CUDA device: device 0{} cannot run this build's kernels: {} (configure with "
        "CMAKE_CUDA_ARCHITECTURES for it)",
        known ? fmt::format(" ({}, compute capability {}.{})", p.name, p.major, p.minor) : "", describe(k)));
  }
  if (why) why->clear();
  return true;
}

std::optional<CudaDeviceInfo> cuda_device_info(std::string* why) {
  if (!cuda_device_available(why)) return std::nullopt;
  cudaDeviceProp p{};
  const int device = current_device();
  check(cudaGetDeviceProperties(&p, device), "reading device properties");
  CudaDeviceInfo info;
  info.name = p.name;
  info.compute_major = p.major;
  info.compute_minor = p.minor;
  info.multiprocessors = p.multiProcessorCount;
  info.global_memory_bytes = p.totalGlobalMem;
  info.l2_bytes = static_cast<std::size_t>(p.l2CacheSize);
  int clock_khz = 0;
  // CUDA 13 dropped memoryClockRate from cudaDeviceProp; the attribute remains.
  if (cudaDeviceGetAttribute(&clock_khz, cudaDevAttrMemoryClockRate, device) == cudaSuccess && clock_khz > 0 &&
      p.memoryBusWidth > 0) {
    info.memory_bandwidth_bytes_per_s = 2.0 * clock_khz * 1e3 * (p.memoryBusWidth / 8.0);  // double data rate
    info.bandwidth_from_device = true;
  } else {
    cudaGetLastError();
    info.memory_bandwidth_bytes_per_s = 4.8e12;  // H200 datasheet
  }
  return info;
}

std::unique_ptr<Backend> make_cuda_backend(int threads, int device) {
  std::string why;
  if (!cuda_device_available(&why)) fail("{}", why);
  int count = 0;
  check(cudaGetDeviceCount(&count), "cudaGetDeviceCount");
  if (device < 0 || device >= count)
    fail("no CUDA device {}: the runtime sees {} (numbered 0..{} as CUDA_VISIBLE_DEVICES lists them)", device, count,
         count - 1);
  return std::make_unique<CudaBackend>(threads, device);
}

std::optional<CudaBatchStats> cuda_batch_stats(const Backend& backend) {
  const auto* cuda = dynamic_cast<const CudaBackend*>(&backend);
  return cuda ? cuda->stats() : std::nullopt;
}

std::vector<std::uint32_t> cuda_feature_indices(const ntuple::Geometry& geometry, std::span<const u64> black,
                                                std::span<const u64> white) {
  std::string why;
  if (!cuda_device_available(&why)) fail("{}", why);
  if (black.size() != white.size())
    fail("cuda_feature_indices: {} black but {} white boards", black.size(), white.size());
  if (geometry.num_tuples < 1 || geometry.num_tuples > ntuple::kMaxTuples)
    fail("cuda_feature_indices: a geometry of {} tuples", geometry.num_tuples);
  const std::size_t n = black.size(), nf = static_cast<std::size_t>(geometry.num_features());
  DeviceBuffer g(sizeof geometry, "a geometry"), b(n * sizeof(u64), "boards"), w(n * sizeof(u64), "boards"),
      out(n * nf * sizeof(std::uint32_t), "feature indices");
  check(cudaMemcpy(g.get(), &geometry, sizeof geometry, cudaMemcpyHostToDevice), "uploading a geometry");
  check(cudaMemcpy(b.get(), black.data(), n * sizeof(u64), cudaMemcpyHostToDevice), "uploading boards");
  check(cudaMemcpy(w.get(), white.data(), n * sizeof(u64), cudaMemcpyHostToDevice), "uploading boards");
  check(cuda::launch_feature_indices(reinterpret_cast<const ntuple::Geometry*>(g.get()),
                                     reinterpret_cast<const u64*>(b.get()), reinterpret_cast<const u64*>(w.get()),
                                     static_cast<int>(n), reinterpret_cast<std::uint32_t*>(out.get()), nullptr),
        "launching the feature kernel");
  std::vector<std::uint32_t> result(n * nf);
  check(cudaMemcpy(result.data(), out.get(), result.size() * sizeof(std::uint32_t), cudaMemcpyDeviceToHost),
        "reading feature indices");
  return result;
}

}  // namespace ef
