// `evalforge evolve` runs of the Elo GA (runs/evolve_run.hpp): the run directory, bit-identity
// across thread counts and across an interruption + resume, the stall criterion, hall-of-fame
// agents that play, and clear errors for bad configs, checkpoints and metrics rows.
#include "evalforge/runs/evolve_run.hpp"
#include <gtest/gtest.h>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include "evalforge/backends/backend.hpp"
#include "evalforge/core/error.hpp"
#include "evalforge/core/run_dir.hpp"
#include "evalforge/games/othello/agent_file.hpp"
#include "games/othello/feature_weights.hpp"
#include "test_support.hpp"

using namespace ef;
using ef::test::error_of;
namespace fs = std::filesystem;

namespace {

fs::path temp_dir(const std::string& name) { return test::scratch_dir("evolve", name); }
std::string read(const fs::path& f) { return test::file_bytes(f); }

// A small GA: 10 players (90 games a generation), 8 generations, random openings and epsilon so
// that every random stream is exercised.
const char* kSmall = R"(
[evolve]
kind = "elo-othello"
generations = 8
stall_generations = 0
seed = 5
[population]
size = 10
chromosome = "oe_dmc"
mutation_rate = 0.3
[play]
opening_plies = 2
epsilon = 0.05
[yardstick]
opponent = "random"
openings = 4
every = 3
)";

fs::path write_config(const std::string& name, const std::string& text) {
  const fs::path f = temp_dir("cfg_" + name) / "c.toml";
  std::ofstream(f) << text;
  return f;
}

ga::EvolveConfig small_config() { return ga::load_evolve_config(write_config("small", kSmall).string()); }

ga::EvolveRunOptions threads(int t) {
  ga::EvolveRunOptions o;
  o.threads = t;
  return o;
}

ga::EvolveRunOptions stopping_after(int generations, int t) {
  ga::EvolveRunOptions o = threads(t);
  o.stop_requested = [calls = 0, generations]() mutable { return ++calls >= generations; };
  return o;
}

// metrics.csv without the two time columns.
std::string metrics_without_time(const fs::path& dir) {
  std::stringstream in(read(dir / "metrics.csv")), out;
  for (std::string line; std::getline(in, line);) {
    line = line.substr(0, line.rfind(','));
    out << line.substr(0, line.rfind(',')) << "\n";
  }
  return out.str();
}

}  // namespace

TEST(EvolveConfig, ShippedConfigsHoldTheBlogsSettings) {
  for (const char* name : {"elo-oe_fmc.toml", "elo-oe_dmc.toml"}) {
    const auto c = ga::load_evolve_config(std::string(EF_SOURCE_DIR "/configs/") + name);
    EXPECT_EQ(c.elo.ga.population, 352);
    EXPECT_DOUBLE_EQ(c.elo.ga.parent_fraction, 0.35);
    EXPECT_DOUBLE_EQ(c.elo.ga.mutation_rate, 0.083);
    EXPECT_EQ(c.elo.play.limits.depth, 1);
    EXPECT_EQ(c.elo.play.opening_plies, 0);
    // The snapshot loads back to the same config.
    const fs::path f = write_config("snap", ga::evolve_config_to_toml(c));
    EXPECT_EQ(ga::evolve_config_to_toml(ga::load_evolve_config(f.string())), ga::evolve_config_to_toml(c));
  }
  EXPECT_EQ(ga::load_evolve_config(EF_SOURCE_DIR "/configs/elo-oe_dmc.toml").elo.play.material,
            features::Material::kDiscs);
  // The signal configs load too; the positional one is elo-signal.toml with pos_dmc, and its
  // panel of the blog's 11-gene champions builds beside its 26-gene members.
  for (const char* name : {"elo-signal.toml", "elo-random-search.toml", "elo-blog-panel.toml", "elo-positional.toml"})
    EXPECT_NO_THROW(ga::load_evolve_config(std::string(EF_SOURCE_DIR "/configs/") + name)) << name;
  const auto positional = ga::load_evolve_config(EF_SOURCE_DIR "/configs/elo-positional.toml").elo;
  EXPECT_TRUE(positional.play.positional);
  for (const std::string& spec : positional.panel) {
    const play::OthelloAgent a = play::panel_agent(spec, positional.play);
    if (spec.starts_with("chromosome:")) {
      EXPECT_FALSE(a.features.positional) << spec;
    }
  }
  // A member's genes must be of the run's family.
  EXPECT_THROW(play::feature_agent(std::vector<int>(11, 1), positional.play, "m"), Error);
}

