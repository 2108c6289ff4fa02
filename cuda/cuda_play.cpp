// The CUDA backend's self-play path (add_agent / update_agent / play): agents on the device and
// the play batches. A file of its own because it shares nothing with training but the class, its
// chunk arena and the device memory helpers (cuda_backend_impl.hpp, device_memory.hpp).
//
// An agent lives on the device in one allocation of its own -- its geometries, every network's
// weights and an ntuple::Evaluator whose Stage pointers point into that allocation -- plus a host
// copy of its OthelloParams whose `ntuple` is the device evaluator; update_agent builds the new copy,
// then frees the old one. Per play batch: the OthelloParams table, the games, the records and (when
// memory allows) a zeroed endgame table per game go into the same arena as training chunks,
// chunked to the same budget. The kernel and its layout: play_kernels.cu.
//
// The play templates are member templates of CudaBackend that only this file defines; the
// explicit instantiations at its end make them for every game of games/registry.hpp, which is
// what the per-game overrides in the class (cuda_backend_impl.hpp) call.
#include <cuda_runtime.h>
#include <fmt/format.h>
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <span>
#include <string>
#include <vector>
#include "cuda/cuda_backend_impl.hpp"
#include "cuda/device_memory.hpp"
#include "cuda/play_kernels.hpp"
#include "evalforge/core/error.hpp"
#include "evalforge/games/registry.hpp"

namespace ef::cuda::detail {

CudaBackend::DeviceAgent<play::OthelloParams> CudaBackend::upload_agent(const play::OthelloAgent& agent,
                                                                        std::size_t handle) {
  agent.validate();
  // ProbCut's selective search depends on the midgame table, which a device thread lacks: the
  // device would play other moves than the CPU, so such agents stay on the CPU (docs/search.md).
  if (agent.probcut) fail("agent '{}': a ProbCut agent (probcut = ...) plays on the CPU backend only", agent.name);
  DeviceAgent<play::OthelloParams> d;
  d.params = agent.params(nullptr);
  if (agent.kind != play::OthelloEvaluator::kNtuple) return d;
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
  check(cudaStreamSynchronize(stream_),
        fmt::format("cudaStreamSynchronize (uploading agent {} '{}')", handle, agent.name));
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
    fail(
        "CUDA backend: a play batch needs at least {} bytes of device memory ({} agents' parameters and one game of "
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
    stats.largest_chunk_bytes =
        std::max(stats.largest_chunk_bytes, play_chunk<G>(jobs.subspan(first, n), results.subspan(first, n), tables));
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

// The play templates for every game of the registry: the per-game play() overrides in the class
// call them from other files, which see only their declarations.
#define EF_CUDA_PLAY_INSTANTIATIONS(G)                                                                                 \
  template void CudaBackend::ensure_play_stack<G>();                                                                   \
  template void CudaBackend::play_of<G>(std::span<const GameJobOf<G>> jobs, std::span<play::GameRecordOf<G>> results); \
  template std::size_t CudaBackend::play_chunk<G>(std::span<const GameJobOf<G>> jobs,                                  \
                                                  std::span<play::GameRecordOf<G>> results, bool tables);
EF_FOR_EACH_PLAYOUT_GAME(EF_CUDA_PLAY_INSTANTIATIONS)
#undef EF_CUDA_PLAY_INSTANTIATIONS

}  // namespace ef::cuda::detail
