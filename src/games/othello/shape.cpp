#include "evalforge/games/othello/shape.hpp"
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <toml++/toml.h>
#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>
#include <string_view>
#include "evalforge/core/error.hpp"
#include "evalforge/core/files.hpp"
#include "evalforge/games/othello/squares.hpp"

namespace ef::ntuple {

Geometry Shape::geometry() const {
  Geometry g;
  g.num_tuples = static_cast<int>(tuples.size());
  u32 offset = 0;
  for (std::size_t i = 0; i < tuples.size(); ++i) {
    g.offset[i] = offset;
    for (int sq : tuples[i]) g.mask[i] |= u64{1} << sq;
    offset += pow3(static_cast<int>(tuples[i].size()));
  }
  g.offset[tuples.size()] = offset;
  return g;
}

std::size_t Shape::num_weights() const { return geometry().num_weights(); }

std::vector<int> Shape::tuple_sizes() const {
  std::vector<int> s;
  for (const auto& t : tuples) s.push_back(static_cast<int>(t.size()));
  return s;
}

Shape make_shape(std::string name, const std::vector<std::vector<std::string>>& tuples, const std::string& where) {
  if (tuples.empty()) fail("{}: a shape needs at least one tuple", where);
  if (tuples.size() > static_cast<std::size_t>(kMaxTuples))
    fail("{}: {} tuples, at most {} allowed", where, tuples.size(), kMaxTuples);
  Shape s;
  s.name = std::move(name);
  for (std::size_t i = 0; i < tuples.size(); ++i) {
    const auto& t = tuples[i];
    if (t.empty() || t.size() > static_cast<std::size_t>(kMaxTupleSize))
      fail("{}: tuple {} has {} squares; expected 1 to {}", where, i + 1, t.size(), kMaxTupleSize);
    std::set<int> seen;
    std::vector<int> squares;
    for (const auto& name_sq : t) {
      const auto sq = parse_square(name_sq);
      if (!sq) fail("{}: tuple {}: '{}' is not a square (expected a1..h8)", where, i + 1, name_sq);
      if (!seen.insert(*sq).second) fail("{}: tuple {}: square {} appears twice", where, i + 1, name_sq);
      squares.push_back(*sq);
    }
    std::sort(squares.begin(), squares.end());
    s.tuples.push_back(std::move(squares));
  }
  return s;
}

Shape edax_shape() {
  // docs/anchors.md: Edax's 12 pattern types (sizes 9,10,10,10,8,8,8,8,7,6,5,4), one instance each.
  static const std::vector<std::vector<std::string>> kEdax = {
      {"a1", "b1", "a2", "b2", "c1", "a3", "c2", "b3", "c3"},
      {"a5", "a4", "a3", "a2", "a1", "b2", "b1", "c1", "d1", "e1"},
      {"b2", "a1", "b1", "c1", "d1", "e1", "f1", "g1", "h1", "g2"},
      {"a1", "c1", "d1", "c2", "d2", "e2", "f2", "e1", "f1", "h1"},
      {"a2", "b2", "c2", "d2", "e2", "f2", "g2", "h2"},
      {"a3", "b3", "c3", "d3", "e3", "f3", "g3", "h3"},
      {"a4", "b4", "c4", "d4", "e4", "f4", "g4", "h4"},
      {"a1", "b2", "c3", "d4", "e5", "f6", "g7", "h8"},
      {"b1", "c2", "d3", "e4", "f5", "g6", "h7"},
      {"c1", "d2", "e3", "f4", "g5", "h6"},
      {"d1", "e2", "f3", "g4", "h5"},
      {"d1", "c2", "b3", "a4"},
  };
  return make_shape("edax", kEdax, "built-in edax shape");
}

namespace {

// A shape's `move`: a move number of the game, 0 (the start) to 60.
constexpr std::int64_t kMaxMove = 60;

std::vector<std::vector<std::string>> tuples_from_json(const nlohmann::json& j, const std::string& where) {
  if (!j.is_array()) fail("{}: 'tuples' must be an array of arrays of square names", where);
  std::vector<std::vector<std::string>> out;
  for (std::size_t i = 0; i < j.size(); ++i) {
    if (!j[i].is_array()) fail("{}: tuples[{}] must be an array of square names", where, i);
    std::vector<std::string> t;
    for (const auto& sq : j[i]) {
      if (!sq.is_string()) fail("{}: tuples[{}] holds a non-string entry {}", where, i, sq.dump());
      t.push_back(sq.get<std::string>());
    }
    out.push_back(std::move(t));
  }
  return out;
}

Shape shape_from_json(const nlohmann::json& j, const std::string& where, const std::string& default_name) {
  if (!j.is_object()) fail("{}: a shape must be an object with 'tuples'", where);
  for (auto it = j.begin(); it != j.end(); ++it)
    if (it.key() != "name" && it.key() != "move" && it.key() != "tuples" && it.key() != "fitness" &&
        it.key() != "island")
      fail("{}: unknown key '{}' (expected name, move, tuples)", where, it.key());
  if (!j.contains("tuples")) fail("{}: missing key 'tuples'", where);
  if (j.contains("name") && !j["name"].is_string())
    fail("{}: 'name' must be a string (got {})", where, j["name"].dump());
  std::string name = j.value("name", default_name);
  Shape s = make_shape(name, tuples_from_json(j["tuples"], where), where);
  if (j.contains("move")) {
    const nlohmann::json& m = j["move"];
    const bool integer = m.is_number_integer();
    if (!integer || (m.is_number_unsigned() ? m.get<std::uint64_t>() > kMaxMove
                                            : m.get<std::int64_t>() < 0 || m.get<std::int64_t>() > kMaxMove))
      fail("{}: 'move' must be an integer from 0 to {} (got {})", where, kMaxMove, m.dump());
    s.move = m.get<int>();
  }
  return s;
}

std::vector<std::vector<std::string>> tuples_from_toml(const toml::node* node, const std::string& where) {
  const auto* arr = node ? node->as_array() : nullptr;
  if (!arr) fail("{}: 'tuples' must be an array of arrays of square names", where);
  std::vector<std::vector<std::string>> out;
  for (std::size_t i = 0; i < arr->size(); ++i) {
    const auto* t = arr->get(i)->as_array();
    if (!t) fail("{}: tuples[{}] must be an array of square names", where, i);
    std::vector<std::string> v;
    for (const auto& sq : *t) {
      const auto s = sq.value<std::string>();
      if (!s) fail("{}: tuples[{}] holds a non-string entry", where, i);
      v.push_back(*s);
    }
    out.push_back(std::move(v));
  }
  return out;
}

Shape shape_from_toml(const toml::table& t, const std::string& where, const std::string& default_name) {
  for (const auto& [k, v] : t)
    if (k != "name" && k != "move" && k != "tuples")
      fail("{}: unknown key '{}' (expected name, move, tuples)", where, k.str());
  if (t.contains("name") && !t["name"].is_string()) fail("{}: 'name' must be a string", where);
  Shape s = make_shape(t["name"].value_or(default_name), tuples_from_toml(t.get("tuples"), where), where);
  if (t.contains("move")) {
    const auto m = t["move"].as_integer();
    if (!m || m->get() < 0 || m->get() > kMaxMove) fail("{}: 'move' must be an integer from 0 to {}", where, kMaxMove);
    s.move = static_cast<int>(m->get());
  }
  return s;
}

}  // namespace

std::vector<Shape> load_shapes(const std::string& spec) {
  if (spec == "edax") return {edax_shape()};
  const std::filesystem::path path(spec);
  std::error_code ec;
  if (!std::filesystem::exists(path, ec))
    fail("{}: no such shape file (give a shape file, or the built-in 'edax')", spec);
  const std::string text = read_file(path, FileKind::kShapes);
  const std::string stem = path.stem().string();
  std::vector<Shape> shapes;
  if (path.extension() == ".toml") {
    toml::table t;
    try {
      t = toml::parse(text, spec);
    } catch (const toml::parse_error& e) {
      fail("{}:{}: {}", spec, e.source().begin.line, e.description());
    }
    if (const auto* list = t["shapes"].as_array()) {
      for (std::size_t i = 0; i < list->size(); ++i) {
        const auto* tab = list->get(i)->as_table();
        if (!tab) fail("{}: shapes[{}] must be a table", spec, i);
        shapes.push_back(shape_from_toml(*tab, fmt::format("{}: shapes[{}]", spec, i), fmt::format("{}-{}", stem, i)));
      }
    } else {
      shapes.push_back(shape_from_toml(t, spec, stem));
    }
  } else {
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(text);
    } catch (const nlohmann::json::parse_error& e) {
      fail("{}: not valid JSON (byte {}): {}", spec, e.byte, e.what());
    } catch (const nlohmann::json::exception& e) {  // e.g. out_of_range: a number too large (1e999)
      fail("{}: cannot read the JSON: {}", spec, e.what());
    }
    if (j.is_object() && j.contains("shapes")) {
      if (!j["shapes"].is_array()) fail("{}: 'shapes' must be an array", spec);
      for (std::size_t i = 0; i < j["shapes"].size(); ++i)
        shapes.push_back(
            shape_from_json(j["shapes"][i], fmt::format("{}: shapes[{}]", spec, i), fmt::format("{}-{}", stem, i)));
    } else {
      shapes.push_back(shape_from_json(j, spec, stem));
    }
  }
  if (shapes.empty()) fail("{}: no shapes in the file", spec);
  return shapes;
}

