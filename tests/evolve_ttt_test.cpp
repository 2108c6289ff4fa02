// The "tictactoe" evolve kind (runs/evolve_tictactoe.cpp) and its matches (games/tictactoe/fitness_matches.hpp): the
// 16-game score, bit-identity across thread counts and across an interruption, co-evolution's
// monitor columns, a 240 network replayed outside the backend, and config errors.
#include <gtest/gtest.h>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include "core/bytes.hpp"
#include "evalforge/backends/backend.hpp"
#include "evalforge/core/error.hpp"
#include "evalforge/core/run_dir.hpp"
#include "evalforge/engine/alphabeta.hpp"
#include "evalforge/games/tictactoe/fitness_matches.hpp"
#include "evalforge/runs/evolve_run.hpp"
#include "games/tictactoe/perfect_play.hpp"
#include "runs/evolve_tictactoe.hpp"
#include "test_support.hpp"

using namespace ef;
using ef::test::error_of;
namespace fs = std::filesystem;

namespace {

fs::path temp_dir(const std::string& name) { return test::scratch_dir("ttt", name); }
std::string read(const fs::path& f) { return test::file_bytes(f); }

ga::EvolveConfig small(bool coevolution, const std::string& monitor = "[monitor]\npopulation_every = 2\n") {
  const fs::path f = temp_dir(coevolution ? "cfg_co" : "cfg") / "c.toml";
  std::ofstream(f) << "[evolve]\nkind = \"tictactoe\"\ngenerations = 5\ntrials = 2\nseed = 4\n"
                      "[population]\nsize = 12\nmutation_rate = 0.01\nelitism = 1\n"
                      "[network]\ndepth = 2\n"
                   << (coevolution ? "[opponent]\nkind = \"coevolution\"\ntop = 3\nmonitor_depth = 2\n"
                                   : "[opponent]\ndepth = 2\n")
                   << monitor;
  return ga::load_evolve_config(f.string());
}

// The rows of a CSV file, split at commas (a trailing empty field kept).
std::vector<std::vector<std::string>> csv_rows(const fs::path& file) {
  std::stringstream in(read(file));
  std::vector<std::vector<std::string>> rows;
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::stringstream ss(line);
    for (std::string x; std::getline(ss, x, ',');) f.push_back(x);
    if (!line.empty() && line.back() == ',') f.push_back("");
    rows.push_back(f);
  }
  return rows;
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
    test::expect_edited_config_refused(dir / "cut", [&] { ga::resume_evolve(dir / "cut", threads(1)); });
    EXPECT_TRUE(ga::resume_evolve(dir / "cut", threads(1)).complete);
    EXPECT_EQ(without_time(dir / "one"), without_time(dir / "cut"));
    EXPECT_EQ(read(dir / "one" / "best_networks.csv"), read(dir / "cut" / "best_networks.csv"));
    EXPECT_EQ(read(dir / "one" / "checkpoint.bin"), read(dir / "cut" / "checkpoint.bin"));
    EXPECT_EQ(read(dir / "one" / "oracle.csv"), read(dir / "two" / "oracle.csv"));
    EXPECT_EQ(read(dir / "one" / "oracle.csv"), read(dir / "cut" / "oracle.csv"));
    // One oracle row per metrics row; the population share at generations 0, 2 and 4 (every 2nd
    // and the last) only.
    const auto oracle = csv_rows(dir / "one" / "oracle.csv");
    ASSERT_EQ(oracle.size(), static_cast<std::size_t>(5 * 2 * (co ? 2 : 1)));
    for (const auto& row : oracle) {
      ASSERT_EQ(row.size(), 12u);
      EXPECT_EQ(row[11].empty(), std::stoi(row[0]) % 2 == 1) << row[0];
    }
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

TEST(EvolveTicTacToe, GamesPlayedOnServingRanksGiveTheSameBits) {
  // The Tic-Tac-Toe GA's games over 3 ranks as threads (the network agents travel as bytes):
  // the files of one process.
  for (bool co : {false, true}) {
    const fs::path dir = temp_dir(co ? "ranks-co" : "ranks");
    ga::run_evolve(small(co), dir / "one", threads(1));
    test::with_serving_ranks(3, [&](ga::IslandTeam& team) {
      ga::EvolveRunOptions o = threads(1);
      o.team = &team;
      EXPECT_TRUE(ga::run_evolve(small(co), dir / "ranks", o).complete);
    });
    EXPECT_EQ(without_time(dir / "one"), without_time(dir / "ranks"));
    for (const char* f : {"best_networks.csv", "oracle.csv", "checkpoint.bin"})
      EXPECT_EQ(read(dir / "one" / f), read(dir / "ranks" / f)) << f;
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
  for (const char* name : {"ttt-ply4.toml", "ttt-ply1.toml", "ttt-ply1-as-written.toml", "ttt-coevolution.toml",
                           "ttt-ply4-rank-elitism.toml", "ttt-ply4-all-openings.toml", "ttt-oracle.toml",
                           "ttt-depths.toml", "ttt-random-ties.toml", "ttt-safety.toml"})
    EXPECT_NO_THROW(ga::load_evolve_config(std::string(EF_SOURCE_DIR "/configs/") + name)) << name;
}

TEST(TttMatches, AllOpeningsAddTheCentreGamesToTheSourcesSixteen) {
  // With the centre opening the match is the source's 16 games plus two from b2; those two are
  // replayed here with plain alpha-beta, outside the backend and the match code.
  auto cpu = make_backend("cpu", 2);
  play::TttMatches source(*cpu), all(*cpu, play::TttOpenings::kAll);
  const play::TicTacToeAgent constant = tictactoe::constant_agent(4), opponent = play::static_agent(4),
                             perfect = play::static_agent(9);
  const std::vector<play::TttMatch> list{{&constant, &opponent}, {&opponent, &constant}, {&perfect, &perfect}};
  const auto s16 = source.play(list), s18 = all.play(list);
  const tictactoe::Network zero;
  const tictactoe::NetworkEvaluator ne{&zero};
  const tictactoe::StaticEvaluator se;
  auto points = [](int score_for_player) { return score_for_player > 0 ? 30 : (score_for_player == 0 ? 15 : 0); };
  const tictactoe::Board centre = tictactoe::Board{}.play(4);
  const int constant_as_x = replay(centre, ne, 4, se, 4), constant_as_o = -replay(centre, se, 4, ne, 4);
  EXPECT_EQ(s18[0], s16[0] + points(constant_as_x) + points(constant_as_o));
  EXPECT_EQ(s18[1], s16[1] + points(-replay(centre, ne, 4, se, 4)) + points(replay(centre, se, 4, ne, 4)));
  EXPECT_EQ(s16[2], 240);
  EXPECT_EQ(s18[2], 270);  // perfect against perfect: 18 draws
  EXPECT_EQ(play::ttt_max_points(play::TttOpenings::kAll), 540);
}

TEST(EvolveTicTacToe, OracleFitnessFollowsItsDocumentedFormula) {
  tictactoe::PlayerMeasures m;
  m.nontrivial_positions = 4;
  m.nontrivial_optimal = 4;
  m.as_x.worst_vs_perfect = m.as_o.worst_vs_perfect = tictactoe::Result::kDraw;
  EXPECT_DOUBLE_EQ(ga::oracle_fitness(m), 480.0);  // both colours held, every move optimal
  m.nontrivial_optimal = 1;
  m.as_o.worst_vs_perfect = tictactoe::Result::kLoss;
  EXPECT_DOUBLE_EQ(ga::oracle_fitness(m), 200.0 + 20.0);
  m.as_x.worst_vs_perfect = tictactoe::Result::kLoss;
  m.nontrivial_optimal = 0;
  EXPECT_DOUBLE_EQ(ga::oracle_fitness(m), 0.0);
  // One more colour held outweighs any share.
  tictactoe::PlayerMeasures held;
  held.nontrivial_positions = 4;
  held.as_o.worst_vs_perfect = tictactoe::Result::kLoss;
  m.nontrivial_optimal = 4;
  EXPECT_GT(ga::oracle_fitness(held), ga::oracle_fitness(m));
}

namespace {

// Runs `c` in DIR/one on 2 threads, and in DIR/cut on 1 thread stopped after its second
// generation and resumed on 2: the same metrics (but for the seconds), best networks and oracle
// table.
void expect_resumes_bit_identically(const ga::EvolveConfig& c, const fs::path& dir) {
  ga::run_evolve(c, dir / "one", threads(2));
  ga::EvolveRunOptions stop = threads(1);
  stop.stop_requested = [n = 0]() mutable { return ++n >= 2; };
  ASSERT_TRUE(ga::run_evolve(c, dir / "cut", stop).interrupted);
  EXPECT_TRUE(ga::resume_evolve(dir / "cut", threads(2)).complete);
  EXPECT_EQ(without_time(dir / "one"), without_time(dir / "cut"));
  EXPECT_EQ(read(dir / "one" / "best_networks.csv"), read(dir / "cut" / "best_networks.csv"));
  EXPECT_EQ(read(dir / "one" / "oracle.csv"), read(dir / "cut" / "oracle.csv"));
}

// The fitness best_networks.csv records for the 2 trials' best networks of the run in `dir`
// equals `expected` of their full measures against perfect play.
void expect_best_fitness(const fs::path& dir, const std::function<double(const tictactoe::PlayerMeasures&)>& expected) {
  const auto best = ga::load_best_networks(dir);
  const auto rows = csv_rows(dir / "best_networks.csv");
  ASSERT_EQ(best.size(), 2u);
  for (std::size_t t = 0; t < 2; ++t)
    EXPECT_NEAR(std::stod(rows[t][2]), expected(tictactoe::measure(tictactoe::agent_chooser(best[t]))), 1e-3) << t;
}

}  // namespace

TEST(EvolveTicTacToe, OracleFitnessRunsResumeBitIdenticallyAndScoreTheBestByItsMeasures) {
  const fs::path dir = temp_dir("oraclefit");
  const fs::path f = dir / "c.toml";
  std::ofstream(f) << "[evolve]\nkind = \"tictactoe\"\ngenerations = 4\ntrials = 2\nseed = 3\n"
                      "[population]\nsize = 10\nselection = \"rank\"\nelitism = 1\nmutation_rate = 0.01\n"
                      "[network]\ndepth = 2\n[fitness]\nkind = \"oracle\"\n";
  const ga::EvolveConfig c = ga::load_evolve_config(f.string());
  expect_resumes_bit_identically(c, dir);
  // The best network's fitness is 200 per colour that holds perfect play + 80 x its non-trivial
  // optimal share, from the full measures.
  expect_best_fitness(dir / "one", [](const tictactoe::PlayerMeasures& m) {
    const int held =
        (m.as_x.worst_vs_perfect != tictactoe::Result::kLoss) + (m.as_o.worst_vs_perfect != tictactoe::Result::kLoss);
    return 200.0 * held + 80.0 * m.nontrivial_optimal / m.nontrivial_positions;
  });
}

TEST(EvolveTicTacToe, SafetyFitnessIsTheExactLossAgainstARandomOpponentAndResumesBitIdentically) {
  const tictactoe::LossVsRandom none{0.0, 0.0}, some{0.25, 0.5};
  EXPECT_EQ(ga::safety_fitness(none), 480.0);  // never loses: the maximum
  EXPECT_DOUBLE_EQ(ga::safety_fitness(some), 240.0 * 1.25);
  const fs::path dir = temp_dir("safetyfit");
  const fs::path f = dir / "c.toml";
  std::ofstream(f) << "[evolve]\nkind = \"tictactoe\"\ngenerations = 4\ntrials = 2\nseed = 5\n"
                      "[population]\nsize = 10\nselection = \"rank\"\nelitism = 1\nmutation_rate = 0.01\n"
                      "[network]\ndepth = 2\n[fitness]\nkind = \"safety\"\n";
  const ga::EvolveConfig c = ga::load_evolve_config(f.string());
  EXPECT_EQ(c.ttt.fitness, ga::TttFitness::kSafety);
  expect_resumes_bit_identically(c, dir);
  // The best network's recorded fitness is 240 x (2 - its losses against a random opponent),
  // from the full measures.
  expect_best_fitness(dir / "one",
                      [](const tictactoe::PlayerMeasures& m) { return 240.0 * (2.0 - m.as_x.loss - m.as_o.loss); });
  // The resolved config keeps the kind.
  std::ofstream(dir / "again.toml") << ga::evolve_config_to_toml(c);
  EXPECT_EQ(ga::load_evolve_config((dir / "again.toml").string()).ttt.fitness, ga::TttFitness::kSafety);
}

TEST(EvolveTicTacToe, FitnessKeysAreCheckedAndRecorded) {
  auto expect = [](const std::string& text, const std::string& needle) {
    const fs::path f = temp_dir("badfit") / "c.toml";
    std::ofstream(f) << "[evolve]\nkind = \"tictactoe\"\n" << text;
    const std::string m = error_of([&] { ga::load_evolve_config(f.string()); });
    EXPECT_NE(m.find(needle), std::string::npos) << m;
  };
  expect("[fitness]\nkind = \"elo\"\n", "fitness.kind");
  expect("[fitness]\nopenings = \"corners\"\n", "fitness.openings");
  expect("[opponent]\nkind = \"coevolution\"\n[fitness]\nkind = \"oracle\"\n", "fitness.kind");
  expect("[fitness]\nkind = \"oracle\"\nopenings = \"all\"\n", "fitness.openings");
  expect("[opponent]\nkind = \"coevolution\"\n[fitness]\nkind = \"safety\"\n", "fitness.kind");
  expect("[fitness]\nkind = \"safety\"\nties = \"random\"\n", "fitness.ties");
  expect("[monitor]\npopulation_every = 0\n", "monitor.population_every");
  // The resolved config keeps them.
  const fs::path f = temp_dir("fitkeys") / "c.toml";
  std::ofstream(f)
      << "[evolve]\nkind = \"tictactoe\"\n[fitness]\nopenings = \"all\"\n[monitor]\npopulation_every = 3\n";
  const ga::EvolveConfig c = ga::load_evolve_config(f.string());
  const fs::path g = temp_dir("fitkeys") / "again.toml";
  std::ofstream(g) << ga::evolve_config_to_toml(c);
  const ga::TicTacToeConfig again = ga::load_evolve_config(g.string()).ttt;
  EXPECT_EQ(again.openings, play::TttOpenings::kAll);
  EXPECT_EQ(again.population_every, 3);
  EXPECT_EQ(again.fitness, ga::TttFitness::kGames);
  EXPECT_TRUE(again.oracle);
}

// Opponents at several depths: a member's fitness is the mean of its matches against each, so a
// generation's mean fitness is the mean of the runs against each depth alone (the same generation
// 0: same seed); the list round-trips through config.toml, and a repeated or empty list is refused.
TEST(EvolveTicTacToe, OpponentsAtSeveralDepthsScoreTheMeanOfTheirMatches) {
  const fs::path dir = temp_dir("depths");
  const auto config = [&](const std::string& depth) {
    const fs::path f = dir / ("c" + std::to_string(std::hash<std::string>{}(depth)) + ".toml");
    std::ofstream(f) << "[evolve]\nkind = \"tictactoe\"\ngenerations = 1\ntrials = 2\nseed = 4\n"
                        "[population]\nsize = 12\n[network]\ndepth = 2\n[monitor]\noracle = false\n"
                        "[opponent]\ndepth = "
                     << depth << "\n";
    return f.string();
  };
  const auto mean_fitness = [&](const std::string& depth, const std::string& name) {
    ga::run_evolve(ga::load_evolve_config(config(depth)), dir / name, threads(2));
    std::vector<double> means;
    for (const auto& row : csv_rows(dir / name / "metrics.csv")) means.push_back(std::stod(row[4]));
    return means;
  };
  const std::vector<double> one = mean_fitness("1", "one"), four = mean_fitness("4", "four"),
                            both = mean_fitness("[1, 4]", "both");
  ASSERT_EQ(both.size(), 2u);  // generation 0 of 2 trials
  ASSERT_EQ(one.size(), 2u);
  ASSERT_EQ(four.size(), 2u);
  for (std::size_t t = 0; t < 2; ++t) {
    EXPECT_NEAR(both[t], (one[t] + four[t]) / 2, 0.0015) << t;  // metrics.csv prints 3 decimals
    EXPECT_GT(one[t], four[t]) << t;  // the shallow opponent concedes more: the list is not one opponent twice
  }
  const ga::EvolveConfig c = ga::load_evolve_config(config("[1, 4]"));
  EXPECT_EQ(c.ttt.opponent_depths, (std::vector<int>{1, 4}));
  const fs::path again = dir / "again.toml";
  std::ofstream(again) << ga::evolve_config_to_toml(c);
  EXPECT_EQ(ga::load_evolve_config(again.string()).ttt.opponent_depths, (std::vector<int>{1, 4}));
  for (const char* bad : {"[4, 4]", "[]", "[0]", "[1, 10]", "\"deep\""})
    EXPECT_NE(error_of([&] { ga::load_evolve_config(config(bad)); }).find("opponent.depth"), std::string::npos) << bad;
}

TEST(EvolveTicTacToe, ThePly1ConfigAsWrittenChangesOnlyTheOpponentsDepth) {
  // The source's ply-1 experiment changes the opponent's depth only; configs/ttt-ply1.toml is the
  // project's reading, with the network at 1 ply too.
  const std::string dir = EF_SOURCE_DIR "/configs/";
  const ga::TicTacToeConfig ply4 = ga::load_evolve_config(dir + "ttt-ply4.toml").ttt;
  const ga::TicTacToeConfig written = ga::load_evolve_config(dir + "ttt-ply1-as-written.toml").ttt;
  const ga::TicTacToeConfig reading = ga::load_evolve_config(dir + "ttt-ply1.toml").ttt;
  EXPECT_EQ(written.depth, 4);
  EXPECT_EQ(written.opponent_depths, std::vector<int>{1});
  EXPECT_EQ(reading.depth, 1);
  EXPECT_EQ(reading.opponent_depths, std::vector<int>{1});
  ga::TicTacToeConfig changed = ply4;
  changed.opponent_depths = {1};
  ga::EvolveConfig a, b;
  a.kind = b.kind = ga::EvolveKind::kTicTacToe;
  a.ttt = changed;
  b.ttt = written;
  EXPECT_EQ(ga::evolve_config_to_toml(a), ga::evolve_config_to_toml(b));
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

TEST(TicTacToeCommand, ScreensRandomNetworksAsTheRandomSamplingBaseline) {
  const std::string bin = std::string(EF_EVALFORGE_BIN) + " tictactoe --screen-random 600 --seed 1";
  const auto [rc, out] = test::run_command(bin + " --depths 4,2 --threads 2 --json 2>/dev/null");
  ASSERT_EQ(rc, 0) << out;
  const nlohmann::json j = nlohmann::json::parse(out);
  ASSERT_EQ(j.size(), 2u);
  for (const auto& row : j) {
    const int depth = row["depth"];
    const tictactoe::RandomScreen s = tictactoe::screen_random_networks(600, tictactoe::Topology::kFull, depth, 1, 1);
    EXPECT_EQ(row["networks"], 600);
    EXPECT_EQ(row["never_lose"], s.never_lose) << depth;
    EXPECT_EQ(row["first"], s.first) << depth;
    // The interval holds the share and stays inside [0, 1], also when nothing never loses.
    EXPECT_DOUBLE_EQ(row["share"].get<double>(), static_cast<double>(s.never_lose) / 600);
    EXPECT_LE(row["share_low95"].get<double>(), row["share"].get<double>());
    EXPECT_GT(row["share_high95"].get<double>(), row["share"].get<double>());
    EXPECT_LT(row["share_high95"].get<double>(), 0.02);
  }
  const auto [rc2, out2] = test::run_command(bin + " --depths 2 2>&1");
  ASSERT_EQ(rc2, 0) << out2;
  EXPECT_NE(out2.find("random sampling (full topology, depth 2, seed 1):"), std::string::npos) << out2;
  EXPECT_NE(out2.find("of 600 networks never lose"), std::string::npos) << out2;
  // It is a use of its own, and N is checked by its flag.
  const auto [rc3, out3] = test::run_command(bin + " --measure 2>&1");
  EXPECT_NE(rc3, 0);
  EXPECT_NE(out3.find("--screen-random"), std::string::npos) << out3;
  const auto [rc5, out5] = test::run_command(bin + " --static 2 2>&1");
  EXPECT_NE(rc5, 0);
  EXPECT_NE(out5.find("--static excludes --screen-random"), std::string::npos) << out5;  // CLI11's words
  const auto [rc4, out4] = test::run_command(std::string(EF_EVALFORGE_BIN) + " tictactoe --screen-random 0 2>&1");
  EXPECT_NE(rc4, 0);
  EXPECT_NE(out4.find("--screen-random"), std::string::npos) << out4;
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

TEST(TicTacToeCommand, ReportDrawsTheOracleTableWithItsBaselines) {
  const fs::path f = temp_dir("report_cfg") / "c.toml";
  std::ofstream(f) << "[evolve]\nkind = \"tictactoe\"\ngenerations = 2\ntrials = 2\n[population]\nsize = 8\n"
                      "[network]\ndepth = 2\n[opponent]\ndepth = 3\n";
  const fs::path dir = temp_dir("report") / "r";
  ga::run_evolve(ga::load_evolve_config(f.string()), dir, threads(2));
  const auto [rc, out] = test::run_command(std::string(EF_EVALFORGE_BIN) + " report " + dir.string() + " 2>&1");
  ASSERT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("oracle.png"), std::string::npos) << out;
  ASSERT_TRUE(fs::exists(dir / "oracle.png"));
  EXPECT_GT(fs::file_size(dir / "oracle.png"), 0u);
  // The baselines are measured at the run's depths: the constant evaluator at the networks' 2
  // plies (its value on the first panel), the static evaluator at the opponent's 3.
  const std::string gp = read(dir / "report.gp");
  const std::string title = "title 'constant evaluator, ply 2'";
  const auto at = gp.find(title);
  ASSERT_NE(at, std::string::npos) << gp;
  const auto comma = gp.rfind(", ", at);
  const double drawn = std::stod(gp.substr(comma + 2, gp.find(' ', comma + 2) - comma - 2));
  EXPECT_NEAR(drawn,
              tictactoe::measure(tictactoe::agent_chooser(tictactoe::constant_agent(2))).nontrivial_optimal_share(),
              1e-9);
  EXPECT_NE(gp.find("title 'static evaluator, ply 3'"), std::string::npos);
  EXPECT_NE(gp.find("title 'random networks (mean of 100), ply 2'"), std::string::npos);
  // A run without the table reports its fitness alone.
  std::ofstream(f, std::ios::app) << "[monitor]\noracle = false\n";
  const fs::path plain = temp_dir("report") / "plain";
  ga::run_evolve(ga::load_evolve_config(f.string()), plain, threads(2));
  const auto [rc2, out2] = test::run_command(std::string(EF_EVALFORGE_BIN) + " report " + plain.string() + " 2>&1");
  ASSERT_EQ(rc2, 0) << out2;
  EXPECT_TRUE(fs::exists(plain / "fitness.png"));
  EXPECT_FALSE(fs::exists(plain / "oracle.png"));
}
#endif

TEST(EvolveTicTacToe, OracleTableHoldsTheBestNetworksMeasuresAndNeverFeedsSelection) {
  const fs::path dir = temp_dir("oracle");
  const ga::EvolveConfig c = small(false);
  ga::run_evolve(c, dir / "on", threads(2));
  ga::run_evolve(small(false, "[monitor]\noracle = false\n"), dir / "off", threads(2));
  EXPECT_FALSE(fs::exists(dir / "off" / "oracle.csv"));
  // Selection never reads the monitor: the same fitness and the same best networks without it.
  EXPECT_EQ(without_time(dir / "on"), without_time(dir / "off"));
  EXPECT_EQ(read(dir / "on" / "best_networks.csv"), read(dir / "off" / "best_networks.csv"));
  const auto rows = csv_rows(dir / "on" / "oracle.csv");
  // The last generation's best networks are best_networks.csv's: the full measures, recomputed.
  const auto best = ga::load_best_networks(dir / "on");
  const auto measured = tictactoe::measure_agents(best, 1);
  ASSERT_EQ(best.size(), 2u);
  for (std::size_t t = 0; t < 2; ++t) {
    const auto& row = rows[rows.size() - 2 + t];
    ASSERT_EQ(row[0], "4");
    EXPECT_NEAR(std::stod(row[3]), measured[t].optimal_share(), 1e-6);
    EXPECT_NEAR(std::stod(row[4]), measured[t].nontrivial_optimal_share(), 1e-6);
    EXPECT_EQ(row[5], tictactoe::result_name(measured[t].as_x.worst_vs_perfect));
    EXPECT_EQ(row[6], tictactoe::result_name(measured[t].as_o.worst_vs_perfect));
    EXPECT_EQ(row[7], tictactoe::result_name(measured[t].as_x.worst_vs_any));
    EXPECT_EQ(row[8], tictactoe::result_name(measured[t].as_o.worst_vs_any));
    EXPECT_NEAR(std::stod(row[9]), measured[t].as_x.loss, 1e-6);
    EXPECT_NEAR(std::stod(row[10]), measured[t].as_o.loss, 1e-6);
  }
  // Generation 0 is the GA's random population of each trial (stream 2 x trial): its share of
  // networks that never lose, by the full measures.
  for (int t = 0; t < 2; ++t) {
    const auto bits = ga::random_bit_population(c.ttt.ga, c.ttt.seed, static_cast<u32>(2 * t));
    int holding = 0;
    for (const auto& b : bits)
      holding +=
          tictactoe::measure(tictactoe::agent_chooser(play::network_agent(b, c.ttt.topology, 2, "m"))).never_loses();
    EXPECT_NEAR(std::stod(rows[static_cast<std::size_t>(t)][11]), holding / 12.0, 1e-4) << t;
  }
}

TEST(EvolveTicTacToe, NetworksSearchingToTheEndMeasurePerfectInTheOracleTable) {
  // Nine plies reach the end from anywhere, so whatever the network, every move is optimal and no
  // opponent beats it: a fact of the game, not of the code under test.
  const fs::path f = temp_dir("cfg9") / "c.toml";
  std::ofstream(f) << "[evolve]\nkind = \"tictactoe\"\ngenerations = 1\ntrials = 1\n[population]\nsize = 4\n"
                      "[network]\ndepth = 9\n";
  const fs::path dir = temp_dir("oracle9") / "r";
  ga::run_evolve(ga::load_evolve_config(f.string()), dir, threads(2));
  const auto rows = csv_rows(dir / "oracle.csv");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0][3], "1.000000");
  EXPECT_EQ(rows[0][4], "1.000000");
  for (int k = 5; k <= 8; ++k) EXPECT_NE(rows[0][k], "loss") << k;
  EXPECT_EQ(rows[0][9], "0.000000");
  EXPECT_EQ(rows[0][10], "0.000000");
  EXPECT_EQ(rows[0][11], "1.0000");
}

TEST(EvolveTicTacToe, ARunMadeBeforeTheOracleTableResumesWithoutIt) {
  const fs::path dir = temp_dir("old");
  ga::run_evolve(small(false, "[monitor]\noracle = false\n"), dir / "plain", threads(2));
  // An interrupted run made into one from before oracle.csv: no table, a version-1 checkpoint
  // (the payload without its last byte, the oracle flag) and no [monitor] in its config.
  ga::EvolveRunOptions stop = threads(2);
  stop.stop_requested = [n = 0]() mutable { return ++n >= 2; };
  const fs::path old = dir / "old";
  ASSERT_TRUE(ga::run_evolve(small(false), old, stop).interrupted);
  fs::remove(old / "oracle.csv");
  std::string payload = unframe_checkpoint(read(old / "checkpoint.bin"), "evolve", "checkpoint.bin");
  ASSERT_EQ(payload[0], 2);
  payload[0] = 1;
  payload.pop_back();
  std::ofstream(old / "checkpoint.bin", std::ios::binary) << frame_checkpoint("evolve", payload);
  std::string config = read(old / "config.toml");
  const auto at = config.find("[monitor]");
  ASSERT_NE(at, std::string::npos);
  config.erase(at, config.find("[run]") - at);
  std::ofstream(old / "config.toml") << config;
  fs::remove(old / ".config.committed.toml");  // kept since runs remember their committed config
  EXPECT_TRUE(ga::resume_evolve(old, threads(1)).complete);
  EXPECT_FALSE(fs::exists(old / "oracle.csv"));
  EXPECT_EQ(without_time(old), without_time(dir / "plain"));
  EXPECT_EQ(read(old / "best_networks.csv"), read(dir / "plain" / "best_networks.csv"));

  // A run made with the table needs it, and its rows are checked.
  const fs::path cut = dir / "cut";
  stop.stop_requested = [n = 0]() mutable { return ++n >= 2; };
  ASSERT_TRUE(ga::run_evolve(small(false), cut, stop).interrupted);
  const std::string table = read(cut / "oracle.csv");
  fs::remove(cut / "oracle.csv");
  std::string e = error_of([&] { ga::resume_evolve(cut, threads(1)); });
  EXPECT_NE(e.find("oracle.csv"), std::string::npos) << e;
  EXPECT_NE(e.find("missing"), std::string::npos) << e;
  std::string bad = table;
  const auto cell = bad.find(",loss,") != std::string::npos ? bad.find(",loss,") : bad.find(",draw,");
  ASSERT_NE(cell, std::string::npos);
  bad.replace(cell, 6, ",even,");
  std::ofstream(cut / "oracle.csv") << bad;
  e = error_of([&] { ga::resume_evolve(cut, threads(1)); });
  EXPECT_NE(e.find("oracle.csv:"), std::string::npos) << e;
  EXPECT_NE(e.find("'even'"), std::string::npos) << e;
  std::ofstream(cut / "oracle.csv") << table;
  EXPECT_TRUE(ga::resume_evolve(cut, threads(1)).complete);
  EXPECT_EQ(csv_rows(cut / "oracle.csv").size(), 10u);
}
