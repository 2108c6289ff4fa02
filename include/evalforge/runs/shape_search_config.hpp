// The shape search's configuration: a TOML file, every key validated (unknown keys rejected,
// out-of-range values named with file, key and expected range). configs/paper.toml holds the
// paper's Table 1; configs/quick.toml a search that finishes in minutes on 2 cores.
#pragma once
#include <string>
#include <vector>
#include "evalforge/backends/backend.hpp"
#include "evalforge/data/positions.hpp"
#include "evalforge/ga/islands.hpp"

namespace ef::ga {

struct SearchConfig {
  // [search]
  IslandsConfig islands;  // moves, BRKGA parameters, migration, seed
  int generations = 100;
  std::vector<int> tuple_sizes;  // default: Edax's
  std::vector<int> region;       // default: rows 1..3 (squares 0..23)
  // [data]
  std::vector<std::string> data_files;             // game records (flag --data overrides)
  data::SplitBy split = data::SplitBy::kPosition;  // also decides duplicates: merge / keep
  double test_fraction = 0.2;                      // share of the data for the test score (without test_files)
  // Held-out test games for the test score: with them every game of data_files is fitness
  // data, and `split` only decides how duplicates are treated (score --test-data's rule).
  std::vector<std::string> test_files;
  // [fitness]
  double validation_fraction = 0.2;
  int test_every = 50;  // generations between test scores of the islands' best (0 = never)
  // [training]
  TrainParams train;
  // [run]
  int checkpoint_every = 10;  // generations between checkpoints (0 = only at the end / on a signal)

  data::PositionOptions position_options() const;
};

// Parses and validates a config file; throws ef::Error naming the file and key.
SearchConfig load_search_config(const std::string& file);
// The resolved config as TOML text (written into every run directory; loadable again).
std::string search_config_to_toml(const SearchConfig& config);

}  // namespace ef::ga
