// The controller side of GTP: an external engine run as a child process (`/bin/sh -c COMMAND`)
// that we send commands to and read responses from.
//
// An external engine is untrusted: it may hang, die, print garbage or never read its input. So
//  - every command has a deadline; reads and writes are non-blocking and wait in poll(), so no
//    call blocks past it;
//  - on a timeout the engine is killed (SIGKILL to its whole process group: the shell and
//    anything it started, e.g. a `sleep`) and reaped at once;
//  - end of output or a broken pipe is reported as the engine's death, with its exit status
//    and the last line it wrote to stderr (kept, not shown: engines are chatty);
//  - SIGPIPE from writing to a dead engine is blocked and consumed, never delivered.
// The child is reaped on every path (stop, timeout, death, destruction), and so is the rest of
// its process group: on Linux the process becomes a child subreaper (prctl) when it starts an
// engine, so that processes the shell forked are re-parented to it, not to a PID 1 that may
// never reap them. No zombies remain (an engine that leaves its process group is on its own).
#pragma once
#include <sys/types.h>
#include <string>

namespace ef::play {

struct GtpResponse {
  enum class Status {
    kOk,           // "= text"
    kFailure,      // "? text": the engine refused the command
    kTimeout,      // no complete response before the deadline; the engine has been killed
    kDied,         // the engine exited or closed its output; it has been reaped
    kBadResponse,  // a response not starting with '=' or '?'; the engine has been killed
  };
  Status status = Status::kOk;
  // kOk/kFailure: the response without "=id " / "?id " (lines joined by '\n'); otherwise what
  // went wrong, in words.
  std::string text;
  bool ok() const { return status == Status::kOk; }
};

// What an engine's buffered output holds for the command with GTP id `id` (GtpClient::send's
// parser, a pure function for tests and fuzzing). `eof`: no more output will come.
//   kResponse  "=[id] text" or "?[id] text" up to an empty line, with this id or none: removed
//              from `buffer`; `text` without the id, trailing blanks dropped; `ok` for '='
//   kStale     a whole response with another id (an earlier command's): removed
//   kJunk      a first line that is not a response; `text` is that line (the buffer is kept)
//   kNeedMore  no whole response yet
struct GtpScan {
  enum class Kind { kNeedMore, kResponse, kStale, kJunk };
  Kind kind = Kind::kNeedMore;
  std::string text;
  bool ok = false;
};
GtpScan scan_gtp_response(std::string& buffer, unsigned long id, bool eof);

class GtpClient {
 public:
  explicit GtpClient(std::string command);
  ~GtpClient();  // stop()
  GtpClient(const GtpClient&) = delete;
  GtpClient& operator=(const GtpClient&) = delete;

  // Starts the engine (stops a running one first). Throws ef::Error only when the process
  // cannot be created (pipe/fork failure); an engine that fails to exec is seen as dying on
  // its first command (the shell exits 127 and says why on stderr).
  void start();
  // Stops the engine: "quit", then up to `grace_s` for it to exit, then SIGKILL; reaps it.
  void stop(double grace_s = 1.0);
  void restart() { start(); }
  bool running() const { return pid_ > 0; }
  pid_t pid() const { return pid_; }  // also the engine's process group; 0 when not running
  const std::string& command() const { return command_; }

  // Sends one command line and waits up to `timeout_s` for the whole response. On kTimeout,
  // kDied and kBadResponse the engine is no longer running (restart it to go on).
  // Every command goes out with a GTP id (1, 2, ... per process); a response carrying another
  // id answers an earlier command (an engine that answered twice) and is skipped, so that it
  // cannot be taken for this command's answer. Responses without an id are accepted (GTP
  // engines must echo ids, but not every one does).
  GtpResponse send(const std::string& command, double timeout_s);
  // Responses skipped because their id belonged to an earlier command, since start().
  std::size_t stale_responses() const { return stale_responses_; }

  // The end of what the engine wrote to stderr (at most 4 KiB), for error messages.
  const std::string& stderr_tail() const { return stderr_tail_; }
  // The engine's last non-empty stderr line, or "".
  std::string last_stderr_line() const;

 private:
  // Kills the process group (unless `graceful` lets it exit first) and reaps the child;
  // returns its exit status in words ("exited with status 1", "killed by signal 9").
  std::string terminate(bool graceful, double grace_s);
  void drain_stderr();
  void close_fds();

  std::string command_;
  pid_t pid_ = 0;
  int in_fd_ = -1;      // the engine's stdin (we write)
  int out_fd_ = -1;     // its stdout (we read)
  int err_fd_ = -1;     // its stderr (we read)
  std::string buffer_;  // stdout bytes read but not yet part of a response
  unsigned long next_id_ = 1;
  std::size_t stale_responses_ = 0;
  std::string stderr_tail_;
};

}  // namespace ef::play
