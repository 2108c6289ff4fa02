// The search spread over MPI ranks (docs/scale-out.md), through the real binary and FindMPI's
// launcher on loopback: `mpirun -np 1/2/3` must write the bits of the plain single-process run
// (metrics without the wall-time column, best shapes, checkpoint) for every topology, a run
// must resume with another rank count, and a rank that dies must end the run quickly with a
// message and a resumable run directory. Skipped when the build has no MPI.
#include <fmt/core.h>
#include <gtest/gtest.h>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>
#include "search_test_support.hpp"

namespace fs = std::filesystem;
using ef::test::expect_same_run;
using ef::test::file_bytes;
using ef::test::metrics_without_time;
using ef::test::run_command;

namespace {

// Public: the failure tests share a free function that uses the helpers.
class MpiSearch : public ::testing::Test {
 public:
  static void SetUpTestSuite() {
    if (std::string(ef::test::kMpiexec).empty()) return;
    dir_ = ef::test::scratch_dir("mpi", "search");
    ASSERT_EQ(ef::test::generate_search_games(dir_ / "games.txt"), "");
  }
  void SetUp() override {
    if (std::string(ef::test::kMpiexec).empty()) GTEST_SKIP() << "built without MPI";
  }

  static fs::path config(const std::string& topology) {
    const fs::path f = dir_ / (topology + ".toml");
    if (!fs::exists(f)) std::ofstream(f) << ef::test::tiny_search_toml(topology, dir_ / "games.txt");
    return f;
  }
  // `evalforge search ARGS` in one process, or under the launcher with `ranks` ranks (root
  // allowed, as CI runs; oversubscribed, as 3 ranks on 2 cores need). Returns (status, output).
  static std::pair<int, std::string> search(int ranks, const std::string& args, const std::string& env = "") {
    const std::string evalforge = fmt::format("{} search --quiet {}", EF_EVALFORGE_BIN, args);
    if (ranks == 0) return run_command(evalforge + " 2>&1");
    return ef::test::run_ranks(dir_, ranks, evalforge, env);
  }
  static fs::path dir_;
};
fs::path MpiSearch::dir_;

TEST_F(MpiSearch, OneTwoAndThreeRanksGiveThePlainRunsBitsForEveryTopology) {
  for (const std::string topology : {"paper", "ring", "all"}) {
    const fs::path plain = dir_ / ("plain-" + topology);
    const auto [status, out] =
        search(0, fmt::format("--config {} --out {}", config(topology).string(), plain.string()));
    ASSERT_EQ(status, 0) << out;
    for (int ranks : {1, 2, 3}) {
      const fs::path run = dir_ / fmt::format("np{}-{}", ranks, topology);
      const auto [s, o] = search(ranks, fmt::format("--config {} --out {}", config(topology).string(), run.string()));
      ASSERT_EQ(s, 0) << o;
      expect_same_run(plain, run);
      // Only rank 0 wrote into the directory: one header and 3 generations x 4 islands.
      const std::string m = file_bytes(run / "metrics.csv");
      EXPECT_EQ(std::count(m.begin(), m.end(), '\n'), 1 + 12) << run;
      if (ranks > 1) {
        EXPECT_NE(file_bytes(run / "log.txt").find("migration traffic between the"), std::string::npos);
      }
    }
  }
  // The comparison can fail: another topology is another search.
  EXPECT_NE(metrics_without_time(dir_ / "plain-paper"), metrics_without_time(dir_ / "plain-ring"));
}

TEST_F(MpiSearch, ARunResumesWithAnotherRankCount) {
  // The same steps (2 generations, extended to 4, then to 5: a finished run's last generation
  // has a test score) in one process, and with 2, then 3, then 1 ranks.
  const std::vector<std::pair<fs::path, std::vector<int>>> runs = {{dir_ / "resume-plain", {0, 0, 0}},
                                                                   {dir_ / "resume-mpi", {2, 3, 1}}};
  for (const auto& [run, ranks] : runs) {
    auto [status, out] =
        search(ranks[0], fmt::format("--config {} --out {} --generations 2", config("paper").string(), run.string()));
    ASSERT_EQ(status, 0) << out;
    std::tie(status, out) = search(ranks[1], fmt::format("--resume {} --generations 4", run.string()));
    ASSERT_EQ(status, 0) << out;
    std::tie(status, out) = search(ranks[2], fmt::format("--resume {} --generations 5", run.string()));
    ASSERT_EQ(status, 0) << out;
  }
  expect_same_run(runs[0].first, runs[1].first);
}

// Rank 1 fails as it starts generation 3 (EF_TEST_FAIL_AT=1:3:HOW) in a 2-rank run of 5
// generations; the run must end within `limit` seconds, not at `timeout`'s 120, with a non-zero
// status and `message` in the output; generations 0-2 are behind the last checkpoint, and 3
// ranks continue from it to the plain run's bits.
void expect_failure_ends_the_run(const std::string& how, const std::string& extra_args, double limit,
                                 const std::vector<std::string>& messages) {
  const fs::path plain = MpiSearch::dir_ / ("fail-plain-" + how), run = MpiSearch::dir_ / ("fail-" + how);
  auto [status, out] = MpiSearch::search(
      0, fmt::format("--config {} --out {} --generations 5", MpiSearch::config("ring").string(), plain.string()));
  ASSERT_EQ(status, 0) << out;
  const auto start = std::chrono::steady_clock::now();
  std::tie(status, out) = MpiSearch::search(2,
                                            fmt::format("--config {} --out {} --generations 5 {}",
                                                        MpiSearch::config("ring").string(), run.string(), extra_args),
                                            "EF_TEST_FAIL_AT=1:3:" + how);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_NE(status, 0) << out;
  EXPECT_NE(status, 124) << "timed out: " << out;  // `timeout` ended it: a hang
  EXPECT_LT(seconds, limit) << out;
  bool named = false;
  for (const auto& m : messages) named = named || out.find(m) != std::string::npos;
  EXPECT_TRUE(named) << out;
  std::tie(status, out) = MpiSearch::search(3, fmt::format("--resume {}", run.string()));
  ASSERT_EQ(status, 0) << out;
  expect_same_run(plain, run);
}

TEST_F(MpiSearch, ARankThatExitsEndsTheRunWithAMessageAndTheRunResumes) {
  // evalforge names the rank rank 0 was waiting for; when the launcher ended rank 0 before it
  // could, the launcher's own message says that a rank exited with a non-zero status.
  expect_failure_ends_the_run("exit", "", 60, {"from rank 1", "non-zero"});
}

TEST_F(MpiSearch, AKilledRankEndsTheRunWithAMessageAndTheRunResumes) {
  expect_failure_ends_the_run("kill", "", 60, {"from rank 1", "signal 9", "Killed"});
}

TEST_F(MpiSearch, AHungRankEndsTheRunAtThePeerTimeout) {
  // Nothing ends a rank that hangs alive but rank 0's watchdog: 2 s without its report.
  expect_failure_ends_the_run("hang", "--peer-timeout 2", 60, {"waiting for the report from rank 1: nothing for"});
}

TEST_F(MpiSearch, MoreRanksThanIslandsIsAClearErrorNotAHang) {
  const auto [status, out] =
      search(5, fmt::format("--config {} --out {}", config("paper").string(), (dir_ / "too-many").string()));
  EXPECT_NE(status, 0) << out;
  EXPECT_NE(status, 124) << "timed out: " << out;
  EXPECT_NE(out.find("5 ranks for 4 islands"), std::string::npos) << out;
}

}  // namespace
