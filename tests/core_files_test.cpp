// The bounded reader of whole files (core/files.hpp: read_file by FileKind): special files refused
// before a byte is read, caps per kind, magic checked before a large file is read, and the same
// through the commands and run directories that read user-named files (issue 54, item 1); and how
// an error message that quotes such a file is shown (item 2).
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>
#include "evalforge/core/error.hpp"
#include "evalforge/core/files.hpp"
#include "evalforge/core/run_dir.hpp"
#include "evalforge/games/othello/agent.hpp"
#include "evalforge/games/othello/agent_file.hpp"
#include "evalforge/games/othello/shape.hpp"
#include "test_support.hpp"

using namespace ef;
namespace fs = std::filesystem;

namespace {

constexpr FileKind kEveryKind[] = {FileKind::kConfig,     FileKind::kShapes,      FileKind::kRunTable,
                                   FileKind::kCheckpoint, FileKind::kTreeSamples, FileKind::kWthor,
                                   FileKind::kGameCache,  FileKind::kNetwork,     FileKind::kRecord};

void write_text(const fs::path& f, const std::string& text) {
  std::ofstream out(f, std::ios::binary);
  out << text;
}

// A sparse file of `bytes` bytes (zeros; no disk blocks).
void sparse_file(const fs::path& f, std::uint64_t bytes) {
  write_text(f, "");
  fs::resize_file(f, bytes);
}

bool under_address_sanitizer() {
#if defined(__SANITIZE_ADDRESS__)
  return true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
  return true;
#else
  return false;
#endif
#else
  return false;
#endif
}

// Runs `f` in a child process whose address space is limited to `bytes` (not under ASan, which
// reserves terabytes of shadow memory at start-up) and returns what it printed to the pipe: the
// ef::Error message it caught, or "no error" / "other exception: ..." otherwise. A reader that
// allocated the whole file would end in std::bad_alloc here instead of its own message.
template <class F>
std::string error_in_limited_child(std::uint64_t bytes, F&& f) {
  int fds[2];
  if (::pipe(fds) != 0) return "pipe failed";
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[0]);
    if (!under_address_sanitizer()) {
      const rlimit limit{bytes, bytes};
      ::setrlimit(RLIMIT_AS, &limit);
    }
    std::string msg;
    try {
      f();
      msg = "no error";
    } catch (const Error& e) {
      msg = e.what();
    } catch (const std::exception& e) {
      msg = std::string("other exception: ") + e.what();
    }
    (void)!::write(fds[1], msg.data(), msg.size());
    ::_exit(0);
  }
  ::close(fds[1]);
  std::string out;
  char buf[4096];
  for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;) out.append(buf, static_cast<std::size_t>(n));
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  return out;
}

class BoundedReader : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = test::scratch_dir("files", ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fifo_ = dir_ / "a.fifo";
    ASSERT_EQ(::mkfifo(fifo_.c_str(), 0600), 0);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_, fifo_;
};

}  // namespace

TEST(FileKinds, EveryKindHasANameAndACap) {
  for (const FileKind kind : kEveryKind) {
    const FileKindLimit& limit = file_kind_limit(kind);
    EXPECT_EQ(limit.kind, kind);
    EXPECT_GT(std::string(limit.what).size(), 3u);
    EXPECT_GE(limit.max_bytes, 64u * 1024) << limit.what;
  }
}

// /dev/zero never ends, a FIFO without a writer blocks on open, a directory is no file: each is
// refused at once, naming the file and what it is, whatever the kind.
TEST_F(BoundedReader, RefusesADeviceAFifoAndADirectoryNamingThem) {
  const std::pair<fs::path, std::string> specials[] = {
      {"/dev/zero", "a character device"}, {fifo_, "a FIFO"}, {dir_, "a directory"}};
  for (const FileKind kind : kEveryKind)
    for (const auto& special : specials) {
      // Named copies, not a structured binding: clang 14 cannot capture a binding in a lambda.
      const fs::path& path = special.first;
      const std::string& what = special.second;
      const std::string msg = test::error_of([&] { (void)read_file(path, kind); });
      EXPECT_NE(msg.find(path.string()), std::string::npos) << msg;
      EXPECT_NE(msg.find("is not a regular file but " + what), std::string::npos) << msg;
      const std::string head = test::error_of([&] { (void)read_file_head(path, kind, 8); });
      EXPECT_NE(head.find("not a regular file"), std::string::npos) << head;
    }
}

