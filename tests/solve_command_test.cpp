// `evalforge solve` end to end: scores checked against the file, identical output for any
// thread count, threads splitting one position, skipped positions, mismatches and bad files reported with a non-zero
// exit.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include "evalforge/core/rng.hpp"
#include "evalforge/games/othello/endgame.hpp"
#include "evalforge/games/othello/game.hpp"
#include "evalforge/games/othello/squares.hpp"
#include "test_support.hpp"

using namespace ef;
namespace fs = std::filesystem;

namespace {

// An obf line for (P to move, O), listing `move:score` entries.
std::string obf_line(const othello::Board& b, const std::string& entries) {
  std::string line(64, '-');
  for (int sq = 0; sq < 64; ++sq) {
    if (b.black() >> sq & 1) line[static_cast<std::size_t>(sq)] = 'X';
    if (b.white() >> sq & 1) line[static_cast<std::size_t>(sq)] = 'O';
  }
  return line + (b.side == othello::kBlack ? " X" : " O") + entries;
}

class SolveCommand : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / fmt::format("evalforge_solve_test_{}", ::getpid());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path write(const std::string& name, const std::string& text) {
    const fs::path p = dir_ / name;
    std::ofstream(p) << text;
    return p;
  }
  // Random positions with `low`..`low`+span-1 empties, each listed with its best move and exact score.
  std::string random_positions(int count, int low = 6, int span = 7) {
    Rng rng(41, Purpose::kGame, 8);
    std::string text;
    for (int made = 0; made < count;) {
      othello::Position p;
      const int empties = low + static_cast<int>(rng.below(static_cast<u32>(span)));
      bool ended = false;
      while (p.board.empties() > empties && !ended) {
        u64 moves = games::Othello::moves(p);
        if (!moves) {
          p = games::Othello::pass(p);
          moves = games::Othello::moves(p);
          if (!moves) ended = true;
          continue;
        }
        p = games::Othello::play(p, rng.random_bit(moves));
      }
      if (ended || !games::Othello::moves(p)) continue;
      const search::SolveResult r = search::solve_endgame(p.board.player, p.board.opponent);
      text += obf_line(p.board, fmt::format("; {}:{:+d};", square_name(r.best_move), r.score)) + "\n";
      ++made;
    }
    return text;
  }
  fs::path dir_;
};

}  // namespace

TEST_F(SolveCommand, ChecksScoresAndIsIdenticalForAnyThreadCount) {
  const fs::path file = write("mixed.obf", "% a comment line\n" + random_positions(12));
  const std::string bin = EF_EVALFORGE_BIN;
  const auto [status1, out1] =
      test::run_command(fmt::format("'{}' solve '{}' --threads 1 --no-timing 2>&1", bin, file.string()));
  ASSERT_EQ(status1, 0) << out1;
  const auto [status3, out3] =
      test::run_command(fmt::format("'{}' solve '{}' --threads 3 --no-timing 2>&1", bin, file.string()));
  ASSERT_EQ(status3, 0) << out3;
  EXPECT_EQ(out1, out3);
  EXPECT_NE(out1.find("solved 12 of 12 positions (0 skipped)"), std::string::npos) << out1;
  EXPECT_EQ(out1.find("BAD"), std::string::npos) << out1;
  // With timing: the time columns and the nodes/s summary.
  const auto [status_t, out_t] = test::run_command(fmt::format("'{}' solve '{}' --threads 2 2>&1", bin, file.string()));
  ASSERT_EQ(status_t, 0) << out_t;
  EXPECT_NE(out_t.find("nodes/s"), std::string::npos) << out_t;
}

