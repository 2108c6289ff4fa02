// The CPU backend: the reference implementation of the backend interface. Jobs are independent
// and each runs start to finish on one worker thread, so results cannot depend on the thread
// count; the arithmetic is the shared EF_HD integer code of ntuple.hpp.
#include <algorithm>
#include <atomic>
#include <memory>
#include <exception>
#include <mutex>
#include <numeric>
#include <thread>
#include "backend_cpu/train_body.hpp"
#include "evalforge/backend.hpp"
#include "evalforge/core/error.hpp"
#include "evalforge/core/parallel.hpp"
#include "evalforge/core/rng.hpp"
#include "evalforge/cuda_backend.hpp"

namespace ef {

void shuffle_ids(std::span<std::uint32_t> ids, u64 seed, std::uint32_t stream0, std::uint32_t stream1,
                 std::uint32_t epoch) {
  Rng rng(seed, Purpose::kShuffle, stream0, stream1, epoch);
  for (std::size_t i = ids.size(); i > 1; --i) {
    const std::size_t j = rng.below(static_cast<u32>(i));
    std::swap(ids[i - 1], ids[j]);
  }
}

namespace {

class CpuBackend final : public Backend {
 public:
  explicit CpuBackend(int threads)
      : threads_(threads > 0 ? threads : std::max(1u, std::thread::hardware_concurrency())) {}
  std::string name() const override { return fmt::format("cpu ({} threads)", threads_); }

  int add_positions(const PositionData& data) override {
    sets_.push_back(data);
    return static_cast<int>(sets_.size()) - 1;
  }

  int add_agent(const play::Agent& agent) override {
    agent.validate();
    agents_.push_back(std::make_unique<StoredAgent>(agent));
    return static_cast<int>(agents_.size()) - 1;
  }

  void update_agent(int handle, const play::Agent& agent) override {
    if (handle < 0 || handle >= static_cast<int>(agents_.size())) fail("backend: no agent with handle {}", handle);
    agent.validate();
    agents_[handle] = std::make_unique<StoredAgent>(agent);
  }

  void play(std::span<const GameJob> jobs, std::span<play::GameRecord> results) override {
    if (jobs.size() != results.size()) fail("backend: {} games but {} result slots", jobs.size(), results.size());
    for (const GameJob& j : jobs)
      for (int h : {j.black, j.white})
        if (h < 0 || h >= static_cast<int>(agents_.size())) fail("backend: a game names no valid agent ({})", h);
    std::atomic<std::size_t> next{0};
    auto worker = [&] {
      // Each worker owns a transposition table for the exact solves; it changes node counts
      // only, never a move (play.hpp).
      std::vector<search::endgame::HashEntry> entries(std::size_t{1} << kTableBits);
      search::endgame::HashTable table{entries.data(), entries.size() - 1, 0};
      for (std::size_t k; (k = next.fetch_add(1)) < jobs.size();) {
        const GameJob& j = jobs[k];
        play::play_game(agents_[j.black]->params, agents_[j.white]->params, j.start, j.seed, j.game, results[k], &table);
      }
    };
    run_parallel(static_cast<int>(std::min<std::size_t>(threads_, jobs.size())), worker);
  }

  void train(std::span<const TrainJob> jobs, std::span<TrainResult> results) override {
    if (jobs.size() != results.size()) fail("backend: {} jobs but {} result slots", jobs.size(), results.size());
    for (const TrainJob& j : jobs)
      if (j.positions < 0 || j.positions >= static_cast<int>(sets_.size()) || !j.geometry)
        fail("backend: a training job names no valid position set or geometry");
    std::atomic<std::size_t> next{0};
    auto worker = [&] {
      cpu::TrainScratch scratch;
      for (std::size_t k; (k = next.fetch_add(1)) < jobs.size();)
        cpu::train_job(sets_[jobs[k].positions], jobs[k], results[k], scratch);
    };
    run_parallel(static_cast<int>(std::min<std::size_t>(threads_, jobs.size())), worker);
  }

 private:
  // An agent's own copy, and the evaluator and parameters that point into it. Held by pointer
  // and never copied, so the pointers stay valid as agents are added.
  struct StoredAgent {
    explicit StoredAgent(const play::Agent& a) : agent(a), evaluator(agent.ntuple_evaluator()), params(agent.params(&evaluator)) {}
    StoredAgent(const StoredAgent&) = delete;
    StoredAgent& operator=(const StoredAgent&) = delete;
    play::Agent agent;
    ntuple::Evaluator evaluator;
    play::AgentParams params;
  };
  static constexpr int kTableBits = 18;  // 2^18 entries (6 MiB) per worker

  int threads_;
  std::vector<PositionData> sets_;
  std::vector<std::unique_ptr<StoredAgent>> agents_;
};

}  // namespace

std::unique_ptr<Backend> make_cpu_backend(int threads) { return std::make_unique<CpuBackend>(threads); }

// Builds without nvcc: the CUDA entry points exist and say why there is no CUDA backend.
// With nvcc, EF_HAVE_CUDA is defined publicly on evalforge_lib and cuda/cuda_backend.cpp
// defines them instead.
#if !defined(EF_HAVE_CUDA)
namespace {
constexpr const char* kNoCudaBackend =
    "no CUDA backend: this build has none (nvcc was not found at configure time, or EF_ENABLE_CUDA=OFF)";
}  // namespace

bool cuda_device_available(std::string* why) {
  if (why) *why = kNoCudaBackend;
  return false;
}
std::unique_ptr<Backend> make_cuda_backend(int) { fail("{}", kNoCudaBackend); }
std::optional<CudaDeviceInfo> cuda_device_info(std::string* why) {
  if (why) *why = kNoCudaBackend;
  return std::nullopt;
}
std::optional<CudaBatchStats> cuda_batch_stats(const Backend&) { return std::nullopt; }
std::vector<std::uint32_t> cuda_feature_indices(const ntuple::Geometry&, std::span<const u64>, std::span<const u64>) {
  fail("{}", kNoCudaBackend);
}
#endif

std::unique_ptr<Backend> make_backend(std::string_view kind, int threads) {
  if (kind == "cpu") return make_cpu_backend(threads);
  std::string why;
  const bool cuda = cuda_device_available(&why);
  if (kind == "cuda") {
    if (!cuda) fail("--backend cuda: {}", why);
    return make_cuda_backend(threads);
  }
  if (kind == "auto") return cuda ? make_cuda_backend(threads) : make_cpu_backend(threads);
  fail("--backend: unknown backend '{}' (expected cpu, cuda or auto)", kind);
}

}  // namespace ef
