// Self-play on the CPU backend (Backend::add_agent / update_agent / play) and agent files.
// No GPU needed: these run in every build. The CPU-vs-CUDA comparison of the same batches is in
// cuda_parity_test.cpp.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>
#include "evalforge/backends/backend.hpp"
#include "evalforge/core/error.hpp"
#include "evalforge/core/rng.hpp"
#include "evalforge/games/othello/agent_file.hpp"
#include "evalforge/games/othello/game.hpp"
#include "evalforge/games/othello/shape.hpp"
#include "games/othello/feature_weights.hpp"
#include "test_support.hpp"

using namespace ef;
using ef::test::error_of;
using ef::test::small_ntuple_agent;
namespace fs = std::filesystem;

namespace {

// A position after `plies` uniformly random moves from the start (a stream of its own, apart
// from the games' kGame streams). Odd plies leave white to move.
othello::Position random_start(u32 index, int plies) {
  Rng rng(4242, Purpose::kDatagen, index);
  return othello::random_opening(rng, plies);
}

play::OthelloAgent features_agent(search::OthelloLimits limits, double epsilon = 0.0) {
  play::OthelloAgent a;
  a.name = "features";
  a.kind = play::OthelloEvaluator::kFeatures;
  a.limits = limits;
  a.epsilon = epsilon;
  a.features = features::parse_chromosome("14:42:0:0:4:0:4:10:2:7:9", features::Material::kFlips, "test");
  return a;
}

std::vector<OthelloJob> make_games(int n, int black, int white, u64 seed, u32 first_game = 0, int opening_plies = 4) {
  std::vector<OthelloJob> jobs;
  for (int k = 0; k < n; ++k) {
    OthelloJob j;
    j.black = black;
    j.white = white;
    j.start = random_start(first_game + static_cast<u32>(k), opening_plies + k % 2);
    j.seed = seed;
    j.game = first_game + static_cast<u32>(k);
    jobs.push_back(j);
  }
  return jobs;
}

std::vector<play::OthelloRecord> play_all(Backend& backend, const std::vector<OthelloJob>& jobs) {
  std::vector<play::OthelloRecord> records(jobs.size());
  backend.play(jobs, records);
  return records;
}

std::vector<int> move_list(const play::OthelloRecord& r) { return std::vector<int>(r.moves, r.moves + r.plies); }

bool same_game(const play::OthelloRecord& a, const play::OthelloRecord& b) {
  return a.plies == b.plies && a.black_score == b.black_score && move_list(a) == move_list(b);
}

// Replays a record from `start` under the rules: every move legal, a pass only when the side
// to move has none, the game over at the end, and the score the record's.
void expect_legal_replay(const othello::Position& start, const play::OthelloRecord& r, const std::string& what) {
  ASSERT_GE(r.plies, 0) << what;
  ASSERT_LE(r.plies, play::kMaxPlies) << what;
  othello::Position p = start;
  for (int i = 0; i < r.plies; ++i) {
    const u64 moves = games::Othello::moves(p);
    const int m = r.moves[i];
    if (m == search::kPassMove) {
      ASSERT_EQ(moves, 0u) << what << ": pass at ply " << i << " with legal moves";
      ASSERT_NE(othello::legal_moves(p.board.opponent, p.board.player), 0u) << what << ": pass after the game ended";
      p = games::Othello::pass(p);
    } else {
      ASSERT_TRUE(m >= 0 && m < 64 && (moves >> m & 1)) << what << ": illegal move " << m << " at ply " << i;
      p = games::Othello::play(p, m);
    }
  }
  EXPECT_TRUE(p.board.game_over()) << what << ": the record stops before the end";
  EXPECT_EQ(p.board.disc_diff_empties_to_winner(), r.black_score) << what;
}

// The game games/othello/players.hpp's rng contract gives when neither agent searches: at a position with one
// legal move it is played; otherwise an agent with epsilon (epsilon_draws) draws below(10^6)
// first, then every such agent picks random_bit(moves).
play::OthelloRecord expected_random_game(const othello::Position& start, u64 seed, u32 game, bool black_draws_epsilon,
                                         bool white_draws_epsilon) {
  Rng rng = play::game_rng(seed, game);
  othello::Position p = start;
  play::OthelloRecord r;
  while (r.plies < play::kMaxPlies) {
    const u64 moves = games::Othello::moves(p);
    if (!moves) {
      if (!othello::legal_moves(p.board.opponent, p.board.player)) break;
      r.moves[r.plies++] = static_cast<signed char>(search::kPassMove);
      p = games::Othello::pass(p);
      continue;
    }
    int sq;
    if ((moves & (moves - 1)) == 0) {
      sq = ctz64(moves);
    } else {
      if (p.board.side == othello::kBlack ? black_draws_epsilon : white_draws_epsilon) {
        EXPECT_LT(rng.below(play::kEpsilonScale), play::kEpsilonScale);
      }
      sq = rng.random_bit(moves);
    }
    r.moves[r.plies++] = static_cast<signed char>(sq);
    p = games::Othello::play(p, sq);
  }
  r.black_score = p.board.disc_diff_empties_to_winner();
  return r;
}

// A scratch directory per test.
class TempDir {
 public:
  explicit TempDir(const std::string& name) : path_(fs::temp_directory_path() / ("ef_play_test_" + name)) {
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempDir() { fs::remove_all(path_); }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

std::string read_bytes(const fs::path& f) {
  std::ifstream in(f, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}
void write_bytes(const fs::path& f, const std::string& b) { std::ofstream(f, std::ios::binary) << b; }

}  // namespace

// A mixed batch (every evaluator kind, epsilon, exact endgames through the table, both colours,
// starts with either side to move) gives the same records on 1 and 2 worker threads -- node
// counts included, since a solve never sees another solve's table entries (endgame.hpp).
TEST(PlayCpu, SameRecordsForOneAndTwoThreads) {
  auto one = make_backend("cpu", 1);
  auto two = make_backend("cpu", 2);
  const std::vector<play::OthelloAgent> agents{play::swh_agent({1, -1}), play::swh_agent({2, 14}), play::random_agent(),
                                               features_agent({2, 12}, 0.1), small_ntuple_agent(61, 3, {2, 12})};
  for (const auto& a : agents) ASSERT_EQ(one->add_agent(a), two->add_agent(a));
  std::vector<OthelloJob> jobs;
  u32 game = 0;
  for (int b = 0; b < 5; ++b)
    for (int w = 0; w < 5; ++w) {
      const auto some = make_games(2, b, w, 11, game);
      game += 2;
      jobs.insert(jobs.end(), some.begin(), some.end());
    }
  const auto a = play_all(*one, jobs), b = play_all(*two, jobs);
  u64 nodes = 0;
  for (std::size_t k = 0; k < jobs.size(); ++k) {
    EXPECT_TRUE(same_game(a[k], b[k])) << "game " << k;
    EXPECT_EQ(a[k].nodes, b[k].nodes) << "game " << k;
    expect_legal_replay(jobs[k].start, a[k], "game " + std::to_string(k));
    nodes += a[k].nodes;
  }
  EXPECT_GT(nodes, 0u);
}

// The midgame search (engine/pvs.hpp, the default) and plain alpha-beta compute the same move
// at the same depth, so agents that differ only in limits.algorithm play the same games, on one
// thread or two (each worker's midgame table is shared by both agents of its games).
TEST(PlayCpu, PvsAndAlphaBetaAgentsPlayTheSameGames) {
  const auto with = [](play::OthelloAgent a, search::MidgameSearch algorithm) {
    a.limits.algorithm = algorithm;
    return a;
  };
  const std::vector<play::OthelloAgent> base{small_ntuple_agent(61, 3, {5, 10}), features_agent({4, 12}, 0.1),
                                             play::swh_agent({5, -1})};
  for (int threads : {1, 2}) {
    auto pvs = make_backend("cpu", threads), ab = make_backend("cpu", threads);
    for (const auto& a : base) {
      pvs->add_agent(with(a, search::MidgameSearch::kPvs));
      ab->add_agent(with(a, search::MidgameSearch::kAlphaBeta));
    }
    std::vector<OthelloJob> jobs;
    u32 game = 0;
    for (int b = 0; b < 3; ++b)
      for (int w = 0; w < 3; ++w) {
        const auto some = make_games(2, b, w, 21, game);
        game += 2;
        jobs.insert(jobs.end(), some.begin(), some.end());
      }
    const auto x = play_all(*pvs, jobs), y = play_all(*ab, jobs);
    for (std::size_t k = 0; k < jobs.size(); ++k) EXPECT_TRUE(same_game(x[k], y[k])) << "game " << k << ", " << threads;
  }
}

TEST(PlayCpu, EveryRecordReplaysLegallyToItsScore) {
  auto cpu = make_backend("cpu", 2);
  const int swh = cpu->add_agent(play::swh_agent({3, 12}));
  const int rnd = cpu->add_agent(play::random_agent());
  const int nt = cpu->add_agent(small_ntuple_agent(3, 5, {1, 10}));
  std::vector<OthelloJob> jobs = make_games(12, swh, rnd, 3, 0);
  for (const auto& j : make_games(12, rnd, nt, 3, 100)) jobs.push_back(j);
  for (const auto& j : make_games(12, nt, swh, 3, 200)) jobs.push_back(j);
  // From the standard start too, and from a late position (few empties, passes likely).
  OthelloJob from_start = jobs[0];
  from_start.start = othello::Position{};
  jobs.push_back(from_start);
  OthelloJob late = jobs[1];
  late.start = random_start(999, 50);
  jobs.push_back(late);
  const auto records = play_all(*cpu, jobs);
  int passes = 0;
  for (std::size_t k = 0; k < jobs.size(); ++k) {
    expect_legal_replay(jobs[k].start, records[k], "game " + std::to_string(k));
    for (int i = 0; i < records[k].plies; ++i) passes += records[k].moves[i] == search::kPassMove;
  }
  RecordProperty("passes", passes);
}

TEST(PlayCpu, RandomAgentGamesDependOnTheSeedOnly) {
  auto cpu = make_backend("cpu", 2);
  const int rnd = cpu->add_agent(play::random_agent());
  const auto s1 = play_all(*cpu, make_games(20, rnd, rnd, 1, 0, 0));
  const auto s1_again = play_all(*cpu, make_games(20, rnd, rnd, 1, 0, 0));
  const auto s2 = play_all(*cpu, make_games(20, rnd, rnd, 2, 0, 0));
  int differ = 0;
  for (std::size_t k = 0; k < s1.size(); ++k) {
    EXPECT_TRUE(same_game(s1[k], s1_again[k])) << "game " << k;
    differ += !same_game(s1[k], s2[k]);
    EXPECT_EQ(s1[k].nodes, 0u);  // a random agent never searches
  }
  EXPECT_GE(differ, 19) << "seeds 1 and 2 should give different games";
  // Different game ids of one seed differ too (games 0 and 1 start from different openings
  // here, so compare two ids from the same start).
  std::vector<OthelloJob> twins = make_games(2, rnd, rnd, 1, 0, 0);
  twins[1].start = twins[0].start;
  const auto t = play_all(*cpu, twins);
  EXPECT_FALSE(same_game(t[0], t[1]));
}

// Strength: a 2-ply SWH search wins the large majority against uniformly random moves.
TEST(PlayCpu, SwhDepthTwoBeatsRandom) {
  auto cpu = make_backend("cpu", 2);
  const int swh = cpu->add_agent(play::swh_agent({2, -1}));
  const int rnd = cpu->add_agent(play::random_agent());
  std::vector<OthelloJob> jobs = make_games(20, swh, rnd, 5, 0, 0);
  for (const auto& j : make_games(20, rnd, swh, 5, 20, 0)) jobs.push_back(j);
  const auto records = play_all(*cpu, jobs);
  int wins = 0;
  for (std::size_t k = 0; k < jobs.size(); ++k) {
    const int swh_score = jobs[k].black == swh ? records[k].black_score : -records[k].black_score;
    wins += swh_score > 0;
  }
  EXPECT_GT(wins, 30) << "swh depth 2 won " << wins << " of 40 games against random";
}

// epsilon 1.0: every choice among several moves is random, with the epsilon draw first (the
// rng contract), so the games are exactly what the contract predicts, and nothing is searched.
TEST(PlayCpu, EpsilonOneSearchAgentPlaysRandomly) {
  auto cpu = make_backend("cpu", 1);
  play::OthelloAgent greedy = play::swh_agent({3, 20});
  greedy.epsilon = 1.0;
  const int eps_swh = cpu->add_agent(greedy);
  const int eps_features = cpu->add_agent(features_agent({2, -1}, 1.0));
  const int rnd = cpu->add_agent(play::random_agent());
  struct Pairing {
    int black, white;
    bool black_draws, white_draws;
  };
  for (const Pairing& p : {Pairing{eps_swh, rnd, true, false}, Pairing{rnd, eps_features, false, true},
                           Pairing{eps_swh, eps_features, true, true}, Pairing{rnd, rnd, false, false}}) {
    const auto jobs = make_games(8, p.black, p.white, 17, 0);
    const auto records = play_all(*cpu, jobs);
    for (std::size_t k = 0; k < jobs.size(); ++k) {
      const auto want = expected_random_game(jobs[k].start, jobs[k].seed, jobs[k].game, p.black_draws, p.white_draws);
      EXPECT_TRUE(same_game(records[k], want)) << "agents " << p.black << " vs " << p.white << ", game " << k;
      EXPECT_EQ(records[k].nodes, 0u);
    }
  }
}

// The CPU backend's copy of an agent is its own: changing the caller's agent changes nothing
// until update_agent, which then changes the games (and keeps the handle).
TEST(PlayCpu, UpdateAgentReplacesTheCopy) {
  auto cpu = make_backend("cpu", 2);
  play::OthelloAgent a = small_ntuple_agent(2, 1, {1, -1});
  const int h = cpu->add_agent(a);
  const int swh = cpu->add_agent(play::swh_agent({1, -1}));
  const auto jobs = make_games(10, h, swh, 9, 0);
  const auto before = play_all(*cpu, jobs);
  for (auto& n : a.networks)
    for (i32& w : n.weights) w = -w;
  EXPECT_TRUE(same_game(play_all(*cpu, jobs)[0], before[0]));
  cpu->update_agent(h, a);
  const auto after = play_all(*cpu, jobs);
  int differ = 0;
  for (std::size_t k = 0; k < jobs.size(); ++k) differ += !same_game(before[k], after[k]);
  EXPECT_GT(differ, 0);
  EXPECT_THROW(cpu->update_agent(7, a), Error);
  EXPECT_THROW(cpu->update_agent(-1, a), Error);
}

TEST(PlayCpu, BadJobsAndAgentsAreErrors) {
  auto cpu = make_backend("cpu", 1);
  const int h = cpu->add_agent(play::swh_agent());
  std::vector<OthelloJob> jobs = make_games(2, h, h, 1);
  std::vector<play::OthelloRecord> one(1);
  EXPECT_THROW(cpu->play(jobs, one), Error);
  jobs[1].white = 5;
  std::vector<play::OthelloRecord> two(2);
  EXPECT_THROW(cpu->play(jobs, two), Error);
  play::OthelloAgent deep = play::swh_agent({play::kMaxDepth + 1, -1});
  EXPECT_THROW(cpu->add_agent(deep), Error);
  play::OthelloAgent bad_eps = play::swh_agent();
  bad_eps.epsilon = 1.5;
  EXPECT_THROW(cpu->add_agent(bad_eps), Error);
  play::OthelloAgent broken = small_ntuple_agent(2, 1, {1, -1});
  broken.networks[1].weights.pop_back();
  EXPECT_THROW(cpu->add_agent(broken), Error);
}

// ---- agent files --------------------------------------------------------------------------------

TEST(PlayAgentFile, NtupleRoundTripKeepsEverythingAndPlaysTheSameGames) {
  TempDir dir("ntuple");
  play::OthelloAgent a = small_ntuple_agent(61, 21, {3, 14});
  a.name = "round-trip";
  a.epsilon = 0.05;
  const fs::path file = dir.path() / "agent.toml";
  const fs::path net = play::save_agent(a, file);
  EXPECT_EQ(net, dir.path() / "agent.efnet");
  ASSERT_TRUE(fs::exists(net));
  const play::OthelloAgent b = play::load_agent(file.string());
  EXPECT_EQ(b.name, a.name);
  EXPECT_EQ(b.kind, a.kind);
  EXPECT_EQ(b.limits.depth, 3);
  EXPECT_EQ(b.limits.exact_empties, 14);
  EXPECT_EQ(b.epsilon_ppm(), a.epsilon_ppm());
  ASSERT_EQ(b.geometries.size(), a.geometries.size());
  for (std::size_t g = 0; g < a.geometries.size(); ++g) {
    ASSERT_EQ(b.geometries[g].num_tuples, a.geometries[g].num_tuples);
    for (int i = 0; i < a.geometries[g].num_tuples; ++i) EXPECT_EQ(b.geometries[g].mask[i], a.geometries[g].mask[i]);
  }
  EXPECT_EQ(b.geometry_names, a.geometry_names);
  ASSERT_EQ(b.networks.size(), a.networks.size());
  for (std::size_t k = 0; k < a.networks.size(); ++k) {
    EXPECT_EQ(b.networks[k].geometry, a.networks[k].geometry);
    EXPECT_EQ(b.networks[k].weights, a.networks[k].weights) << "network " << k;
  }
  EXPECT_EQ(b.network_of_move, a.network_of_move);
  // The loaded agent is the same player.
  auto cpu = make_backend("cpu", 2);
  const int ha = cpu->add_agent(a), hb = cpu->add_agent(b), swh = cpu->add_agent(play::swh_agent({2, -1}));
  const auto ga = play_all(*cpu, make_games(6, ha, swh, 4)), gb = play_all(*cpu, make_games(6, hb, swh, 4));
  for (std::size_t k = 0; k < ga.size(); ++k) EXPECT_TRUE(same_game(ga[k], gb[k])) << "game " << k;
}

TEST(PlayAgentFile, FeaturesAndSwhRoundTrip) {
  TempDir dir("features");
  play::OthelloAgent f = features_agent({4, 16}, 0.25);
  f.name = "feat";
  f.features.kind = features::Material::kDiscs;
  EXPECT_TRUE(play::save_agent(f, dir.path() / "feat.toml").empty());
  const play::OthelloAgent g = play::load_agent((dir.path() / "feat.toml").string());
  EXPECT_EQ(g.name, "feat");
  EXPECT_EQ(g.kind, play::OthelloEvaluator::kFeatures);
  EXPECT_EQ(g.limits.depth, 4);
  EXPECT_EQ(g.limits.exact_empties, 16);
  EXPECT_EQ(g.epsilon_ppm(), 250000u);
  EXPECT_EQ(features::format_chromosome(g.features), "14:42:0:0:4:0:4:10:2:7:9");
  EXPECT_EQ(g.features.kind, features::Material::kDiscs);

  play::OthelloAgent s = play::swh_agent({5, -1});
  s.name = "deep swh";
  s.epsilon = 0.125;
  EXPECT_TRUE(play::save_agent(s, dir.path() / "sub" / "swh.toml").empty());
  const play::OthelloAgent t = play::load_agent((dir.path() / "sub" / "swh.toml").string());
  EXPECT_EQ(t.name, "deep swh");
  EXPECT_EQ(t.kind, play::OthelloEvaluator::kSwh);
  EXPECT_EQ(t.limits.depth, 5);
  EXPECT_EQ(t.limits.exact_empties, -1);
  EXPECT_EQ(t.epsilon_ppm(), 125000u);
  EXPECT_EQ(play::load_agent("random").kind, play::OthelloEvaluator::kRandom);
  EXPECT_EQ(play::load_agent("swh").kind, play::OthelloEvaluator::kSwh);
}

TEST(PlayAgentFile, CorruptTruncatedAndBadFilesAreErrorsNamingTheFile) {
  TempDir dir("corrupt");
  const fs::path file = dir.path() / "agent.toml";
  const fs::path net = play::save_agent(small_ntuple_agent(3, 8, {2, -1}), file);
  const std::string good = read_bytes(net);
  ASSERT_GT(good.size(), 100u);

  // One byte changed in the middle of the compressed stream.
  std::string bad = good;
  bad[bad.size() / 2] = static_cast<char>(bad[bad.size() / 2] ^ 0x5A);
  write_bytes(net, bad);
  std::string msg = error_of([&] { play::load_agent(file.string()); });
  EXPECT_NE(msg.find(net.string()), std::string::npos) << msg;

  // Truncated to half.
  write_bytes(net, good.substr(0, good.size() / 2));
  msg = error_of([&] { play::load_agent(file.string()); });
  EXPECT_NE(msg.find(net.string()), std::string::npos) << msg;

  // Not gzip at all, and gzip of something else.
  write_bytes(net, "EFNET001 but not compressed");
  msg = error_of([&] { play::load_agent(file.string()); });
  EXPECT_NE(msg.find(net.string()), std::string::npos) << msg;

  // The network file missing.
  fs::remove(net);
  msg = error_of([&] { play::load_agent(file.string()); });
  EXPECT_NE(msg.find("agent.efnet"), std::string::npos) << msg;

  // Bad TOML: an unknown key, a value out of range, an unknown evaluator, a syntax error.
  const fs::path toml = dir.path() / "bad.toml";
  for (const std::string& text :
       {std::string("evaluator = \"swh\"\ndepht = 3\n"), std::string("evaluator = \"swh\"\ndepth = 11\n"),
        std::string("evaluator = \"minimax\"\n"), std::string("evaluator = \"swh\"\nepsilon = 2.0\n"),
        std::string("evaluator = \"swh\"\nchromosome = \"1:41:0:0:0:0:0:0:0:0:0\"\n"),
        std::string("evaluator = \"features\"\nchromosome = \"1:2:3\"\n"), std::string("evaluator = = \"swh\"\n")}) {
    write_bytes(toml, text);
    msg = error_of([&] { play::load_agent(toml.string()); });
    EXPECT_NE(msg.find(toml.string()), std::string::npos) << text << " -> " << msg;
  }
  write_bytes(toml, "evaluator = \"swh\"\ndepht = 3\n");
  EXPECT_NE(error_of([&] { play::load_agent(toml.string()); }).find("depht"), std::string::npos);
  EXPECT_NE(error_of([&] { play::load_agent((dir.path() / "none.toml").string()); }).find("none.toml"),
            std::string::npos);
}

// An agent's `network` that is not a regular file (a FIFO blocks the open until a writer comes,
// /dev/zero never ends, a directory is no file) is refused before it is opened, naming the agent
// file and the key. Through the command (data generate --player), under a memory limit and a
// deadline, so that the old behaviour (reading without end, or blocking) fails instead of hanging.
TEST(PlayAgentFile, NetworkThatIsNotARegularFileIsRefusedNamingTheAgentAndKey) {
  TempDir dir("special");
  const fs::path fifo = dir.path() / "net.fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const fs::path out = dir.path() / "games.txt";
  for (const std::string& network : {fifo.string(), std::string("/dev/zero"), dir.path().string()}) {
    const fs::path toml = dir.path() / "agent.toml";
    write_bytes(toml, "evaluator = \"ntuple\"\nnetwork = \"" + network + "\"\n");
    const auto [status, msg] = ef::test::run_command(
        "bash -c '" + ef::test::address_space_limit(2'000'000) + "timeout -s KILL 20 " + std::string(EF_EVALFORGE_BIN) +
        " data generate --games 1 --seed 1 --out " + out.string() + " --player " + toml.string() + "' 2>&1");
    EXPECT_EQ(status, 2) << network << ": " << msg;
    EXPECT_NE(msg.find(toml.string() + ": network"), std::string::npos) << msg;
    EXPECT_NE(msg.find(network), std::string::npos) << msg;
    EXPECT_NE(msg.find("not a regular file"), std::string::npos) << msg;
  }
  if (::testing::Test::HasFailure()) return;  // the library call below would block on the FIFO
  // The library says the same, at once (the FIFO has no writer: an open would block).
  write_bytes(dir.path() / "agent.toml", "evaluator = \"ntuple\"\nnetwork = \"net.fifo\"\n");
  const std::string msg = error_of([&] { play::load_agent((dir.path() / "agent.toml").string()); });
  EXPECT_NE(msg.find("not a regular file"), std::string::npos) << msg;
  EXPECT_FALSE(fs::exists(out));
}

// The Othello move lists of a fixed batch, pinned as one FNV-1a hash taken with the code from
// before the playout engine became generic over games (0edb5bf): every evaluator kind, epsilon,
// exact endgames, both colours, both sides to move at the start. Matches, tournaments, the
// League and gtp all play through this body, so a change of this value means their results
// changed. Node counts are not hashed (they depend on transposition tables).
TEST(PlaySignature, OthelloMoveListsOfAFixedBatchAreThoseFromBeforeTheGenericEngine) {
  auto cpu = make_backend("cpu", 2);
  const std::vector<play::OthelloAgent> agents{
      play::swh_agent({1, -1}),         play::swh_agent({3, 12}),     play::random_agent(),
      features_agent({1, -1}),          features_agent({2, 14}, 0.2), small_ntuple_agent(61, 3, {2, 12}),
      small_ntuple_agent(3, 9, {1, -1})};
  for (const auto& a : agents) cpu->add_agent(a);
  std::vector<OthelloJob> jobs;
  u32 game = 0;
  for (int b = 0; b < 7; ++b)
    for (int w = 0; w < 7; ++w) {
      const auto some = make_games(2, b, w, 2026, game, 2 + static_cast<int>(game % 5));
      game += 2;
      jobs.insert(jobs.end(), some.begin(), some.end());
    }
  const auto records = play_all(*cpu, jobs);
  u64 h = 1469598103934665603ull;
  auto mix = [&](int v) { h = (h ^ static_cast<u64>(static_cast<u32>(v))) * 1099511628211ull; };
  for (const auto& r : records) {
    mix(r.plies);
    for (int i = 0; i < r.plies; ++i) mix(r.moves[i]);
    mix(r.black_score);
  }
  EXPECT_EQ(h, 0x5997b3167c0f5b27ull) << std::hex << "signature 0x" << h;
}
