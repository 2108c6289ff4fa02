// One generation of the shape search as a backend batch, built but not run: what
// `evalforge verify` and bench/gpu_bench hand to both backends. The jobs are those
// evaluate_generation (runs/shape_fitness.hpp) trains, in the same order and with the same seeds
// (tests/generation_batch_test.cpp compares the two job lists field by field), and the position
// sets are built as a search run builds them (runs/shape_search_run.cpp, upload_data).
#pragma once
#include <cstdint>
#include <span>
#include <utility>
#include <vector>
#include "evalforge/backends/backend.hpp"
#include "evalforge/data/games.hpp"
#include "evalforge/runs/shape_fitness.hpp"
#include "evalforge/runs/shape_search_config.hpp"

namespace ef::ga {

// The position set of one island as a search run uploads it: the fitness positions at the
// island's move (ids 0..num_fitness-1), then its test positions; labels in fixed point.
struct IslandPositions {
  int move = 0;
  PositionData data;
  std::uint32_t num_fitness = 0;
  std::uint32_t num_test = 0;
};

// Throws ef::Error when a move has fewer than 5 fitness or no test positions (as a run does).
std::vector<IslandPositions> island_positions(const std::vector<data::Game>& games, const SearchConfig& config);

// The jobs point into `geometries` and `splits`: a batch may be moved (vectors keep their
// buffers) but not copied.
struct GenerationBatch {
  std::vector<TrainValidationIds> splits;       // per island
  std::vector<ntuple::Geometry> geometries;     // per job
  std::vector<TrainJob> jobs;                   // island by island, individuals in slot order
  std::vector<std::pair<int, int>> individual;  // (island, slot) of each job

  GenerationBatch() = default;
  GenerationBatch(GenerationBatch&&) = default;
  GenerationBatch& operator=(GenerationBatch&&) = default;
  GenerationBatch(const GenerationBatch&) = delete;
  GenerationBatch& operator=(const GenerationBatch&) = delete;
};

// The batch evaluate_generation would run for `islands` at `generation` (same checks, same
// errors). `data[k].positions` are handles of the backend(s) the batch will run on; all
// backends that received the sets in the same order hand out the same handles. `first_island`
// as in evaluate_generation.
GenerationBatch build_generation_batch(const Decoder& decoder, std::span<const Population> islands,
                                       std::span<const IslandFitnessData> data, const FitnessOptions& options, u64 seed,
                                       u32 generation, u32 first_island = 0);

}  // namespace ef::ga
