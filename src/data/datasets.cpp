#include "evalforge/data/datasets.hpp"
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <unistd.h>
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <system_error>
#include "core/toml_reader.hpp"
#include "evalforge/core/error.hpp"
#include "evalforge/core/files.hpp"
#include "evalforge/data/download.hpp"

namespace ef::data {
namespace fs = std::filesystem;

namespace {

// datasets/SHA256SUMS, embedded at build time (CMake writes it into this include).
constexpr const char* kChecksums =
#include "dataset_checksums.inc"
    ;

// The publishers' locations (docs/data.md, "Where the data comes from"). The logbook's is the
// copy, pinned to one commit, that the checksum list was made from.
constexpr const char* kLogbookUrl =
    "https://raw.githubusercontent.com/qiyiping/othello/74bbe760eefdacf3a04ad14ff75bd2cdeb451c29/database/"
    "skatgame/logbook.gam.gz";
constexpr const char* kWthorBase = "https://www.ffothello.org/wthor/base/";
constexpr const char* kFfoBase = "https://raw.githubusercontent.com/abulmo/edax-reversi/master/problem/";

std::string default_url(const std::string& folder, const std::string& name) {
  if (folder == "logbook") return kLogbookUrl;
  if (folder == "wthor") return kWthorBase + name;
  if (folder == "ffo") return kFfoBase + name;
  fail("datasets/SHA256SUMS: no source known for folder {}", folder);
}

std::vector<DatasetFile> parse_catalog() {
  std::vector<DatasetFile> files;
  std::istringstream in(kChecksums);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    const auto space = line.find("  ");
    const auto slash = line.find('/', space);
    if (space != 64 || slash == std::string::npos) fail("datasets/SHA256SUMS: malformed line '{}'", line);
    DatasetFile f;
    f.sha256 = line.substr(0, 64);
    f.folder = line.substr(space + 2, slash - space - 2);
    f.name = line.substr(slash + 1);
    f.default_url = default_url(f.folder, f.name);
    f.game_file = !(f.folder == "wthor" && f.name.rfind("WTHOR.", 0) == 0);
    files.push_back(std::move(f));
  }
  return files;
}

const DatasetFile* find_file(const std::string& folder, const std::string& name) {
  for (const DatasetFile& f : dataset_catalog())
    if (f.folder == folder && f.name == name) return &f;
  return nullptr;
}

std::pair<int, int> wthor_years() {
  int first = 9999, last = 0;
  for (const DatasetFile& f : dataset_catalog())
    if (f.folder == "wthor" && f.game_file) {
      const int year = std::atoi(f.name.substr(4, 4).c_str());
      first = std::min(first, year);
      last = std::max(last, year);
    }
  return {first, last};
}

std::string known_names() {
  const auto [first, last] = wthor_years();
  return fmt::format(
      "logbook, ffo, wthor (all of {}-{}), wthor:YEAR, wthor:FIRST-LAST, and lists like "
      "wthor:1980-1989,2001",
      first, last);
}

int parse_year(const std::string& spec, const std::string& text) {
  if (text.size() != 4 ||
      !std::all_of(text.begin(), text.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
    fail("{}: '{}' is not a year (expected 4 digits; data-set names: {})", spec, text, known_names());
  return std::atoi(text.c_str());
}

std::string stamp_line(const fs::path& file, const std::string& sha) {
  std::error_code ec;
  const auto size = fs::file_size(file, ec);
  const auto time = fs::last_write_time(file, ec).time_since_epoch().count();
  return fmt::format("{} {} {}\n", sha, size, time);
}

fs::path stamp_path(const fs::path& stored) { return stored.string() + ".sha256"; }

// The largest download cap that can be asked for (--max-mb, EF_DATA_MAX_MB, max_mb): 1 TB.
constexpr int kMaxDownloadMegabytes = 1'000'000;

std::string served_name(const std::string& url) {
  const auto end = url.find_first_of("?#");
  const std::string path = url.substr(0, end);
  const auto slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// A spec that is an existing regular file is that file, even when it is also a data-set name; a
// folder named "logbook" does not hide the data set.
bool is_path_spec(const std::string& spec) {
  std::error_code ec;
  return fs::is_regular_file(spec, ec);
}

void say(const FetchSettings& s, const std::string& line) {
  if (s.say) s.say(line);
}

}  // namespace

const std::vector<DatasetFile>& dataset_catalog() {
  static const std::vector<DatasetFile> catalog = parse_catalog();
  return catalog;
}

bool looks_like_dataset_name(const std::string& text) {
  return text == "logbook" || text == "ffo" || text == "wthor" || text.rfind("wthor:", 0) == 0;
}

const DatasetFile* catalog_file(const std::string& name) {
  for (const DatasetFile& f : dataset_catalog())
    if (f.name == name || f.key() == name) return &f;
  return nullptr;
}

std::vector<DatasetFile> dataset_files(const std::string& name) {
  std::vector<DatasetFile> out;
  const auto folder_files = [&](const std::string& folder) {
    for (const DatasetFile& f : dataset_catalog())
      if (f.folder == folder) out.push_back(f);
  };
  if (name == "logbook" || name == "ffo") {
    folder_files(name);
    return out;
  }
  if (name == "wthor") {
    folder_files("wthor");
    return out;
  }
  if (name.rfind("wthor:", 0) != 0) fail("'{}' is not a data-set name (known: {})", name, known_names());
  const auto [first_known, last_known] = wthor_years();
  std::set<int> years;
  std::string list = name.substr(6);
  if (list.empty()) fail("{}: no years after 'wthor:' (e.g. wthor:2015 or wthor:1990-2015)", name);
  std::istringstream in(list);
  std::string item;
  while (std::getline(in, item, ',')) {
    const auto dash = item.find('-');
    const int first = parse_year(name, item.substr(0, dash));
    const int last = dash == std::string::npos ? first : parse_year(name, item.substr(dash + 1));
    if (last < first) fail("{}: {} ends before it starts", name, item);
    if (first < first_known || last > last_known)
      fail(
          "{}: the checksum list holds WTHOR years {}-{} only; for other years download the files and give "
          "their paths",
          name, first_known, last_known);
    for (int y = first; y <= last; ++y) years.insert(y);
  }
  for (const char* names_file : {"WTHOR.JOU", "WTHOR.TRN"})
    if (const DatasetFile* f = find_file("wthor", names_file)) out.push_back(*f);
  for (int y : years) {
    const DatasetFile* f = find_file("wthor", fmt::format("WTH_{}.wtb", y));
    if (!f) fail("{}: WTH_{}.wtb is not in the checksum list", name, y);
    out.push_back(*f);
  }
  return out;
}

FetchSettings FetchSettings::from_environment() {
  FetchSettings s;
  std::string file;
  if (const char* e = std::getenv("EF_DATASETS_CONFIG"); e && *e) {
    file = e;
    std::error_code ec;
    if (!fs::exists(file, ec)) fail("EF_DATASETS_CONFIG: {}: no such file", file);
  } else if (const fs::path dir = xdg_directory("XDG_CONFIG_HOME", ".config"); !dir.empty()) {
    std::error_code ec;
    if (fs::is_regular_file(fs::path(dir) / "datasets.toml", ec)) file = (fs::path(dir) / "datasets.toml").string();
  }
  if (!file.empty()) {
    const toml::table root = [&] {
      try {
        return parse_toml_file(file);
      } catch (const Error& e) {  // a directory, a FIFO, an oversized file: say which setting named it
        if (std::getenv("EF_DATASETS_CONFIG")) fail("EF_DATASETS_CONFIG: {}", e.what());
        throw;
      }
    }();
    TableReader top(root, file, "");
    top.allow({"fetch", "urls"});
    if (const toml::node* n = root.get("fetch")) {
      const toml::table* t = n->as_table();
      if (!t) fail("{}: fetch: expected a table", file);
      TableReader r(*t, file, "fetch");
      r.allow({"cache", "offline", "mirror", "stall_seconds", "verify", "max_mb"});
      std::string cache;
      r.text("cache", cache);
      if (!cache.empty()) s.cache_root = cache;
      r.boolean("offline", s.offline);
      r.text("mirror", s.mirror);
      r.integer("stall_seconds", s.stall_seconds, 1, 86400);
      r.boolean("verify", s.verify);
      int max_mb = 0;
      r.integer("max_mb", max_mb, 1, kMaxDownloadMegabytes);
      if (max_mb > 0) s.max_bytes = static_cast<std::uint64_t>(max_mb) * 1'000'000;
    }
    if (const toml::node* n = root.get("urls")) {
      const toml::table* t = n->as_table();
      if (!t) fail("{}: urls: expected a table of file name = URL", file);
      for (const auto& [key, value] : *t) {
        const std::string k(key.str());
        const auto* url = value.as_string();
        if (!url) fail("{}: urls.{}: expected a URL string", file, k);
        std::size_t by_name = 0, in_set = 0;
        for (const DatasetFile& f : dataset_catalog()) {
          by_name += f.name == k;
          in_set += f.folder == k;
        }
        if (by_name == 0 && in_set != 1)
          fail(
              "{}: urls.{}: not a file of the data sets, nor a one-file set (e.g. logbook, WTH_2015.wtb; a set "
              "of several files takes [fetch] mirror)",
              file, k);
        s.urls[k] = url->get();
      }
    }
  }
  if (const char* e = std::getenv("EF_DATA_CACHE"); e && *e) s.cache_root = e;
  if (const char* e = std::getenv("EF_DATA_MIRROR"); e && *e) s.mirror = e;
  if (const char* e = std::getenv("EF_OFFLINE"); e && *e) s.offline = std::string(e) != "0";  // 0: online again
  if (const char* e = std::getenv("EF_DATA_MAX_MB"); e && *e) {
    const std::string text = e;
    const bool digits = text.size() <= 9 && std::all_of(text.begin(), text.end(), [](char c) {
                          return std::isdigit(static_cast<unsigned char>(c));
                        });
    const long mb = digits ? std::atol(text.c_str()) : 0;
    if (mb < 1 || mb > kMaxDownloadMegabytes)
      fail("EF_DATA_MAX_MB: '{}' is not a number of megabytes from 1 to {}", text, kMaxDownloadMegabytes);
    s.max_bytes = static_cast<std::uint64_t>(mb) * 1'000'000;
  }
  return s;
}

fs::path FetchSettings::datasets_dir() const {
  fs::path root = cache_root;
  if (root.empty()) root = xdg_directory("XDG_CACHE_HOME", ".cache");
  if (root.empty()) fail("no cache folder for data sets: set XDG_CACHE_HOME or HOME, or give --cache / EF_DATA_CACHE");
  return root / "datasets";
}

fs::path stored_path(const DatasetFile& file, const FetchSettings& settings) {
  return settings.datasets_dir() / file.folder / file.name;
}

std::string source_url(const DatasetFile& file, const FetchSettings& settings) {
  if (auto it = settings.urls.find(file.name); it != settings.urls.end()) return it->second;
  // A set's folder name ("logbook") stands for its file when the set has only one.
  if (auto it = settings.urls.find(file.folder); it != settings.urls.end()) {
    std::size_t in_folder = 0;
    for (const DatasetFile& f : dataset_catalog()) in_folder += f.folder == file.folder;
    if (in_folder == 1) return it->second;
  }
  if (!settings.mirror.empty()) {
    std::string base = settings.mirror;
    if (base.back() != '/') base += '/';
    return base + served_name(file.default_url);
  }
  return file.default_url;
}

namespace {

// One fetch of a file at a time, across processes (two runs starting on a fresh machine): an
// flock on <set>/.downloads/<file>.lock, held until the file is stored or the fetch failed. The
// lock files stay (removing them would race with a waiting process).
class FetchLock {
 public:
  FetchLock(const fs::path& lock_file, const FetchSettings& settings, const std::string& what) {
    std::error_code ec;
    fs::create_directories(lock_file.parent_path(), ec);
    fd_ = ::open(lock_file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0) return;  // a read-only cache: nothing will be written, so nothing to protect
    if (::flock(fd_, LOCK_EX | LOCK_NB) == 0) return;
    say(settings, fmt::format("waiting for another evalforge that is fetching {}", what));
    while (::flock(fd_, LOCK_EX) != 0 && errno == EINTR) {}
  }
  ~FetchLock() {
    if (fd_ >= 0) ::close(fd_);  // releases the lock
  }
  FetchLock(const FetchLock&) = delete;
  FetchLock& operator=(const FetchLock&) = delete;

 private:
  int fd_ = -1;
};

bool is_local_url(const std::string& url) { return url.rfind("file://", 0) == 0; }

std::string offline_message(const std::vector<const DatasetFile*>& missing, const FetchSettings& settings,
                            const char* why = "and fetching is off (--offline, EF_OFFLINE=1 or offline = true)") {
  std::string lines;
  for (const DatasetFile* f : missing)
    lines += fmt::format("\n  {} -> {}", source_url(*f, settings), stored_path(*f, settings).string());
  const DatasetFile& first = *missing.front();
  return fmt::format(
      "{} file(s) not in the cache, {}: download each elsewhere and place it, as served or unpacked, at the path "
      "given:{}\nor fetch a copy on disk (allowed offline): evalforge data fetch {} --url file:///path/to/{}, or "
      "give a mirror: --mirror URL",
      missing.size(), why, lines, first.name, served_name(source_url(first, settings)));
}

// A stored file without a valid stamp (placed by hand, or changed since it was checked):
// checked once, unpacked first when it is the gzip or zip a publisher serves.
FetchOutcome check_stored(const DatasetFile& file, const FetchSettings& settings, const fs::path& stored) {
  std::error_code ec;
  if (is_packed(stored)) {
    const fs::path unpacked = stored.string() + ".unpacked";
    unpack_download(stored, unpacked, file.name, settings.max_bytes);
    fs::rename(unpacked, stored);
  }
  const std::string sha = sha256_file(stored);
  if (sha != file.sha256) {
    if (settings.verify)
      fail("{}: SHA-256 {} but the checksum list says {} for {}: not the expected file (delete it to fetch again; {})",
           stored.string(), sha, file.sha256, file.key(),
           settings.unverified_hint.empty()
               ? fmt::format("to use it unchecked, give its path, {}, instead of the data-set name", stored.string())
               : settings.unverified_hint + " uses it anyway");
    say(settings,
        fmt::format("warning: {}: SHA-256 {} differs from the checksum list ({}); used as it is (--no-verify)",
                    stored.string(), sha, file.sha256));
    return FetchOutcome::kUnverified;
  }
  try {
    write_atomically(stamp_path(stored), stamp_line(stored, sha));
  } catch (const Error& e) {  // a read-only cache: checked again next time, no harm
    say(settings, fmt::format("note: {} is checked but its stamp cannot be written ({})", stored.string(), e.what()));
  }
  return FetchOutcome::kCached;
}

bool has_valid_stamp(const DatasetFile& file, const fs::path& stored) {
  std::error_code ec;
  if (!fs::exists(stamp_path(stored), ec)) return false;
  try {  // a stamp that is no regular file, or too large, is no valid stamp: the file is checked again
    return read_file(stamp_path(stored), FileKind::kRecord) == stamp_line(stored, file.sha256);
  } catch (const Error&) {
    return false;
  }
}

}  // namespace

FetchOutcome fetch_file(const DatasetFile& file, const FetchSettings& settings) {
  const fs::path stored = stored_path(file, settings);
  std::error_code ec;
  if (fs::is_regular_file(stored, ec) && has_valid_stamp(file, stored)) return FetchOutcome::kCached;

  const std::string url = source_url(file, settings);
  // Offline forbids the network, not a copy on disk.
  require_available_offline({file}, settings);

  const fs::path downloads = stored.parent_path() / ".downloads";
  FetchLock lock(downloads / (file.name + ".lock"), settings, file.key());
  // Another process may have stored it while this one waited for the lock.
  if (fs::is_regular_file(stored, ec))
    return has_valid_stamp(file, stored) ? FetchOutcome::kCached : check_stored(file, settings, stored);

  // A partial download belongs to the URL it came from: from another source it is dropped.
  const fs::path part = downloads / (file.name + ".part");
  const fs::path part_url = downloads / (file.name + ".url");
  if (fs::exists(part, ec)) {
    std::string recorded;
    try {  // an unreadable record: the partial download is dropped as one of another URL
      recorded = read_file(part_url, FileKind::kRecord);
    } catch (const Error&) {}
    if (recorded != url + "\n") fs::remove(part, ec);
  }
  write_atomically(part_url, url + "\n");
  say(settings, fmt::format("fetching {} from {}", file.key(), url));
  DownloadOptions options;
  options.stall_seconds = settings.stall_seconds;
  options.max_bytes = settings.max_bytes;
  options.should_stop = settings.should_stop;
  if (settings.say)
    options.progress = [&](std::uint64_t done, std::uint64_t total) {
      if (total)
        settings.say(fmt::format("  {}: {:.1f} of {:.1f} MB", file.name, done / 1e6, total / 1e6));
      else
        settings.say(fmt::format("  {}: {:.1f} MB", file.name, done / 1e6));
    };
  try {
    download_file(url, part, options);
  } catch (const UnreachableError& e) {
    fs::remove(part_url, ec);
    fail("{}\n{}", e.what(), offline_message({&file}, settings, "without a network"));
  } catch (const Error&) {
    if (!fs::exists(part, ec)) fs::remove(part_url, ec);  // nothing kept to resume
    throw;
  }
  const fs::path unverified = stored.string() + ".unverified";
  try {
    unpack_download(part, unverified, file.name, settings.max_bytes);
  } catch (const Error& e) {
    fs::remove(part, ec);  // damaged as served (or too big): a resume would only append to it
    fs::remove(part_url, ec);
    fail("{}: {}", url, e.what());
  }
  const std::string sha = sha256_file(unverified);
  FetchOutcome outcome = FetchOutcome::kFetched;
  if (sha != file.sha256) {
    if (settings.verify) {
      fs::remove(unverified, ec);
      fs::remove(part, ec);
      fail(
          "{}: SHA-256 of the content is {}, but the checksum list says {} for {}: a damaged transfer, or a "
          "different version of the file on the server (nothing was kept; {} keeps it anyway)",
          url, sha, file.sha256, file.key(),
          settings.unverified_hint.empty() ? fmt::format("`evalforge data fetch {} --no-verify`", file.name)
                                           : settings.unverified_hint);
    }
    say(settings, fmt::format("warning: {}: SHA-256 {} differs from the checksum list ({}); kept (--no-verify)", url,
                              sha, file.sha256));
    outcome = FetchOutcome::kUnverified;
  }
  fs::rename(unverified, stored);
  if (outcome == FetchOutcome::kFetched) write_atomically(stamp_path(stored), stamp_line(stored, sha));
  fs::remove(part, ec);
  fs::remove(part_url, ec);
  return outcome;
}

void require_available_offline(const std::vector<DatasetFile>& files, const FetchSettings& settings) {
  if (!settings.offline) return;
  std::vector<const DatasetFile*> missing;
  for (const DatasetFile& f : files) {
    std::error_code ec;
    if (!fs::is_regular_file(stored_path(f, settings), ec) && !is_local_url(source_url(f, settings)))
      missing.push_back(&f);
  }
  if (!missing.empty()) fail("{}", offline_message(missing, settings));
}

std::vector<fs::path> resolve_data_specs(const std::vector<std::string>& specs, const FetchSettings& settings) {
  // Offline: every missing file is named in one error, not one per run.
  if (settings.offline) {
    std::vector<DatasetFile> named;
    for (const std::string& spec : specs)
      if (!is_path_spec(spec) && looks_like_dataset_name(spec))
        for (DatasetFile& f : dataset_files(spec)) named.push_back(std::move(f));
    require_available_offline(named, settings);
  }
  std::vector<fs::path> out;
  for (const std::string& spec : specs) {
    if (is_path_spec(spec) || !looks_like_dataset_name(spec)) {
      std::error_code ec;
      if (!fs::exists(spec, ec))
        fail("{}: no such file, and not a data-set name (data-set names: {})", spec, known_names());
      out.emplace_back(spec);
      continue;
    }
    for (const DatasetFile& f : dataset_files(spec)) {
      fetch_file(f, settings);
      if (f.game_file) out.push_back(stored_path(f, settings));
    }
  }
  return out;
}

namespace {
std::function<void(const std::string&)>& fetch_notes() {
  static std::function<void(const std::string&)> say;
  return say;
}
}  // namespace

std::function<bool()>& fetch_stop() {
  static std::function<bool()> stop;
  return stop;
}

void set_fetch_notes(std::function<void(const std::string&)> say) { fetch_notes() = std::move(say); }
void set_fetch_stop(std::function<bool()> should_stop) { fetch_stop() = std::move(should_stop); }

std::vector<fs::path> resolve_data_specs(const std::vector<std::string>& specs) {
  bool any_name = false;
  for (const std::string& spec : specs) {
    std::error_code ec;
    any_name = any_name || (!is_path_spec(spec) && looks_like_dataset_name(spec));
  }
  if (!any_name) return resolve_data_specs(specs, FetchSettings{});  // no settings file read for plain paths
  FetchSettings settings = FetchSettings::from_environment();
  settings.say = [](const std::string& line) {
    if (fetch_notes() && line.rfind("  ", 0) != 0) fetch_notes()(line);  // byte counts only in `data fetch`
  };
  settings.should_stop = [] { return fetch_stop() && fetch_stop()(); };
  return resolve_data_specs(specs, settings);
}

std::vector<std::string> expand_dataset_names(const std::vector<std::string>& specs) {
  std::vector<std::string> out;
  for (const std::string& spec : specs) {
    if (is_path_spec(spec) || !looks_like_dataset_name(spec)) {
      out.push_back(spec);
      continue;
    }
    for (const fs::path& file : resolve_data_specs({spec})) out.push_back(file.string());
  }
  return out;
}

}  // namespace ef::data
