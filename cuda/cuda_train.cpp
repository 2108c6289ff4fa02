// The CUDA backend's training path: resident position sets, per-batch planning (deduplicated id
// lists and sample orders, memory budget, chunks), uploads, the launch, and the results. A file of
// its own because it shares nothing with self-play but the class, its chunk arena and the device
// memory helpers (cuda_backend_impl.hpp, device_memory.hpp). The kernels and the reasons for their
// layout are in train_kernels.cu.
//
// Per batch, only this goes to the device: the jobs' geometries; each distinct eval id list
// once (all individuals of an island share one span); each distinct per-epoch sample order
// once, computed here with the same ef::shuffle_ids as the CPU backend, keyed by (seed,
// stream0, stream1, epoch, train span) and stored already mapped to position ids (a job
// without shuffle takes its span as given); the weights of jobs that continue from given
// weights; the job table. Back come the loss sums, and weights / epoch losses where asked for.
//
// Memory is planned from the problem: per job its weights (4 bytes each), mini-batch steps and
// indices, a few records; per chunk the id lists and orders its jobs use. The budget is the
// device's free memory (plus what this backend already holds, minus a reserve), or
// EF_CUDA_MEMORY_LIMIT_MB when that is smaller. Jobs are packed into chunks in order; each chunk
// is one launch, and since jobs are independent the results do not depend on the split. A job
// that does not fit even alone is an ef::Error that names the sizes.
#include <cuda_runtime.h>
#include <fmt/format.h>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <compare>
#include <cstdlib>
#include <map>
#include <numeric>
#include <optional>
#include <span>
#include <tuple>
#include <utility>
#include <vector>
#include "core/parallel.hpp"
#include "cuda/cuda_backend_impl.hpp"
#include "cuda/device_memory.hpp"
#include "cuda/train_kernels.hpp"
#include "evalforge/core/error.hpp"

namespace ef::cuda::detail {

namespace {

// A mini-batch job's scratch: min(B, n) steps and min(B, n) samples' feature indices.
std::size_t minibatch_scratch_bytes(const TrainJob& j) {
  const std::size_t batch = std::min<std::size_t>(static_cast<std::size_t>(j.params.batch_size), j.train_ids.size());
  return batch * sizeof(i32) + batch * static_cast<std::size_t>(j.geometry->num_features()) * sizeof(u32);
}

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
  bool shuffle;  // false: the span as given (seed, streams and epoch are then 0: one order)
  SpanKey span;
  auto operator<=>(const OrderKey&) const = default;
};

}  // namespace

int CudaBackend::add_positions(const PositionData& data) {
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
  s.live = true;
  sets_.push_back(std::move(s));
  return static_cast<int>(sets_.size()) - 1;
}

void CudaBackend::validate(std::span<const TrainJob> jobs, std::span<TrainResult> results) const {
  validate_train_batch(jobs, results.size(), [this](int h) -> std::optional<std::size_t> {
    if (h < 0 || h >= static_cast<int>(sets_.size()) || !sets_[h].live) return std::nullopt;
    return sets_[h].size;
  });
}

void CudaBackend::remove_positions(int handle) {
  if (handle < 0 || handle >= static_cast<int>(sets_.size()) || !sets_[handle].live)
    fail("backend: position set {} does not exist (never added, or removed)", handle);
  check(cudaStreamSynchronize(stream_), "finishing work before freeing a position set");
  sets_[handle] = ResidentSet{};  // frees its device memory; live stays false
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
      const OrderKey key = j.shuffle
                               ? OrderKey{j.params.seed, j.stream[0],        j.stream[1], static_cast<std::uint32_t>(e),
                                          true,          key_of(j.train_ids)}
                               : OrderKey{0, 0, 0, 0, false, key_of(j.train_ids)};
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
        if (key.shuffle) shuffle_ids(order, key.seed, key.stream0, key.stream1, key.epoch);
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
        fail(
            "CUDA backend: training job {} alone needs {:.1f} MiB of device memory ({:.1f} MiB of weights for "
            "{} weights, {:.1f} MiB of mini-batch scratch, {} sample orders of {} ids, {} evaluation ids) but the "
            "budget is {:.1f} MiB ({}); use smaller networks, fewer positions or a smaller batch_size, or the cpu "
            "backend",
            k, mib(cur.bytes + add), mib(std::size_t{j.geometry->num_weights()} * sizeof(i32)),
            j.geometry->num_weights(), mib(j.params.batch_size > 1 ? minibatch_scratch_bytes(j) : 0), j.params.epochs,
            j.train_ids.size(), j.eval_ids.size(), mib(budget),
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
  {  // jobs that continue from given weights: theirs over the zeros
    std::size_t offset = 0;
    for (std::size_t i = 0; i < count; ++i) {
      const TrainJob& j = jobs[first + i];
      if (!j.initial_weights.empty())
        upload(reinterpret_cast<i32*>(weights + offset), j.initial_weights.data(), j.initial_weights.size(), stream_,
               "uploading initial weights");
      offset += aligned(std::size_t{j.geometry->num_weights()} * sizeof(i32));
    }
  }

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
  auto* epoch_loss =
      reinterpret_cast<ntuple::LossSums*>(take(std::max<std::size_t>(1, epoch_records) * sizeof(ntuple::LossSums)));
  std::size_t total_epochs = 0;
  for (std::size_t i = 0; i < count; ++i) total_epochs += job_orders[first + i].size();
  auto* order_pointers =
      reinterpret_cast<const std::uint32_t**>(take(std::max<std::size_t>(1, total_epochs) * sizeof(void*)));
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

}  // namespace ef::cuda::detail
