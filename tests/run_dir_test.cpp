// The run directory (core/run_dir.hpp) and the binary payload helpers (core/bytes.hpp): the
// commit point, kinds, table resume rules, checkpoint framing, atomic writes, stop requests,
// progress lines.
#include "evalforge/core/run_dir.hpp"
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmath>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <limits>
#include <stdexcept>
#include "core/bytes.hpp"
#include "evalforge/core/error.hpp"
#include "evalforge/core/files.hpp"

using namespace ef;
namespace fs = std::filesystem;

namespace {

class RunDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("ef-rundir-" + std::to_string(::getpid()) + "-" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_);
    dir_ = root_ / "run";
  }
  void TearDown() override { fs::remove_all(root_); }

  // A committed run of kind "test" with a table t.csv (header a,b).
  RunDir committed() {
    RunDir run = RunDir::create(dir_, "test", "evalforge test --resume DIR", {{"t.csv", "a,b"}});
    run.commit_config("x = 1\n");
    return run;
  }

  static std::string error_of(const std::function<void()>& f) {
    try {
      f();
    } catch (const Error& e) {
      return e.what();
    }
    ADD_FAILURE() << "no ef::Error";
    return "";
  }

  fs::path root_, dir_;
};

// A row check that keeps every row whose field a is a number below `below`.
RunDir::RowCheck keep_below(i64 below) {
  return [below](const RunDir::Row& f, const std::string& where) {
    return parse_int_field(f[0], 0, 1000, where, "a") < below;
  };
}

}  // namespace

TEST_F(RunDirTest, CreateWritesRunTomlAndHeadersThenConfigLast) {
  RunDir run = RunDir::create(dir_, "test", "", {{"t.csv", "a,b"}, {"u.csv", "c\n"}});
  EXPECT_EQ(read_file(dir_ / "t.csv", FileKind::kRunTable), "a,b\n");
  EXPECT_EQ(read_file(dir_ / "u.csv", FileKind::kRunTable), "c\n");
  const std::string run_toml = read_file(dir_ / "run.toml", FileKind::kRunTable);
  EXPECT_NE(run_toml.find("kind = \"test\""), std::string::npos) << run_toml;
  EXPECT_NE(run_toml.find("evalforge_version"), std::string::npos) << run_toml;
  // Not a run until the config is committed: open refuses, naming the cut-short creation.
  EXPECT_FALSE(run.has("config.toml"));
  EXPECT_NE(error_of([&] { RunDir::open(dir_, "test", RunDir::Access::kRead); }).find("cut short"), std::string::npos);
  run.commit_config("x = 1\n");
  EXPECT_EQ(read_file(dir_ / "config.toml", FileKind::kRunTable), "x = 1\n");
  EXPECT_EQ(RunDir::open(dir_, "test", RunDir::Access::kRead).path(), dir_);
}

