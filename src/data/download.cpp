// libcurl for the transfer (HTTP(S) with redirects, ranges, timeouts, TLS from the system's CA
// store), OpenSSL's libcrypto for SHA-256, zlib and libzip for what the servers pack files in.
#include "evalforge/data/download.hpp"
#include <curl/curl.h>
#include <openssl/evp.h>
#include <sys/stat.h>
#include <zip.h>
#include <zlib.h>
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>
#include <system_error>
#include <vector>
#include "evalforge/core/error.hpp"
#include "evalforge/core/files.hpp"

namespace ef::data {
namespace fs = std::filesystem;

namespace {

void init_curl_once() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) fail("cannot initialise libcurl");
  });
}

struct FileCloser {
  void operator()(std::FILE* f) const {
    if (f) std::fclose(f);
  }
};
using File = std::unique_ptr<std::FILE, FileCloser>;

// State shared with libcurl's callbacks during one transfer.
struct Transfer {
  CURL* curl = nullptr;
  fs::path part;
  File file;
  bool resuming = false;
  bool started = false;
  std::uint64_t offset = 0;    // bytes already in `part` before this transfer
  std::uint64_t received = 0;  // bytes written by this transfer
  bool write_failed = false;
  bool stalled = false;
  bool too_large = false;  // the body, announced or sent, is over options->max_bytes
  const DownloadOptions* options = nullptr;
  std::chrono::steady_clock::time_point last_report{};
  std::chrono::steady_clock::time_point last_data = std::chrono::steady_clock::now();
  curl_off_t last_now = -1;
};

std::size_t on_write(char* data, std::size_t size, std::size_t count, void* user) {
  auto* t = static_cast<Transfer*>(user);
  const std::size_t bytes = size * count;
  if (!t->started) {
    t->started = true;
    long code = 0;
    curl_easy_getinfo(t->curl, CURLINFO_RESPONSE_CODE, &code);
    // Asked for a range, got the whole file (a server without range support): start over.
    if (t->resuming && code == 200) {
      t->file.reset(std::fopen(t->part.c_str(), "wb"));
      t->offset = 0;
      if (!t->file) {
        t->write_failed = true;
        return 0;
      }
    }
    // An announced length over the cap ends the transfer before its body arrives.
    curl_off_t length = -1;
    if (curl_easy_getinfo(t->curl, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &length) == CURLE_OK && length > 0 &&
        t->offset + static_cast<std::uint64_t>(length) > t->options->max_bytes) {
      t->too_large = true;
      return 0;
    }
  }
  // An endless body (no length announced, or a false one) ends at the cap.
  if (t->offset + t->received + bytes > t->options->max_bytes) {
    t->too_large = true;
    return 0;  // libcurl then ends the transfer with CURLE_WRITE_ERROR
  }
  // Flushed as it arrives: what a killed process received is on disk for the resume.
  if (std::fwrite(data, 1, bytes, t->file.get()) != bytes || std::fflush(t->file.get()) != 0) {
    t->write_failed = true;
    return 0;  // libcurl then ends the transfer with CURLE_WRITE_ERROR
  }
  t->received += bytes;
  return bytes;
}

int on_progress(void* user, curl_off_t total, curl_off_t now, curl_off_t, curl_off_t) {
  auto* t = static_cast<Transfer*>(user);
  if (t->options->should_stop && t->options->should_stop()) return 1;  // CURLE_ABORTED_BY_CALLBACK
  // Our own stall clock: libcurl's low-speed limit averages over several seconds, so a server
  // that sent a burst and went quiet would be given stall_seconds + ~5 s.
  const auto clock = std::chrono::steady_clock::now();
  if (now != t->last_now) {
    t->last_now = now;
    t->last_data = clock;
  } else if (clock - t->last_data >= std::chrono::seconds(t->options->stall_seconds)) {
    t->stalled = true;
    return 1;
  }
  if (t->options->progress) {
    if (clock - t->last_report >= std::chrono::milliseconds(250)) {
      t->last_report = clock;
      const auto done = t->offset + static_cast<std::uint64_t>(std::max<curl_off_t>(now, 0));
      const auto all = total > 0 ? t->offset + static_cast<std::uint64_t>(total) : 0;
      t->options->progress(done, all);
    }
  }
  return 0;
}

struct CurlDeleter {
  void operator()(CURL* c) const { curl_easy_cleanup(c); }
};

