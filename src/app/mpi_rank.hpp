// A command run as one rank of an MPI job (docs/scale-out.md): what `search` and `evolve` share
// under mpirun. Built only with MPI (EF_HAVE_MPI).
#pragma once
#include <functional>
#include <string>
#include <string_view>
#include "ga/mpi_team.hpp"
#include "runs/run_kinds.hpp"

namespace ef::app {

// The node's share of this rank: `threads` 0 becomes the node's cores divided among its ranks
// (results never depend on the thread count), and a backend other than cpu gets one GPU by
// local rank: entry local_rank (mod the count) of CUDA_VISIBLE_DEVICES, or device local_rank
// when it is unset, set before the backend touches CUDA so that it holds for the whole process.
void share_node(const mpi::MpiTeam& team, int& threads, const std::string& backend);

// Runs body(dir) on this rank; `dir` gets the run directory as soon as it is known. An error on
// any rank is printed with the rank and ends the whole job (MPI_Abort), so no rank waits for it
// forever; rank 0 adds, where a run directory of `kind` was made, how to resume it
// (mpi_resume_command): checkpoints are atomic, so the directory holds the last one.
void run_as_rank(mpi::MpiTeam& team, RunKind kind, const std::function<void(std::string& dir)>& body);

}  // namespace ef::app
