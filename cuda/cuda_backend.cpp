// The CUDA backend's host side: resident position sets, per-batch planning (deduplicated id
// lists and sample orders, memory budget, chunks), uploads, the launch, and the results.
// The kernels and the reasons for their layout are in train_kernels.cu.
//
// Per batch, only this goes to the device: the jobs' geometries; each distinct eval id list
// once (all individuals of an island share one span); each distinct per-epoch sample order
// once, computed here with the same ef::shuffle_ids as the CPU backend, keyed by (seed,
// stream0, stream1, epoch, train span) and stored already mapped to position ids; the job
// table. Back come the loss sums, and weights / epoch losses where asked for.
//
// Memory is planned from the problem: per job its weights (4 bytes each), mini-batch steps and
// indices,
// a few records; per chunk the id lists and orders its jobs use. The budget is the device's
// free memory (plus what this backend already holds, minus a reserve), or EF_CUDA_MEMORY_LIMIT_MB
// when that is smaller. Jobs are packed into chunks in order; each chunk is one launch, and
// since jobs are independent the results do not depend on the split. A job that does not fit
// even alone is an ef::Error that names the sizes.
//
// Self-play (add_agent / update_agent / play): an agent lives on the device in one allocation
// of its own -- its geometries, every network's weights and an ntuple::Evaluator whose Stage
// pointers point into that allocation -- plus a host copy of its AgentParams whose `ntuple`
// is the device evaluator; update_agent builds the new copy, then frees the old one. Per play
// batch: the AgentParams table, the games, the records and (when memory allows) a zeroed
// endgame table per game go into the same arena as training chunks, chunked to the same
// budget. The kernel and its layout: play_kernels.cu.
#include <cuda_runtime.h>
#include <fmt/format.h>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <map>
#include <numeric>
#include <thread>
#include <tuple>
#include <type_traits>
#include <utility>
#include "evalforge/core/error.hpp"
#include "evalforge/core/parallel.hpp"
#include "evalforge/cuda_backend.hpp"
#include "play_kernels.hpp"
#include "train_kernels.hpp"

namespace ef {

namespace {

// A mini-batch job's scratch: min(B, n) steps and min(B, n) samples' feature indices.
std::size_t minibatch_scratch_bytes(const TrainJob& j) {
  const std::size_t batch = std::min<std::size_t>(static_cast<std::size_t>(j.params.batch_size), j.train_ids.size());
  return batch * sizeof(i32) + batch * static_cast<std::size_t>(j.geometry->num_features()) * sizeof(u32);
}


std::string describe(cudaError_t e) { return fmt::format("{} ({})", cudaGetErrorString(e), cudaGetErrorName(e)); }

void check(cudaError_t e, std::string_view what) {
  if (e != cudaSuccess) fail("CUDA backend: {}: {}", what, describe(e));
}

// Copied to and from the device byte for byte.
static_assert(std::is_trivially_copyable_v<ntuple::Evaluator>);
#define EF_ASSERT_DEVICE_COPYABLE(G)                                                                        \
  static_assert(std::is_trivially_copyable_v<play::ParamsOf<G>> &&                                          \
                std::is_trivially_copyable_v<play::GameRecordOf<G>> && std::is_trivially_copyable_v<GameJobOf<G>>);
EF_FOR_EACH_PLAYOUT_GAME(EF_ASSERT_DEVICE_COPYABLE)
#undef EF_ASSERT_DEVICE_COPYABLE

double mib(std::size_t bytes) { return static_cast<double>(bytes) / (1024.0 * 1024.0); }

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

constexpr std::size_t kAlign = 256;
std::size_t aligned(std::size_t bytes) { return (bytes + kAlign - 1) / kAlign * kAlign; }

// Device memory left to the runtime (kernel stacks, launch queues) when planning against free memory.
std::size_t reserve_bytes(std::size_t total) { return (std::size_t{64} << 20) + total / 100; }

// EF_CUDA_MEMORY_LIMIT_MB, when set: a positive number of MiB.
std::optional<std::size_t> memory_limit_from_env() {
  const char* text = std::getenv(kCudaMemoryLimitEnv);
  if (!text || !*text) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(text, &end);
  if (end == text || *end != '\0' || !(v > 0) || v > 1e9)
    fail("{}: '{}' is not a positive number of MiB", kCudaMemoryLimitEnv, text);
  return static_cast<std::size_t>(v * 1024.0 * 1024.0);
}

struct ResidentSet {
  DeviceBuffer black, white, label;
  std::size_t size = 0;
};

// A span's identity: the same array (pointer and length). Jobs built from one id vector share it.
struct SpanKey {
  const std::uint32_t* data;
  std::size_t size;
  auto operator<=>(const SpanKey&) const = default;
};
SpanKey key_of(std::span<const std::uint32_t> s) { return {s.data(), s.size()}; }

// The sample order of one epoch: everything shuffle_ids is keyed by, plus the train span.
struct OrderKey {
  u64 seed;
  std::uint32_t stream0, stream1, epoch;
  SpanKey span;
  auto operator<=>(const OrderKey&) const = default;
};

// What a chunk of jobs needs on the device, section by section.
struct ChunkPlan {
  std::size_t first = 0, last = 0;   // jobs [first, last)
  std::vector<int> eval_lists;       // distinct eval lists, in first use order
  std::vector<int> orders;           // distinct sample orders, in first use order
  std::size_t bytes = 0;
};

// The calling thread's current device: 0 unless a backend made for another device selected it
// in this thread (`search --devices`: one thread and one backend per device).
int current_device() {
  int device = 0;
  check(cudaGetDevice(&device), "cudaGetDevice");
  return device;
}

class CudaBackend final : public Backend {
 public:
  CudaBackend(int threads, int device)
      : threads_(resolve_threads(threads)) {
    // CUDA's current device belongs to the host thread: this thread uses `device` from here on.
    check(cudaSetDevice(device), fmt::format("selecting device {}", device));
    check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "creating a stream");
    const auto info = cuda_device_info();
    name_ = info ? fmt::format("cuda{} ({}, {} SMs, {:.0f} GiB)", device == 0 ? "" : fmt::format(" device {}", device),
                               info->name, info->multiprocessors,
                               static_cast<double>(info->global_memory_bytes) / (1u << 30))
                 : std::string("cuda");
  }
  ~CudaBackend() override {
    arena_.release();
    agents_ = {};
    sets_.clear();
    if (stream_) cudaStreamDestroy(stream_);
  }

