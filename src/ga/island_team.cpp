#include "evalforge/ga/island_team.hpp"
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <thread>
#include "evalforge/core/error.hpp"

namespace ef::ga {

IslandBlock island_block(int rank, int ranks, int num_islands) {
  if (ranks < 1 || rank < 0 || rank >= ranks) fail("rank {} of {} ranks", rank, ranks);
  if (ranks > num_islands && num_islands > 0)
    fail("{} ranks for {} islands: each rank needs at least one island (run with at most {} ranks, or add islands)",
         ranks, num_islands, num_islands);
  // 64-bit products: rank x islands cannot overflow for any count the config allows.
  const auto first = [&](long long r) { return static_cast<int>(r * num_islands / ranks); };
  return {first(rank), first(rank + 1) - first(rank)};
}

int island_owner(int island, int ranks, int num_islands) {
  for (int r = 0; r < ranks; ++r)
    if (island_block(r, ranks, num_islands).holds(island)) return r;
  fail("island {} is not one of the {} islands", island, num_islands);
}

std::vector<std::string> SoloTeam::exchange(const std::vector<std::pair<int, std::string>>& outgoing,
                                            const std::vector<int>& from) {
  if (!outgoing.empty() || !from.empty()) fail("one process holds every island: nothing can be sent between ranks");
  return {};
}

InjectedFailure InjectedFailure::from_environment() {
  InjectedFailure f;
  const char* e = std::getenv("EF_TEST_FAIL_AT");
  if (!e) return f;
  const int fields = std::sscanf(e, "%d:%d:%7s", &f.rank, &f.step, f.how);
  const std::string_view how = f.how;
  if (fields < 2 || (how != "exit" && how != "kill" && how != "hang"))
    fail("EF_TEST_FAIL_AT='{}' (expected RANK:STEP or RANK:STEP:exit|kill|hang)", e);
  return f;
}

void InjectedFailure::apply(int this_rank, int this_step) const {
  if (this_rank != rank || this_step != step) return;
  const std::string_view what = how;
  if (what == "kill") std::raise(SIGKILL);
  if (what == "hang")
    while (true) std::this_thread::sleep_for(std::chrono::hours(1));
  std::_Exit(9);
}

int launcher_world_size() {
  // Open MPI's mpirun and MPICH's Hydra (PMI); the first one set wins.
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"}) {
    if (const char* v = std::getenv(name); v && *v) {
      const int n = std::atoi(v);
      if (n > 0) return n;
    }
  }
  return 0;
}

}  // namespace ef::ga
