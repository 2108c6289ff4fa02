// `data fetch` and data-set names (data/datasets.hpp, data/download.hpp), against a loopback HTTP
// server started by each test (tests/loopback_http_server.hpp): never the internet. Expected
// digests come from coreutils' sha256sum, not from the code under test.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <zip.h>
#include <zlib.h>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include "evalforge/data/datasets.hpp"
#include "evalforge/data/download.hpp"
#include "loopback_http_server.hpp"
#include "test_support.hpp"

namespace ef {
namespace {

namespace fs = std::filesystem;
using test::LoopbackHttpServer;
using Route = LoopbackHttpServer::Route;

void write_bytes(const fs::path& file, const std::string& bytes) {
  std::ofstream out(file, std::ios::binary);
  out << bytes;
}

// sha256sum's digest of `bytes` (written to a scratch file).
std::string coreutils_sha256(const std::string& bytes, const fs::path& dir) {
  const fs::path file = dir / "digest-input";
  write_bytes(file, bytes);
  auto [status, out] = test::run_command("sha256sum '" + file.string() + "'");
  fs::remove(file);
  EXPECT_EQ(status, 0);
  return out.substr(0, 64);
}

// A few hundred kilobytes of distinct lines: room to cut a transfer short and resume it.
std::string fixture_content() {
  std::string s;
  for (int i = 0; i < 40000; ++i) s += "fixture line " + std::to_string(i * 7919 % 100003) + "\n";
  return s;
}

std::string gzip_bytes(const std::string& content, const fs::path& dir) {
  const fs::path file = dir / "fixture.gz";
  gzFile gz = gzopen(file.c_str(), "wb");
  gzwrite(gz, content.data(), static_cast<unsigned>(content.size()));
  gzclose(gz);
  std::string bytes = test::file_bytes(file);
  fs::remove(file);
  return bytes;
}

std::string zip_bytes(const std::string& member, const std::string& content, const fs::path& dir) {
  const fs::path file = dir / "fixture.zip";
  int error = 0;
  zip_t* z = zip_open(file.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &error);
  EXPECT_NE(z, nullptr);
  zip_source_t* readme = zip_source_buffer(z, "not this one\n", 13, 0);
  zip_file_add(z, "README.txt", readme, ZIP_FL_OVERWRITE);
  zip_source_t* source = zip_source_buffer(z, content.data(), content.size(), 0);
  zip_file_add(z, member.c_str(), source, ZIP_FL_OVERWRITE);
  EXPECT_EQ(zip_close(z), 0);
  std::string bytes = test::file_bytes(file);
  fs::remove(file);
  return bytes;
}

class DataFetch : public ::testing::Test {
 protected:
  void SetUp() override {
    dir = test::scratch_dir("fetch", ::testing::UnitTest::GetInstance()->current_test_info()->name());
    content = fixture_content();
    file.folder = "fixtures";
    file.name = "games.txt";
    file.sha256 = coreutils_sha256(content, dir);
    file.default_url = server.url("/games.txt");
    settings.cache_root = dir / "cache";
    settings.stall_seconds = 5;
  }
  fs::path stored() const { return data::stored_path(file, settings); }
  fs::path part() const { return stored().parent_path() / ".downloads" / "games.txt.part"; }

