// Interface between the CUDA backend's host side (cuda_play.cpp) and the self-play kernel
// (play_kernels.cu): the launch and the kernel's attributes, one instantiation per playout game
// (games/registry.hpp). A game is its GameJobOf<G> as the host built it: the players are indices
// into the launch's table of ParamsOf<G>.
#pragma once
#include <cuda_runtime.h>
#include <cstddef>
#include "evalforge/backends/backend.hpp"
#include "evalforge/games/registry.hpp"

namespace ef::cuda {

// Threads per block of the play kernel (one game per thread). Not tuned: no device was
// available when it was chosen (docs/cuda.md).
constexpr int kPlayThreadsPerBlock = 64;

// Endgame transposition table entries per game (a power of two), when memory allows: 2^14
// entries of 24 bytes = 384 KiB a game. Changes node counts only, never a move (games/othello/players.hpp).
constexpr int kPlayTableBits = 14;

// The per-thread stack (cudaLimitStackSize) the backend sets before the first play launch, or
// the kernel's own figure when that is larger. nvcc 13.0 for sm_90 gives the kernel a 3,920-byte
// stack frame (ptxas -v); 8 KiB leaves room for other compilers and architectures, and costs
// 8 KiB x 2,048 threads x 132 SMs = 2.1 GiB of reserved device memory on an H200.
constexpr std::size_t kPlayStackBytes = 8192;

// Plays games[0..n) of game G (device arrays): thread i plays game i with agents[black] and
// agents[white] (parameters whose pointers, if any, are device pointers) into records[i].
// tables: null, or n * entries_per_game zeroed entries, game i's at tables + i * entries_per_game
// (the scratch's endgame table; games whose players use none get null).
template <class G>
cudaError_t launch_play(const play::ParamsOf<G>* agents, const GameJobOf<G>* games, int n,
                        play::GameRecordOf<G>* records, search::endgame::HashEntry* tables, u64 entries_per_game,
                        cudaStream_t stream);

// cudaFuncGetAttributes of G's play kernel: localSizeBytes is the per-thread stack the search
// frames need (see play_kernels.cu).
template <class G>
cudaError_t play_kernel_attributes(cudaFuncAttributes* attributes);

// Blocks of G's play kernel one multiprocessor holds at once (registers and stack permitting).
template <class G>
cudaError_t play_kernel_occupancy(int* blocks_per_multiprocessor);

}  // namespace ef::cuda
