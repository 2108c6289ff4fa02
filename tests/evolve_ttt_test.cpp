// The "tictactoe" evolve kind (runs/evolve_tictactoe.cpp) and its matches (games/tictactoe/fitness_matches.hpp): the
// 16-game score, bit-identity across thread counts and across an interruption, co-evolution's
// monitor columns, a 240 network replayed outside the backend, and config errors.
#include <gtest/gtest.h>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include "backends/backend.hpp"
#include "core/error.hpp"
#include "engine/alphabeta.hpp"
#include "games/tictactoe/fitness_matches.hpp"
#include "games/tictactoe/perfect_play.hpp"
#include "runs/evolve_run.hpp"
#include "runs/evolve_tictactoe.hpp"
#include "test_support.hpp"

using namespace ef;
using ef::test::error_of;
namespace fs = std::filesystem;

namespace {

fs::path temp_dir(const std::string& name) { return test::scratch_dir("ttt", name); }
std::string read(const fs::path& f) { return test::file_bytes(f); }

ga::EvolveConfig small(bool coevolution) {
  const fs::path f = temp_dir(coevolution ? "cfg_co" : "cfg") / "c.toml";
  std::ofstream(f) << "[evolve]\nkind = \"tictactoe\"\ngenerations = 5\ntrials = 2\nseed = 4\n"
                      "[population]\nsize = 12\nmutation_rate = 0.01\nelitism = 1\n"
                      "[network]\ndepth = 2\n"
                   << (coevolution ? "[opponent]\nkind = \"coevolution\"\ntop = 3\nmonitor_depth = 2\n"
                                   : "[opponent]\ndepth = 2\n");
  return ga::load_evolve_config(f.string());
}

ga::EvolveRunOptions threads(int t) {
  ga::EvolveRunOptions o;
  o.threads = t;
  return o;
}

std::string without_time(const fs::path& dir) {
  std::stringstream in(read(dir / "metrics.csv")), out;
  for (std::string line; std::getline(in, line);) {
    line = line.substr(0, line.rfind(','));
    out << line.substr(0, line.rfind(',')) << "\n";
  }
  return out.str();
}

// Plays one game with plain alpha-beta, outside the backend: X's and O's evaluators and depths.
template <class EX, class EO>
int replay(tictactoe::Board b, const EX& ex, int dx, const EO& eo, int d_o) {
  while (!b.terminal()) {
    const int sq = b.side == tictactoe::kX ? search::alphabeta<games::TicTacToe>(b, dx, ex).best_move
                                           : search::alphabeta<games::TicTacToe>(b, d_o, eo).best_move;
    b = b.play(sq);
  }
  return b.score_for_x();
}

}  // namespace

TEST(TttMatches, SixteenGamesScoreThirtyFifteenZeroFromThePlayersSide) {
  auto cpu = make_backend("cpu", 2);
  play::TttMatches m(*cpu);
  const play::TicTacToeAgent perfect = play::static_agent(9);
  play::TicTacToeAgent random;
  random.params.kind = play::TicTacToeEvaluator::kRandom;
  const std::vector<play::TttMatch> list{{&perfect, &perfect}, {&perfect, &random}, {&random, &perfect}};
  const auto s = m.play(list);
  EXPECT_EQ(s[0], 240);  // perfect against perfect: 16 draws
  EXPECT_GE(s[1], 240);  // perfect never loses
  EXPECT_LE(s[2], 240);
  EXPECT_EQ(s[1] + s[2], 480);  // the same 16 games from either side (random draws nothing here: seed 1, game ids)
}

TEST(EvolveTicTacToe, BitIdenticalForOneAndTwoThreadsAndAcrossAnInterruption) {
  for (bool co : {false, true}) {
    const fs::path dir = temp_dir(co ? "co" : "plain");
    ga::run_evolve(small(co), dir / "one", threads(1));
    ga::run_evolve(small(co), dir / "two", threads(2));
    EXPECT_EQ(without_time(dir / "one"), without_time(dir / "two"));
    EXPECT_EQ(read(dir / "one" / "best_networks.csv"), read(dir / "two" / "best_networks.csv"));
    ga::EvolveRunOptions stop = threads(2);
    stop.stop_requested = [n = 0]() mutable { return ++n >= 2; };
    EXPECT_TRUE(ga::run_evolve(small(co), dir / "cut", stop).interrupted);
    test::expect_refused_while_held(dir / "cut", "evolve", [&] { ga::resume_evolve(dir / "cut", threads(1)); });
    EXPECT_TRUE(ga::resume_evolve(dir / "cut", threads(1)).complete);
    EXPECT_EQ(without_time(dir / "one"), without_time(dir / "cut"));
    EXPECT_EQ(read(dir / "one" / "best_networks.csv"), read(dir / "cut" / "best_networks.csv"));
    EXPECT_EQ(read(dir / "one" / "checkpoint.bin"), read(dir / "cut" / "checkpoint.bin"));
    // 5 generations x 2 trials x populations, and the monitor columns only with co-evolution.
    const std::string m = read(dir / "one" / "metrics.csv");
    EXPECT_EQ(std::count(m.begin(), m.end(), '\n'), 1 + 5 * 2 * (co ? 2 : 1));
    std::stringstream in(m);
    std::string header, row;
    std::getline(in, header);
    std::getline(in, row);
    EXPECT_EQ(row.find(",,") == std::string::npos, co) << row;
  }
}

