// Where the program finds its networks/ folder (include/evalforge/core/install_paths.hpp). The
// installed case (PREFIX/bin beside PREFIX/share) is checked by scripts/install-check.sh with the
// source and build trees deleted; here, the rules a build tree can show.
#include "evalforge/core/install_paths.hpp"
#include <gtest/gtest.h>
#include <unistd.h>
#include <cstdlib>
#include <filesystem>
#include <string>
#include "evalforge/core/error.hpp"

namespace fs = std::filesystem;

namespace {

struct NetworksDirTest : ::testing::Test {
  fs::path scratch = fs::temp_directory_path() / ("ef_networks_" + std::to_string(::getpid()));
  void SetUp() override {
    ::unsetenv("EF_NETWORKS_DIR");
    ef::set_networks_dir({});
    fs::create_directories(scratch);
  }
  void TearDown() override {
    ::unsetenv("EF_NETWORKS_DIR");
    ef::set_networks_dir({});
    fs::remove_all(scratch);
  }
};

}  // namespace

TEST_F(NetworksDirTest, TheBuildTreeFindsTheSourceTreesNetworks) {
  EXPECT_EQ(fs::canonical(ef::networks_dir()), fs::canonical(fs::path(EF_SOURCE_DIR) / "networks"));
}

TEST_F(NetworksDirTest, AFolderSetByAFrontEndComesFirstWhenItExists) {
  ef::set_networks_dir(scratch);
  EXPECT_EQ(ef::networks_dir(), scratch);
  ef::set_networks_dir(scratch / "missing");  // not a folder: the next rule
  EXPECT_EQ(fs::canonical(ef::networks_dir()), fs::canonical(fs::path(EF_SOURCE_DIR) / "networks"));
}

TEST_F(NetworksDirTest, TheEnvironmentVariableOverridesAllAndABadOneIsNamed) {
  ef::set_networks_dir(fs::path(EF_SOURCE_DIR) / "networks");
  ::setenv("EF_NETWORKS_DIR", scratch.c_str(), 1);
  EXPECT_EQ(ef::networks_dir(), scratch);
  ::setenv("EF_NETWORKS_DIR", (scratch / "missing").c_str(), 1);
  try {
    ef::networks_dir();
    ADD_FAILURE() << "a missing EF_NETWORKS_DIR was accepted";
  } catch (const ef::Error& e) {
    EXPECT_NE(std::string(e.what()).find("EF_NETWORKS_DIR"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("missing"), std::string::npos) << e.what();
  }
  ::setenv("EF_NETWORKS_DIR", "", 1);  // empty: as if unset
  EXPECT_EQ(fs::canonical(ef::networks_dir()), fs::canonical(fs::path(EF_SOURCE_DIR) / "networks"));
}
