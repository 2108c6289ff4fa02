// The paper's search setting as the benchmarks use it: 8 islands (moves 18..46) of
// `island_size` random-key individuals, Edax-size networks, one fitness set per island drawn
// from a game database split by game (the paper's split) or by position. Shared by
// search_bench (seconds per generation) and minibatch_bench (what mini-batches do to fitness).
#pragma once
#include <algorithm>
#include <string>
#include <vector>
#include "evalforge/backends/backend.hpp"
#include "evalforge/data/games.hpp"
#include "evalforge/data/positions.hpp"
#include "evalforge/ga/islands.hpp"
#include "evalforge/runs/shape_fitness.hpp"

namespace ef::bench {

struct PaperSetting {
  ga::IslandsConfig config;
  std::vector<ga::IslandFitnessData> fit;  // resident on the backend given to make_paper_setting
  std::size_t train_positions = 0;         // training positions of all islands together
  std::size_t games = 0;                   // games in the database
};

inline PaperSetting make_paper_setting(Backend& backend, const std::string& data_file, bool split_by_game,
                                       int island_size) {
  const auto db = data::load_games({data_file});
  PaperSetting s;
  s.games = db.games.size();
  s.config.moves = {18, 22, 26, 30, 34, 38, 42, 46};
  s.config.brkga.population_size = island_size;
  s.config.brkga.elite_count = std::max(1, island_size / 5);
  s.config.brkga.mutant_count = std::max(1, island_size / 5);
  s.config.migration.size = std::min(10, s.config.brkga.elite_count);
  const data::SplitBy split = split_by_game ? data::SplitBy::kGame : data::SplitBy::kPosition;
  data::PositionOptions po;
  po.duplicates = split_by_game ? data::Duplicates::kKeep : data::Duplicates::kMerge;
  for (int move : s.config.moves) {
    const auto parts = data::fitness_test_at_move(db.games, move, split, 0.2, 1, po);
    PositionData pd;
    for (std::size_t i = 0; i < parts.first.size(); ++i) {
      pd.black.push_back(parts.first.black[i]);
      pd.white.push_back(parts.first.white[i]);
      pd.label.push_back(ntuple::label_to_fixed(parts.first.label[i]));
    }
    s.fit.push_back({backend.add_positions(pd), static_cast<u32>(parts.first.size())});
    s.train_positions += parts.first.size() - static_cast<std::size_t>(0.2 * parts.first.size());
  }
  return s;
}

}  // namespace ef::bench
