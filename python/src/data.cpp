// Games and positions as numpy arrays: the readers, cache and data-set names of `evalforge data`,
// the positions at a move and the score procedure's fitness/test split.
#include <pybind11/stl.h>
#include "common.hpp"
#include "evalforge/core/error.hpp"
#include "evalforge/data/positions.hpp"
#include "evalforge/runs/score_table.hpp"

namespace ef::py {

namespace {

// A position set as numpy arrays that own the set's vectors.
struct Positions {
  int move = 0;
  py::array_t<u64> black, white;
  py::array_t<double> label;
  py::array_t<std::uint32_t> count;
  explicit Positions(data::PositionSet&& s)
      : move(s.move),
        black(to_numpy(std::move(s.black))),
        white(to_numpy(std::move(s.white))),
        label(to_numpy(std::move(s.label))),
        count(to_numpy(std::move(s.count))) {}
};

}  // namespace

void bind_data(py::module_& m) {
  py::class_<Positions>(m, "Positions",
                        "Positions at one move: bitboards of black and white discs (bit i = square i, a1 = 0, "
                        "h8 = 63), the label (final disc difference black - white, averaged over merged "
                        "duplicates) and how many games each entry stands for. The arrays share the library's "
                        "memory (no copy).")
      .def_readonly("move", &Positions::move, "The move number (discs placed since the start)")
      .def_readonly("black", &Positions::black, "uint64 bitboards of the black discs")
      .def_readonly("white", &Positions::white, "uint64 bitboards of the white discs")
      .def_readonly("label", &Positions::label, "float64 final disc difference black - white")
      .def_readonly("count", &Positions::count, "uint32 games behind each entry (1 when duplicates are kept)")
      .def("__len__", [](const Positions& p) { return p.label.size(); })
      .def("__repr__",
           [](const Positions& p) { return fmt::format("<Positions move={} n={}>", p.move, p.label.size()); });

  py::class_<Games>(m, "Games",
                    "Othello game records, read by evalforge's readers (load_games). Each game is its moves "
                    "(squares 0..63 in play order, passes implicit) and its final score.")
      .def("__len__", [](const Games& g) { return g.db->games.size(); })
      .def_property_readonly(
          "files", [](const Games& g) { return g.db->files; }, "The files read, in order")
      .def_property_readonly(
          "problems",
          [](const Games& g) {
            std::vector<std::string> out;
            for (const auto& p : g.db->problems) out.push_back(data::describe(p));
            return out;
          },
          "One line per skipped or flagged record ('file:line: what')")
      .def_property_readonly(
          "read_errors", [](const Games& g) { return g.db->read_errors; },
          "Damaged files whose earlier games were used (accept_damaged=True)")
      .def_property_readonly(
          "scores",
          [](const Games& g) {
            std::vector<std::int32_t> s;
            for (const auto& game : g.db->games) s.push_back(game.score);
            return to_numpy(std::move(s));
          },
          "int32 final disc difference black - white of every game")
      .def(
          "moves",
          [](const Games& g, std::size_t i) {
            if (i >= g.db->games.size()) throw py::index_error(fmt::format("game {} of {}", i, g.db->games.size()));
            return to_numpy(std::vector<std::uint8_t>(g.db->games[i].moves));
          },
          py::arg("index"), "The moves of game `index`: uint8 squares in play order")
      .def(
          "positions",
          [](const Games& g, int move, const std::string& dedup, const std::string& label) {
            const ScoreOptions o = score_options({move}, "position", dedup, label, 1, 0.2);
            return Positions(run_interruptible(
                [db = g.db, move, o] { return data::positions_at_move(db->games, move, o.positions); }));
          },
          py::arg("move"), py::arg("dedup") = "merge", py::arg("label") = "recorded",
          "All positions at `move` (dedup: 'merge' identical boards, averaging labels, or 'keep' them)")
      .def(
          "split",
          [](const Games& g, int move, const std::string& split, const std::string& dedup, const std::string& label,
             u64 seed, double test_fraction) {
            const ScoreOptions o = score_options({move}, split, dedup, label, seed, test_fraction);
            MoveSplit ms =
                run_interruptible([db = g.db, move, o] { return score_positions_at_move(db->games, move, o); });
            return py::make_tuple(Positions(std::move(ms.split.first)), Positions(std::move(ms.split.second)));
          },
          py::arg("move"), py::arg("split") = "position", py::arg("dedup") = "auto", py::arg("label") = "recorded",
          py::arg("seed") = 1, py::arg("test_fraction") = 0.2,
          "The (fitness, test) positions at `move` exactly as `evalforge score` splits them");

  m.def(
      "load_games",
      [](const py::object& data, bool cache, bool fatal, bool accept_damaged) {
        const std::vector<std::string> specs = data_specs_from_python(data, "data");
        return Games{run_interruptible(
            [specs, cache, fatal, accept_damaged] { return load_database(specs, cache, fatal, accept_damaged); })};
      },
      py::arg("data"), py::arg("cache") = true, py::arg("fatal") = false, py::arg("accept_damaged") = false,
      "Reads game records as `evalforge score --data` does: paths (logbook .gam/.gam.gz, WTHOR .wtb, "
      "transcripts, PGN, GGF) or data-set names such as 'logbook' (fetched into the cache when missing). "
      "cache: use the binary cache of parsed games; fatal: stop at the first bad record; accept_damaged: "
      "use the games read before a damaged part of a file. Raises evalforge.Error naming the file.");
}

}  // namespace ef::py