// One attempt; returns the curl code and fills `http_code`, `message`.
CURLcode transfer_once(const std::string& url, Transfer& t, long& http_code, std::string& message) {
  char error_buffer[CURL_ERROR_SIZE] = {};  // declared first: it outlives the handle that writes it
  std::unique_ptr<CURL, CurlDeleter> curl(curl_easy_init());
  if (!curl) fail("cannot start a libcurl transfer for {}", url);
  t.curl = curl.get();
  CURL* c = curl.get();
  curl_easy_setopt(c, CURLOPT_ERRORBUFFER, error_buffer);
  if (curl_easy_setopt(c, CURLOPT_URL, url.c_str()) != CURLE_OK) fail("{}: not a URL libcurl accepts", url);
  // Only these schemes, and only web ones after a redirect; a libcurl that lacks one refuses here
  // rather than leaving every protocol allowed.
  if (curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https,file") != CURLE_OK ||
      curl_easy_setopt(c, CURLOPT_REDIR_PROTOCOLS_STR, "http,https") != CURLE_OK)
    fail("{}: this libcurl cannot restrict itself to http, https and file URLs (built without https?)", url);
  curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 1L);
  curl_easy_setopt(c, CURLOPT_MAXREDIRS, 10L);
  curl_easy_setopt(c, CURLOPT_FAILONERROR, 1L);  // 4xx/5xx: an error, and no error page in the file
  curl_easy_setopt(c, CURLOPT_USERAGENT, "evalforge-data-fetch/1");
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, static_cast<long>(t.options->stall_seconds));
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_write);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &t);
  curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
  curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, on_progress);
  curl_easy_setopt(c, CURLOPT_XFERINFODATA, &t);
  if (t.resuming) curl_easy_setopt(c, CURLOPT_RESUME_FROM_LARGE, static_cast<curl_off_t>(t.offset));
  // libcurl's own check of an announced length (CURLE_FILESIZE_EXCEEDED); on_write checks what is sent.
  if (t.offset < t.options->max_bytes)
    curl_easy_setopt(c, CURLOPT_MAXFILESIZE_LARGE, static_cast<curl_off_t>(t.options->max_bytes - t.offset));
  const CURLcode code = curl_easy_perform(c);
  http_code = 0;
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &http_code);
  message = error_buffer[0] ? error_buffer : curl_easy_strerror(code);
  return code;
}

std::string megabytes(std::uint64_t bytes) { return fmt::format("{:.1f} MB", static_cast<double>(bytes) / 1e6); }

