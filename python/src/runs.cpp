// The built-in shape search (runs/shape_search_run.hpp) from Python: start or resume a run
// directory with a per-generation callback, as `evalforge search` does.
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>
#include <atomic>
#include <cmath>
#include <filesystem>
#include "common.hpp"
#include "evalforge/core/error.hpp"
#include "evalforge/data/datasets.hpp"
#include "evalforge/runs/evolve_run.hpp"
#include "evalforge/runs/shape_search_run.hpp"

namespace ef::py {

namespace {

// The callbacks' Python objects, released with the GIL held whichever thread drops the last copy.
struct Callbacks {
  py::object on_generation, progress;
  ~Callbacks() {
    py::gil_scoped_acquire gil;
    on_generation = py::object();
    progress = py::object();
  }
};

// Runs `start` (a run kind's run_* or resume_*) on a worker thread with `o`'s progress and stop
// wired to Python. The first Ctrl-C asks the run to stop as the CLI does (finish the generation
// in flight, write a checkpoint) and raises KeyboardInterrupt once it has; the run resumes later.
template <class Options, class Outcome>
Outcome run_stoppable(std::function<Outcome(const Options&)> start, Options o,
                      const std::shared_ptr<Callbacks>& callbacks, const std::string& resume_hint) {
  auto stop = std::make_shared<std::atomic<bool>>(false);
  o.resume_hint = resume_hint;
  o.stop_requested = [stop] { return stop->load(); };
  if (!callbacks->progress.is_none())
    o.progress = [callbacks](const std::string& line) {
      py::gil_scoped_acquire gil;
      callbacks->progress(line);
    };
  auto outcome = std::make_shared<Outcome>();
  Worker worker;
  auto task = worker.post([start, o, outcome] { *outcome = start(o); });
  bool interrupted = false;
  for (;;) {
    try {
      wait_interruptibly(*task);
      break;
    } catch (py::error_already_set& e) {
      if (!e.matches(PyExc_KeyboardInterrupt) || interrupted) throw;
      interrupted = true;  // ask for the checkpoint, then wait for it
      stop->store(true);
    }
  }
  if (interrupted) {
    PyErr_SetNone(PyExc_KeyboardInterrupt);
    throw py::error_already_set();
  }
  return *outcome;
}

py::dict run_search_with_callbacks(std::function<ga::SearchOutcome(const ga::SearchRunOptions&)> start,
                                   const std::string& backend, int threads, const py::object& on_generation,
                                   const py::object& progress, const std::string& dir) {
  auto callbacks = std::shared_ptr<Callbacks>(new Callbacks{on_generation, progress});
  ga::SearchRunOptions o;
  o.backend = backend;
  o.threads = threads;
  if (!on_generation.is_none())
    o.on_generation = [callbacks](int generation, const std::vector<ga::GenerationRow>& rows) {
      py::gil_scoped_acquire gil;
      std::vector<int> island, move;
      std::vector<double> best, mean, worst, test, seconds;
      for (const auto& r : rows) {
        island.push_back(r.island);
        move.push_back(r.move);
        best.push_back(r.best);
        mean.push_back(r.mean);
        worst.push_back(r.worst);
        test.push_back(r.test);
        seconds.push_back(r.seconds);
      }
      py::dict d;
      d["island"] = to_numpy(std::move(island));
      d["move"] = to_numpy(std::move(move));
      d["best"] = to_numpy(std::move(best));
      d["mean"] = to_numpy(std::move(mean));
      d["worst"] = to_numpy(std::move(worst));
      d["test"] = to_numpy(std::move(test));
      d["seconds"] = to_numpy(std::move(seconds));
      callbacks->on_generation(generation, d);
    };
  const ga::SearchOutcome outcome =
      run_stoppable(std::move(start), o, callbacks, "evalforge.resume_search(\"" + dir + "\")");
  py::dict out;
  out["dir"] = dir;
  out["generations_done"] = outcome.generations_done;
  out["complete"] = outcome.complete;
  out["interrupted"] = outcome.interrupted;
  return out;
}

py::dict run_evolve_with_callbacks(std::function<ga::EvolveOutcome(const ga::EvolveRunOptions&)> start,
                                   const std::string& backend, int threads, const py::object& progress,
                                   const std::string& dir) {
  auto callbacks = std::shared_ptr<Callbacks>(new Callbacks{py::none(), progress});
  ga::EvolveRunOptions o;
  o.backend = backend;
  o.threads = threads;
  const ga::EvolveOutcome outcome =
      run_stoppable(std::move(start), o, callbacks, "evalforge.resume_evolve(\"" + dir + "\")");
  py::dict out;
  out["dir"] = dir;
  out["generations_done"] = outcome.generations_done;
  out["complete"] = outcome.complete;
  out["stalled"] = outcome.stalled;
  out["interrupted"] = outcome.interrupted;
  return out;
}

std::string path_string(const py::object& p) {
  return py::str(py::module_::import("os").attr("fspath")(p)).cast<std::string>();
}

}  // namespace

void bind_runs(py::module_& m) {
  m.def(
      "search",
      [](const py::object& config, const py::object& out, const py::object& data, int generations,
         const std::string& backend, int threads, const py::object& on_generation, const py::object& progress) {
        const std::string file = py::str(py::module_::import("os").attr("fspath")(config)).cast<std::string>();
        const std::string dir = py::str(py::module_::import("os").attr("fspath")(out)).cast<std::string>();
        ga::SearchConfig c = ga::load_search_config(file);
        if (!data.is_none()) c.data_files = data_specs_from_python(data, "data");
        if (c.data_files.empty()) fail("search: no data (give data= or [data] files in {})", file);
        if (generations > 0) c.generations = generations;
        return run_search_with_callbacks(
            [c, dir](const ga::SearchRunOptions& o) {
              ga::SearchConfig resolved = c;
              // Data-set names become the cached files, as `evalforge search` resolves them.
              resolved.data_files = data::expand_dataset_names(resolved.data_files);
              resolved.test_files = data::expand_dataset_names(resolved.test_files);
              return ga::run_search(resolved, dir, o);
            },
            backend, threads, on_generation, progress, dir);
      },
      py::arg("config"), py::arg("out"), py::kw_only(), py::arg("data") = py::none(), py::arg("generations") = 0,
      py::arg("backend") = "cpu", py::arg("threads") = 0, py::arg("on_generation") = py::none(),
      py::arg("progress") = py::none(),
      R"doc(Starts a shape-search run (`evalforge search --config CONFIG --out OUT`): the BRKGA islands
of docs/search.md, in the run directory `out`. data: overrides the config's [data] files;
generations > 0 overrides its count. on_generation(generation, rows) is called after each
generation with numpy arrays per island (island, move, best, mean, worst, test (NaN when not
measured), seconds); progress(line) gets the progress lines. Ctrl-C stops as the CLI does: the
generation in flight finishes, a checkpoint is written, then KeyboardInterrupt is raised;
resume_search continues the run with the same bits. Returns {'dir', 'generations_done',
'complete', 'interrupted'}.)doc");

  m.def(
      "resume_search",
      [](const py::object& dir_in, int generations, const std::string& backend, int threads,
         const py::object& on_generation, const py::object& progress) {
        const std::string dir = py::str(py::module_::import("os").attr("fspath")(dir_in)).cast<std::string>();
        return run_search_with_callbacks(
            [dir, generations](const ga::SearchRunOptions& o) { return ga::resume_search(dir, o, generations); },
            backend, threads, on_generation, progress, dir);
      },
      py::arg("dir"), py::kw_only(), py::arg("generations") = 0, py::arg("backend") = "cpu", py::arg("threads") = 0,
      py::arg("on_generation") = py::none(), py::arg("progress") = py::none(),
      "Continues the search run in `dir` (`evalforge search --resume DIR`); generations > 0 extends the count.");

  m.def(
      "evolve",
      [](const py::object& config, const py::object& out, int generations, const std::string& backend, int threads,
         const py::object& progress) {
        ga::EvolveConfig c = ga::load_evolve_config(path_string(config));
        if (generations > 0) c.generations() = generations;
        const std::string dir = path_string(out);
        return run_evolve_with_callbacks([c, dir](const ga::EvolveRunOptions& o) { return ga::run_evolve(c, dir, o); },
                                         backend, threads, progress, dir);
      },
      py::arg("config"), py::arg("out"), py::kw_only(), py::arg("generations") = 0, py::arg("backend") = "cpu",
      py::arg("threads") = 0, py::arg("progress") = py::none(),
      R"doc(Starts an evolve run (`evalforge evolve --config CONFIG --out OUT`: the Elo round-robin GA,
Tic-Tac-Toe networks, docs/evolve.md) in the run directory `out`; generations > 0 overrides
the config's. progress(line) gets the progress lines. Ctrl-C stops as the CLI does, with a checkpoint,
then raises KeyboardInterrupt. Returns {'dir', 'generations_done', 'complete', 'stalled',
'interrupted'}.)doc");

  m.def(
      "resume_evolve",
      [](const py::object& dir_in, int generations, const std::string& backend, int threads,
         const py::object& progress) {
        const std::string dir = path_string(dir_in);
        return run_evolve_with_callbacks(
            [dir, generations](const ga::EvolveRunOptions& o) { return ga::resume_evolve(dir, o, generations); },
            backend, threads, progress, dir);
      },
      py::arg("dir"), py::kw_only(), py::arg("generations") = 0, py::arg("backend") = "cpu", py::arg("threads") = 0,
      py::arg("progress") = py::none(),
      "Continues the evolve run in `dir` (`evalforge evolve --resume DIR`); generations > 0 changes the limit.");
}

}  // namespace ef::py
