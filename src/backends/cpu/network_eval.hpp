// A network's value on this CPU's fastest index path: ntuple::evaluate's sum (the same i64, bit
// for bit), with the feature indices computed the way CPU training computes them (the vector
// paths of train_body.cpp: AVX-512 byte permutations, AVX2 shuffles, or pext). About 3-5x
// faster than ntuple::evaluate's scalar loop, which matters where every node evaluates: the
// exact solver's move ordering (SolverOrdering below) and n-tuple play on the CPU.
#pragma once
#include <array>
#include <cstdint>
#include <memory>
#include <vector>
#include "backends/cpu/train_body.hpp"
#include "evalforge/games/othello/ntuple.hpp"
#include "evalforge/games/othello/ntuple_evaluator.hpp"

namespace ef::cpu {

class NetworkEval {
 public:
  // For networks of geometry `g` (which must outlive this), on `path` (default_path(): the best
  // this CPU has, or EF_CPU_PATH).
  explicit NetworkEval(const ntuple::Geometry& g, VectorPath path = default_path());
  // ntuple::evaluate(g, weights, black, white).
  i64 operator()(const i32* weights, u64 black, u64 white) const;
  VectorPath path() const { return path_; }

 private:
  const ntuple::Geometry* g_;
  VectorPath path_;
  std::vector<std::uint8_t> program_;
  const void* groups_ = nullptr;
  int num_groups_ = 0;
};

// The exact solver's move-ordering estimate (games/othello/endgame.hpp's OrderingEvaluator) from a
// per-move network, with NetworkEval: the same values as ntuple::SolverOrdering, faster.
class SolverOrdering {
 public:
  static constexpr bool kEnabled = true;
  explicit SolverOrdering(const ntuple::Evaluator& evaluator, VectorPath path = default_path());
  int value(u64 P, u64 O) const {
    const ntuple::SolverView view = ntuple::solver_view(P, O);
    const Stage& s = stages_[static_cast<std::size_t>(view.move)];
    return ntuple::solver_value((*s.eval)(s.weights, view.p_black ? P : O, view.p_black ? O : P), view.p_black);
  }

 private:
  struct Stage {
    const NetworkEval* eval = nullptr;
    const i32* weights = nullptr;
  };
  std::vector<std::unique_ptr<NetworkEval>> evals_;  // one per distinct geometry
  std::array<Stage, ntuple::kMoveNumbers> stages_{};
};

}  // namespace ef::cpu