// A file:// source must be a regular file: libcurl's open() of a FIFO waits for a writer forever
// (no stall limit or signal ends it), and /dev/zero or a huge device never ends. Checked before
// libcurl opens it; a path that does not exist is left to libcurl to report.
void require_regular_local_source(const std::string& url) {
  if (url.size() < 7 || !std::equal(url.begin(), url.begin() + 7, "file://",
                                    [](char a, char b) { return std::tolower(static_cast<unsigned char>(a)) == b; }))
    return;
  std::unique_ptr<CURLU, decltype(&curl_url_cleanup)> parsed(curl_url(), curl_url_cleanup);
  char* path = nullptr;
  if (!parsed || curl_url_set(parsed.get(), CURLUPART_URL, url.c_str(), 0) != CURLUE_OK ||
      curl_url_get(parsed.get(), CURLUPART_PATH, &path, CURLU_URLDECODE) != CURLUE_OK || !path)
    fail("{}: not a file URL libcurl accepts (file:///absolute/path)", url);
  const std::string local(path);
  curl_free(path);
  struct stat st {};
  if (::stat(local.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
    fail("{}: {} is not a regular file but {}: a download reads a file, not a FIFO, device or directory", url, local,
         file_kind(local));
}

}  // namespace

void download_file(const std::string& url, const fs::path& part, const DownloadOptions& options) {
  init_curl_once();
  require_regular_local_source(url);
  if (part.has_parent_path()) {
    std::error_code ec;
    fs::create_directories(part.parent_path(), ec);
    if (ec) fail("cannot create {}: {}", part.parent_path().string(), ec.message());
  }
  for (int attempt = 0;; ++attempt) {
    Transfer t;
    t.part = part;
    t.options = &options;
    std::error_code ec;
    t.offset = fs::is_regular_file(part, ec) ? fs::file_size(part, ec) : 0;
    t.resuming = t.offset > 0;
    t.file.reset(std::fopen(part.c_str(), t.resuming ? "ab" : "wb"));
    if (!t.file) fail("cannot write {}: {}", part.string(), std::strerror(errno));
    long http_code = 0;
    std::string message;
    const CURLcode code = transfer_once(url, t, http_code, message);
    std::FILE* written = t.file.release();  // null when on_write could not reopen it
    const bool closed = written == nullptr || std::fclose(written) == 0;
    if (code == CURLE_OK) {
      if (!closed) fail("cannot write {}: {}", part.string(), std::strerror(errno));
      return;
    }
    const std::uint64_t have = t.offset + t.received;
    if (t.too_large || code == CURLE_FILESIZE_EXCEEDED) {
      fs::remove(part, ec);  // an endless body is nothing to resume
      fail("{}: the download is more than {} ({}); nothing was kept", url, megabytes(options.max_bytes),
           kDownloadCapHint);
    }
    // A server that cannot send ranges (libcurl notices before any byte is written), or a partial
    // file longer than the source (file://): fetch it whole, once.
    if ((code == CURLE_RANGE_ERROR || code == CURLE_BAD_DOWNLOAD_RESUME) && t.resuming && attempt == 0) {
      fs::remove(part, ec);
      continue;
    }
    switch (code) {
      case CURLE_HTTP_RETURNED_ERROR:
        // 416: the range after our partial file is empty or beyond the file (it is complete,
        // or the file changed on the server): fetch it whole, once.
        if (http_code == 416 && t.resuming && attempt == 0) {
          fs::remove(part, ec);
          continue;
        }
        fail("{}: the server answered HTTP {}{}", url, http_code,
             http_code == 404 ? " (not found: the file has moved, or the URL is wrong)" : "");
      case CURLE_PARTIAL_FILE:
        fail(
            "{}: the transfer was cut short after {} ({}); what arrived is kept in {}: run the same "
            "command again to resume",
            url, megabytes(have), message, part.string());
      case CURLE_ABORTED_BY_CALLBACK:
        if (!t.stalled)
          fail("{}: stopped after {}; what arrived is kept in {}: run the same command again to resume", url,
               megabytes(have), part.string());
        [[fallthrough]];
      case CURLE_OPERATION_TIMEDOUT:
        fail("{}: no data for {} s after {}; what arrived is kept in {}: run the same command again to resume", url,
             options.stall_seconds, megabytes(have), part.string());
      case CURLE_COULDNT_RESOLVE_HOST:
      case CURLE_COULDNT_RESOLVE_PROXY:
      case CURLE_COULDNT_CONNECT:
        if (have == 0) fs::remove(part, ec);  // nothing arrived: no partial file to resume
        throw UnreachableError(fmt::format("{}: cannot reach the server ({})", url, message));
      case CURLE_WRITE_ERROR: fail("cannot write {} (disk full?) while fetching {}", part.string(), url);
      default:
        fail("{}: {} (libcurl error {}); what arrived ({}) is kept in {}", url, message, static_cast<int>(code),
             megabytes(have), part.string());
    }
  }
}

std::string sha256_file(const fs::path& file) {
  File in(std::fopen(file.c_str(), "rb"));
  if (!in) fail("cannot read {}: {}", file.string(), std::strerror(errno));
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  if (!ctx || EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr) != 1) fail("cannot start a SHA-256 digest");
  std::vector<unsigned char> buffer(1 << 16);
  for (;;) {
    const std::size_t n = std::fread(buffer.data(), 1, buffer.size(), in.get());
    if (n > 0) EVP_DigestUpdate(ctx.get(), buffer.data(), n);
    if (n < buffer.size()) {
      if (std::ferror(in.get())) fail("cannot read {}: read error", file.string());
      break;
    }
  }
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_DigestFinal_ex(ctx.get(), digest, &length);
  std::string hex;
  for (unsigned int i = 0; i < length; ++i) hex += fmt::format("{:02x}", digest[i]);
  return hex;
}

