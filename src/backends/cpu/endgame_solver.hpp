// The exact endgame solver of `evalforge solve` on the CPU (search::ParallelSolve over
// games/othello/endgame.hpp, ordered by SolverOrdering), in up to three builds of the same code,
// picked at run time (docs/search.md, "Which machine code solves"):
//  - baseline: compiled with the build's own flags (with EF_NATIVE=OFF, any x86-64);
//  - x86-64-v3 (x86-64 builds only): the same code compiled for AVX2, BMI2 and POPCNT, which
//    turns on the SIMD move generator of games/othello/bitboard.hpp and the popcount
//    instruction: about 1.5x faster than a baseline x86-64 build on FFO #20-#39;
//  - x86-64-v4 (x86-64 builds only): compiled for AVX-512, whose per-lane leading-zero count
//    shortens the flip generator: about 6% faster than x86-64-v3 (FFO #20-#39: 0.92x the time).
// All search the same tree: scores, moves and node counts are the same (tested), so the copy is
// a matter of speed only. The copies are built into optimised builds without sanitizers
// (CMakeLists.txt); the widest the CPU runs is the default, except in a -march=native build,
// whose own code is made for its machine (the copies are still there for EF_SOLVER_ISA and the
// tests). The dispatch is what keeps a portable binary fast.
#pragma once
#include <memory>
#include <vector>
#include "backends/cpu/network_eval.hpp"
#include "evalforge/games/othello/endgame.hpp"
#include "games/othello/solve_parallel.hpp"

namespace ef::cpu {

enum class SolverIsa { kBaseline, kX86_64_V3, kX86_64_V4 };

const char* solver_isa_name(SolverIsa isa);  // "baseline", "x86-64-v3", "x86-64-v4"
// The copies this binary holds and this CPU can run, baseline first.
std::vector<SolverIsa> available_solver_isas();
// The one the environment variable EF_SOLVER_ISA names (baseline|x86-64-v3|x86-64-v4; an unknown or
// unavailable name is an error naming the variable); else baseline in a -march=native build,
// and the last available copy in any other.
SolverIsa default_solver_isa();

// Sees the exact passes' nodes above kSmallEmpties as the solver meets them (endgame.hpp's
// visit hook), from the thread that searches them: runs/ordering_network.cpp samples the
// solver's own trees through it. It cannot change what the solver does.
class NodeVisitor {
 public:
  virtual ~NodeVisitor() = default;
  virtual void visit(u64 P, u64 O, int empties) = 0;
};

class EndgameSolver {
 public:
  virtual ~EndgameSolver() = default;
  // search::ParallelSolve::solve.
  virtual search::SolveResult solve(u64 P, u64 O, int alpha = -64, int beta = 64) = 0;
  virtual double helper_cpu_seconds() const = 0;
  virtual SolverIsa isa() const = 0;
};

// search::ParallelSolve(threads, table, order, split_empties) in the copy `isa` (which must be
// available: ef::Error otherwise). `order` may be null (mobility ordering only); it and the
// table must outlive the solver, and so must `visitor` (may be null; called only with an
// ordering).
std::unique_ptr<EndgameSolver> make_endgame_solver(int threads, search::endgame::HashTable* table,
                                                   const SolverOrdering* order,
                                                   int split_empties = search::endgame::kSplitEmpties,
                                                   SolverIsa isa = default_solver_isa(),
                                                   NodeVisitor* visitor = nullptr);

namespace detail {

// The solver, keyed by `Tag`, a type of the file that instantiates it (each copy passes one
// from its anonymous namespace). Everything it instantiates (its ordering reference Ref, the
// ParallelSolve and solver templates over Ref) is then that file's alone: a function compiled
// for x86-64-v3 or -v4 can never stand in, at link time, for the baseline copy another file uses
// (a clash of one definition that would crash a CPU without AVX2 or AVX-512).
template <class Tag>
class SolverOf final : public EndgameSolver {
 public:
  SolverOf(int threads, search::endgame::HashTable* table, const SolverOrdering* order, int split_empties,
           SolverIsa isa, NodeVisitor* visitor)
      : ref_{order, visitor}, solver_(threads, table, order ? &ref_ : nullptr, split_empties), isa_(isa) {}
  search::SolveResult solve(u64 P, u64 O, int alpha, int beta) override { return solver_.solve(P, O, alpha, beta); }
  double helper_cpu_seconds() const override { return solver_.helper_cpu_seconds(); }
  SolverIsa isa() const override { return isa_; }

 private:
  // SolverOrdering as the solver's OrderingEvaluator, and the visitor behind its visit hook.
  struct Ref {
    static constexpr bool kEnabled = true;
    const SolverOrdering* order;
    NodeVisitor* visitor;
    int value(u64 P, u64 O) const { return order->value(P, O); }
    void visit(u64 P, u64 O, int empties) const {
      if (visitor) visitor->visit(P, O, empties);
    }
  };
  Ref ref_;
  search::ParallelSolve<Ref> solver_;
  SolverIsa isa_;
};

#if defined(EF_SOLVER_X86_64_V3)
// endgame_solver_x86_64_v3.cpp.
std::unique_ptr<EndgameSolver> make_endgame_solver_x86_64_v3(int threads, search::endgame::HashTable* table,
                                                             const SolverOrdering* order, int split_empties,
                                                             NodeVisitor* visitor);
#endif
#if defined(EF_SOLVER_X86_64_V4)
// endgame_solver_x86_64_v4.cpp.
std::unique_ptr<EndgameSolver> make_endgame_solver_x86_64_v4(int threads, search::endgame::HashTable* table,
                                                             const SolverOrdering* order, int split_empties,
                                                             NodeVisitor* visitor);
#endif

}  // namespace detail

}  // namespace ef::cpu