// A hand edit of config.toml is named key by key against the copy commit_config keeps; comments
// and layout are not edits; a run's own rewrite (commit_config again) and an accepted edit
// become the new reference; a run from before the copy has nothing to compare with.
TEST_F(RunDirTest, ConfigEditsAreNamedKeyByKey) {
  RunDir run = RunDir::create(dir_, "test", "", {});
  run.commit_config("x = 1\n[t]\ny = [1, 2]\nz = \"a\"\n[t.u]\nv = 0.5\n");
  EXPECT_TRUE(run.config_edits().empty());
  write_atomically(dir_ / "config.toml", "# a note\nx   = 1\n[t]\nz = \"a\"\ny = [ 1,2 ]\n[t.u]\nv = 0.50\n");
  EXPECT_TRUE(run.config_edits().empty());
  write_atomically(dir_ / "config.toml", "x = 1.0\n[t]\ny = [1, 3]\nw = true\n[t.u]\nv = 0.25\n");
  const std::vector<std::string> edits = run.config_edits();
  ASSERT_EQ(edits.size(), 5u) << ::testing::PrintToString(edits);
  // Key order within a table, a table's added keys after its changed ones.
  EXPECT_EQ(edits[0], "t.u.v: 0.5 -> 0.25");
  EXPECT_EQ(edits[1], "t.y[1]: 2 -> 3");         // arrays of one length element by element
  EXPECT_EQ(edits[2], "t.z: 'a' -> (removed)");  // toml++ writes strings as literal strings
  EXPECT_EQ(edits[3], "t.w: (absent) -> true");
  EXPECT_EQ(edits[4], "x: 1 -> 1.0");  // an integer became a float: another type, another setting
  write_atomically(dir_ / "config.toml", "x = 1\n[t]\ny = [1, 2, 3]\nz = \"a\"\n");
  EXPECT_EQ(run.config_edits(),
            (std::vector<std::string>{"t.u: { v = 0.5 } -> (removed)", "t.y: [ 1, 2 ] -> [ 1, 2, 3 ]"}));
  run.accept_config_edits();
  EXPECT_TRUE(run.config_edits().empty());
  run.commit_config("x = 2\n");  // the run's own rewrite (a resume with --generations)
  EXPECT_TRUE(run.config_edits().empty());
  write_atomically(dir_ / "config.toml", "x = [\n");
  EXPECT_NE(error_of([&] { run.config_edits(); }).find((dir_ / "config.toml").string() + ":"), std::string::npos);
  fs::remove(dir_ / ".config.committed.toml");  // a run made before the copy was kept
  EXPECT_TRUE(run.config_edits().empty());
}

// One writer per run directory: while a RunDir (or a copy of it) lives, creating or resuming the
// same directory again is refused, naming it and the holder's pid; a reader is not refused.
TEST_F(RunDirTest, OneWriterAtATime) {
  const std::string pid = std::to_string(::getpid());
  {
    RunDir first = committed();
    const std::string m = error_of([&] { RunDir::open(dir_, "test"); });
    EXPECT_NE(m.find(dir_.string() + ": in use by another evalforge process (pid " + pid + ")"), std::string::npos)
        << m;
    // Two creations of one directory: the second is refused while the first has not committed.
    const fs::path other = root_ / "other";
    const RunDir creating = RunDir::create(other, "test", "", {{"t.csv", "a,b"}});
    EXPECT_NE(error_of([&] {
                RunDir::create(other, "test", "", {{"t.csv", "a,b"}});
              }).find("in use"),
              std::string::npos);
    EXPECT_NO_THROW(RunDir::open(dir_, "test", RunDir::Access::kRead));
    RunDir copy = first;  // copies share the lock: it goes with the last of them
    { RunDir gone = std::move(first); }
    EXPECT_NE(error_of([&] { RunDir::open(dir_, "test"); }).find("in use"), std::string::npos);
  }
  EXPECT_NO_THROW(RunDir::open(dir_, "test"));  // released with the last copy
}

// The lock is between processes (the case that matters): a child holds the run open; the parent
// is refused until the child is gone, however it went (here: killed, as by kill -9).
TEST_F(RunDirTest, AnotherProcessHoldingTheRunIsRefusedUntilItDies) {
  committed();
  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::close(ready[0]);
    try {
      ::alarm(60);  // never outlives a parent that died before killing it
      RunDir held = RunDir::open(dir_, "test");
      const char ok = 'k';
      [[maybe_unused]] const ssize_t n = ::write(ready[1], &ok, 1);
      ::pause();  // until killed
    } catch (...) {}
    ::_exit(1);
  }
  ::close(ready[1]);
  char c = 0;
  ASSERT_EQ(::read(ready[0], &c, 1), 1);
  ::close(ready[0]);
  const std::string m = error_of([&] { RunDir::open(dir_, "test"); });
  EXPECT_NE(m.find("in use by another evalforge process (pid " + std::to_string(child) + ")"), std::string::npos) << m;
  ::kill(child, SIGKILL);
  int status = 0;
  ::waitpid(child, &status, 0);
  EXPECT_NO_THROW(RunDir::open(dir_, "test"));
}

