// Kernels over the shared EF_HD search bodies: fixed-depth alpha-beta with each evaluator, the
// exact endgame solver, and Tic-Tac-Toe -- one position per thread. Every build with nvcc
// compiles them, which proves the search headers (explicit stacks, no recursion, no
// allocation) compile for the device; self-play playouts (issue 5) launch the same bodies.
//
// Frames live in each thread's local memory, so the stacks are sized here for what a device
// search needs rather than for any position: depth <= kDeviceMaxDepth, endgames with
// <= kDeviceMaxEmpties empties (the match of docs/method.md 1.4 solves from 20).
#include <cuda_runtime.h>
#include "evalforge/engine/alphabeta.hpp"
#include "evalforge/games/othello/endgame.hpp"
#include "evalforge/games/othello/features.hpp"
#include "evalforge/games/othello/game.hpp"
#include "evalforge/games/othello/ntuple_evaluator.hpp"
#include "evalforge/games/othello/swh.hpp"
#include "evalforge/games/othello/tree_search.hpp"
#include "evalforge/games/tictactoe/game.hpp"

namespace ef::cuda {

constexpr int kDeviceMaxDepth = 10;
constexpr int kDeviceMaxEmpties = 24;

template <class E>
__device__ void search_othello(const othello::Position* roots, int n, int depth, const E& evaluator,
                               search::SearchResult* results) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) results[i] = search::alphabeta<games::Othello, E, kDeviceMaxDepth>(roots[i], depth, evaluator);
}

// Alpha-beta to `depth` plies with the SWH piece counter.
__global__ void alphabeta_swh_kernel(const othello::Position* roots, int n, int depth, search::SearchResult* results) {
  search_othello(roots, n, depth, swh::Evaluator{}, results);
}

// Alpha-beta with the feature-weight evaluator (one chromosome for all threads, in device memory).
__global__ void alphabeta_features_kernel(const othello::Position* roots, int n, int depth,
                                          const features::Evaluator* evaluator, search::SearchResult* results) {
  search_othello(roots, n, depth, *evaluator, results);
}

// Alpha-beta with an n-tuple network: the evaluator's geometry and weight pointers are device
// pointers.
__global__ void alphabeta_ntuple_kernel(const othello::Position* roots, int n, int depth,
                                        const ntuple::Evaluator* evaluator, search::SearchResult* results) {
  search_othello(roots, n, depth, *evaluator, results);
}

// Exact endgame scores and moves. `tables` (may be null): entries_per_thread zeroed entries for
// each thread (a power of two), thread i's at tables + i * entries_per_thread.
__global__ void endgame_kernel(const u64* player, const u64* opponent, int n, search::endgame::HashEntry* tables,
                               u64 entries_per_thread, search::SolveResult* results) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  search::endgame::HashTable table{tables ? tables + static_cast<u64>(i) * entries_per_thread : nullptr,
                                   entries_per_thread - 1, 0};
  results[i] = search::solve_endgame<kDeviceMaxEmpties>(player[i], opponent[i], -64, 64, tables ? &table : nullptr);
}

// The Othello player's move: alpha-beta with SWH in the midgame, exact from limits.exact_empties.
__global__ void othello_player_swh_kernel(const othello::Position* roots, int n, search::OthelloLimits limits,
                                          search::SearchResult* results) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    results[i] =
        search::search_othello<swh::Evaluator, kDeviceMaxDepth, kDeviceMaxEmpties>(roots[i], limits, swh::Evaluator{});
}

// Tic-Tac-Toe: alpha-beta with the seed's static evaluator, legal moves and the symmetry class
// of each root.
__global__ void tictactoe_kernel(const tictactoe::Board* roots, int n, int depth, search::SearchResult* results,
                                 u32* moves, u32* canonical_keys) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  results[i] = search::alphabeta<games::TicTacToe>(roots[i], depth, tictactoe::StaticEvaluator{});
  moves[i] = roots[i].moves();
  canonical_keys[i] = tictactoe::canonical_key(roots[i]);
}

}  // namespace ef::cuda
