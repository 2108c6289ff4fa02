// evalforge data fetch: the public data sets by name (data/datasets.hpp), into the cache, checked
// against the shipped SHA-256 list; `data fetch --list` shows what is known and what is cached.
#include <fmt/core.h>
#include <fmt/ranges.h>
#include <unistd.h>
#include <chrono>
#include <memory>
#include <string>
#include <system_error>
#include <vector>
#include "app/commands.hpp"
#include "evalforge/core/error.hpp"
#include "evalforge/core/run_dir.hpp"
#include "evalforge/data/datasets.hpp"

namespace ef::app {
namespace {

struct FetchArgs {
  std::vector<std::string> names;
  std::string url, mirror, cache;
  bool offline = false, no_verify = false, list = false;
  int stall_seconds = 0;
  int max_mb = 0;
};

// The files of a `data fetch` name: a data-set name, or one file of the catalog by its name.
std::vector<data::DatasetFile> files_of(const std::string& name) {
  if (!data::looks_like_dataset_name(name))
    if (const data::DatasetFile* f = data::catalog_file(name)) return {*f};
  return data::dataset_files(name);
}

void list_datasets(const data::FetchSettings& s) {
  fmt::print("data sets (cache {}):\n", s.datasets_dir().string());
  fmt::print("  {:<22} {:<9} {}\n", "file", "cached", "source");
  for (const data::DatasetFile& f : data::dataset_catalog()) {
    std::error_code ec;
    const bool cached = std::filesystem::is_regular_file(data::stored_path(f, s), ec);
    fmt::print("  {:<22} {:<9} {}\n", f.key(), cached ? "yes" : "no", data::source_url(f, s));
  }
  fmt::print("names: logbook, ffo, wthor, wthor:YEAR[-YEAR][,...], or one file name (e.g. WTH_2015.wtb)\n");
}

void run_fetch(const FetchArgs& a) {
  data::FetchSettings s = data::FetchSettings::from_environment();
  if (!a.cache.empty()) s.cache_root = a.cache;
  if (!a.mirror.empty()) s.mirror = a.mirror;
  if (a.offline) s.offline = true;
  if (a.no_verify) s.verify = false;
  if (a.stall_seconds > 0) s.stall_seconds = a.stall_seconds;
  if (a.max_mb > 0) s.max_bytes = static_cast<std::uint64_t>(a.max_mb) * 1'000'000;
  s.unverified_hint = "--no-verify";
  if (a.list) {
    list_datasets(s);
    return;
  }
  if (a.names.empty()) fail("data fetch: give a data-set name (e.g. logbook, wthor:1990-2015, ffo) or --list");
  std::vector<data::DatasetFile> files;
  for (const std::string& name : a.names)
    for (data::DatasetFile& f : files_of(name)) files.push_back(std::move(f));
  if (!a.url.empty()) {
    if (files.size() != 1) {
      std::vector<std::string> keys;
      for (const auto& f : files) keys.push_back(f.name);
      fail(
          "--url names one file, but {} is {} files ({}): fetch them one by one (e.g. data fetch {} --url URL), "
          "or give --mirror BASE",
          fmt::join(a.names, " "), files.size(), fmt::join(keys, ", "), keys.back());
    }
    s.urls[files[0].name] = a.url;
  }
  data::require_available_offline(files, s);  // offline: every missing file named at once
  install_stop_signals();
  s.should_stop = [] { return stop_requested(); };
  // Progress on a terminal is one line redrawn; in a log, one line per file is enough.
  const bool tty = isatty(STDERR_FILENO) != 0;
  s.say = [tty](const std::string& line) {
    if (line.rfind("  ", 0) == 0) {
      if (tty) fmt::print(stderr, "\r{:<70}", line);
      return;
    }
    if (tty) fmt::print(stderr, "\r{:<70}\r", "");
    fmt::print(stderr, "{}\n", line);
  };
  bool all_sets = true;  // a file name (WTH_2015.wtb) is no --data name: then say the paths
  for (const std::string& name : a.names) all_sets = all_sets && data::looks_like_dataset_name(name);
  std::vector<std::string> game_paths;
  bool unverified = false;  // then only paths work: a name checks the SHA-256 again, and refuses
  for (const data::DatasetFile& f : files) {
    const auto t0 = std::chrono::steady_clock::now();
    data::FetchOutcome outcome;
    try {
      outcome = data::fetch_file(f, s);
    } catch (const Error& e) {
      if (!stop_requested()) throw;
      fmt::print(stderr, "{}\n", e.what());  // Ctrl-C: stopped, resumable, as other runs report it
      throw ExitStatus{kStoppedExitStatus};
    }
    if (f.game_file) game_paths.push_back(data::stored_path(f, s).string());
    unverified = unverified || outcome == data::FetchOutcome::kUnverified;
    if (tty) fmt::print(stderr, "\r{:<70}\r", "");
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const char* what = outcome == data::FetchOutcome::kFetched  ? "fetched, SHA-256 checked"
                       : outcome == data::FetchOutcome::kCached ? "in the cache, SHA-256 checked"
                                                                : "kept WITHOUT a matching SHA-256 (--no-verify)";
    fmt::print("{:<22} {} ({:.1f} s): {}\n", f.key(), what, seconds, data::stored_path(f, s).string());
  }
  if (all_sets && !unverified)
    fmt::print("use it with --data {}\n", fmt::join(a.names, " "));
  else if (!game_paths.empty())
    fmt::print("use it with --data {}\n", fmt::join(game_paths, " "));
}

}  // namespace

void register_data_fetch(CLI::App& app) {
  CLI::App* data = app.get_subcommand("data");
  auto a = std::make_shared<FetchArgs>();
  CLI::App* cmd = data->add_subcommand(
      "fetch", "Download a public data set (logbook, wthor[:YEARS], ffo) into the cache, checked by SHA-256");
  cmd->add_option("names", a->names, "Data-set names: logbook, ffo, wthor, wthor:1990-2015, or a file name");
  cmd->add_option("--url", a->url, "Fetch the (one) file from this URL instead (http, https or file://)");
  cmd->add_option("--mirror", a->mirror, "Base URL of a mirror: each file is fetched from BASE/<served file name>");
  cmd->add_option("--cache", a->cache, "Cache folder (default $XDG_CACHE_HOME/evalforge; data sets in its datasets/)");
  cmd->add_flag("--offline", a->offline, "Never download: only check what is in the cache, say where missing files go");
  cmd->add_flag("--no-verify", a->no_verify,
                "Keep a file whose SHA-256 differs from the checksum list (with a warning)");
  cmd->add_option("--stall-seconds", a->stall_seconds, "Give up a download after this long without data (resumable)")
      ->check(CLI::Range(1, 86400));
  cmd->add_option("--max-mb", a->max_mb,
                  "Refuse a file bigger than this many MB, as served or unpacked (default 250, about ten times the "
                  "largest known file; also EF_DATA_MAX_MB)")
      ->check(CLI::Range(1, 1'000'000));
  cmd->add_flag("--list", a->list, "List the known files, their sources and whether they are cached");
  cmd->callback([a] { run_fetch(*a); });
}

}  // namespace ef::app