// --ordering: the built-in network (the default), none, or an agent file; the same scores and
// moves either way (the file's listed scores are checked), fewer nodes with the network; a
// file that is not an n-tuple agent is refused.
TEST_F(SolveCommand, OrderingNetworkChangesNodesOnly) {
  const fs::path file = write("deep.obf", random_positions(3, 15, 2));
  const std::string bin = EF_EVALFORGE_BIN;
  const auto [s1, with] = test::run_command(fmt::format("'{}' solve '{}' --no-timing 2>&1", bin, file.string()));
  ASSERT_EQ(s1, 0) << with;
  const auto [s2, without] =
      test::run_command(fmt::format("'{}' solve '{}' --no-timing --ordering none 2>&1", bin, file.string()));
  ASSERT_EQ(s2, 0) << without;
  EXPECT_NE(with.find("ordering: built-in network"), std::string::npos) << with;
  EXPECT_NE(without.find("ordering: none"), std::string::npos) << without;
  EXPECT_EQ(with.find("BAD"), std::string::npos) << with;
  EXPECT_EQ(without.find("BAD"), std::string::npos) << without;
  // The built-in network is edax-shapes.toml (the solver's default since 2026-12-05).
  const std::string agent = (fs::path(EF_SOURCE_DIR) / "networks/ordering/edax-shapes.toml").string();
  const auto [s3, named] =
      test::run_command(fmt::format("'{}' solve '{}' --no-timing --ordering '{}' 2>&1", bin, file.string(), agent));
  ASSERT_EQ(s3, 0) << named;
  EXPECT_EQ(named.substr(0, named.find("ordering:")), with.substr(0, with.find("ordering:")));  // same nodes too
  const fs::path swh = write("swh.toml", "evaluator = \"swh\"\n");
  const auto [s4, refused] =
      test::run_command(fmt::format("'{}' solve '{}' --ordering '{}' 2>&1", bin, file.string(), swh.string()));
  EXPECT_EQ(s4, 2) << refused;
  EXPECT_NE(refused.find("is not an n-tuple network"), std::string::npos) << refused;
  const auto [s5, typo] = test::run_command(fmt::format("'{}' solve '{}' --ordering buitlin 2>&1", bin, file.string()));
  EXPECT_EQ(s5, 2) << typo;
  EXPECT_NE(typo.find("--ordering buitlin:"), std::string::npos) << typo;
  EXPECT_NE(typo.find("expected auto, builtin, none"), std::string::npos) << typo;
}

// The solver's machine code (EF_SOLVER_ISA, backends/cpu/endgame_solver.hpp) changes nothing but
// the time: the same output line for line, named in the summary; a bad name is refused.
TEST_F(SolveCommand, SolverCodeCopiesGiveTheSameOutput) {
  const fs::path file = write("isa.obf", random_positions(4, 15, 4));
  const std::string bin = EF_EVALFORGE_BIN;
  const auto [s1, baseline] =
      test::run_command(fmt::format("EF_SOLVER_ISA=baseline '{}' solve '{}' --threads 1 2>&1", bin, file.string()));
  ASSERT_EQ(s1, 0) << baseline;
  EXPECT_NE(baseline.find("solver code baseline"), std::string::npos) << baseline;
  const auto [s2, typo] = test::run_command(fmt::format("EF_SOLVER_ISA=avx9 '{}' solve '{}' 2>&1", bin, file.string()));
  EXPECT_EQ(s2, 2) << typo;
  EXPECT_NE(typo.find("EF_SOLVER_ISA: avx9 is not baseline, x86-64-v3 or x86-64-v4"), std::string::npos) << typo;
  const auto [s4, plain] = test::run_command(
      fmt::format("EF_SOLVER_ISA=baseline '{}' solve '{}' --threads 1 --no-timing 2>&1", bin, file.string()));
  ASSERT_EQ(s4, 0) << plain;
  int compared = 0;
  for (const char* copy : {"x86-64-v3", "x86-64-v4"}) {
    const auto [s3, wide] = test::run_command(
        fmt::format("EF_SOLVER_ISA={} '{}' solve '{}' --threads 1 --no-timing 2>&1", copy, bin, file.string()));
    if (s3 != 0) {
      // Only where the binary or the CPU lacks the copy, and then it says so.
      EXPECT_NE(wide.find(fmt::format("EF_SOLVER_ISA: {} is not available", copy)), std::string::npos) << wide;
      continue;
    }
    EXPECT_EQ(wide, plain) << copy;  // scores, moves and node counts
    ++compared;
  }
  if (compared == 0) GTEST_SKIP() << "no x86-64-v3 or x86-64-v4 copy here";
}

// Tables that cannot fit are refused with the estimate before any is allocated.
TEST_F(SolveCommand, TablesBeyondTheMemoryLimitAreRefused) {
  const fs::path file = write("few.obf", random_positions(2));
  const auto [status, out] = test::run_command(fmt::format(
      "EF_MEMORY_LIMIT_MB=50 '{}' solve '{}' --table-bits 22 --threads 2 2>&1", EF_EVALFORGE_BIN, file.string()));
  EXPECT_EQ(status, 2) << out;
  EXPECT_NE(out.find("solve: needs about 201 MB of memory (transposition tables (2 positions at a time x 101 MB)"),
            std::string::npos)
      << out;
}

