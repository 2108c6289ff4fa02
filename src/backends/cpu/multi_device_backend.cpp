// make_multi_device_backend (backends/backend.hpp) and make_routing_backend (routing.hpp): one backend per device, each
// owned by a worker thread of its own, because a CUDA backend must be used by the thread that made it (CUDA's current
// device is per thread). Batches are split into contiguous chunks, one per device, run at once, and the results land in
// the caller's order. Every backend's result for a job is a pure function of the job (backends/backend.hpp's contract),
// so the split changes no bit.
#include <algorithm>
#include <cmath>
#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <future>
#include <mutex>
#include <optional>
#include <thread>
#include <tuple>
#include <variant>
#include "backends/routing.hpp"
#include "core/parallel.hpp"
#include "evalforge/backends/backend.hpp"
#include "evalforge/core/error.hpp"

namespace ef {

namespace {

// A thread that makes one backend and then runs the tasks given to it, in order.
class DeviceWorker {
 public:
  DeviceWorker(std::string kind, int threads, int device) {
    std::promise<void> made;
    auto ready = made.get_future();
    thread_ = std::thread([this, kind = std::move(kind), threads, device, &made] {
      try {
        backend_ = make_backend(kind, threads, device);
        made.set_value();
      } catch (...) {
        made.set_exception(std::current_exception());
        return;
      }
      loop();
    });
    try {
      ready.get();
    } catch (...) {
      thread_.join();
      throw;
    }
  }
  ~DeviceWorker() {
    {
      std::lock_guard lock(mutex_);
      done_ = true;
    }
    wake_.notify_all();
    thread_.join();
  }
  DeviceWorker(const DeviceWorker&) = delete;
  DeviceWorker& operator=(const DeviceWorker&) = delete;

  // Runs task(backend) on the worker thread; the future carries its exception, if any.
  template <class R>
  std::future<R> submit(std::function<R(Backend&)> task) {
    auto packaged =
        std::make_shared<std::packaged_task<R()>>([this, task = std::move(task)] { return task(*backend_); });
    std::future<R> result = packaged->get_future();
    {
      std::lock_guard lock(mutex_);
      tasks_.emplace_back([packaged] { (*packaged)(); });
    }
    wake_.notify_all();
    return result;
  }
  std::string name() {
    return submit<std::string>([](Backend& b) { return b.name(); }).get();
  }

 private:
  void loop() {
    while (true) {
      std::function<void()> task;
      {
        std::unique_lock lock(mutex_);
        wake_.wait(lock, [&] { return done_ || !tasks_.empty(); });
        if (tasks_.empty()) return;
        task = std::move(tasks_.front());
        tasks_.pop_front();
      }
      task();
    }
  }

  std::thread thread_;
  std::unique_ptr<Backend> backend_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::function<void()>> tasks_;
  bool done_ = false;
};

// Waits for every future, then rethrows the first failure (no task is left running); the
// values in order.
template <class R>
std::vector<R> wait_all(std::vector<std::future<R>>& futures) {
  std::vector<R> values;
  std::exception_ptr first;
  for (auto& f : futures) {
    try {
      values.push_back(f.get());
    } catch (...) {
      if (!first) first = std::current_exception();
    }
  }
  if (first) std::rethrow_exception(first);
  return values;
}

// One chunk of a batch on one device: training jobs or playouts of any game.
void run_batch(Backend& b, std::span<const TrainJob> jobs, std::span<TrainResult> results) { b.train(jobs, results); }
template <play::PlayoutGame G>
void run_batch(Backend& b, std::span<const GameJobOf<G>> jobs, std::span<play::GameRecordOf<G>> results) {
  b.play(jobs, results);
}

// Whether each agent handle of game G plays searching games (routing::searches), for the router.
template <class G>
struct SearchingAgents {
  std::vector<char> searching;
};
#define EF_SEARCHING_AGENTS(G) , SearchingAgents<G>
using AllSearchingAgents = std::tuple<std::monostate EF_FOR_EACH_PLAYOUT_GAME(EF_SEARCHING_AGENTS)>;
#undef EF_SEARCHING_AGENTS

class MultiDeviceBackend final : public Backend {
 public:
  MultiDeviceBackend(std::string_view kind, int threads, std::span<const int> devices) {
    for (int d : devices) workers_.push_back(std::make_unique<DeviceWorker>(std::string(kind), threads, d));
    name_ = fmt::format("{} devices:", workers_.size());
    for (std::size_t w = 0; w < workers_.size(); ++w)
      name_ += fmt::format("{} [{}] {}", w ? ";" : "", devices[w], workers_[w]->name());
  }
  // The routing backend: worker 0 a CPU backend on `threads`, worker 1 a `device_kind` backend
  // (cuda; cpu in tests), each batch divided by the cost model.
  MultiDeviceBackend(std::string_view device_kind, int threads, int device, const routing::CostModel& model)
      : model_(model), cpu_threads_(threads) {
    workers_.push_back(std::make_unique<DeviceWorker>("cpu", threads, 0));
    // The device's backend uses host threads only to draw sample orders, while the CPU's part of
    // a split batch trains on all of them: a few, so as not to crowd it.
    workers_.push_back(std::make_unique<DeviceWorker>(std::string(device_kind), std::max(1, threads / 8), device));
    name_ = fmt::format("auto: {} and {}, each batch where the cost model sends it", workers_[0]->name(),
                        workers_[1]->name());
  }
  std::string name() const override { return name_; }
  std::optional<double> last_device_share() const { return last_share_; }

