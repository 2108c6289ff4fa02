// Small pieces every benchmark prints with its figures: the CPU model (beside every figure, as
// machines differ from run to run) and the median of repeated timings (these machines are noisy).
#pragma once
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

namespace ef::bench {

inline std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  return "unknown CPU";
}

// Lines reach a pipe as they are printed, so a benchmark stopped by a time limit
// (scripts/gpu-check.sh runs each under `timeout`) keeps the figures it had printed.
inline void print_lines_as_they_come() { std::setvbuf(stdout, nullptr, _IOLBF, 0); }

inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

}  // namespace ef::bench
