// The shape search as a run: config validation, run directory, bit-identity across thread
// counts and across an interruption + resume.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include "data/generate.hpp"
#include "evalforge/core/error.hpp"
#include "evalforge/core/files.hpp"
#include "evalforge/data/games.hpp"
#include "evalforge/games/othello/game.hpp"
#include "evalforge/games/othello/squares.hpp"
#include "evalforge/runs/shape_search_run.hpp"
#include "ga/thread_team.hpp"
#include "test_support.hpp"

using namespace ef;
namespace fs = std::filesystem;

namespace {

fs::path temp_dir(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / ("ef_search_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

const fs::path& games_file() {
  static const fs::path f = [] {
    const fs::path d = temp_dir("games");
    data::GenerateOptions o;
    o.games = 1500;
    o.seed = 7;
    const fs::path file = d / "games.txt";
    data::write_transcripts(file, data::generate_games(o));
    return file;
  }();
  return f;
}

fs::path write_config(const std::string& name, const std::string& text) {
  const fs::path f = temp_dir("cfg_" + name) / "c.toml";
  std::ofstream(f) << text;
  return f;
}

const char* kTiny = R"(
[search]
moves = [20, 30, 40]
island_size = 8
elite = 2
mutants = 3
generations = 6
seed = 3
tuple_sizes = [4, 3]
[migration]
interval = 2
size = 2
[fitness]
test_every = 2
[training]
epochs = 1
[run]
checkpoint_every = 1
)";

ga::SearchConfig tiny_config() {
  ga::SearchConfig c = ga::load_search_config(write_config("tiny", kTiny).string());
  c.data_files = {games_file().string()};
  return c;
}

std::string read(const fs::path& f) {
  std::ifstream in(f);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// metrics.csv without the wall-time column.
std::string metrics_without_time(const fs::path& dir) {
  std::stringstream in(read(dir / "metrics.csv")), out;
  for (std::string line; std::getline(in, line);) out << line.substr(0, line.rfind(',')) << "\n";
  return out.str();
}

ga::SearchRunOptions quiet(int threads) {
  ga::SearchRunOptions o;
  o.threads = threads;
  return o;
}

// Options that stop the run (checkpoint and return) after `generations` generations.
ga::SearchRunOptions stopping_after(int generations, int threads) {
  ga::SearchRunOptions o = quiet(threads);
  o.stop_requested = [calls = 0, generations]() mutable { return ++calls >= generations; };
  return o;
}

// The determinism contract of a config: runs on 1 thread (dir/one), 2 threads (dir/two) and 3
// ranks stopped after generation 3 and resumed on one process (dir/cut; the options come back
// from config.toml) write the same metrics, shapes and checkpoint bytes.
void expect_the_same_bits_on_threads_ranks_and_a_resume(const ga::SearchConfig& config, const fs::path& dir) {
  ga::run_search(config, dir / "one", quiet(1));
  ga::run_search(config, dir / "two", quiet(2));
  ga::run_thread_team(3, [&](ga::ThreadTeam& team) {
    ga::SearchRunOptions o = stopping_after(3, 1);
    o.team = &team;
    EXPECT_TRUE(ga::run_search(config, dir / "cut", o).interrupted);
  });
  EXPECT_TRUE(ga::resume_search(dir / "cut", quiet(2)).complete);
  for (const char* run : {"two", "cut"}) {
    EXPECT_EQ(metrics_without_time(dir / "one"), metrics_without_time(dir / run)) << run;
    EXPECT_EQ(read(dir / "one" / "best_shapes.json"), read(dir / run / "best_shapes.json")) << run;
    EXPECT_EQ(read(dir / "one" / "checkpoint.bin"), read(dir / run / "checkpoint.bin")) << run;
  }
}

}  // namespace

TEST(SearchConfig, PaperConfigHoldsTable1) {
  const auto c = ga::load_search_config(EF_SOURCE_DIR "/configs/paper.toml");
  EXPECT_EQ(c.islands.moves, (std::vector<int>{18, 22, 26, 30, 34, 38, 42, 46}));
  EXPECT_EQ(c.islands.brkga.population_size, 100);
  EXPECT_EQ(c.islands.brkga.elite_count, 20);
  EXPECT_EQ(c.islands.brkga.mutant_count, 20);
  EXPECT_DOUBLE_EQ(c.islands.brkga.elite_inheritance, 0.7);
  EXPECT_EQ(c.islands.migration.interval, 25);
  EXPECT_EQ(c.islands.migration.size, 10);
  EXPECT_EQ(c.tuple_sizes, (std::vector<int>{9, 10, 10, 10, 8, 8, 8, 8, 7, 6, 5, 4}));
  EXPECT_NO_THROW(ga::load_search_config(EF_SOURCE_DIR "/configs/quick.toml"));
}

TEST(SearchConfig, ErrorsNameFileAndKey) {
  auto expect = [](const std::string& text, const std::string& needle) {
    const fs::path f = write_config("bad", text);
    try {
      ga::load_search_config(f.string());
      ADD_FAILURE() << "accepted: " << text;
    } catch (const Error& e) {
      const std::string m = e.what();
      EXPECT_NE(m.find(f.string()), std::string::npos) << m;
      EXPECT_NE(m.find(needle), std::string::npos) << m;
    }
  };
  expect("[search]\nisland_size = -3\n", "search.island_size");
  expect("[search]\nelitee = 3\n", "unknown key search.elitee");
  expect("[searc]\n", "unknown section [searc]");
  expect("[migration]\ntopology = \"star\"\n", "migration.topology");
  expect("[search]\ntuple_sizes = [9, 13]\n", "search.tuple_sizes[1]");
  expect("[search]\nregion = [\"a1\", \"z1\"]\n", "'z1' is not a square");
  expect("[training]\nlearning_rate = 5\n", "training.learning_rate");
  expect("[search]\nisland_size = 10\nelite = 8\nmutants = 5\n", "");  // pe + pm >= p
  expect("[search\n", ":1");                                           // TOML syntax error with line
  expect("[search]\nbias = \"cubical\"\n", "search.bias");
  expect("[search]\nparents = 1\n", "search.parents");
  expect("[search]\nparents = 3\n", "rho_e");  // the classic rule takes two parents: name a bias
  expect("[search]\nelite = 2\nparents = 4\nelite_parents = 3\nbias = \"linear\"\n", "elite_parents");
  expect("[search]\nshake = 3\n", "search.shake must be a table");
  expect("[search.shake]\ninterval = -1\n", "search.shake.interval");
  expect("[search.shake]\nkind = \"twist\"\n", "search.shake.kind");
  expect("[search.shake]\nintensity_min = 0.5\nintensity_max = 0.2\n", "search.shake.intensity_min");
  expect("[search.shake]\nintensity_max = 1.5\n", "search.shake.intensity_max");
  expect("[search.shake]\nintervall = 2\n", "unknown key search.shake.intervall");
  expect("[search]\nipr = 1\n", "search.ipr must be a table");
  expect("[search.ipr]\nselection = \"worst\"\n", "search.ipr.selection");
  expect("[search.ipr]\npercentage = 0\n", "search.ipr.percentage");
  expect("[search.ipr]\npairs = 0\n", "search.ipr.pairs");
  expect("[search]\nelite = 2\n[search.ipr]\ninterval = 5\npairs = 3\n", "pairs = 3 with selection best");
}

TEST(SearchRun, WritesTheRunDirectory) {
  const fs::path dir = temp_dir("run");
  const auto out = ga::run_search(tiny_config(), dir / "r", quiet(2));
  EXPECT_TRUE(out.complete);
  EXPECT_EQ(out.generations_done, 6);
  for (const char* f : {"config.toml", "metrics.csv", "best_shapes.json", "checkpoint.bin", "log.txt"})
    EXPECT_TRUE(fs::exists(dir / "r" / f)) << f;
  // 6 generations x 3 islands + header; test scores at 0, 2, 4 and the last (5).
  const std::string m = read(dir / "r" / "metrics.csv");
  EXPECT_EQ(std::count(m.begin(), m.end(), '\n'), 1 + 18);
  // The session's time by phase, once at the end: its phases add up to its total (to the
  // rounding of the printed figures), and fitness training is among them.
  const std::string log = read(dir / "r" / "log.txt");
  const std::size_t at = log.find("time by phase, generations 0-5: ");
  ASSERT_NE(at, std::string::npos) << log;
  const std::string line = log.substr(at, log.find('\n', at) - at);
  double total = 0, per_gen = 0, sum = 0;
  ASSERT_EQ(std::sscanf(line.c_str(), "time by phase, generations 0-5: %lf s, %lf s/gen:", &total, &per_gen), 2)
      << line;
  EXPECT_NEAR(per_gen * 6, total, 0.05 + 0.01 * total) << line;
  EXPECT_NE(line.find(": fitness training "), std::string::npos) << line;
  for (std::size_t p = line.find(" s/gen (", line.find("s/gen:") + 6); p != std::string::npos;
       p = line.find(" s/gen (", p + 1))
    sum += std::atof(line.substr(line.rfind(' ', p - 1) + 1).c_str());
  EXPECT_NEAR(sum, per_gen, 0.001 * 6 + 0.01 * per_gen) << line;
  // The resolved config loads again; a second run into the same directory is refused.
  EXPECT_NO_THROW(ga::load_search_config((dir / "r" / "config.toml").string()));
  EXPECT_THROW(ga::run_search(tiny_config(), dir / "r", quiet(1)), Error);
  test::expect_refused_while_held(dir / "r", "search", [&] { ga::resume_search(dir / "r", quiet(1)); });
  test::expect_edited_config_refused(dir / "r", [&] { ga::resume_search(dir / "r", quiet(1)); });
}

// The data loads before the directory is made: unusable data (here too few games for a split at
// the islands' moves) is an error that leaves nothing behind, and the same --out then works.
TEST(SearchRun, UnusableDataLeavesNoRunBehind) {
  const fs::path dir = temp_dir("baddata");
  const fs::path few = dir / "few.txt";
  {
    data::GenerateOptions o;
    o.games = 1;
    o.seed = 7;
    data::write_transcripts(few, data::generate_games(o));
  }
  ga::SearchConfig c = tiny_config();
  c.data_files = {few.string()};
  const std::string e = test::error_of([&] { ga::run_search(c, dir / "r", quiet(1)); });
  EXPECT_NE(e.find("move 20: the data has 1 fitness and 0 test positions"), std::string::npos) << e;
  EXPECT_FALSE(fs::exists(dir / "r" / "config.toml"));
  EXPECT_TRUE(ga::run_search(tiny_config(), dir / "r", quiet(1)).complete);
}

// Positions with exact scores (.obf, as `evalforge ordering --samples-out` writes them) as data:
// each island takes the positions of its move's empties, split by position. Files of both
// kinds, or a split by game, are refused naming what is wrong.
TEST(SearchRun, ObfPositionsWithScoresAreData) {
  const fs::path dir = temp_dir("obf");
  const fs::path obf = dir / "p.obf";
  std::map<int, std::set<std::pair<u64, u64>>> distinct;  // move -> boards
  {
    std::ofstream out(obf);
    out << "% positions of generated games at moves 20, 30 and 40, labelled with the game's score\n";
    for (const data::Game& game : data::load_games({games_file()}).games) {
      othello::Board board;
      for (std::size_t i = 0; i < game.moves.size(); ++i) {
        if (!board.can_move()) board.pass();
        const int move = 60 - board.empties();
        if ((move == 20 || move == 30 || move == 40) && board.can_move()) {
          for (int sq = 0; sq < 64; ++sq)
            out << ((board.black() >> sq & 1) ? 'X' : (board.white() >> sq & 1) ? 'O' : '-');
          const int score = board.side == othello::kBlack ? game.score : -game.score;
          out << (board.side == othello::kBlack ? " X; " : " O; ") << square_name(ctz64(board.moves())) << ":"
              << (score < 0 ? "-" : "+") << std::abs(score) << ";\n";
          distinct[move].insert({board.black(), board.white()});
        }
        board.play(game.moves[i]);
      }
    }
  }
  ga::SearchConfig c = tiny_config();
  c.data_files = {obf.string()};
  const auto out = ga::run_search(c, dir / "r", quiet(2));
  EXPECT_TRUE(out.complete);
  const std::string log = read(dir / "r" / "log.txt");
  for (const int move : {20, 30, 40}) {
    // 20% of the distinct boards test, the rest are fitness positions.
    const std::size_t n = distinct[move].size(), test = n / 5;
    EXPECT_NE(log.find(fmt::format("island move {}: {} fitness, {} test positions (.obf, {} empties)", move, n - test,
                                   test, 60 - move)),
              std::string::npos)
        << log;
  }
  // The same on one thread, bit for bit.
  ga::run_search(c, dir / "one", quiet(1));
  EXPECT_EQ(read(dir / "r" / "best_shapes.json"), read(dir / "one" / "best_shapes.json"));

  c.data_files = {obf.string(), games_file().string()};
  std::string e = test::error_of([&] { ga::run_search(c, dir / "mixed", quiet(1)); });
  EXPECT_NE(e.find("mix .obf positions with game records"), std::string::npos) << e;
  c.data_files = {obf.string()};
  c.split = data::SplitBy::kGame;
  e = test::error_of([&] { ga::run_search(c, dir / "by-game", quiet(1)); });
  EXPECT_NE(e.find("split = \"game\""), std::string::npos) << e;
  EXPECT_FALSE(fs::exists(dir / "mixed" / "config.toml"));
}

TEST(SearchRun, BitIdenticalForOneAndTwoThreads) {
  const fs::path dir = temp_dir("threads");
  ga::run_search(tiny_config(), dir / "one", quiet(1));
  ga::run_search(tiny_config(), dir / "two", quiet(2));
  EXPECT_EQ(metrics_without_time(dir / "one"), metrics_without_time(dir / "two"));
  EXPECT_EQ(read(dir / "one" / "best_shapes.json"), read(dir / "two" / "best_shapes.json"));
  EXPECT_EQ(read(dir / "one" / "checkpoint.bin"), read(dir / "two" / "checkpoint.bin"));
}

// Multi-parent crossover (three parents, one elite, the log-inverse bias): the same bits on 1 and
// 2 threads, on 1 and 3 ranks, and across an interruption; and not the classic rule's bits.
TEST(SearchRun, MultiParentCrossoverKeepsTheDeterminismContract) {
  const fs::path dir = temp_dir("multi_parent");
  ga::SearchConfig config = tiny_config();
  config.islands.brkga.parents = 3;
  config.islands.brkga.elite_parents = 1;
  config.islands.brkga.bias = ga::Bias::kLogInverse;
  expect_the_same_bits_on_threads_ranks_and_a_resume(config, dir);
  const std::string saved = read(dir / "one" / "config.toml");
  EXPECT_NE(saved.find("parents = 3\nelite_parents = 1\nbias = \"loginverse\""), std::string::npos) << saved;
  ga::run_search(tiny_config(), dir / "classic", quiet(2));
  EXPECT_NE(metrics_without_time(dir / "one"), metrics_without_time(dir / "classic"));
  EXPECT_EQ(read(dir / "classic" / "config.toml").find("bias"), std::string::npos);  // classic configs as before
}

// Every BRKGA option on: multi-parent crossover, shaking and reset (every stalled generation
// shakes, a reset after 3, kind swap) and implicit path relinking (every 2nd generation, 2
// random pairs an island): the same bits on 1 and 2 threads, on 1 and 3 ranks, and across an
// interruption (the checkpoint carries the stall counts); the log says what was done.
TEST(SearchRun, EveryBrkgaOptionKeepsTheDeterminismContract) {
  const fs::path dir = temp_dir("shake");
  ga::SearchConfig config = tiny_config();
  config.islands.brkga.parents = 3;
  config.islands.brkga.elite_parents = 2;
  config.islands.brkga.bias = ga::Bias::kLinear;
  config.islands.shake = {.interval = 1, .reset_interval = 3, .kind = ga::ShakeKind::kSwap};
  config.islands.ipr = {.interval = 2, .pairs = 2, .selection = ga::IprSelection::kRandom, .percentage = 0.5};
  expect_the_same_bits_on_threads_ranks_and_a_resume(config, dir);
  const std::string log = read(dir / "one" / "log.txt");
  EXPECT_NE(log.find("shaken after"), std::string::npos) << log;
  EXPECT_NE(log.find("reset: every individual but the best is new"), std::string::npos) << log;
  EXPECT_NE(log.find("generation 2: path relinking island 0 (move"), std::string::npos) << log;
  EXPECT_NE(log.find("replaces the worst"), std::string::npos) << log;
  const std::string saved = read(dir / "one" / "config.toml");
  EXPECT_NE(saved.find("[search.shake]\ninterval = 1\nreset_interval = 3\nkind = \"swap\""), std::string::npos)
      << saved;
  const ga::SearchConfig back = ga::load_search_config((dir / "one" / "config.toml").string());
  EXPECT_EQ(back.islands.shake.interval, 1);
  EXPECT_EQ(back.islands.shake.reset_interval, 3);
  EXPECT_EQ(back.islands.shake.kind, ga::ShakeKind::kSwap);
  EXPECT_EQ(back.islands.shake.intensity_min, config.islands.shake.intensity_min);
  EXPECT_EQ(back.islands.ipr.interval, 2);
  EXPECT_EQ(back.islands.ipr.pairs, 2);
  EXPECT_EQ(back.islands.ipr.selection, ga::IprSelection::kRandom);
  EXPECT_EQ(back.islands.ipr.percentage, 0.5);
  // Without shaking and relinking, other bits (the comparisons above can fail), and
  // checkpoints and configs as before.
  config.islands.shake = {};
  config.islands.ipr = {};
  ga::run_search(config, dir / "still", quiet(2));
  EXPECT_NE(metrics_without_time(dir / "one"), metrics_without_time(dir / "still"));
  EXPECT_LT(read(dir / "still" / "checkpoint.bin").size(), read(dir / "one" / "checkpoint.bin").size());
  EXPECT_EQ(read(dir / "still" / "config.toml").find("shake"), std::string::npos);
  EXPECT_EQ(read(dir / "still" / "config.toml").find("ipr"), std::string::npos);
}

TEST(SearchRun, ResumeGivesTheSameBitsAsAnUninterruptedRun) {
  const fs::path dir = temp_dir("resume");
  ga::run_search(tiny_config(), dir / "full", quiet(2));
  const auto first = ga::run_search(tiny_config(), dir / "cut", stopping_after(3, 2));
  EXPECT_TRUE(first.interrupted);
  EXPECT_EQ(first.generations_done, 3);
  const auto second = ga::resume_search(dir / "cut", quiet(1));
  EXPECT_TRUE(second.complete);
  EXPECT_EQ(metrics_without_time(dir / "full"), metrics_without_time(dir / "cut"));
  EXPECT_EQ(read(dir / "full" / "best_shapes.json"), read(dir / "cut" / "best_shapes.json"));
  EXPECT_EQ(read(dir / "full" / "checkpoint.bin"), read(dir / "cut" / "checkpoint.bin"));
  // A different seed gives a different search: the comparison above can fail.
  ga::SearchConfig other = tiny_config();
  other.islands.seed = 4;
  ga::run_search(other, dir / "other", quiet(2));
  EXPECT_NE(metrics_without_time(dir / "full"), metrics_without_time(dir / "other"));
}

TEST(SearchRun, RanksAsThreadsWriteThePlainRunsBitsAndResumeWithAnotherCount) {
  // The run loop over an in-process team (what `search --devices` runs; mpi_search_test.cpp
  // does the same through mpirun): 2 ranks for 3 islands, and a run stopped on 3 ranks and
  // resumed on 2.
  const fs::path dir = temp_dir("ranks");
  const ga::SearchConfig config = tiny_config();  // once: tiny_config() writes a scratch file
  ga::run_search(config, dir / "plain", quiet(1));
  ga::run_thread_team(2, [&](ga::ThreadTeam& team) {
    ga::SearchRunOptions o = quiet(1);
    o.team = &team;
    EXPECT_TRUE(ga::run_search(config, dir / "two", o).complete);
  });
  ga::run_thread_team(3, [&](ga::ThreadTeam& team) {
    ga::SearchRunOptions o = stopping_after(3, 1);
    o.team = &team;
    const auto out = ga::run_search(config, dir / "cut", o);
    EXPECT_TRUE(out.interrupted);
    EXPECT_EQ(out.generations_done, 3);
  });
  ga::run_thread_team(2, [&](ga::ThreadTeam& team) {
    ga::SearchRunOptions o = quiet(1);
    o.team = &team;
    EXPECT_TRUE(ga::resume_search(dir / "cut", o).complete);
  });
  for (const char* run : {"two", "cut"}) {
    EXPECT_EQ(metrics_without_time(dir / "plain"), metrics_without_time(dir / run)) << run;
    EXPECT_EQ(read(dir / "plain" / "best_shapes.json"), read(dir / run / "best_shapes.json")) << run;
    EXPECT_EQ(read(dir / "plain" / "checkpoint.bin"), read(dir / run / "checkpoint.bin")) << run;
  }
  // Only rank 0 wrote: one row per generation and island.
  const std::string m = read(dir / "two" / "metrics.csv");
  EXPECT_EQ(std::count(m.begin(), m.end(), '\n'), 1 + 18);
}

TEST(SearchRun, ExtendingAFinishedRunContinuesIt) {
  const fs::path dir = temp_dir("extend");
  // Test scores every generation: a run also measures one at its last generation, which the
  // longer run would otherwise not have at generation 5.
  ga::SearchConfig six = tiny_config();
  six.test_every = 1;
  ga::SearchConfig eight = six;
  eight.generations = 8;
  ga::run_search(eight, dir / "eight", quiet(2));
  ga::run_search(six, dir / "six", quiet(2));
  const auto out = ga::resume_search(dir / "six", quiet(2), 8);
  EXPECT_TRUE(out.complete);
  EXPECT_EQ(metrics_without_time(dir / "eight"), metrics_without_time(dir / "six"));
  // The same by a hand edit of config.toml, which a resume refuses unless the user accepts it;
  // accepted, it is logged, used, and the reference from then on.
  ga::run_search(six, dir / "edited", quiet(2));
  std::string config = read(dir / "edited" / "config.toml");
  const std::size_t at = config.find("generations = 6\n");
  ASSERT_NE(at, std::string::npos) << config;
  config.replace(at, 15, "generations = 8");
  write_atomically(dir / "edited" / "config.toml", config);
  const std::string e = test::error_of([&] { ga::resume_search(dir / "edited", quiet(2)); });
  EXPECT_NE(e.find("search.generations: 6 -> 8"), std::string::npos) << e;
  ga::SearchRunOptions accept = quiet(2);
  accept.accept_config_edits = true;
  EXPECT_TRUE(ga::resume_search(dir / "edited", accept).complete);
  EXPECT_EQ(metrics_without_time(dir / "eight"), metrics_without_time(dir / "edited"));
  const std::string log = read(dir / "edited" / "log.txt");
  EXPECT_NE(log.find("going on under the edited settings (--accept-config-edits): search.generations: 6 -> 8"),
            std::string::npos)
      << log;
  EXPECT_TRUE(ga::resume_search(dir / "edited", quiet(2)).complete);  // the edit is now the run's config
}

TEST(SearchRun, CorruptCheckpointIsAClearError) {
  const fs::path dir = temp_dir("corrupt");
  ga::run_search(tiny_config(), dir / "r", stopping_after(1, 1));
  {
    std::fstream f(dir / "r" / "checkpoint.bin", std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(40);
    f.put('\x7f');
  }
  try {
    ga::resume_search(dir / "r", quiet(1));
    ADD_FAILURE() << "corrupt checkpoint accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("checkpoint"), std::string::npos) << e.what();
  }
}

TEST(SearchRun, ResumeWithoutACheckpointStartsAgainFromGenerationZero) {
  // A crash before the first checkpoint: config.toml and some metrics rows, no checkpoint.bin.
  const fs::path dir = temp_dir("nockpt");
  ga::run_search(tiny_config(), dir / "full", quiet(2));
  ga::run_search(tiny_config(), dir / "cut", stopping_after(2, 2));
  fs::remove(dir / "cut" / "checkpoint.bin");
  const auto out = ga::resume_search(dir / "cut", quiet(2));
  EXPECT_TRUE(out.complete);
  EXPECT_EQ(metrics_without_time(dir / "full"), metrics_without_time(dir / "cut"));
  EXPECT_EQ(read(dir / "full" / "checkpoint.bin"), read(dir / "cut" / "checkpoint.bin"));
}

// metrics.csv rows are validated on resume: garbage is a clean ef::Error naming file:line (it
// used to be "internal error: stoi", and a row cut after its first digit was kept).
TEST(SearchRun, AGarbageMetricsRowIsAnErrorNamingFileAndLine) {
  const fs::path dir = temp_dir("garbage");
  ga::run_search(tiny_config(), dir / "r", stopping_after(2, 1));
  const fs::path metrics = dir / "r" / "metrics.csv";
  const std::string good = read(metrics);
  auto message_with_line_4 = [&](const std::string& row) {
    std::stringstream in(good);
    std::string out, line;
    for (int n = 1; std::getline(in, line); ++n) out += (n == 4 ? row : line) + "\n";
    std::ofstream(metrics, std::ios::trunc) << out;
    try {
      ga::resume_search(dir / "r", quiet(1));
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no ef::Error");
  };
  const std::string where = metrics.string() + ":4: ";
  EXPECT_NE(message_with_line_4("garbage").find(where + "expected 8 comma-separated fields"), std::string::npos);
  EXPECT_NE(message_with_line_4("1").find(where + "expected 8"), std::string::npos);
  EXPECT_NE(message_with_line_4("x,0,20,0.1,0.2,0.3,,0.5").find(where + "generation 'x'"), std::string::npos);
  EXPECT_NE(message_with_line_4("0,7,20,0.1,0.2,0.3,,0.5").find(where + "island '7'"), std::string::npos);
  EXPECT_NE(message_with_line_4("0,2,30,0.1,0.2,0.3,,0.5").find(where + "island 2 optimises move 40"),
            std::string::npos);
  EXPECT_NE(message_with_line_4("0,2,40,nan,0.2,0.3,,0.5").find(where + "best 'nan'"), std::string::npos);
  EXPECT_NE(message_with_line_4("0,0,20,0.1,0.2,0.3,,0.5").find(where + "generation 0 island 0 is already recorded"),
            std::string::npos);
  // Restored, the run resumes.
  std::ofstream(metrics, std::ios::trunc) << good;
  EXPECT_TRUE(ga::resume_search(dir / "r", quiet(1)).complete);
}

TEST(SearchRun, ResumeRefusesAMissingMetricsTable) {
  const fs::path dir = temp_dir("nometrics");
  ga::run_search(tiny_config(), dir / "r", stopping_after(1, 1));
  fs::remove(dir / "r" / "metrics.csv");
  try {
    ga::resume_search(dir / "r", quiet(1));
    ADD_FAILURE() << "resumed without metrics.csv";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("metrics.csv: missing"), std::string::npos) << e.what();
  }
}

TEST(SearchRun, ACheckpointOfTheOlderFormatIsNamedAsSuch) {
  const fs::path dir = temp_dir("oldckpt");
  ga::run_search(tiny_config(), dir / "r", stopping_after(1, 1));
  std::ofstream(dir / "r" / "checkpoint.bin", std::ios::binary | std::ios::trunc)
      << "EFCKPT01" << std::string(40, '\0');
  try {
    ga::resume_search(dir / "r", quiet(1));
    ADD_FAILURE() << "resumed from an EFCKPT01 checkpoint";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("older evalforge"), std::string::npos) << e.what();
  }
}