TEST(EvolveTicTacToe, AResumeLimitAtTheBredGenerationIsRefused) {
  const fs::path dir = temp_dir("limit") / "r";
  ga::EvolveRunOptions stop = threads(2);
  stop.stop_requested = [n = 0]() mutable { return ++n >= 2; };
  ASSERT_TRUE(ga::run_evolve(small(false), dir, stop).interrupted);  // generations 0, 1 played; 2 bred
  const std::string config = read(dir / "config.toml");
  const std::string e = error_of([&] { ga::resume_evolve(dir, threads(1), 2); });
  EXPECT_NE(e.find("at least 3"), std::string::npos) << e;
  EXPECT_EQ(read(dir / "config.toml"), config);
  const auto done = ga::resume_evolve(dir, threads(1), 3);  // plays generation 2 as the last
  EXPECT_TRUE(done.complete);
  EXPECT_EQ(done.generations_done, 3);
  EXPECT_TRUE(fs::exists(dir / "best_networks.csv"));
}

TEST(EvolveTicTacToe, ABestNetworkOfTwoFortyDrawsEveryGameWhenReplayed) {
  // Against the static evaluator at ply 4 some network scores 240 within a few generations
  // (4-ply minimax with exact wins holds the draw whatever the network says). Replay the best
  // one's 16 games with plain alpha-beta, outside the backend and the match code.
  const fs::path f = temp_dir("cfg240") / "c.toml";
  std::ofstream(f) << "[evolve]\nkind = \"tictactoe\"\ngenerations = 1\ntrials = 1\n";
  const fs::path dir = temp_dir("240") / "r";
  ga::run_evolve(ga::load_evolve_config(f.string()), dir, threads(2));
  std::stringstream in(read(dir / "best_networks.csv"));
  std::string line;
  std::getline(in, line);
  std::getline(in, line);
  std::vector<std::string> cols;
  std::stringstream row(line);
  for (std::string x; std::getline(row, x, ',');) cols.push_back(x);
  ASSERT_EQ(cols.size(), 5u);
  ASSERT_EQ(cols[2], "240.000");
  ga::BitString bits;
  for (char h : cols[4]) {
    const int v = h <= '9' ? h - '0' : h - 'a' + 10;
    for (int k = 3; k >= 0; --k) bits.push_back(static_cast<unsigned char>(v >> k & 1));
  }
  bits.resize(tictactoe::network_bits(tictactoe::Topology::kFull));
  const tictactoe::Network net = tictactoe::decode_network(bits.data(), tictactoe::Topology::kFull);
  const tictactoe::NetworkEvaluator ne{&net};
  const tictactoe::StaticEvaluator se;
  for (int sq : {0, 1, 2, 3, 5, 6, 7, 8}) {
    const tictactoe::Board start = tictactoe::Board{}.play(sq);
    EXPECT_EQ(replay(start, ne, 4, se, 4), 0) << "network as X after " << sq;
    EXPECT_EQ(replay(start, se, 4, ne, 4), 0) << "network as O after " << sq;
  }
}

TEST(EvolveTicTacToe, ConfigErrorsNameTheKey) {
  auto expect = [](const std::string& text, const std::string& needle) {
    const fs::path f = temp_dir("bad") / "c.toml";
    std::ofstream(f) << "[evolve]\nkind = \"tictactoe\"\n" << text;
    const std::string m = error_of([&] { ga::load_evolve_config(f.string()); });
    EXPECT_NE(m.find(needle), std::string::npos) << m;
  };
  expect("[population]\nselection = \"best\"\n", "population.selection");
  expect("[population]\nelitism = 100\n", "elitism");
  expect("[network]\ntopology = \"wide\"\n", "network.topology");
  expect("[network]\ndepth = 10\n", "network.depth");
  expect("[opponent]\nkind = \"human\"\n", "opponent.kind");
  expect("[play]\n", "unknown section [play]");
  expect("[opponent]\nkind = \"coevolution\"\ntop = 500\n", "opponent.top");
  // The shipped configs load.
  for (const char* name : {"ttt-ply4.toml", "ttt-ply1.toml", "ttt-coevolution.toml", "ttt-ply4-rank-elitism.toml"})
    EXPECT_NO_THROW(ga::load_evolve_config(std::string(EF_SOURCE_DIR "/configs/") + name)) << name;
}

