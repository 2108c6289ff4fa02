// The batched fitness function: the score procedure (runs/score_table.hpp) split into its data
// step, done once when the evaluator is built, and its training step, one backend batch per
// evaluate() call.
#include <pybind11/stl.h>
#include <chrono>
#include "common.hpp"
#include "evalforge/backends/backend.hpp"
#include "evalforge/core/error.hpp"
#include "evalforge/core/memory_check.hpp"
#include "evalforge/runs/shape_fitness.hpp"

namespace ef::py {

namespace {

class Evaluator {
 public:
  Evaluator(std::shared_ptr<const data::GameDatabase> db, ScoreOptions options, const std::string& backend,
            int threads) {
    if (threads < 0 || threads > 1024) fail_input("threads", "{} is outside [0, 1024]", threads);
    backend_kind_ = backend;
    threads_ = threads;
    state_->db = std::move(db);
    state_->options = std::move(options);
    run_on(*worker_, [s = state_, backend, threads] {
      s->backend = make_backend(backend, threads);
      s->backend_name = s->backend->name();
      s->prepared = prepare_score(s->db->games, s->options, *s->backend);
    });
  }

  ~Evaluator() {
    // The last reference to the state (and so the backend) is dropped on the worker, the
    // thread that made the backend. No GIL needed meanwhile: the worker never takes it.
    py::gil_scoped_release release;
    worker_->post([s = std::move(state_)]() mutable { s.reset(); });
    worker_.reset();
  }

  // Trains every (move, shape) as one backend batch; (mse, mae), each shapes x moves.
  std::pair<py::array_t<double>, py::array_t<double>> evaluate(const py::handle& shapes_in) {
    const std::vector<ntuple::Shape> shapes = shapes_from_python(shapes_in);
    // Owned by the task: if Ctrl-C abandons the batch, it still has its geometries and rows.
    auto geometries = std::make_shared<std::vector<ntuple::Geometry>>();
    for (const auto& s : shapes) geometries->push_back(s.geometry());
    check_batch_memory("evaluate", *geometries, false);
    auto rows = std::make_shared<std::vector<ScoreRow>>();
    run_on(*worker_, [s = state_, geometries, rows] {
      const auto t0 = std::chrono::steady_clock::now();
      *rows = score_shapes(s->prepared, *geometries, s->options, *s->backend);
      s->last_batch_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    });
    const std::size_t n_shapes = geometries->size(), n_moves = rows->size();
    py::array_t<double> mse({n_shapes, n_moves}), mae({n_shapes, n_moves});
    auto wmse = mse.mutable_unchecked<2>();
    auto wmae = mae.mutable_unchecked<2>();
    for (std::size_t m = 0; m < n_moves; ++m)
      for (std::size_t k = 0; k < n_shapes; ++k) {
        wmse(k, m) = (*rows)[m].cells[k].mse;
        wmae(k, m) = (*rows)[m].cells[k].mae;
      }
    return {mse, mae};
  }

  // The search's fitness of `geometries` (ga::evaluate_generation's, for shapes given from
  // outside): per move k (island k), a train/validation split of the fitness positions keyed
  // (seed, island k, generation); validation MSE, shapes x moves. One backend batch.
  py::array_t<double> validate(const std::vector<ntuple::Shape>& shapes, u32 generation, double validation_fraction) {
    auto geometries = std::make_shared<std::vector<ntuple::Geometry>>();
    for (const auto& s : shapes) geometries->push_back(s.geometry());
    check_batch_memory("validate", *geometries, false);
    auto mse = std::make_shared<std::vector<double>>();
    run_on(*worker_, [s = state_, geometries, mse, generation, validation_fraction] {
      ga::FitnessOptions fo;
      fo.train = s->options.train;
      fo.validation_fraction = validation_fraction;
      const std::size_t n_moves = s->prepared.rows.size();
      std::vector<ga::TrainValidationIds> splits;
      for (std::size_t k = 0; k < n_moves; ++k) {
        const auto n = static_cast<u32>(s->prepared.fitness_ids[k].size());
        splits.push_back(
            ga::train_validation_split(n, validation_fraction, s->options.seed, static_cast<u32>(k), generation));
        if (splits.back().train.empty() || splits.back().validation.empty())
          fail_input("validation_fraction", "move {}: {} fitness positions leave {} for training and {} for validation",
                     s->prepared.rows[k].move, n, splits.back().train.size(), splits.back().validation.size());
      }
      std::vector<TrainJob> jobs;
      for (std::size_t k = 0; k < n_moves; ++k) {
        const ga::IslandFitnessData data{s->prepared.handles[k], static_cast<u32>(s->prepared.fitness_ids[k].size())};
        for (const auto& g : *geometries)
          jobs.push_back(ga::fitness_job(g, data, splits[k], fo, s->options.seed, static_cast<u32>(k), generation));
      }
      std::vector<TrainResult> results(jobs.size());
      s->backend->train(jobs, results);
      // shapes x moves
      mse->assign(jobs.size(), 0.0);
      for (std::size_t k = 0; k < n_moves; ++k)
        for (std::size_t i = 0; i < geometries->size(); ++i)
          (*mse)[i * n_moves + k] = results[k * geometries->size() + i].eval_loss.mse();
    });
    py::array_t<double> out({geometries->size(), state_->prepared.rows.size()});
    std::copy(mse->begin(), mse->end(), out.mutable_data());
    return out;
  }

