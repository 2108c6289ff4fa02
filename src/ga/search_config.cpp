#include "ga/search_config.hpp"
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <filesystem>
#include <sstream>
#include <toml++/toml.h>
#include "evalforge/core/error.hpp"
#include "evalforge/games/squares.hpp"
#include "ga/decoder.hpp"

namespace ef::ga {

data::PositionOptions SearchConfig::position_options() const {
  data::PositionOptions o;
  o.duplicates = split == data::SplitBy::kGame ? data::Duplicates::kKeep : data::Duplicates::kMerge;
  return o;
}

namespace {

class TableReader {
 public:
  TableReader(const toml::table& t, std::string file, std::string section)
      : t_(t), file_(std::move(file)), section_(std::move(section)) {}

  void allow(std::initializer_list<const char*> keys) {
    for (const auto& [k, v] : t_) {
      bool ok = false;
      for (const char* a : keys) ok = ok || k.str() == a;
      if (!ok) {
        std::vector<std::string> names(keys.begin(), keys.end());
        fail("{}: unknown key {}.{} (expected one of: {})", file_, section_, k.str(), fmt::join(names, ", "));
      }
    }
  }
  std::string where(const char* key) const { return fmt::format("{}: {}.{}", file_, section_, key); }

  void integer(const char* key, int& out, long lo, long hi) {
    const toml::node* n = t_.get(key);
    if (!n) return;
    const auto v = n->value_exact<int64_t>();
    if (!v || *v < lo || *v > hi) fail("{}: expected an integer in [{}, {}]", where(key), lo, hi);
    out = static_cast<int>(*v);
  }
  void seed(const char* key, u64& out) {
    const toml::node* n = t_.get(key);
    if (!n) return;
    const auto v = n->value_exact<int64_t>();
    if (!v || *v < 0) fail("{}: expected a non-negative integer", where(key));
    out = static_cast<u64>(*v);
  }
  void real(const char* key, double& out, double lo, double hi) {
    const toml::node* n = t_.get(key);
    if (!n) return;
    const auto v = n->value<double>();
    if (!v || !(*v >= lo && *v <= hi)) fail("{}: expected a number in [{}, {}]", where(key), lo, hi);
    out = *v;
  }
  void text(const char* key, std::string& out) {
    const toml::node* n = t_.get(key);
    if (!n) return;
    const auto v = n->value_exact<std::string>();
    if (!v) fail("{}: expected a string", where(key));
    out = *v;
  }
  void integers(const char* key, std::vector<int>& out, long lo, long hi) {
    const toml::node* n = t_.get(key);
    if (!n) return;
    const auto* a = n->as_array();
    if (!a || a->empty()) fail("{}: expected a non-empty array of integers in [{}, {}]", where(key), lo, hi);
    out.clear();
    for (std::size_t i = 0; i < a->size(); ++i) {
      const auto v = a->get(i)->value_exact<int64_t>();
      if (!v || *v < lo || *v > hi) fail("{}[{}]: expected an integer in [{}, {}]", where(key), i, lo, hi);
      out.push_back(static_cast<int>(*v));
    }
  }
  void strings(const char* key, std::vector<std::string>& out) {
    const toml::node* n = t_.get(key);
    if (!n) return;
    out.clear();
    if (auto s = n->value_exact<std::string>()) {
      out.push_back(*s);
      return;
    }
    const auto* a = n->as_array();
    if (!a) fail("{}: expected a string or an array of strings", where(key));
    for (std::size_t i = 0; i < a->size(); ++i) {
      const auto v = a->get(i)->value_exact<std::string>();
      if (!v) fail("{}[{}]: expected a string", where(key), i);
      out.push_back(*v);
    }
  }