#if defined(EF_EVALFORGE_BIN)
TEST(TicTacToeCommand, RoundRobinOfEvolvedNetworksAndStaticPlayers) {
  const fs::path f = temp_dir("cmd_cfg") / "c.toml";
  std::ofstream(f) << "[evolve]\nkind = \"tictactoe\"\ngenerations = 1\ntrials = 2\n[population]\nsize = 8\n";
  const fs::path dir = temp_dir("cmd") / "r";
  ga::run_evolve(ga::load_evolve_config(f.string()), dir, threads(2));
  const auto [rc, out] =
      test::run_command(std::string(EF_EVALFORGE_BIN) + " tictactoe --run " + dir.string() + " --static 1,9 2>&1");
  ASSERT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("r:t0a"), std::string::npos) << out;
  EXPECT_NE(out.find("r:t1a"), std::string::npos) << out;
  // The perfect player (static at 9 plies) never loses: every entry of its row is >= 240.
  std::stringstream in(out);
  bool seen = false;
  for (std::string line; std::getline(in, line);) {
    if (line.find("static-ply9") == std::string::npos) continue;
    seen = true;
    std::stringstream cells(line.substr(line.find("static-ply9") + 11));
    std::string total, bt;
    cells >> total >> bt;
    for (std::string c; cells >> c;) {
      if (c != "-") {
        EXPECT_GE(std::stoi(c), 240) << line;
      }
    }
  }
  EXPECT_TRUE(seen) << out;
  const auto [rc2, out2] = test::run_command(std::string(EF_EVALFORGE_BIN) + " tictactoe --run /no/such/run 2>&1");
  EXPECT_NE(rc2, 0);
  EXPECT_NE(out2.find("/no/such/run"), std::string::npos) << out2;
}

TEST(TicTacToeCommand, MeasuresNetworksAndBaselinesAgainstPerfectPlay) {
  const fs::path f = temp_dir("measure_cfg") / "c.toml";
  std::ofstream(f) << "[evolve]\nkind = \"tictactoe\"\ngenerations = 1\ntrials = 2\n[population]\nsize = 8\n";
  const fs::path dir = temp_dir("measure") / "r";
  ga::run_evolve(ga::load_evolve_config(f.string()), dir, threads(2));
  const std::string bin = std::string(EF_EVALFORGE_BIN) + " tictactoe --measure --run " + dir.string();
  const auto [rc, out] = test::run_command(bin + " --static 9 --random-networks 3 --seed 5 --json 2>/dev/null");
  ASSERT_EQ(rc, 0) << out;
  const nlohmann::json j = nlohmann::json::parse(out);
  EXPECT_EQ(j["positions"], 4520);
  std::map<std::string, nlohmann::json> rows;
  for (const auto& p : j["players"]) rows[p["name"].get<std::string>()] = p;
  ASSERT_EQ(rows.size(), 5u) << out;  // the oracle, 2 networks, static-ply9, constant-ply4 (the runs' depth)
  for (const char* perfect : {"perfect (the oracle)", "static-ply9"}) {
    ASSERT_TRUE(rows.count(perfect)) << perfect;
    EXPECT_EQ(rows[perfect]["optimal"], 4520) << perfect;
    EXPECT_EQ(rows[perfect]["never_loses"], true) << perfect;
    EXPECT_EQ(rows[perfect]["as_o"]["vs_random"]["loss"], 0.0) << perfect;
  }
  ASSERT_TRUE(rows.count("constant-ply4"));
  // The networks' rows are the library's measures of the run's networks.
  const auto agents = ga::load_best_networks(dir);
  const auto measured = tictactoe::measure_agents(agents, 1);
  for (std::size_t i = 0; i < agents.size(); ++i) {
    ASSERT_TRUE(rows.count(agents[i].name)) << agents[i].name;
    const nlohmann::json& row = rows[agents[i].name];
    EXPECT_EQ(row["optimal"], measured[i].optimal);
    EXPECT_EQ(row["nontrivial_optimal"], measured[i].nontrivial_optimal);
    EXPECT_EQ(row["as_x"]["worst_vs_any"], tictactoe::result_name(measured[i].as_x.worst_vs_any));
    EXPECT_EQ(row["as_o"]["worst_vs_perfect"], tictactoe::result_name(measured[i].as_o.worst_vs_perfect));
    EXPECT_DOUBLE_EQ(row["as_o"]["vs_random"]["loss"].get<double>(), measured[i].as_o.loss);
  }
  ASSERT_EQ(j["random_networks"].size(), 1u);
  EXPECT_EQ(j["random_networks"][0]["depth"], 4);
  EXPECT_EQ(j["random_networks"][0]["topology"], "full");
  EXPECT_EQ(j["random_networks"][0]["summary"]["players"], 3);
  EXPECT_EQ(j["random_networks"][0]["networks"].size(), 3u);
  // The table names the baselines; a depth outside 1..9 is refused by its flag.
  const auto [rc2, out2] = test::run_command(bin + " --static 4 --random-networks 2 --depths 1,2 2>&1");
  ASSERT_EQ(rc2, 0) << out2;
  EXPECT_NE(out2.find("2 random networks (full topology, depth 1, seed 1)"), std::string::npos) << out2;
  EXPECT_NE(out2.find("2 random networks (full topology, depth 2, seed 1)"), std::string::npos) << out2;
  EXPECT_NE(out2.find("constant-ply2"), std::string::npos) << out2;
  const auto [rc3, out3] = test::run_command(bin + " --depths 10 2>&1");
  EXPECT_NE(rc3, 0);
  EXPECT_NE(out3.find("--depths"), std::string::npos) << out3;
}
#endif
