// Agents as bytes, for the processes of one job (backends/team_backend.hpp): rank 0 sends every
// agent it gives its own backend to the ranks that play games for it, and they must play them
// exactly as rank 0 would. AgentBytes<A> writes and reads one agent of type A.
//
// Here: the rule for an agent whose parameters are self-contained (engine/playout.hpp's
// ResidentAgent: a name and `params`, which device_params() copies as they are): the name, then
// the parameters' object bytes. A game whose agent points at memory (Othello's n-tuple
// networks) specialises AgentBytes in its own folder. The bytes are a message between
// processes of one build, never a file (agent files are games/othello/agent_file.hpp).
#pragma once
#include <string>
#include "core/bytes.hpp"

namespace ef::play {

// The longest agent name a message may carry (a longer one is a corrupt message).
constexpr std::size_t kMaxAgentNameBytes = 1 << 16;

template <class A>
struct AgentBytes {
  static void write(ByteWriter& w, const A& agent) {
    w.put_string(agent.name);
    put_object(w, agent.params);
  }
  // Throws ef::Error naming the reader's source for a truncated message or an invalid agent.
  static A read(ByteReader& r) {
    A agent;
    agent.name = r.get_string(kMaxAgentNameBytes, "an agent's name");
    agent.params = get_object<decltype(agent.params)>(r, "an agent's parameters");
    agent.validate();
    return agent;
  }
};

}  // namespace ef::play