void save_shapes_json(const std::filesystem::path& file, const std::vector<Shape>& shapes) {
  nlohmann::json list = nlohmann::json::array();
  for (const Shape& s : shapes) {
    nlohmann::json j;
    j["name"] = s.name;
    if (s.move >= 0) j["move"] = s.move;
    nlohmann::json tuples = nlohmann::json::array();
    for (const auto& t : s.tuples) {
      nlohmann::json names = nlohmann::json::array();
      for (int sq : t) names.push_back(square_name(sq));
      tuples.push_back(names);
    }
    j["tuples"] = tuples;
    list.push_back(j);
  }
  const auto tmp = file.string() + ".tmp";
  {
    std::ofstream out(tmp);
    if (!out) fail("{}: cannot write", file.string());
    out << nlohmann::json{{"shapes", list}}.dump(2) << "\n";
    if (!out) fail("{}: write failed", file.string());
  }
  std::filesystem::rename(tmp, file);
}

std::string shape_to_string(const Shape& shape) {
  std::string out;
  for (std::size_t i = 0; i < shape.tuples.size(); ++i) {
    if (i) out += " | ";
    for (std::size_t j = 0; j < shape.tuples[i].size(); ++j) {
      if (j) out += ' ';
      out += square_name(shape.tuples[i][j]);
    }
  }
  return out;
}

