// What every run-config loader does with files that cannot define a run.
#include <gtest/gtest.h>
#include <filesystem>
#include <fstream>
#include <functional>
#include "evalforge/runs/evolve_config.hpp"
#include "evalforge/runs/shape_search_config.hpp"
#include "runs/hex_match_run.hpp"
#include "runs/hex_tune_run.hpp"
#include "runs/match_experiment.hpp"
#include "runs/tournament.hpp"
#include "test_support.hpp"

using namespace ef;

// A config of comments only (or an empty one) used to run the full default job silently; every
// run type now refuses it, naming the file.
TEST(ConfigFiles, CommentOnlyAndEmptyConfigsAreRefused) {
  const auto dir = test::scratch_dir("config_files", "comments");
  for (const std::string text : {"# only a comment\n# and another\n", ""}) {
    const std::string file = (dir / "c.toml").string();
    std::ofstream(file) << text;
    const std::vector<std::pair<std::string, std::function<void()>>> loaders = {
        {"search", [&] { ga::load_search_config(file); }},
        {"match", [&] { play::load_match_config(file); }},
        {"evolve", [&] { ga::load_evolve_config(file); }},
        {"tournament", [&] { play::load_tournament_config(file); }},
        {"hex tune", [&] { ga::load_hex_tune_config(file); }},
        {"hex match", [&] { play::load_hex_match_config(file); }},
    };
    for (const auto& [name, load] : loaders) {
      const std::string e = test::error_of(load);
      EXPECT_NE(e.find("sets no keys"), std::string::npos) << name << ": " << e;
      EXPECT_NE(e.find(file), std::string::npos) << name << ": " << e;
    }
  }
}
