// The team backend (backends/team_backend.hpp) and the agent messages it sends
// (engine/agent_bytes.hpp), without MPI: ranks as threads (ga/thread_team.hpp), so that these run
// in every build and under the sanitizers. An agent read back from its bytes plays the games of
// the original; batches of any size over 1-4 ranks give the records of one backend; a serving
// rank's failure comes back to rank 0 as an error naming the rank. The GA runs over ranks are in
// evolve_run_test.cpp and evolve_ttt_test.cpp, the real `mpirun` in mpi_evolve_test.cpp.
#include "backends/team_backend.hpp"
#include <gtest/gtest.h>
#include <string>
#include <vector>
#include "core/bytes.hpp"
#include "engine/agent_bytes.hpp"
#include "evalforge/backends/backend.hpp"
#include "evalforge/core/error.hpp"
#include "evalforge/core/rng.hpp"
#include "evalforge/games/othello/game.hpp"
#include "evalforge/games/othello/shape.hpp"
#include "games/othello/feature_weights.hpp"
#include "games/tictactoe/perfect_play.hpp"
#include "test_support.hpp"

using namespace ef;
using ef::test::error_of;
using ef::test::with_serving_ranks;

namespace {

template <class A>
std::string bytes_of(const A& agent) {
  ByteWriter w;
  play::AgentBytes<A>::write(w, agent);
  return w.take();
}

// The agent read back from its message, which it must read to the end. An Othello agent is
// written field by field, so its own message is the same bytes; the other games' parameters go
// as object bytes, padding included, which a copy need not keep (their games are compared).
template <class A>
A round_trip(const A& agent) {
  const std::string bytes = bytes_of(agent);
  ByteReader r(bytes, "a test message");
  A back = play::AgentBytes<A>::read(r);
  EXPECT_TRUE(r.at_end()) << agent.name;
  if constexpr (std::is_same_v<A, play::OthelloAgent>) {
    EXPECT_EQ(bytes_of(back), bytes) << agent.name;
  }
  return back;
}

// Every kind of Othello agent, every field of one set: epsilon, depth and exact empties, the
// positional feature family, n-tuple networks of two geometries with names, and ProbCut.
std::vector<play::OthelloAgent> othello_agents() {
  std::vector<play::OthelloAgent> agents;
  play::OthelloAgent rnd = play::random_agent();
  rnd.epsilon = 1.0;
  agents.push_back(rnd);
  agents.push_back(play::swh_agent({2, 8}));
  play::OthelloAgent feat;
  feat.name = "positional";
  feat.kind = play::OthelloEvaluator::kFeatures;
  feat.limits = {2, 6};
  feat.epsilon = 0.1;
  std::vector<int> genes(26);
  for (std::size_t k = 0; k < genes.size(); ++k) genes[k] = k == 0 ? 20 : (k == 1 ? 45 : static_cast<int>(k * 7 % 11));
  feat.features = features::from_genes(genes, features::Material::kDiscs, "test");
  agents.push_back(feat);
  play::OthelloAgent nt = test::small_ntuple_agent(3, 9, {4, 10});  // two geometries, with names
  nt.name = "ntuple-probcut";
  search::ProbCut pc;
  for (int d = 0; d <= search::kProbCutMaxDepth; ++d)
    for (int p = 0; p < search::kProbCutPhases; ++p) {
      pc.a[d][p] = 1.0f;
      pc.b[d][p] = 0.25f * static_cast<float>(p);
      pc.sigma[d][p] = d >= 2 ? 0.5f * static_cast<float>(ntuple::kOne) : 0.0f;
    }
  nt.probcut = std::make_shared<const search::ProbCut>(pc);
  nt.probcut_file = "fitted.toml";
  nt.validate();
  agents.push_back(nt);
  return agents;
}

// Every ordered pair of `agents` (by handle 0..n-1) from `per_pair` random openings.
std::vector<OthelloJob> othello_round_robin(int agents, int per_pair) {
  std::vector<OthelloJob> jobs;
  u32 game = 0;
  for (int b = 0; b < agents; ++b)
    for (int w = 0; w < agents; ++w)
      for (int k = 0; k < per_pair && b != w; ++k) {
        Rng rng(31, Purpose::kDatagen, game);
        jobs.push_back({b, w, othello::random_opening(rng, 2 + k % 3), 7, game++});
      }
  return jobs;
}

template <class Record>
void expect_same_records(const std::vector<Record>& a, const std::vector<Record>& b, const std::string& what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  for (std::size_t g = 0; g < a.size(); ++g) {
    EXPECT_EQ(a[g].plies, b[g].plies) << what << " game " << g;
    EXPECT_EQ(a[g].black_score, b[g].black_score) << what << " game " << g;
    EXPECT_TRUE(std::equal(a[g].moves, a[g].moves + a[g].plies, b[g].moves)) << what << " game " << g;
  }
}

std::vector<play::OthelloRecord> play_othello(Backend& backend, std::span<const OthelloJob> jobs) {
  std::vector<play::OthelloRecord> records(jobs.size());
  backend.play(jobs, std::span<play::OthelloRecord>(records));
  return records;
}

}  // namespace

