// The one interface between host-side schedulers (score tables, BRKGA islands, matches) and
// the machines that do the fitness work. Two implementations: `cpu` (a thread pool; the
// reference) and `cuda` (kernels), which must return the same bits for the same jobs.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>
#include "evalforge/engine/play_backend.hpp"
#include "evalforge/games/othello/ntuple.hpp"
#include "evalforge/games/registry.hpp"

namespace ef {

// Positions with fixed-point labels, handed to a backend once and kept resident there
// (on the device for CUDA) across many batches.
struct PositionData {
  std::vector<u64> black, white;
  std::vector<i64> label;  // final disc difference in units of 2^-16 (ntuple::kOne)
  std::size_t size() const { return label.size(); }
};

// The ranges of the training parameters, declared once: every config reader
// (runs/training_table.hpp) and every command-line option checks against these.
constexpr double kMinLearningRate = 1e-6, kMaxLearningRate = 1.0;
constexpr int kMaxEpochs = 10000;
constexpr int kMaxBatchSize = 1 << 20;

struct TrainParams {
  // Defaults chosen by the sweep in docs/training.md (logbook, moves 18/30/42, both splits).
  double learning_rate = 0.03;  // fraction of a position's error one step removes (see ntuple.hpp)
  int epochs = 4;
  int batch_size = 1;  // positions whose updates are applied together (integer adds commute)
  u64 seed = 1;        // with TrainJob::stream, keys the per-epoch sample order
};

// Train one network on `train_ids` of `positions`, from all-zero weights or from
// `initial_weights`, then measure its loss on `eval_ids`. The sample order of epoch e is a
// Philox shuffle of train_ids keyed by (params.seed, stream[0], stream[1], e): jobs with equal
// keys see the same order. With shuffle = false every epoch takes train_ids as given: a caller
// with an order of its own (the match experiment's, runs/match_experiment.cpp) shuffles them.
struct TrainJob {
  const ntuple::Geometry* geometry = nullptr;
  int positions = -1;  // handle from Backend::add_positions
  std::span<const std::uint32_t> train_ids;
  std::span<const std::uint32_t> eval_ids;
  TrainParams params;
  std::uint32_t stream[2] = {0, 0};
  bool shuffle = true;
  // Empty: start from zeros. Otherwise geometry->num_weights() weights to continue from (a
  // network that keeps learning, as the match's agents do after every round).
  std::span<const i32> initial_weights;
  bool return_weights = false;
  bool record_epoch_loss = false;  // training loss of every epoch (for loss curves)
};

struct TrainResult {
  ntuple::LossSums eval_loss;
  std::vector<ntuple::LossSums> epoch_loss;  // filled when record_epoch_loss
  std::vector<i32> weights;                  // filled when return_weights
};

// The training half: n-tuple networks trained on resident position sets.
class TrainBackend {
 public:
  virtual ~TrainBackend() = default;
  virtual std::string name() const = 0;
  virtual int add_positions(const PositionData& data) = 0;
  // Frees a position set that no later job names (a run that adds a set a round, as the match
  // experiment does, would otherwise hold every round's positions). Its handle is not reused;
  // a job that names it afterwards is an error.
  virtual void remove_positions(int handle) = 0;
  virtual void train(std::span<const TrainJob> jobs, std::span<TrainResult> results) = 0;
};

// The whole backend: training, and playouts for every game of games/registry.hpp. The playout
// methods (add_agent, update_agent, play) are engine/play_backend.hpp's PlayBackend<G>, one base
// per game, so that a game's own code can take a PlayBackend<G>& and need nothing else.
#define EF_PLAY_BACKEND_BASE(G) , public play::PlayBackend<G>
class Backend : public TrainBackend EF_FOR_EACH_PLAYOUT_GAME(EF_PLAY_BACKEND_BASE) {
#undef EF_PLAY_BACKEND_BASE
 public:
  // Every game's overloads visible on a Backend (each base declares its own).
#define EF_USE_PLAY_BACKEND(G)              \
  using play::PlayBackend<G>::add_agent;    \
  using play::PlayBackend<G>::update_agent; \
  using play::PlayBackend<G>::play;
  EF_FOR_EACH_PLAYOUT_GAME(EF_USE_PLAY_BACKEND)
#undef EF_USE_PLAY_BACKEND
};

// A backend that passes every call to another one: derive from it to observe or count some
// calls (tests) without restating the rest of the interface.
class ForwardingBackend : public Backend {
 public:
  explicit ForwardingBackend(Backend& inner) : inner_(inner) {}
  std::string name() const override { return inner_.name(); }
  int add_positions(const PositionData& data) override { return inner_.add_positions(data); }
  void remove_positions(int handle) override { inner_.remove_positions(handle); }
  void train(std::span<const TrainJob> jobs, std::span<TrainResult> results) override { inner_.train(jobs, results); }
#define EF_FORWARD_PLAYOUT_METHODS(G)                                                                           \
  int add_agent(const play::AgentOf<G>& agent) override { return inner_.add_agent(agent); }                     \
  void update_agent(int handle, const play::AgentOf<G>& agent) override { inner_.update_agent(handle, agent); } \
  void play(std::span<const GameJobOf<G>> jobs, std::span<play::GameRecordOf<G>> results) override {            \
    inner_.play(jobs, results);                                                                                 \
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

// The checks of a training batch, the same on every backend (a bad job is the same error
// wherever it goes; backends that split a batch check it whole first): a result slot per job, a
// live position set (set_size: its size, nullopt for a handle that names none or a removed one),
// a geometry of 1 to kMaxTuples tuples, batch_size >= 1, epochs >= 0, every id inside its set
// (on the device an id outside would be an illegal address; each distinct id span checked once)
// and initial weights, where given, of the geometry's size. Throws ef::Error naming the job.
void validate_train_batch(std::span<const TrainJob> jobs, std::size_t result_slots,
                          const std::function<std::optional<std::size_t>(int)>& set_size);

// The per-epoch sample order (shared by both backends): ids shuffled by Fisher-Yates.
void shuffle_ids(std::span<std::uint32_t> ids, u64 seed, std::uint32_t stream0, std::uint32_t stream1,
                 std::uint32_t epoch);

}  // namespace ef