  int add_positions(const PositionData& data) override {
    const int handle = on_every_device([&](Backend& b) { return b.add_positions(data); }, "position set");
    if (handle >= static_cast<int>(set_sizes_.size())) set_sizes_.resize(static_cast<std::size_t>(handle) + 1);
    set_sizes_[static_cast<std::size_t>(handle)] = data.size();
    return handle;
  }
  void remove_positions(int handle) override {
    on_every_device(
        [&](Backend& b) {
          b.remove_positions(handle);
          return handle;
        },
        "position set");
    set_sizes_[static_cast<std::size_t>(handle)].reset();
  }
  void train(std::span<const TrainJob> jobs, std::span<TrainResult> results) override {
    // Checked here, on the whole batch, so that an error names the job by its place in it (each
    // device sees its part only) and no device starts on a batch that fails.
    validate_train_batch(jobs, results.size(), [this](int h) -> std::optional<std::size_t> {
      if (h < 0 || h >= static_cast<int>(set_sizes_.size())) return std::nullopt;
      return set_sizes_[static_cast<std::size_t>(h)];
    });
    if (model_)
      route(jobs, results, model_->device_share(routing::train_work(jobs), cpu_threads_));
    else
      split(jobs, results);
  }
#define EF_MULTI_DEVICE_PLAYOUT_METHODS(G)                                                           \
  int add_agent(const play::AgentOf<G>& agent) override {                                            \
    const int handle = on_every_device([&](Backend& b) { return b.add_agent(agent); }, "agent");     \
    note_agent<G>(handle, agent);                                                                    \
    return handle;                                                                                   \
  }                                                                                                  \
  void update_agent(int handle, const play::AgentOf<G>& agent) override {                            \
    on_every_device(                                                                                 \
        [&](Backend& b) {                                                                            \
          b.update_agent(handle, agent);                                                             \
          return handle;                                                                             \
        },                                                                                           \
        "agent");                                                                                    \
    note_agent<G>(handle, agent);                                                                    \
  }                                                                                                  \
  void play(std::span<const GameJobOf<G>> jobs, std::span<play::GameRecordOf<G>> results) override { \
    if (model_)                                                                                      \
      route(jobs, results, model_->device_share(play_work<G>(jobs), cpu_threads_));                  \
    else                                                                                             \
      split(jobs, results);                                                                          \
  }
  EF_FOR_EACH_PLAYOUT_GAME(EF_MULTI_DEVICE_PLAYOUT_METHODS)
#undef EF_MULTI_DEVICE_PLAYOUT_METHODS

