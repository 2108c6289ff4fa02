// N-tuple network shapes on the host: a readable file format, validation, the built-in
// Edax shape, and conversion to the flat Geometry the shared EF_HD code uses.
//
// File format, JSON or TOML (by extension), squares named a1..h8:
//   JSON: {"name": "mine", "tuples": [["a1","b1","c1"], ...]}
//         or {"shapes": [{"name": ..., "move": 30, "tuples": [...]}, ...]} for several networks
//   TOML: name = "mine"
//         tuples = [["a1","b1","c1"], ...]
//         or [[shapes]] tables with name, move and tuples
#pragma once
#include <array>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>
#include "evalforge/games/othello/ntuple.hpp"
#include "evalforge/games/othello/ntuple_evaluator.hpp"

namespace ef::ntuple {

struct Shape {
  std::string name;
  int move = -1;                         // the move number it was searched for, if any
  std::vector<std::vector<int>> tuples;  // each tuple's squares, ascending
  Geometry geometry() const;
  std::size_t num_weights() const;
  std::vector<int> tuple_sizes() const;
};

Shape edax_shape();

// Validates a tuple list (squares exist, no repeats, 1..12 squares, 1..64 tuples); `where`
// names the source in error messages. Sorts each tuple's squares.
Shape make_shape(std::string name, const std::vector<std::vector<std::string>>& tuples, const std::string& where);

// "edax" or a shape file; throws ef::Error naming the file and the bad entry.
std::vector<Shape> load_shapes(const std::string& spec);
void save_shapes_json(const std::filesystem::path& file, const std::vector<Shape>& shapes);
std::string shape_to_string(const Shape& shape);  // "a1 b1 c1 | a2 b2 ..."

// Shapes by phase, as the paper's Table 3 agents use a search's shapes: (last move, shape move)
// pairs; moves up to `last move` (after the previous phase's) use the shape searched for
// `shape move` (the shape file's `move` field). Read by `match` (phases = [[32, 30], ...]) and
// `score --phases`.
using Phases = std::vector<std::pair<int, int>>;
// The paper's: moves up to 32 use island 30's shape, 33-36 island 34's, 37-40 38's, 41-44 42's,
// 45-60 46's.
Phases paper_phases();
// "paper", or "last:shape,..." such as "32:30,36:34,40:38,44:42,60:46"; checked as check_phases
// does. Throws ef::Error naming `what` (the flag).
Phases parse_phases(const std::string& text, const std::string& what);
// Throws ef::Error naming `where` (and the entry) unless both moves of every pair are in 0..60,
// the last moves ascend and the last phase ends at move 60.
void check_phases(const Phases& phases, const std::string& where);

struct PhasedShapes {
  std::vector<Shape> shapes;                      // one per phase (the single shape without phases)
  std::array<int, kMoveNumbers> phase_of_move{};  // index into `shapes` for each move 0..60
};
// The shape of each phase, found by its `move` in `shapes` (loaded from `shapes_file`, named in
// errors). Without phases, `shapes` must hold exactly one shape, used for every move. Throws
// ef::Error naming the shape move that `shapes_file` lacks (and the moves it holds).
PhasedShapes shapes_by_phase(const std::vector<Shape>& shapes, const Phases& phases, const std::string& shapes_file);

}  // namespace ef::ntuple