TEST(EvolveConfig, ErrorsNameFileAndKey) {
  auto expect = [](const std::string& text, const std::string& needle) {
    const fs::path f = write_config("bad", text);
    const std::string m = error_of([&] { ga::load_evolve_config(f.string()); });
    EXPECT_NE(m.find(f.string()), std::string::npos) << m;
    EXPECT_NE(m.find(needle), std::string::npos) << m;
  };
  expect("[evolve]\nkind = \"hex\"\n", "evolve.kind");
  expect("[population]\nsize = 2\n", "population.size");
  expect("[population]\nchromosome = \"oe_xyz\"\n", "population.chromosome");
  expect("[population]\nmutation_rate = 1.5\n", "population.mutation_rate");
  expect("[elo]\nk = 16\n", "unknown key elo.k");
  expect("[play]\ndepth = 11\n", "play.depth");
  expect("[yardstick]\nopponent = \"no-such-agent.toml\"\n", "yardstick.opponent");
  expect("[selection]\n", "unknown section [selection]");
}

TEST(EvolveRun, WritesTheRunDirectoryAndPlayableChampions) {
  const fs::path dir = temp_dir("run") / "r";
  const auto out = ga::run_evolve(small_config(), dir, threads(2));
  EXPECT_TRUE(out.complete);
  EXPECT_EQ(out.generations_done, 8);
  for (const char* f : {"config.toml", "run.toml", "metrics.csv", "checkpoint.bin", "log.txt", "champion.toml"})
    EXPECT_TRUE(fs::exists(dir / f)) << f;
  const std::string m = read(dir / "metrics.csv");
  EXPECT_EQ(std::count(m.begin(), m.end(), '\n'), 1 + 8);
  // Generation 0's champion is in the hall of fame; every entry is an agent that plays.
  EXPECT_TRUE(fs::exists(dir / "hall_of_fame" / "gen-00000.toml"));
  auto cpu = make_backend("cpu", 1);
  int agents = 0;
  for (const auto& e : fs::directory_iterator(dir / "hall_of_fame")) {
    if (e.path().extension() != ".toml") continue;
    const play::OthelloAgent a = play::load_agent(e.path().string());
    EXPECT_EQ(a.kind, play::OthelloEvaluator::kFeatures);
    EXPECT_EQ(a.features.kind, features::Material::kDiscs);
    cpu->add_agent(a);
    ++agents;
  }
  std::vector<OthelloJob> jobs(1);
  jobs[0].black = 0;
  jobs[0].white = agents - 1;
  std::vector<play::OthelloRecord> r(1);
  cpu->play(jobs, r);
  EXPECT_GT(r[0].plies, 50);
  // A finished run resumes as finished; a second run into the directory is refused.
  EXPECT_TRUE(ga::resume_evolve(dir, threads(1)).complete);
  EXPECT_NE(error_of([&] { ga::run_evolve(small_config(), dir, threads(1)); }).find(dir.string()), std::string::npos);
  test::expect_refused_while_held(dir, "evolve", [&] { ga::resume_evolve(dir, threads(1)); });
  test::expect_edited_config_refused(dir, [&] { ga::resume_evolve(dir, threads(1)); });
}

TEST(EvolveRun, BitIdenticalForOneAndTwoThreads) {
  const fs::path dir = temp_dir("threads");
  ga::run_evolve(small_config(), dir / "one", threads(1));
  ga::run_evolve(small_config(), dir / "two", threads(2));
  EXPECT_EQ(metrics_without_time(dir / "one"), metrics_without_time(dir / "two"));
  EXPECT_EQ(read(dir / "one" / "checkpoint.bin"), read(dir / "two" / "checkpoint.bin"));
  EXPECT_EQ(read(dir / "one" / "champion.toml"), read(dir / "two" / "champion.toml"));
}

