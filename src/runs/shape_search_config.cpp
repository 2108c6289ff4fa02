#include "evalforge/runs/shape_search_config.hpp"
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <toml++/toml.h>
#include <filesystem>
#include <sstream>
#include "core/toml_reader.hpp"
#include "evalforge/core/error.hpp"
#include "evalforge/games/othello/squares.hpp"
#include "evalforge/runs/shape_decoder.hpp"
#include "runs/training_table.hpp"

namespace ef::ga {

data::PositionOptions SearchConfig::position_options() const {
  data::PositionOptions o;
  o.duplicates = split == data::SplitBy::kGame ? data::Duplicates::kKeep : data::Duplicates::kMerge;
  return o;
}

SearchConfig load_search_config(const std::string& file) {
  const toml::table root = parse_run_config(file);
  SearchConfig c;
  c.islands.moves = {18, 22, 26, 30, 34, 38, 42, 46};
  c.tuple_sizes = edax_tuple_sizes();
  c.region = default_search_region();
  for (const auto& [k, v] : root) {
    const std::string key(k.str());
    if (key != "search" && key != "migration" && key != "data" && key != "fitness" && key != "training" && key != "run")
      fail("{}: unknown section [{}] (expected search, migration, data, fitness, training, run)", file, key);
    if (!v.is_table()) fail("{}: '{}' must be a table ([{}])", file, key, key);
  }
  const toml::table empty;
  auto section = [&](const char* name) -> const toml::table& {
    const auto* t = root[name].as_table();
    return t ? *t : empty;
  };
  {
    TableReader r(section("search"), file, "search");
    r.allow({"moves", "island_size", "elite", "mutants", "elite_inheritance", "parents", "elite_parents", "bias",
             "generations", "seed", "tuple_sizes", "region", "shake", "ipr"});
    r.integers("moves", c.islands.moves, 1, 60);
    r.integer("island_size", c.islands.brkga.population_size, 2, 1000000);
    r.integer("elite", c.islands.brkga.elite_count, 1, 1000000);
    r.integer("mutants", c.islands.brkga.mutant_count, 0, 1000000);
    r.real("elite_inheritance", c.islands.brkga.elite_inheritance, 0.0, 1.0);
    // Multi-parent crossover (docs/search.md, "Multi-parent crossover"); the defaults are the
    // classic two-parent rule with elite_inheritance.
    r.integer("parents", c.islands.brkga.parents, 2, 1000000);
    r.integer("elite_parents", c.islands.brkga.elite_parents, 1, 1000000);
    std::string bias = bias_name(c.islands.brkga.bias);
    r.text("bias", bias);
    const auto parsed = parse_bias(bias);
    if (!parsed)
      fail(
          "{}: '{}' is not a bias function (expected rho_e, constant, cubic, exponential, linear, loginverse or "
          "quadratic)",
          r.where("bias"), bias);
    c.islands.brkga.bias = *parsed;
    r.integer("generations", c.generations, 1, 100000000);
    r.seed("seed", c.islands.seed);
    r.integers("tuple_sizes", c.tuple_sizes, 1, ntuple::kMaxTupleSize);
    std::vector<std::string> region;
    r.strings("region", region);
    if (!region.empty()) {
      c.region.clear();
      for (const auto& s : region) {
        const auto sq = parse_square(s);
        if (!sq) fail("{}: '{}' is not a square (expected a1..h8)", r.where("region"), s);
        c.region.push_back(*sq);
      }
    }
  }
  // [search.NAME]: null when absent, an error naming it when not a table.
  auto search_table = [&](const char* name) -> const toml::table* {
    const toml::node* node = section("search").get(name);
    if (node && !node->is_table()) fail("{}: search.{} must be a table ([search.{}])", file, name, name);
    return node ? node->as_table() : nullptr;
  };
  if (const toml::table* shake = search_table("shake")) {
    // [search.shake] (docs/method.md 1.2, "Shaking and reset"); absent: off.
    TableReader r(*shake, file, "search.shake");
    r.allow({"interval", "reset_interval", "kind", "intensity_min", "intensity_max"});
    ShakeParams& sp = c.islands.shake;
    r.integer("interval", sp.interval, 0, 100000000);
    r.integer("reset_interval", sp.reset_interval, 0, 100000000);
    std::string kind = shake_kind_name(sp.kind);
    r.text("kind", kind);
    const auto parsed = parse_shake_kind(kind);
    if (!parsed) fail("{}: '{}' is not a kind of shaking (expected change or swap)", r.where("kind"), kind);
    sp.kind = *parsed;
    r.real("intensity_min", sp.intensity_min, 1e-9, 1.0);
    r.real("intensity_max", sp.intensity_max, 1e-9, 1.0);
    if (sp.intensity_min > sp.intensity_max)
      fail("{}: intensity_min = {} is larger than intensity_max = {}", r.where("intensity_min"), sp.intensity_min,
           sp.intensity_max);
  }
  if (const toml::table* ipr = search_table("ipr")) {
    // [search.ipr] (docs/method.md 1.2, "Implicit path relinking"); absent: off.
    TableReader r(*ipr, file, "search.ipr");
    r.allow({"interval", "pairs", "selection", "percentage", "min_distance"});
    IprParams& ip = c.islands.ipr;
    r.integer("interval", ip.interval, 0, 100000000);
    r.integer("pairs", ip.pairs, 1, 1000000);
    std::string selection = ipr_selection_name(ip.selection);
    r.text("selection", selection);
    const auto parsed = parse_ipr_selection(selection);
    if (!parsed) fail("{}: '{}' is not a selection (expected best or random)", r.where("selection"), selection);
    ip.selection = *parsed;
    r.real("percentage", ip.percentage, 1e-9, 1.0);
    r.real("min_distance", ip.min_distance, 0.0, 1e9);
  }
  {
    TableReader r(section("migration"), file, "migration");
    r.allow({"topology", "interval", "size"});
    std::string topology = std::string(topology_name(c.islands.migration.topology));
    r.text("topology", topology);
    try {
      c.islands.migration.topology = parse_topology(topology);
    } catch (const Error& e) {
      fail("{}: {}", r.where("topology"), e.what());
    }
    r.integer("interval", c.islands.migration.interval, 0, 100000000);
    r.integer("size", c.islands.migration.size, 0, 1000000);
  }
  {
    TableReader r(section("data"), file, "data");
    r.allow({"files", "split", "test_fraction", "test_files"});
    r.strings("files", c.data_files);
    r.strings("test_files", c.test_files);
    for (const auto& f : c.test_files)
      if (f.empty()) fail("{}: an empty file name", r.where("test_files"));
    std::string split = "position";
    r.text("split", split);
    if (split == "position")
      c.split = data::SplitBy::kPosition;
    else if (split == "game")
      c.split = data::SplitBy::kGame;
    else
      fail("{}: '{}' (expected position or game)", r.where("split"), split);
    r.real("test_fraction", c.test_fraction, 0.01, 0.99);
  }
  {
    TableReader r(section("fitness"), file, "fitness");
    r.allow({"validation_fraction", "test_every"});
    r.real("validation_fraction", c.validation_fraction, 0.01, 0.99);
    r.integer("test_every", c.test_every, 0, 100000000);
  }
  read_training_table(root, file, c.train, {.batch_size = true, .seed = false});
  {
    TableReader r(section("run"), file, "run");
    r.allow({"checkpoint_every"});
    r.integer("checkpoint_every", c.checkpoint_every, 0, 100000000);
  }
  try {
    c.islands.validate();
    Decoder check(c.region, c.tuple_sizes);
  } catch (const Error& e) {
    fail("{}: {}", file, e.what());
  }
  return c;
}

std::string search_config_to_toml(const SearchConfig& c) {
  std::vector<std::string> region, files, test_files;
  for (int sq : c.region) region.push_back(fmt::format("\"{}\"", square_name(sq)));
  for (const auto& f : c.data_files) files.push_back(toml_quote(f));
  for (const auto& f : c.test_files) test_files.push_back(toml_quote(f));
  std::ostringstream out;
  out << fmt::format(
      "[search]\nmoves = [{}]\nisland_size = {}\nelite = {}\nmutants = {}\nelite_inheritance = {}\n"
      "generations = {}\nseed = {}\ntuple_sizes = [{}]\nregion = [{}]\n",
      fmt::join(c.islands.moves, ", "), c.islands.brkga.population_size, c.islands.brkga.elite_count,
      c.islands.brkga.mutant_count, c.islands.brkga.elite_inheritance, c.generations, c.islands.seed,
      fmt::join(c.tuple_sizes, ", "), fmt::join(region, ", "));
  // Only when not the classic rule: the config.toml of classic runs stays as it was.
  if (!c.islands.brkga.classic())
    out << fmt::format("parents = {}\nelite_parents = {}\nbias = \"{}\"\n", c.islands.brkga.parents,
                       c.islands.brkga.elite_parents, bias_name(c.islands.brkga.bias));
  out << "\n";
  // Only when on: the config.toml of runs without shaking stays as it was.
  if (c.islands.shake.enabled()) {
    const ShakeParams& sp = c.islands.shake;
    out << fmt::format(
        "[search.shake]\ninterval = {}\nreset_interval = {}\nkind = \"{}\"\nintensity_min = {}\nintensity_max = "
        "{}\n\n",
        sp.interval, sp.reset_interval, shake_kind_name(sp.kind), sp.intensity_min, sp.intensity_max);
  }
  if (c.islands.ipr.enabled()) {
    const IprParams& ip = c.islands.ipr;
    out << fmt::format(
        "[search.ipr]\ninterval = {}\npairs = {}\nselection = \"{}\"\npercentage = {}\nmin_distance = {}\n\n",
        ip.interval, ip.pairs, ipr_selection_name(ip.selection), ip.percentage, ip.min_distance);
  }
  out << fmt::format("[migration]\ntopology = \"{}\"\ninterval = {}\nsize = {}\n\n",
                     topology_name(c.islands.migration.topology), c.islands.migration.interval,
                     c.islands.migration.size);
  out << fmt::format("[data]\nfiles = [{}]\nsplit = \"{}\"\ntest_fraction = {}\n", fmt::join(files, ", "),
                     c.split == data::SplitBy::kGame ? "game" : "position", c.test_fraction);
  // Only when given: the config.toml of runs without held-out data stays as it was.
  if (!test_files.empty()) out << fmt::format("test_files = [{}]\n", fmt::join(test_files, ", "));
  out << "\n";
  out << fmt::format("[fitness]\nvalidation_fraction = {}\ntest_every = {}\n\n", c.validation_fraction, c.test_every);
  out << fmt::format("[training]\nlearning_rate = {}\nepochs = {}\nbatch_size = {}\n\n", c.train.learning_rate,
                     c.train.epochs, c.train.batch_size);
  out << fmt::format("[run]\ncheckpoint_every = {}\n", c.checkpoint_every);
  return out.str();
}

}  // namespace ef::ga