  // Trains `shapes` as evaluate() does, keeping the trained weights: the rows of score_shapes.
  std::vector<ScoreRow> train(const std::vector<ntuple::Shape>& shapes) {
    auto geometries = std::make_shared<std::vector<ntuple::Geometry>>();
    for (const auto& s : shapes) geometries->push_back(s.geometry());
    check_batch_memory("agent", *geometries, true);
    auto rows = std::make_shared<std::vector<ScoreRow>>();
    run_on(*worker_, [s = state_, geometries, rows] {
      ScoreOptions o = s->options;
      o.return_weights = true;
      *rows = score_shapes(s->prepared, *geometries, o, *s->backend);
    });
    return std::move(*rows);
  }

  // The same batch through the C++ API alone (score_shapes on the worker), timed there: what
  // evaluate() costs beyond it is the module's overhead (bench/python_overhead.py).
  double native_seconds(const py::handle& shapes_in) {
    const std::vector<ntuple::Shape> shapes = shapes_from_python(shapes_in);
    auto geometries = std::make_shared<std::vector<ntuple::Geometry>>();
    for (const auto& s : shapes) geometries->push_back(s.geometry());
    check_batch_memory("evaluate", *geometries, false);
    auto seconds = std::make_shared<double>(0.0);
    run_on(*worker_, [s = state_, geometries, seconds] {
      const auto t0 = std::chrono::steady_clock::now();
      const auto rows = score_shapes(s->prepared, *geometries, s->options, *s->backend);
      *seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    });
    return *seconds;
  }

  const PreparedScore& prepared() const { return state_->prepared; }
  const std::string& backend_name() const { return state_->backend_name; }
  double last_batch_seconds() const { return state_->last_batch_seconds; }

 private:
  // As `evalforge score` does: a batch that cannot fit (large tuples on many threads) is
  // refused before it is handed to the backend.
  void check_batch_memory(std::string_view who, const std::vector<ntuple::Geometry>& geometries,
                          bool return_weights) const {
    ScoreOptions o = state_->options;
    o.return_weights = return_weights;
    (void)check_memory(who, score_memory_estimate(geometries, state_->prepared.rows.size(), o, backend_kind_, threads_),
                       "fewer or smaller shapes, fewer moves or threads");
  }