// A kill between creating run.toml.tmp and renaming it leaves only that file (and the lock):
// a creation cut short, which the same creation may start again over.
TEST_F(RunDirTest, ACreationKilledBeforeRunTomlMayStartAgain) {
  fs::create_directories(dir_);
  std::ofstream(dir_ / "run.toml.tmp") << "kind = \"te";
  std::ofstream(dir_ / ".lock") << "1\n";
  EXPECT_NO_THROW(RunDir::create(dir_, "test", "", {{"t.csv", "a,b"}}).commit_config(""));
  // Anything else is somebody's files: still refused.
  const fs::path other = root_ / "other";
  fs::create_directories(other);
  std::ofstream(other / "run.toml.tmp") << "";
  std::ofstream(other / "notes.txt") << "mine";
  EXPECT_NE(error_of([&] { RunDir::create(other, "test", "", {}); }).find("not empty"), std::string::npos);
}

TEST(RunDir, RefusesADirectoryThatAlreadyHoldsARun) {
  const fs::path dir = fs::temp_directory_path() / ("ef-rundir-refuse-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  RunDir::create(dir, "search", "", {}).commit_config("");
  const std::string hint = "evalforge search --resume " + dir.string();
  try {
    RunDir::create(dir, "search", hint, {});
    ADD_FAILURE() << "a second run was created over the first";
  } catch (const Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find(dir.string() + ": already holds a search run"), std::string::npos) << m;
    EXPECT_NE(m.find(hint), std::string::npos) << m;
  }
  EXPECT_THROW(RunDir::check_creatable(dir, "match", ""), Error);
  fs::remove_all(dir);
}

TEST_F(RunDirTest, ACreationCutShortCanBeCreatedAgainButOthersFilesAreRefused) {
  RunDir::create(dir_, "test", "", {{"t.csv", "a,b"}});  // crash before commit_config
  EXPECT_NO_THROW(RunDir::create(dir_, "test", "", {{"t.csv", "a,b"}}).commit_config(""));
  // Another kind's cut-short creation is not silently taken over.
  const fs::path other = root_ / "other";
  RunDir::create(other, "match", "", {});
  EXPECT_NE(error_of([&] { RunDir::create(other, "search", "", {}); }).find("start of a match run"), std::string::npos);
  // A directory with files that are not a run's: refused, not mixed with the run's own.
  const fs::path busy = root_ / "busy";
  fs::create_directories(busy);
  std::ofstream(busy / "notes.txt") << "mine\n";
  EXPECT_NE(error_of([&] { RunDir::create(busy, "search", "", {}); }).find("not empty"), std::string::npos);
  // An existing empty directory is fine.
  fs::create_directories(root_ / "empty");
  EXPECT_NO_THROW(RunDir::create(root_ / "empty", "search", "", {}));
}

TEST_F(RunDirTest, OpenRefusesAnotherKindAndADirectoryWithoutConfig) {
  committed();
  const std::string m = error_of([&] { RunDir::open(dir_, "match"); });
  EXPECT_NE(m.find(dir_.string()), std::string::npos) << m;
  EXPECT_NE(m.find("holds a test run, not a match run"), std::string::npos) << m;
  EXPECT_NE(error_of([&] { RunDir::open(root_ / "nowhere", "test"); }).find("no such run directory"),
            std::string::npos);
  fs::create_directories(root_ / "plain");
  EXPECT_NE(error_of([&] { RunDir::open(root_ / "plain", "test"); }).find("no config.toml"), std::string::npos);
  EXPECT_FALSE(fs::exists(root_ / "plain" / ".lock"));  // a directory that holds no run is left as it was
}

TEST_F(RunDirTest, OpenAcceptsARunFromBeforeRunToml) {
  committed();
  fs::remove(dir_ / "run.toml");
  EXPECT_NO_THROW(RunDir::open(dir_, "match"));
}