TEST(AgentBytes, OthelloAgentsReadBackPlayTheOriginalsGames) {
  const std::vector<play::OthelloAgent> agents = othello_agents();
  auto original = make_backend("cpu", 2), sent = make_backend("cpu", 2);
  for (const play::OthelloAgent& a : agents) {
    const play::OthelloAgent back = round_trip(a);
    EXPECT_EQ(back.name, a.name);
    EXPECT_EQ(back.networks.size(), a.networks.size());
    EXPECT_EQ(back.geometry_names, a.geometry_names);
    EXPECT_EQ(back.probcut != nullptr, a.probcut != nullptr);
    EXPECT_EQ(back.probcut_file, a.probcut_file);
    ASSERT_EQ(original->add_agent(a), sent->add_agent(back));
  }
  const std::vector<OthelloJob> jobs = othello_round_robin(static_cast<int>(agents.size()), 2);
  expect_same_records(play_othello(*original, jobs), play_othello(*sent, jobs), "othello");
}

TEST(AgentBytes, SelfContainedAgentsOfTheOtherGamesReadBackTheirParameters) {
  // Tic-Tac-Toe networks (their weights inside the parameters) play the original's games.
  std::vector<play::TicTacToeAgent> ttt = tictactoe::random_network_agents(3, tictactoe::Topology::kPaper, 2, 5);
  ttt.push_back(play::tictactoe_agent(play::TicTacToeEvaluator::kStatic, 3, 200000));
  ttt.back().params.random_ties = true;
  auto original = make_backend("cpu", 1), sent = make_backend("cpu", 1);
  for (const auto& a : ttt) ASSERT_EQ(original->add_agent(a), sent->add_agent(round_trip(a)));
  std::vector<GameJobOf<games::TicTacToe>> jobs;
  for (int b = 0; b < 4; ++b)
    for (int w = 0; w < 4; ++w) jobs.push_back({b, w, {}, 3, static_cast<u32>(jobs.size())});
  std::vector<play::TicTacToeRecord> one(jobs.size()), two(jobs.size());
  original->play(std::span<const GameJobOf<games::TicTacToe>>(jobs), std::span<play::TicTacToeRecord>(one));
  sent->play(std::span<const GameJobOf<games::TicTacToe>>(jobs), std::span<play::TicTacToeRecord>(two));
  expect_same_records(one, two, "tictactoe");
  // Hex: the betweenness evaluator's settings come back as they were.
  play::HexAgent hex;
  hex.name = "ev";
  hex.params.kind = play::HexEvaluator::kBetweenness;
  hex.params.depth = 2;
  hex.params.betweenness.gamma = 0.375;
  hex.params.betweenness.c_prime_sign = -1;
  const play::HexAgent back = round_trip(hex);
  EXPECT_EQ(back.params.betweenness.gamma, 0.375);
  EXPECT_EQ(back.params.betweenness.c_prime_sign, -1);
  EXPECT_EQ(back.params.depth, 2);
}

TEST(AgentBytes, CorruptOrInvalidMessagesAreErrorsNamingTheSource) {
  const play::OthelloAgent nt = othello_agents().back();
  const std::string bytes = bytes_of(nt);
  for (std::size_t cut : {std::size_t{0}, std::size_t{3}, bytes.size() / 2, bytes.size() - 1}) {
    const std::string part = bytes.substr(0, cut);
    ByteReader r(part, "the message from rank 0");
    EXPECT_NE(error_of([&] { play::AgentBytes<play::OthelloAgent>::read(r); }).find("the message from rank 0"),
              std::string::npos)
        << cut;
  }
  play::OthelloAgent deep = play::swh_agent({1, -1});
  deep.limits.depth = 99;  // written as it is; refused where it is read, with the agent's name
  const std::string deep_bytes = bytes_of(deep);
  ByteReader r(deep_bytes, "a message");
  EXPECT_NE(error_of([&] { play::AgentBytes<play::OthelloAgent>::read(r); }).find("agent 'swh': depth 99"),
            std::string::npos);
}

