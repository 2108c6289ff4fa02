#include "backends/cpu/endgame_solver.hpp"
#include <fmt/format.h>
#include <cstdlib>
#if defined(EF_SOLVER_X86_64_V3) || defined(EF_SOLVER_X86_64_V4)
#include <cpuid.h>
#endif
#include <string>
#include <string_view>
#include "evalforge/core/error.hpp"

namespace ef::cpu {

namespace {

struct BaselineTag;  // detail::SolverOf's key for the baseline copy

#if defined(EF_SOLVER_X86_64_V3) || defined(EF_SOLVER_X86_64_V4)
// What -march=x86-64-v3 adds to x86-64 (AVX2 implies the SSE levels and AVX below it). LZCNT,
// MOVBE and F16C by CPUID: clang before 19 does not know their names in __builtin_cpu_supports.
bool cpu_has_x86_64_v3() {
  unsigned a = 0, b = 0, c = 0, d = 0;
  const bool movbe_f16c = __get_cpuid(1, &a, &b, &c, &d) && (c >> 22 & 1) && (c >> 29 & 1);
  const bool lzcnt = __get_cpuid(0x80000001u, &a, &b, &c, &d) && (c >> 5 & 1);
  return movbe_f16c && lzcnt && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi") &&
         __builtin_cpu_supports("bmi2") && __builtin_cpu_supports("popcnt") && __builtin_cpu_supports("fma");
}
#endif

bool cpu_runs(SolverIsa isa) {
  switch (isa) {
    case SolverIsa::kBaseline: return true;
    case SolverIsa::kX86_64_V3:
#if defined(EF_SOLVER_X86_64_V3)
      return cpu_has_x86_64_v3();
#else
      return false;
#endif
    case SolverIsa::kX86_64_V4:
#if defined(EF_SOLVER_X86_64_V4)
      // What -march=x86-64-v4 adds to v3: AVX-512 F, BW, CD, DQ and VL (the compilers' checks
      // include the operating system's support for the AVX-512 registers).
      return cpu_has_x86_64_v3() && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
             __builtin_cpu_supports("avx512cd") && __builtin_cpu_supports("avx512dq") &&
             __builtin_cpu_supports("avx512vl");
#else
      return false;
#endif
  }
  return false;
}

constexpr SolverIsa kAllIsas[] = {SolverIsa::kBaseline, SolverIsa::kX86_64_V3, SolverIsa::kX86_64_V4};

}  // namespace

const char* solver_isa_name(SolverIsa isa) {
  switch (isa) {
    case SolverIsa::kBaseline: return "baseline";
    case SolverIsa::kX86_64_V3: return "x86-64-v3";
    case SolverIsa::kX86_64_V4: return "x86-64-v4";
  }
  return "unknown";
}

std::vector<SolverIsa> available_solver_isas() {
  std::vector<SolverIsa> out;
  for (SolverIsa isa : kAllIsas)
    if (cpu_runs(isa)) out.push_back(isa);
  return out;
}

SolverIsa default_solver_isa() {
  const std::vector<SolverIsa> available = available_solver_isas();
  const char* env = std::getenv("EF_SOLVER_ISA");
#if defined(EF_BASELINE_IS_NATIVE)
  // A -march=native build's own code is made for this machine: it stays the default.
  if (!env || !*env) return SolverIsa::kBaseline;
#else
  if (!env || !*env) return available.back();
#endif
  for (SolverIsa isa : available)
    if (std::string_view(env) == solver_isa_name(isa)) return isa;
  std::string names;
  for (SolverIsa isa : available) names += fmt::format("{}{}", names.empty() ? "" : ", ", solver_isa_name(isa));
  bool known = false;
  for (SolverIsa isa : kAllIsas) known = known || std::string_view(env) == solver_isa_name(isa);
  fail("EF_SOLVER_ISA: {} {} (available here: {})", env,
       known ? "is not available in this binary or on this CPU" : "is not baseline, x86-64-v3 or x86-64-v4", names);
}

std::unique_ptr<EndgameSolver> make_endgame_solver(int threads, search::endgame::HashTable* table,
                                                   const SolverOrdering* order, int split_empties, SolverIsa isa,
                                                   NodeVisitor* visitor) {
  if (!cpu_runs(isa)) fail("solver: the {} copy is not available in this binary or on this CPU", solver_isa_name(isa));
#if defined(EF_SOLVER_X86_64_V3)
  if (isa == SolverIsa::kX86_64_V3)
    return detail::make_endgame_solver_x86_64_v3(threads, table, order, split_empties, visitor);
#endif
#if defined(EF_SOLVER_X86_64_V4)
  if (isa == SolverIsa::kX86_64_V4)
    return detail::make_endgame_solver_x86_64_v4(threads, table, order, split_empties, visitor);
#endif
  return std::make_unique<detail::SolverOf<BaselineTag>>(threads, table, order, split_empties, SolverIsa::kBaseline,
                                                         visitor);
}

}  // namespace ef::cpu
