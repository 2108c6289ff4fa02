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
#include <filesystem>
#include <string>
#include <vector>
#include "evalforge/eval/ntuple.hpp"

namespace ef::ntuple {

struct Shape {
  std::string name;
  int move = -1;                          // the move number it was searched for, if any
  std::vector<std::vector<int>> tuples;   // each tuple's squares, ascending
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

}  // namespace ef::ntuple