  LoopbackHttpServer server;
  fs::path dir;
  std::string content;
  data::DatasetFile file;
  data::FetchSettings settings;
};

TEST(Sha256, KnownDigests) {
  const fs::path d = test::scratch_dir("fetch", "sha");
  write_bytes(d / "empty", "");
  write_bytes(d / "abc", "abc");
  // FIPS 180-2 test vectors.
  EXPECT_EQ(data::sha256_file(d / "empty"), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(data::sha256_file(d / "abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_NE(test::error_of([&] { data::sha256_file(d / "missing"); }).find("missing"), std::string::npos);
}

TEST(Datasets, ChecksumListMatchesTheSharedCopies) {
  const fs::path shared = fs::path(EF_SHARED_DATA_DIR) / "othello";
  if (!fs::exists(shared / "logbook.gam.gz")) GTEST_SKIP() << "no ../shared/data";
  std::size_t checked = 0;
  for (const data::DatasetFile& f : data::dataset_catalog()) {
    std::string command;
    if (f.folder == "logbook")
      command = "zcat '" + (shared / "logbook.gam.gz").string() + "' | sha256sum";
    else if (f.folder == "wthor")
      command = "sha256sum '" + (shared / "wthor" / f.name).string() + "'";
    else if (f.folder == "ffo")
      command = "sha256sum '" + (shared / f.name).string() + "'";
    auto [status, out] = test::run_command(command);
    ASSERT_EQ(status, 0) << command;
    EXPECT_EQ(out.substr(0, 64), f.sha256) << f.key();
    ++checked;
  }
  EXPECT_EQ(checked, 1u + 39u + 2u + 1u);  // the book, WTHOR 1977-2015 with its two name files, FFO #20-#39
}

TEST(Datasets, NamesExpandToTheirFiles) {
  auto names = [](const std::string& spec) {
    std::vector<std::string> out;
    for (const auto& f : data::dataset_files(spec)) out.push_back(f.key());
    return out;
  };
  EXPECT_EQ(names("logbook"), std::vector<std::string>{"logbook/logbook.gam"});
  EXPECT_EQ(names("ffo"), std::vector<std::string>{"ffo/fforum-20-39.obf"});
  EXPECT_EQ(names("wthor:1990-1991,1995"),
            (std::vector<std::string>{"wthor/WTHOR.JOU", "wthor/WTHOR.TRN", "wthor/WTH_1990.wtb", "wthor/WTH_1991.wtb",
                                      "wthor/WTH_1995.wtb"}));
  EXPECT_EQ(names("wthor").size(), 41u);
  for (const auto& f : data::dataset_files("wthor:2015")) EXPECT_EQ(f.game_file, f.name == "WTH_2015.wtb") << f.name;
  EXPECT_NE(test::error_of([] { data::dataset_files("wthor:2030"); }).find("1977-2015"), std::string::npos);
  EXPECT_NE(test::error_of([] { data::dataset_files("wthor:15"); }).find("not a year"), std::string::npos);
  EXPECT_NE(test::error_of([] { data::dataset_files("wthor:1999-1990"); }).find("ends before it starts"),
            std::string::npos);
  EXPECT_NE(test::error_of([] { data::dataset_files("wthor:"); }).find("no years"), std::string::npos);
  EXPECT_NE(test::error_of([] { data::dataset_files("edax"); }).find("not a data-set name"), std::string::npos);
  EXPECT_NE(data::catalog_file("WTH_2015.wtb"), nullptr);
  EXPECT_EQ(data::catalog_file("WTH_2099.wtb"), nullptr);
}

TEST(Datasets, SourcesFollowUrlsThenMirrorThenPublisher) {
  data::FetchSettings s;
  const data::DatasetFile& wthor = *data::catalog_file("WTH_2015.wtb");
  EXPECT_EQ(data::source_url(wthor, s), "https://www.ffothello.org/wthor/base/WTH_2015.wtb");
  s.mirror = "http://mirror.example/othello";
  EXPECT_EQ(data::source_url(wthor, s), "http://mirror.example/othello/WTH_2015.wtb");
  const data::DatasetFile& book = *data::catalog_file("logbook.gam");
  EXPECT_EQ(data::source_url(book, s), "http://mirror.example/othello/logbook.gam.gz");  // the served name
  s.urls["WTH_2015.wtb"] = "file:///copies/2015.wtb";
  s.urls["logbook"] = "file:///copies/book.gz";  // a one-file set by its name
  EXPECT_EQ(data::source_url(wthor, s), "file:///copies/2015.wtb");
  EXPECT_EQ(data::source_url(book, s), "file:///copies/book.gz");
}

TEST_F(DataFetch, PlainFileIsFetchedCheckedAndThenServedFromTheCache) {
  server.route("/games.txt", Route{content});
  EXPECT_EQ(data::fetch_file(file, settings), data::FetchOutcome::kFetched);
  EXPECT_EQ(test::file_bytes(stored()), content);
  EXPECT_FALSE(fs::exists(part()));
  EXPECT_EQ(data::fetch_file(file, settings), data::FetchOutcome::kCached);
  EXPECT_EQ(server.requests("/games.txt").size(), 1u);  // the second call asked nothing
}

TEST_F(DataFetch, GzipAndZipAreUnpackedAsServed) {
  server.route("/games.txt.gz", Route{gzip_bytes(content, dir)});
  server.route("/games.zip", Route{zip_bytes("data/GAMES.TXT", content, dir)});
  settings.urls["games.txt"] = server.url("/games.txt.gz");
  EXPECT_EQ(data::fetch_file(file, settings), data::FetchOutcome::kFetched);
  EXPECT_EQ(test::file_bytes(stored()), content);
  fs::remove_all(settings.cache_root);
  settings.urls["games.txt"] = server.url("/games.zip");
  EXPECT_EQ(data::fetch_file(file, settings), data::FetchOutcome::kFetched);
  EXPECT_EQ(test::file_bytes(stored()), content);  // the member, not the README beside it
}

TEST_F(DataFetch, CorruptContentIsRefusedAndNothingIsKept) {
  std::string corrupt = content;
  corrupt[1000] ^= 1;
  server.route("/games.txt", Route{corrupt});
  const std::string e = test::error_of([&] { data::fetch_file(file, settings); });
  EXPECT_NE(e.find("SHA-256"), std::string::npos) << e;
  EXPECT_NE(e.find(file.sha256), std::string::npos) << e;
  EXPECT_FALSE(fs::exists(stored()));
  EXPECT_FALSE(fs::exists(part()));
  settings.verify = false;  // --no-verify keeps it, said as such
  EXPECT_EQ(data::fetch_file(file, settings), data::FetchOutcome::kUnverified);
  EXPECT_EQ(test::file_bytes(stored()), corrupt);
}

TEST_F(DataFetch, TruncatedTransferIsKeptAndResumedWithARange) {
  server.route("/games.txt", Route{content, 200, Route::Mode::kCutShort, 100000});
  const std::string e = test::error_of([&] { data::fetch_file(file, settings); });
  EXPECT_NE(e.find("cut short"), std::string::npos) << e;
  EXPECT_NE(e.find("resume"), std::string::npos) << e;
  EXPECT_EQ(fs::file_size(part()), 100000u);
  EXPECT_FALSE(fs::exists(stored()));
  server.route("/games.txt", Route{content});
  EXPECT_EQ(data::fetch_file(file, settings), data::FetchOutcome::kFetched);
  EXPECT_EQ(test::file_bytes(stored()), content);
  const auto requests = server.requests("/games.txt");
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(requests[0], "");
  EXPECT_EQ(requests[1], "bytes=100000-");  // only the missing part was asked for
}

TEST_F(DataFetch, ServerWithoutRangesGetsTheWholeFileAgain) {
  fs::create_directories(part().parent_path());
  write_bytes(part(), content.substr(0, 5000) + "garbage");
  server.route("/games.txt", Route{content, 200, Route::Mode::kIgnoreRange});
  EXPECT_EQ(data::fetch_file(file, settings), data::FetchOutcome::kFetched);
  EXPECT_EQ(test::file_bytes(stored()), content);
}

TEST_F(DataFetch, CompletePartialFileIsFetchedWholeAfterA416) {
  fs::create_directories(part().parent_path());
  write_bytes(part(), content + "extra");  // longer than the file: the range is unsatisfiable
  server.route("/games.txt", Route{content});
  EXPECT_EQ(data::fetch_file(file, settings), data::FetchOutcome::kFetched);
  EXPECT_EQ(test::file_bytes(stored()), content);
}

TEST_F(DataFetch, NotFoundNamesTheStatusAndTheUrl) {
  const std::string e = test::error_of([&] { data::fetch_file(file, settings); });
  EXPECT_NE(e.find("HTTP 404"), std::string::npos) << e;
  EXPECT_NE(e.find(server.url("/games.txt")), std::string::npos) << e;
  EXPECT_FALSE(fs::exists(stored()));
}

TEST_F(DataFetch, UnreachableServerSaysWhatToDoWithoutANetwork) {
  settings.urls["games.txt"] = "http://127.0.0.1:1/games.txt";  // port 1: nothing listens
  const std::string e = test::error_of([&] { data::fetch_file(file, settings); });
  EXPECT_NE(e.find("cannot reach the server"), std::string::npos) << e;
  EXPECT_NE(e.find(stored().string()), std::string::npos) << e;  // where to place a copy
  EXPECT_FALSE(fs::exists(part()));                              // nothing arrived, nothing to resume
}

TEST_F(DataFetch, StalledServerEndsTheTransferResumably) {
  settings.stall_seconds = 1;
  server.route("/games.txt", Route{content, 200, Route::Mode::kStall, 2000, 30000});
  const auto t0 = std::chrono::steady_clock::now();
  const std::string e = test::error_of([&] { data::fetch_file(file, settings); });
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_NE(e.find("no data for 1 s"), std::string::npos) << e;
  EXPECT_LT(seconds, 15.0);  // bounded by the stall limit, not by the server's 30 s pause
  EXPECT_EQ(fs::file_size(part()), 2000u);
  server.route("/games.txt", Route{content});
  EXPECT_EQ(data::fetch_file(file, settings), data::FetchOutcome::kFetched);
  EXPECT_EQ(server.requests("/games.txt").back(), "bytes=2000-");
  EXPECT_EQ(test::file_bytes(stored()), content);
}

TEST_F(DataFetch, StopRequestEndsTheTransferResumably) {
  // Stop once the first 3,000 bytes are on disk (the server pauses there).
  settings.should_stop = [this] {
    std::error_code ec;
    return fs::file_size(part(), ec) >= 3000 && !ec;
  };
  server.route("/games.txt", Route{content, 200, Route::Mode::kStall, 3000, 20000});
  const std::string e = test::error_of([&] { data::fetch_file(file, settings); });
  EXPECT_NE(e.find("stopped"), std::string::npos) << e;
  EXPECT_FALSE(fs::exists(stored()));
  EXPECT_EQ(fs::file_size(part()), 3000u);
  settings.should_stop = nullptr;
  server.route("/games.txt", Route{content});
  EXPECT_EQ(data::fetch_file(file, settings), data::FetchOutcome::kFetched);
  EXPECT_EQ(server.requests("/games.txt").back(), "bytes=3000-");
  EXPECT_EQ(test::file_bytes(stored()), content);
}

TEST_F(DataFetch, PartialDownloadFromAnotherSourceIsDropped) {
  fs::create_directories(part().parent_path());
  write_bytes(part(), "bytes of some other file");
  write_bytes(part().parent_path() / "games.txt.url", "http://127.0.0.1:1/elsewhere\n");
  server.route("/games.txt", Route{content});
  EXPECT_EQ(data::fetch_file(file, settings), data::FetchOutcome::kFetched);
  EXPECT_EQ(server.requests("/games.txt"), std::vector<std::string>{""});  // whole, no range
  EXPECT_EQ(test::file_bytes(stored()), content);
}

TEST_F(DataFetch, TwoFetchesOfOneFileAtOnceDownloadItOnce) {
  server.route("/games.txt", Route{content, 200, Route::Mode::kStall, 1000, 500});
  data::FetchOutcome first{}, second{};
  std::thread other([&] { first = data::fetch_file(file, settings); });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  second = data::fetch_file(file, settings);
  other.join();
  EXPECT_EQ(test::file_bytes(stored()), content);
  EXPECT_EQ(server.requests("/games.txt").size(), 1u);  // the other waited, then used the stored file
  EXPECT_EQ(int(first) + int(second), int(data::FetchOutcome::kFetched) + int(data::FetchOutcome::kCached));
}

TEST_F(DataFetch, OfflineSaysWhichFileGoesWhere) {
  settings.offline = true;
  const std::string e = test::error_of([&] { data::fetch_file(file, settings); });
  EXPECT_NE(e.find(stored().string()), std::string::npos) << e;
  EXPECT_NE(e.find(server.url("/games.txt")), std::string::npos) << e;
  EXPECT_NE(e.find("--url file://"), std::string::npos) << e;
  EXPECT_TRUE(server.requests("/games.txt").empty());
  // What the message suggests works offline: a copy on disk is no network.
  write_bytes(dir / "copy.txt", content);
  settings.urls["games.txt"] = "file://" + (dir / "copy.txt").string();
  EXPECT_EQ(data::fetch_file(file, settings), data::FetchOutcome::kFetched);
  EXPECT_EQ(test::file_bytes(stored()), content);
}

TEST_F(DataFetch, OfflineNamesEveryMissingFileAtOnce) {
  settings.offline = true;
  const std::string e = test::error_of([&] { data::resolve_data_specs({"wthor:2014-2015"}, settings); });
  for (const char* name : {"WTHOR.JOU", "WTHOR.TRN", "WTH_2014.wtb", "WTH_2015.wtb"})
    EXPECT_NE(e.find((settings.datasets_dir() / "wthor" / name).string()), std::string::npos) << name << ": " << e;
  EXPECT_NE(e.find("4 file(s)"), std::string::npos) << e;
}

TEST_F(DataFetch, FolderNamedLikeADataSetDoesNotHideIt) {
  const fs::path before = fs::current_path();
  fs::create_directories(dir / "work" / "ffo");
  fs::current_path(dir / "work");
  settings.offline = true;
  const std::string e = test::error_of([&] { data::resolve_data_specs({"ffo"}, settings); });
  fs::current_path(before);
  EXPECT_NE(e.find("fforum-20-39.obf"), std::string::npos) << e;  // the data set, not the folder
}

TEST_F(DataFetch, FilePlacedByHandIsCheckedOnceAsServedOrUnpacked) {
  settings.offline = true;
  fs::create_directories(stored().parent_path());
  write_bytes(stored(), gzip_bytes(content, dir));  // the publisher's gzip, under the stored name
  EXPECT_EQ(data::fetch_file(file, settings), data::FetchOutcome::kCached);
  EXPECT_EQ(test::file_bytes(stored()), content);
  EXPECT_TRUE(fs::exists(stored().string() + ".sha256"));
  write_bytes(stored(), "something else\n");  // changed since: checked again, and refused
  const std::string e = test::error_of([&] { data::fetch_file(file, settings); });
  EXPECT_NE(e.find("not the expected file"), std::string::npos) << e;
  EXPECT_NE(e.find(stored().string()), std::string::npos) << e;
}

TEST_F(DataFetch, LocalCopiesComeThroughFileUrls) {
  write_bytes(dir / "copy.txt", content);
  settings.urls["games.txt"] = "file://" + (dir / "copy.txt").string();
  EXPECT_EQ(data::fetch_file(file, settings), data::FetchOutcome::kFetched);
  EXPECT_EQ(test::file_bytes(stored()), content);
  settings.urls["games.txt"] = "file://" + (dir / "absent.txt").string();
  fs::remove_all(settings.cache_root);
  EXPECT_NE(test::error_of([&] { data::fetch_file(file, settings); }).find("absent.txt"), std::string::npos);
}

TEST_F(DataFetch, SettingsFileIsCheckedKeyByKey) {
  const fs::path config = dir / "datasets.toml";
  write_bytes(config,
              "[fetch]\nmirror = \"http://127.0.0.1:1/m\"\noffline = true\nstall_seconds = 7\n"
              "[urls]\n\"WTH_2015.wtb\" = \"file:///x.wtb\"\n");
  ::setenv("EF_DATASETS_CONFIG", config.c_str(), 1);
  const data::FetchSettings s = data::FetchSettings::from_environment();
  EXPECT_EQ(s.mirror, "http://127.0.0.1:1/m");
  EXPECT_TRUE(s.offline);
  EXPECT_EQ(s.stall_seconds, 7);
  EXPECT_EQ(s.urls.at("WTH_2015.wtb"), "file:///x.wtb");
  write_bytes(config, "[fetch]\nmirrors = \"x\"\n");
  EXPECT_NE(test::error_of([] { data::FetchSettings::from_environment(); }).find("unknown key fetch.mirrors"),
            std::string::npos);
  write_bytes(config, "[urls]\n\"WTH_2099.wtb\" = \"x\"\n");
  EXPECT_NE(test::error_of([] { data::FetchSettings::from_environment(); }).find("urls.WTH_2099.wtb"),
            std::string::npos);
  write_bytes(config, "[urls]\nwthor = \"http://127.0.0.1:1/\"\n");  // a set of many files: a mirror's job
  EXPECT_NE(test::error_of([] { data::FetchSettings::from_environment(); }).find("urls.wthor"), std::string::npos);
  write_bytes(config, "[fetch]\noffline = true\n");
  ::setenv("EF_OFFLINE", "0", 1);  // the environment wins over the file, both ways
  EXPECT_FALSE(data::FetchSettings::from_environment().offline);
  ::unsetenv("EF_OFFLINE");
  EXPECT_TRUE(data::FetchSettings::from_environment().offline);
  ::unsetenv("EF_DATASETS_CONFIG");
}

TEST_F(DataFetch, SpecsArePathsOrNames) {
  write_bytes(dir / "mine.txt", "x");
  EXPECT_EQ(data::resolve_data_specs({(dir / "mine.txt").string()}, settings), std::vector<fs::path>{dir / "mine.txt"});
  const std::string e = test::error_of([&] { data::resolve_data_specs({(dir / "absent.txt").string()}, settings); });
  EXPECT_NE(e.find("no such file, and not a data-set name"), std::string::npos) << e;
  settings.offline = true;  // a name with nothing cached: the offline message, no request
  EXPECT_NE(test::error_of([&] { data::resolve_data_specs({"ffo"}, settings); }).find("fforum-20-39.obf"),
            std::string::npos);
}

// ---- Bounded downloads ------------------------------------------------------------------------

// A gzip stream that unpacks to `members` x 64 MiB of zeros: one member of a few dozen KiB,
// repeated (concatenated members are one stream to gunzip and zlib's gzread).
std::string gzip_bomb(int members, const fs::path& dir) {
  const std::string member = gzip_bytes(std::string(std::size_t{64} << 20, '\0'), dir);
  std::string bomb;
  for (int i = 0; i < members; ++i) bomb += member;
  return bomb;
}

TEST_F(DataFetch, EndlessBodyStopsAtTheCapAndNothingIsKept) {
  server.route("/games.txt", Route{std::string(1 << 16, 'x'), 200, Route::Mode::kEndless});
  settings.max_bytes = 2'000'000;
  const auto t0 = std::chrono::steady_clock::now();
  const std::string e = test::error_of([&] { data::fetch_file(file, settings); });
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 30.0);
  EXPECT_NE(e.find(server.url("/games.txt")), std::string::npos) << e;
  EXPECT_NE(e.find("more than 2.0 MB"), std::string::npos) << e;
  EXPECT_NE(e.find("--max-mb"), std::string::npos) << e;  // says how to raise the cap
  EXPECT_FALSE(fs::exists(stored()));
  EXPECT_FALSE(fs::exists(part()));  // an endless body is no partial download to resume
}

TEST_F(DataFetch, HugeContentLengthIsRefusedBeforeTheBody) {
  server.route("/games.txt",
               Route{std::string(1 << 16, 'x'), 200, Route::Mode::kEndless, 0, 0, std::uint64_t{1} << 50});
  settings.max_bytes = 2'000'000;
  const std::string e = test::error_of([&] { data::fetch_file(file, settings); });
  EXPECT_NE(e.find(server.url("/games.txt")), std::string::npos) << e;
  EXPECT_NE(e.find("more than 2.0 MB"), std::string::npos) << e;
  EXPECT_FALSE(fs::exists(part()));
  EXPECT_FALSE(fs::exists(stored()));
}

TEST_F(DataFetch, GzipBombStopsAtTheCapNamingTheFile) {
  server.route("/games.txt.gz", Route{gzip_bomb(4, dir)});  // 256 MiB unpacked
  settings.urls["games.txt"] = server.url("/games.txt.gz");
  settings.max_bytes = 8'000'000;
  const std::string e = test::error_of([&] { data::fetch_file(file, settings); });
  EXPECT_NE(e.find(server.url("/games.txt.gz")), std::string::npos) << e;
  EXPECT_NE(e.find("unpacks to more than 8.0 MB"), std::string::npos) << e;
  EXPECT_FALSE(fs::exists(stored()));
  EXPECT_FALSE(fs::exists(stored().string() + ".unverified"));
  EXPECT_FALSE(fs::exists(stored().string() + ".unverified.tmp"));
  EXPECT_FALSE(fs::exists(part()));
  // The same bytes placed by hand in the cache: the same bound, naming the file.
  fs::create_directories(stored().parent_path());
  write_bytes(stored(), gzip_bomb(1, dir));
  settings.offline = true;
  const std::string placed = test::error_of([&] { data::fetch_file(file, settings); });
  EXPECT_NE(placed.find(stored().string()), std::string::npos) << placed;
  EXPECT_NE(placed.find("unpacks to more than 8.0 MB"), std::string::npos) << placed;
}

TEST_F(DataFetch, UnpackingStreamsWithinItsBound) {
  // Exactly at the bound is fine, one byte more is not; gzip, zip and plain alike.
  const std::string plain = content;
  const fs::path gz = dir / "in.gz", zip = dir / "in.zip", raw = dir / "in.txt", out = dir / "out.txt";
  write_bytes(gz, gzip_bytes(plain, dir));
  write_bytes(zip, zip_bytes("games.txt", plain, dir));
  write_bytes(raw, plain);
  for (const fs::path& in : {gz, zip, raw}) {
    data::unpack_download(in, out, "games.txt", plain.size());
    EXPECT_EQ(test::file_bytes(out), plain) << in;
    fs::remove(out);
    const std::string e = test::error_of([&] { data::unpack_download(in, out, "games.txt", plain.size() - 1); });
    EXPECT_NE(e.find(in.string()), std::string::npos) << e;
    EXPECT_NE(e.find("more than"), std::string::npos) << e;
    EXPECT_FALSE(fs::exists(out)) << in;
    EXPECT_FALSE(fs::exists(out.string() + ".tmp")) << in;
  }
}

TEST(Datasets, DownloadCapIsTheLargestFileTimesAMarginAndConfigurable) {
  // logbook.gam, the largest file of the catalog, is 22,887,603 bytes unpacked.
  EXPECT_GE(data::kDefaultMaxDownloadBytes, 10u * 22'887'603u);
  EXPECT_EQ(data::FetchSettings{}.max_bytes, data::kDefaultMaxDownloadBytes);
  const fs::path d = test::scratch_dir("fetch", "cap");
  write_bytes(d / "datasets.toml", "[fetch]\nmax_mb = 40\n");
  ::setenv("EF_DATASETS_CONFIG", (d / "datasets.toml").c_str(), 1);
  EXPECT_EQ(data::FetchSettings::from_environment().max_bytes, 40'000'000u);
  ::setenv("EF_DATA_MAX_MB", "7", 1);  // the environment wins over the file
  EXPECT_EQ(data::FetchSettings::from_environment().max_bytes, 7'000'000u);
  ::setenv("EF_DATA_MAX_MB", "-3", 1);
  EXPECT_NE(test::error_of([] { data::FetchSettings::from_environment(); }).find("EF_DATA_MAX_MB"), std::string::npos);
  ::unsetenv("EF_DATA_MAX_MB");
  write_bytes(d / "datasets.toml", "[fetch]\nmax_mb = 0\n");
  EXPECT_NE(test::error_of([] { data::FetchSettings::from_environment(); }).find("max_mb"), std::string::npos);
  ::unsetenv("EF_DATASETS_CONFIG");
}

// The command under a 1 GB address-space limit (ulimit -v): a gzip bomb of 2 GiB and an endless
// body end with an error naming the URL, exit 2 -- not std::bad_alloc (exit 3), not a full disk.
TEST_F(DataFetch, CommandStaysWithinAMemoryLimitOnHostileDownloads) {
  server.route("/logbook.gam.gz", Route{gzip_bomb(32, dir)});
  server.route("/endless", Route{std::string(1 << 16, 'x'), 200, Route::Mode::kEndless});
  const std::string bin = EF_EVALFORGE_BIN;
  const std::string cache = (dir / "cli-cache").string();
  const auto limited = [&](const std::string& command) {
    return test::run_command("bash -c '" + test::address_space_limit(1'000'000) + "ulimit -f 2000000; " + command +
                             "' 2>&1");
  };
  auto [bomb, out] = limited(bin + " data fetch logbook --cache " + cache + " --url " + server.url("/logbook.gam.gz") +
                             " --max-mb 64");
  EXPECT_EQ(bomb, 2) << out;
  EXPECT_NE(out.find(server.url("/logbook.gam.gz")), std::string::npos) << out;
  EXPECT_NE(out.find("unpacks to more than 64.0 MB"), std::string::npos) << out;
  EXPECT_EQ(out.find("internal error"), std::string::npos) << out;
  auto [endless, out2] =
      limited("EF_DATA_MAX_MB=5 " + bin + " data fetch logbook --cache " + cache + " --url " + server.url("/endless"));
  EXPECT_EQ(endless, 2) << out2;
  EXPECT_NE(out2.find(server.url("/endless")), std::string::npos) << out2;
  EXPECT_NE(out2.find("more than 5.0 MB"), std::string::npos) << out2;
  EXPECT_FALSE(fs::exists(fs::path(cache) / "datasets" / "logbook" / "logbook.gam"));
}

// Local sources that are not regular files (a FIFO would block the open forever, /dev/zero
// never ends) are refused before anything is opened.
TEST_F(DataFetch, NonRegularLocalSourcesAreRefusedBeforeOpening) {
  const fs::path fifo = dir / "fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const std::string bin = EF_EVALFORGE_BIN;
  const std::string cache = (dir / "cli-cache").string();
  for (const std::string& source : {fifo.string(), std::string("/dev/zero"), dir.string()}) {
    // SIGKILL: the command installs a SIGTERM handler (a clean stop), which a blocked open ignores.
    auto [status, out] =
        test::run_command("bash -c 'ulimit -f 200000; timeout -s KILL 20 " + bin + " data fetch logbook --cache " +
                          cache + " --url file://" + source + "' 2>&1");
    EXPECT_EQ(status, 2) << source << ": " << out;
    EXPECT_NE(out.find(source), std::string::npos) << out;
    EXPECT_NE(out.find("not a regular file"), std::string::npos) << out;
  }
}

// Offline, `data fetch` names every missing file of the names given, as `score` does.
TEST_F(DataFetch, OfflineFetchCommandNamesEveryMissingFile) {
  const std::string bin = EF_EVALFORGE_BIN;
  const fs::path cache = dir / "cli-cache";
  auto [status, out] =
      test::run_command(bin + " data fetch wthor:2014-2015 --offline --cache " + cache.string() + " 2>&1");
  EXPECT_EQ(status, 2) << out;
  for (const char* name : {"WTHOR.JOU", "WTHOR.TRN", "WTH_2014.wtb", "WTH_2015.wtb"})
    EXPECT_NE(out.find((cache / "datasets" / "wthor" / name).string()), std::string::npos) << name << ": " << out;
  EXPECT_NE(out.find("4 file(s)"), std::string::npos) << out;
}

// After `data fetch --no-verify`, what the commands say to do works: the fetch names the path to
// use (the name checks the SHA-256 again, and refuses), and a command given the name says how to
// use the file with options it has.
TEST_F(DataFetch, UnverifiedFileGetsHintsTheUsingCommandsAccept) {
  const std::string bin = EF_EVALFORGE_BIN;
  const fs::path cache = dir / "cli-cache";
  const fs::path book = dir / "book.gam";
  write_bytes(book,
              "+d3-c3+c4-e3+c2-b3+d2-e1+d1-c1+f4-d6+e6-g4+b2-f6+d7-c8+e7-d8+f3-f5+g5-h4+h6-f2+f7-h5+g6-c6+c5-c7+b6-"
              "b5+b4-e8+h3-g3+h2-e2+h7-g2+b1-a1+h1-a2+a3-g7+f8-h8+g8-a4+g1-f1+a6-a5+a7-a8+b8-b7: -04 10\n");
  auto [fetched, out] = test::run_command(bin + " data fetch logbook --no-verify --cache " + cache.string() +
                                          " --url file://" + book.string() + " 2>&1");
  ASSERT_EQ(fetched, 0) << out;
  const fs::path stored_book = cache / "datasets" / "logbook" / "logbook.gam";
  EXPECT_NE(out.find("use it with --data " + stored_book.string()), std::string::npos) << out;
  EXPECT_EQ(out.find("use it with --data logbook"), std::string::npos) << out;
  const std::string env = "EF_OFFLINE=1 EF_DATA_CACHE=" + cache.string() + " ";
  auto [inspected, out2] = test::run_command(env + bin + " data inspect logbook --no-cache 2>&1");
  EXPECT_EQ(inspected, 2) << out2;
  EXPECT_NE(out2.find("SHA-256"), std::string::npos) << out2;
  EXPECT_EQ(out2.find("--no-verify"), std::string::npos) << out2;  // inspect has no such option
  EXPECT_NE(out2.find(stored_book.string()), std::string::npos) << out2;
  // The hint: the path instead of the name, which inspect and score take.
  auto [by_path, out3] = test::run_command(env + bin + " data inspect " + stored_book.string() + " --no-cache 2>&1");
  EXPECT_EQ(by_path, 0) << out3;
}

// The command as a user types it: fetch the real book from a local server, then train on it by
// name with no network allowed.
TEST_F(DataFetch, CommandFetchesTheBookAndScoreUsesItByName) {
  const fs::path book = fs::path(EF_SHARED_DATA_DIR) / "othello" / "logbook.gam.gz";
  if (!fs::exists(book)) GTEST_SKIP() << "no ../shared/data";
  server.route("/logbook.gam.gz", Route{test::file_bytes(book)});
  const std::string bin = EF_EVALFORGE_BIN;
  const std::string cache = (dir / "cli-cache").string();
  auto [status, out] =
      test::run_command(bin + " data fetch logbook --cache " + cache + " --mirror " + server.base() + " 2>&1");
  ASSERT_EQ(status, 0) << out;
  EXPECT_NE(out.find("fetched, SHA-256 checked"), std::string::npos) << out;
  auto [again, out2] = test::run_command(bin + " data fetch logbook --offline --cache " + cache + " 2>&1");
  EXPECT_EQ(again, 0) << out2;
  EXPECT_NE(out2.find("in the cache"), std::string::npos) << out2;
  auto [scored, table] = test::run_command("EF_OFFLINE=1 EF_DATA_CACHE=" + cache + " " + bin +
                                           " score --data logbook --moves 40 --epochs 1 --no-cache 2>&1");
  EXPECT_EQ(scored, 0) << table;
  EXPECT_NE(table.find("121123 games"), std::string::npos) << table;
  // Errors: a name that is not one, --url for several files, offline with nothing cached.
  auto [bad, e1] = test::run_command(bin + " data fetch wthor:1800 --cache " + cache + " 2>&1");
  EXPECT_EQ(bad, 2);
  EXPECT_NE(e1.find("1977-2015"), std::string::npos) << e1;
  auto [many, e2] =
      test::run_command(bin + " data fetch wthor:2014-2015 --url http://127.0.0.1:1/x --cache " + cache + " 2>&1");
  EXPECT_EQ(many, 2);
  EXPECT_NE(e2.find("--url names one file"), std::string::npos) << e2;
  auto [offline, e3] = test::run_command(bin + " data fetch ffo --offline --cache " + cache + " 2>&1");
  EXPECT_EQ(offline, 2);
  EXPECT_NE(e3.find((fs::path(cache) / "datasets" / "ffo" / "fforum-20-39.obf").string()), std::string::npos) << e3;
}

}  // namespace
}  // namespace ef