TEST_F(BoundedReader, RefusesAFileAboveItsKindsCapBeforeReadingIt) {
  const fs::path big = dir_ / "big";
  sparse_file(big, 16u * 1024 * 1024 + 1);
  std::string msg = test::error_of([&] { (void)read_file(big, FileKind::kConfig); });
  EXPECT_NE(msg.find(big.string() + " is 16777217 bytes, more than the 16 MiB a config file may have"),
            std::string::npos)
      << msg;
  // At its cap a file is read: the cap is inclusive.
  fs::resize_file(big, 64 * 1024);
  EXPECT_EQ(read_file(big, FileKind::kRecord).size(), 64u * 1024);
  fs::resize_file(big, 64 * 1024 + 1);
  msg = test::error_of([&] { (void)read_file(big, FileKind::kRecord); });
  EXPECT_NE(msg.find("more than the 64 KiB a bookkeeping record may have"), std::string::npos) << msg;
}

TEST_F(BoundedReader, ReadsARegularFileWholeAndItsHead) {
  const fs::path f = dir_ / "f.txt";
  std::string text;
  for (int i = 0; i < 50000; ++i) text += static_cast<char>('a' + i % 26);
  write_text(f, text);
  EXPECT_EQ(read_file(f, FileKind::kConfig), text);
  EXPECT_EQ(read_file_head(f, FileKind::kConfig, 5), "abcde");
  EXPECT_EQ(read_file_head(f, FileKind::kConfig, 1u << 20), text);
  EXPECT_EQ(read_file_with_magic(f, FileKind::kConfig, "abcd"), text);
  const std::string msg = test::error_of([&] { (void)read_file_with_magic(f, FileKind::kCheckpoint, "EFRUNCK1"); });
  EXPECT_NE(msg.find(f.string() + ": not an evalforge run checkpoint (expected the magic EFRUNCK1)"), std::string::npos)
      << msg;
  // Shorter than the magic: the same message.
  write_text(f, "EF");
  EXPECT_NE(test::error_of([&] {
              (void)read_file_with_magic(f, FileKind::kCheckpoint, "EFRUNCK1");
            }).find("not an evalforge run checkpoint"),
            std::string::npos);
  const std::string missing = test::error_of([&] { (void)read_file(dir_ / "nope", FileKind::kShapes); });
  EXPECT_NE(missing.find("cannot read " + (dir_ / "nope").string() + ": No such file"), std::string::npos) << missing;
}

// A 3 GiB checkpoint of zeros (sparse: no disk) is refused by its magic after 8 bytes, under an
// address space of 1 GiB in which reading it whole could not even be attempted.
TEST_F(BoundedReader, ACheckpointIsRefusedByItsMagicBeforeItIsRead) {
  RunDir run = RunDir::create(dir_ / "run", "test", "evalforge test --resume DIR", {{"t.csv", "a,b"}});
  run.commit_config("x = 1\n");
  sparse_file(run.file("checkpoint.bin"), std::uint64_t{3} << 30);
  const std::string msg =
      error_in_limited_child(std::uint64_t{1} << 30, [&] { (void)run.read_checkpoint("checkpoint.bin"); });
  EXPECT_NE(msg.find("checkpoint.bin: not an evalforge run checkpoint (expected the magic EFRUNCK1)"),
            std::string::npos)
      << msg;
  // A directory in its place is named as one (it used to get the wrong-magic message).
  fs::remove(run.file("checkpoint.bin"));
  fs::create_directory(run.file("checkpoint.bin"));
  const std::string dir_msg = test::error_of([&] { (void)run.read_checkpoint("checkpoint.bin"); });
  EXPECT_NE(dir_msg.find("checkpoint.bin is not a regular file but a directory"), std::string::npos) << dir_msg;
}

// A run directory's table replaced by a FIFO or a directory: a resume names it instead of
// blocking on it.
TEST_F(BoundedReader, ARunTableThatIsNoFileIsNamedOnResume) {
  RunDir run = RunDir::create(dir_ / "run", "test", "evalforge test --resume DIR", {{"t.csv", "a,b"}});
  run.commit_config("x = 1\n");
  const auto keep = [](const RunDir::Row&, const std::string&) { return true; };
  fs::remove(run.file("t.csv"));
  ASSERT_EQ(::mkfifo(run.file("t.csv").c_str(), 0600), 0);
  std::string msg = test::error_of([&] { (void)run.resume_table("t.csv", "a,b", keep); });
  EXPECT_NE(msg.find("t.csv is not a regular file but a FIFO"), std::string::npos) << msg;
  fs::remove(run.file("t.csv"));
  fs::create_directory(run.file("t.csv"));
  msg = test::error_of([&] { (void)run.resume_table("t.csv", "a,b", keep); });
  EXPECT_NE(msg.find("t.csv is not a regular file but a directory"), std::string::npos) << msg;
}

