// Memory estimates (core/memory_check.hpp): every run type refuses, before it allocates or
// creates its directory, a config that needs more memory than the machine holds. These configs
// are all accepted by the loaders (the values are within their ranges); before the check they
// ended in std::bad_alloc, an OOM kill or swapping.
#include "evalforge/core/memory_check.hpp"
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include "evalforge/runs/evolve_config.hpp"
#include "evalforge/runs/evolve_run.hpp"
#include "evalforge/runs/shape_decoder.hpp"
#include "evalforge/runs/shape_search_config.hpp"
#include "evalforge/runs/shape_search_run.hpp"
#include "runs/hex_match_run.hpp"
#include "runs/hex_tune_run.hpp"
#include "runs/match_experiment.hpp"
#include "runs/tournament.hpp"
#include "test_support.hpp"

using namespace ef;
namespace fs = std::filesystem;

namespace {

// EF_MEMORY_LIMIT_MB for the scope of one test (restored after).
class MemoryLimit {
 public:
  explicit MemoryLimit(std::optional<std::string> mb) {
    if (const char* old = std::getenv("EF_MEMORY_LIMIT_MB")) old_ = old;
    if (mb)
      setenv("EF_MEMORY_LIMIT_MB", mb->c_str(), 1);
    else
      unsetenv("EF_MEMORY_LIMIT_MB");
  }
  ~MemoryLimit() {
    if (old_)
      setenv("EF_MEMORY_LIMIT_MB", old_->c_str(), 1);
    else
      unsetenv("EF_MEMORY_LIMIT_MB");
  }

 private:
  std::optional<std::string> old_;
};

std::string write(const fs::path& file, const std::string& text) {
  std::ofstream(file) << text;
  return file.string();
}

// A [search] of 60 islands of 10^6 individuals with 64 tuples of 12 squares: 2 TB of keys.
std::string huge_search(const std::string& data) {
  std::string moves, sizes;
  for (int m = 1; m <= 60; ++m) moves += (m > 1 ? ", " : "") + std::to_string(m);
  for (int t = 0; t < 64; ++t) sizes += t ? ", 12" : "12";
  return "[search]\nmoves = [" + moves + "]\nisland_size = 1000000\nelite = 200000\nmutants = 100000\n" +
         "tuple_sizes = [" + sizes + "]\n[data]\nfiles = [\"" + data + "\"]\n";
}

}  // namespace

TEST(MemoryCheck, FormatsBytesWithThreeDigits) {
  EXPECT_EQ(format_bytes(0), "0 B");
  EXPECT_EQ(format_bytes(999), "999 B");
  EXPECT_EQ(format_bytes(1000), "1.00 kB");
  EXPECT_EQ(format_bytes(25.3e9), "25.3 GB");
  EXPECT_EQ(format_bytes(1.97e12), "1.97 TB");
  EXPECT_EQ(format_bytes(456.7e6), "457 MB");
  EXPECT_EQ(format_bytes(5e21), "5000 EB");
  EXPECT_EQ(format_bytes(INFINITY), "unbounded");
}

TEST(MemoryCheck, RefusesAboveTheLimitNamingTheLargestPartsFirst) {
  const std::vector<MemoryPart> parts = {{"small", 1e3}, {"keys", 3e12}, {"jobs", 5e9}};
  EXPECT_EQ(check_memory("search", parts, 1e13, "of the test", "advice"),
            "memory estimate: 3.01 TB (limit 10.0 TB of the test)");
  const std::string e = test::error_of([&] { check_memory("search", parts, 1e12, "of the test", "use less"); });
  EXPECT_NE(e.find("search: needs about 3.01 TB of memory (keys: 3.00 TB; jobs: 5.00 GB)"), std::string::npos) << e;
  EXPECT_EQ(e.find("small"), std::string::npos) << e;  // below a thousandth of the total: left out
  EXPECT_NE(e.find("more than the 1.00 TB of the test; use less"), std::string::npos) << e;
}

