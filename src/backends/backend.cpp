// What every backend shares: choosing one by name, and the per-epoch sample order.
#include "evalforge/backends/backend.hpp"
#include <set>
#include <string>
#include <tuple>
#include "backends/cpu/cpu_backend.hpp"
#include "backends/routing.hpp"
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

void validate_train_batch(std::span<const TrainJob> jobs, std::size_t result_slots,
                          const std::function<std::optional<std::size_t>(int)>& set_size) {
  if (jobs.size() != result_slots) fail("backend: {} jobs but {} result slots", jobs.size(), result_slots);
  std::set<std::tuple<const std::uint32_t*, std::size_t, int>> checked;  // (span, set) pairs seen
  auto check_ids = [&](std::span<const std::uint32_t> ids, int set, std::size_t n, std::size_t job, const char* what) {
    if (!checked.emplace(ids.data(), ids.size(), set).second) return;
    for (const std::uint32_t id : ids)
      if (id >= n) fail("backend: job {}: {} id {} is outside its position set of {} positions", job, what, id, n);
  };
  for (std::size_t k = 0; k < jobs.size(); ++k) {
    const TrainJob& j = jobs[k];
    const std::optional<std::size_t> n = set_size(j.positions);
    if (!n) fail("backend: job {}: position set {} does not exist (never added, or removed)", k, j.positions);
    if (!j.geometry) fail("backend: job {}: no geometry", k);
    if (j.params.batch_size < 1) fail("training: job {}: batch_size must be >= 1 (got {})", k, j.params.batch_size);
    if (j.params.epochs < 0) fail("training: job {}: epochs must be >= 0 (got {})", k, j.params.epochs);
    if (j.geometry->num_tuples < 1 || j.geometry->num_tuples > ntuple::kMaxTuples)
      fail("backend: job {}: a geometry of {} tuples (expected 1 to {})", k, j.geometry->num_tuples,
           ntuple::kMaxTuples);
    if (j.train_ids.size() > 0xFFFFFFFFu || j.eval_ids.size() > 0xFFFFFFFFu)
      fail("backend: job {}: more than 2^32 - 1 ids", k);
    if (!j.initial_weights.empty() && j.initial_weights.size() != static_cast<std::size_t>(j.geometry->num_weights()))
      fail("backend: job {}: {} initial weights for a geometry of {}", k, j.initial_weights.size(),
           j.geometry->num_weights());
    check_ids(j.train_ids, j.positions, *n, k, "training");
    check_ids(j.eval_ids, j.positions, *n, k, "evaluation");
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
  if (kind == "auto") return cuda ? make_routing_backend("cuda", threads, device) : make_cpu_backend(threads);
  fail_input("backend", "unknown backend '{}' (expected cpu, cuda or auto)", kind);
}

}  // namespace ef
