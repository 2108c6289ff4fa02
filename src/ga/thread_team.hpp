// An IslandTeam of threads in one process (island_team.hpp): `search --devices 0,1,...` runs
// one rank per device as a thread, each with its own backend, so a multi-GPU workstation needs
// no MPI; the tests use it to check the rank seam without MPI. The same run loop, the same
// mapping, the same bytes as the MPI team: only the transport differs (in-memory mailboxes).
#pragma once
#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <utility>
#include <vector>
#include "evalforge/ga/island_team.hpp"

namespace ef::ga {

// The mailboxes the threads of one team share, keyed (from, to, kind). When one thread fails,
// break_off() wakes every waiting thread with an error, so none waits for the failed one.
class ThreadPost {
 public:
  void send(int from, int to, int kind, std::string bytes);
  // Throws ef::Error when the team has broken off while waiting.
  std::string receive(int from, int to, int kind);
  void break_off();

 private:
  std::mutex mutex_;
  std::condition_variable arrived_;
  std::map<std::tuple<int, int, int>, std::deque<std::string>> boxes_;
  bool broken_ = false;
};

class ThreadTeam final : public IslandTeam {
 public:
  ThreadTeam(ThreadPost& post, int rank, int size) : post_(post), rank_(rank), size_(size) {}
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  std::vector<std::string> exchange(const std::vector<std::pair<int, std::string>>& outgoing,
                                    const std::vector<int>& from) override;
  std::vector<std::string> gather(const std::string& mine) override;
  void broadcast(std::string& bytes) override;
  unsigned long long exchanged_bytes() const override { return bytes_; }
  unsigned long long exchanged_messages() const override { return messages_; }

 private:
  ThreadPost& post_;
  int rank_, size_;
  unsigned long long bytes_ = 0, messages_ = 0;
};

// Runs body(team) on `ranks` threads, one ThreadTeam rank each, and joins them. When a thread
// throws, the others are woken out of any wait (with an error of their own), and after all
// threads have ended the failure itself is rethrown: the lowest rank's exception that is not
// such a wake-up.
void run_thread_team(int ranks, const std::function<void(ThreadTeam&)>& body);

}  // namespace ef::ga
