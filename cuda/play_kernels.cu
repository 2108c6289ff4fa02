// Self-play on the GPU: whole games of every playout game (games/registry.hpp; one kernel
// instantiation per game), one game per thread, with the shared EF_HD body play::play_game
// (playout.hpp) -- the same function the CPU backend's worker threads run, so a game's move
// list, plies and score are the CPU's (playout.hpp's determinism contract: the random
// stream is keyed by the game, the searched move is a pure function of position, limits and
// evaluator; the transposition table changes node counts only).
//
// Layout: thread i plays game i of the launch from start to end.
//   - Why a thread per game: a game is a chain (every move depends on the position and random
//     draws before it) and each move is a depth-first alpha-beta or an exact solve whose
//     pruning depends on the order in which children return, so the parallelism that needs no
//     change to the search is across games. A self-play batch (a league round, a tournament, a
//     fitness evaluation) has thousands of independent games, enough threads to cover the GPU.
//     Every thread runs the same kernel body; the agents of a game are read from a table by
//     index and the evaluator kind is a switch inside choose_move (random / swh / features /
//     ntuple), so one kernel serves every mix of agents in a batch.
//   - Divergence: threads of a warp play different games, so their searches branch apart; the
//     warp executes the union of their paths. Within one search the loop body (enter a node,
//     generate and order moves, evaluate a leaf) is the same code for every thread, which keeps
//     the divergence to where the trees differ in shape, not in what code runs.
//   - Measured on an H200 (docs/cuda.md): at a few thousand deep-search games (under one warp an
//     SM) a batch lasts as long as its slowest game on one thread, 7.7-8.7 s where 16 host
//     threads take 0.16-1.1 s; at 1 ply and 123,552 games the kernel is 7.8x the CPU. Future
//     work for the deep case: a warp per game (lanes sharing the 8m features of an n-tuple leaf
//     as the training kernel does, or the children of a node), a block per game with a parallel
//     endgame solve, and the block size (kPlayThreadsPerBlock, not tuned).
//
// Memory per thread (figures for Othello, the heaviest game):
//   - Local memory (the stack): the alpha-beta frames (kMaxDepth + 1 = 11 frames of ~128 bytes:
//     position, window, 64 ordered moves) and the endgame solver's frames (kMaxExactEmpties - 5 =
//     19 frames of ~96 bytes: 24 ordered moves), the move-ordering keys and the unrolled
//     last-5-empties code (the host's pvs.hpp midgame search is not compiled here: no table).
//     The host reads the kernel's figure (cudaFuncGetAttributes: localSizeBytes) and raises
//     cudaLimitStackSize to it, or to kPlayStackBytes = 8 KiB when that is larger, before the
//     first launch. nvcc 13.0 for sm_90 gives this kernel a 4,544-byte stack frame and 168
//     registers (ptxas -v), so 8 KiB has room for another compiler's frames; docs/cuda.md.
//   - Global memory: the game's record (written in place, 136 bytes) and, when the batch has
//     agents that solve from 10 or more empties and memory allows, a zeroed endgame
//     transposition table of 2^kPlayTableBits entries (384 KiB) of its own.
#include <cuda_runtime.h>
#include "cuda/play_kernels.hpp"
#include "evalforge/engine/playout.hpp"
#include "evalforge/games/registry.hpp"

namespace ef::cuda {

namespace {

template <class G>
__global__ void __launch_bounds__(kPlayThreadsPerBlock)
    play_kernel(const play::ParamsOf<G>* __restrict__ agents, const GameJobOf<G>* __restrict__ games, int n,
                play::GameRecordOf<G>* __restrict__ records, search::endgame::HashEntry* tables, u64 entries_per_game) {
  const int i = static_cast<int>(blockIdx.x) * kPlayThreadsPerBlock + static_cast<int>(threadIdx.x);
  if (i >= n) return;
  const GameJobOf<G> g = games[i];
  search::endgame::HashTable table{tables ? tables + static_cast<u64>(i) * entries_per_game : nullptr,
                                   entries_per_game ? entries_per_game - 1 : 0, 0};
  play::PlayScratchOf<G> scratch;
  if constexpr (requires { scratch.endgame_table; }) scratch.endgame_table = tables ? &table : nullptr;
  play::play_game<G>(agents[g.black], agents[g.white], g.start, g.seed, g.game, records[i], scratch);
}

}  // namespace

template <class G>
cudaError_t launch_play(const play::ParamsOf<G>* agents, const GameJobOf<G>* games, int n,
                        play::GameRecordOf<G>* records, search::endgame::HashEntry* tables, u64 entries_per_game,
                        cudaStream_t stream) {
  if (n <= 0) return cudaSuccess;
  const int blocks = (n + kPlayThreadsPerBlock - 1) / kPlayThreadsPerBlock;
  play_kernel<G><<<blocks, kPlayThreadsPerBlock, 0, stream>>>(agents, games, n, records, tables, entries_per_game);
  return cudaGetLastError();
}

template <class G>
cudaError_t play_kernel_attributes(cudaFuncAttributes* attributes) {
  return cudaFuncGetAttributes(attributes, play_kernel<G>);
}

template <class G>
cudaError_t play_kernel_occupancy(int* blocks_per_multiprocessor) {
  return cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks_per_multiprocessor, play_kernel<G>, kPlayThreadsPerBlock,
                                                       0);
}

// The registration: one kernel per playout game.
#define EF_INSTANTIATE_PLAY_KERNEL(G)                                                                             \
  template cudaError_t launch_play<G>(const play::ParamsOf<G>*, const GameJobOf<G>*, int, play::GameRecordOf<G>*, \
                                      search::endgame::HashEntry*, u64, cudaStream_t);                            \
  template cudaError_t play_kernel_attributes<G>(cudaFuncAttributes*);                                            \
  template cudaError_t play_kernel_occupancy<G>(int*);
EF_FOR_EACH_PLAYOUT_GAME(EF_INSTANTIATE_PLAY_KERNEL)
#undef EF_INSTANTIATE_PLAY_KERNEL

}  // namespace ef::cuda
