// What every backend shares: choosing one by name, and the per-epoch sample order.
#include "evalforge/backends/backend.hpp"
#include <string>
#include "backends/cpu/cpu_backend.hpp"
#include "cuda/cuda_backend.hpp"
#include "evalforge/core/error.hpp"
#include "evalforge/core/rng.hpp"

namespace ef {

void shuffle_ids(std::span<std::uint32_t> ids, u64 seed, std::uint32_t stream0, std::uint32_t stream1,
                 std::uint32_t epoch) {
  Rng rng(seed, Purpose::kShuffle, stream0, stream1, epoch);
  for (std::size_t i = ids.size(); i > 1; --i) {
    const std::size_t j = rng.below(static_cast<u32>(i));
    std::swap(ids[i - 1], ids[j]);
  }
}

std::unique_ptr<Backend> make_backend(std::string_view kind, int threads, int device) {
  if (kind == "cpu") return make_cpu_backend(threads);
  std::string why;
  const bool cuda = cuda_device_available(&why);
  if (kind == "cuda") {
    if (!cuda) fail_input("backend", "cuda: {}", why);
    return make_cuda_backend(threads, device);
  }
  if (kind == "auto") return cuda ? make_cuda_backend(threads, device) : make_cpu_backend(threads);
  fail_input("backend", "unknown backend '{}' (expected cpu, cuda or auto)", kind);
}

}  // namespace ef
