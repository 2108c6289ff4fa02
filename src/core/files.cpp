#include "evalforge/core/files.hpp"
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <utility>
#include "evalforge/core/error.hpp"

namespace ef {

namespace {

// Writes all of `bytes` to `fd` (write() may write less than asked, or be interrupted).
bool write_all(int fd, const std::string& bytes) {
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

}  // namespace

void write_atomically(const std::filesystem::path& file, const std::string& bytes) {
  const std::filesystem::path tmp = file.string() + ".tmp";
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) fail("{}: cannot write: {}", tmp.string(), std::strerror(errno));
  const bool written = write_all(fd, bytes) && ::fsync(fd) == 0;
  const int saved_errno = errno;
  ::close(fd);
  if (!written) {
    std::error_code ignored;
    std::filesystem::remove(tmp, ignored);
    fail("{}: write failed (disk full?): {}", tmp.string(), std::strerror(saved_errno));
  }
  std::error_code ec;
  std::filesystem::rename(tmp, file, ec);  // atomic on POSIX
  if (ec) fail("{}: cannot rename into place: {}", file.string(), ec.message());
  sync_directory(file.has_parent_path() ? file.parent_path() : std::filesystem::path("."));
}

AtomicFileWriter::AtomicFileWriter(std::filesystem::path file) : file_(std::move(file)) {
  tmp_ = file_.string() + ".tmp";
  fd_ = ::open(tmp_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0) fail("cannot write {}: {}", file_.string(), std::strerror(errno));
}

AtomicFileWriter::~AtomicFileWriter() {
  if (fd_ < 0) return;  // committed (or never opened)
  ::close(fd_);
  std::error_code ignored;
  std::filesystem::remove(tmp_, ignored);
}

void AtomicFileWriter::write(std::string_view bytes) {
  if (fd_ < 0) fail("{}: written after it was committed", file_.string());
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd_, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0)
      fail("cannot write {} (disk full?): {}; nothing was written under that name", file_.string(),
           std::strerror(n < 0 ? errno : ENOSPC));
    done += static_cast<std::size_t>(n);
  }
  written_ += bytes.size();
}

void AtomicFileWriter::commit() {
  if (fd_ < 0) fail("{}: committed twice", file_.string());
  const bool synced = ::fsync(fd_) == 0;
  const int saved_errno = errno;
  const bool closed = ::close(fd_) == 0;
  fd_ = -1;
  std::error_code ec;
  if (!synced || !closed) {
    std::filesystem::remove(tmp_, ec);
    fail("cannot write {} (disk full?): {}; nothing was written under that name", file_.string(),
         std::strerror(synced ? errno : saved_errno));
  }
  std::filesystem::rename(tmp_, file_, ec);  // atomic on POSIX
  if (ec) {
    std::error_code ignored;
    std::filesystem::remove(tmp_, ignored);
    fail("{}: cannot rename into place: {}", file_.string(), ec.message());
  }
  sync_directory(file_.has_parent_path() ? file_.parent_path() : std::filesystem::path("."));
}

namespace {
std::string kind_of_mode(mode_t mode) {
  if (S_ISREG(mode)) return "a regular file";
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a file";
}
}  // namespace

std::string file_kind(const std::filesystem::path& file) {
  struct stat st {};
  if (::stat(file.c_str(), &st) != 0) return std::strerror(errno);
  return kind_of_mode(st.st_mode);
}

int open_regular_file(const std::filesystem::path& file, std::uint64_t max_bytes) {
  // O_NONBLOCK: opening a FIFO without a writer returns at once instead of waiting for one.
  const int fd = ::open(file.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) fail("cannot read {}: {}", file.string(), std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const int saved_errno = errno;
    ::close(fd);
    fail("cannot read {}: {}", file.string(), std::strerror(saved_errno));
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    fail("{} is not a regular file but {}: refused (it could block or never end)", file.string(),
         kind_of_mode(st.st_mode));
  }
  if (static_cast<std::uint64_t>(st.st_size) > max_bytes) {
    ::close(fd);
    fail("{} is {} bytes, more than the {} this file may have", file.string(), st.st_size, max_bytes);
  }
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags >= 0) ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  return fd;
}