TEST_F(RunDirTest, ResumeTableKeepsRowsBeforeTheCheckpointAndRewritesTheFile) {
  RunDir run = committed();
  run.append_rows("t.csv", "0,x\n1,y\n2,z");  // a missing final newline is added
  EXPECT_EQ(read_file(dir_ / "t.csv", FileKind::kRunTable), "a,b\n0,x\n1,y\n2,z\n");
  const auto kept = run.resume_table("t.csv", "a,b", keep_below(2));
  ASSERT_EQ(kept.size(), 2u);
  EXPECT_EQ(kept[1], (RunDir::Row{"1", "y"}));
  EXPECT_EQ(read_file(dir_ / "t.csv", FileKind::kRunTable), "a,b\n0,x\n1,y\n");
  EXPECT_FALSE(fs::exists(dir_ / "t.csv.tmp"));
}

TEST_F(RunDirTest, ResumeTableRejectsAnotherHeader) {
  RunDir run = committed();
  const std::string m = error_of([&] { run.resume_table("t.csv", "a,c", keep_below(9)); });
  EXPECT_NE(m.find((dir_ / "t.csv").string() + ":1: expected the header 'a,c'"), std::string::npos) << m;
}

// A corrupt header is quoted with its odd bytes escaped: a table is user-visible, and its bytes
// must not reach the terminal raw (an escape sequence could rewrite what the user sees).
TEST_F(RunDirTest, ResumeTableQuotesACorruptHeaderWithoutRawBytes) {
  RunDir run = committed();
  write_atomically(dir_ / "t.csv", std::string("a\x1b[2J\x07,b\xff\x01\n0,x\n"));
  const std::string m = error_of([&] { run.resume_table("t.csv", "a,b", keep_below(9)); });
  EXPECT_NE(m.find("found 'a\\x1b[2J\\x07,b\\xff\\x01'"), std::string::npos) << m;
  for (const char c : m) {
    const auto byte = static_cast<unsigned char>(c);
    EXPECT_TRUE(byte >= 0x20 && byte < 0x7f) << "raw byte " << int(byte) << " in: " << m;
  }
}

TEST_F(RunDirTest, ResumeTableRefusesAMissingTable) {
  RunDir run = committed();
  fs::remove(dir_ / "t.csv");
  const std::string m = error_of([&] { run.resume_table("t.csv", "a,b", keep_below(9)); });
  EXPECT_NE(m.find((dir_ / "t.csv").string() + ": missing"), std::string::npos) << m;
  EXPECT_FALSE(fs::exists(dir_ / "t.csv")) << "a missing table must not be recreated";
  // Appending to it is refused too: that would make a table without a header.
  EXPECT_NE(error_of([&] { run.append_rows("t.csv", "0,x\n"); }).find("t.csv"), std::string::npos);
}

TEST_F(RunDirTest, ResumeTableDropsATornLastLineAndSaysSo) {
  RunDir run = committed();
  std::vector<std::string> lines;
  run.set_sink([&](const std::string& line) { lines.push_back(line); });
  run.append_rows("t.csv", "0,x\n");
  {
    std::ofstream(dir_ / "t.csv", std::ios::app) << "1,";  // an append cut short
  }
  const auto kept = run.resume_table("t.csv", "a,b", keep_below(9));
  EXPECT_EQ(kept.size(), 1u);
  EXPECT_EQ(read_file(dir_ / "t.csv", FileKind::kRunTable), "a,b\n0,x\n");
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NE(lines[0].find("incomplete last line"), std::string::npos) << lines[0];
  EXPECT_NE(read_file(dir_ / "log.txt", FileKind::kRunTable).find("incomplete last line"), std::string::npos);
}