TEST(MemoryCheck, LimitComesFromTheEnvironmentOrTheMachine) {
  {
    MemoryLimit limit(std::string("1500"));
    EXPECT_DOUBLE_EQ(memory_limit_bytes(), 1.5e9);
    const std::string e = test::error_of([] { check_memory("run", {{"x", 2e9}}, ""); });
    EXPECT_NE(e.find("more than the 1.50 GB of EF_MEMORY_LIMIT_MB"), std::string::npos) << e;
  }
  for (const char* bad : {"0", "-5", "12x", "lots"}) {
    MemoryLimit limit{std::string(bad)};
    const std::string e = test::error_of([] { memory_limit_bytes(); });
    EXPECT_NE(e.find("EF_MEMORY_LIMIT_MB"), std::string::npos) << bad << ": " << e;
  }
  MemoryLimit none(std::nullopt);
  EXPECT_GT(memory_limit_bytes(), 1e8);  // this machine's memory: more than 100 MB
}

TEST(MemoryCheck, SearchAtTheLargestConfigIsRefusedBeforeItsDirectoryExists) {
  MemoryLimit none(std::nullopt);
  const auto dir = test::scratch_dir("memory", "search");
  const std::string data = write(dir / "games.txt", "f5 d6 c3 d3 c4 f4 f6 f3 e6 e7 +0\n");
  const ga::SearchConfig c = ga::load_search_config(write(dir / "huge.toml", huge_search(data)));
  const double need = total_bytes(ga::search_memory_estimate(c, {}));
  EXPECT_GT(need, 1e12);  // 60 x 10^6 x 1,536 keys x 8 B
  const std::string e = test::error_of([&] { ga::run_search(c, dir / "run", {}); });
  EXPECT_NE(e.find("search: needs about"), std::string::npos) << e;
  EXPECT_NE(e.find("keys and their checkpoint (60 islands x 1000000 x 1536 keys"), std::string::npos) << e;
  EXPECT_FALSE(fs::exists(dir / "run"));

  // The paper's setting fits in a few hundred MB; a run's log says its estimate.
  ga::SearchConfig paper = c;
  paper.islands.moves = {18, 22, 26, 30, 34, 38, 42, 46};
  paper.islands.brkga.population_size = 100;
  paper.islands.brkga.elite_count = 20;
  paper.islands.brkga.mutant_count = 10;
  paper.tuple_sizes = ga::edax_tuple_sizes();
  ga::SearchRunOptions o;
  o.threads = 2;
  EXPECT_LT(total_bytes(ga::search_memory_estimate(paper, o)), 3e8);
}

TEST(MemoryCheck, EvolveRunsAreRefusedAboveTheLimit) {
  const auto dir = test::scratch_dir("memory", "evolve");
  // Tic-Tac-Toe co-evolution at its largest: 1000 trials x 2 populations x 65,536 members, each
  // meeting the other's top 65,536: about 10^14 games a generation.
  const std::string ttt = write(dir / "ttt.toml",
                                "[evolve]\nkind = \"tictactoe\"\ntrials = 1000\n[population]\nsize = 65536\n"
                                "[opponent]\nkind = \"coevolution\"\ntop = 65536\n");
  {
    MemoryLimit none(std::nullopt);
    const ga::EvolveConfig c = ga::load_evolve_config(ttt);
    const std::string e = test::error_of([&] { ga::run_evolve(c, dir / "ttt", {}); });
    EXPECT_NE(e.find("evolve: needs about"), std::string::npos) << e;
    EXPECT_NE(e.find("a generation's games"), std::string::npos) << e;
    EXPECT_FALSE(fs::exists(dir / "ttt"));
  }
  // The Elo GA at its largest population (4096: 16.8 M games a generation, about 5 GB) fits
  // this machine perhaps, but not a 1 GB limit.
  const std::string elo = write(dir / "elo.toml", "[evolve]\nkind = \"elo-othello\"\n[population]\nsize = 4096\n");
  MemoryLimit limit(std::string("1000"));
  const ga::EvolveConfig c = ga::load_evolve_config(elo);
  EXPECT_GT(total_bytes(ga::evolve_memory_estimate(c)), 4e9);
  const std::string e = test::error_of([&] { ga::run_evolve(c, dir / "elo", {}); });
  EXPECT_NE(e.find("a generation's round robin (16773120 games"), std::string::npos) << e;
  EXPECT_FALSE(fs::exists(dir / "elo"));
}

