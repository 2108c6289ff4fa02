// An Othello agent on the host: what games/othello/players.hpp's OthelloParams points at, in owning form.
//
// An n-tuple agent holds one or more networks (a geometry and its weights) and, for every move
// number 0..60, the network that values positions at that move: "one weight set per move
// number" is 61 networks, "by phase" a few networks each covering a range of moves, and both
// may share geometries (the match of docs/method.md 1.4: searched shapes by phase, weights per move).
// Backends copy an Agent (Backend::add_agent), so it can be retrained and handed over again.
#pragma once
#include <array>
#include <memory>
#include <string>
#include <vector>
#include "evalforge/engine/play_backend.hpp"
#include "evalforge/games/othello/players.hpp"

namespace ef {
class ByteWriter;
class ByteReader;
}  // namespace ef

namespace ef::play {

struct Network {
  int geometry = 0;          // index into Agent::geometries
  std::vector<i32> weights;  // geometries[geometry].num_weights() weights
};

struct OthelloAgent {
  std::string name = "swh";
  OthelloEvaluator kind = OthelloEvaluator::kSwh;
  search::OthelloLimits limits{1, -1};
  double epsilon = 0.0;                                     // probability of a random move, 0..1
  features::Weights features;                               // kFeatures
  std::vector<ntuple::Geometry> geometries;                 // kNtuple
  std::vector<std::string> geometry_names;                  // a name per geometry (shape names; may be empty)
  std::vector<Network> networks;                            // kNtuple
  std::array<int, ntuple::kMoveNumbers> network_of_move{};  // kNtuple: index into networks
  // Selective midgame search (engine/pvs.hpp's ProbCut; null: none). params() points
  // limits.probcut at it; copies share it (it is never changed). CPU backend and GTP only.
  std::shared_ptr<const search::ProbCut> probcut;
  std::string probcut_file;  // where it was read from (written back by save_agent), may be empty

  // Throws ef::Error (naming the agent) for limits beyond kMaxDepth / kMaxExactEmpties, an
  // epsilon outside 0..1, or networks that do not fit their geometries.
  void validate() const;
  u32 epsilon_ppm() const;
  // The evaluator over this agent's own (host) weights; valid while the agent is unchanged.
  ntuple::Evaluator ntuple_evaluator() const;
  // The device-copyable form, with `ntuple` as the n-tuple evaluator (may be null for other kinds).
  OthelloParams params(const ntuple::Evaluator* ntuple) const;
};

// Built-ins: "random", "swh" (1-ply unless limits say otherwise).
OthelloAgent random_agent();
OthelloAgent swh_agent(search::OthelloLimits limits = {1, -1});
// An n-tuple agent with one zero-weight network per move number, the geometry of move t being
// geometries[geometry_of_move[t]].
OthelloAgent ntuple_agent_per_move(std::string name, std::vector<ntuple::Geometry> geometries,
                                   std::vector<std::string> geometry_names,
                                   const std::array<int, ntuple::kMoveNumbers>& geometry_of_move,
                                   search::OthelloLimits limits);

// An Othello agent as a message (engine/agent_bytes.hpp): every field, the networks' weights and
// the ProbCut parameters included (not the pointers into them, which params() makes). Declared
// here without core/bytes.hpp, which the CUDA compiler that includes this header cannot read.
template <class A>
struct AgentBytes;
template <>
struct AgentBytes<OthelloAgent> {
  static void write(ByteWriter& w, const OthelloAgent& agent);
  static OthelloAgent read(ByteReader& r);
};

template <>
struct ResidentAgent<OthelloAgent> {
  explicit ResidentAgent(const OthelloAgent& a)
      : agent(a), evaluator(agent.ntuple_evaluator()), params(agent.params(&evaluator)) {}
  ResidentAgent(const ResidentAgent&) = delete;
  ResidentAgent& operator=(const ResidentAgent&) = delete;
  OthelloAgent agent;
  ntuple::Evaluator evaluator;
  OthelloParams params;
};

template <>
struct Players<games::Othello> {
  using Agent = play::OthelloAgent;
  using Params = OthelloParams;
  static constexpr const char* kName = "othello";
};

}  // namespace ef::play

namespace ef {
// One Othello game for a backend to play (engine/play_backend.hpp).
using OthelloJob = GameJobOf<games::Othello>;
}  // namespace ef
