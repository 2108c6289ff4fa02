// The match experiment (runs/match_experiment.hpp): results are a pure function of the config (one run
// equals another, and an interrupted-then-resumed run equals an uninterrupted one), the round
// rows add up, the agents it writes can be loaded and played, and config errors name the key.
#include <gtest/gtest.h>
#include <filesystem>
#include <fstream>
#include <sstream>
#include "core/bytes.hpp"
#include "data/generate.hpp"
#include "evalforge/core/error.hpp"
#include "evalforge/core/files.hpp"
#include "evalforge/games/othello/agent_file.hpp"
#include "evalforge/games/othello/shape.hpp"
#include "runs/match_experiment.hpp"
#include "test_support.hpp"

using namespace ef;
namespace fs = std::filesystem;

namespace {

class MatchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("ef-match-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    data::GenerateOptions g;
    g.games = 200;
    g.threads = 1;
    data::write_transcripts(dir_ / "games.txt", data::generate_games(g));
    // Two small shapes "searched" for moves 40 and 50, used by phase by agent 1; agent 2 has one
    // small shape of its own (Edax-size networks would only make the test slow).
    std::ofstream(dir_ / "shapes.json")
        << R"({"shapes": [{"name": "a", "move": 40, "tuples": [["a1","b1","c1","d1"], ["a1","b2","c3"]]},
                          {"name": "b", "move": 50, "tuples": [["a1","a2","b1","b2"], ["c1","d1","e1"]]}]})";
    std::ofstream(dir_ / "small.json")
        << R"({"name": "small", "tuples": [["a1","b1","c1","d1","e1"], ["b2","c3","d4"]]})";
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string write_config(const std::string& extra_match = "", const std::string& agent1_extra = "") {
    const fs::path file = dir_ / "match.toml";
    std::ofstream(file) << "[match]\ngames = 48\ngames_per_round = 8\nstart_move = 36\nseed = 3\nreplicates = 2\n"
                        << extra_match << "\n[data]\nfiles = [\"" << (dir_ / "games.txt").string() << "\"]\n"
                        << "[agent1]\nname = \"phased\"\nshapes = \"" << (dir_ / "shapes.json").string()
                        << "\"\nphases = [[45, 40], [60, 50]]\ndepth = 2\nexact_empties = 8\nepsilon = 0.05\n"
                        << agent1_extra << "[agent2]\nname = \"small\"\nshapes = \"" << (dir_ / "small.json").string()
                        << "\"\ndepth = 1\nexact_empties = 8\n"
                        << "[training]\nlearning_rate = 0.05\nepochs = 2\n[run]\ncheckpoint_every = 2\n";
    return file.string();
  }

  std::vector<play::MatchRound> run(const fs::path& out, const std::string& config, int stop_after = -1) {
    play::MatchRunOptions o;
    o.threads = 2;
    int calls = 0;
    if (stop_after >= 0) o.stop_requested = [&calls, stop_after] { return calls++ == stop_after; };
    return play::run_match(out, config, o);
  }

  fs::path dir_;
};

TEST_F(MatchTest, RoundsAddUpAndRepeatBitForBit) {
  const std::string config = write_config();
  const auto a = run(dir_ / "a", config);
  ASSERT_EQ(a.size(), 6u * 2);  // 6 rounds x 2 replicates
  for (const auto& r : a) EXPECT_EQ(r.wins + r.draws + r.losses, 8);
  run(dir_ / "b", config);
  // Same rows apart from the timing column.
  auto strip_time = [](const std::string& csv) {
    std::string out;
    std::istringstream in(csv);
    for (std::string line; std::getline(in, line);) out += line.substr(0, line.rfind(',')) + "\n";
    return out;
  };
  EXPECT_EQ(strip_time(test::contents(dir_ / "a" / "rounds.csv")),
            strip_time(test::contents(dir_ / "b" / "rounds.csv")));
  for (const char* f : {"r0-agent1.efnet", "r0-agent2.efnet", "r1-agent1.efnet", "r1-agent2.efnet"})
    EXPECT_EQ(test::contents(dir_ / "a" / "agents" / f), test::contents(dir_ / "b" / "agents" / f)) << f;
  // The replicates are different matches.
  EXPECT_NE(test::contents(dir_ / "a" / "agents" / "r0-agent2.efnet"),
            test::contents(dir_ / "a" / "agents" / "r1-agent2.efnet"));
  // The written agents load, keep their search limits, and learned something.
  const play::OthelloAgent agent1 = play::load_agent((dir_ / "a" / "agents" / "r0-agent1.toml").string());
  EXPECT_EQ(agent1.limits.depth, 2);
  EXPECT_EQ(agent1.limits.exact_empties, 8);
  EXPECT_EQ(agent1.geometries.size(), 2u);
  bool nonzero = false;
  for (const auto& n : agent1.networks)
    for (i32 w : n.weights) nonzero = nonzero || w != 0;
  EXPECT_TRUE(nonzero);
  // Phases: moves up to 45 use shape "a" (move 40), later moves shape "b".
  EXPECT_EQ(agent1.networks[agent1.network_of_move[45]].geometry, 0);
  EXPECT_EQ(agent1.networks[agent1.network_of_move[46]].geometry, 1);
}

