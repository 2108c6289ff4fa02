// The one interface between host-side schedulers (score tables, BRKGA islands, matches) and
// the machines that do the fitness work. Two implementations: `cpu` (a thread pool; the
// reference) and `cuda` (kernels), which must return the same bits for the same jobs.
#pragma once
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>
#include "evalforge/eval/ntuple.hpp"
#include "evalforge/play/players.hpp"

namespace ef {

// Positions with fixed-point labels, handed to a backend once and kept resident there
// (on the device for CUDA) across many batches.
struct PositionData {
  std::vector<u64> black, white;
  std::vector<i64> label;  // final disc difference in units of 2^-16 (ntuple::kOne)
  std::size_t size() const { return label.size(); }
};

struct TrainParams {
  // Defaults chosen by the sweep in docs/training.md (logbook, moves 18/30/42, both splits).
  double learning_rate = 0.03;  // fraction of a position's error one step removes (see ntuple.hpp)
  int epochs = 4;
  int batch_size = 1;          // positions whose updates are applied together (integer adds commute)
  u64 seed = 1;                // with TrainJob::stream, keys the per-epoch sample order
};

// Train one network from all-zero weights on `train_ids` of `positions`, then measure its loss
// on `eval_ids`. The sample order of epoch e is a Philox shuffle keyed by
// (params.seed, stream[0], stream[1], e): jobs with equal keys see the same order.
struct TrainJob {
  const ntuple::Geometry* geometry = nullptr;
  int positions = -1;                       // handle from Backend::add_positions
  std::span<const std::uint32_t> train_ids;
  std::span<const std::uint32_t> eval_ids;
  TrainParams params;
  std::uint32_t stream[2] = {0, 0};
  bool return_weights = false;
  bool record_epoch_loss = false;           // training loss of every epoch (for loss curves)
};

struct TrainResult {
  ntuple::LossSums eval_loss;
  std::vector<ntuple::LossSums> epoch_loss;  // filled when record_epoch_loss
  std::vector<i32> weights;                  // filled when return_weights
};

// One game of self-play of game G (play/playout.hpp): the players by handle (Backend::add_agent
// for G; `black` moves first), the start position (side to move included), and the key of the
// game's random stream. Trivially copyable: the CUDA backend uploads jobs as they are.
template <play::PlayoutGame G>
struct GameJobOf {
  int black = -1, white = -1;
  typename G::State start{};
  u64 seed = 1;
  std::uint32_t game = 0;
};
using GameJob = GameJobOf<games::Othello>;

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;
  virtual int add_positions(const PositionData& data) = 0;
  virtual void train(std::span<const TrainJob> jobs, std::span<TrainResult> results) = 0;
  // Playouts, for every game of play/players.hpp. Agents are copied to the backend (weights to
  // the device for CUDA) and named by handle, one handle space per game; update_agent replaces
  // one (e.g. after retraining) without changing its handle. play() plays every job to the end;
  // the move lists and scores are the same on every backend and for every thread count
  // (playout.hpp's determinism contract).
#define EF_BACKEND_PLAYOUT_METHODS(G)                                                      \
  virtual int add_agent(const play::AgentOf<G>& agent) = 0;                                \
  virtual void update_agent(int handle, const play::AgentOf<G>& agent) = 0;                \
  virtual void play(std::span<const GameJobOf<G>> jobs, std::span<play::GameRecordOf<G>> results) = 0;
  EF_FOR_EACH_PLAYOUT_GAME(EF_BACKEND_PLAYOUT_METHODS)
#undef EF_BACKEND_PLAYOUT_METHODS
};

// A backend that passes every call to another one: derive from it to observe or count some
// calls (tests) without restating the rest of the interface.
class ForwardingBackend : public Backend {
 public:
  explicit ForwardingBackend(Backend& inner) : inner_(inner) {}
  std::string name() const override { return inner_.name(); }
  int add_positions(const PositionData& data) override { return inner_.add_positions(data); }
  void train(std::span<const TrainJob> jobs, std::span<TrainResult> results) override { inner_.train(jobs, results); }
#define EF_FORWARD_PLAYOUT_METHODS(G)                                                                         \
  int add_agent(const play::AgentOf<G>& agent) override { return inner_.add_agent(agent); }                   \
  void update_agent(int handle, const play::AgentOf<G>& agent) override { inner_.update_agent(handle, agent); } \
  void play(std::span<const GameJobOf<G>> jobs, std::span<play::GameRecordOf<G>> results) override {          \
    inner_.play(jobs, results);                                                                               \
  }
  EF_FOR_EACH_PLAYOUT_GAME(EF_FORWARD_PLAYOUT_METHODS)
#undef EF_FORWARD_PLAYOUT_METHODS

 protected:
  Backend& inner_;
};

// kind: "cpu", "cuda" or "auto" (cuda when a device is present, else cpu). threads: CPU
// worker threads (0 = all hardware threads). device: the CUDA device of a cuda backend
// (make_cuda_backend; a CPU backend ignores it). Throws ef::Error for an unknown or absent kind.
std::unique_ptr<Backend> make_backend(std::string_view kind, int threads, int device = 0);
// One backend of `kind` per listed device behind one Backend (`evolve --devices 0,1`): each
// owned by a worker thread (a CUDA backend must stay on the thread that made it), resources
// added to all under one handle, every batch split into contiguous chunks run at once on the
// devices, results in the caller's order: the same bits as one backend. `threads` (0 = all)
// are shared among the devices. One device: a plain backend. With kind "cpu" the list only
// counts backends (how it is tested without a GPU). Throws ef::Error for a repeated device or
// one a backend cannot open.
std::unique_ptr<Backend> make_multi_device_backend(std::string_view kind, int threads, std::span<const int> devices);

// The per-epoch sample order (shared by both backends): ids shuffled by Fisher-Yates.
void shuffle_ids(std::span<std::uint32_t> ids, u64 seed, std::uint32_t stream0, std::uint32_t stream1,
                 std::uint32_t epoch);

}  // namespace ef
