// The x86-64-v4 (AVX-512) copy of the CPU endgame solver (endgame_solver.hpp): this file alone is
// compiled with -march=x86-64-v4 (CMakeLists.txt), and only called on CPUs that have it. What it
// adds to the x86-64-v3 copy is the flip generator's AVX-512 path (a per-lane leading-zero count,
// games/othello/bitboard.hpp). Everything the solver instantiates here is keyed by V4Tag, a
// type of this file's own (detail::SolverOf says why); scripts/check-isa-object.py checks after
// every build of the library that the object shares no other code.
#if defined(EF_SOLVER_X86_64_V4)
#include "backends/cpu/endgame_solver.hpp"

namespace ef::cpu {

namespace {

struct V4Tag;  // detail::SolverOf's key for this copy

}  // namespace

namespace detail {

std::unique_ptr<EndgameSolver> make_endgame_solver_x86_64_v4(int threads, search::endgame::HashTable* table,
                                                             const SolverOrdering* order, int split_empties,
                                                             NodeVisitor* visitor) {
  return std::make_unique<SolverOf<V4Tag>>(threads, table, order, split_empties, SolverIsa::kX86_64_V4, visitor);
}

}  // namespace detail

}  // namespace ef::cpu
#endif