TEST(EvolveRun, PositionalChromosomesEvolveBitIdenticallyAndPlayFromTheirAgentFiles) {
  // The 26-gene family (pos_dmc): the same run on 1 and 2 threads; its champion's agent file
  // holds all 26 genes and loads as a positional feature player.
  std::string text = kSmall;
  text.replace(text.find("oe_dmc"), 6, "pos_dmc");
  const ga::EvolveConfig c = ga::load_evolve_config(write_config("positional", text).string());
  ASSERT_TRUE(c.elo.play.positional);
  const fs::path dir = temp_dir("positional");
  ga::run_evolve(c, dir / "one", threads(1));
  ga::run_evolve(c, dir / "two", threads(2));
  EXPECT_EQ(metrics_without_time(dir / "one"), metrics_without_time(dir / "two"));
  EXPECT_EQ(read(dir / "one" / "checkpoint.bin"), read(dir / "two" / "checkpoint.bin"));
  const play::OthelloAgent champion = play::load_agent((dir / "one" / "champion.toml").string());
  EXPECT_TRUE(champion.features.positional);
  EXPECT_EQ(champion.features.kind, features::Material::kDiscs);
  EXPECT_EQ(features::to_genes(champion.features).size(), 26u);
  // The resolved config keeps the family; mutation_genes may name up to 26 genes, not 27.
  const fs::path again = temp_dir("positional") / "again.toml";
  std::ofstream(again) << ga::evolve_config_to_toml(c);
  EXPECT_TRUE(ga::load_evolve_config(again.string()).elo.play.positional);
  std::string many = text;
  many.replace(many.find("mutation_rate = 0.3"), 19, "mutation_rate = 0.3\nmutation_genes = 26");
  EXPECT_EQ(ga::load_evolve_config(write_config("pos26", many).string()).elo.ga.mutation_genes, 26);
  many.replace(many.find("mutation_genes = 26"), 19, "mutation_genes = 27");
  EXPECT_NE(error_of([&] { ga::load_evolve_config(write_config("pos27", many).string()); }).find("mutation_genes"),
            std::string::npos);
}

TEST(EvolveRun, GamesSplitOverSeveralBackendsGiveTheSameBits) {
  // `evolve --devices`: each generation's games over 3 backends (CPU ones stand in for the
  // devices here), then resumed on 2, against one backend.
  const fs::path dir = temp_dir("devices");
  ga::run_evolve(small_config(), dir / "one", threads(1));
  ga::EvolveRunOptions three = stopping_after(4, 3);
  three.devices = {0, 1, 2};
  EXPECT_TRUE(ga::run_evolve(small_config(), dir / "split", three).interrupted);
  EXPECT_NE(read(dir / "split" / "log.txt").find("3 devices: [0] cpu"), std::string::npos);  // split indeed
  ga::EvolveRunOptions two = threads(2);
  two.devices = {0, 1};
  EXPECT_TRUE(ga::resume_evolve(dir / "split", two).complete);
  EXPECT_EQ(metrics_without_time(dir / "one"), metrics_without_time(dir / "split"));
  EXPECT_EQ(read(dir / "one" / "checkpoint.bin"), read(dir / "split" / "checkpoint.bin"));
  EXPECT_EQ(read(dir / "one" / "champion.toml"), read(dir / "split" / "champion.toml"));
  ga::EvolveRunOptions twice = threads(1);
  twice.devices = {1, 1};
  EXPECT_THROW(ga::run_evolve(small_config(), dir / "twice", twice), Error);
}

// The fitness with signal (issue 28): several openings a pair, selection by score, crowning by a
// challenge, a fixed panel. The champion changes only on a won challenge (LOS at least the
// threshold), always survives into the next generation, and the run resumes bit for bit.
const char* kSignal = R"(
[evolve]
kind = "elo-othello"
generations = 8
stall_generations = 0
seed = 5
[population]
size = 8
mutation_rate = 0.3
[elo]
openings_per_pair = 2
selection = "score"
[play]
opening_plies = 4
[yardstick]
opponent = "none"
[crowning]
rule = "challenge"
openings = 10
los = 0.9
[panel]
opponents = ["swh", "random", "chromosome:4:50:1:2:3:4:5:6:7:8:9"]
openings = 3
every = 3
)";

