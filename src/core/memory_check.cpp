#include "evalforge/core/memory_check.hpp"
#include <fmt/format.h>
#include <unistd.h>
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>
#include "evalforge/core/error.hpp"

namespace ef {

double memory_limit_bytes() {
  if (const char* env = std::getenv("EF_MEMORY_LIMIT_MB"); env && *env) {
    char* end = nullptr;
    const long long mb = std::strtoll(env, &end, 10);
    if (*end != '\0' || mb <= 0) fail("EF_MEMORY_LIMIT_MB='{}' (expected a positive number of megabytes)", env);
    return static_cast<double>(mb) * 1e6;
  }
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page <= 0) return INFINITY;  // unknown: no limit rather than a false refusal
  return static_cast<double>(pages) * static_cast<double>(page);
}

std::string format_bytes(double bytes) {
  static const char* const units[] = {"B", "kB", "MB", "GB", "TB", "PB", "EB"};
  if (!std::isfinite(bytes)) return "unbounded";
  if (bytes < 1000) return fmt::format("{:.0f} B", bytes);
  int u = 0;
  while (bytes >= 999.5 && u < 6) {
    bytes /= 1000;
    ++u;
  }
  if (bytes >= 999.5) return fmt::format("{:.0f} {}", bytes, units[u]);
  return fmt::format("{:.{}f} {}", bytes, bytes < 9.995 ? 2 : bytes < 99.95 ? 1 : 0, units[u]);
}

double total_bytes(const std::vector<MemoryPart>& parts) {
  double sum = 0;
  for (const MemoryPart& p : parts) sum += p.bytes;
  return sum;
}

MemoryPart items_memory(std::string_view what, double count, double bytes_each) {
  return {fmt::format("{} ({} x {})", what, count, format_bytes(bytes_each)), count * bytes_each};
}

std::string check_memory(std::string_view who, const std::vector<MemoryPart>& parts, double limit,
                         std::string_view limit_name, std::string_view advice) {
  const double need = total_bytes(parts);
  if (need > limit) {
    std::vector<MemoryPart> sorted = parts;
    std::stable_sort(sorted.begin(), sorted.end(),
                     [](const MemoryPart& a, const MemoryPart& b) { return a.bytes > b.bytes; });
    std::string list;
    for (const MemoryPart& p : sorted) {
      if (p.bytes < need * 1e-3) continue;  // the parts that matter
      list += fmt::format("{}{}: {}", list.empty() ? "" : "; ", p.what, format_bytes(p.bytes));
    }
    fail("{}: needs about {} of memory ({}), more than the {} {}{}{}", who, format_bytes(need), list,
         format_bytes(limit), limit_name, advice.empty() ? "" : "; ", advice);
  }
  return fmt::format("memory estimate: {} (limit {} {})", format_bytes(need), format_bytes(limit), limit_name);
}

std::string check_memory(std::string_view who, const std::vector<MemoryPart>& parts, std::string_view advice) {
  const char* env = std::getenv("EF_MEMORY_LIMIT_MB");
  return check_memory(who, parts, memory_limit_bytes(),
                      env && *env ? "of EF_MEMORY_LIMIT_MB" : "of this machine (EF_MEMORY_LIMIT_MB sets another)",
                      advice);
}

}  // namespace ef