// The rounds (timing column left out) and every final agent's weights of a small match,
// pinned as one FNV-1a hash taken with the code from before the match trained through the
// backend (0aa7007: a host SGD loop of its own): the match's training, now TrainBackend jobs
// that start from the agents' weights and take the samples in the match's own order, gives
// the bits it gave before, over 2 epochs a round (each its own backend call).
TEST_F(MatchTest, RoundsAndAgentsAreThoseOfTheEarlierHostTrainingLoop) {
  run(dir_ / "m", write_config());
  std::string bytes;
  std::istringstream in(test::contents(dir_ / "m" / "rounds.csv"));
  for (std::string line; std::getline(in, line);) bytes += line.substr(0, line.rfind(',')) + "\n";
  for (const char* f : {"r0-agent1.efnet", "r0-agent2.efnet", "r1-agent1.efnet", "r1-agent2.efnet"})
    bytes += test::contents(dir_ / "m" / "agents" / f);
  const u64 h = fnv1a64(bytes);
  EXPECT_EQ(h, 0x4c130736e256e174ull) << std::hex << "signature 0x" << h;
}

TEST_F(MatchTest, ResumedRunEqualsUninterruptedRun) {
  const std::string config = write_config();
  run(dir_ / "whole", config);
  // Stop before round 3 (the checkpoint of round 2 is the latest), then before round 5 of the
  // resumed run (rounds 3 and 4 replayed past the checkpoint), then to the end.
  run(dir_ / "parts", config, 3);
  EXPECT_TRUE(fs::exists(dir_ / "parts" / "checkpoint" / "state.toml"));
  run(dir_ / "parts", "", 1);
  const auto all = run(dir_ / "parts", "");
  EXPECT_EQ(all.size(), 12u);
  auto strip_time = [](const std::string& csv) {
    std::string out;
    std::istringstream in(csv);
    for (std::string line; std::getline(in, line);) out += line.substr(0, line.rfind(',')) + "\n";
    return out;
  };
  EXPECT_EQ(strip_time(test::contents(dir_ / "whole" / "rounds.csv")),
            strip_time(test::contents(dir_ / "parts" / "rounds.csv")));
  for (const char* f : {"r0-agent1.efnet", "r1-agent2.efnet"})
    EXPECT_EQ(test::contents(dir_ / "whole" / "agents" / f), test::contents(dir_ / "parts" / "agents" / f)) << f;
  // A finished match cannot be started again over itself.
  EXPECT_THROW(run(dir_ / "whole", config), Error);
  test::expect_refused_while_held(dir_ / "whole", "match", [&] { run(dir_ / "whole", ""); });
  test::expect_edited_config_refused(dir_ / "whole", [&] { run(dir_ / "whole", ""); });
}

TEST_F(MatchTest, CorruptRoundsCsvIsAnErrorOnResume) {
  const std::string config = write_config();
  run(dir_ / "m", config, 3);  // stopped before round 3: checkpoint of round 2
  std::string csv = test::contents(dir_ / "m" / "rounds.csv");
  csv += "7,0,8,4,0,4,0.5,1.0\n";  // a replicate this match does not have
  write_atomically(dir_ / "m" / "rounds.csv", csv);
  try {
    run(dir_ / "m", "");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("rounds.csv:"), std::string::npos) << e.what();
  }
}

