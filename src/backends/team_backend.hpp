// A generation's games over the ranks of a team (docs/scale-out.md, "The Elo GA over MPI
// ranks"): `mpirun -np R evalforge evolve` runs the GA on rank 0 alone, in front of a backend
// that plays each batch of games on all R ranks; ranks 1..R-1 only serve games.
//
// Rank 0 holds a TeamBackend around its own backend. Every agent it adds or updates goes to its
// own backend and, as bytes (engine/agent_bytes.hpp), to every other rank's backend, under the
// same handle. A batch of n games is split as the multi-device backend splits one: rank r plays
// the contiguous games [r n / R, (r + 1) n / R), rank 0 its own share meanwhile, and the records
// come back to rank 0 in game order. A game's record is a pure function of its job on every
// backend (backends/backend.hpp), so the run has the bits of one process for any R.
//
// Training jobs and position sets stay on rank 0's backend: the GA runs that go through this
// backend only play, and the shape search spreads its islands over the ranks instead
// (runs/shape_search_run.hpp).
//
// Messages (all through ga::IslandTeam, so an MPI team's watchdog bounds every wait): rank 0
// broadcasts one command at a time, [u8 op][game name][i32 handle or game count][payload]; for
// a batch it then sends each rank its jobs, and gathers one reply from each: [u8 ok] and the
// records, or the rank's error message. A rank that failed on an agent reports it at the next
// batch. Rank 0's errors end the job (the command line's MPI_Abort); a serving rank's error comes
// back to rank 0 as an ef::Error naming the rank. After any failure (a serving rank's, rank 0's
// own share's, the team's) the serving ranks are in an unknown state (a reply may be left
// unread), so the backend refuses every later call and does not send the stop.
#pragma once
#include <memory>
#include "evalforge/backends/backend.hpp"
#include "evalforge/ga/island_team.hpp"

namespace ef {

// Rank 0's backend over `team` (every rank of it must be serving: serve_team_backend). One rank:
// `local` itself. When it is destroyed, the serving ranks are told to stop.
std::unique_ptr<Backend> make_team_backend(std::unique_ptr<Backend> local, ga::IslandTeam& team);

// A rank other than 0: plays the games rank 0 sends on `local` until rank 0's TeamBackend is
// destroyed. Throws ef::Error when the team fails (a peer died or timed out) or a command is
// corrupt; an error of `local` (an agent it refuses, a failed batch) goes back to rank 0.
// EF_TEST_FAIL_AT=RANK:BATCH (ga/island_team.hpp) makes this rank fail as it starts that batch.
void serve_team_backend(Backend& local, ga::IslandTeam& team);

}  // namespace ef