TEST(TeamBackend, BatchesOfAnySizeOverOneToFourRanksGiveTheRecordsOfOneBackend) {
  const std::vector<play::OthelloAgent> agents = othello_agents();
  const std::vector<OthelloJob> jobs = othello_round_robin(static_cast<int>(agents.size()), 3);
  auto plain = make_backend("cpu", 1);
  for (const auto& a : agents) plain->add_agent(a);
  const std::vector<play::OthelloRecord> expected = play_othello(*plain, jobs);
  // After an update (the feature agent replaced by SWH at 1 ply), the same on both.
  plain->update_agent(2, play::swh_agent({1, -1}));
  const std::vector<play::OthelloRecord> updated = play_othello(*plain, jobs);
  for (int ranks : {1, 2, 3, 4}) {
    with_serving_ranks(ranks, [&](ga::IslandTeam& team) {
      auto backend = make_team_backend(make_backend("cpu", 1), team);
      if (ranks > 1) {
        EXPECT_NE(backend->name().find(fmt::format("{} ranks of cpu", ranks)), std::string::npos);
      }
      for (std::size_t k = 0; k < agents.size(); ++k) EXPECT_EQ(backend->add_agent(agents[k]), static_cast<int>(k));
      // Fewer games than ranks (some ranks play none), a few, and the whole round robin.
      for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{2}, std::size_t{5}, jobs.size()}) {
        const std::span<const OthelloJob> some(jobs.data(), n);
        expect_same_records(play_othello(*backend, some),
                            std::vector<play::OthelloRecord>(expected.begin(), expected.begin() + n),
                            fmt::format("{} games on {} ranks", n, ranks));
      }
      backend->update_agent(2, play::swh_agent({1, -1}));
      expect_same_records(play_othello(*backend, jobs), updated, fmt::format("after an update, {} ranks", ranks));
    });
  }
}

namespace {

// A serving rank's backend that refuses one agent or fails in play (what a real rank's own
// backend error looks like).
class FailingBackend final : public ForwardingBackend {
 public:
  FailingBackend(std::unique_ptr<Backend> inner, bool fail_in_play)
      : ForwardingBackend(*inner), owned_(std::move(inner)), fail_in_play_(fail_in_play) {}
  using ForwardingBackend::add_agent;
  using ForwardingBackend::play;
  int add_agent(const play::OthelloAgent& a) override {
    if (!fail_in_play_ && a.name == "refused") fail("agent 'refused': not on this rank");
    return inner_.add_agent(a);
  }
  void play(std::span<const OthelloJob> jobs, std::span<play::OthelloRecord> records) override {
    if (fail_in_play_) fail("this rank's device failed");
    inner_.play(jobs, records);
  }

 private:
  std::unique_ptr<Backend> owned_;
  bool fail_in_play_;
};

std::string team_error(int failing_rank, bool fail_in_play) {
  return error_of([&] {
    with_serving_ranks(
        3,
        [&](ga::IslandTeam& team) {
          auto backend = make_team_backend(make_backend("cpu", 1), team);
          backend->add_agent(play::swh_agent());
          play::OthelloAgent refused = play::random_agent();
          refused.name = "refused";
          backend->add_agent(refused);
          play_othello(*backend, othello_round_robin(2, 2));
        },
        [&](int rank) -> std::unique_ptr<Backend> {
          if (rank != failing_rank) return make_backend("cpu", 1);
          return std::make_unique<FailingBackend>(make_backend("cpu", 1), fail_in_play);
        });
  });
}

}  // namespace

TEST(TeamBackend, AServingRanksErrorComesBackToRankZeroNamingTheRank) {
  // An agent the rank refuses is reported with the next batch; a failed batch at once.
  const std::string refused = team_error(2, false), failed = team_error(1, true);
  EXPECT_NE(refused.find("rank 2 of 3: agent 'refused': not on this rank"), std::string::npos) << refused;
  EXPECT_NE(failed.find("rank 1 of 3: this rank's device failed"), std::string::npos) << failed;
  // Only rank 0 runs the team backend, and only the others serve.
  EXPECT_NE(error_of([] {
              with_serving_ranks(2, [](ga::IslandTeam& team) {
                auto b = make_backend("cpu", 1);
                serve_team_backend(*b, team);
              });
            }).find("rank 0 runs the team backend"),
            std::string::npos);
}

TEST(TeamBackend, AfterAFailureEveryLaterCallIsRefused) {
  // A caller that caught a serving rank's error may not play on: the ranks' state is unknown
  // (a reply of the failed batch may be unread), so the next batch is refused, not misread.
  const std::string second = error_of([] {
    with_serving_ranks(
        2,
        [](ga::IslandTeam& team) {
          auto backend = make_team_backend(make_backend("cpu", 1), team);
          backend->add_agent(play::swh_agent());
          backend->add_agent(play::random_agent());
          const std::vector<OthelloJob> jobs = othello_round_robin(2, 2);
          EXPECT_NE(error_of([&] { play_othello(*backend, jobs); }).find("rank 1 of 2"), std::string::npos);
          play_othello(*backend, jobs);
        },
        [](int) -> std::unique_ptr<Backend> { return std::make_unique<FailingBackend>(make_backend("cpu", 1), true); });
  });
  EXPECT_NE(second.find("failed earlier"), std::string::npos) << second;
}