  std::string backend_kind_;
  int threads_ = 0;
  // What the worker's tasks use, owned jointly with them (an interrupted task outlives its call).
  struct State {
    std::shared_ptr<const data::GameDatabase> db;  // ScoreOptions::test_games points into it
    ScoreOptions options;
    std::unique_ptr<Backend> backend;  // made, used and destroyed on the worker
    std::string backend_name;
    PreparedScore prepared;
    double last_batch_seconds = 0;  // the last evaluate()'s score_shapes, timed on the worker
  };
  std::shared_ptr<State> state_ = std::make_shared<State>();
  std::unique_ptr<Worker> worker_ = std::make_unique<Worker>();
};

template <typename T, typename F>
py::array_t<T> per_move(const Evaluator& e, F field) {
  std::vector<T> v;
  for (const auto& r : e.prepared().rows) v.push_back(static_cast<T>(field(r)));
  return to_numpy(std::move(v));
}

}  // namespace

void bind_evaluator(py::module_& m) {
  py::class_<Evaluator>(m, "Evaluator",
                        R"doc(The score procedure of `evalforge score` as a batched fitness function.

Built once: the games are split at every move into fitness and test positions (as
`evalforge score` splits them, with the same options and defaults) and the splits are made
resident on the backend. Then each `evaluate(shapes)` trains a network from zero for every
(shape, move) on the fitness positions and measures its loss on the test positions: ONE backend
batch, with the GIL released. The losses are bit for bit those of `evalforge score` for the same
data, shapes and options.

Ctrl-C during `evaluate` raises KeyboardInterrupt within about 0.1 s. A backend batch cannot be
cancelled: the abandoned batch finishes on the evaluator's worker thread (its CPU threads or GPU
stay busy until then) and the evaluator's next call waits for it.)doc")
      .def(py::init([](const py::object& data, const std::vector<int>& moves, const std::string& split,
                       const std::string& dedup, const std::string& label, u64 seed, double test_fraction,
                       double learning_rate, int epochs, int batch_size, u64 train_seed, const std::string& backend,
                       int threads, bool cache, const py::object& test_data, bool exclude_seen) {
             ScoreOptions o = score_options(moves, split, dedup, label, seed, test_fraction);
             o.train = train_params(learning_rate, epochs, batch_size, train_seed);
             std::shared_ptr<const data::GameDatabase> db;
             if (py::isinstance<Games>(data)) {
               db = data.cast<const Games&>().db;
             } else {
               const auto specs = data_specs_from_python(data, "data");
               db = run_interruptible([specs, cache] { return load_database(specs, cache, false, false); });
             }
             // Held-out test games, as `score --test-data`: kept alive by the evaluator's options.
             std::shared_ptr<const data::GameDatabase> test_db;
             if (!test_data.is_none()) {
               if (py::isinstance<Games>(test_data)) {
                 test_db = test_data.cast<const Games&>().db;
               } else {
                 const auto specs = data_specs_from_python(test_data, "test_data");
                 test_db = run_interruptible([specs, cache] { return load_database(specs, cache, false, false); });
               }
             } else if (exclude_seen) {
               fail_input("exclude_seen", "needs test_data (it drops held-out test positions)");
             }
             o.exclude_seen = exclude_seen;
             // The options point at the test games: one database object holds both.
             std::shared_ptr<const data::GameDatabase> keep = db;
             if (test_db) {
               auto both = std::make_shared<
                   std::pair<std::shared_ptr<const data::GameDatabase>, std::shared_ptr<const data::GameDatabase>>>(
                   db, test_db);
               o.test_games = &both->second->games;
               keep = std::shared_ptr<const data::GameDatabase>(both, both->first.get());
             }
             return std::make_unique<Evaluator>(keep, o, backend, threads);
           }),
           py::arg("data"), py::kw_only(), py::arg("moves") = std::vector<int>{18, 22, 26, 30, 34, 38, 42, 46},
           py::arg("split") = "position", py::arg("dedup") = "auto", py::arg("label") = "recorded", py::arg("seed") = 1,
           py::arg("test_fraction") = 0.2, py::arg("learning_rate") = TrainParams{}.learning_rate,
           py::arg("epochs") = TrainParams{}.epochs, py::arg("batch_size") = TrainParams{}.batch_size,
           py::arg("train_seed") = TrainParams{}.seed, py::arg("backend") = "cpu", py::arg("threads") = 0,
           py::arg("cache") = true, py::arg("test_data") = py::none(), py::arg("exclude_seen") = false,
           R"doc(data: paths or data-set names (as `evalforge score --data`), or a Games object.
Keywords as `evalforge score`'s flags: moves (--moves), split, dedup, label, seed, test_fraction,
learning_rate (--lr), epochs, batch_size (--batch), train_seed (--train-seed), backend
('cpu', 'cuda' or 'auto'), threads (0 = all), cache (False = --no-cache), test_data and
exclude_seen (held-out test games).)doc")
      .def(
          "evaluate",
          [](Evaluator& e, const py::handle& shapes, bool return_mae) -> py::object {
            auto [mse, mae] = e.evaluate(shapes);
            if (return_mae) return py::make_tuple(mse, mae);
            return mse;
          },
          py::arg("shapes"), py::arg("return_mae") = false,
          R"doc(Test losses of `shapes`, trained from zero at every move: a float64 array (shapes x moves)
of the test MSE (discs^2), or (mse, mae) with return_mae=True.

shapes: a list of shapes, a 3-D integer array (shapes x tuples x squares, -1 as padding) or a
shape file / 'edax'. A shape is a list of tuples of squares (0..63 with a1 = 0, h8 = 63, or
names 'a1'..'h8'), a 2-D integer array, a dict {'name': ..., 'tuples': [...]} or a shape file.)doc")
      .def(
          "validate",
          [](Evaluator& e, const py::handle& shapes, u32 generation, double validation_fraction) {
            return e.validate(shapes_from_python(shapes), generation, validation_fraction);
          },
          py::arg("shapes"), py::kw_only(), py::arg("generation") = 0, py::arg("validation_fraction") = 0.2,
          R"doc(The shape search's fitness of `shapes` (`evalforge search`, docs/method.md 1.3): at move k
(the search's island k, in the order of `moves`), a train/validation split of the fitness
positions keyed (seed, island k, generation), training on the first part with the training
parameters and `seed` as the training seed, validation MSE on the second. A float64 array
(shapes x moves), one backend batch; the same bits as the search's fitness of the same shape at
that island and generation when the evaluator is built with the search's data options and
seed.)doc")
      .def(
          "train",
          [](Evaluator& e, const py::handle& shape) {
            const std::vector<ntuple::Shape> shapes = shapes_from_python(py::make_tuple(shape));
            if (shapes.size() != 1)
              fail("shape: {} names {} shapes; train takes one", py::repr(shape).cast<std::string>(), shapes.size());
            std::vector<ScoreRow> rows = e.train(shapes);
            py::list weights;
            std::vector<double> mse;
            for (auto& r : rows) {
              mse.push_back(r.cells[0].mse);
              weights.append(to_numpy(std::move(r.cells[0].weights)));
            }
            return py::make_tuple(to_numpy(std::move(mse)), weights);
          },
          py::arg("shape"),
          R"doc(Trains one shape at every move as evaluate() does and keeps the networks: returns
(test mse per move, [int32 weights per move]) -- the weights are fixed point (2^-16 discs),
in the library's index layout for the shape's tuples.)doc")
      .def(
          "agent",
          [](Evaluator& e, const py::handle& shape, int depth, int exact_empties) {
            const std::vector<ntuple::Shape> shapes = shapes_from_python(py::make_tuple(shape));
            if (shapes.size() != 1)
              fail("shape: {} names {} shapes; agent takes one", py::repr(shape).cast<std::string>(), shapes.size());
            std::vector<ScoreRow> rows = e.train(shapes);
            auto agent = std::make_shared<play::OthelloAgent>(score_agent(shapes[0], rows, 0, {depth, exact_empties}));
            agent->validate();
            return Agent{std::move(agent)};
          },
          py::arg("shape"), py::kw_only(), py::arg("depth") = 1, py::arg("exact_empties") = -1,
          R"doc(Trains one shape at every move and returns it as an n-tuple Agent, exactly the agent
`evalforge score --save-agents` writes (the nearest scored move's network for other moves).)doc")
      .def_property_readonly("_last_batch_seconds", &Evaluator::last_batch_seconds,
                             "Benchmarks only: seconds of the last evaluate()'s batch inside C++ (score_shapes)")
      .def("_native_seconds", &Evaluator::native_seconds, py::arg("shapes"),
           "Benchmarks only: seconds of the same batch through the C++ API (score_shapes), timed in C++")
      .def_property_readonly(
          "moves", [](const Evaluator& e) { return per_move<int>(e, [](const ScoreRow& r) { return r.move; }); },
          "The move numbers, the columns of evaluate()'s arrays")
      .def_property_readonly(
          "fitness_positions",
          [](const Evaluator& e) {
            return per_move<std::int64_t>(e, [](const ScoreRow& r) { return r.fitness_positions; });
          },
          "Training (fitness) positions per move")
      .def_property_readonly(
          "test_positions",
          [](const Evaluator& e) {
            return per_move<std::int64_t>(e, [](const ScoreRow& r) { return r.test_positions; });
          },
          "Test positions per move")
      .def_property_readonly(
          "constant_mse",
          [](const Evaluator& e) { return per_move<double>(e, [](const ScoreRow& r) { return r.constant_mse; }); },
          "Test MSE of predicting the fitness set's mean label, per move")
      .def_property_readonly(
          "irreducible_mse",
          [](const Evaluator& e) { return per_move<double>(e, [](const ScoreRow& r) { return r.irreducible_mse; }); },
          "Test MSE of predicting each distinct test board's own mean label, per move")
      .def_property_readonly("backend", &Evaluator::backend_name, "The backend's name ('cpu', 'cuda', ...)");
}

}  // namespace ef::py
