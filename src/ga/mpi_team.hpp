// The IslandTeam of a run started by mpirun (docs/scale-out.md): one rank per process, islands
// in blocks (ga/island_team.hpp). Built only when CMake found MPI (EF_HAVE_MPI).
//
// Every transfer is point to point on a private duplicate of MPI_COMM_WORLD whose error
// handler returns errors (MPI_ERRORS_RETURN) instead of aborting, so that a failure becomes an
// ef::Error with a message. Receives poll (MPI_Iprobe) against a watchdog: a peer that has
// sent nothing for `peer_timeout_seconds`, or a stop signal while waiting (mpirun sends SIGTERM
// to every rank when one dies), ends the wait with an ef::Error naming the peer. Gathers and
// broadcasts are linear sequences of such messages through rank 0 (fine for the tens of ranks
// an island search has; a collective could not be bounded in time).
#pragma once
#include <mpi.h>
#include <string>
#include <utility>
#include <vector>
#include "evalforge/ga/island_team.hpp"

namespace ef::mpi {

class MpiTeam final : public ga::IslandTeam {
 public:
  // Initialises MPI (MPI_THREAD_FUNNELED: only the main thread calls MPI; backend worker
  // threads never do). Throws ef::Error when MPI cannot be initialised.
  explicit MpiTeam(double peer_timeout_seconds);
  // Finalises MPI: only on the normal path, when every rank gets here.
  ~MpiTeam() override;
  MpiTeam(const MpiTeam&) = delete;
  MpiTeam& operator=(const MpiTeam&) = delete;

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  // Rank and rank count on this node (MPI_COMM_TYPE_SHARED): which GPU a rank takes, and how
  // many CPU threads it gets by default.
  int local_rank() const { return local_rank_; }
  int local_size() const { return local_size_; }

  std::vector<std::string> exchange(const std::vector<std::pair<int, std::string>>& outgoing,
                                    const std::vector<int>& from) override;
  std::vector<std::string> gather(const std::string& mine) override;
  void broadcast(std::string& bytes) override;
  unsigned long long exchanged_bytes() const override { return exchanged_bytes_; }
  unsigned long long exchanged_messages() const override { return exchanged_messages_; }

  // Ends every rank of the job with `code` (MPI_Abort): the error path, after the message has
  // been printed. Never returns.
  [[noreturn]] void abort(int code);

 private:
  void check(int rc, const char* what) const;
  // Non-blocking send; the request is completed by wait_sends().
  void post_send(int to, int tag, const std::string& bytes, std::vector<MPI_Request>& requests);
  void wait_sends(std::vector<MPI_Request>& requests, const char* what);
  // One whole message from `from` with `tag`, under the watchdog.
  std::string receive(int from, int tag, const char* what);

  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0, size_ = 1, local_rank_ = 0, local_size_ = 1;
  double timeout_ = 600;
  unsigned long long exchanged_bytes_ = 0, exchanged_messages_ = 0;
};

}  // namespace ef::mpi
