#include "runs/training_table.hpp"
#include "core/toml_reader.hpp"

namespace ef {

void read_training_table(const toml::table& root, const std::string& file, TrainParams& params, TrainingKeys keys) {
  const toml::table* section = root["training"].as_table();
  if (!section) return;
  const TableReader r(*section, file, "training");
  if (keys.batch_size && keys.seed)
    r.allow({"learning_rate", "epochs", "batch_size", "seed"});
  else if (keys.batch_size)
    r.allow({"learning_rate", "epochs", "batch_size"});
  else if (keys.seed)
    r.allow({"learning_rate", "epochs", "seed"});
  else
    r.allow({"learning_rate", "epochs"});
  r.real("learning_rate", params.learning_rate, kMinLearningRate, kMaxLearningRate);
  r.integer("epochs", params.epochs, 0, keys.max_epochs);
  if (keys.batch_size) r.integer("batch_size", params.batch_size, 1, kMaxBatchSize);
  if (keys.seed) r.seed("seed", params.seed);
}

}  // namespace ef
