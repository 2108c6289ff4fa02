#include "evalforge/runs/score_table.hpp"
#include <fmt/format.h>
#include <algorithm>
#include <cstdlib>
#include <numeric>
#include <optional>
#include "core/parallel.hpp"
#include "evalforge/core/error.hpp"

namespace ef {

ResidentSplit make_resident(const data::Split& split, Backend& backend) {
  PositionData pd;
  for (const data::PositionSet* set : {&split.first, &split.second})
    for (std::size_t i = 0; i < set->size(); ++i) {
      pd.black.push_back(set->black[i]);
      pd.white.push_back(set->white[i]);
      pd.label.push_back(ntuple::label_to_fixed(set->label[i]));
    }
  ResidentSplit r;
  r.fitness_ids.resize(split.first.size());
  std::iota(r.fitness_ids.begin(), r.fitness_ids.end(), 0u);
  r.test_ids.resize(split.second.size());
  std::iota(r.test_ids.begin(), r.test_ids.end(), static_cast<u32>(split.first.size()));
  r.handle = backend.add_positions(pd);
  return r;
}

MoveSplit score_positions_at_move(const std::vector<data::Game>& games, int move, const ScoreOptions& options) {
  if (move < 1 || move > 60) fail_input("moves", "{} is not a move number (expected 1..60)", move);
  if (options.window < 0 || options.window > 29)
    fail_input("window", "{} is not a window (expected 0..29)", options.window);
  if (options.window > 0 && !options.test_games && options.split != data::SplitBy::kGame)
    fail_input("window",
               "{} needs the data split by game (or held-out test games): split by position, a test board's game "
               "would teach the board's own label through its positions at the neighbouring moves",
               options.window);
  // Same parity as `move` (see ScoreOptions::window), within 1..60.
  int first = move - 2 * options.window, last = move + 2 * options.window;
  while (first < 1) first += 2;
  while (last > 60) last -= 2;
  MoveSplit m;
  if (options.test_games) {
    m.split.first = data::positions_over_moves(games, first, last, 2, options.positions);
    m.split.second = data::positions_at_move(*options.test_games, move, options.positions);
  } else if (options.window > 0) {
    // The games split as fitness_test_at_move splits them, so a window changes the fitness side only.
    const auto [fitness_ids, test_ids] =
        data::split_games(games.size(), options.test_fraction, options.seed, data::kFitnessTestStream);
    m.split.first = data::positions_over_moves(games, first, last, 2, options.positions, &fitness_ids);
    m.split.second = data::positions_at_move(games, move, options.positions, &test_ids);
  } else {
    m.split =
        data::fitness_test_at_move(games, move, options.split, options.test_fraction, options.seed, options.positions);
  }
  if (m.split.first.size() == 0 || m.split.second.size() == 0)
    fail("move {}: the {} has {} fitness and {} test positions; need both{}", move,
         options.test_games ? "data (fitness) and the test data (test)" : "data", m.split.first.size(),
         m.split.second.size(),
         !options.test_games && options.split == data::SplitBy::kPosition
             ? " (split by position, the distinct boards are split: early moves have few; --split game splits the "
               "games)"
             : "");
  // Counted for a split too: by game with duplicates kept, a board can be on both sides.
  const std::vector<bool> seen = data::boards_seen(m.split.second, m.split.first);
  m.test_seen = static_cast<std::size_t>(std::count(seen.begin(), seen.end(), true));
  if (options.exclude_seen && m.test_seen > 0) {
    if (m.test_seen == m.split.second.size())
      fail("move {}: all {} test positions are also fitness positions; --exclude-seen leaves none", move, m.test_seen);
    m.split.second = data::without(m.split.second, seen);
    m.test_excluded = m.test_seen;
  }
  return m;
}

PreparedScore prepare_score(const std::vector<data::Game>& games, const ScoreOptions& options, Backend& backend) {
  PreparedScore p;
  // Per move: one resident position set (fitness then test), and id lists into it.
  for (const int move : options.moves) {
    const MoveSplit move_split = score_positions_at_move(games, move, options);
    const data::Split& split = move_split.split;
    ScoreRow row;
    row.move = move;
    row.fitness_positions = split.first.size();
    row.test_positions = split.second.size();
    row.test_seen = move_split.test_seen;
    row.test_excluded = move_split.test_excluded;
    row.constant_mse = data::constant_predictor_mse(split.first, split.second);
    row.irreducible_mse = data::irreducible_mse(split.second);
    p.rows.push_back(row);

    ResidentSplit r = make_resident(split, backend);
    p.fitness_ids.push_back(std::move(r.fitness_ids));
    p.test_ids.push_back(std::move(r.test_ids));
    p.handles.push_back(r.handle);
  }
  return p;
}

std::vector<MemoryPart> score_memory_estimate(const std::vector<ntuple::Geometry>& geometries, std::size_t moves,
                                              const ScoreOptions& options, std::string_view backend, int threads) {
  double largest = 0, all = 0;  // bytes of the largest and of all the shapes' weight tables
  for (const ntuple::Geometry& g : geometries) {
    const double bytes = 4.0 * g.num_weights();
    largest = std::max(largest, bytes);
    all += bytes;
  }
  const double m = static_cast<double>(moves), jobs = m * static_cast<double>(geometries.size());
  std::vector<MemoryPart> parts{
      items_memory("training jobs and results", jobs, sizeof(TrainJob) + sizeof(TrainResult) + sizeof(ScoreCell))};
  if (backend != "cuda")
    parts.push_back(items_memory("weight tables, one a worker thread",  // no more threads than jobs run
                                 std::min(static_cast<double>(resolve_threads(threads)), jobs), largest));
  if (options.return_weights)
    parts.push_back(
        {fmt::format("trained weights ({} moves x {} shapes' tables of {})", m, geometries.size(), format_bytes(all)),
         m * all});
  if (options.record_curves)
    parts.push_back(items_memory("loss curves", jobs, 8.0 * std::max(options.train.epochs, 0)));
  return parts;
}

std::vector<ScoreRow> score_shapes(const PreparedScore& prepared, const std::vector<ntuple::Geometry>& geometries,
                                   const ScoreOptions& options, Backend& backend) {
  std::vector<ScoreRow> rows = prepared.rows;
  std::vector<TrainJob> jobs;
  jobs.reserve(rows.size() * geometries.size());
  for (std::size_t m = 0; m < rows.size(); ++m)
    for (std::size_t s = 0; s < geometries.size(); ++s) {
      TrainJob j;
      j.geometry = &geometries[s];
      j.positions = prepared.handles[m];
      j.train_ids = prepared.fitness_ids[m];
      j.eval_ids = prepared.test_ids[m];
      j.params = options.train;
      j.stream[0] = static_cast<u32>(rows[m].move);  // same order for every shape at a move
      j.stream[1] = 0;
      j.record_epoch_loss = options.record_curves;
      j.return_weights = options.return_weights;
      jobs.push_back(j);
    }
  std::vector<TrainResult> results(jobs.size());
  backend.train(jobs, results);
  for (std::size_t m = 0; m < rows.size(); ++m)
    for (std::size_t s = 0; s < geometries.size(); ++s) {
      TrainResult& r = results[m * geometries.size() + s];
      ScoreCell c;
      c.mse = r.eval_loss.mse();
      c.mae = r.eval_loss.mae();
      for (const auto& l : r.epoch_loss) c.epoch_mse.push_back(l.mse());
      c.weights = std::move(r.weights);
      rows[m].cells.push_back(std::move(c));
    }
  return rows;
}

std::vector<ScoreRow> score_table(const std::vector<data::Game>& games, const std::vector<ntuple::Shape>& shapes,
                                  const ScoreOptions& options, Backend& backend) {
  std::vector<ntuple::Geometry> geometries;
  for (const auto& s : shapes) geometries.push_back(s.geometry());
  return score_shapes(prepare_score(games, options, backend), geometries, options, backend);
}

std::array<int, ntuple::kMoveNumbers> nearest_scored_move(const std::vector<ScoreRow>& rows,
                                                          const std::array<int, ntuple::kMoveNumbers>* phase_of_move) {
  std::array<int, ntuple::kMoveNumbers> nearest{};
  for (int t = 0; t < ntuple::kMoveNumbers; ++t) {
    const auto eligible = [&](std::size_t m) {
      return !phase_of_move || (*phase_of_move)[rows[m].move] == (*phase_of_move)[t];
    };
    std::optional<std::size_t> best;
    for (std::size_t m = 0; m < rows.size(); ++m)
      if (eligible(m) && (!best || std::abs(rows[m].move - t) < std::abs(rows[*best].move - t))) best = m;
    nearest[t] = static_cast<int>(best.value_or(0));
  }
  return nearest;
}

play::OthelloAgent score_agent(const ntuple::Shape& shape, std::vector<ScoreRow>& rows, std::size_t s,
                               search::OthelloLimits limits) {
  play::OthelloAgent agent;
  agent.name = shape.name;
  agent.kind = play::OthelloEvaluator::kNtuple;
  agent.limits = limits;
  agent.geometries = {shape.geometry()};
  agent.geometry_names = {shape.name};
  for (auto& r : rows) agent.networks.push_back(play::Network{0, std::move(r.cells[s].weights)});
  agent.network_of_move = nearest_scored_move(rows);
  return agent;
}

}  // namespace ef
