// The Elo GA's games over MPI ranks (backends/team_backend.hpp, docs/scale-out.md), through the
// real binary and FindMPI's launcher on loopback: `mpirun -np 1/2/3 evalforge evolve` writes the
// files of the plain process, a run resumes with another rank count, and a serving rank that
// dies or hangs ends the run quickly with a message and a resumable directory. Skipped when the
// build has no MPI.
#include <fmt/core.h>
#include <gtest/gtest.h>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>
#include "test_support.hpp"

namespace fs = std::filesystem;
using ef::test::file_bytes;

namespace {

// 8 players, 2 openings a pair (112 games a generation), a challenge and a panel: every kind of
// batch the GA sends. Checkpoints every generation, so a failure loses none.
const char* kConfig = R"(
[evolve]
kind = "elo-othello"
generations = 6
stall_generations = 0
seed = 11
[population]
size = 8
mutation_rate = 0.3
[elo]
openings_per_pair = 2
selection = "score"
[play]
opening_plies = 4
epsilon = 0.05
[yardstick]
opponent = "random"
openings = 4
every = 2
[crowning]
rule = "challenge"
openings = 6
los = 0.9
[panel]
opponents = ["swh", "random"]
openings = 3
[run]
checkpoint_every = 1
)";

class MpiEvolve : public ::testing::Test {
 public:
  static void SetUpTestSuite() {
    if (std::string(ef::test::kMpiexec).empty()) return;
    dir_ = ef::test::scratch_dir("mpi", "evolve");
    std::ofstream(dir_ / "elo.toml") << kConfig;
    const auto [status, out] = evolve(0, fmt::format("--config {} --out {}", (dir_ / "elo.toml").string(), plain()));
    ASSERT_EQ(status, 0) << out;
  }
  void SetUp() override {
    if (std::string(ef::test::kMpiexec).empty()) GTEST_SKIP() << "built without MPI";
  }

  // `evalforge evolve ARGS` in one process (ranks 0) or on `ranks` ranks. Returns (status, output).
  static std::pair<int, std::string> evolve(int ranks, const std::string& args, const std::string& env = "") {
    const std::string evalforge = fmt::format("{} evolve --quiet --threads 1 {}", EF_EVALFORGE_BIN, args);
    if (ranks == 0) return ef::test::run_command(evalforge + " 2>&1");
    return ef::test::run_ranks(dir_, ranks, evalforge, env);
  }
  static std::string plain() { return (dir_ / "plain").string(); }
  static std::string config() { return (dir_ / "elo.toml").string(); }

  // metrics.csv without the two time columns.
  static std::string metrics(const fs::path& run) {
    std::stringstream in(file_bytes(run / "metrics.csv")), out;
    for (std::string line; std::getline(in, line);) {
      line = line.substr(0, line.rfind(','));
      out << line.substr(0, line.rfind(',')) << "\n";
    }
    return out.str();
  }
  static void expect_plain_run(const fs::path& run) {
    EXPECT_EQ(metrics(plain()), metrics(run)) << run;
    for (const char* f : {"checkpoint.bin", "champion.toml", "crowning.csv", "panel.csv"})
      EXPECT_EQ(file_bytes(fs::path(plain()) / f), file_bytes(run / f)) << run << " " << f;
    for (const auto& e : fs::directory_iterator(fs::path(plain()) / "hall_of_fame"))
      EXPECT_EQ(file_bytes(e.path()), file_bytes(run / "hall_of_fame" / e.path().filename())) << e.path();
  }
  static fs::path dir_;
};
fs::path MpiEvolve::dir_;

TEST_F(MpiEvolve, OneTwoAndThreeRanksWriteThePlainRunsFiles) {
  for (int ranks : {1, 2, 3}) {
    const fs::path run = dir_ / fmt::format("np{}", ranks);
    const auto [status, out] = evolve(ranks, fmt::format("--config {} --out {}", config(), run.string()));
    ASSERT_EQ(status, 0) << out;
    expect_plain_run(run);
    // Only rank 0 wrote into the directory, and the games did go to the ranks.
    const std::string m = file_bytes(run / "metrics.csv");
    EXPECT_EQ(std::count(m.begin(), m.end(), '\n'), 1 + 6) << run;
    if (ranks > 1) {
      EXPECT_NE(file_bytes(run / "log.txt").find(fmt::format("backend {} ranks of cpu", ranks)), std::string::npos);
    }
  }
}

