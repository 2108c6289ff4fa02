// The public data sets of the field by name -- `logbook`, `wthor`, `wthor:1990-2015`, `ffo` --
// fetched into a cache folder, checked against the SHA-256 list shipped with evalforge
// (datasets/SHA256SUMS), and resolved to the files the readers take. Every command that takes
// game files (`--data`, a config's `[data] files`) accepts these names beside paths.
//
// Where a file comes from, in order: a URL given for that file (`--url`, or the `[urls]` table
// of the fetch settings file), a mirror (a base URL the file's served name is appended to), the
// publisher's location (docs/data.md). What is served may be plain, gzip or zip: the stored
// file is the unpacked content, and its SHA-256 must match the list.
#pragma once
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>
#include "evalforge/data/download.hpp"

namespace ef::data {

// One file of a data set, as stored in the cache: <cache>/datasets/<folder>/<name>.
struct DatasetFile {
  std::string folder;       // "logbook", "wthor", "ffo"
  std::string name;         // "logbook.gam", "WTH_2015.wtb", "WTHOR.JOU", "fforum-20-39.obf"
  std::string sha256;       // of the stored (unpacked) content
  std::string default_url;  // the publisher's location
  bool game_file = true;    // false: fetched with the set but not handed to the readers (WTHOR names)
  std::string key() const { return folder + "/" + name; }
};

// The catalog: every file of datasets/SHA256SUMS with its default URL.
const std::vector<DatasetFile>& dataset_catalog();

// The files of a data-set name; throws ef::Error for a name that is not one (listing the names)
// or a WTHOR year outside the catalog. Grammar: `logbook`; `ffo`; `wthor` (every year);
// `wthor:YEAR`, `wthor:FIRST-LAST` and comma-separated lists of those.
std::vector<DatasetFile> dataset_files(const std::string& name);
// One file of the catalog by its name ("WTH_2015.wtb") or key ("wthor/WTH_2015.wtb"); null if none.
const DatasetFile* catalog_file(const std::string& name);
// True when `text` has the shape of a data-set name (it may still name unknown years).
bool looks_like_dataset_name(const std::string& text);

struct FetchSettings {
  std::filesystem::path cache_root;         // data sets under cache_root/datasets; empty: $XDG_CACHE_HOME/evalforge
  bool offline = false;                     // never download: a missing file is an error saying where to put it
  std::string mirror;                       // base URL: a file is fetched from mirror + its served file name
  std::map<std::string, std::string> urls;  // file name ("WTH_2015.wtb") or one-file set name -> URL
  int stall_seconds = 60;                   // no data for this long ends a download (kept for a resume)
  bool verify = true;                       // false: a checksum mismatch is a warning, and the file is kept
  std::uint64_t max_bytes = kDefaultMaxDownloadBytes;  // a file bigger than this, served or unpacked, is refused
  // How the command at hand uses a file whose SHA-256 differs from the list, said in the error
  // that refuses it (`data fetch`: "--no-verify"). Empty: ways every command has (the file's
  // path instead of the name; `evalforge data fetch NAME --no-verify`).
  std::string unverified_hint;
  std::function<void(const std::string&)> say;  // progress and notes (stderr in the app); may be empty
  std::function<bool()> should_stop;            // true: a download ends, resumably

  // Defaults, then the settings file ($EF_DATASETS_CONFIG, else $XDG_CONFIG_HOME/evalforge/
  // datasets.toml or ~/.config/evalforge/datasets.toml when present: table [fetch] with cache,
  // offline, mirror, stall_seconds, verify, max_mb; table [urls] of file name = URL), then the
  // environment: EF_DATA_CACHE, EF_OFFLINE=1, EF_DATA_MIRROR, EF_DATA_MAX_MB. Throws ef::Error
  // naming the file and key (or the variable) for a bad value.
  static FetchSettings from_environment();
  std::filesystem::path datasets_dir() const;  // cache_root/datasets (cache_root resolved)
};

// Where `file` is stored; does not fetch.
std::filesystem::path stored_path(const DatasetFile& file, const FetchSettings& settings);
// The URL `file` is fetched from under `settings`.
std::string source_url(const DatasetFile& file, const FetchSettings& settings);

enum class FetchOutcome { kCached, kFetched, kUnverified };
// Makes `file` present and checked in the cache: a stored file whose checksum was already
// confirmed (a stamp beside it records size, time and digest) is used as is; a stored file
// without a stamp is checked once (unpacked first if it is a gzip or zip); a missing one is
// downloaded (resuming a partial download from the same URL), unpacked and checked. One process
// at a time fetches a file (an flock; others wait, then use what it stored). Offline, only
// file:// sources are read. Throws ef::Error saying what to do for: offline and missing, a
// download failure, a checksum mismatch (unless !settings.verify), a damaged archive.
FetchOutcome fetch_file(const DatasetFile& file, const FetchSettings& settings);

// Offline (settings.offline), every file of `files` that is neither stored nor from a file://
// source is named in one ef::Error, with where to place it; nothing happens otherwise.
void require_available_offline(const std::vector<DatasetFile>& files, const FetchSettings& settings);

// The files to read for each spec, in order: a spec that is an existing regular file is that
// file; one that is a data-set name becomes its fetched game files; any other existing path is
// passed on as is; anything else is an error naming the spec ("no such file, and not a data-set
// name ..."). Offline, every missing file of the specs is named in one error.
std::vector<std::filesystem::path> resolve_data_specs(const std::vector<std::string>& specs,
                                                      const FetchSettings& settings);
// The same under this process's settings: FetchSettings::from_environment() (read on first use),
// with notes going to the sink given to set_fetch_notes. Every command that takes game files
// resolves them through this (score, search, match, tournament, verify, data inspect).
std::vector<std::filesystem::path> resolve_data_specs(const std::vector<std::string>& specs);
// Run configs: each data-set name among `specs` (one that is not an existing path) replaced by
// its fetched game files, under this process's settings; anything else kept as written, for the
// readers to report. Used where a config's `[data] files` is read.
std::vector<std::string> expand_dataset_names(const std::vector<std::string>& specs);
// Where the process's fetch notes ("fetching ...") go; the app sends them to stderr.
void set_fetch_notes(std::function<void(const std::string&)> say);
// What ends the process's downloads early, resumably (the app: a Ctrl-C once its commands have
// installed their stop handler).
void set_fetch_stop(std::function<bool()> should_stop);

}  // namespace ef::data
