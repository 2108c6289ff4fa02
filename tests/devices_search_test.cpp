// `evalforge search --devices LIST`: the islands over one thread and backend per device in one
// process (docs/scale-out.md). Without a GPU here, --backend cpu stands in for the devices:
// the files must be the plain run's bits; bad lists and an absent CUDA device are clear errors.
#include <fmt/core.h>
#include <gtest/gtest.h>
#include <filesystem>
#include <fstream>
#include <string>
#include "search_test_support.hpp"

namespace fs = std::filesystem;
using ef::test::run_command;

TEST(DevicesSearch, ThreeCpuRanksInOneProcessWriteThePlainRunsBits) {
  const fs::path dir = ef::test::scratch_dir("devices", "search");
  ASSERT_EQ(ef::test::generate_search_games(dir / "games.txt"), "");
  std::ofstream(dir / "c.toml") << ef::test::tiny_search_toml("paper", dir / "games.txt");
  const std::string search = fmt::format("{} search --quiet --config {} ", EF_EVALFORGE_BIN, (dir / "c.toml").string());
  auto [status, out] = run_command(search + "--out " + (dir / "plain").string() + " 2>&1");
  ASSERT_EQ(status, 0) << out;
  std::tie(status, out) = run_command(search + "--devices 0,1,2 --out " + (dir / "three").string() + " 2>&1");
  ASSERT_EQ(status, 0) << out;
  ef::test::expect_same_run(dir / "plain", dir / "three");
  // Bad lists, more devices than islands, and CUDA devices on a machine without them.
  std::tie(status, out) = run_command(search + "--devices 0,0 --out " + (dir / "twice").string() + " 2>&1");
  EXPECT_EQ(status, 2) << out;
  EXPECT_NE(out.find("lists device 0 twice"), std::string::npos) << out;
  std::tie(status, out) = run_command(search + "--devices 0,1,2,3,4 --out " + (dir / "five").string() + " 2>&1");
  EXPECT_EQ(status, 2) << out;
  EXPECT_NE(out.find("5 ranks for 4 islands"), std::string::npos) << out;
  std::tie(status, out) = run_command(search + "--devices x --out " + (dir / "x").string() + " 2>&1");
  EXPECT_NE(status, 0) << out;
#ifndef EF_HAVE_CUDA
  std::tie(status, out) =
      run_command(search + "--backend cuda --devices 0,1 --out " + (dir / "cuda").string() + " 2>&1");
  EXPECT_EQ(status, 2) << out;
  EXPECT_NE(out.find("no CUDA"), std::string::npos) << out;
#endif
}
