// What the tests that run `evalforge search` through the binary share (mpi_search_test.cpp,
// devices_search_test.cpp): a tiny search config and the comparison of run directories.
#pragma once
#include <fmt/core.h>
#include <filesystem>
#include <sstream>
#include <string>
#include "test_support.hpp"

namespace ef::test {

// Four islands, so that 3 ranks hold unequal blocks (1, 1, 2); migration every generation and
// a size that topology "all" can split (3 = 1 from each other island); a checkpoint each
// generation, so that a failed run resumes from the last one.
inline std::string tiny_search_toml(const std::string& topology, const std::filesystem::path& games) {
  return fmt::format(R"([search]
moves = [20, 28, 36, 44]
island_size = 8
elite = 3
mutants = 3
generations = 3
seed = 3
tuple_sizes = [4, 3]
[migration]
topology = "{}"
interval = 1
size = 3
[data]
files = ["{}"]
[fitness]
test_every = 2
[training]
epochs = 1
[run]
checkpoint_every = 1
)",
                     topology, games.string());
}

// 300 games of the swh1 players into `file` (status 0 and "" on success, else the output).
inline std::string generate_search_games(const std::filesystem::path& file) {
  const auto [status, out] = run_command(fmt::format(
      "{} data generate --games 300 --seed 5 --player swh1 --out {} 2>&1", EF_EVALFORGE_BIN, file.string()));
  return status == 0 ? std::string() : out;
}

// metrics.csv of a run without the wall-seconds column (the only column that may differ).
inline std::string metrics_without_time(const std::filesystem::path& run) {
  std::stringstream in(file_bytes(run / "metrics.csv")), out;
  for (std::string line; std::getline(in, line);) out << line.substr(0, line.rfind(',')) << "\n";
  return out.str();
}

// The files a run must reproduce bit for bit.
inline void expect_same_run(const std::filesystem::path& expected, const std::filesystem::path& actual) {
  EXPECT_EQ(metrics_without_time(expected), metrics_without_time(actual)) << actual;
  EXPECT_EQ(file_bytes(expected / "best_shapes.json"), file_bytes(actual / "best_shapes.json")) << actual;
  EXPECT_EQ(file_bytes(expected / "checkpoint.bin"), file_bytes(actual / "checkpoint.bin")) << actual;
}

}  // namespace ef::test
