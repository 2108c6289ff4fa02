// make_team_backend and serve_team_backend (backends/team_backend.hpp): rank 0's side and the
// serving ranks' side of one protocol, kept in one file so that the two cannot drift apart.
#include "backends/team_backend.hpp"
#include <fmt/format.h>
#include <cstdint>
#include <exception>
#include <string>
#include <utility>
#include <vector>
#include "core/bytes.hpp"
#include "engine/agent_bytes.hpp"
#include "evalforge/core/error.hpp"

namespace ef {

namespace {

enum class Op : std::uint8_t { kStop = 0, kAddAgent = 1, kUpdateAgent = 2, kPlay = 3 };

constexpr std::size_t kMaxGameName = 64;

// The games [first, end) of a batch of n that rank r of `ranks` plays (the multi-device split).
struct Share {
  std::size_t first, end;
};
Share share_of(int rank, int ranks, std::size_t n) {
  const auto at = [&](int r) { return static_cast<std::size_t>(static_cast<u64>(r) * n / static_cast<u64>(ranks)); };
  return {at(rank), at(rank + 1)};
}

ByteWriter command(Op op, std::string_view game, i64 value) {
  ByteWriter w;
  w.put(op);
  w.put_string(game);
  w.put<i64>(value);
  return w;
}

class TeamBackend final : public Backend {
 public:
  TeamBackend(std::unique_ptr<Backend> local, ga::IslandTeam& team)
      : local_(std::move(local)), team_(team), exceptions_(std::uncaught_exceptions()) {}
  // Tells the serving ranks to stop, on the normal path only: while an error unwinds, the
  // command line ends every rank anyway (MPI_Abort; a thread team wakes its threads), and a
  // message to a rank that has died could only wait for the watchdog.
  ~TeamBackend() override {
    if (std::uncaught_exceptions() > exceptions_ || broken_) return;
    try {
      std::string stop = command(Op::kStop, "", 0).take();
      team_.broadcast(stop);
    } catch (const std::exception&) {
      // A rank gone at the very end: the run's files are complete; nothing left to tell it.
    }
  }
  TeamBackend(const TeamBackend&) = delete;
  TeamBackend& operator=(const TeamBackend&) = delete;

  std::string name() const override { return fmt::format("{} ranks of {}", team_.size(), local_->name()); }
  int add_positions(const PositionData& data) override { return local_->add_positions(data); }
  void remove_positions(int handle) override { local_->remove_positions(handle); }
  void train(std::span<const TrainJob> jobs, std::span<TrainResult> results) override { local_->train(jobs, results); }

#define EF_TEAM_PLAYOUT_METHODS(G)                                                                   \
  int add_agent(const play::AgentOf<G>& agent) override {                                            \
    const int handle = local_->add_agent(agent);                                                     \
    send_agent<G>(Op::kAddAgent, handle, agent);                                                     \
    return handle;                                                                                   \
  }                                                                                                  \
  void update_agent(int handle, const play::AgentOf<G>& agent) override {                            \
    local_->update_agent(handle, agent);                                                             \
    send_agent<G>(Op::kUpdateAgent, handle, agent);                                                  \
  }                                                                                                  \
  void play(std::span<const GameJobOf<G>> jobs, std::span<play::GameRecordOf<G>> results) override { \
    play_on_team<G>(jobs, results);                                                                  \
  }
  EF_FOR_EACH_PLAYOUT_GAME(EF_TEAM_PLAYOUT_METHODS)
#undef EF_TEAM_PLAYOUT_METHODS

 private:
  // Any failure of the team itself, of a serving rank or of rank 0's own share leaves the
  // serving ranks in an unknown state (a reply may be left unread): no more commands, not even
  // the stop, and every later call is refused.
  template <class F>
  auto on_team(F&& f) {
    if (broken_) fail("the team of {} ranks failed earlier: its games cannot go on", team_.size());
    try {
      return f();
    } catch (...) {
      broken_ = true;
      throw;
    }
  }

  template <play::PlayoutGame G>
  void send_agent(Op op, int handle, const play::AgentOf<G>& agent) {
    ByteWriter w = command(op, play::Players<G>::kName, handle);
    play::AgentBytes<play::AgentOf<G>>::write(w, agent);
    std::string bytes = w.take();
    on_team([&] { team_.broadcast(bytes); });
  }