std::vector<std::vector<std::string>> rows_of(const fs::path& f) {
  std::vector<std::vector<std::string>> rows;
  std::stringstream in(read(f));
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    std::vector<std::string> fields;
    std::stringstream ss(line);
    for (std::string x; std::getline(ss, x, ',');) fields.push_back(x);
    if (line.back() == ',') fields.emplace_back();
    rows.push_back(fields);
  }
  return rows;
}

TEST(EvolveRun, ChallengeCrowningAndPanelResumeBitForBit) {
  const fs::path dir = temp_dir("signal");
  const ga::EvolveConfig c = ga::load_evolve_config(write_config("signal", kSignal).string());
  ASSERT_TRUE(ga::run_evolve(c, dir / "full", threads(2)).complete);
  const auto metrics = rows_of(dir / "full" / "metrics.csv");
  const auto crowning = rows_of(dir / "full" / "crowning.csv");
  ASSERT_EQ(metrics.size(), 8u);
  // metrics' champion column changes exactly at the crowned rows of crowning.csv.
  std::set<std::string> crowned_at;
  for (const auto& r : crowning) {
    ASSERT_EQ(r.size(), 8u);
    const double los = std::stod(r[6]);
    EXPECT_EQ(r[7] == "1", los >= 0.9) << r[0];
    EXPECT_EQ(std::stoi(r[3]) + std::stoi(r[4]) + std::stoi(r[5]), 20);
    EXPECT_EQ(r[2], metrics[std::stoi(r[0]) - 1][1]) << "the challenged champion is the previous generation's";
    if (r[7] == "1") crowned_at.insert(r[0]);
  }
  for (std::size_t g = 1; g < metrics.size(); ++g)
    EXPECT_EQ(metrics[g][1] != metrics[g - 1][1], crowned_at.count(metrics[g][0]) == 1) << g;
  // The panel at generations 0, 3, 6 and the last (7): every member played; rank within 1..8.
  const auto panel = rows_of(dir / "full" / "panel.csv");
  ASSERT_EQ(panel.size(), 4u);
  EXPECT_EQ(panel[0][0], "0");
  EXPECT_EQ(panel[3][0], "7");
  for (const auto& r : panel) {
    EXPECT_EQ(r[1], "8");
    EXPECT_EQ(std::count(r[5].begin(), r[5].end(), ';'), 2) << r[5];
    EXPECT_LE(std::stod(r[3]), std::stod(r[2]));
    EXPECT_GE(std::stod(r[4]), std::stod(r[2]));
    EXPECT_FALSE(r[9].empty());
  }
  // Stopped after 3 generations and resumed on one thread: the same files.
  ASSERT_TRUE(ga::run_evolve(c, dir / "cut", stopping_after(3, 2)).interrupted);
  ASSERT_TRUE(ga::resume_evolve(dir / "cut", threads(1)).complete);
  EXPECT_EQ(metrics_without_time(dir / "full"), metrics_without_time(dir / "cut"));
  for (const char* f : {"crowning.csv", "panel.csv", "checkpoint.bin", "champion.toml"})
    EXPECT_EQ(read(dir / "full" / f), read(dir / "cut" / f)) << f;
  // The blog's mode has neither table.
  const fs::path blog = dir / "blog";
  ga::run_evolve(small_config(), blog, threads(2));
  EXPECT_FALSE(fs::exists(blog / "crowning.csv"));
  EXPECT_FALSE(fs::exists(blog / "panel.csv"));
}

TEST(EvolveConfig, SignalKeysAreChecked) {
  auto error_for = [](const std::string& extra) {
    return error_of([&] { ga::load_evolve_config(write_config("bad_signal", std::string(kSmall) + extra).string()); });
  };
  EXPECT_NE(error_for("[elo]\nselection = \"best\"\n").find("elo.selection"), std::string::npos);
  EXPECT_NE(error_for("[crowning]\nrule = \"vote\"\n").find("crowning.rule"), std::string::npos);
  EXPECT_NE(error_for("[panel]\nopponents = [\"swh:0\"]\n").find("panel.opponents"), std::string::npos);
  EXPECT_NE(error_for("[panel]\nopponents = [\"chromosome:1:2\"]\n").find("panel.opponents"), std::string::npos);
  EXPECT_NE(error_for("[panel]\nopponents = [\"no-such-agent.toml\"]\n").find("panel.opponents"), std::string::npos);
  const std::string repeated = error_of([&] {
    ga::load_evolve_config(
        write_config("repeat", "[evolve]\nkind = \"elo-othello\"\n[elo]\nopenings_per_pair = 3\n").string());
  });
  EXPECT_NE(repeated.find("plays the same game 3 times"), std::string::npos) << repeated;
}

