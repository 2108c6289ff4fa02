// Fetching one file over HTTP(S) (or file://) with libcurl, resumably, and what a fetched file
// goes through before it is trusted: unpacking (gzip or zip, recognised by content, as served)
// and a SHA-256 check. datasets.cpp builds the named data sets on these.
#pragma once
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include "evalforge/core/error.hpp"

namespace ef::data {

// The most bytes a download may bring, as served and as unpacked, unless the settings say
// otherwise (data/datasets.hpp: --max-mb, EF_DATA_MAX_MB, max_mb): about ten times the largest
// file of the data sets (logbook.gam, 22.9 MB unpacked), so that no known file comes near it
// while an endless body or a gzip bomb stops long before it fills a disk.
inline constexpr std::uint64_t kDefaultMaxDownloadBytes = 250'000'000;

// What the cap errors say about raising it (the command line's ways).
inline constexpr const char* kDownloadCapHint =
    "the cap on a data-set download; raise it with --max-mb N, EF_DATA_MAX_MB=N or max_mb in the settings file";

struct DownloadOptions {
  // No byte received for this long ends the transfer (a stalled server), as does a connection
  // that cannot be made in this time. The download is kept for a resume.
  int stall_seconds = 60;
  // A body longer than this, announced (Content-Length) or sent, ends the transfer before more
  // arrives, and what arrived is removed: there is nothing to resume.
  std::uint64_t max_bytes = kDefaultMaxDownloadBytes;
  // Called with (bytes so far, total bytes or 0 when unknown), at most a few times a second.
  std::function<void(std::uint64_t, std::uint64_t)> progress;
  std::function<bool()> should_stop;  // true (e.g. after SIGINT): the transfer ends, resumable
};

// download_file's error when the server cannot be reached at all (no network, a wrong host, a
// refused connection): callers add what to do without a network.
struct UnreachableError : Error {
  using Error::Error;
};

// Downloads `url` into `part`: when `part` exists, asks only for the bytes after it (an HTTP
// Range request) and appends them; a server that answers with the whole file instead (200
// rather than 206) has it written from the start. On any failure (HTTP status >= 400, a
// transfer cut short, a stall, a stop request) throws ef::Error naming the URL and what went
// wrong, keeping what arrived in `part` so that the next call resumes -- except for an HTTP
// error, where nothing useful arrived and `part` is left as it was before the call, and a body
// over options.max_bytes, after which `part` is removed. A file:// URL must name a regular file:
// a FIFO (whose open would block forever), a device or a directory is refused before it is
// opened.
void download_file(const std::string& url, const std::filesystem::path& part, const DownloadOptions& options);

// Lower-case hex SHA-256 of a file's bytes; throws ef::Error naming an unreadable file.
std::string sha256_file(const std::filesystem::path& file);

// Whether `file` starts like a gzip stream or a zip archive (what unpack_download unpacks).
bool is_packed(const std::filesystem::path& file);

// Writes the content of `download` to `target` (atomically: a partial target never exists):
// a gzip stream is decompressed, a zip archive gives its member named `member` (compared
// without case; an archive holding a single file gives that file whatever its name), anything
// else is copied as is. It streams through a small buffer into the file, so memory stays small
// whatever the content; content over `max_bytes` stops it. Throws ef::Error naming `download`
// for a damaged gzip or zip stream, a zip without the member, or content over `max_bytes`.
void unpack_download(const std::filesystem::path& download, const std::filesystem::path& target,
                     const std::string& member, std::uint64_t max_bytes = kDefaultMaxDownloadBytes);

}  // namespace ef::data