void append_durably(const std::filesystem::path& file, std::string_view bytes, bool create) {
  if (bytes.empty()) return;
  const int fd = ::open(file.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC | (create ? O_CREAT : 0), 0644);
  if (fd < 0) fail("{}: cannot append: {}", file.string(), std::strerror(errno));
  const off_t size_before = ::lseek(fd, 0, SEEK_END);
  std::size_t done = 0;
  bool ok = size_before >= 0;
  while (ok && done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    ok = n > 0;
    if (ok) done += static_cast<std::size_t>(n);
  }
  ok = ok && ::fsync(fd) == 0;
  const int saved_errno = errno;
  // A failed append takes back what it wrote, so that a later append (say, once space has been
  // freed) cannot land after half a record: the file stays a sequence of whole appends.
  if (!ok && size_before >= 0 && ::ftruncate(fd, size_before) == 0) ::fsync(fd);
  ::close(fd);
  if (!ok) fail("{}: append failed (disk full?): {}", file.string(), std::strerror(saved_errno));
}

ExclusiveLock lock_exclusively(const std::filesystem::path& file) {
  // A holder may remove the file while it still holds it (a caller whose lock file should not
  // outlive its work): a process that opened the old file before the removal then locks a file
  // no one else will open. So a lock counts only on the file that is at the path now; else it
  // is dropped and taken again on the new file.
  for (int attempt = 0;; ++attempt) {
    const int fd = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) fail("{}: cannot open the lock file: {}", file.string(), std::strerror(errno));
    auto holder = std::shared_ptr<const int>(new int(fd), [](const int* p) {
      ::close(*p);
      delete p;
    });
    ExclusiveLock lock;
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      if (errno == ENOLCK || errno == EOPNOTSUPP || errno == ENOSYS) return lock;  // no flock here
      if (errno != EWOULDBLOCK) fail("{}: cannot lock: {}", file.string(), std::strerror(errno));
      // Read through this descriptor: the holder may remove the path at any moment.
      char text[32] = {};
      const ssize_t n = ::pread(fd, text, sizeof text - 1, 0);
      std::string pid(text, n > 0 ? static_cast<std::size_t>(n) : 0);
      while (!pid.empty() && (pid.back() == '\n' || pid.back() == ' ')) pid.pop_back();
      lock.busy = true;
      if (!pid.empty() && pid.size() < 12 && pid.find_first_not_of("0123456789") == std::string::npos)
        lock.holder_pid = pid;
      return lock;
    }
    struct stat locked = {};
    struct stat at_path = {};
    const bool same = ::fstat(fd, &locked) == 0 && ::stat(file.c_str(), &at_path) == 0 &&
                      locked.st_dev == at_path.st_dev && locked.st_ino == at_path.st_ino;
    if (!same) {
      if (attempt < 100) continue;  // the old file was removed under us: lock the new one
      fail("{}: cannot lock: the file keeps being replaced", file.string());
    }
    // The holder's pid, for the other processes' messages (a hint only: the lock is the flock).
    const std::string me = std::to_string(::getpid()) + "\n";
    if (::ftruncate(fd, 0) == 0) {
      [[maybe_unused]] const ssize_t written = ::pwrite(fd, me.data(), me.size(), 0);
    }
    lock.holder = std::move(holder);
    return lock;
  }
}

void sync_directory(const std::filesystem::path& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) fail("{}: cannot open the directory: {}", dir.string(), std::strerror(errno));
  ::fsync(fd);  // EINVAL on filesystems without directory sync: nothing to do about it
  ::close(fd);
}