// Rows are checked in 64-bit arithmetic (an int sum of these counts would overflow into a
// plausible 8) and for what the match writes: finite scores that match the counts, counts that
// are not negative, one row per (replicate, round), the cumulative games of the round.
TEST_F(MatchTest, ImpossibleRoundsRowsAreErrorsWithFileAndLine) {
  const std::string config = write_config();
  run(dir_ / "m", config, 3);  // stopped before round 3: rows for rounds 0..2, checkpoint of round 2
  const fs::path csv = dir_ / "m" / "rounds.csv";
  const std::string good = test::contents(csv);
  auto message_with_line_4 = [&](const std::string& row) {
    std::istringstream in(good);
    std::string out, line;
    for (int n = 1; std::getline(in, line); ++n) out += (n == 4 ? row : line) + "\n";
    write_atomically(csv, out);
    try {
      run(dir_ / "m", "");
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no ef::Error");
  };
  const std::string where = csv.string() + ":4: ";
  // Line 4 is replicate 0, round 1 (lines 2, 3: round 0 of replicates 0 and 1).
  EXPECT_NE(message_with_line_4("0,1,16,2147483647,2147483647,4,0.5,0.003").find(where + "wins '2147483647'"),
            std::string::npos);
  EXPECT_NE(message_with_line_4("0,1,16,4,0,4,nan,0.003").find(where + "score 'nan'"), std::string::npos);
  EXPECT_NE(message_with_line_4("0,1,16,4,0,4,inf,0.003").find(where + "score 'inf'"), std::string::npos);
  EXPECT_NE(message_with_line_4("0,1,16,4,0,4,0.9,0.003").find(where + "score 0.9 does not match"), std::string::npos);
  EXPECT_NE(message_with_line_4("0,1,16,-1,5,4,0.5,0.003").find(where + "wins '-1'"), std::string::npos);
  EXPECT_NE(message_with_line_4("0,1,16,4,0,3,0.5,0.003").find(where + "wins + draws + losses = 7"), std::string::npos);
  EXPECT_NE(message_with_line_4("0,1,99,4,0,4,0.5,0.003").find(where + "games_played 99"), std::string::npos);
  EXPECT_NE(message_with_line_4("0,0,8,4,0,4,0.5,0.003").find(where + "replicate 0 round 0 is already recorded"),
            std::string::npos);
  EXPECT_NE(message_with_line_4("0,1,16,4,0,4,0.5,-2").find(where + "seconds '-2'"), std::string::npos);
  // A missing row before the checkpoint is refused too: the totals would be wrong.
  {
    std::istringstream in(good);
    std::string out, line;
    for (int n = 1; std::getline(in, line); ++n)
      if (n != 4) out += line + "\n";
    write_atomically(csv, out);
    try {
      run(dir_ / "m", "");
      ADD_FAILURE() << "resumed with a row missing";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("rows are missing"), std::string::npos) << e.what();
    }
  }
  // Restored, it resumes to the end.
  write_atomically(csv, good);
  EXPECT_EQ(run(dir_ / "m", "").size(), 12u);
}

TEST_F(MatchTest, AgentNamesWithControlCharactersSurviveTheFiles) {
  play::OthelloAgent a = play::swh_agent({2, 10});
  a.name = "tab\there \"quoted\" back\\slash";
  play::save_agent(a, dir_ / "odd.toml");
  const play::OthelloAgent b = play::load_agent((dir_ / "odd.toml").string());
  EXPECT_EQ(b.name, a.name);
  EXPECT_EQ(b.limits.depth, 2);
  EXPECT_EQ(b.limits.exact_empties, 10);
}

TEST_F(MatchTest, ConfigErrorsNameTheKey) {
  auto message = [&](const std::string& config) {
    try {
      play::load_match_config(config);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  {
    const fs::path f = dir_ / "odd.toml";
    std::ofstream(f) << "[match]\ngames_per_round = 7\n[data]\nfiles = [\"x\"]\n";
    EXPECT_NE(message(f.string()).find("games_per_round"), std::string::npos);
  }
  {
    const fs::path f = dir_ / "unknown.toml";
    std::ofstream(f) << "[match]\ngamez = 7\n";
    EXPECT_NE(message(f.string()).find("match.gamez"), std::string::npos);
  }
  {
    const fs::path f = dir_ / "phases.toml";
    std::ofstream(f) << "[agent1]\nphases = [[30, 30], [50, 46]]\n[data]\nfiles = [\"x\"]\n";
    EXPECT_NE(message(f.string()).find("move 60"), std::string::npos);
  }
  {
    const fs::path f = dir_ / "depth.toml";
    std::ofstream(f) << "[agent2]\ndepth = 99\n[data]\nfiles = [\"x\"]\n";
    EXPECT_NE(message(f.string()).find("agent2.depth"), std::string::npos);
  }
  {
    const fs::path f = dir_ / "nodata.toml";
    std::ofstream(f) << "[match]\ngames = 64\n";
    EXPECT_NE(message(f.string()).find("files"), std::string::npos);
  }
  // A phase naming a shape the file does not hold is reported when the match starts.
  const std::string bad = write_config("", "");
  std::string text = test::contents(bad);
  text.replace(text.find("[60, 50]"), 8, "[60, 52]");
  std::ofstream(bad) << text;
  try {
    run(dir_ / "bad", bad);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("move 52"), std::string::npos) << e.what();
  }
}

}  // namespace
