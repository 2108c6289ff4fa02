#include "ga/thread_team.hpp"
#include <fmt/core.h>
#include <thread>
#include "evalforge/core/error.hpp"

namespace ef::ga {

namespace {
constexpr int kMigration = 0, kGather = 1, kBroadcast = 2;
// What a thread woken by another's failure throws: run_thread_team reports the failure itself.
struct BrokenOff : Error {
  explicit BrokenOff(const std::string& what) : Error(what) {}
};
}  // namespace

void ThreadPost::send(int from, int to, int kind, std::string bytes) {
  {
    std::lock_guard lock(mutex_);
    boxes_[{from, to, kind}].push_back(std::move(bytes));
  }
  arrived_.notify_all();
}

std::string ThreadPost::receive(int from, int to, int kind) {
  std::unique_lock lock(mutex_);
  auto& box = boxes_[{from, to, kind}];
  arrived_.wait(lock, [&] { return !box.empty() || broken_; });
  if (box.empty()) throw BrokenOff(fmt::format("rank {} stopped waiting for rank {}: another rank failed", to, from));
  std::string bytes = std::move(box.front());
  box.pop_front();
  return bytes;
}

void ThreadPost::break_off() {
  {
    std::lock_guard lock(mutex_);
    broken_ = true;
  }
  arrived_.notify_all();
}

std::vector<std::string> ThreadTeam::exchange(const std::vector<std::pair<int, std::string>>& outgoing,
                                              const std::vector<int>& from) {
  for (const auto& [to, bytes] : outgoing) {
    if (to == rank_ || to < 0 || to >= size_) fail("rank {}: migrants addressed to rank {}", rank_, to);
    post_.send(rank_, to, kMigration, bytes);
    bytes_ += bytes.size();
    ++messages_;
  }
  std::vector<std::string> received;
  for (int r : from) received.push_back(post_.receive(r, rank_, kMigration));
  return received;
}

std::vector<std::string> ThreadTeam::gather(const std::string& mine) {
  std::vector<std::string> all;
  if (rank_ == 0) {
    all.push_back(mine);
    for (int r = 1; r < size_; ++r) all.push_back(post_.receive(r, 0, kGather));
  } else {
    post_.send(rank_, 0, kGather, mine);
  }
  return all;
}

void ThreadTeam::broadcast(std::string& bytes) {
  if (rank_ == 0) {
    for (int r = 1; r < size_; ++r) post_.send(0, r, kBroadcast, bytes);
  } else {
    bytes = post_.receive(0, rank_, kBroadcast);
  }
}

void run_thread_team(int ranks, const std::function<void(ThreadTeam&)>& body) {
  if (ranks < 1) fail("a team of {} threads", ranks);
  ThreadPost post;
  std::vector<std::exception_ptr> errors(static_cast<std::size_t>(ranks));
  std::vector<std::thread> threads;
  for (int r = 0; r < ranks; ++r)
    threads.emplace_back([&, r] {
      try {
        ThreadTeam team(post, r, ranks);
        body(team);
      } catch (...) {
        errors[static_cast<std::size_t>(r)] = std::current_exception();
        post.break_off();
      }
    });
  for (auto& t : threads) t.join();
  // The failure itself, not the wake-ups it caused: the lowest rank's error that is not a
  // wake-up (there is one unless a thread died without an exception), else the first wake-up.
  std::exception_ptr first;
  for (const auto& e : errors) {
    if (!e) continue;
    try {
      std::rethrow_exception(e);
    } catch (const BrokenOff&) {
      if (!first) first = e;
    } catch (...) {
      throw;
    }
  }
  if (first) std::rethrow_exception(first);
}

}  // namespace ef::ga
