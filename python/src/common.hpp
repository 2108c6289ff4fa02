// What the module's source files share: numpy arrays that own moved C++ vectors (zero-copy),
// running library work on a worker thread while Python stays interruptible, and the
// conversion of Python shape descriptions to the library's shapes.
#pragma once
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>
#include "evalforge/data/games.hpp"
#include "evalforge/games/othello/agent.hpp"
#include "evalforge/games/othello/shape.hpp"
#include "evalforge/runs/score_table.hpp"

namespace ef::py {

namespace py = pybind11;

// A 1-D numpy array over `v`'s buffer: the vector is moved to the heap and freed with the array.
template <typename T>
py::array_t<T> to_numpy(std::vector<T>&& v) {
  auto* owner = new std::vector<T>(std::move(v));
  py::capsule free_owner(owner, [](void* p) { delete static_cast<std::vector<T>*>(p); });
  return py::array_t<T>({static_cast<py::ssize_t>(owner->size())}, {static_cast<py::ssize_t>(sizeof(T))}, owner->data(),
                        free_owner);
}

// One library call to run away from the Python thread (Worker::post).
struct Task {
  std::function<void()> work;
  std::mutex mutex;
  std::condition_variable cv;
  bool done = false;
  std::exception_ptr error;
};

// A thread that runs posted tasks in order. An evaluator's backend lives on its worker from
// construction to destruction: a CUDA backend must be used from the thread that made it, and
// tasks queue behind a batch that an interrupt abandoned instead of racing it. Tasks must own
// (shared_ptr) what they use: an abandoned task outlives the call that posted it.
class Worker {
 public:
  Worker();
  // Idle: joins. Still running an abandoned task: lets the thread finish its queue on its own
  // (detached), so that dropping an evaluator, or leaving Python after Ctrl-C, does not wait
  // for a batch nobody wants.
  ~Worker();
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;
  std::shared_ptr<Task> post(std::function<void()> work);

 private:
  struct Queue {
    std::mutex mutex;
    std::condition_variable cv;
    std::deque<std::shared_ptr<Task>> tasks;
    bool stopping = false, busy = false;
  };
  static void loop(const std::shared_ptr<Queue>& q);
  std::shared_ptr<Queue> queue_ = std::make_shared<Queue>();
  std::thread thread_;
};

// Waits for `task` with the GIL released, taking the GIL every 100 ms to run Python's signal
// handlers: Ctrl-C (or an exception from any handler) is raised here at once, while the task,
// which the backend cannot cancel, runs to its end on the worker. The task's own ef::Error
// (or other exception) is rethrown here when it ends.
void wait_interruptibly(Task& task);

// post + wait_interruptibly.
void run_on(Worker& worker, std::function<void()> work);

// Runs `work` on a thread of its own while Python stays interruptible (wait_interruptibly) and
// returns its result: loading games, solving, playing can take long enough for a Ctrl-C. `work`
// must own what it uses (captures by value or shared_ptr): after an interrupt it finishes in the
// background, after this call has returned.
template <typename F>
auto run_interruptible(F work) -> decltype(work()) {
  auto result = std::make_shared<std::optional<decltype(work())>>();
  Worker worker;
  run_on(worker, [work = std::move(work), result]() mutable { result->emplace(work()); });
  return std::move(**result);
}

// Shapes from Python: a str (a shape file or "edax", possibly several shapes), a dict
// {"name": ..., "tuples": [...]}, a sequence of tuples (squares as 0..63 or "a1".."h8"), or an
// integer array (tuples x squares, -1 padding). `shapes` is one str, a 3-D integer array
// (shapes x tuples x squares) or a sequence of shapes. Errors name the shape and tuple.
std::vector<ntuple::Shape> shapes_from_python(const py::handle& shapes);

// A loaded game database, shared by the Games object and the evaluators built from it.
struct Games {
  std::shared_ptr<const data::GameDatabase> db;
};

// An Othello agent (agents.cpp), shared with the evaluator that trains one.
struct Agent {
  std::shared_ptr<const play::OthelloAgent> agent;
};

// Paths or data-set names (str, os.PathLike or a sequence of them) as the CLI's --data takes them.
std::vector<std::string> data_specs_from_python(const py::handle& specs, const char* what);

// The games of `specs`, read as the CLI reads --data (data-set names fetched into the cache).
std::shared_ptr<const data::GameDatabase> load_database(const std::vector<std::string>& specs, bool use_cache,
                                                        bool fatal, bool accept_damaged);

// The score procedure's options from the names `evalforge score` takes (--split, --dedup,
// --label, ...), with the same defaults and checks; errors name the keyword.
ScoreOptions score_options(const std::vector<int>& moves, const std::string& split, const std::string& dedup,
                           const std::string& label, u64 seed, double test_fraction);
TrainParams train_params(double learning_rate, int epochs, int batch_size, u64 seed);

void bind_data(py::module_& m);
void bind_evaluator(py::module_& m);
void bind_agents(py::module_& m);
void bind_runs(py::module_& m);

}  // namespace ef::py
