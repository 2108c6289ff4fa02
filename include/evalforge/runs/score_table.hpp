// The Table 2 procedure (docs/method.md 1.3): for each move h, split the data 80/20 into fitness and
// test positions, train every shape from zero on all fitness positions at h, and measure the
// test loss at h. All (move, shape) trainings go to the backend as one batch.
// Held out (score --test-data, a search's [data] test_files): all of the data is fitness data
// and the test positions come from other games; the test positions that are also fitness
// positions are counted (shared openings leak) and can be dropped.
#pragma once
#include <vector>
#include "evalforge/backends/backend.hpp"
#include "evalforge/core/memory_check.hpp"
#include "evalforge/data/positions.hpp"
#include "evalforge/games/othello/agent.hpp"
#include "evalforge/games/othello/shape.hpp"

namespace ef {

struct ScoreOptions {
  std::vector<int> moves;
  data::SplitBy split = data::SplitBy::kPosition;
  data::PositionOptions positions;  // duplicates: merge (by position) or keep (the paper's by game)
  double test_fraction = 0.2;       // of the data, when there are no test games
  u64 seed = 1;
  // Held-out test games: every game of the data is fitness data (`split` no longer splits, but
  // still decides the duplicates through `positions`); the test positions are these games' at
  // each move, duplicates treated the same way. Null: the test set is split off the data.
  const std::vector<data::Game>* test_games = nullptr;
  bool exclude_seen = false;  // with test games: drop test positions seen in fitness (data::boards_seen)
  // The network of move h trains on the fitness positions at moves h-2 window, ..., h-2, h, h+2,
  // ..., h+2 window (within 1..60): `window` moves on either side with the same side to move as
  // at h unless a game passed in between (rare; the networks value boards in colours, black - white,
  // and take the side to move from the move number's parity, so a move of the other parity
  // teaches a board's value with the other side to move: measured, a window of adjacent moves
  // trains worse networks than none). Its test positions stay those at h, so losses compare
  // across windows. Needs split by game or test games: split by position, a test board's game
  // would teach the board's own label through its other positions.
  int window = 0;
  TrainParams train;
  bool record_curves = false;   // training loss per epoch in each cell
  bool return_weights = false;  // keep each cell's trained weights (to write agents)
};

struct ScoreCell {
  double mse = 0, mae = 0;
  std::vector<double> epoch_mse;  // when record_curves
  std::vector<i32> weights;       // when return_weights
};

struct ScoreRow {
  int move = 0;
  std::size_t fitness_positions = 0, test_positions = 0;
  std::size_t test_seen = 0;      // test positions that are fitness positions up to symmetry (before exclusion)
  std::size_t test_excluded = 0;  // of those, dropped by exclude_seen (test_positions counts the rest)
  double constant_mse = 0;        // predict the fitness-set mean label
  double irreducible_mse = 0;     // predict each distinct test board's own mean label
  std::vector<ScoreCell> cells;   // one per shape
};

// The fitness and test positions at one move as `options` asks for them (split off the data,
// or held out), with the overlap counted. Throws ef::Error when either side is empty.
struct MoveSplit {
  data::Split split;                             // (fitness, test)
  std::size_t test_seen = 0, test_excluded = 0;  // as in ScoreRow
};
MoveSplit score_positions_at_move(const std::vector<data::Game>& games, int move, const ScoreOptions& options);

// A fitness/test split made resident on a backend: fitness positions are ids
// [0, fitness.size()), test positions follow. Used by the score table and the search.
struct ResidentSplit {
  int handle = -1;
  std::vector<u32> fitness_ids, test_ids;
};
ResidentSplit make_resident(const data::Split& split, Backend& backend);

// The score table in two steps, for callers that score many batches of shapes on the same data
// (the Python module's evaluator): `prepare_score` splits the data at every move and makes the
// splits resident on `backend` once; `score_shapes` trains every (move, shape) of one batch of
// shapes as ONE Backend::train call on those resident splits and returns the rows with their
// cells. score_table is the two in a row, so both give the same bits for the same inputs.
struct PreparedScore {
  std::vector<ScoreRow> rows;  // one per move, without cells
  std::vector<int> handles;    // per move: the resident position set (fitness then test)
  std::vector<std::vector<u32>> fitness_ids, test_ids;
};
PreparedScore prepare_score(const std::vector<data::Game>& games, const ScoreOptions& options, Backend& backend);
std::vector<ScoreRow> score_shapes(const PreparedScore& prepared, const std::vector<ntuple::Geometry>& geometries,
                                   const ScoreOptions& options, Backend& backend);

std::vector<ScoreRow> score_table(const std::vector<data::Game>& games, const std::vector<ntuple::Shape>& shapes,
                                  const ScoreOptions& options, Backend& backend);

// What a batch of score_shapes allocates by the numbers its user gives (shapes, moves, tuple
// sizes, threads), beyond the data: the jobs and results; on a CPU backend ("cpu" or "auto")
// each worker thread's weight table; the trained tables when options.return_weights; the
// curves when options.record_curves. For the memory check of `score` and the Python evaluator.
std::vector<MemoryPart> score_memory_estimate(const std::vector<ntuple::Geometry>& geometries, std::size_t moves,
                                              const ScoreOptions& options, std::string_view backend, int threads);

// For each move number 0..60, the index of the nearest scored move of `rows` (the lower on a
// tie): the network of a move that was not scored. With `phase_of_move`, only scored moves of
// the same phase count (the caller checks that every phase has one), so each move keeps its
// phase's shape.
std::array<int, ntuple::kMoveNumbers> nearest_scored_move(
    const std::vector<ScoreRow>& rows, const std::array<int, ntuple::kMoveNumbers>* phase_of_move = nullptr);

// The agent of shape `s` of a table scored with return_weights (`score --save-agents`, the
// Python module's Evaluator.agent): the network trained at each scored move (moved out of
// `rows`); every other move number uses the network of the nearest scored move.
play::OthelloAgent score_agent(const ntuple::Shape& shape, std::vector<ScoreRow>& rows, std::size_t s,
                               search::OthelloLimits limits);

}  // namespace ef
