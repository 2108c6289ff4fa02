// Host-side fork/join: run one worker function on n threads (the calling thread is one of
// them). Workers pull their own work items (e.g. from an atomic counter), so results never
// depend on n; the first exception a worker throws is rethrown after all have joined.
#pragma once
#include <algorithm>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace ef {

// A --threads value: itself when positive, else every hardware thread (at least 1).
inline int resolve_threads(int threads) {
  return threads > 0 ? threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

template <typename Worker>
void run_parallel(int threads, Worker&& worker) {
  std::exception_ptr error;
  std::mutex error_mutex;
  auto guarded = [&] {
    try {
      worker();
    } catch (...) {
      std::lock_guard lock(error_mutex);
      if (!error) error = std::current_exception();
    }
  };
  {
    std::vector<std::jthread> pool;
    for (int t = 1; t < threads; ++t) pool.emplace_back(guarded);
    guarded();
  }  // jthreads join here
  if (error) std::rethrow_exception(error);
}

}  // namespace ef
