// The CUDA backend's entry points. Declared in every build: in a build without nvcc
// (EF_HAVE_CUDA undefined) they report that there is no CUDA backend instead, so callers
// (make_backend, `evalforge verify`, tests, benchmarks) need no #ifdef.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>
#include "evalforge/backends/backend.hpp"

namespace ef {

// Whether this build has CUDA kernels and a device that can run them. When not, `why` gets a
// one-line reason starting with "no CUDA device: " (no device, no or too old a driver, no
// kernel image for the device) or "no CUDA backend: " (built without nvcc). Never throws.
bool cuda_device_available(std::string* why = nullptr);

// The CUDA backend on `device` (as CUDA_VISIBLE_DEVICES numbers them). `threads`: host
// threads for the per-epoch sample orders (0 = all). Throws ef::Error when
// cuda_device_available() is false or there is no such device. CUDA's current device belongs
// to a host thread: the constructing thread selects `device`, so a backend on a device other
// than 0 must be used from the thread that made it (as `search --devices` does).
std::unique_ptr<Backend> make_cuda_backend(int threads, int device = 0);

struct CudaDeviceInfo {
  std::string name;
  int compute_major = 0, compute_minor = 0;
  int multiprocessors = 0;
  std::size_t global_memory_bytes = 0;
  std::size_t l2_bytes = 0;
  // Peak DRAM bandwidth from the device attributes (2 x memory clock x bus width); when the
  // attributes are unavailable, the H200's datasheet figure (4.8 TB/s) and bandwidth_from_device false.
  double memory_bandwidth_bytes_per_s = 0;
  bool bandwidth_from_device = false;
};
// The calling thread's current device (device 0 unless a backend selected another in this
// thread); nullopt (and `why`, as for cuda_device_available) when no device can be used.
std::optional<CudaDeviceInfo> cuda_device_info(std::string* why = nullptr);

// How the last Backend::train or Backend::play call of a CUDA backend was run: the batch is split into chunks
// that fit the device memory budget (free memory, or EF_CUDA_MEMORY_LIMIT_MB when set and
// smaller), one kernel launch per chunk.
struct CudaBatchStats {
  std::size_t jobs = 0;
  std::size_t chunks = 0;
  std::size_t budget_bytes = 0;            // the memory budget the chunks were planned against
  std::size_t largest_chunk_bytes = 0;     // device memory of the largest chunk
  std::size_t distinct_id_lists = 0;       // eval id lists uploaded (each distinct span once per chunk)
  std::size_t distinct_sample_orders = 0;  // per-epoch sample orders computed on the host
  double seconds = 0;                      // wall time of the train call
};
// nullopt unless `backend` is a CUDA backend that has run a batch.
std::optional<CudaBatchStats> cuda_batch_stats(const Backend& backend);

// Symmetric sampling on the device, for tests: the 8*m feature indices of every position
// (layout of ntuple::feature_indices: position-major, then out[8*i + s]) computed by the
// training kernel's own per-lane code. Throws ef::Error without a device.
std::vector<std::uint32_t> cuda_feature_indices(const ntuple::Geometry& geometry, std::span<const u64> black,
                                                std::span<const u64> white);

// Environment variable that caps the device memory a batch may use (tests force the batch
// splitting with it): a positive number of MiB.
inline constexpr const char* kCudaMemoryLimitEnv = "EF_CUDA_MEMORY_LIMIT_MB";

}  // namespace ef
