#include "runs/shape_generation_batch.hpp"
#include "evalforge/core/error.hpp"

namespace ef::ga {

std::vector<IslandPositions> island_positions(const std::vector<data::Game>& games, const SearchConfig& config) {
  std::vector<IslandPositions> out;
  const auto options = config.position_options();
  for (int move : config.islands.moves) {
    // As runs/shape_search_run.cpp's upload_data: the fitness/test split keyed by the run seed.
    const data::Split split =
        data::fitness_test_at_move(games, move, config.split, config.test_fraction, config.islands.seed, options);
    if (split.first.size() < 5 || split.second.size() == 0)
      fail("move {}: only {} fitness and {} test positions in the data", move, split.first.size(), split.second.size());
    IslandPositions island;
    island.move = move;
    for (const data::PositionSet* set : {&split.first, &split.second})
      for (std::size_t i = 0; i < set->size(); ++i) {
        island.data.black.push_back(set->black[i]);
        island.data.white.push_back(set->white[i]);
        island.data.label.push_back(ntuple::label_to_fixed(set->label[i]));
      }
    island.num_fitness = static_cast<std::uint32_t>(split.first.size());
    island.num_test = static_cast<std::uint32_t>(split.second.size());
    out.push_back(std::move(island));
  }
  return out;
}

GenerationBatch build_generation_batch(const Decoder& decoder, std::span<const Population> islands,
                                       std::span<const IslandFitnessData> data, const FitnessOptions& options, u64 seed,
                                       u32 generation, u32 first_island) {
  // The checks, split, job order and seeds of evaluate_generation (runs/shape_fitness.cpp).
  if (data.size() != islands.size()) fail("fitness: {} islands but {} fitness sets", islands.size(), data.size());
  GenerationBatch b;
  std::size_t num_jobs = 0;
  for (std::size_t k = 0; k < islands.size(); ++k) {
    if (islands[k].num_keys != decoder.num_keys())
      fail("fitness: island {} has {} keys per individual; the decoder needs {}", k, islands[k].num_keys,
           decoder.num_keys());
    b.splits.push_back(train_validation_split(data[k].num_positions, options.validation_fraction, seed,
                                              first_island + static_cast<u32>(k), generation));
    if (b.splits.back().train.empty() || b.splits.back().validation.empty())
      fail(
          "fitness: island {} has {} fitness positions; a {:.0f}% validation split leaves {} for training and {} "
          "for validation, and both must be non-empty",
          k, data[k].num_positions, 100 * options.validation_fraction, b.splits.back().train.size(),
          b.splits.back().validation.size());
    num_jobs += static_cast<std::size_t>(islands[k].size);
  }
  b.geometries.reserve(num_jobs);  // no reallocation: the jobs point at the elements
  b.jobs.reserve(num_jobs);
  for (std::size_t k = 0; k < islands.size(); ++k) {
    for (int i = 0; i < islands[k].size; ++i) {
      b.geometries.push_back(decoder.decode(islands[k].individual(i)).geometry());
      TrainJob job;
      job.geometry = &b.geometries.back();
      job.positions = data[k].positions;
      job.train_ids = b.splits[k].train;
      job.eval_ids = b.splits[k].validation;
      job.params = options.train;
      job.params.seed = seed;
      job.stream[0] = first_island + static_cast<std::uint32_t>(k);
      job.stream[1] = generation;
      b.jobs.push_back(job);
      b.individual.emplace_back(static_cast<int>(k), i);
    }
  }
  return b;
}

}  // namespace ef::ga
