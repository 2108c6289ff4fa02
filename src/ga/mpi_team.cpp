#include "ga/mpi_team.hpp"
#include <chrono>
#include <climits>
#include <thread>
#include "evalforge/core/error.hpp"
#include "evalforge/core/run_dir.hpp"

namespace ef::mpi {

namespace {
// One tag per kind of message: MPI keeps messages of one (source, tag) pair in order, so the
// migrations, gathers and broadcasts of successive generations can never be confused.
constexpr int kTagMigration = 1, kTagGather = 2, kTagBroadcast = 3;
}  // namespace

MpiTeam::MpiTeam(double peer_timeout_seconds) : timeout_(peer_timeout_seconds) {
  int initialised = 0;
  MPI_Initialized(&initialised);
  if (!initialised) {
    int provided = 0;
    if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS)
      fail("MPI could not be initialised");
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  check(MPI_Comm_dup(MPI_COMM_WORLD, &comm_), "MPI_Comm_dup");
  check(MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
  check(MPI_Comm_rank(comm_, &rank_), "MPI_Comm_rank");
  check(MPI_Comm_size(comm_, &size_), "MPI_Comm_size");
  MPI_Comm local = MPI_COMM_NULL;
  check(MPI_Comm_split_type(comm_, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &local), "MPI_Comm_split_type");
  check(MPI_Comm_rank(local, &local_rank_), "MPI_Comm_rank");
  check(MPI_Comm_size(local, &local_size_), "MPI_Comm_size");
  MPI_Comm_free(&local);
}

MpiTeam::~MpiTeam() {
  if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
  int finalised = 0;
  MPI_Finalized(&finalised);
  if (!finalised) MPI_Finalize();
}

void MpiTeam::abort(int code) {
  MPI_Abort(MPI_COMM_WORLD, code);
  std::_Exit(code);  // MPI_Abort does not return; should an implementation return, still end
}

void MpiTeam::check(int rc, const char* what) const {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(rc, text, &length);
  fail("{} failed: {}", what, std::string(text, static_cast<std::size_t>(length)));
}

void MpiTeam::post_send(int to, int tag, const std::string& bytes, std::vector<MPI_Request>& requests) {
  if (bytes.size() > static_cast<std::size_t>(INT_MAX))
    fail("rank {}: a message of {} bytes to rank {} is larger than one MPI message carries", rank_, bytes.size(), to);
  requests.emplace_back();
  check(MPI_Isend(bytes.data(), static_cast<int>(bytes.size()), MPI_BYTE, to, tag, comm_, &requests.back()),
        "MPI_Isend");
}

namespace {
// Polls `ready` (true when done) until it is, with a short sleep that grows to 1 ms, so a wait
// of a whole generation does not burn a core the backend could use. Throws through `late`
// when the deadline passes or a stop signal arrives.
template <class Ready, class Late>
void poll_until(Ready ready, double timeout, Late late) {
  const auto start = std::chrono::steady_clock::now();
  auto pause = std::chrono::microseconds(20);
  while (!ready()) {
    const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (waited > timeout) late(fmt::format("nothing for {:.0f} s (the peer-timeout)", waited));
    if (stop_requested()) late("a stop signal while waiting (mpirun ends every rank when one dies)");
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::microseconds(1000));
  }
}
}  // namespace

void MpiTeam::wait_sends(std::vector<MPI_Request>& requests, const char* what) {
  if (requests.empty()) return;
  poll_until(
      [&] {
        int done = 0;
        check(MPI_Testall(static_cast<int>(requests.size()), requests.data(), &done, MPI_STATUSES_IGNORE),
              "MPI_Testall");
        return done != 0;
      },
      timeout_,
      [&](const std::string& why) {
        fail("sending the {} did not complete: {}; a rank has died or hangs", what, why);
      });
  requests.clear();
}

std::string MpiTeam::receive(int from, int tag, const char* what) {
  MPI_Status status;
  poll_until(
      [&] {
        int arrived = 0;
        check(MPI_Iprobe(from, tag, comm_, &arrived, &status), "MPI_Iprobe");
        return arrived != 0;
      },
      timeout_,
      [&](const std::string& why) {
        fail("waiting for the {} from rank {}: {}; rank {} has died or hangs", what, from, why, from);
      });
  int count = 0;
  check(MPI_Get_count(&status, MPI_BYTE, &count), "MPI_Get_count");
  std::string bytes(static_cast<std::size_t>(count), '\0');
  check(MPI_Recv(bytes.data(), count, MPI_BYTE, from, tag, comm_, MPI_STATUS_IGNORE), "MPI_Recv");
  return bytes;
}

std::vector<std::string> MpiTeam::exchange(const std::vector<std::pair<int, std::string>>& outgoing,
                                           const std::vector<int>& from) {
  // Sends first (non-blocking), then the receives: no pair of ranks can wait on each other.
  std::vector<MPI_Request> requests;
  for (const auto& [to, bytes] : outgoing) {
    if (to == rank_ || to < 0 || to >= size_) fail("rank {}: migrants addressed to rank {}", rank_, to);
    post_send(to, kTagMigration, bytes, requests);
    exchanged_bytes_ += bytes.size();
    ++exchanged_messages_;
  }
  std::vector<std::string> received;
  for (int r : from) received.push_back(receive(r, kTagMigration, "migrants"));
  wait_sends(requests, "migrants");
  return received;
}

std::vector<std::string> MpiTeam::gather(const std::string& mine) {
  std::vector<std::string> all;
  if (rank_ == 0) {
    all.push_back(mine);
    for (int r = 1; r < size_; ++r) all.push_back(receive(r, kTagGather, "report"));
  } else {
    std::vector<MPI_Request> requests;
    post_send(0, kTagGather, mine, requests);
    wait_sends(requests, "report to rank 0");
  }
  return all;
}

void MpiTeam::broadcast(std::string& bytes) {
  if (rank_ == 0) {
    std::vector<MPI_Request> requests;
    for (int r = 1; r < size_; ++r) post_send(r, kTagBroadcast, bytes, requests);
    wait_sends(requests, "broadcast");
  } else {
    bytes = receive(0, kTagBroadcast, "broadcast");
  }
}

}  // namespace ef::mpi