namespace {

constexpr std::size_t kUnpackBuffer = 1 << 16;

[[noreturn]] void over_cap(const fs::path& download, const std::string& what, std::uint64_t max_bytes) {
  fail("{}: {} more than {} ({}); nothing was kept", download.string(), what, megabytes(max_bytes), kDownloadCapHint);
}

// Decompresses into `out` through one buffer: memory stays small whatever the stream holds.
void gunzip(const fs::path& download, AtomicFileWriter& out, std::uint64_t max_bytes) {
  gzFile gz = gzopen(download.c_str(), "rb");
  if (!gz) fail("cannot read {}", download.string());
  std::unique_ptr<gzFile_s, decltype(&gzclose)> guard(gz, gzclose);
  std::vector<char> buffer(kUnpackBuffer);
  std::uint64_t total = 0;
  int n = 0;
  while ((n = gzread(gz, buffer.data(), static_cast<unsigned>(buffer.size()))) > 0) {
    total += static_cast<std::uint64_t>(n);
    if (total > max_bytes) over_cap(download, "unpacks to", max_bytes);
    out.write(std::string_view(buffer.data(), static_cast<std::size_t>(n)));
  }
  int error = Z_OK;
  const char* message = gzerror(gz, &error);
  const std::string what = message ? message : "";
  if (n < 0 || (error != Z_OK && error != Z_STREAM_END))
    fail("{}: damaged gzip stream after {} bytes of content ({}); delete it and fetch again", download.string(), total,
         what);
}

bool same_name(std::string a, std::string b) {
  const auto lower = [](std::string& s) {
    for (char& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  };
  lower(a);
  lower(b);
  return a == b;
}

void unzip(const fs::path& download, const std::string& member, AtomicFileWriter& out, std::uint64_t max_bytes) {
  int error = 0;
  zip_t* archive = zip_open(download.c_str(), ZIP_RDONLY | ZIP_CHECKCONS, &error);
  if (!archive) {
    zip_error_t z;
    zip_error_init_with_code(&z, error);
    const std::string what = zip_error_strerror(&z);
    zip_error_fini(&z);
    fail("{}: not a readable zip archive ({}); delete it and fetch again", download.string(), what);
  }
  std::unique_ptr<zip_t, decltype(&zip_discard)> guard(archive, zip_discard);
  const zip_int64_t entries = zip_get_num_entries(archive, 0);
  zip_int64_t index = -1;
  std::vector<std::string> names;
  for (zip_int64_t i = 0; i < entries; ++i) {
    const char* name = zip_get_name(archive, static_cast<zip_uint64_t>(i), 0);
    if (!name) continue;
    names.emplace_back(name);
    if (same_name(fs::path(name).filename().string(), member)) index = i;
  }
  if (index < 0 && entries == 1) index = 0;
  if (index < 0)
    fail("{}: the zip archive holds no {} (it holds: {})", download.string(), member, fmt::join(names, ", "));
  zip_file_t* entry = zip_fopen_index(archive, static_cast<zip_uint64_t>(index), 0);
  if (!entry) fail("{}: cannot open {} in the archive: {}", download.string(), member, zip_strerror(archive));
  std::unique_ptr<zip_file_t, decltype(&zip_fclose)> entry_guard(entry, zip_fclose);
  std::vector<char> buffer(kUnpackBuffer);
  std::uint64_t total = 0;
  zip_int64_t n = 0;
  while ((n = zip_fread(entry, buffer.data(), buffer.size())) > 0) {
    total += static_cast<std::uint64_t>(n);
    if (total > max_bytes) over_cap(download, fmt::format("member {} unpacks to", member), max_bytes);
    out.write(std::string_view(buffer.data(), static_cast<std::size_t>(n)));
  }
  if (n < 0)
    fail("{}: damaged zip member {} ({}); delete it and fetch again", download.string(), member,
         zip_file_strerror(entry));
}

// A plain download, copied as it is.
void copy_plain(const fs::path& download, AtomicFileWriter& out, std::uint64_t max_bytes) {
  File in(std::fopen(download.c_str(), "rb"));
  if (!in) fail("cannot read {}: {}", download.string(), std::strerror(errno));
  std::vector<char> buffer(kUnpackBuffer);
  std::uint64_t total = 0;
  for (;;) {
    const std::size_t n = std::fread(buffer.data(), 1, buffer.size(), in.get());
    total += n;
    if (total > max_bytes) over_cap(download, "holds", max_bytes);
    out.write(std::string_view(buffer.data(), n));
    if (n < buffer.size()) {
      if (std::ferror(in.get())) fail("cannot read {}: read error", download.string());
      return;
    }
  }
}

}  // namespace

namespace {
enum class Packing { kPlain, kGzip, kZip };
Packing packing_of(const fs::path& file) {
  std::string head(4, '\0');
  File in(std::fopen(file.c_str(), "rb"));
  if (!in) fail("cannot read {}: {}", file.string(), std::strerror(errno));
  head.resize(std::fread(head.data(), 1, head.size(), in.get()));
  if (head.size() >= 2 && static_cast<unsigned char>(head[0]) == 0x1f && static_cast<unsigned char>(head[1]) == 0x8b)
    return Packing::kGzip;
  if (head.size() == 4 && head[0] == 'P' && head[1] == 'K' && (head[2] == 3 || head[2] == 5)) return Packing::kZip;
  return Packing::kPlain;
}
}  // namespace

bool is_packed(const fs::path& file) { return packing_of(file) != Packing::kPlain; }

void unpack_download(const fs::path& download, const fs::path& target, const std::string& member,
                     std::uint64_t max_bytes) {
  const Packing packing = packing_of(download);
  AtomicFileWriter out(target);  // removes target.tmp unless committed
  switch (packing) {
    case Packing::kGzip: gunzip(download, out, max_bytes); break;
    case Packing::kZip: unzip(download, member, out, max_bytes); break;
    case Packing::kPlain: copy_plain(download, out, max_bytes); break;
  }
  out.commit();
}

}  // namespace ef::data