// A network file whose first unpacked bytes are not the magic is refused there, before the rest
// is unpacked: here the rest is corrupt, which a reader that unpacked first reported instead.
TEST_F(BoundedReader, ANetworkFileIsRefusedByItsMagicBeforeItIsUnpacked) {
  std::string raw = "NOTANET1";
  for (int i = 0; i < 300000; ++i) raw += static_cast<char>((i * 2654435761u) >> 24);
  uLongf packed_size = compressBound(static_cast<uLong>(raw.size())) + 64;
  std::string packed(packed_size, '\0');
  // A gzip stream (windowBits 31), then its second half overwritten with junk.
  z_stream z{};
  ASSERT_EQ(deflateInit2(&z, 6, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY), Z_OK);
  z.next_in = reinterpret_cast<Bytef*>(raw.data());
  z.avail_in = static_cast<uInt>(raw.size());
  z.next_out = reinterpret_cast<Bytef*>(packed.data());
  z.avail_out = static_cast<uInt>(packed.size());
  ASSERT_EQ(deflate(&z, Z_FINISH), Z_STREAM_END);
  packed.resize(z.total_out);
  deflateEnd(&z);
  for (std::size_t i = packed.size() / 2; i < packed.size(); ++i) packed[i] = static_cast<char>(0xA5 ^ i);
  const fs::path net = dir_ / "bad.efnet";
  write_text(net, packed);
  play::OthelloAgent agent;
  const std::string msg = test::error_of([&] { play::load_networks(agent, net); });
  EXPECT_NE(msg.find(net.string() + ": not an evalforge network file (expected EFNET001 after decompression)"),
            std::string::npos)
      << msg;
  // Above the cap (4 GiB, sparse): refused before it is opened for unpacking.
  sparse_file(net, (std::uint64_t{4} << 30) + 1);
  const std::string big = test::error_of([&] { play::load_networks(agent, net); });
  EXPECT_NE(big.find("more than the 4 GiB an evalforge network file may have"), std::string::npos) << big;
}

// Through the commands, under an address-space limit and a deadline: the reader of the issue's
// examples (score --shapes /dev/zero ended in std::bad_alloc; a FIFO blocked) and of configs
// (a directory was called "no such file").
TEST_F(BoundedReader, CommandsNameSpecialAndOversizedShapeAndConfigFiles) {
  const std::string bin = EF_EVALFORGE_BIN;
  const fs::path games = dir_ / "games.txt";
  auto [gen_status, gen_out] =
      test::run_command(bin + " data generate --games 10 --seed 1 --out " + games.string() + " 2>&1");
  ASSERT_EQ(gen_status, 0) << gen_out;
  const fs::path big_shapes = dir_ / "big.json", big_config = dir_ / "big.toml";
  sparse_file(big_shapes, std::uint64_t{1} << 30);
  sparse_file(big_config, std::uint64_t{1} << 30);
  const auto run = [&](const std::string& args) {
    return test::run_command("bash -c '" + test::address_space_limit(2'000'000) + "timeout -s KILL 20 " + bin + " " +
                             args + "' 2>&1");
  };
  const std::pair<fs::path, std::string> cases[] = {{"/dev/zero", "a character device"},
                                                    {fifo_, "a FIFO"},
                                                    {dir_, "a directory"},
                                                    {big_shapes, "more than the 64 MiB a shape file may have"}};
  for (const auto& [path, what] : cases) {
    const auto [status, msg] = run("score --shapes " + path.string() + " --data " + games.string() + " --moves 30");
    EXPECT_EQ(status, 2) << path << ": " << msg;
    EXPECT_NE(msg.find(path.string()), std::string::npos) << msg;
    EXPECT_NE(msg.find(what), std::string::npos) << msg;
  }
  const std::pair<fs::path, std::string> configs[] = {{"/dev/zero", "a character device"},
                                                      {fifo_, "a FIFO"},
                                                      {dir_, "a directory"},
                                                      {big_config, "more than the 16 MiB a config file may have"}};
  for (const auto& [path, what] : configs) {
    const auto [status, msg] = run("search --config " + path.string() + " --out " + (dir_ / "never").string());
    EXPECT_EQ(status, 2) << path << ": " << msg;
    EXPECT_NE(msg.find(path.string()), std::string::npos) << msg;
    EXPECT_NE(msg.find(what), std::string::npos) << msg;
  }
  EXPECT_FALSE(fs::exists(dir_ / "never"));
}

