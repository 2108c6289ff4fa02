#include "evalforge/games/othello/agent.hpp"
#include <algorithm>
#include <cmath>
#include "core/bytes.hpp"
#include "engine/agent_bytes.hpp"
#include "evalforge/core/error.hpp"

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

void AgentBytes<OthelloAgent>::write(ByteWriter& w, const OthelloAgent& a) {
  w.put_string(a.name);
  w.put(a.kind);
  w.put<i32>(a.limits.depth);
  w.put<i32>(a.limits.exact_empties);
  w.put(a.limits.algorithm);
  w.put(a.epsilon);
  put_object(w, a.features);
  w.put<u32>(static_cast<u32>(a.geometries.size()));
  put_objects(w, std::span<const ntuple::Geometry>(a.geometries));
  w.put<u32>(static_cast<u32>(a.geometry_names.size()));
  for (const std::string& n : a.geometry_names) w.put_string(n);
  w.put<u32>(static_cast<u32>(a.networks.size()));
  for (const Network& n : a.networks) {
    w.put<i32>(n.geometry);
    w.put<u32>(static_cast<u32>(n.weights.size()));
    w.put_array<i32>(n.weights);
  }
  w.put_array<int>(a.network_of_move);
  w.put<bool>(a.probcut != nullptr);
  if (a.probcut) put_object(w, *a.probcut);
  w.put_string(a.probcut_file);
}

OthelloAgent AgentBytes<OthelloAgent>::read(ByteReader& r) {
  OthelloAgent a;
  a.name = r.get_string(kMaxAgentNameBytes, "an agent's name");
  a.kind = r.get<OthelloEvaluator>("the evaluator");
  a.limits.depth = r.get<i32>("the depth");
  a.limits.exact_empties = r.get<i32>("the exact empties");
  a.limits.algorithm = r.get<search::MidgameSearch>("the midgame search");
  a.epsilon = r.get<double>("epsilon");
  a.features = get_object<features::Weights>(r, "the feature weights");
  a.geometries = get_objects<ntuple::Geometry>(r, r.get<u32>("the geometry count"), "the geometries");
  const u32 names = r.get<u32>("the geometry name count");
  if (names > r.remaining() / 4) r.bad(fmt::format("{} geometry names in {} bytes", names, r.remaining()));
  a.geometry_names.resize(names);
  for (std::string& n : a.geometry_names) n = r.get_string(kMaxAgentNameBytes, "a geometry name");
  const u32 networks = r.get<u32>("the network count");
  if (networks > r.remaining() / 8) r.bad(fmt::format("{} networks in {} bytes", networks, r.remaining()));
  a.networks.resize(networks);
  for (Network& n : a.networks) {
    n.geometry = r.get<i32>("a network's geometry");
    n.weights = r.get_array<i32>(r.get<u32>("a network's weight count"), "a network's weights");
  }
  const std::vector<int> of_move = r.get_array<int>(a.network_of_move.size(), "the network of each move");
  std::copy(of_move.begin(), of_move.end(), a.network_of_move.begin());
  if (r.get<bool>("the ProbCut flag"))
    a.probcut = std::make_shared<const search::ProbCut>(get_object<search::ProbCut>(r, "the ProbCut parameters"));
  a.probcut_file = r.get_string(kMaxAgentNameBytes, "the ProbCut file");
  a.validate();
  return a;
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