 private:
  const toml::table& t_;
  std::string file_, section_;
};

}  // namespace

SearchConfig load_search_config(const std::string& file) {
  if (!std::filesystem::is_regular_file(file)) fail("{}: no such config file", file);
  toml::table root;
  try {
    root = toml::parse_file(file);
  } catch (const toml::parse_error& e) {
    fail("{}:{}: {}", file, e.source().begin.line, e.description());
  }
  SearchConfig c;
  c.islands.moves = {18, 22, 26, 30, 34, 38, 42, 46};
  c.tuple_sizes = edax_tuple_sizes();
  c.region = default_search_region();
  for (const auto& [k, v] : root) {
    const std::string key(k.str());
    if (key != "search" && key != "migration" && key != "data" && key != "fitness" && key != "training" &&
        key != "run")
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
    r.allow({"moves", "island_size", "elite", "mutants", "elite_inheritance", "generations", "seed", "tuple_sizes",
             "region"});
    r.integers("moves", c.islands.moves, 1, 60);
    r.integer("island_size", c.islands.brkga.population_size, 2, 1000000);
    r.integer("elite", c.islands.brkga.elite_count, 1, 1000000);
    r.integer("mutants", c.islands.brkga.mutant_count, 0, 1000000);
    r.real("elite_inheritance", c.islands.brkga.elite_inheritance, 0.0, 1.0);
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
    r.allow({"files", "split", "test_fraction"});
    r.strings("files", c.data_files);
    std::string split = "position";
    r.text("split", split);
    if (split == "position") c.split = data::SplitBy::kPosition;
    else if (split == "game") c.split = data::SplitBy::kGame;
    else fail("{}: '{}' (expected position or game)", r.where("split"), split);
    r.real("test_fraction", c.test_fraction, 0.01, 0.99);
  }
  {
    TableReader r(section("fitness"), file, "fitness");
    r.allow({"validation_fraction", "test_every"});
    r.real("validation_fraction", c.validation_fraction, 0.01, 0.99);
    r.integer("test_every", c.test_every, 0, 100000000);
  }
  {
    TableReader r(section("training"), file, "training");
    r.allow({"learning_rate", "epochs", "batch_size"});
    r.real("learning_rate", c.train.learning_rate, 1e-6, 1.0);
    r.integer("epochs", c.train.epochs, 0, 10000);
    r.integer("batch_size", c.train.batch_size, 1, 1 << 20);
  }
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

namespace {

std::string toml_quote(const std::string& s) {
  std::string out = "\"";
  for (char ch : s) {
    if (ch == '"' || ch == '\\') out += '\\';
    out += ch;
  }
  return out + '"';
}

}  // namespace

std::string search_config_to_toml(const SearchConfig& c) {
  std::vector<std::string> region, files;
  for (int sq : c.region) region.push_back(fmt::format("\"{}\"", square_name(sq)));
  for (const auto& f : c.data_files) files.push_back(toml_quote(f));
  std::ostringstream out;
  out << fmt::format(
      "[search]\nmoves = [{}]\nisland_size = {}\nelite = {}\nmutants = {}\nelite_inheritance = {}\n"
      "generations = {}\nseed = {}\ntuple_sizes = [{}]\nregion = [{}]\n\n",
      fmt::join(c.islands.moves, ", "), c.islands.brkga.population_size, c.islands.brkga.elite_count,
      c.islands.brkga.mutant_count, c.islands.brkga.elite_inheritance, c.generations, c.islands.seed,
      fmt::join(c.tuple_sizes, ", "), fmt::join(region, ", "));
  out << fmt::format("[migration]\ntopology = \"{}\"\ninterval = {}\nsize = {}\n\n",
                     topology_name(c.islands.migration.topology), c.islands.migration.interval,
                     c.islands.migration.size);
  out << fmt::format("[data]\nfiles = [{}]\nsplit = \"{}\"\ntest_fraction = {}\n\n", fmt::join(files, ", "),
                     c.split == data::SplitBy::kGame ? "game" : "position", c.test_fraction);
  out << fmt::format("[fitness]\nvalidation_fraction = {}\ntest_every = {}\n\n", c.validation_fraction, c.test_every);
  out << fmt::format("[training]\nlearning_rate = {}\nepochs = {}\nbatch_size = {}\n\n", c.train.learning_rate,
                     c.train.epochs, c.train.batch_size);
  out << fmt::format("[run]\ncheckpoint_every = {}\n", c.checkpoint_every);
  return out.str();
}

}  // namespace ef::ga
