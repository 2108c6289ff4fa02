// The [training] table of every config that trains n-tuple networks (the shape search, the
// match experiment, `score --config`), read in one place with one set of ranges
// (backends/backend.hpp kMaxBatchSize and friends). The runs differ only in which keys they take.
#pragma once
#include <toml++/toml.h>
#include <string>
#include "evalforge/backends/backend.hpp"

namespace ef {

struct TrainingKeys {
  bool batch_size = true;  // batch_size = 1..kMaxBatchSize
  bool seed = true;        // seed = the sample order's seed (a non-negative integer)
  int max_epochs = kMaxEpochs;
};

// Reads [training] of `root` (absent: `params` unchanged) into `params`: learning_rate, epochs
// and the keys `keys` allows; any other key, or a value out of range, is an ef::Error naming
// `file` and training.KEY.
void read_training_table(const toml::table& root, const std::string& file, TrainParams& params, TrainingKeys keys = {});

}  // namespace ef