TEST_F(RunDirTest, ResumeTableRejectsAGarbageRowWithFileAndLine) {
  RunDir run = committed();
  run.append_rows("t.csv", "0,x\n1x,y\n");
  const std::string m = error_of([&] { run.resume_table("t.csv", "a,b", keep_below(9)); });
  EXPECT_NE(m.find((dir_ / "t.csv").string() + ":3: a '1x'"), std::string::npos) << m;
  // The file is left as it was: nothing is dropped on an error.
  EXPECT_EQ(read_file(dir_ / "t.csv", FileKind::kRunTable), "a,b\n0,x\n1x,y\n");
}

TEST_F(RunDirTest, ResumeTableRejectsAWrongFieldCount) {
  RunDir run = committed();
  run.append_rows("t.csv", "0,x\n1,y,extra\n");
  const std::string m = error_of([&] { run.resume_table("t.csv", "a,b", keep_below(9)); });
  EXPECT_NE(m.find(":3: expected 2 comma-separated fields (a,b), found 3"), std::string::npos) << m;
  write_atomically(dir_ / "t.csv", "a,b\n0,x\n\n");
  EXPECT_NE(error_of([&] { run.resume_table("t.csv", "a,b", keep_below(9)); }).find(":3: expected 2"),
            std::string::npos);
}

TEST_F(RunDirTest, CheckpointRoundTripsAndIsAbsentBeforeTheFirst) {
  RunDir run = committed();
  EXPECT_FALSE(run.read_checkpoint("c.bin").has_value());
  std::string payload("\0\1\2binary\xff", 10);
  run.write_checkpoint("c.bin", payload);
  EXPECT_EQ(run.read_checkpoint("c.bin"), payload);
  run.write_checkpoint("c.bin", "");
  EXPECT_EQ(run.read_checkpoint("c.bin"), "");
  EXPECT_EQ(read_file(dir_ / "c.bin", FileKind::kRunTable).substr(0, 8), "EFRUNCK1");
}

TEST_F(RunDirTest, CorruptOrTruncatedCheckpointIsRejectedNamingTheFile) {
  RunDir run = committed();
  run.write_checkpoint("c.bin", std::string(100, 'p'));
  const std::string good = read_file(dir_ / "c.bin", FileKind::kRunTable);
  const std::string file = (dir_ / "c.bin").string();
  auto message_for = [&](const std::string& bytes) {
    write_atomically(dir_ / "c.bin", bytes);
    return error_of([&] { run.read_checkpoint("c.bin"); });
  };
  std::string flipped = good;
  flipped[40] ^= 1;
  EXPECT_NE(message_for(flipped).find(file + ": checkpoint checksum mismatch"), std::string::npos);
  EXPECT_NE(message_for(good.substr(0, good.size() - 10)).find(file + ": truncated"), std::string::npos);
  EXPECT_NE(message_for(good.substr(0, 12)).find(file + ": truncated"), std::string::npos);
  EXPECT_NE(message_for(good + "x").find(file), std::string::npos);
  EXPECT_NE(message_for("EFNET001" + good.substr(8)).find(file + ": not an evalforge run checkpoint"),
            std::string::npos);
  // A checkpoint of another kind of run (a well-formed one) is named as such.
  const std::string other = frame_checkpoint("match", std::string(100, 'p'));
  EXPECT_NE(message_for(other).find("a checkpoint of a match run, not of a test run"), std::string::npos);
  EXPECT_EQ(unframe_checkpoint(other, "match", "mem"), std::string(100, 'p'));
}

TEST_F(RunDirTest, AtomicWriteReplacesTheFileAndLeavesNoTmp) {
  RunDir run = committed();
  run.write_file("state.toml", "a = 1\n");
  run.write_file("state.toml", "a = 2\n");
  EXPECT_EQ(run.read_file("state.toml", FileKind::kConfig), "a = 2\n");
  for (const auto& entry : fs::directory_iterator(dir_)) EXPECT_NE(entry.path().extension(), ".tmp") << entry.path();
  // Subdirectories of the run work too (a match's checkpoint/state.toml).
  fs::create_directories(run.file("sub"));
  run.write_file("sub/x", "y");
  EXPECT_EQ(read_file(dir_ / "sub" / "x", FileKind::kRunTable), "y");
  EXPECT_NE(error_of([&] { run.read_file("nope.txt", FileKind::kConfig); }).find((dir_ / "nope.txt").string()),
            std::string::npos);
}

