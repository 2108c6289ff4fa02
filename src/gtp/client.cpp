#include "gtp/client.hpp"
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif
#include <fmt/format.h>
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>
#include "evalforge/core/error.hpp"

namespace ef::play {

namespace {
constexpr std::size_t kMaxResponseBytes = std::size_t{1} << 20;
}  // namespace

namespace {

using Clock = std::chrono::steady_clock;

constexpr std::size_t kStderrTail = 4096;

// Blocks SIGPIPE on this thread while it writes to the engine, so that a dead engine shows up as
// EPIPE instead of killing us; a SIGPIPE raised meanwhile is consumed before the mask is restored
// (unless one was already pending, which then belongs to someone else).
class SigpipeGuard {
 public:
  SigpipeGuard() {
    sigemptyset(&pipe_);
    sigaddset(&pipe_, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_, &old_);
    sigset_t pending;
    sigemptyset(&pending);
    sigpending(&pending);
    pending_before_ = sigismember(&pending, SIGPIPE) == 1;
  }
  ~SigpipeGuard() {
    if (!pending_before_) {
      const timespec zero{0, 0};
      while (sigtimedwait(&pipe_, nullptr, &zero) == SIGPIPE) {}
    }
    pthread_sigmask(SIG_SETMASK, &old_, nullptr);
  }
  SigpipeGuard(const SigpipeGuard&) = delete;
  SigpipeGuard& operator=(const SigpipeGuard&) = delete;

 private:
  sigset_t pipe_, old_;
  bool pending_before_ = false;
};

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

void set_nonblocking(int fd) { ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK); }

Clock::time_point deadline_after(double seconds) {
  return Clock::now() +
         std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(std::max(seconds, 0.0)));
}

int remaining_ms(Clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return left <= 0 ? 0 : static_cast<int>(std::min<long long>(left, 1 << 30)) + 1;
}

std::string status_words(int status) {
  if (WIFEXITED(status)) return fmt::format("exited with status {}", WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return fmt::format("killed by signal {}", WTERMSIG(status));
  return "stopped";
}

// At most `n` characters of `s` on one line, for messages.
std::string excerpt(const std::string& s, std::size_t n = 80) {
  std::string t = s.substr(0, n);
  std::replace(t.begin(), t.end(), '\n', ' ');
  return s.size() > n ? t + "..." : t;
}

}  // namespace

GtpClient::GtpClient(std::string command) : command_(std::move(command)) {}

GtpClient::~GtpClient() { stop(0.2); }

void GtpClient::start() {
  stop();
  int in[2], out[2], err[2];
  // Close-on-exec everywhere: another engine started later must not inherit these ends (an
  // inherited write end would keep this engine's stdin open after we close ours).
  if (::pipe2(in, O_CLOEXEC) != 0) fail("gtp engine '{}': pipe: {}", command_, std::strerror(errno));
  if (::pipe2(out, O_CLOEXEC) != 0) {
    ::close(in[0]), ::close(in[1]);
    fail("gtp engine '{}': pipe: {}", command_, std::strerror(errno));
  }
  if (::pipe2(err, O_CLOEXEC) != 0) {
    ::close(in[0]), ::close(in[1]), ::close(out[0]), ::close(out[1]);
    fail("gtp engine '{}': pipe: {}", command_, std::strerror(errno));
  }
  // Everything the child needs is prepared before fork: after it, in a possibly multithreaded
  // process, the child may only make async-signal-safe calls.
  const char* argv[] = {"sh", "-c", command_.c_str(), nullptr};
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) {
    const int e = errno;
    for (int fd : {in[0], in[1], out[0], out[1], err[0], err[1]}) ::close(fd);
    fail("gtp engine '{}': fork: {}", command_, std::strerror(e));
  }
  if (pid == 0) {
    // Its own process group, so that a kill reaches whatever the shell starts.
    ::setpgid(0, 0);
#ifdef __linux__
    // Die with us: an engine must not outlive the match that runs it.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);
#else
    (void)parent;
#endif
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    ::sigaction(SIGPIPE, &dfl, nullptr);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    if (::dup2(in[0], 0) < 0 || ::dup2(out[1], 1) < 0 || ::dup2(err[1], 2) < 0) ::_exit(127);
    ::execv("/bin/sh", const_cast<char* const*>(argv));
    ::_exit(127);
  }
  ::setpgid(pid, pid);  // also here: whichever runs first, the group exists before we kill it
