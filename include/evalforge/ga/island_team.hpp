// The processes that run one island search together (docs/scale-out.md): the seam between the
// search loop (runs/shape_search_run.cpp, islands.cpp) and how its islands are spread. One process holds
// every island (SoloTeam); under mpirun each rank holds a block of islands (ga/mpi_team.hpp).
// The run loop is the same in both cases: it only ever talks to an IslandTeam.
//
// Island-to-rank mapping (documented, deterministic, the same for every run): with N islands
// and R ranks, rank r holds the contiguous block [floor(r N / R), floor((r + 1) N / R)), so
// ranks hold floor(N/R) or ceil(N/R) islands and R need not divide N. Contiguous blocks keep
// the neighbours of the paper and ring topologies on one rank except at block edges, so a
// migration crosses ranks only there. R > N is refused: a rank without an island would idle.
//
// Everything a team carries is bytes in a fixed order (rank order for gathers, route order
// inside a migration message), so a distributed run computes and writes exactly the bits of
// the single-process run.
#pragma once
#include <string>
#include <utility>
#include <vector>

namespace ef::ga {

// The islands [first, first + count) of one rank.
struct IslandBlock {
  int first = 0;
  int count = 0;
  bool holds(int island) const { return island >= first && island < first + count; }
};

// Rank `rank`'s block of `num_islands` islands over `ranks` ranks (mapping above). Throws
// ef::Error for more ranks than islands.
IslandBlock island_block(int rank, int ranks, int num_islands);
// The rank that holds island `island`.
int island_owner(int island, int ranks, int num_islands);

class IslandTeam {
 public:
  virtual ~IslandTeam() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // Point to point: sends each (rank, bytes) of `outgoing` to its rank and receives one message
  // from each rank of `from`, returned in the order of `from`. Every rank of a migration calls
  // it once, so sends and receives pair up; a rank never sends to itself.
  virtual std::vector<std::string> exchange(const std::vector<std::pair<int, std::string>>& outgoing,
                                            const std::vector<int>& from) = 0;
  // Rank 0 gets every rank's `mine`, in rank order; the other ranks get an empty vector.
  virtual std::vector<std::string> gather(const std::string& mine) = 0;
  // Every rank gets rank 0's `bytes` (the others' are replaced).
  virtual void broadcast(std::string& bytes) = 0;
  // Bytes and messages this rank has sent by exchange() so far (migration traffic).
  virtual unsigned long long exchanged_bytes() const = 0;
  virtual unsigned long long exchanged_messages() const = 0;
};

// One process holds every island: gathers and broadcasts are the identity, and no migration
// route leaves the process, so exchange() is never asked to carry anything.
class SoloTeam final : public IslandTeam {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  std::vector<std::string> exchange(const std::vector<std::pair<int, std::string>>& outgoing,
                                    const std::vector<int>& from) override;
  std::vector<std::string> gather(const std::string& mine) override { return {mine}; }
  void broadcast(std::string&) override {}
  unsigned long long exchanged_bytes() const override { return 0; }
  unsigned long long exchanged_messages() const override { return 0; }
};

// Tests of the failure path (docs/scale-out.md): EF_TEST_FAIL_AT=RANK:STEP[:HOW] makes that rank
// fail as it starts that step (the shape search: a generation; a rank serving playouts,
// backends/team_backend.hpp: its batch of games number STEP, from 0), as a crashed, killed or
// hung rank would. HOW: exit (the default: exit status 9, without a word), kill (SIGKILL) or
// hang (sleeps forever).
struct InjectedFailure {
  int rank = -1, step = -1;
  char how[8] = "exit";
  // Throws ef::Error for a malformed EF_TEST_FAIL_AT.
  static InjectedFailure from_environment();
  void apply(int this_rank, int this_step) const;
};

// The world size when this process was started by an MPI launcher (Open MPI's mpirun, MPICH's
// mpiexec: read from the environment variables they set), else 0.
int launcher_world_size();

}  // namespace ef::ga
