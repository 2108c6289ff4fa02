// Whole-file reads and atomic writes, for run directories, agents, configs and game files.
#pragma once
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

namespace ef {

enum class FileKind;  // below, with read_file

// Writes `bytes` to FILE.tmp, fsyncs it, renames it over `file` and fsyncs the directory: a
// crash leaves the old file or the new one, never half of either, and once this returns the
// new file survives a power cut (run directories rely on that ordering: a checkpoint's parts
// are on disk before the file that commits them). Throws ef::Error naming the file.
void write_atomically(const std::filesystem::path& file, const std::string& bytes);
// Appends `bytes` to `file` and fsyncs it: once this returns they survive a crash or a power
// cut. A failed append is truncated away again before the error is thrown; a crash during the
// call may still leave a prefix of them at the end (a reader drops a torn last line or
// record). `create`: make the file when it does not exist (else that is an error: an
// append-only table without its header would lose rows). Throws ef::Error naming the file.
void append_durably(const std::filesystem::path& file, std::string_view bytes, bool create);
// An exclusive flock on `file` (created when missing), for "one process at a time" rules: the
// kernel drops it when the holder dies, even by kill -9, so a crash leaves nothing to clean up.
// `holder` keeps it (its copies share it; the last one unlocks). On a file system without flock
// (some NFS, FUSE or SMB mounts) `holder` is null and nothing is locked: callers go on unlocked
// rather than refuse to work there. When another process holds it, `busy` is set and
// `holder_pid` is the pid that process wrote into the file (a hint for messages, or empty).
// Throws ef::Error naming the file when it cannot be opened or locked for another reason.
struct ExclusiveLock {
  std::shared_ptr<const int> holder;
  bool busy = false;
  std::string holder_pid;
};
ExclusiveLock lock_exclusively(const std::filesystem::path& file);
// A file written piece by piece (too large to hold in memory at once: game files, unpacked
// downloads) with the guarantee of write_atomically: the pieces go to FILE.tmp, and commit()
// fsyncs it and renames it over `file`. Until then nothing exists under the final name, so a
// full disk or an exception never leaves a partial file there; a writer destroyed without
// commit() removes FILE.tmp. Throws ef::Error naming the file.
class AtomicFileWriter {
 public:
  explicit AtomicFileWriter(std::filesystem::path file);
  ~AtomicFileWriter();
  AtomicFileWriter(const AtomicFileWriter&) = delete;
  AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;
  void write(std::string_view bytes);
  void commit();
  std::uint64_t bytes_written() const { return written_; }

 private:
  std::filesystem::path file_, tmp_;
  int fd_ = -1;
  std::uint64_t written_ = 0;
};
// Opens `file` for reading when it is a regular file of at most `max_bytes` bytes, and refuses
// anything else before reading a byte: a FIFO (whose open would wait for a writer forever), a
// device such as /dev/zero (which never ends), a directory. The open itself cannot block
// (O_NONBLOCK, cleared once the file is known to be regular). Returns the descriptor
// (close-on-exec), which the caller closes; throws ef::Error naming the file and what it is.
int open_regular_file(const std::filesystem::path& file, std::uint64_t max_bytes);
// The same with the cap of a kind of file, whose name the size error gives ("... more than the
// 16 MiB a config file may have").
int open_regular_file(const std::filesystem::path& file, FileKind kind);
// What a path is, for messages: "a FIFO", "a directory", "a character device", ...
std::string file_kind(const std::filesystem::path& file);
// What a file read whole holds, and so the most bytes it may have. Every whole-file read of a
// user-named or run-directory file says its kind (read_file): a FIFO, a device or a directory is
// refused before a byte is read, and a file larger than its kind's cap before it is read, so no
// such file can block a command, feed it without end or make it allocate without bound.
enum class FileKind {
  kConfig,       // a TOML config; a run directory's config.toml and run.toml
  kShapes,       // a shape file (JSON or TOML)
  kRunTable,     // a run directory's CSV table (metrics.csv, games.csv, rounds.csv, ...)
  kCheckpoint,   // a run directory's checkpoint
  kTreeSamples,  // the exact solver's tree samples and their journal (evalforge ordering)
  kWthor,        // a WTHOR game file (a few hundred KiB each)
  kGameCache,    // the binary cache of parsed game files (~/.cache/evalforge)
  kNetwork,      // an agent's network file (.efnet, gzip-compressed): compressed and unpacked
  kRecord,       // small bookkeeping files: a data set's .sha256 stamp, a download's .url
};
struct FileKindLimit {
  FileKind kind;
  const char* what;  // for messages: "a config file"
  std::uint64_t max_bytes;
};
// The caps, one row per kind (files.cpp, kFileKinds).
const FileKindLimit& file_kind_limit(FileKind kind);
// The whole file, read through open_regular_file with its kind's cap; throws ef::Error naming
// the file (and what it should have been) when it is not a regular file, is too large or cannot
// be read.
std::string read_file(const std::filesystem::path& file, FileKind kind);
// As read_file, but the first magic.size() bytes are read and compared with `magic` before the
// rest: a large file of the wrong kind is refused without reading it. The error says
// "<file>: not <what> (expected the magic <magic>)".
std::string read_file_with_magic(const std::filesystem::path& file, FileKind kind, std::string_view magic);
// The first `bytes` bytes of the file (fewer when it is shorter), through the same checks.
std::string read_file_head(const std::filesystem::path& file, FileKind kind, std::size_t bytes);
// fsync of a directory, so that a rename or a new file in it is durable. Throws ef::Error
// naming the directory when it cannot be opened; filesystems that cannot sync a directory are
// accepted silently (there is nothing better to do).
void sync_directory(const std::filesystem::path& dir);
// evalforge's folder under an XDG base directory: $<xdg_variable>/evalforge when that variable is
// an absolute path (the spec says a relative one is invalid and must be ignored), else
// $HOME/<fallback>/evalforge; empty when neither is set. E.g. ("XDG_CACHE_HOME", ".cache").
std::filesystem::path xdg_directory(const char* xdg_variable, const char* fallback);

}  // namespace ef