Phases paper_phases() { return {{32, 30}, {36, 34}, {40, 38}, {44, 42}, {60, 46}}; }

void check_phases(const Phases& phases, const std::string& where) {
  if (phases.empty()) fail("{}: no phases (expected [last move, shape move] pairs)", where);
  for (std::size_t i = 0; i < phases.size(); ++i) {
    const auto [last, move] = phases[i];
    if (last < 0 || last > 60 || move < 0 || move > 60)
      fail("{}[{}]: [{}, {}]: expected [last move, shape move] with both in 0..60", where, i, last, move);
    if (i > 0 && last <= phases[i - 1].first) fail("{}[{}]: last moves must ascend", where, i);
  }
  if (phases.back().first != 60) fail("{}: the last phase must end at move 60", where);
}

Phases parse_phases(const std::string& text, const std::string& what) {
  if (text == "paper") return paper_phases();
  // A whole decimal number in 0..99 (range checked by check_phases), or nullopt.
  const auto number = [](std::string_view t) -> std::optional<int> {
    if (t.empty() || t.size() > 2) return std::nullopt;
    int v = 0;
    for (char c : t) {
      if (c < '0' || c > '9') return std::nullopt;
      v = 10 * v + (c - '0');
    }
    return v;
  };
  Phases phases;
  std::size_t begin = 0;
  while (begin <= text.size()) {
    const std::size_t end = std::min(text.find(',', begin), text.size());
    const std::string_view item = std::string_view(text).substr(begin, end - begin);
    const std::size_t colon = item.find(':');
    const auto last = colon == std::string_view::npos ? std::nullopt : number(item.substr(0, colon));
    const auto move = colon == std::string_view::npos ? std::nullopt : number(item.substr(colon + 1));
    if (!last || !move)
      fail(
          "{}: '{}' is not a phase (expected 'paper' or last move:shape move pairs such as "
          "32:30,36:34,40:38,44:42,60:46)",
          what, item);
    phases.emplace_back(*last, *move);
    begin = end + 1;
  }
  check_phases(phases, what);
  return phases;
}

PhasedShapes shapes_by_phase(const std::vector<Shape>& shapes, const Phases& phases, const std::string& shapes_file) {
  PhasedShapes p;
  if (!phases.empty()) check_phases(phases, "phases");  // the move loop below relies on it
  if (phases.empty()) {
    if (shapes.size() != 1)
      fail("{} holds {} shapes; say which moves use which with phases ([last move, shape move] pairs)", shapes_file,
           shapes.size());
    p.shapes.push_back(shapes[0]);
    return p;  // phase_of_move: all 0
  }
  for (const auto& phase : phases) {
    const int move = phase.second;  // a plain variable: clang < 16 cannot capture a structured binding
    const auto it = std::find_if(shapes.begin(), shapes.end(), [&](const Shape& s) { return s.move == move; });
    if (it == shapes.end()) {
      std::vector<int> held;
      for (const auto& s : shapes)
        if (s.move >= 0) held.push_back(s.move);
      fail("phases name the shape of move {}, which {} does not hold (its shapes' moves: {})", move, shapes_file,
           held.empty() ? std::string("none") : fmt::format("{}", fmt::join(held, ", ")));
    }
    p.shapes.push_back(*it);
  }
  for (int t = 0, g = 0; t < kMoveNumbers; ++t) {
    while (phases[static_cast<std::size_t>(g)].first < t) ++g;
    p.phase_of_move[t] = g;
  }
  return p;
}

}  // namespace ef::ntuple