TEST(MemoryCheck, TournamentMatchAndHexRunsAreRefusedAboveTheLimit) {
  MemoryLimit limit(std::string("200"));
  const auto dir = test::scratch_dir("memory", "play");

  // 10^7 openings of a 2-agent round robin: 2 x 10^7 games of bookkeeping (about 2 GB).
  const std::string tournament = write(
      dir / "t.toml", "[tournament]\nopenings = 10000000\n[[agent]]\nfile = \"swh\"\n[[agent]]\nfile = \"random\"\n");
  std::string e = test::error_of([&] { play::run_tournament(dir / "t", tournament, {}); });
  EXPECT_NE(e.find("tournament: needs about"), std::string::npos) << e;
  EXPECT_NE(e.find("per-game bookkeeping (20000000 games"), std::string::npos) << e;
  EXPECT_FALSE(fs::exists(dir / "t"));

  // 4096 replicates of two Edax-shape agents: 36 networks of 905 kB each per agent.
  const std::string games = write(dir / "games.txt", "f5 d6 c3 d3 c4 f4 f6 f3 e6 e7 +0\n");
  const std::string match =
      write(dir / "m.toml", "[match]\nreplicates = 4096\ngames_per_round = 64\n[data]\nfiles = [\"" + games +
                                "\"]\n[agent1]\nshapes = \"edax\"\n[agent2]\n"
                                "shapes = \"edax\"\n");
  e = test::error_of([&] { play::run_match(dir / "m", match, {}); });
  EXPECT_NE(e.find("match: needs about"), std::string::npos) << e;
  EXPECT_NE(e.find("agents (4096 replicates x"), std::string::npos) << e;
  EXPECT_FALSE(fs::exists(dir / "m"));

  // UCT with 10^8 playouts a move on 13x13: up to 2^31 nodes per tree.
  play::HexMatchConfig hex;
  hex.a = "uct:playouts=100000000";
  hex.size = 13;
  hex.games = 2;
  play::HexMatchRunOptions ho;
  ho.threads = 2;
  e = test::error_of([&] { play::run_hex_match(dir / "h", &hex, ho); });
  EXPECT_NE(e.find("hex match: needs about"), std::string::npos) << e;
  EXPECT_NE(e.find("UCT trees (2 threads x"), std::string::npos) << e;
  EXPECT_FALSE(fs::exists(dir / "h"));

  ga::HexTuneConfig tune;
  tune.opponent = "uct:playouts=100000000";
  tune.size = 13;
  ga::HexTuneOptions to;
  to.threads = 1;
  e = test::error_of([&] { ga::run_hex_tune(dir / "ht", &tune, to); });
  EXPECT_NE(e.find("hex tune: needs about"), std::string::npos) << e;
  EXPECT_FALSE(fs::exists(dir / "ht"));
}

// The GTP engines and the external-engine match allocate by the user's numbers too: a UCT tree
// or an endgame table that cannot fit is refused before the engine answers (gtp --game hex took
// a player that hex match refuses, and grew until the machine ran out).
TEST(MemoryCheck, GtpEnginesAndTheExternalHexMatchAreRefusedAboveTheLimit) {
  const std::string bin = EF_EVALFORGE_BIN;
  const auto run = [&](const std::string& args) {
    return test::run_command("echo quit | EF_MEMORY_LIMIT_MB=200 timeout -s KILL 30 " + bin + " " + args + " 2>&1");
  };
  auto [rc, out] = run("gtp --game hex --agent uct:playouts=100000000 --size 13");
  EXPECT_EQ(rc, 2) << out;
  EXPECT_NE(out.find("gtp --game hex: needs about"), std::string::npos) << out;
  EXPECT_NE(out.find("fewer UCT playouts"), std::string::npos) << out;
  std::tie(rc, out) = run("gtp --agent swh --table-bits 30");
  EXPECT_EQ(rc, 2) << out;
  EXPECT_NE(out.find("gtp: needs about 25.8 GB"), std::string::npos) << out;
  EXPECT_NE(out.find("a smaller --table-bits"), std::string::npos) << out;
  std::tie(rc, out) = run("hex external --a uct:playouts=100000000 --size 13 --opponent-cmd true --games 2");
  EXPECT_EQ(rc, 2) << out;
  EXPECT_NE(out.find("hex external: needs about"), std::string::npos) << out;
  // Within the limit they start as before.
  std::tie(rc, out) = run("gtp --game hex --agent uct:playouts=100 --size 5");
  EXPECT_EQ(rc, 0) << out;
}