TEST_F(RunDirTest, LogAppendsLinesAndPassesThemToTheSink) {
  RunDir run = committed();
  run.log("one");  // no sink yet: log.txt only
  std::vector<std::string> lines;
  run.set_sink([&](const std::string& line) { lines.push_back(line); });
  run.log("two\n");
  EXPECT_EQ(read_file(dir_ / "log.txt", FileKind::kRunTable), "one\ntwo\n");
  EXPECT_EQ(lines, std::vector<std::string>{"two"});
}

TEST(RunDirFields, ParseIntegersIn64BitsAndRejectWhatIsNotANumber) {
  EXPECT_EQ(parse_int_field("42", 0, 100, "f:2", "x"), 42);
  EXPECT_EQ(parse_int_field("-3", -5, 5, "f:2", "x"), -3);
  EXPECT_EQ(parse_int_field("4294967298", 0, std::numeric_limits<i64>::max(), "f:2", "x"), 4294967298LL);
  for (const char* bad : {"", "1x", " 1", "1.5", "101", "-1", "99999999999999999999"}) {
    try {
      parse_int_field(bad, 0, 100, "f:2", "count");
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("f:2: count '"), std::string::npos) << e.what();
    }
  }
  EXPECT_DOUBLE_EQ(parse_real_field("0.25", "f:2", "x"), 0.25);
  EXPECT_DOUBLE_EQ(parse_real_field("1e-3", "f:2", "x"), 1e-3);
  for (const char* bad : {"", "nan", "inf", "-inf", "0.5x", "x"})
    EXPECT_THROW(parse_real_field(bad, "f:2", "score"), Error) << bad;
}

TEST(StopRequests, RequestAndClear) {
  clear_stop();
  EXPECT_FALSE(stop_requested());
  request_stop();
  EXPECT_TRUE(stop_requested());
  clear_stop();
  EXPECT_FALSE(stop_requested());
}

TEST(StopRequests, TheFirstSignalSetsTheFlagInsteadOfEndingTheProcess) {
  clear_stop();
  install_stop_signals();
  ASSERT_EQ(::raise(SIGTERM), 0);  // without the handler this would end the test binary
  EXPECT_TRUE(stop_requested());
  clear_stop();
  // The second one would get the default action: the handler put it back.
  struct sigaction now {};
  sigaction(SIGTERM, nullptr, &now);
  EXPECT_EQ(now.sa_handler, SIG_DFL);
  sigaction(SIGINT, nullptr, &now);
  EXPECT_EQ(now.sa_handler, SIG_DFL);
}

TEST(FormatDuration, SecondsMinutesHoursAndUnknown) {
  EXPECT_EQ(format_duration(0), "0s");
  EXPECT_EQ(format_duration(42.4), "42s");
  EXPECT_EQ(format_duration(187), "3m07s");
  EXPECT_EQ(format_duration(2 * 3600 + 5 * 60 + 10), "2h05m");
  EXPECT_EQ(format_duration(std::nan("")), "?");
  EXPECT_EQ(format_duration(std::numeric_limits<double>::infinity()), "?");
  EXPECT_EQ(format_duration(-1), "?");
}

