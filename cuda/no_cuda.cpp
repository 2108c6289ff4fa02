// The CUDA backend's entry points in a build without nvcc (or with EF_ENABLE_CUDA=OFF): they
// exist and say why there is no CUDA backend, so callers need no #ifdef. CMakeLists.txt compiles
// this file instead of the rest of this folder when there is no CUDA.
#include "cuda/cuda_backend.hpp"
#include "evalforge/core/error.hpp"

namespace ef {

namespace {
constexpr const char* kNoCudaBackend =
    "no CUDA backend: this build has none (nvcc was not found at configure time, or EF_ENABLE_CUDA=OFF)";
}  // namespace

bool cuda_device_available(std::string* why) {
  if (why) *why = kNoCudaBackend;
  return false;
}
std::unique_ptr<Backend> make_cuda_backend(int, int) { fail("{}", kNoCudaBackend); }
std::optional<CudaDeviceInfo> cuda_device_info(std::string* why) {
  if (why) *why = kNoCudaBackend;
  return std::nullopt;
}
std::optional<CudaBatchStats> cuda_batch_stats(const Backend&) { return std::nullopt; }
std::vector<std::uint32_t> cuda_feature_indices(const ntuple::Geometry&, std::span<const u64>, std::span<const u64>) {
  fail("{}", kNoCudaBackend);
}

}  // namespace ef
