#include "evalforge/runs/shape_fitness.hpp"
#include <algorithm>
#include <cmath>
#include <numeric>
#include "evalforge/core/error.hpp"
#include "evalforge/core/rng.hpp"

namespace ef::ga {

TrainValidationIds train_validation_split(std::uint32_t n, double validation_fraction, u64 seed, u32 island,
                                          u32 generation) {
  if (!(validation_fraction >= 0.0 && validation_fraction <= 1.0))
    fail("validation fraction {} is outside [0, 1]", validation_fraction);
  // The small tolerance keeps products like 0.2 * 35 = 6.999999999999999 at 7.
  const auto k = std::min<std::uint32_t>(
      n, static_cast<std::uint32_t>(std::floor(validation_fraction * static_cast<double>(n) + 1e-9)));
  std::vector<std::uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0u);
  Rng rng(seed, Purpose::kSplit, island, generation);
  std::vector<bool> held_out(n, false);
  for (std::uint32_t i = 0; i < k; ++i) {
    std::swap(order[i], order[i + rng.below(n - i)]);
    held_out[order[i]] = true;
  }
  TrainValidationIds ids;
  ids.validation.reserve(k);
  ids.train.reserve(n - k);
  for (std::uint32_t id = 0; id < n; ++id) (held_out[id] ? ids.validation : ids.train).push_back(id);
  return ids;
}

TrainJob fitness_job(const ntuple::Geometry& geometry, const IslandFitnessData& data, const TrainValidationIds& split,
                     const FitnessOptions& options, u64 seed, u32 island, u32 generation) {
  TrainJob job;
  job.geometry = &geometry;
  job.positions = data.positions;
  job.train_ids = split.train;
  job.eval_ids = split.validation;
  job.params = options.train;
  job.params.seed = seed;
  job.stream[0] = island;
  job.stream[1] = generation;
  return job;
}

namespace {

// The validation splits of the islands held, checked against their data.
std::vector<TrainValidationIds> island_splits(std::span<const IslandFitnessData> data, const FitnessOptions& options,
                                              u64 seed, u32 generation, u32 first_island) {
  std::vector<TrainValidationIds> splits;
  for (std::size_t k = 0; k < data.size(); ++k) {
    splits.push_back(train_validation_split(data[k].num_positions, options.validation_fraction, seed,
                                            first_island + static_cast<u32>(k), generation));
    if (splits.back().train.empty() || splits.back().validation.empty())
      fail(
          "fitness: island {} has {} fitness positions; a {:.0f}% validation split leaves {} for training and {} "
          "for validation, and both must be non-empty",
          k, data[k].num_positions, 100 * options.validation_fraction, splits.back().train.size(),
          splits.back().validation.size());
  }
  return splits;
}

}  // namespace

void evaluate_keys(Backend& backend, const Decoder& decoder, std::span<const IslandKeys> individuals,
                   std::span<const IslandFitnessData> data, const FitnessOptions& options, u64 seed, u32 generation,
                   u32 first_island, std::span<double> fitness) {
  if (fitness.size() != individuals.size())
    fail("fitness: {} individuals but room for {} fitness values", individuals.size(), fitness.size());
  const std::vector<TrainValidationIds> splits = island_splits(data, options, seed, generation, first_island);
  // Geometries live until train() returns: the jobs point at them.
  std::vector<ntuple::Geometry> geometries;
  geometries.reserve(individuals.size());
  std::vector<TrainJob> jobs;
  jobs.reserve(individuals.size());
  for (const IslandKeys& ind : individuals) {
    if (ind.island < 0 || static_cast<std::size_t>(ind.island) >= data.size())
      fail("fitness: island {} of {} held", ind.island, data.size());
    const auto k = static_cast<std::size_t>(ind.island);
    geometries.push_back(decoder.decode(ind.keys).geometry());
    jobs.push_back(fitness_job(geometries.back(), data[k], splits[k], options, seed,
                               first_island + static_cast<std::uint32_t>(k), generation));
  }
  std::vector<TrainResult> results(jobs.size());
  backend.train(jobs, results);
  for (std::size_t j = 0; j < results.size(); ++j) fitness[j] = results[j].eval_loss.mse();
}

void evaluate_generation(Backend& backend, const Decoder& decoder, std::span<Population> islands,
                         std::span<const IslandFitnessData> data, const FitnessOptions& options, u64 seed,
                         u32 generation, u32 first_island) {
  if (data.size() != islands.size()) fail("fitness: {} islands but {} fitness sets", islands.size(), data.size());
  std::vector<IslandKeys> individuals;
  for (std::size_t k = 0; k < islands.size(); ++k) {
    if (islands[k].num_keys != decoder.num_keys())
      fail("fitness: island {} has {} keys per individual; the decoder needs {}", k, islands[k].num_keys,
           decoder.num_keys());
    for (int i = 0; i < islands[k].size; ++i) individuals.push_back({static_cast<int>(k), islands[k].individual(i)});
  }
  std::vector<double> fitness(individuals.size());
  evaluate_keys(backend, decoder, individuals, data, options, seed, generation, first_island, fitness);
  std::size_t j = 0;
  for (auto& pop : islands)
    for (int i = 0; i < pop.size; ++i) pop.fitness[i] = fitness[j++];
}

}  // namespace ef::ga