#ifdef __linux__
  // Become the reaper of the engine's orphans: `sh -c` may fork the engine instead of exec'ing
  // it, and when the group is killed the engine would be re-parented to PID 1, which in a
  // container often reaps nothing (a zombie per restart). As their subreaper we reap them
  // ourselves in terminate().
  ::prctl(PR_SET_CHILD_SUBREAPER, 1);
#endif
  ::close(in[0]);
  ::close(out[1]);
  ::close(err[1]);
  pid_ = pid;
  in_fd_ = in[1];
  out_fd_ = out[0];
  err_fd_ = err[0];
  set_nonblocking(in_fd_);
  set_nonblocking(out_fd_);
  set_nonblocking(err_fd_);
  buffer_.clear();
  stderr_tail_.clear();
  next_id_ = 1;
  stale_responses_ = 0;
}

void GtpClient::stop(double grace_s) {
  if (running()) terminate(true, grace_s);
}

void GtpClient::close_fds() {
  close_fd(in_fd_);
  close_fd(out_fd_);
  close_fd(err_fd_);
}

void GtpClient::drain_stderr() {
  if (err_fd_ < 0) return;
  char chunk[4096];
  for (;;) {
    const ssize_t n = ::read(err_fd_, chunk, sizeof chunk);
    if (n > 0) {
      stderr_tail_.append(chunk, static_cast<std::size_t>(n));
      if (stderr_tail_.size() > kStderrTail) stderr_tail_.erase(0, stderr_tail_.size() - kStderrTail);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n == 0) close_fd(err_fd_);  // end of stderr: stop polling it
    return;
  }
}

std::string GtpClient::last_stderr_line() const {
  std::string t = stderr_tail_;
  std::erase(t, '\r');
  while (!t.empty() && (t.back() == '\n' || t.back() == ' ')) t.pop_back();
  const std::size_t nl = t.rfind('\n');
  return nl == std::string::npos ? t : t.substr(nl + 1);
}