TEST(ProgressMeter, RateAndEtaCountOnlyThisProcessesWork) {
  double now = 100;
  // 1000 units, 400 of them done before this process (a resume): they took no time here.
  const ProgressMeter meter(1000, 400, [&] { return now; });
  EXPECT_EQ(meter.status(400), "400/1000 (40.0%), 0.0 s elapsed, ETA ?");
  now += 10;  // 100 units in 10 s: 10 units/s, 500 left
  EXPECT_DOUBLE_EQ(meter.rate(500), 10.0);
  EXPECT_DOUBLE_EQ(meter.eta(500), 50.0);
  EXPECT_EQ(meter.status(500), "500/1000 (50.0%), 10.0 s elapsed, ETA 50s");
  now += 300;  // 600 units in 310 s
  EXPECT_EQ(meter.status(1000), "1000/1000 (100.0%), 5m10s elapsed, ETA 0s");
}

// Laps of one clock: each phase gets the time since the lap before; a report covers the units
// since the last one, leaves out phases without time (not the first), and starts anew.
TEST(PhaseTimes, LapsAddUpAndReportsStartAnew) {
  double now = 5;
  PhaseTimes t({"games", "training", "files"}, "rounds", "round", 10, [&] { return now; });
  now += 3;
  t.lap(0);  // 3 s of games
  now += 1;
  t.lap(1);  // 1 s of training
  now += 2;
  t.lap(0);  // 2 s more of games
  EXPECT_EQ(t.report(11),
            "time by phase, rounds 10-11: 6.0 s, 3.000 s/round: games 2.500 s/round (83.3%); training 0.500 s/round "
            "(16.7%)");
  now += 4;
  t.lap(2);
  EXPECT_EQ(t.report(12),
            "time by phase, rounds 12-12: 4.0 s, 4.000 s/round: games 0.000 s/round (0.0%); files "
            "4.000 s/round (100.0%)");
  EXPECT_THROW(t.lap(3), std::out_of_range);
}

TEST(Bytes, WriterIsLittleEndianAndTheReaderReadsItBack) {
  ByteWriter w;
  w.put<u32>(0x01020304u);
  w.put<i32>(-2);
  w.put<bool>(true);
  w.put<double>(-0.1);
  w.put_string("name");
  const std::vector<i32> values = {1, -1, 1 << 30};
  w.put_array<i32>(values);
  const std::string b = w.bytes();
  EXPECT_EQ(b.substr(0, 4), std::string("\x04\x03\x02\x01", 4));
  EXPECT_EQ(b.substr(4, 4), std::string("\xfe\xff\xff\xff", 4));
  ByteReader r(b, "mem.bin");
  EXPECT_EQ(r.get<u32>(), 0x01020304u);
  EXPECT_EQ(r.get<i32>(), -2);
  EXPECT_TRUE(r.get<bool>());
  EXPECT_EQ(std::bit_cast<u64>(r.get<double>()), std::bit_cast<u64>(-0.1));
  EXPECT_EQ(r.get_string(16, "name"), "name");
  EXPECT_EQ(r.get_array<i32>(3, "values"), values);
  EXPECT_TRUE(r.at_end());
  EXPECT_NO_THROW(r.expect_end());
}

TEST(Bytes, ReaderNamesTheFileAndOffsetOnTruncation) {
  const std::string b("\x01\x02\x03", 3);
  ByteReader r(b, "x.bin");
  try {
    r.get<u32>("count");
    ADD_FAILURE() << "read past the end";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "x.bin: truncated at byte 0 (reading count)");
  }
  // A huge count is refused before anything is allocated.
  EXPECT_THROW(r.get_array<double>(std::size_t{1} << 60, "keys"), Error);
}

TEST(Bytes, Fnv1aAndCrc32MatchTheirReferenceValues) {
  EXPECT_EQ(fnv1a64(""), 0xcbf29ce484222325ull);
  EXPECT_EQ(fnv1a64("a"), 0xaf63dc4c8601ec8cull);
  Fnv1a pieces;
  pieces.add("fo");
  pieces.add("o");
  EXPECT_EQ(pieces.value(), fnv1a64("foo"));
  EXPECT_EQ(crc32_of("123456789"), 0xcbf43926u);  // the CRC-32 check value
}