TEST(EvolveRun, ResumeGivesTheSameBitsAsAnUninterruptedRun) {
  const fs::path dir = temp_dir("resume");
  ga::run_evolve(small_config(), dir / "full", threads(2));
  const auto first = ga::run_evolve(small_config(), dir / "cut", stopping_after(3, 2));
  EXPECT_TRUE(first.interrupted);
  EXPECT_EQ(first.generations_done, 3);
  const auto second = ga::resume_evolve(dir / "cut", threads(1));
  EXPECT_TRUE(second.complete);
  EXPECT_EQ(metrics_without_time(dir / "full"), metrics_without_time(dir / "cut"));
  EXPECT_EQ(read(dir / "full" / "checkpoint.bin"), read(dir / "cut" / "checkpoint.bin"));
  EXPECT_EQ(read(dir / "full" / "champion.toml"), read(dir / "cut" / "champion.toml"));
  // Extending the finished run continues it.
  const auto longer = ga::resume_evolve(dir / "cut", threads(2), 10);
  EXPECT_TRUE(longer.complete);
  EXPECT_EQ(longer.generations_done, 10);
  // Another seed is another run: the comparisons above can fail.
  ga::EvolveConfig other = small_config();
  other.elo.seed = 6;
  ga::run_evolve(other, dir / "other", threads(2));
  EXPECT_NE(metrics_without_time(dir / "full"), metrics_without_time(dir / "other"));
}

TEST(EvolveRun, StopsWhenTheChampionStopsChanging) {
  ga::EvolveConfig c = small_config();
  c.elo.generations = 200;
  c.elo.stall_generations = 2;
  c.elo.ga.mutation_rate = 0;
  c.elo.play.epsilon = 0;
  c.elo.play.opening_plies = 0;
  const fs::path dir = temp_dir("stall") / "r";
  const auto out = ga::run_evolve(c, dir, threads(2));
  EXPECT_TRUE(out.complete);
  EXPECT_TRUE(out.stalled);
  EXPECT_LT(out.generations_done, 200);
  // The last rows say the champion was unchanged for 2 generations.
  std::stringstream in(read(dir / "metrics.csv"));
  std::string line, last;
  while (std::getline(in, line)) last = line;
  std::vector<std::string> f;
  std::stringstream row(last);
  for (std::string x; std::getline(row, x, ',');) f.push_back(x);
  EXPECT_EQ(f[12], "2");
}

TEST(EvolveRun, AStalledRunStaysFinishedOnResumeAndWithALongerLimit) {
  ga::EvolveConfig c = small_config();
  c.elo.generations = 200;
  c.elo.stall_generations = 2;
  c.elo.ga.mutation_rate = 0;
  c.elo.play.epsilon = 0;
  c.elo.play.opening_plies = 0;
  const fs::path dir = temp_dir("stall_resume") / "r";
  const auto out = ga::run_evolve(c, dir, threads(2));
  ASSERT_TRUE(out.stalled);
  const std::string metrics = read(dir / "metrics.csv"), ckpt = read(dir / "checkpoint.bin");
  for (int generations : {0, 500}) {
    const auto again = ga::resume_evolve(dir, threads(1), generations);
    EXPECT_TRUE(again.complete);
    EXPECT_TRUE(again.stalled);
    EXPECT_EQ(again.generations_done, out.generations_done);
    EXPECT_EQ(read(dir / "metrics.csv"), metrics);  // nothing played
    EXPECT_EQ(read(dir / "checkpoint.bin"), ckpt);
  }
}

