// The CPU backend: the reference implementation of the backend interface. Jobs are independent
// and each runs start to finish on one worker thread, so results cannot depend on the thread
// count; the arithmetic is the shared EF_HD integer code of ntuple.hpp.
#include "backends/cpu/cpu_backend.hpp"
#include <algorithm>
#include <atomic>
#include <exception>
#include <memory>
#include <mutex>
#include <numeric>
#include <optional>
#include <thread>
#include <tuple>
#include "backends/cpu/train_body.hpp"
#include "core/parallel.hpp"
#include "evalforge/backends/backend.hpp"
#include "evalforge/core/error.hpp"
#include "evalforge/core/rng.hpp"

namespace ef {

namespace {

class CpuBackend final : public Backend {
 public:
  explicit CpuBackend(int threads) : threads_(resolve_threads(threads)) {}
  std::string name() const override { return fmt::format("cpu ({} threads)", threads_); }

  int add_positions(const PositionData& data) override {
    sets_.push_back(cpu::pack_positions(data));
    return static_cast<int>(sets_.size()) - 1;
  }
  void remove_positions(int handle) override {
    if (!set_size(handle)) fail("backend: position set {} does not exist (never added, or removed)", handle);
    sets_[handle].reset();
  }

#define EF_CPU_PLAYOUT_METHODS(G)                                                                              \
  int add_agent(const play::AgentOf<G>& agent) override { return add_agent_of<G>(agent); }                     \
  void update_agent(int handle, const play::AgentOf<G>& agent) override { update_agent_of<G>(handle, agent); } \
  void play(std::span<const GameJobOf<G>> jobs, std::span<play::GameRecordOf<G>> results) override {           \
    play_of<G>(jobs, results);                                                                                 \
  }
  EF_FOR_EACH_PLAYOUT_GAME(EF_CPU_PLAYOUT_METHODS)
#undef EF_CPU_PLAYOUT_METHODS

  void train(std::span<const TrainJob> jobs, std::span<TrainResult> results) override {
    validate_train_batch(jobs, results.size(), [this](int h) { return set_size(h); });
    std::atomic<std::size_t> next{0};
    auto worker = [&] {
      cpu::TrainScratch scratch;
      for (std::size_t k; (k = next.fetch_add(1)) < jobs.size();)
        cpu::train_job(*sets_[jobs[k].positions], jobs[k], results[k], scratch);
    };
    run_parallel(static_cast<int>(std::min<std::size_t>(threads_, jobs.size())), worker);
  }

 private:
  template <class G>
  using Residents = std::vector<std::unique_ptr<play::ResidentAgent<play::AgentOf<G>>>>;
  static constexpr int kTableBits = 18;  // 2^18 entries (6 MiB) per worker

  template <class G>
  int add_agent_of(const play::AgentOf<G>& agent) {
    agent.validate();
    auto& list = std::get<Residents<G>>(agents_);
    list.push_back(std::make_unique<play::ResidentAgent<play::AgentOf<G>>>(agent));
    return static_cast<int>(list.size()) - 1;
  }

  template <class G>
  void update_agent_of(int handle, const play::AgentOf<G>& agent) {
    auto& list = std::get<Residents<G>>(agents_);
    if (handle < 0 || handle >= static_cast<int>(list.size()))
      fail("backend: no {} agent with handle {}", play::Players<G>::kName, handle);
    agent.validate();
    list[handle] = std::make_unique<play::ResidentAgent<play::AgentOf<G>>>(agent);
  }

  // Every game runs start to finish on one worker thread with the shared body
  // (play::play_game), so records cannot depend on the thread count.
  template <class G>
  void play_of(std::span<const GameJobOf<G>> jobs, std::span<play::GameRecordOf<G>> results) {
    const auto& list = std::get<Residents<G>>(agents_);
    if (jobs.size() != results.size()) fail("backend: {} games but {} result slots", jobs.size(), results.size());
    bool tables = false, midgame_tables = false;
    for (const GameJobOf<G>& j : jobs)
      for (int h : {j.black, j.white}) {
        if (h < 0 || h >= static_cast<int>(list.size()))
          fail("backend: a {} game names no valid agent ({})", play::Players<G>::kName, h);
        tables = tables || list[h]->params.wants_endgame_table();
        if constexpr (requires { list[h]->params.wants_midgame_table(); })
          midgame_tables = midgame_tables || list[h]->params.wants_midgame_table();
      }
    std::atomic<std::size_t> next{0};
    auto worker = [&] {
      // Each worker owns a transposition table for the exact solves when some agent's solves
      // reach it; it changes node counts only, never a move (playout.hpp).
      std::vector<search::endgame::HashEntry> entries(tables ? std::size_t{1} << kTableBits : 0);
      search::endgame::HashTable table{entries.data(), tables ? entries.size() - 1 : 0, 0};
      // And one for the midgame searches (engine/pvs.hpp), under the same contract.
      std::vector<search::TranspositionEntry<games::OthelloKey>> midgame_entries(
          midgame_tables ? std::size_t{1} << search::kMidgameTableBits : 0);
      search::OthelloTable midgame{midgame_entries.data(), midgame_tables ? midgame_entries.size() - 1 : 0, 0};
      play::PlayScratchOf<G> scratch;  // the fields a game's scratch has (Othello: both tables)
      if constexpr (requires { scratch.endgame_table; }) scratch.endgame_table = tables ? &table : nullptr;
      if constexpr (requires { scratch.midgame_table; }) scratch.midgame_table = midgame_tables ? &midgame : nullptr;
      for (std::size_t k; (k = next.fetch_add(1)) < jobs.size();) {
        const GameJobOf<G>& j = jobs[k];
        play::play_game<G>(list[j.black]->params, list[j.white]->params, j.start, j.seed, j.game, results[k], scratch);
      }
    };
    run_parallel(static_cast<int>(std::min<std::size_t>(threads_, jobs.size())), worker);
  }

#define EF_RESIDENTS_OF(G) Residents<G>,
  int threads_;
  std::optional<std::size_t> set_size(int handle) const {
    if (handle < 0 || handle >= static_cast<int>(sets_.size()) || !sets_[handle]) return std::nullopt;
    return sets_[handle]->size();
  }

  std::vector<std::optional<cpu::PackedPositions>> sets_;  // empty once removed (the handle stays taken)
  // One list of resident agents per playout game; the trailing int closes the macro's list.
  std::tuple<EF_FOR_EACH_PLAYOUT_GAME(EF_RESIDENTS_OF) int> agents_;
#undef EF_RESIDENTS_OF
};

}  // namespace

std::unique_ptr<Backend> make_cpu_backend(int threads) { return std::make_unique<CpuBackend>(threads); }

}  // namespace ef
