// Where `--backend auto` sends a batch on a machine with a device (make_routing_backend, below):
// the cost model, declared here once. It estimates the seconds a batch
// takes on the CPU backend and on the device, and gives the device's share of the batch (its
// jobs or games, as one contiguous part) that ends the batch first: 0 (all on the CPU), 1 (all
// on the device) or a split between them. The split changes no bit: every backend returns the
// reference's bits for every job (backend.hpp's contract).
//
// The figures are those measured on an H200 against the 16 threads of its host, in the same run
// (docs/cuda.md, "Measured on an H200", 2026-12-04); the CPU's are per thread, so that another
// thread count scales them. Two caveats, kept here so that the next device run corrects them:
// - Deep-search games were measured at 256 and 2,048 games only (latency-bound: about the same
//   8 s for both). The model gives the device a floor of 7.7 s and the 2,048-game rate at any
//   size: such batches stay on the CPU until they take it longer than the floor (about 14,000
//   games at depth 3 on 16 threads), and the device gets a small share beyond. The crossover
//   table of gpu_bench (16,384-65,536 games) is what would show where the device really wins.
// - Training: the paper generation (800 jobs) gives the CPU 316 ns a sample and thread, but the
//   64 paper-config jobs of `verify` took the CPU 0.062 s against the device's 0.243 s, a rate
//   six times higher; with the first figure the model sends 24 of 64 such jobs to the device
//   (a split at 0.378), where the second would keep them all on the CPU.
#pragma once
#include <cstddef>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include "evalforge/backends/backend.hpp"

namespace ef::routing {

// A training batch as the model sees it.
struct TrainWork {
  std::size_t jobs = 0;
  double samples = 0;  // training steps and evaluations of all the jobs
  double chain = 0;    // the most training steps of one job: on the device they follow each other
};
TrainWork train_work(std::span<const TrainJob> jobs);

// A batch of games: how many, and whether any of its players searches (beyond one ply, or
// exact endgames): such games are latency-bound on the device (one thread plays one game).
struct PlayWork {
  std::size_t games = 0;
  bool searching = false;
};

// Whether an agent's games are searching games for the model (above).
bool searches(const play::AgentOf<games::Othello>& agent);
bool searches(const play::AgentOf<games::TicTacToe>& agent);
bool searches(const play::AgentOf<games::Hex>& agent);
bool searches(const play::AgentOf<games::ConnectFour>& agent);

struct CostModel {
  // CPU backend: seconds a unit on one thread.
  double cpu_sample = 3.16e-7;          // gpu_bench: 800 paper jobs, 2.48e8 samples, 4.90 s on 16 threads
  double cpu_shallow_game = 1.61e-5;    // evolve_bench: 123,552 one-ply games, 0.124 s on 16 threads
  double cpu_searching_game = 8.75e-3;  // verify: 2,048 games at depth 3, exact from 14, 1.12 s on 16 threads
  // Device: seconds a batch, a unit of throughput, and a unit of a job's dependent chain.
  double device_batch = 2e-3;              // launches, uploads, the sample orders (not measured alone)
  double device_sample = 3.88e-9;          // the 800 jobs in 0.962 s
  double device_chain_sample = 7.8e-7;     // 64 jobs in 0.243 s: one job's 310,000 dependent samples
  double device_shallow_game = 1.29e-7;    // the 123,552 one-ply games in 0.0159 s
  double device_searching_game = 4.23e-3;  // the 2,048 deep-search games in 8.67 s (see the caveat)
  double device_searching_floor = 7.7;     // 256 of them took 7.71 s: the slowest game, one thread's

  // Seconds for the CPU's part (1 - share) on `threads` threads and the device's part (share).
  // A job runs on one thread, so the CPU's part takes at least its longest job.
  double cpu_seconds(const TrainWork& w, int threads, double share) const;
  double device_seconds(const TrainWork& w, double share) const;
  double cpu_seconds(const PlayWork& w, int threads, double share) const;
  double device_seconds(const PlayWork& w, double share) const;

  // The device's share that ends the batch first: the best of all on the CPU, all on the
  // device, and the split at which both parts take equally long (a tie with all on the CPU goes
  // to the CPU, one between the split and all on the device to the split).
  double device_share(const TrainWork& w, int cpu_threads) const;
  double device_share(const PlayWork& w, int cpu_threads) const;
};

// The device's share of the last batch a routing backend divided (nullopt for any other backend,
// or before its first batch): how tests see the route.
std::optional<double> last_device_share(const Backend& backend);

}  // namespace ef::routing

namespace ef {

// `--backend auto` where a device exists: a CPU backend on `threads` and a `device_kind` backend
// (cuda; another cpu in the tests) on `device`, behind one Backend, each on a worker thread of
// its own (as make_multi_device_backend does). Position sets and agents go to both under one
// handle; each batch is divided by `model` (the CPU takes the first part), and since both give
// the reference's bits, the route changes none.
std::unique_ptr<Backend> make_routing_backend(std::string_view device_kind, int threads, int device,
                                              const routing::CostModel& model = {});

}  // namespace ef
