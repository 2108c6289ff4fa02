// A small HTTP/1.1 server on 127.0.0.1 (a free port) for the downloader's tests: each path
// serves fixed bytes with a chosen misbehaviour (cut short, stalled, ignoring ranges, an error
// status, a body without end), honours "Range: bytes=N-" otherwise, and records what was asked. One connection at a
// time, "Connection: close" on every answer; it never reaches beyond the loopback interface.
#pragma once
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace ef::test {

class LoopbackHttpServer {
 public:
  struct Route {
    // kEndless: `body` sent again and again until the client hangs up, after a Content-Length of
    // `declared` (0: none, the body ends when the connection closes).
    enum class Mode { kNormal, kCutShort, kStall, kIgnoreRange, kEndless };
    std::string body;
    int status = 200;
    Mode mode = Mode::kNormal;
    std::size_t at = 0;          // kCutShort: close after this many bytes of the body; kStall: pause here
    int stall_ms = 0;            // kStall: how long the pause lasts
    std::uint64_t declared = 0;  // kEndless: the Content-Length announced (0: none)
  };

  LoopbackHttpServer() {
    listener_ = ::socket(AF_INET, SOCK_STREAM, 0);
    if (listener_ < 0) throw std::runtime_error("socket");
    const int one = 1;
    ::setsockopt(listener_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = 0;
    if (::bind(listener_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 || ::listen(listener_, 8) != 0)
      throw std::runtime_error("bind/listen on 127.0.0.1");
    socklen_t length = sizeof address;
    ::getsockname(listener_, reinterpret_cast<sockaddr*>(&address), &length);
    port_ = ntohs(address.sin_port);
    thread_ = std::thread([this] { serve(); });
  }
  ~LoopbackHttpServer() {
    stop_ = true;
    thread_.join();
    ::close(listener_);
  }
  LoopbackHttpServer(const LoopbackHttpServer&) = delete;
  LoopbackHttpServer& operator=(const LoopbackHttpServer&) = delete;

  void route(const std::string& path, Route r) {
    std::lock_guard lock(mutex_);
    routes_[path] = std::move(r);
  }
  std::string url(const std::string& path) const { return "http://127.0.0.1:" + std::to_string(port_) + path; }
  std::string base() const { return url("/"); }
  // The requests made for `path`, each as its Range header value ("" for none).
  std::vector<std::string> requests(const std::string& path) const {
    std::lock_guard lock(mutex_);
    auto it = seen_.find(path);
    return it == seen_.end() ? std::vector<std::string>{} : it->second;
  }

 private:
  void serve() {
    while (!stop_) {
      pollfd p{listener_, POLLIN, 0};
      if (::poll(&p, 1, 50) <= 0) continue;
      const int fd = ::accept(listener_, nullptr, nullptr);
      if (fd < 0) continue;
      timeval timeout{2, 0};
      ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
      handle(fd);
      ::close(fd);
    }
  }

  bool send_all(int fd, const char* data, std::size_t n) {
    while (n > 0) {
      const ssize_t sent = ::send(fd, data, n, MSG_NOSIGNAL);
      if (sent <= 0) return false;
      data += sent;
      n -= static_cast<std::size_t>(sent);
    }
    return true;
  }

  void handle(int fd) {
    std::string request;
    char buffer[4096];
    while (request.find("\r\n\r\n") == std::string::npos && request.size() < 65536) {
      const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
      if (n <= 0) return;
      request.append(buffer, static_cast<std::size_t>(n));
    }
    const auto first_space = request.find(' ');
    const auto second_space = request.find(' ', first_space + 1);
    if (first_space == std::string::npos || second_space == std::string::npos) return;
    const std::string path = request.substr(first_space + 1, second_space - first_space - 1);
    std::string range;
    for (const char* header : {"\r\nRange: ", "\r\nrange: "}) {
      const auto at = request.find(header);
      if (at != std::string::npos)
        range = request.substr(at + std::strlen(header), request.find("\r\n", at + 2) - at - std::strlen(header));
    }
    Route r;
    bool found = false;
    {
      std::lock_guard lock(mutex_);
      seen_[path].push_back(range);
      if (auto it = routes_.find(path); it != routes_.end()) {
        r = it->second;
        found = true;
      }
    }
    if (!found) r = Route{"not found\n", 404};
    const auto reply = [&](int status, const std::string& extra, const std::string& body, std::size_t declared) {
      const std::string head = "HTTP/1.1 " + std::to_string(status) +
                               " X\r\nContent-Length: " + std::to_string(declared) + "\r\nConnection: close\r\n" +
                               extra + "\r\n";
      return send_all(fd, head.data(), head.size()) && send_all(fd, body.data(), body.size());
    };
    if (r.status != 200) {
      reply(r.status, "", r.body, r.body.size());
      return;
    }
    if (r.mode == Route::Mode::kEndless) {
      const std::string length = r.declared ? "Content-Length: " + std::to_string(r.declared) + "\r\n" : std::string();
      const std::string head = "HTTP/1.1 200 X\r\n" + length + "Connection: close\r\n\r\n";
      if (!send_all(fd, head.data(), head.size())) return;
      while (!stop_ && !r.body.empty() && send_all(fd, r.body.data(), r.body.size())) {}
      return;
    }
    std::size_t from = 0;
    if (range.rfind("bytes=", 0) == 0 && r.mode != Route::Mode::kIgnoreRange) from = std::stoul(range.substr(6));
    if (from >= r.body.size() && from > 0) {
      reply(416, "Content-Range: bytes */" + std::to_string(r.body.size()) + "\r\n", "", 0);
      return;
    }
    const int status = from > 0 ? 206 : 200;
    const std::string extra = from > 0
                                  ? "Content-Range: bytes " + std::to_string(from) + "-" +
                                        std::to_string(r.body.size() - 1) + "/" + std::to_string(r.body.size()) + "\r\n"
                                  : "";
    const std::string rest = r.body.substr(from);
    if (r.mode == Route::Mode::kCutShort) {
      const std::size_t keep = r.at > from ? r.at - from : 0;
      reply(status, extra, rest.substr(0, keep), rest.size());
      return;
    }
    if (r.mode == Route::Mode::kStall) {
      const std::size_t before = r.at > from ? r.at - from : 0;
      if (!reply(status, extra, rest.substr(0, before), rest.size())) return;
      // The pause ends early when the client gives up (closes): the next request need not wait.
      for (int waited = 0; waited < r.stall_ms && !stop_; waited += 20) {
        pollfd q{fd, POLLIN, 0};
        char probe;
        if (::poll(&q, 1, 20) > 0 && ::recv(fd, &probe, 1, MSG_DONTWAIT) <= 0) return;
      }
      const std::string tail = rest.substr(before);
      send_all(fd, tail.data(), tail.size());
      return;
    }
    reply(status, extra, rest, rest.size());
  }

  int listener_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::thread thread_;
  mutable std::mutex mutex_;
  std::map<std::string, Route> routes_;
  std::map<std::string, std::vector<std::string>> seen_;
};

}  // namespace ef::test
