#include "games/othello/agent.hpp"
#include <cmath>
#include "core/error.hpp"

namespace ef::play {

void OthelloAgent::validate() const {
  if (limits.depth < 1 || limits.depth > kMaxDepth)
    fail("agent '{}': depth {} is outside 1..{}", name, limits.depth, kMaxDepth);
  if (limits.exact_empties < -1 || limits.exact_empties > kMaxExactEmpties)
    fail("agent '{}': exact_empties {} is outside -1..{}", name, limits.exact_empties, kMaxExactEmpties);
  if (!(epsilon >= 0.0 && epsilon <= 1.0)) fail("agent '{}': epsilon {} is outside 0..1", name, epsilon);
  if (limits.probcut) fail("agent '{}': limits.probcut is set by params(); use OthelloAgent::probcut", name);
  if (probcut && limits.algorithm == search::MidgameSearch::kAlphaBeta)
    fail("agent '{}': ProbCut needs search = \"pvs\" (plain alpha-beta is not selective)", name);
  if (kind != OthelloEvaluator::kNtuple) return;
  if (networks.empty()) fail("agent '{}': an n-tuple agent needs at least one network", name);
  for (std::size_t i = 0; i < networks.size(); ++i) {
    const Network& n = networks[i];
    if (n.geometry < 0 || n.geometry >= static_cast<int>(geometries.size()))
      fail("agent '{}': network {} names geometry {} of {}", name, i, n.geometry, geometries.size());
    const u32 want = geometries[n.geometry].num_weights();
    if (n.weights.size() != want)
      fail("agent '{}': network {} has {} weights, its geometry {}", name, i, n.weights.size(), want);
  }
  for (int t = 0; t < ntuple::kMoveNumbers; ++t)
    if (network_of_move[t] < 0 || network_of_move[t] >= static_cast<int>(networks.size()))
      fail("agent '{}': move {} names network {} of {}", name, t, network_of_move[t], networks.size());
}

u32 OthelloAgent::epsilon_ppm() const { return static_cast<u32>(std::lround(epsilon * kEpsilonScale)); }

ntuple::Evaluator OthelloAgent::ntuple_evaluator() const {
  ntuple::Evaluator e{};
  if (kind != OthelloEvaluator::kNtuple) return e;
  for (int t = 0; t < ntuple::kMoveNumbers; ++t) {
    const Network& n = networks[network_of_move[t]];
    e.stage_of_move[t] = ntuple::Stage{&geometries[n.geometry], n.weights.data()};
  }
  return e;
}

OthelloParams OthelloAgent::params(const ntuple::Evaluator* ntuple) const {
  OthelloParams p;
  p.kind = kind;
  p.limits = limits;
  p.limits.probcut = probcut.get();
  p.epsilon_ppm = epsilon_ppm();
  p.features = features::evaluator_of(features);  // the family's exact scale too
  p.ntuple = ntuple;
  return p;
}

OthelloAgent random_agent() {
  OthelloAgent a;
  a.name = "random";
  a.kind = OthelloEvaluator::kRandom;
  return a;
}

OthelloAgent swh_agent(search::OthelloLimits limits) {
  OthelloAgent a;
  a.name = "swh";
  a.kind = OthelloEvaluator::kSwh;
  a.limits = limits;
  return a;
}

OthelloAgent ntuple_agent_per_move(std::string name, std::vector<ntuple::Geometry> geometries,
                                   std::vector<std::string> geometry_names,
                                   const std::array<int, ntuple::kMoveNumbers>& geometry_of_move,
                                   search::OthelloLimits limits) {
  OthelloAgent a;
  a.name = std::move(name);
  a.kind = OthelloEvaluator::kNtuple;
  a.limits = limits;
  a.geometries = std::move(geometries);
  a.geometry_names = std::move(geometry_names);
  for (int t = 0; t < ntuple::kMoveNumbers; ++t) {
    const int g = geometry_of_move[t];
    if (g < 0 || g >= static_cast<int>(a.geometries.size()))
      fail("agent '{}': move {} names geometry {} of {}", a.name, t, g, a.geometries.size());
    a.networks.push_back(Network{g, std::vector<i32>(a.geometries[g].num_weights(), 0)});
    a.network_of_move[t] = t;
  }
  a.validate();
  return a;
}

}  // namespace ef::play
