// The Table 2 procedure (docs/method.md 1.3): for each move h, split the data 80/20 into fitness and
// test positions, train every shape from zero on all fitness positions at h, and measure the
// test loss at h. All (move, shape) trainings go to the backend as one batch.
#pragma once
#include <vector>
#include "data/positions.hpp"
#include "eval/shape.hpp"
#include "evalforge/backend.hpp"

namespace ef {

struct ScoreOptions {
  std::vector<int> moves;
  data::SplitBy split = data::SplitBy::kPosition;
  data::PositionOptions positions;  // duplicates: merge (by position) or keep (the paper's by game)
  double test_fraction = 0.2;
  u64 seed = 1;
  TrainParams train;
  bool record_curves = false;       // training loss per epoch in each cell
  bool return_weights = false;      // keep each cell's trained weights (to write agents)
};

struct ScoreCell {
  double mse = 0, mae = 0;
  std::vector<double> epoch_mse;    // when record_curves
  std::vector<i32> weights;         // when return_weights
};

struct ScoreRow {
  int move = 0;
  std::size_t fitness_positions = 0, test_positions = 0;
  double constant_mse = 0;     // predict the fitness-set mean label
  double irreducible_mse = 0;  // predict each distinct test board's own mean label
  std::vector<ScoreCell> cells;  // one per shape
};

// A fitness/test split made resident on a backend: fitness positions are ids
// [0, fitness.size()), test positions follow. Used by the score table and the search.
struct ResidentSplit {
  int handle = -1;
  std::vector<u32> fitness_ids, test_ids;
};
ResidentSplit make_resident(const data::Split& split, Backend& backend);

std::vector<ScoreRow> score_table(const std::vector<data::Game>& games, const std::vector<ntuple::Shape>& shapes,
                                  const ScoreOptions& options, Backend& backend);

}  // namespace ef