TEST_F(MpiEvolve, ARunResumesWithAnotherRankCount) {
  // 2 generations on 3 ranks, to 4 on 2, to 6 in one process: the files of the same steps in
  // one process (each step's last generation plays the yardstick and the panel, so a run
  // extended in steps differs from one run of 6).
  const fs::path run = dir_ / "resumed", steps = dir_ / "resumed-plain";
  const std::vector<int> ranks = {3, 2, 0};
  for (std::size_t k = 0; k < ranks.size(); ++k) {
    for (const auto& [r, dir] : {std::pair{ranks[k], run}, std::pair{0, steps}}) {
      const int generations = 2 * static_cast<int>(k + 1);
      const std::string args = k == 0 ? fmt::format("--config {} --out {} --generations 2", config(), dir.string())
                                      : fmt::format("--resume {} --generations {}", dir.string(), generations);
      const auto [status, out] = evolve(r, args);
      ASSERT_EQ(status, 0) << out;
    }
  }
  EXPECT_EQ(metrics(steps), metrics(run));
  for (const char* f : {"checkpoint.bin", "champion.toml", "crowning.csv", "panel.csv"})
    EXPECT_EQ(file_bytes(steps / f), file_bytes(run / f)) << f;
}

// Rank 1 fails as it starts its batch 5 (EF_TEST_FAIL_AT=1:5:HOW; a generation sends a few
// batches, so this is in generation 1 or 2): the run must end within a minute, not at
// `timeout`'s 120 s, with a non-zero status and one of `messages`; 3 ranks then continue it to
// the plain run's files.
void expect_failure_ends_the_run(const std::string& how, const std::string& extra_args,
                                 const std::vector<std::string>& messages) {
  const fs::path run = MpiEvolve::dir_ / ("fail-" + how);
  const auto start = std::chrono::steady_clock::now();
  auto [status, out] =
      MpiEvolve::evolve(2, fmt::format("--config {} --out {} {}", MpiEvolve::config(), run.string(), extra_args),
                        "EF_TEST_FAIL_AT=1:5:" + how);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_NE(status, 0) << out;
  EXPECT_NE(status, 124) << "timed out: " << out;
  EXPECT_LT(seconds, 60) << out;
  bool named = false;
  for (const auto& m : messages) named = named || out.find(m) != std::string::npos;
  EXPECT_TRUE(named) << out;
  ASSERT_TRUE(fs::exists(run / "checkpoint.bin")) << out;
  std::tie(status, out) = MpiEvolve::evolve(3, fmt::format("--resume {}", run.string()));
  ASSERT_EQ(status, 0) << out;
  MpiEvolve::expect_plain_run(run);
}

TEST_F(MpiEvolve, AKilledServingRankEndsTheRunWithAMessageAndTheRunResumes) {
  expect_failure_ends_the_run("kill", "", {"from rank 1", "signal 9", "Killed"});
}

TEST_F(MpiEvolve, AHungServingRankEndsTheRunAtThePeerTimeout) {
  expect_failure_ends_the_run("hang", "--peer-timeout 2", {"from rank 1: nothing for"});
}

TEST_F(MpiEvolve, DevicesUnderTheLauncherAreRefused) {
  const auto [status, out] =
      evolve(2, fmt::format("--config {} --out {} --devices 0,1", config(), (dir_ / "devices").string()));
  EXPECT_NE(status, 0) << out;
  EXPECT_NE(status, 124) << "timed out: " << out;
  EXPECT_NE(out.find("--devices and mpirun both spread the games"), std::string::npos) << out;
  EXPECT_FALSE(fs::exists(dir_ / "devices"));
}

}  // namespace
