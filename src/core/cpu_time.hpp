// CPU time of the calling thread: the per-core figure of a measurement, unaffected by other
// load on a shared machine (where the wall-clock rate understates a solver's speed by up to
// 2.5x). Used by `evalforge solve` and the benchmarks.
#pragma once
#include <time.h>

namespace ef {

inline double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

}  // namespace ef