// Threads split one position's search (--threads-per-position, or by default when there are
// fewer positions than threads): the file's scores and the same moves as one thread a
// position; the summary says how the threads were used. Splitting without a table, or over
// more threads than --threads, is refused naming the flags.
TEST_F(SolveCommand, ThreadsSplitOnePosition) {
  const fs::path one = write("one.obf", random_positions(1, 16, 1));
  const fs::path four = write("four.obf", random_positions(4, 14, 3));
  const std::string bin = EF_EVALFORGE_BIN;
  const auto [s1, split] = test::run_command(fmt::format("'{}' solve '{}' --threads 2 2>&1", bin, one.string()));
  ASSERT_EQ(s1, 0) << split;
  EXPECT_NE(split.find("wall on 2 threads (2 a position)"), std::string::npos) << split;
  EXPECT_EQ(split.find("BAD"), std::string::npos) << split;
  // Four positions, 2 threads each: every line but the node counts as with one thread each.
  const auto columns = [](const std::string& out) {  // each line up to its node count
    std::string kept;
    for (std::size_t at = 0; at < out.size();) {
      const std::size_t end = out.find('\n', at);
      const std::string line = out.substr(at, end - at);
      kept += line.substr(0, line.rfind(' ')) + "\n";
      at = end == std::string::npos ? out.size() : end + 1;
    }
    return kept.substr(0, kept.find("solved"));
  };
  const auto [s2, one_each] =
      test::run_command(fmt::format("'{}' solve '{}' --threads 1 --no-timing 2>&1", bin, four.string()));
  ASSERT_EQ(s2, 0) << one_each;
  const auto [s3, two_each] = test::run_command(
      fmt::format("'{}' solve '{}' --threads 2 --threads-per-position 2 --no-timing 2>&1", bin, four.string()));
  ASSERT_EQ(s3, 0) << two_each;
  EXPECT_EQ(columns(two_each), columns(one_each));
  EXPECT_NE(two_each.find("solved 4 of 4 positions"), std::string::npos) << two_each;
  EXPECT_EQ(two_each.find("BAD"), std::string::npos) << two_each;
  const auto [s4, no_table] =
      test::run_command(fmt::format("'{}' solve '{}' --threads-per-position 2 --table-bits 0 2>&1", bin, one.string()));
  EXPECT_EQ(s4, 2) << no_table;
  EXPECT_NE(no_table.find("--threads-per-position 2: threads splitting one position share its transposition "
                          "table; --table-bits 0 leaves none"),
            std::string::npos)
      << no_table;
  const auto [s5, too_many] =
      test::run_command(fmt::format("'{}' solve '{}' --threads 2 --threads-per-position 3 2>&1", bin, one.string()));
  EXPECT_EQ(s5, 2) << too_many;
  EXPECT_NE(too_many.find("--threads-per-position 3 is more than --threads 2"), std::string::npos) << too_many;
}

TEST_F(SolveCommand, SkipsPositionsBeyondTheEmptiesLimit) {
  const fs::path file = write("few.obf", random_positions(4));
  const auto [status, out] = test::run_command(
      fmt::format("'{}' solve '{}' --empties-limit 5 --no-timing 2>&1", EF_EVALFORGE_BIN, file.string()));
  EXPECT_EQ(status, 0) << out;
  EXPECT_NE(out.find("solved 0 of 4 positions (4 skipped)"), std::string::npos) << out;
  EXPECT_NE(out.find("skipped: more than 5 empties"), std::string::npos) << out;
}

TEST_F(SolveCommand, WrongListedScoreIsAMismatch) {
  // A position whose listed score is off by 2.
  std::string text = random_positions(1);
  const std::size_t colon = text.find(':');
  ASSERT_NE(colon, std::string::npos);
  const int listed = std::stoi(text.substr(colon + 1));
  text = text.substr(0, colon + 1) + fmt::format("{:+d};\n", listed + 2);
  const fs::path file = write("wrong.obf", text);
  const auto [status, out] =
      test::run_command(fmt::format("'{}' solve '{}' --no-timing 2>&1", EF_EVALFORGE_BIN, file.string()));
  EXPECT_EQ(status, 2) << out;
  EXPECT_NE(out.find("BAD"), std::string::npos) << out;
  EXPECT_NE(out.find("1 of 1 solved positions disagree"), std::string::npos) << out;
}

TEST_F(SolveCommand, BadFileNamesFileAndLine) {
  const std::string good = random_positions(1);
  const fs::path file = write("bad.obf", good + "XXXX-OOO X; a1:+2;\n");
  const auto [status, out] = test::run_command(fmt::format("'{}' solve '{}' 2>&1", EF_EVALFORGE_BIN, file.string()));
  EXPECT_EQ(status, 2) << out;
  EXPECT_NE(out.find(file.string() + ":2: board has"), std::string::npos) << out;
  const auto [missing, missing_out] =
      test::run_command(fmt::format("'{}' solve '{}' 2>&1", EF_EVALFORGE_BIN, (dir_ / "absent.obf").string()));
  EXPECT_EQ(missing, 2) << missing_out;
  EXPECT_NE(missing_out.find("absent.obf"), std::string::npos) << missing_out;
  const fs::path empty = write("empty.obf", "% nothing here\n");
  const auto [none, none_out] =
      test::run_command(fmt::format("'{}' solve '{}' 2>&1", EF_EVALFORGE_BIN, empty.string()));
  EXPECT_EQ(none, 2) << none_out;
  EXPECT_NE(none_out.find("no positions"), std::string::npos) << none_out;
}
