// The CUDA backend's class, shared by the .cpp files that define it: cuda_backend.cpp (construction
// and the public entry points), cuda_train.cpp (position sets and training) and cuda_play.cpp
// (agents and self-play). Only those files include it; everything here is in ef::cuda::detail, and
// the rest of the program reaches the backend through cuda_backend.hpp.
#pragma once
#include <cuda_runtime.h>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>
#include "cuda/cuda_backend.hpp"
#include "cuda/device_memory.hpp"
#include "evalforge/backends/backend.hpp"
#include "evalforge/core/error.hpp"
#include "evalforge/games/registry.hpp"

namespace ef::cuda::detail {

// Copied to and from the device byte for byte.
static_assert(std::is_trivially_copyable_v<ntuple::Evaluator>);
#define EF_ASSERT_DEVICE_COPYABLE(G)                               \
  static_assert(std::is_trivially_copyable_v<play::ParamsOf<G>> && \
                std::is_trivially_copyable_v<play::GameRecordOf<G>> && std::is_trivially_copyable_v<GameJobOf<G>>);
EF_FOR_EACH_PLAYOUT_GAME(EF_ASSERT_DEVICE_COPYABLE)
#undef EF_ASSERT_DEVICE_COPYABLE

struct ResidentSet {
  DeviceBuffer black, white, label;
  std::size_t size = 0;
  bool live = false;  // false once removed (Backend::remove_positions): the handle stays taken
};

// What a chunk of jobs needs on the device, section by section.
struct ChunkPlan {
  std::size_t first = 0, last = 0;  // jobs [first, last)
  std::vector<int> eval_lists;      // distinct eval lists, in first use order
  std::vector<int> orders;          // distinct sample orders, in first use order
  std::size_t bytes = 0;
};

class CudaBackend final : public Backend {
 public:
  CudaBackend(int threads, int device);
  ~CudaBackend() override;

  std::string name() const override { return name_; }

  int add_positions(const PositionData& data) override;
  void remove_positions(int handle) override;

  void train(std::span<const TrainJob> jobs, std::span<TrainResult> results) override;

#define EF_CUDA_PLAYOUT_METHODS(G)                                                                           \
  int add_agent(const play::AgentOf<G>& agent) override {                                                    \
    auto& list = std::get<DeviceAgents<G>>(agents_);                                                         \
    list.push_back(upload_agent(agent, list.size()));                                                        \
    return static_cast<int>(list.size()) - 1;                                                                \
  }                                                                                                          \
  void update_agent(int handle, const play::AgentOf<G>& agent) override { replace_agent<G>(handle, agent); } \
  void play(std::span<const GameJobOf<G>> jobs, std::span<play::GameRecordOf<G>> results) override {         \
    play_of<G>(jobs, results);                                                                               \
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
  DeviceAgent<play::OthelloParams> upload_agent(const play::OthelloAgent& agent, std::size_t handle);
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
  // The three play templates are defined in cuda_play.cpp and instantiated there for every game
  // of the registry; play() above only calls them.
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

}  // namespace ef::cuda::detail
