// Seeds on the command line: a seed is a whole number 0..2^64-1, and a negative one is an
// error on every command that takes one (CLI11 would otherwise wrap -1 to 2^64-1 silently, a
// different run from the one asked for with no word said).
#include <gtest/gtest.h>
#include <filesystem>
#include <string>
#include "test_support.hpp"

namespace ef {
namespace {

namespace fs = std::filesystem;

TEST(CommandSeed, NegativeSeedIsRefusedByEveryCommandThatTakesOne) {
  const fs::path dir = test::scratch_dir("seed", "negative");
  const std::string bin = EF_EVALFORGE_BIN;
  const std::string out = (dir / "out").string();
  // Each command with its --seed (or --train-seed) option; other arguments only as far as needed.
  const std::string commands[] = {
      "data generate --games 1 --player swh1 --out " + out + " --seed",
      "score --data " + out + " --seed",
      "score --data " + out + " --train-seed",
      "gtp --agent swh --seed",
      "probcut --agent swh --out " + out + " --seed",
      "league --agent swh --seed",
      "match --opponent-cmd true --agent swh --seed",
      "hex match --seed",
      "hex tune --seed",
      "hex tournament --seed",
      "hex external --seed",
  };
  for (const std::string& command : commands)
    for (const char* value : {"-1", "-18446744073709551615"}) {
      const auto [status, text] = test::run_command(bin + " " + command + " " + value + " < /dev/null 2>&1");
      EXPECT_NE(status, 0) << command << " " << value << ": " << text;
      EXPECT_NE(text.find("seed: " + std::string(value) + " is negative"), std::string::npos)
          << command << " " << value << ": " << text;
    }
  EXPECT_FALSE(fs::exists(out));
}

TEST(CommandSeed, TheLargestSeedIsAccepted) {
  const fs::path dir = test::scratch_dir("seed", "largest");
  const fs::path out = dir / "games.txt";
  const auto [status, text] = test::run_command(std::string(EF_EVALFORGE_BIN) +
                                                " data generate --games 2 --player swh1 --seed 18446744073709551615 "
                                                "--out " +
                                                out.string() + " 2>&1");
  EXPECT_EQ(status, 0) << text;
  EXPECT_NE(text.find("seed 18446744073709551615"), std::string::npos) << text;
}

}  // namespace
}  // namespace ef
