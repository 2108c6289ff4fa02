// The evalforge Python module (docs/python.md): the library's data readers, the score
// procedure as a batched fitness function, agents, games and the solver, for optimisers written
// in Python. Only library code is called here; this file converts and binds.
#include <Python.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>
#include <chrono>
#include <filesystem>
#include "common.hpp"
#include "evalforge/core/error.hpp"
#include "evalforge/core/install_paths.hpp"
#include "evalforge/core/version.hpp"
#include "evalforge/data/datasets.hpp"
#include "evalforge/games/othello/squares.hpp"

namespace ef::py {

Worker::Worker() : thread_([q = queue_] { loop(q); }) {}

Worker::~Worker() {
  bool busy;
  {
    std::lock_guard lock(queue_->mutex);
    queue_->stopping = true;
    busy = queue_->busy || !queue_->tasks.empty();
  }
  queue_->cv.notify_all();
  if (busy)
    thread_.detach();
  else
    thread_.join();
}

std::shared_ptr<Task> Worker::post(std::function<void()> work) {
  auto task = std::make_shared<Task>();
  task->work = std::move(work);
  {
    std::lock_guard lock(queue_->mutex);
    queue_->tasks.push_back(task);
  }
  queue_->cv.notify_all();
  return task;
}

void Worker::loop(const std::shared_ptr<Queue>& q) {
  for (;;) {
    std::shared_ptr<Task> task;
    {
      std::unique_lock lock(q->mutex);
      q->busy = false;
      q->cv.wait(lock, [&] { return q->stopping || !q->tasks.empty(); });
      if (q->tasks.empty()) return;  // stopping, and nothing left to run
      task = std::move(q->tasks.front());
      q->tasks.pop_front();
      q->busy = true;
    }
    std::exception_ptr error;
    try {
      task->work();
    } catch (...) {
      error = std::current_exception();
    }
    task->work = nullptr;  // what the work captured is freed here, on the worker, not by a waiter
    {
      std::lock_guard lock(task->mutex);
      task->error = error;
      task->done = true;
    }
    task->cv.notify_all();
  }
}

void wait_interruptibly(Task& task) {
  bool interrupted = false;
  {
    py::gil_scoped_release release;
    std::unique_lock lock(task.mutex);
    while (!task.cv.wait_for(lock, std::chrono::milliseconds(100), [&] { return task.done; })) {
      lock.unlock();
      {
        py::gil_scoped_acquire acquire;
        // Runs the Python-level handlers of signals that arrived (SIGINT: KeyboardInterrupt);
        // the exception stays set in this thread until it is raised below.
        interrupted = PyErr_CheckSignals() != 0;
      }
      if (interrupted) break;
      lock.lock();
    }
  }
  if (interrupted) throw py::error_already_set();
  if (task.error) std::rethrow_exception(task.error);
}

void run_on(Worker& worker, std::function<void()> work) { wait_interruptibly(*worker.post(std::move(work))); }

namespace {

// One square: an integer 0..63 (a1 = 0, b1 = 1, ..., h8 = 63) or its name. Only integers: a
// float (1.5 would truncate to b1), a bool, a complex number or any other object is refused
// naming it, and an integer of any size is compared as a Python int (no wrap-around).
std::string square_from_python(const py::handle& sq, const std::string& where) {
  if (py::isinstance<py::str>(sq)) return sq.cast<std::string>();
  const auto refuse = [&] {
    fail("{}: {} is not a square (expected an integer 0..63 or a name a1..h8)", where,
         py::repr(sq).cast<std::string>());
  };
  // A numpy bool scalar; other objects with a dtype (a torch tensor) have no dtype.kind.
  const bool numpy_bool = py::hasattr(sq, "dtype") && py::hasattr(sq.attr("dtype"), "kind") &&
                          py::str(sq.attr("dtype").attr("kind")).cast<std::string>() == "b";
  if (py::isinstance<py::bool_>(sq) || numpy_bool) refuse();
  if (!py::isinstance<py::int_>(sq) && !py::hasattr(sq, "__index__")) refuse();
  const py::int_ v(py::module_::import("operator").attr("index")(sq));
  if (v < py::int_(0) || v > py::int_(63)) refuse();
  return square_name(v.cast<int>());
}

// An integer array's dtype kind ('i' signed, 'u' unsigned), or a refusal naming the dtype:
// floats, bools, complex numbers and objects are not squares.
char integer_kind(const py::array& a, const std::string& where) {
  const char kind = a.dtype().kind();
  if (kind != 'i' && kind != 'u')
    fail("{}: an array of squares must have an integer dtype (got {})", where, py::str(a.dtype()).cast<std::string>());
  return kind;
}

ntuple::Shape shape_from_tuples(const py::handle& tuples, std::string name, const std::string& where) {
  std::vector<std::vector<std::string>> named;
  if (py::isinstance<py::array>(tuples)) {
    const py::array raw = py::reinterpret_borrow<py::array>(tuples);
    if (raw.ndim() != 2) fail("{}: an array shape must be 2-D (tuples x squares, -1 as padding)", where);
    if (integer_kind(raw, where) == 'u') {
      // Unsigned: no padding value; every entry must be a square (a uint64 maximum no longer
      // wraps to -1 and vanishes as padding).
      const auto a = py::array_t<unsigned long long, py::array::c_style | py::array::forcecast>::ensure(raw);
      for (py::ssize_t t = 0; t < a.shape(0); ++t) {
        std::vector<std::string> tuple;
        for (py::ssize_t k = 0; k < a.shape(1); ++k)
          tuple.push_back(square_from_python(py::int_(a.at(t, k)), fmt::format("{}: tuple {}", where, t + 1)));
        named.push_back(std::move(tuple));
      }
    } else {
      const auto a = py::array_t<long long, py::array::c_style | py::array::forcecast>::ensure(raw);
      for (py::ssize_t t = 0; t < a.shape(0); ++t) {
        std::vector<std::string> tuple;
        for (py::ssize_t k = 0; k < a.shape(1); ++k)
          if (a.at(t, k) != -1)
            tuple.push_back(square_from_python(py::int_(a.at(t, k)), fmt::format("{}: tuple {}", where, t + 1)));
        named.push_back(std::move(tuple));
      }
    }
  } else {
    if (!py::isinstance<py::sequence>(tuples) || py::isinstance<py::str>(tuples))
      fail("{}: expected a list of tuples of squares, got {}", where, py::str(tuples.get_type()).cast<std::string>());
    std::size_t t = 0;
    for (const py::handle& tuple : tuples) {
      ++t;
      const std::string at = fmt::format("{}: tuple {}", where, t);
      if (!py::isinstance<py::sequence>(tuple) || py::isinstance<py::str>(tuple))
        fail("{}: expected a list of squares, got {}", at, py::repr(tuple).cast<std::string>());
      std::vector<std::string> squares;
      for (const py::handle& sq : tuple) squares.push_back(square_from_python(sq, at));
      named.push_back(std::move(squares));
    }
  }
  return ntuple::make_shape(std::move(name), named, where);
}

void add_shape(const py::handle& shape, std::size_t index, std::vector<ntuple::Shape>& out) {
  const std::string where = fmt::format("shape {}", index + 1);
  if (py::isinstance<py::str>(shape) || py::hasattr(shape, "__fspath__")) {
    const std::string spec = py::str(py::module_::import("os").attr("fspath")(shape)).cast<std::string>();
    for (auto& s : ntuple::load_shapes(spec)) out.push_back(std::move(s));
    return;
  }
  if (py::isinstance<py::dict>(shape)) {
    const py::dict d = py::reinterpret_borrow<py::dict>(shape);
    if (!d.contains("tuples")) fail("{}: a shape dict needs 'tuples' (and may have 'name')", where);
    const std::string name =
        d.contains("name") ? py::str(d["name"]).cast<std::string>() : "shape" + std::to_string(index + 1);
    out.push_back(shape_from_tuples(d["tuples"], name, where));
    return;
  }
  out.push_back(shape_from_tuples(shape, "shape" + std::to_string(index + 1), where));
}

}  // namespace

std::vector<ntuple::Shape> shapes_from_python(const py::handle& shapes) {
  std::vector<ntuple::Shape> out;
  if (py::isinstance<py::str>(shapes) || py::hasattr(shapes, "__fspath__")) {
    add_shape(shapes, 0, out);
  } else if (py::isinstance<py::array>(shapes)) {
    const py::array a = py::reinterpret_borrow<py::array>(shapes);
    if (a.ndim() != 3) fail("shapes: an integer array of shapes must be 3-D (shapes x tuples x squares)");
    (void)integer_kind(a, "shapes");
    for (py::ssize_t s = 0; s < a.shape(0); ++s) add_shape(a[py::int_(s)], static_cast<std::size_t>(s), out);
  } else if (py::isinstance<py::sequence>(shapes)) {
    std::size_t i = 0;
    for (const py::handle& shape : shapes) add_shape(shape, i++, out);
  } else {
    fail("shapes: expected a list of shapes, a 3-D integer array or a shape file, got {}",
         py::str(shapes.get_type()).cast<std::string>());
  }
  if (out.empty()) fail("shapes: no shape given");
  return out;
}

std::vector<std::string> data_specs_from_python(const py::handle& specs, const char* what) {
  const auto one = [&](const py::handle& h) -> std::string {
    if (py::isinstance<py::str>(h) || py::hasattr(h, "__fspath__"))
      return py::str(py::module_::import("os").attr("fspath")(h)).cast<std::string>();
    fail("{}: expected a path or a data-set name, got {}", what, py::repr(h).cast<std::string>());
  };
  if (py::isinstance<py::str>(specs) || py::hasattr(specs, "__fspath__")) return {one(specs)};
  std::vector<std::string> out;
  if (py::isinstance<py::sequence>(specs))
    for (const py::handle& h : specs) out.push_back(one(h));
  else
    fail("{}: expected a path, a data-set name or a list of them, got {}", what, py::repr(specs).cast<std::string>());
  if (out.empty()) fail("{}: no file given", what);
  return out;
}

std::shared_ptr<const data::GameDatabase> load_database(const std::vector<std::string>& specs, bool use_cache,
                                                        bool fatal, bool accept_damaged) {
  data::ReadOptions ro;
  ro.use_cache = use_cache;
  ro.fatal_problems = fatal;
  ro.accept_read_errors = accept_damaged;
  auto db = std::make_shared<data::GameDatabase>(data::load_games(data::resolve_data_specs(specs), ro));
  if (db->games.empty()) fail("{}: no usable games", fmt::join(specs, ", "));
  return db;
}

ScoreOptions score_options(const std::vector<int>& moves, const std::string& split, const std::string& dedup,
                           const std::string& label, u64 seed, double test_fraction) {
  ScoreOptions o;
  if (moves.empty()) fail_input("moves", "no move number given");
  o.moves = moves;
  if (split == "position")
    o.split = data::SplitBy::kPosition;
  else if (split == "game")
    o.split = data::SplitBy::kGame;
  else
    fail_input("split", "'{}' is not a split (expected position or game)", split);
  // "auto": as `evalforge score`: merged for a split by position, kept (the paper's) by game.
  if (dedup == "merge" || (dedup == "auto" && o.split == data::SplitBy::kPosition))
    o.positions.duplicates = data::Duplicates::kMerge;
  else if (dedup == "keep" || dedup == "auto")
    o.positions.duplicates = data::Duplicates::kKeep;
  else
    fail_input("dedup", "'{}' is not a choice (expected merge, keep or auto)", dedup);
  if (label == "theoretical")
    o.positions.label = data::LabelSource::kTheoretical;
  else if (label != "recorded")
    fail_input("label", "'{}' is not a label (expected recorded or theoretical)", label);
  if (!(test_fraction >= 0.01 && test_fraction <= 0.99))
    fail_input("test_fraction", "{} is outside [0.01, 0.99]", test_fraction);
  o.seed = seed;
  o.test_fraction = test_fraction;
  return o;
}

TrainParams train_params(double learning_rate, int epochs, int batch_size, u64 seed) {
  // The ranges of every front end (backends/backend.hpp).
  if (!(learning_rate >= kMinLearningRate && learning_rate <= kMaxLearningRate))
    fail_input("learning_rate", "{} is outside [{}, {}]", learning_rate, kMinLearningRate, kMaxLearningRate);
  if (epochs < 0 || epochs > kMaxEpochs) fail_input("epochs", "{} is outside [0, {}]", epochs, kMaxEpochs);
  if (batch_size < 1 || batch_size > kMaxBatchSize)
    fail_input("batch_size", "{} is outside [1, {}]", batch_size, kMaxBatchSize);
  TrainParams p;
  p.learning_rate = learning_rate;
  p.epochs = epochs;
  p.batch_size = batch_size;
  p.seed = seed;
  return p;
}

}  // namespace ef::py

PYBIND11_MODULE(_evalforge, m) {
  namespace py = pybind11;
  m.doc() = "evalforge: the fitness-evaluation engine as a library (docs/python.md)";
  m.attr("__version__") = ef::version();
  // ef::Error: the library's user-facing errors (bad file, bad value), with the same message as the CLI.
  static py::exception<ef::Error> error(m, "Error", PyExc_RuntimeError);
  error.doc() =
      "An error of evalforge's library (a bad file, shape or value): the message names the file, key or input, "
      "as the evalforge command line prints it.";
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const ef::Error& e) {
      // Python's messages are str: bytes that are not UTF-8 (a corrupt file's, quoted) would
      // make the message empty, so it is escaped as the command line escapes it.
      error(ef::displayable_message(e.what()).c_str());
    }
  });
  // An installed package carries its own networks/ (the solver's ordering network): __init__.py
  // names it here, ahead of a networks/ beside an installed evalforge binary (core/install_paths.hpp).
  m.def(
      "_set_networks_dir", [](const std::string& folder) { ef::set_networks_dir(folder); }, py::arg("folder"));
  ef::py::bind_data(m);
  ef::py::bind_evaluator(m);
  ef::py::bind_agents(m);
  ef::py::bind_runs(m);
}