  std::string name() const override { return name_; }

  int add_positions(const PositionData& data) override {
    const std::size_t n = data.size();
    if (data.black.size() != n || data.white.size() != n)
      fail("backend: position set with {} labels but {} black and {} white boards", n, data.black.size(),
           data.white.size());
    ResidentSet s;
    s.size = n;
    const std::string what = fmt::format("position set {} ({} positions)", sets_.size(), n);
    s.black = DeviceBuffer(n * sizeof(u64), what);
    s.white = DeviceBuffer(n * sizeof(u64), what);
    s.label = DeviceBuffer(n * sizeof(i64), what);
    upload(reinterpret_cast<u64*>(s.black.get()), data.black.data(), n, stream_, "uploading positions");
    upload(reinterpret_cast<u64*>(s.white.get()), data.white.data(), n, stream_, "uploading positions");
    upload(reinterpret_cast<i64*>(s.label.get()), data.label.data(), n, stream_, "uploading positions");
    check(cudaStreamSynchronize(stream_), "uploading positions");
    sets_.push_back(std::move(s));
    return static_cast<int>(sets_.size()) - 1;
  }

  void train(std::span<const TrainJob> jobs, std::span<TrainResult> results) override;

#define EF_CUDA_PLAYOUT_METHODS(G)                                                              \
  int add_agent(const play::AgentOf<G>& agent) override {                                        \
    auto& list = std::get<DeviceAgents<G>>(agents_);                                             \
    list.push_back(upload_agent(agent, list.size()));                                            \
    return static_cast<int>(list.size()) - 1;                                                    \
  }                                                                                              \
  void update_agent(int handle, const play::AgentOf<G>& agent) override { replace_agent<G>(handle, agent); } \
  void play(std::span<const GameJobOf<G>> jobs, std::span<play::GameRecordOf<G>> results) override { \
    play_of<G>(jobs, results);                                                                   \
  }
  EF_FOR_EACH_PLAYOUT_GAME(EF_CUDA_PLAYOUT_METHODS)
#undef EF_CUDA_PLAYOUT_METHODS

  const std::optional<CudaBatchStats>& stats() const { return stats_; }

 private:
  // An agent on the device: its memory (for Othello's n-tuple agents the geometries, weights and
  // evaluator; none for self-contained parameters) and its parameters, whose pointers (if any)
  // point into that memory.
  template <class P>
  struct DeviceAgent {
    DeviceBuffer memory;
    P params{};
  };
  template <class G>
  using DeviceAgents = std::vector<DeviceAgent<play::ParamsOf<G>>>;
  // Othello: the n-tuple networks go to the device.
  DeviceAgent<play::AgentParams> upload_agent(const play::Agent& agent, std::size_t handle);
  // Any game whose parameters are self-contained: they are the whole device copy.
  template <class A>
  DeviceAgent<decltype(std::declval<const A&>().device_params())> upload_agent(const A& agent, std::size_t) {
    agent.validate();
    DeviceAgent<decltype(agent.device_params())> d;
    d.params = agent.device_params();
    return d;
  }
  template <class G>
  void replace_agent(int handle, const play::AgentOf<G>& agent) {
    auto& list = std::get<DeviceAgents<G>>(agents_);
    if (handle < 0 || handle >= static_cast<int>(list.size()))
      fail("backend: no {} agent with handle {}", play::Players<G>::kName, handle);
    // The new copy first: if it fails, the old one stays usable.
    auto fresh = upload_agent(agent, static_cast<std::size_t>(handle));
    list[handle] = std::move(fresh);  // frees the old device memory
  }
  template <class G>
  void ensure_play_stack();
  template <class G>
  void play_of(std::span<const GameJobOf<G>> jobs, std::span<play::GameRecordOf<G>> results);
  // Plays one chunk (one launch); returns the device bytes it used.
  template <class G>
  std::size_t play_chunk(std::span<const GameJobOf<G>> jobs, std::span<play::GameRecordOf<G>> results, bool tables);