// What the command line prints and the Python module raises: valid UTF-8 always (Python's str
// cannot hold a stray byte, and used to get an empty message), control bytes and bytes that are
// not UTF-8 as \xNN, UTF-8 text, line breaks and tabs as they are.
TEST(DisplayableMessage, EscapesControlBytesAndBytesThatAreNotUtf8) {
  EXPECT_EQ(displayable_message("plain\tline\nnext"), "plain\tline\nnext");
  EXPECT_EQ(displayable_message("a\x1b[2J\x07 b\x7f"), "a\\x1b[2J\\x07 b\\x7f");
  EXPECT_EQ(displayable_message("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x82\xa1"),
            "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x82\xa1");
  EXPECT_EQ(displayable_message("z\xff"), "z\\xff");
  EXPECT_EQ(displayable_message("\x80\xbf"), "\\x80\\xbf");                    // stray continuation bytes
  EXPECT_EQ(displayable_message("\xc0\xaf"), "\\xc0\\xaf");                    // overlong '/'
  EXPECT_EQ(displayable_message("\xe0\x80\xaf"), "\\xe0\\x80\\xaf");           // overlong, three bytes
  EXPECT_EQ(displayable_message("\xed\xa0\x80"), "\\xed\\xa0\\x80");           // a UTF-16 surrogate
  EXPECT_EQ(displayable_message("\xf4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80");  // above U+10FFFF
  EXPECT_EQ(displayable_message("\xe2\x82"), "\\xe2\\x82");                    // cut short at the end
  EXPECT_EQ(displayable_message("\xe2\x82z"), "\\xe2\\x82z");
  EXPECT_EQ(displayable_message(std::string("a\0b", 3)), "a\\x00b");
}

// A 120 kB argument or quoted line is not echoed whole: its start and end around the number of
// bytes left out, cut between UTF-8 characters; short tokens and long messages of short words
// stay as they are.
TEST(DisplayableMessage, ElidesTheMiddleOfATokenOfMoreThan256Bytes) {
  const std::string token = "start" + std::string(120'000, 'x') + "end";
  const std::string shown = displayable_message("moves: " + token + " is not a move\nnext line");
  EXPECT_LT(shown.size(), 400u) << shown;
  EXPECT_EQ(shown.rfind("moves: startxxx", 0), 0u) << shown;
  EXPECT_NE(shown.find("[... " + std::to_string(token.size() - 160 - 48) + " bytes ...]" + std::string(45, 'x') +
                       "end is not a move\nnext line"),
            std::string::npos)
      << shown;
  const std::string words = [] {
    std::string w;
    for (int i = 0; i < 200; ++i) w += "word ";
    return w;
  }();
  EXPECT_EQ(displayable_message(words), words);
  EXPECT_EQ(displayable_message(std::string(256, 'y')), std::string(256, 'y'));
  // Two-byte characters: the cuts fall between characters, never inside one.
  std::string accents;
  for (int i = 0; i < 1000; ++i) accents += "\xc3\xa9";
  const std::string cut = displayable_message(accents);
  EXPECT_EQ(cut.find("\\x"), std::string::npos) << cut;  // nothing became an escape
  EXPECT_LT(cut.size(), 300u);
}

TEST(DisplayableMessage, CommandsEchoNoLongArgumentWhole) {
  const std::string bin = EF_EVALFORGE_BIN;
  const std::string token(120'000, 'x');
  for (const std::string& args :
       {"score --data g.txt --moves " + token, "score --data " + token + " --moves 20", "match --config " + token}) {
    const auto [status, out] = test::run_command(bin + " " + args + " 2>&1");
    EXPECT_NE(status, 0) << out.substr(0, 300);
    EXPECT_LT(out.size(), 1000u) << out.substr(0, 300);
    EXPECT_NE(out.find("bytes ...]"), std::string::npos) << out.substr(0, 300);
  }
}