TEST(EvolveRun, ALimitBelowTheGenerationsPlayedIsRefusedAndChangesNothing) {
  const fs::path dir = temp_dir("limit");
  ga::run_evolve(small_config(), dir / "r", stopping_after(5, 2));
  const std::string config = read(dir / "r" / "config.toml");
  const std::string e = error_of([&] { ga::resume_evolve(dir / "r", threads(1), 3); });
  EXPECT_NE(e.find((dir / "r").string()), std::string::npos) << e;
  EXPECT_NE(e.find("5 generations are played"), std::string::npos) << e;
  EXPECT_EQ(read(dir / "r" / "config.toml"), config);
  // A limit equal to the generations played finishes the run without playing: champion.toml
  // from the checkpoint's last champion.
  const std::string metrics = read(dir / "r" / "metrics.csv");
  const auto done = ga::resume_evolve(dir / "r", threads(1), 5);
  EXPECT_TRUE(done.complete);
  EXPECT_EQ(done.generations_done, 5);
  EXPECT_EQ(read(dir / "r" / "metrics.csv"), metrics);
  EXPECT_TRUE(fs::exists(dir / "r" / "champion.toml"));
}

TEST(EvolveRun, AnExtendedRunEqualsOneStartedWithTheLongerLimit) {
  ga::EvolveConfig c = small_config();
  c.elo.yardstick_every = 1;  // (with a sparser schedule the last generation's extra yardstick differs)
  const fs::path dir = temp_dir("extend");
  ga::run_evolve(c, dir / "short", threads(2));
  ga::resume_evolve(dir / "short", threads(1), 11);
  c.elo.generations = 11;
  ga::run_evolve(c, dir / "long", threads(2));
  EXPECT_EQ(metrics_without_time(dir / "short"), metrics_without_time(dir / "long"));
  EXPECT_EQ(read(dir / "short" / "checkpoint.bin"), read(dir / "long" / "checkpoint.bin"));
  EXPECT_EQ(read(dir / "short" / "champion.toml"), read(dir / "long" / "champion.toml"));
}

TEST(EvolveRun, SetupErrorsLeaveNoRunBehind) {
  const fs::path dir = temp_dir("setup") / "r";
  ga::EvolveRunOptions o = threads(1);
  o.backend = "no-such-backend";
  EXPECT_THROW(ga::run_evolve(small_config(), dir, o), Error);
  EXPECT_FALSE(fs::exists(dir / "config.toml"));
  EXPECT_NO_THROW(ga::run_evolve(small_config(), dir, threads(1)));  // the same directory is still usable
}

TEST(EvolveRun, ACheckpointThatDoesNotFitTheConfigIsAnError) {
  const fs::path dir = temp_dir("misfit");
  ga::run_evolve(small_config(), dir / "r", stopping_after(2, 2));
  const fs::path ckpt = dir / "r" / "checkpoint.bin";
  // A well-framed checkpoint whose payload says 11 members for a population of 10.
  std::string payload = unframe_checkpoint(read(ckpt), "evolve", ckpt.string());
  // version u32, generation i32, finished u8, unchanged i32, champion (u32 count + 11 i32), then the size.
  const std::size_t at = 4 + 4 + 1 + 4 + 4 + 11 * 4;
  ASSERT_EQ(static_cast<unsigned char>(payload[at]), 10);
  payload[at] = 11;
  std::ofstream(ckpt, std::ios::binary) << frame_checkpoint("evolve", payload);
  const std::string e = error_of([&] { ga::resume_evolve(dir / "r", threads(1)); });
  EXPECT_NE(e.find(ckpt.string()), std::string::npos) << e;
  EXPECT_NE(e.find("population of 11"), std::string::npos) << e;
}