// The commands that allocate by a count or size their user gives (games, positions, table bits,
// threads, shapes) are refused above the limit before they allocate, naming the estimate and what
// to lower; within it they run as before.
TEST(MemoryCheck, CommandsThatAllocateByAUsersNumberAreRefusedAboveTheLimit) {
  const std::string bin = EF_EVALFORGE_BIN;
  const auto dir = test::scratch_dir("memory", "commands");
  const std::string games = (dir / "games.txt").string();
  auto [rc, out] = test::run_command(bin + " data generate --games 20 --seed 1 --out " + games + " 2>&1");
  ASSERT_EQ(rc, 0) << out;
  // 64 distinct tuples of 12 squares: a 136 MB weight table a worker thread.
  std::string tuples;
  for (int t = 0; t < 64; ++t) {
    tuples += t ? ", [" : "[";
    for (int k = 0; k < 12; ++k) {
      const int sq = (t + k * 5) % 64;
      tuples += fmt::format("{}\"{}{}\"", k ? ", " : "", static_cast<char>('a' + sq % 8), 1 + sq / 8);
    }
    tuples += "]";
  }
  const std::string big_shape = write(dir / "big.json", "{\"name\": \"big\", \"tuples\": [" + tuples + "]}");
  const auto run = [&](const std::string& args) {
    return test::run_command("EF_MEMORY_LIMIT_MB=200 timeout -s KILL 60 " + bin + " " + args + " 2>&1");
  };
  const struct {
    std::string args, needs, advice;
  } cases[] = {
      {"league --agent swh --games 10000000", "league: needs about", "fewer --games"},
      {"data generate --games 100000000 --seed 1 --out " + (dir / "g.txt").string(), "data generate: needs about",
       "fewer --games"},
      {"probcut --agent swh --positions 10000000 --out " + (dir / "p.toml").string(), "probcut: needs about",
       "fewer --positions"},
      {"ordering --data " + games + " --table-bits 28 --threads 4 --out " + (dir / "o.toml").string(),
       "ordering: needs about", "a smaller --table-bits"},
      {"score --data " + games + " --shapes " + big_shape + " --moves 20,30,40 --threads 64", "score: needs about",
       "fewer or smaller shapes"},
      {"score --data " + games + " --shapes " + big_shape + " --moves 20 --threads 1 --save-agents " + dir.string(),
       "trained weights", "fewer or smaller shapes"},
  };
  for (const auto& c : cases) {
    std::tie(rc, out) = run(c.args);
    EXPECT_EQ(rc, 2) << c.args << "\n" << out;
    EXPECT_NE(out.find(c.needs), std::string::npos) << c.args << "\n" << out;
    EXPECT_NE(out.find(c.advice), std::string::npos) << c.args << "\n" << out;
    EXPECT_NE(out.find("EF_MEMORY_LIMIT_MB"), std::string::npos) << c.args << "\n" << out;
  }
  // Within the limit they run as before.
  std::tie(rc, out) = run("league --agent swh --games 20 --threads 2");
  EXPECT_EQ(rc, 0) << out;
  std::tie(rc, out) = run("score --data " + games + " --shapes edax --moves 20 --threads 2 --epochs 1");
  EXPECT_EQ(rc, 0) << out;
}