  template <play::PlayoutGame G>
  void play_on_team(std::span<const GameJobOf<G>> jobs, std::span<play::GameRecordOf<G>> results) {
    if (jobs.size() != results.size()) fail("backend: {} jobs but {} result slots", jobs.size(), results.size());
    const int ranks = team_.size();
    const std::size_t n = jobs.size();
    std::string header = command(Op::kPlay, play::Players<G>::kName, static_cast<i64>(n)).take();
    std::vector<std::pair<int, std::string>> outgoing;
    for (int r = 1; r < ranks; ++r) {
      const Share s = share_of(r, ranks, n);
      ByteWriter w;
      put_objects(w, jobs.subspan(s.first, s.end - s.first));
      outgoing.emplace_back(r, w.take());
    }
    on_team([&] {
      team_.broadcast(header);
      team_.exchange(outgoing, {});
      // Rank 0's share while the others play theirs.
      const Share own = share_of(0, ranks, n);
      local_->play(jobs.subspan(own.first, own.end - own.first), results.subspan(own.first, own.end - own.first));
      const std::vector<std::string> replies = team_.gather(std::string());
      for (int r = 1; r < ranks; ++r) {
        const Share s = share_of(r, ranks, n);
        ByteReader reply(replies[static_cast<std::size_t>(r)], fmt::format("the games of rank {}", r));
        if (!reply.get<bool>("the status"))
          fail("rank {} of {}: {}", r, ranks, reply.bytes(reply.remaining(), "the error"));
        const auto records = get_objects<play::GameRecordOf<G>>(reply, s.end - s.first, "the records");
        reply.expect_end();
        std::copy(records.begin(), records.end(), results.begin() + static_cast<std::ptrdiff_t>(s.first));
      }
    });
  }

  std::unique_ptr<Backend> local_;
  ga::IslandTeam& team_;
  int exceptions_;
  bool broken_ = false;
};

// A serving rank's state between commands.
struct Server {
  Server(Backend& l, ga::IslandTeam& t) : local(l), team(t) {}
  Backend& local;
  ga::IslandTeam& team;
  ga::InjectedFailure failure = ga::InjectedFailure::from_environment();
  int batch = 0;
  std::string pending;  // the first error since the last batch, for rank 0

  template <play::PlayoutGame G>
  void serve(Op op, ByteReader& r, i64 value) {
    using Agent = play::AgentOf<G>;
    switch (op) {
      case Op::kAddAgent:
      case Op::kUpdateAgent:
        try {
          const Agent agent = play::AgentBytes<Agent>::read(r);
          r.expect_end();
          const int handle = static_cast<int>(value);
          if (op == Op::kUpdateAgent) {
            local.update_agent(handle, agent);
          } else if (const int mine = local.add_agent(agent); mine != handle) {
            fail("agent '{}' got the handle {} here and {} on rank 0", agent.name, mine, handle);
          }
        } catch (const std::exception& e) {
          if (pending.empty()) pending = e.what();
        }
        return;
      case Op::kPlay: return play<G>(static_cast<std::size_t>(value));
      case Op::kStop: break;
    }
    fail("rank {}: command {} cannot be served", team.rank(), static_cast<int>(op));
  }

  template <play::PlayoutGame G>
  void play(std::size_t n) {
    const std::string jobs_bytes = team.exchange({}, {0}).at(0);
    failure.apply(team.rank(), batch++);
    ByteWriter reply;
    try {
      if (!pending.empty()) fail("{}", pending);
      const Share s = share_of(team.rank(), team.size(), n);
      ByteReader r(jobs_bytes, fmt::format("the games sent to rank {}", team.rank()));
      const auto jobs = get_objects<GameJobOf<G>>(r, s.end - s.first, "the games");
      r.expect_end();
      std::vector<play::GameRecordOf<G>> records(jobs.size());
      local.play(std::span<const GameJobOf<G>>(jobs), std::span<play::GameRecordOf<G>>(records));
      reply.put<bool>(true);
      put_objects(reply, std::span<const play::GameRecordOf<G>>(records));
    } catch (const std::exception& e) {
      reply = ByteWriter();
      reply.put<bool>(false);
      reply.put_bytes(e.what());
    }
    team.gather(reply.take());
  }
};

}  // namespace

std::unique_ptr<Backend> make_team_backend(std::unique_ptr<Backend> local, ga::IslandTeam& team) {
  if (team.rank() != 0) fail("the team backend runs on rank 0; rank {} serves (serve_team_backend)", team.rank());
  if (team.size() == 1) return local;
  return std::make_unique<TeamBackend>(std::move(local), team);
}

void serve_team_backend(Backend& local, ga::IslandTeam& team) {
  if (team.rank() == 0) fail("rank 0 runs the team backend; the other ranks serve it");
  Server server(local, team);
  while (true) {
    std::string bytes;
    team.broadcast(bytes);
    ByteReader r(bytes, fmt::format("a command from rank 0 to rank {}", team.rank()));
    const Op op = r.get<Op>("the command");
    const std::string game = r.get_string(kMaxGameName, "the game");
    const i64 value = r.get<i64>("the handle or game count");
    if (op == Op::kStop) return;
    bool known = false;
#define EF_SERVE_GAME(G)                           \
  if (!known && game == play::Players<G>::kName) { \
    known = true;                                  \
    server.serve<G>(op, r, value);                 \
  }
    EF_FOR_EACH_PLAYOUT_GAME(EF_SERVE_GAME)
#undef EF_SERVE_GAME
    if (!known) r.bad(fmt::format("a command for the unknown game '{}'", game));
  }
}

}  // namespace ef