TEST(EvolveRun, CorruptCheckpointsAndMetricsRowsAreErrorsNamingTheFile) {
  const fs::path dir = temp_dir("corrupt");
  ga::run_evolve(small_config(), dir / "a", stopping_after(2, 2));
  const fs::path ckpt = dir / "a" / "checkpoint.bin";
  std::string b = read(ckpt);
  b[b.size() / 2] ^= 0x20;
  std::ofstream(ckpt, std::ios::binary) << b;
  EXPECT_NE(error_of([&] { ga::resume_evolve(dir / "a", threads(1)); }).find(ckpt.string()), std::string::npos);

  ga::run_evolve(small_config(), dir / "b", stopping_after(3, 2));
  const fs::path metrics = dir / "b" / "metrics.csv";
  std::string m = read(metrics);
  const std::string good = m;
  m.insert(m.find('\n') + 1, "x,1:41:0:0:0:0:0:0:0:0:0,1,,,0,0,0,0,0,1,0,0,0,0,0,0,,0,0\n");
  std::ofstream(metrics, std::ios::binary) << m;
  const std::string e = error_of([&] { ga::resume_evolve(dir / "b", threads(1)); });
  EXPECT_NE(e.find(metrics.string() + ":2"), std::string::npos) << e;
  // Every column is checked: a non-number in `draws` (column 15) of the first row.
  std::string bad = good;
  const std::size_t row = bad.find('\n') + 1;
  std::size_t field = row;
  for (int k = 0; k < 14; ++k) field = bad.find(',', field) + 1;
  bad.replace(field, bad.find(',', field) - field, "abc");
  std::ofstream(metrics, std::ios::binary) << bad;
  const std::string e2 = error_of([&] { ga::resume_evolve(dir / "b", threads(1)); });
  EXPECT_NE(e2.find(metrics.string() + ":2"), std::string::npos) << e2;
}

TEST(EvolveCommand, RunsAndResumesFromTheCommandLine) {
  const fs::path dir = temp_dir("cmd");
  const std::string cfg = write_config("cmd", kSmall).string();
  const auto [rc, out] = test::run_command(std::string(EF_EVALFORGE_BIN) + " evolve --config " + cfg + " --out " +
                                           (dir / "r").string() + " --generations 3 --quiet 2>&1");
  EXPECT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("evolve complete, 3 generations"), std::string::npos) << out;
  const auto [rc2, out2] = test::run_command(std::string(EF_EVALFORGE_BIN) + " evolve --resume " +
                                             (dir / "r").string() + " --generations 4 --quiet 2>&1");
  EXPECT_EQ(rc2, 0) << out2;
  EXPECT_NE(out2.find("4 generations"), std::string::npos) << out2;
  const auto [rc3, out3] = test::run_command(std::string(EF_EVALFORGE_BIN) + " evolve --config /no/such.toml 2>&1");
  EXPECT_NE(rc3, 0);
  EXPECT_NE(out3.find("/no/such.toml"), std::string::npos) << out3;
}

TEST(EvolveRun, GamesPlayedOnServingRanksGiveTheSameBits) {
  // `mpirun -np R evalforge evolve` with ranks as threads (test_support.hpp): rank 0 runs the GA,
  // every rank plays a share of each batch (round robin, challenges, panel). 3 ranks stopped
  // after 4 generations and resumed on 2 write the files of one process.
  const ga::EvolveConfig c = ga::load_evolve_config(write_config("signal-ranks", kSignal).string());
  const fs::path dir = temp_dir("ranks");
  ga::run_evolve(c, dir / "one", threads(1));
  test::with_serving_ranks(3, [&](ga::IslandTeam& team) {
    ga::EvolveRunOptions o = stopping_after(4, 1);
    o.team = &team;
    EXPECT_TRUE(ga::run_evolve(c, dir / "ranks", o).interrupted);
  });
  EXPECT_NE(read(dir / "ranks" / "log.txt").find("backend 3 ranks of cpu"), std::string::npos);
  test::with_serving_ranks(2, [&](ga::IslandTeam& team) {
    ga::EvolveRunOptions o = threads(2);
    o.team = &team;
    EXPECT_TRUE(ga::resume_evolve(dir / "ranks", o).complete);
  });
  EXPECT_EQ(metrics_without_time(dir / "one"), metrics_without_time(dir / "ranks"));
  for (const char* f : {"checkpoint.bin", "champion.toml", "crowning.csv", "panel.csv"})
    EXPECT_EQ(read(dir / "one" / f), read(dir / "ranks" / f)) << f;
  // Ranks and --devices both spread the games: one at a time.
  test::with_serving_ranks(2, [&](ga::IslandTeam& team) {
    ga::EvolveRunOptions o = threads(1);
    o.team = &team;
    o.devices = {0, 1};
    EXPECT_NE(error_of([&] { ga::run_evolve(c, dir / "both", o); }).find("--devices and MPI ranks"), std::string::npos);
    // The refused run made no backend, so the serving rank still waits: tell it to stop.
    make_team_backend(make_backend("cpu", 1), team);
  });
}