namespace {

constexpr std::uint64_t kKiB = 1024, kMiB = kKiB * 1024, kGiB = kMiB * 1024;
// The caps of whole-file reads, one row per kind: each far above any real file of the kind, and
// far below what would exhaust a machine's memory.
constexpr FileKindLimit kFileKinds[] = {
    {FileKind::kConfig, "a config file", 16 * kMiB},
    {FileKind::kShapes, "a shape file", 64 * kMiB},
    {FileKind::kRunTable, "a run's table", 4 * kGiB},
    {FileKind::kCheckpoint, "an evalforge run checkpoint", 4 * kGiB},
    {FileKind::kTreeSamples, "a tree-samples file", 16 * kGiB},
    {FileKind::kWthor, "a WTHOR file", 1 * kGiB},
    {FileKind::kGameCache, "a game-cache file", 16 * kGiB},
    {FileKind::kNetwork, "an evalforge network file", 4 * kGiB},
    {FileKind::kRecord, "a bookkeeping record", 64 * kKiB},
};

std::string format_size(std::uint64_t bytes) {
  if (bytes >= kGiB && bytes % kGiB == 0) return fmt::format("{} GiB", bytes / kGiB);
  if (bytes >= kMiB && bytes % kMiB == 0) return fmt::format("{} MiB", bytes / kMiB);
  if (bytes >= kKiB && bytes % kKiB == 0) return fmt::format("{} KiB", bytes / kKiB);
  return fmt::format("{} bytes", bytes);
}

// Reads from fd until `want` bytes are in `out` or the file ends; false on a read error.
bool read_some(int fd, std::string& out, std::uint64_t want) {
  char buf[1 << 16];
  while (out.size() < want) {
    const std::size_t chunk = static_cast<std::size_t>(std::min<std::uint64_t>(sizeof buf, want - out.size()));
    const ssize_t n = ::read(fd, buf, chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return false;
    if (n == 0) break;
    out.append(buf, static_cast<std::size_t>(n));
  }
  return true;
}

std::string read_whole(const std::filesystem::path& file, FileKind kind, std::string_view magic) {
  const FileKindLimit& limit = file_kind_limit(kind);
  const int fd = open_regular_file(file, kind);
  std::string out;
  bool ok = read_some(fd, out, magic.size());
  if (ok && !magic.empty() && std::string_view(out) != magic) {
    ::close(fd);
    fail("{}: not {} (expected the magic {})", file.string(), limit.what, printable(magic));
  }
  // The size known up front (after the magic: a wrong file costs nothing): the string is
  // allocated once, not doubled on the way.
  struct stat st {};
  if (::fstat(fd, &st) == 0)
    out.reserve(static_cast<std::size_t>(std::min<std::uint64_t>(st.st_size, limit.max_bytes)));
  // One byte beyond the cap: a file that grew after it was opened is refused, not cut.
  ok = ok && read_some(fd, out, limit.max_bytes + 1);
  const int saved_errno = errno;
  ::close(fd);
  if (!ok) fail("cannot read {}: {}", file.string(), std::strerror(saved_errno));
  if (out.size() > limit.max_bytes)
    fail("{} grew past the {} {} may have while it was read", file.string(), format_size(limit.max_bytes), limit.what);
  return out;
}

}  // namespace

const FileKindLimit& file_kind_limit(FileKind kind) {
  for (const FileKindLimit& k : kFileKinds)
    if (k.kind == kind) return k;
  fail("files: kind {} is not in kFileKinds (core/files.cpp)", static_cast<int>(kind));
}

int open_regular_file(const std::filesystem::path& file, FileKind kind) {
  const FileKindLimit& limit = file_kind_limit(kind);
  const int fd = open_regular_file(file, UINT64_MAX);
  struct stat st {};
  if (::fstat(fd, &st) == 0 && static_cast<std::uint64_t>(st.st_size) > limit.max_bytes) {
    ::close(fd);
    fail("{} is {} bytes, more than the {} {} may have: refused", file.string(), st.st_size,
         format_size(limit.max_bytes), limit.what);
  }
  return fd;
}

std::string read_file(const std::filesystem::path& file, FileKind kind) { return read_whole(file, kind, {}); }

std::string read_file_with_magic(const std::filesystem::path& file, FileKind kind, std::string_view magic) {
  return read_whole(file, kind, magic);
}

std::string read_file_head(const std::filesystem::path& file, FileKind kind, std::size_t bytes) {
  const int fd = open_regular_file(file, kind);
  std::string out;
  const bool ok = read_some(fd, out, bytes);
  const int saved_errno = errno;
  ::close(fd);
  if (!ok) fail("cannot read {}: {}", file.string(), std::strerror(saved_errno));
  return out;
}

std::filesystem::path xdg_directory(const char* xdg_variable, const char* fallback) {
  const char* xdg = std::getenv(xdg_variable);
  if (xdg && *xdg && std::filesystem::path(xdg).is_absolute()) return std::filesystem::path(xdg) / "evalforge";
  const char* home = std::getenv("HOME");
  if (home && *home) return std::filesystem::path(home) / fallback / "evalforge";
  return {};
}

}  // namespace ef
