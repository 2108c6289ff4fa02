// Fitness of a whole generation of the island model as ONE backend batch (docs/method.md 1.3).
//
// Island k, generation g: its fitness set is the resident position set `positions` (the
// positions at move moves[k], ids 0..num_positions-1). A fresh 80/20 split of it into training
// and validation ids is drawn per island and generation (train_validation_split), the same for
// all individuals of the island. Each individual is decoded, trained from zero weights on the
// training ids and scored on the validation ids; fitness = validation MSE (discs^2, lower is
// better). Every individual is evaluated, the carried-over elite too: its old fitness was
// measured on another split.
//
// Seeds: the split uses Rng(seed, Purpose::kSplit, k, g); training uses TrainParams::seed =
// `seed` with the stream words (k, g), so all individuals of an island in a generation see the
// same sample order and differ only by their shapes. The result is a pure function of
// (populations, data, options, seed, g): backend, thread count and job order do not matter.
#pragma once
#include <cstdint>
#include <span>
#include <vector>
#include "evalforge/backends/backend.hpp"
#include "evalforge/ga/brkga.hpp"
#include "evalforge/runs/shape_decoder.hpp"

namespace ef::ga {

// One island's fitness set, already handed to the backend (Backend::add_positions).
struct IslandFitnessData {
  int positions = -1;               // handle of the resident position set
  std::uint32_t num_positions = 0;  // the fitness positions are ids 0..num_positions-1
};

struct FitnessOptions {
  TrainParams train;                 // its `seed` is replaced by the run seed (one seed per run)
  double validation_fraction = 0.2;  // share of the fitness set held out for validation
};

struct TrainValidationIds {
  std::vector<std::uint32_t> train;       // ascending
  std::vector<std::uint32_t> validation;  // ascending; floor(fraction * n) ids
};

// Ids 0..n-1 split by a partial Fisher-Yates shuffle keyed (seed, Purpose::kSplit, island,
// generation): the first floor(fraction * n) shuffled ids validate, the rest train. Throws
// ef::Error for a fraction outside [0, 1].
TrainValidationIds train_validation_split(std::uint32_t n, double validation_fraction, u64 seed, u32 island,
                                          u32 generation);

// The training job of one individual (its geometry) on island `island`'s fitness set in
// `generation`, trained on `split.train` and scored on `split.validation` (both must outlive the
// job): what evaluate_generation trains, and what the Python module's Evaluator.validate trains
// for shapes given from outside.
TrainJob fitness_job(const ntuple::Geometry& geometry, const IslandFitnessData& data, const TrainValidationIds& split,
                     const FitnessOptions& options, u64 seed, u32 island, u32 generation);

// One individual for evaluate_keys: its keys (which must outlive the call) and the local index of
// the island whose data measures it.
struct IslandKeys {
  int island = 0;
  std::span<const double> keys;
};
// Fitness of individuals given by their keys, each on its island's data of `generation` (the
// split and streams evaluate_generation uses, so the values rank with the generation's own), in
// one Backend::train call: implicit path relinking's candidates (ga/path_relinking.hpp).
void evaluate_keys(Backend& backend, const Decoder& decoder, std::span<const IslandKeys> individuals,
                   std::span<const IslandFitnessData> data, const FitnessOptions& options, u64 seed, u32 generation,
                   u32 first_island, std::span<double> fitness);
// Decodes every individual of every island, trains them all in one Backend::train call and
// writes fitness = eval MSE into islands[k].fitness. Throws ef::Error when the data do not match
// the islands, a split part is empty, or a population's key count does not fit the decoder.
// `first_island`: the global number of islands[0] (a rank of a distributed run holds a block of
// islands; splits and streams are keyed by global numbers, so a block gets the bits it would get
// in the whole archipelago).
void evaluate_generation(Backend& backend, const Decoder& decoder, std::span<Population> islands,
                         std::span<const IslandFitnessData> data, const FitnessOptions& options, u64 seed,
                         u32 generation, u32 first_island = 0);

}  // namespace ef::ga