  void validate(std::span<const TrainJob> jobs, std::span<TrainResult> results) const;
  void run_chunk(std::span<const TrainJob> jobs, std::span<TrainResult> results, const ChunkPlan& plan,
                 const std::vector<std::span<const std::uint32_t>>& eval_lists,
                 const std::vector<std::vector<std::uint32_t>>& orders, const std::vector<std::vector<int>>& job_orders,
                 const std::vector<int>& job_eval);

  int threads_;
  cudaStream_t stream_ = nullptr;
  std::string name_;
  std::vector<ResidentSet> sets_;
  // One list of device agents per playout game; the trailing int closes the macro's list.
#define EF_DEVICE_AGENTS_OF(G) DeviceAgents<G>,
  std::tuple<EF_FOR_EACH_PLAYOUT_GAME(EF_DEVICE_AGENTS_OF) int> agents_;
#undef EF_DEVICE_AGENTS_OF
  std::map<std::string, bool> play_stack_set_;  // by game (Players<G>::kName)
  DeviceBuffer arena_;  // the chunk memory (training and play), kept across batches and grown when a chunk needs more
  std::optional<CudaBatchStats> stats_;
};

void CudaBackend::validate(std::span<const TrainJob> jobs, std::span<TrainResult> results) const {
  if (jobs.size() != results.size()) fail("backend: {} jobs but {} result slots", jobs.size(), results.size());
  // An id out of range would be an illegal address on the device (and undefined behaviour on
  // the CPU): check every distinct (span, set) once.
  std::map<std::tuple<SpanKey, int>, bool> checked;
  auto check_ids = [&](std::span<const std::uint32_t> ids, int set, std::size_t job, const char* what) {
    if (!checked.emplace(std::tuple{key_of(ids), set}, true).second) return;
    const std::size_t n = sets_[set].size;
    for (const std::uint32_t id : ids)
      if (id >= n) fail("backend: job {}: {} id {} is outside its position set of {} positions", job, what, id, n);
  };
  for (std::size_t k = 0; k < jobs.size(); ++k) {
    const TrainJob& j = jobs[k];
    if (j.positions < 0 || j.positions >= static_cast<int>(sets_.size()) || !j.geometry)
      fail("backend: a training job names no valid position set or geometry");
    if (j.params.batch_size < 1) fail("training: batch_size must be >= 1 (got {})", j.params.batch_size);
    if (j.params.epochs < 0) fail("training: epochs must be >= 0 (got {})", j.params.epochs);
    if (j.geometry->num_tuples < 1 || j.geometry->num_tuples > ntuple::kMaxTuples)
      fail("backend: job {}: a geometry of {} tuples (expected 1 to {})", k, j.geometry->num_tuples,
           ntuple::kMaxTuples);
    if (j.train_ids.size() > 0xFFFFFFFFu || j.eval_ids.size() > 0xFFFFFFFFu)
      fail("backend: job {}: more than 2^32 - 1 ids", k);
    check_ids(j.train_ids, j.positions, k, "training");
    check_ids(j.eval_ids, j.positions, k, "evaluation");
  }
}

void CudaBackend::train(std::span<const TrainJob> jobs, std::span<TrainResult> results) {
  const auto t0 = std::chrono::steady_clock::now();
  validate(jobs, results);
  CudaBatchStats stats;
  stats.jobs = jobs.size();

  // Distinct eval lists and sample orders of the whole batch.
  std::map<SpanKey, int> eval_index;
  std::vector<std::span<const std::uint32_t>> eval_lists;
  std::vector<int> job_eval(jobs.size());
  std::map<OrderKey, int> order_index;
  std::vector<OrderKey> order_keys;
  std::vector<std::span<const std::uint32_t>> order_spans;
  std::vector<std::vector<int>> job_orders(jobs.size());
  for (std::size_t k = 0; k < jobs.size(); ++k) {
    const TrainJob& j = jobs[k];
    const auto [it, added] = eval_index.emplace(key_of(j.eval_ids), static_cast<int>(eval_lists.size()));
    if (added) eval_lists.push_back(j.eval_ids);
    job_eval[k] = it->second;
    for (int e = 0; e < j.params.epochs; ++e) {
      const OrderKey key{j.params.seed, j.stream[0], j.stream[1], static_cast<std::uint32_t>(e), key_of(j.train_ids)};
      const auto [o, new_order] = order_index.emplace(key, static_cast<int>(order_keys.size()));
      if (new_order) {
        order_keys.push_back(key);
        order_spans.push_back(j.train_ids);
      }
      job_orders[k].push_back(o->second);
    }
  }
  stats.distinct_id_lists = eval_lists.size();
  stats.distinct_sample_orders = order_keys.size();

  // The sample orders, exactly as the CPU backend draws them: ids shuffled by position in the
  // span, then mapped to position ids (so the kernel reads one array per epoch).
  std::vector<std::vector<std::uint32_t>> orders(order_keys.size());
  {
    std::atomic<std::size_t> next{0};
    auto worker = [&] {
      for (std::size_t o; (o = next.fetch_add(1)) < orders.size();) {
        const OrderKey& key = order_keys[o];
        const auto ids = order_spans[o];
        std::vector<std::uint32_t> order(ids.size());
        std::iota(order.begin(), order.end(), 0u);
        shuffle_ids(order, key.seed, key.stream0, key.stream1, key.epoch);
        for (auto& i : order) i = ids[i];
        orders[o] = std::move(order);
      }
    };
    run_parallel(static_cast<int>(std::min<std::size_t>(static_cast<std::size_t>(threads_), orders.size())), worker);
  }

  // The budget: free device memory (what this backend's arena holds is ours to reuse).
  std::size_t free_bytes = 0, total_bytes = 0;
  check(cudaMemGetInfo(&free_bytes, &total_bytes), "querying free device memory");
  const std::size_t available = free_bytes + arena_.size();
  const std::size_t reserve = reserve_bytes(total_bytes);
  std::size_t budget = available > reserve ? available - reserve : 0;
  const auto limit = memory_limit_from_env();
  if (limit && *limit < budget) budget = *limit;
  stats.budget_bytes = budget;

  // Per-job bytes, then chunks packed in job order.
  auto job_bytes = [&](const TrainJob& j) {
    std::size_t b = aligned(std::size_t{j.geometry->num_weights()} * sizeof(i32));
    if (j.params.batch_size > 1) b += aligned(minibatch_scratch_bytes(j));
    // Job record, geometry, loss records, order pointers (packed in shared sections; counted generously).
    b += sizeof(cuda::DeviceJob) + sizeof(ntuple::Geometry) +
         (1 + static_cast<std::size_t>(j.params.epochs)) * sizeof(ntuple::LossSums) +
         static_cast<std::size_t>(j.params.epochs) * sizeof(const std::uint32_t*);
    return b;
  };
  // Fixed overhead of a chunk: alignment of its shared sections.
  constexpr std::size_t kChunkOverhead = 8 * kAlign;
  std::vector<ChunkPlan> plans;
  {
    ChunkPlan cur;
    std::vector<char> eval_in(eval_lists.size(), 0), order_in(orders.size(), 0);
    auto start_chunk = [&](std::size_t first) {
      for (int e : cur.eval_lists) eval_in[e] = 0;
      for (int o : cur.orders) order_in[o] = 0;
      cur = ChunkPlan{};
      cur.first = cur.last = first;
      cur.bytes = kChunkOverhead;
    };
    start_chunk(0);
    for (std::size_t k = 0; k < jobs.size(); ++k) {
      const TrainJob& j = jobs[k];
      auto extra = [&] {
        std::size_t b = job_bytes(j);
        if (!eval_in[job_eval[k]]) b += aligned(j.eval_ids.size() * sizeof(std::uint32_t));
        for (int o : job_orders[k])
          if (!order_in[o]) b += aligned(orders[o].size() * sizeof(std::uint32_t));
        return b;
      };
      std::size_t add = extra();
      if (cur.last > cur.first && cur.bytes + add > budget) {
        plans.push_back(cur);
        start_chunk(k);
        add = extra();
      }
      if (cur.bytes + add > budget)
        fail("CUDA backend: training job {} alone needs {:.1f} MiB of device memory ({:.1f} MiB of weights for "
             "{} weights, {:.1f} MiB of mini-batch scratch, {} sample orders of {} ids, {} evaluation ids) but the "
             "budget is {:.1f} MiB ({}); use smaller networks, fewer positions or a smaller batch_size, or the cpu "
             "backend",
             k, mib(cur.bytes + add), mib(std::size_t{j.geometry->num_weights()} * sizeof(i32)),
             j.geometry->num_weights(), mib(j.params.batch_size > 1 ? minibatch_scratch_bytes(j) : 0), j.params.epochs, j.train_ids.size(), j.eval_ids.size(), mib(budget),
             limit && *limit == budget ? fmt::format("{}={}", kCudaMemoryLimitEnv, std::getenv(kCudaMemoryLimitEnv))
                                       : fmt::format("{:.1f} MiB free on the device", mib(free_bytes)));
      cur.bytes += add;
      if (!eval_in[job_eval[k]]) {
        eval_in[job_eval[k]] = 1;
        cur.eval_lists.push_back(job_eval[k]);
      }
      for (int o : job_orders[k])
        if (!order_in[o]) {
          order_in[o] = 1;
          cur.orders.push_back(o);
        }
      cur.last = k + 1;
    }
    if (cur.last > cur.first) plans.push_back(cur);
  }

  for (const ChunkPlan& plan : plans) {
    stats.largest_chunk_bytes = std::max(stats.largest_chunk_bytes, plan.bytes);
    run_chunk(jobs, results, plan, eval_lists, orders, job_orders, job_eval);
  }
  stats.chunks = plans.size();
  stats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  stats_ = stats;
}

void CudaBackend::run_chunk(std::span<const TrainJob> jobs, std::span<TrainResult> results, const ChunkPlan& plan,
                            const std::vector<std::span<const std::uint32_t>>& eval_lists,
                            const std::vector<std::vector<std::uint32_t>>& orders,
                            const std::vector<std::vector<int>>& job_orders, const std::vector<int>& job_eval) {
  const std::size_t first = plan.first, count = plan.last - plan.first;
  if (arena_.size() < plan.bytes) {
    arena_.release();  // free before allocating: the budget counted the old arena as available
    arena_ = DeviceBuffer(plan.bytes, "a training chunk (weights, sample orders, ids)");
  }
  // Sections of the arena, laid out from its start.
  std::size_t cursor = 0;
  auto take = [&](std::size_t bytes) {
    std::byte* p = arena_.get() + cursor;
    cursor += aligned(bytes);
    if (cursor > arena_.size()) fail("CUDA backend: internal error: chunk layout exceeds its plan");
    return p;
  };

  std::vector<cuda::DeviceJob> device_jobs(count);
  std::vector<ntuple::Geometry> geometries(count);
  std::vector<const std::uint32_t*> order_table;
  std::size_t weight_bytes = 0, epoch_records = 0;
  for (std::size_t i = 0; i < count; ++i) {
    const TrainJob& j = jobs[first + i];
    weight_bytes += aligned(std::size_t{j.geometry->num_weights()} * sizeof(i32));
    if (j.record_epoch_loss) epoch_records += static_cast<std::size_t>(j.params.epochs);
  }
  std::byte* weights = take(weight_bytes);
  check(cudaMemsetAsync(weights, 0, weight_bytes, stream_), "zeroing weights");

  std::map<int, const std::uint32_t*> eval_device, order_device;
  for (int e : plan.eval_lists) {
    auto* p = reinterpret_cast<std::uint32_t*>(take(eval_lists[e].size() * sizeof(std::uint32_t)));
    upload(p, eval_lists[e].data(), eval_lists[e].size(), stream_, "uploading evaluation ids");
    eval_device[e] = p;
  }
  for (int o : plan.orders) {
    auto* p = reinterpret_cast<std::uint32_t*>(take(orders[o].size() * sizeof(std::uint32_t)));
    upload(p, orders[o].data(), orders[o].size(), stream_, "uploading sample orders");
    order_device[o] = p;
  }
  auto* eval_loss = reinterpret_cast<ntuple::LossSums*>(take(count * sizeof(ntuple::LossSums)));
  auto* epoch_loss = reinterpret_cast<ntuple::LossSums*>(take(std::max<std::size_t>(1, epoch_records) * sizeof(ntuple::LossSums)));
  std::size_t total_epochs = 0;
  for (std::size_t i = 0; i < count; ++i) total_epochs += job_orders[first + i].size();
  auto* order_pointers = reinterpret_cast<const std::uint32_t**>(take(std::max<std::size_t>(1, total_epochs) * sizeof(void*)));
  auto* device_geometries = reinterpret_cast<ntuple::Geometry*>(take(count * sizeof(ntuple::Geometry)));
  auto* device_job_table = reinterpret_cast<cuda::DeviceJob*>(take(count * sizeof(cuda::DeviceJob)));

  std::size_t weight_offset = 0, epoch_offset = 0;
  std::vector<std::size_t> weight_offsets(count), epoch_offsets(count, 0);
  for (std::size_t i = 0; i < count; ++i) {
    const TrainJob& j = jobs[first + i];
    const ResidentSet& set = sets_[j.positions];
    geometries[i] = *j.geometry;
    cuda::DeviceJob& d = device_jobs[i];
    d.geometry = device_geometries + i;
    d.weights = reinterpret_cast<i32*>(weights + weight_offset);
    weight_offsets[i] = weight_offset;
    weight_offset += aligned(std::size_t{j.geometry->num_weights()} * sizeof(i32));
    d.black = reinterpret_cast<const u64*>(set.black.get());
    d.white = reinterpret_cast<const u64*>(set.white.get());
    d.label = reinterpret_cast<const i64*>(set.label.get());
    d.epoch_samples = order_pointers + order_table.size();
    for (int o : job_orders[first + i]) order_table.push_back(order_device.at(o));
    d.eval_ids = eval_device.at(job_eval[first + i]);
    d.num_train = static_cast<u32>(j.train_ids.size());
    d.num_eval = static_cast<u32>(j.eval_ids.size());
    d.rate = ntuple::rate_multiplier(j.params.learning_rate, j.geometry->num_features());
    d.epochs = j.params.epochs;
    d.batch_size = j.params.batch_size;
    if (d.batch_size > 1 && d.num_train > 0) {
      // One scratch: the batch's steps, then the batch's feature indices (computed once).
      std::byte* scratch = take(minibatch_scratch_bytes(j));
      const std::size_t batch = std::min<std::size_t>(static_cast<std::size_t>(d.batch_size), j.train_ids.size());
      d.steps = reinterpret_cast<i32*>(scratch);
      d.batch_indices = reinterpret_cast<u32*>(scratch + batch * sizeof(i32));
    }
    d.eval_loss = eval_loss + i;
    if (j.record_epoch_loss) {
      d.epoch_loss = epoch_loss + epoch_offset;
      epoch_offsets[i] = epoch_offset;
      epoch_offset += static_cast<std::size_t>(j.params.epochs);
    }
  }
  upload(order_pointers, order_table.data(), order_table.size(), stream_, "uploading the job table");
  upload(device_geometries, geometries.data(), count, stream_, "uploading geometries");
  upload(device_job_table, device_jobs.data(), count, stream_, "uploading the job table");
  check(cuda::launch_train(device_job_table, static_cast<int>(count), stream_), "launching the training kernel");

  std::vector<ntuple::LossSums> eval_host(count), epoch_host(epoch_records);
  check(cudaMemcpyAsync(eval_host.data(), eval_loss, count * sizeof(ntuple::LossSums), cudaMemcpyDeviceToHost, stream_),
        "reading losses");
  if (epoch_records)
    check(cudaMemcpyAsync(epoch_host.data(), epoch_loss, epoch_records * sizeof(ntuple::LossSums),
                          cudaMemcpyDeviceToHost, stream_),
          "reading epoch losses");
  check(cudaStreamSynchronize(stream_), "training");
  for (std::size_t i = 0; i < count; ++i) {
    const TrainJob& j = jobs[first + i];
    TrainResult& r = results[first + i];
    r.eval_loss = eval_host[i];
    r.epoch_loss.clear();
    if (j.record_epoch_loss)
      r.epoch_loss.assign(epoch_host.begin() + static_cast<std::ptrdiff_t>(epoch_offsets[i]),
                          epoch_host.begin() + static_cast<std::ptrdiff_t>(epoch_offsets[i] + j.params.epochs));
    if (j.return_weights) {
      r.weights.resize(j.geometry->num_weights());
      check(cudaMemcpyAsync(r.weights.data(), weights + weight_offsets[i], r.weights.size() * sizeof(i32),
                            cudaMemcpyDeviceToHost, stream_),
            "reading weights");
    } else {
      r.weights.clear();
    }
  }
  check(cudaStreamSynchronize(stream_), "reading weights");
}

CudaBackend::DeviceAgent<play::AgentParams> CudaBackend::upload_agent(const play::Agent& agent, std::size_t handle) {
  agent.validate();
  // ProbCut's selective search depends on the midgame table, which a device thread lacks: the
  // device would play other moves than the CPU, so such agents stay on the CPU (docs/search.md).
  if (agent.probcut)
    fail("agent '{}': a ProbCut agent (probcut = ...) plays on the CPU backend only", agent.name);
  DeviceAgent<play::AgentParams> d;
  d.params = agent.params(nullptr);
  if (agent.kind != play::EvaluatorKind::kNtuple) return d;
  // One allocation: the geometries, each network's weights, then the evaluator that points at them.
  const std::size_t geometry_bytes = aligned(agent.geometries.size() * sizeof(ntuple::Geometry));
  std::vector<std::size_t> network_offset(agent.networks.size());
  std::size_t bytes = geometry_bytes;
  for (std::size_t k = 0; k < agent.networks.size(); ++k) {
    network_offset[k] = bytes;
    bytes += aligned(agent.networks[k].weights.size() * sizeof(i32));
  }
  const std::size_t evaluator_offset = bytes;
  bytes += aligned(sizeof(ntuple::Evaluator));
  d.memory = DeviceBuffer(bytes, fmt::format("agent {} ('{}': {} geometries, {} networks)", handle, agent.name,
                                             agent.geometries.size(), agent.networks.size()));
  std::byte* const base = d.memory.get();
  auto* geometries = reinterpret_cast<ntuple::Geometry*>(base);
  ntuple::Evaluator evaluator{};
  for (int t = 0; t < ntuple::kMoveNumbers; ++t) {
    const int k = agent.network_of_move[t];
    const play::Network& n = agent.networks[k];
    evaluator.stage_of_move[t] =
        ntuple::Stage{geometries + n.geometry, reinterpret_cast<const i32*>(base + network_offset[k])};
  }
  const std::string what = fmt::format("cudaMemcpyAsync (uploading agent {} '{}')", handle, agent.name);
  upload(geometries, agent.geometries.data(), agent.geometries.size(), stream_, what);
  for (std::size_t k = 0; k < agent.networks.size(); ++k)
    upload(reinterpret_cast<i32*>(base + network_offset[k]), agent.networks[k].weights.data(),
           agent.networks[k].weights.size(), stream_, what);
  upload(reinterpret_cast<ntuple::Evaluator*>(base + evaluator_offset), &evaluator, 1, stream_, what);
  check(cudaStreamSynchronize(stream_), fmt::format("cudaStreamSynchronize (uploading agent {} '{}')", handle, agent.name));
  d.params.ntuple = reinterpret_cast<const ntuple::Evaluator*>(base + evaluator_offset);
  return d;
}

// The play kernel keeps its search frames in local memory: the per-thread stack must hold them
// (play_kernels.cu). Raised once, before the first play launch, to the kernel's own figure or
// kPlayStackBytes, whichever is larger; never lowered.
template <class G>
void CudaBackend::ensure_play_stack() {
  bool& done = play_stack_set_[play::Players<G>::kName];
  if (done) return;
  cudaFuncAttributes attributes{};
  check(cuda::play_kernel_attributes<G>(&attributes), "cudaFuncGetAttributes (play kernel)");
  const std::size_t kernel = (attributes.localSizeBytes + 1023) / 1024 * 1024;
  const std::size_t want = std::max(cuda::kPlayStackBytes, kernel);
  std::size_t current = 0;
  check(cudaDeviceGetLimit(&current, cudaLimitStackSize), "cudaDeviceGetLimit (cudaLimitStackSize)");
  if (current < want)
    check(cudaDeviceSetLimit(cudaLimitStackSize, want),
          fmt::format("cudaDeviceSetLimit (cudaLimitStackSize = {} bytes for the play kernel's search frames, which "
                      "need {} bytes a thread)",
                      want, attributes.localSizeBytes));
  done = true;
}

template <class G>
void CudaBackend::play_of(std::span<const GameJobOf<G>> jobs, std::span<play::GameRecordOf<G>> results) {
  using Params = play::ParamsOf<G>;
  using Record = play::GameRecordOf<G>;
  const auto t0 = std::chrono::steady_clock::now();
  const auto& agents = std::get<DeviceAgents<G>>(agents_);
  if (jobs.size() != results.size()) fail("backend: {} games but {} result slots", jobs.size(), results.size());
  for (const GameJobOf<G>& j : jobs)
    for (int h : {j.black, j.white})
      if (h < 0 || h >= static_cast<int>(agents.size()))
        fail("backend: a {} game names no valid agent ({})", play::Players<G>::kName, h);
  if (jobs.empty()) return;
  ensure_play_stack<G>();

  // Endgame tables are worth their memory only when some agent of the batch solves from
  // kHashEmpties or more empties (the solver consults the table from there up).
  bool want_tables = false;
  for (const GameJobOf<G>& j : jobs)
    for (int h : {j.black, j.white})
      if (agents[static_cast<std::size_t>(h)].params.wants_endgame_table()) want_tables = true;

  // The budget, as for training: free device memory plus the arena we hold, less a reserve, or
  // EF_CUDA_MEMORY_LIMIT_MB when smaller.
  std::size_t free_bytes = 0, total_bytes = 0;
  check(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo (planning a play batch)");
  const std::size_t available = free_bytes + arena_.size();
  const std::size_t reserve = reserve_bytes(total_bytes);
  std::size_t budget = available > reserve ? available - reserve : 0;
  const auto limit = memory_limit_from_env();
  if (limit && *limit < budget) budget = *limit;

  // Per chunk: the agent table and the alignment of its four sections; per game: its job, its
  // record and, with tables, 2^kPlayTableBits entries.
  const std::size_t fixed = aligned(agents.size() * sizeof(Params)) + 4 * kAlign;
  const std::size_t plain_game = sizeof(GameJobOf<G>) + sizeof(Record);
  const std::size_t table_bytes = sizeof(search::endgame::HashEntry) << cuda::kPlayTableBits;
  // Tables "when memory allows": when a chunk with tables still holds as many games as the
  // device runs at once (or the whole batch, if smaller). Otherwise concurrency is worth more
  // than tables, which only save nodes.
  int blocks_per_sm = 0, multiprocessors = 0;
  check(cuda::play_kernel_occupancy<G>(&blocks_per_sm), "cudaOccupancyMaxActiveBlocksPerMultiprocessor (play kernel)");
  check(cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, current_device()),
        "cudaDeviceGetAttribute (cudaDevAttrMultiProcessorCount)");
  const std::size_t resident =
      std::max<std::size_t>(1, static_cast<std::size_t>(blocks_per_sm) * static_cast<std::size_t>(multiprocessors) *
                                   cuda::kPlayThreadsPerBlock);
  const std::size_t want_concurrent = std::min(resident, jobs.size());
  const bool tables = want_tables && budget > fixed && (budget - fixed) / (plain_game + table_bytes) >= want_concurrent;
  const std::size_t game_bytes = plain_game + (tables ? table_bytes : 0);
  if (budget < fixed + game_bytes)
    fail("CUDA backend: a play batch needs at least {} bytes of device memory ({} agents' parameters and one game of "
         "{} bytes) but the budget is {} bytes ({}); use the cpu backend",
         fixed + game_bytes, agents.size(), game_bytes, budget,
         limit && *limit == budget ? fmt::format("{}={}", kCudaMemoryLimitEnv, std::getenv(kCudaMemoryLimitEnv))
                                   : fmt::format("{:.1f} MiB free on the device", mib(free_bytes)));
  constexpr std::size_t kMaxGamesPerLaunch = std::size_t{1} << 24;
  const std::size_t per_chunk = std::min((budget - fixed) / game_bytes, kMaxGamesPerLaunch);

  CudaBatchStats stats;
  stats.jobs = jobs.size();
  stats.budget_bytes = budget;
  for (std::size_t first = 0; first < jobs.size(); first += per_chunk) {
    const std::size_t n = std::min(per_chunk, jobs.size() - first);
    stats.largest_chunk_bytes = std::max(stats.largest_chunk_bytes, play_chunk<G>(jobs.subspan(first, n),
                                                                                 results.subspan(first, n), tables));
    ++stats.chunks;
  }
  stats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  stats_ = stats;
}

template <class G>
std::size_t CudaBackend::play_chunk(std::span<const GameJobOf<G>> jobs, std::span<play::GameRecordOf<G>> results,
                                    bool tables) {
  using Params = play::ParamsOf<G>;
  using Record = play::GameRecordOf<G>;
  const auto& agents = std::get<DeviceAgents<G>>(agents_);
  const std::size_t n = jobs.size();
  const u64 entries = tables ? u64{1} << cuda::kPlayTableBits : 0;
  const std::size_t agent_bytes = agents.size() * sizeof(Params);
  const std::size_t bytes = aligned(agent_bytes) + aligned(n * sizeof(GameJobOf<G>)) + aligned(n * sizeof(Record)) +
                            aligned(n * entries * sizeof(search::endgame::HashEntry));
  if (arena_.size() < bytes) {
    arena_.release();  // free before allocating: the budget counted the old arena as available
    arena_ = DeviceBuffer(bytes, fmt::format("a play chunk of {} games{}", n, tables ? " with endgame tables" : ""));
  }
  std::size_t cursor = 0;
  auto take = [&](std::size_t size) {
    std::byte* p = arena_.get() + cursor;
    cursor += aligned(size);
    if (cursor > arena_.size()) fail("CUDA backend: internal error: play chunk layout exceeds its plan");
    return p;
  };
  auto* device_agents = reinterpret_cast<Params*>(take(agent_bytes));
  auto* device_games = reinterpret_cast<GameJobOf<G>*>(take(n * sizeof(GameJobOf<G>)));
  auto* device_records = reinterpret_cast<Record*>(take(n * sizeof(Record)));
  auto* device_tables =
      tables ? reinterpret_cast<search::endgame::HashEntry*>(take(n * entries * sizeof(search::endgame::HashEntry)))
             : nullptr;

  std::vector<Params> params;
  params.reserve(agents.size());
  for (const auto& a : agents) params.push_back(a.params);
  upload(device_agents, params.data(), params.size(), stream_, "cudaMemcpyAsync (uploading the agent table)");
  upload(device_games, jobs.data(), n, stream_, "cudaMemcpyAsync (uploading games)");
  if (device_tables)
    check(cudaMemsetAsync(device_tables, 0, n * entries * sizeof(search::endgame::HashEntry), stream_),
          "cudaMemsetAsync (zeroing endgame tables)");
  check(cuda::launch_play<G>(device_agents, device_games, static_cast<int>(n), device_records, device_tables, entries,
                             stream_),
        fmt::format("launching the play kernel ({} games)", n));
  check(cudaMemcpyAsync(results.data(), device_records, n * sizeof(Record), cudaMemcpyDeviceToHost, stream_),
        "cudaMemcpyAsync (reading game records)");
  check(cudaStreamSynchronize(stream_), fmt::format("cudaStreamSynchronize (playing {} games)", n));
  return bytes;
}

}  // namespace

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
    return say(fmt::format("no CUDA device: device 0{} cannot run this build's kernels: {} (configure with "
                           "CMAKE_CUDA_ARCHITECTURES for it)",
                           known ? fmt::format(" ({}, compute capability {}.{})", p.name, p.major, p.minor) : "",
                           describe(k)));
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
  if (black.size() != white.size()) fail("cuda_feature_indices: {} black but {} white boards", black.size(), white.size());
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