std::string GtpClient::terminate(bool graceful, double grace_s) {
  if (pid_ <= 0) return "";
  if (graceful && in_fd_ >= 0) {
    {
      SigpipeGuard guard;
      const char quit[] = "quit\n";
      [[maybe_unused]] const ssize_t n = ::write(in_fd_, quit, sizeof quit - 1);
    }
    close_fd(in_fd_);  // end of input: a well-behaved engine exits on that too
    const Clock::time_point deadline = deadline_after(grace_s);
    for (;;) {
      // WNOWAIT: see the exit without reaping, so that the pid (our process group's id) stays
      // reserved until the group has been killed below.
      siginfo_t info{};
      if (::waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == pid_)
        break;
      if (Clock::now() >= deadline) break;
      // Keep the pipes flowing: an engine blocked writing a full pipe could not exit.
      char chunk[4096];
      while (out_fd_ >= 0 && ::read(out_fd_, chunk, sizeof chunk) > 0) {}
      drain_stderr();
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }
  // The whole group: the shell and whatever it started (the leader may already be a zombie).
  ::kill(-pid_, SIGKILL);
  ::kill(pid_, SIGKILL);
  int status = 0;
  while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {}
  // The rest of the group (killed above): its members are our children now, or become so as
  // their parents die; reap them until the group is gone (bounded: SIGKILL cannot be ignored).
  const Clock::time_point deadline = deadline_after(1.0);
  for (;;) {
    while (::waitpid(-pid_, nullptr, WNOHANG) > 0) {}
    if (::kill(-pid_, 0) != 0 || Clock::now() >= deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  pid_ = 0;
  drain_stderr();
  close_fds();
  buffer_.clear();
  return status_words(status);
}

GtpScan scan_gtp_response(std::string& buffer, unsigned long id, bool eof) {
  // A complete response: a line starting with '=' or '?' up to the first empty line. Blank
  // lines before it are tolerated (some engines emit an extra newline).
  std::size_t start = 0;
  while (start < buffer.size() && buffer[start] == '\n') ++start;
  const std::size_t line_end = buffer.find('\n', start);
  if (start < buffer.size() && buffer[start] != '=' && buffer[start] != '?' && (line_end != std::string::npos || eof)) {
    // Reported once the whole line is in, so that the message shows what the engine said.
    return {GtpScan::Kind::kJunk,
            buffer.substr(start, line_end == std::string::npos ? std::string::npos : line_end - start), false};
  }
  const std::size_t end = buffer.find("\n\n", start);
  if (end == std::string::npos) return {GtpScan::Kind::kNeedMore, "", false};
  const std::string response = buffer.substr(start, end - start);
  buffer.erase(0, end + 2);
  std::size_t i = 1;
  while (i < response.size() && response[i] >= '0' && response[i] <= '9') ++i;  // the id, if any
  if (i > 1 && response.compare(1, i - 1, std::to_string(id)) != 0) return {GtpScan::Kind::kStale, "", false};
  while (i < response.size() && response[i] == ' ') ++i;
  std::string text = response.substr(i);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\n')) text.pop_back();
  return {GtpScan::Kind::kResponse, std::move(text), response[0] == '='};
}

GtpResponse GtpClient::send(const std::string& command, double timeout_s) {
  using Status = GtpResponse::Status;
  if (!running()) return {Status::kDied, "the engine is not running"};
  const Clock::time_point deadline = deadline_after(timeout_s);
  const auto died = [&](const std::string& what) {
    const std::string how = terminate(false, 0);
    const std::string said = last_stderr_line();
    return GtpResponse{Status::kDied,
                       fmt::format("engine died ({}, {}){}", what, how, said.empty() ? "" : ": " + excerpt(said, 200))};
  };
  const auto timed_out = [&] {
    terminate(false, 0);
    return GtpResponse{Status::kTimeout, fmt::format("engine timed out after {:g} s on '{}'", timeout_s, command)};
  };

  // Write the command line, waiting for room in the pipe if the engine is slow to read it.
  unsigned long id = 0;
  {
    SigpipeGuard guard;
    id = next_id_++;
    const std::string line = fmt::format("{} {}\n", id, command);
    std::size_t written = 0;
    while (written < line.size()) {
      const ssize_t n = ::write(in_fd_, line.data() + written, line.size() - written);
      if (n > 0) {
        written += static_cast<std::size_t>(n);
        continue;
      }
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && errno == EAGAIN) {
        pollfd p{in_fd_, POLLOUT, 0};
        if (::poll(&p, 1, remaining_ms(deadline)) == 0 && Clock::now() >= deadline) return timed_out();
        continue;
      }
      return died("closed its input");  // EPIPE: nobody reads the pipe any more
    }
  }

  bool eof = false;
  for (;;) {
    GtpScan scan = scan_gtp_response(buffer_, id, eof);
    switch (scan.kind) {
      case GtpScan::Kind::kResponse: return {scan.ok ? Status::kOk : Status::kFailure, std::move(scan.text)};
      case GtpScan::Kind::kStale:
        ++stale_responses_;  // the answer to an earlier command: not this one's
        continue;
      case GtpScan::Kind::kJunk:
        terminate(false, 0);
        return {Status::kBadResponse,
                fmt::format("engine sent '{}' instead of a GTP response to '{}'", excerpt(scan.text), command)};
      case GtpScan::Kind::kNeedMore: break;
    }
    if (eof) return died("closed its output");
    // A response longer than any GTP answer is junk: stop before it fills memory.
    if (buffer_.size() > kMaxResponseBytes) {
      terminate(false, 0);
      return {Status::kBadResponse, fmt::format("engine sent more than {} bytes without ending its response to '{}'",
                                                kMaxResponseBytes, command)};
    }

    pollfd fds[2] = {{out_fd_, POLLIN, 0}, {err_fd_, POLLIN, 0}};
    const int ready = ::poll(fds, err_fd_ >= 0 ? 2 : 1, remaining_ms(deadline));
    if (ready < 0 && errno != EINTR) return died(fmt::format("could not be polled: {}", std::strerror(errno)));
    if (ready <= 0) {
      if (Clock::now() >= deadline) return timed_out();
      continue;
    }
    if (err_fd_ >= 0 && fds[1].revents) drain_stderr();
    if (fds[0].revents) {
      char chunk[4096];
      for (;;) {
        const ssize_t n = ::read(out_fd_, chunk, sizeof chunk);
        if (n > 0) {
          // CRs dropped: an engine writing CRLF line ends still ends its response with "\n\n".
          for (ssize_t k = 0; k < n; ++k)
            if (chunk[k] != '\r') buffer_ += chunk[k];
          continue;
        }
        if (n < 0 && errno == EINTR) continue;
        if (n == 0) eof = true;  // parse what came before the end first
        break;
      }
    }
  }
}

}  // namespace ef::play
