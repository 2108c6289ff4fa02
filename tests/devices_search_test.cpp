// `evalforge search --devices LIST`: the islands over one thread and backend per device in one
// process (docs/scale-out.md). Without a GPU here, --backend cpu stands in for the devices:
// the files must be the plain run's bits; bad lists and an absent CUDA device are clear errors.
#include <gtest/gtest.h>
#include <fmt/core.h>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include "test_support.hpp"

namespace fs = std::filesystem;
using ef::test::file_bytes;
using ef::test::run_command;

namespace {

std::string metrics_without_time(const fs::path& run) {
  std::stringstream in(file_bytes(run / "metrics.csv")), out;
  for (std::string line; std::getline(in, line);) out << line.substr(0, line.rfind(',')) << "\n";
  return out.str();
}

}  // namespace

TEST(DevicesSearch, ThreeCpuRanksInOneProcessWriteThePlainRunsBits) {
  const fs::path dir = ef::test::scratch_dir("devices", "search");
  auto [status, out] = run_command(fmt::format("{} data generate --games 300 --seed 5 --player swh1 --out {} 2>&1",
                                               EF_EVALFORGE_BIN, (dir / "games.txt").string()));
  ASSERT_EQ(status, 0) << out;
  std::ofstream(dir / "c.toml") << fmt::format(R"([search]
moves = [20, 28, 36, 44]
island_size = 8
elite = 3
mutants = 3
generations = 3
seed = 3
tuple_sizes = [4, 3]
[migration]
topology = "paper"
interval = 1
size = 3
[data]
files = ["{}"]
[fitness]
test_every = 2
[training]
epochs = 1
)",
                                               (dir / "games.txt").string());
  const std::string search = fmt::format("{} search --quiet --config {} ", EF_EVALFORGE_BIN, (dir / "c.toml").string());
  std::tie(status, out) = run_command(search + "--out " + (dir / "plain").string() + " 2>&1");
  ASSERT_EQ(status, 0) << out;
  std::tie(status, out) = run_command(search + "--devices 0,1,2 --out " + (dir / "three").string() + " 2>&1");
  ASSERT_EQ(status, 0) << out;
  EXPECT_EQ(metrics_without_time(dir / "plain"), metrics_without_time(dir / "three"));
  EXPECT_EQ(file_bytes(dir / "plain" / "best_shapes.json"), file_bytes(dir / "three" / "best_shapes.json"));
  EXPECT_EQ(file_bytes(dir / "plain" / "checkpoint.bin"), file_bytes(dir / "three" / "checkpoint.bin"));
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
  std::tie(status, out) = run_command(search + "--backend cuda --devices 0,1 --out " + (dir / "cuda").string() + " 2>&1");
  EXPECT_EQ(status, 2) << out;
  EXPECT_NE(out.find("no CUDA"), std::string::npos) << out;
#endif
}