 private:
  // A resource every device must hold under the same handle (jobs name it by handle).
  int on_every_device(const std::function<int(Backend&)>& add, const char* what) {
    std::vector<std::future<int>> futures;
    for (auto& w : workers_) futures.push_back(w->submit<int>(add));
    const std::vector<int> handles = wait_all(futures);
    for (int h : handles)
      if (h != handles[0]) fail("devices gave the same {} the handles {} and {}", what, handles[0], h);
    return handles[0];
  }
  template <class G>
  void note_agent(int handle, const play::AgentOf<G>& agent) {
    if (!model_) return;
    auto& flags = std::get<SearchingAgents<G>>(searching_).searching;
    if (handle >= static_cast<int>(flags.size())) flags.resize(static_cast<std::size_t>(handle) + 1, 0);
    flags[static_cast<std::size_t>(handle)] = routing::searches(agent) ? 1 : 0;
  }
  template <class G>
  routing::PlayWork play_work(std::span<const GameJobOf<G>> jobs) const {
    const auto& flags = std::get<SearchingAgents<G>>(searching_).searching;
    auto searching = [&](int h) { return h >= 0 && h < static_cast<int>(flags.size()) && flags[h]; };
    routing::PlayWork w;
    w.games = jobs.size();
    for (const auto& j : jobs) w.searching = w.searching || searching(j.black) || searching(j.white);
    return w;
  }
  // The router's division: the CPU (worker 0) takes the first part, the device the rest.
  template <class Job, class Result>
  void route(std::span<const Job> jobs, std::span<Result> results, double device_share) {
    last_share_ = device_share;
    const auto n = static_cast<double>(jobs.size());
    const double cpu_part = std::isfinite(device_share) ? std::clamp((1 - device_share) * n, 0.0, n) : n;
    const auto cpu_jobs = static_cast<std::size_t>(std::llround(cpu_part));
    split(jobs, results, {0, cpu_jobs, jobs.size()});
  }
  // Device w runs jobs [bounds[w], bounds[w + 1]) into the same slots of `results`; without
  // bounds, [w n / W, (w + 1) n / W).
  template <class Job, class Result>
  void split(std::span<const Job> jobs, std::span<Result> results, std::vector<std::size_t> bounds = {}) {
    if (jobs.size() != results.size()) fail("backend: {} jobs but {} result slots", jobs.size(), results.size());
    const std::size_t n = jobs.size(), count = workers_.size();
    if (bounds.empty())
      for (std::size_t w = 0; w <= count; ++w) bounds.push_back(w * n / count);
    std::vector<std::future<bool>> futures;
    for (std::size_t w = 0; w < count; ++w) {
      const std::size_t first = bounds[w], end = bounds[w + 1];
      if (first == end) continue;
      futures.push_back(workers_[w]->submit<bool>([jobs, results, first, end](Backend& b) {
        run_batch(b, jobs.subspan(first, end - first), results.subspan(first, end - first));
        return true;
      }));
    }
    wait_all(futures);
  }

  std::vector<std::unique_ptr<DeviceWorker>> workers_;
  std::string name_;
  std::vector<std::optional<std::size_t>> set_sizes_;  // per handle; empty once removed
  std::optional<routing::CostModel> model_;            // set: the routing backend
  int cpu_threads_ = 1;
  AllSearchingAgents searching_;
  std::optional<double> last_share_;
};

}  // namespace

std::unique_ptr<Backend> make_routing_backend(std::string_view device_kind, int threads, int device,
                                              const routing::CostModel& model) {
  return std::make_unique<MultiDeviceBackend>(device_kind, resolve_threads(threads), device, model);
}

std::optional<double> routing::last_device_share(const Backend& backend) {
  const auto* b = dynamic_cast<const MultiDeviceBackend*>(&backend);
  return b ? b->last_device_share() : std::nullopt;
}

std::unique_ptr<Backend> make_multi_device_backend(std::string_view kind, int threads, std::span<const int> devices) {
  if (devices.empty()) fail("no devices given");
  for (std::size_t i = 0; i < devices.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (devices[i] == devices[j]) fail_input("devices", "lists device {} twice", devices[i]);
  if (devices.size() == 1) return make_backend(kind, threads, devices[0]);
  // The CPU threads shared among the devices' backends (a CUDA backend uses its few for the
  // sample orders); every backend gets at least one.
  const int share = std::max(1, resolve_threads(threads) / static_cast<int>(devices.size()));
  return std::make_unique<MultiDeviceBackend>(kind, share, devices);
}

}  // namespace ef
