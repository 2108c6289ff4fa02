// BRKGA islands with migration (docs/method.md 1.2): island k searches the shape for move number
// moves[k]; the islands are ordered by move number, which defines their neighbours.
//
// One generation of the island model, as advance_generation runs it (fitness evaluation is the
// caller's, see runs/shape_fitness.hpp):
//   1. sort every island by the fitness of the current generation;
//   2. generation transition on every island (brkga.hpp: elite, mutants, offspring);
//   3. if the new generation number g is a multiple of the migration interval, migrate;
//   4. with shaking on (shake.hpp): each island's stall count is updated with the best of the
//      generation just left (at step 1), and a stalled island is shaken or reset.
//
// Migration rule (exact):
//   - Migrants are the best individuals of a source island's previous generation, i.e. the
//     first slots of its elite after step 2 (they keep their rank and their fitness there);
//     the new mutants and offspring have no fitness yet and never migrate. A route therefore
//     carries at most pe migrants.
//   - All migrants are copied before any island receives immigrants, so the order in which the
//     islands are processed does not matter. (Immigrants only overwrite mutant slots, which are
//     never migrant slots, but the copy makes the rule independent of that argument.)
//   - An island's immigrants replace distinct, randomly chosen slots of its new mutant set
//     [pe, pe + pm): a partial Fisher-Yates shuffle of those slots with
//     Rng(seed, Purpose::kMigration, receiving island, g). Immigrants are placed in route order
//     (source island ascending), best first within a source. An island receives at most pm.
//   - An immigrant keeps its keys; its fitness is reset to "not evaluated", because its
//     fitness was measured at another island's move number.
//   - Island sizes never change.
// Topologies (`size` = migration size, N = number of islands; N = 1 never migrates):
//   paper: an edge island receives the `size` best of its one neighbour; an inner island k
//          receives ceil(size/2) from island k-1 and floor(size/2) from island k+1 (the paper
//          uses an even size, 10 -> 5 + 5; for an odd size the lower-move neighbour sends the
//          extra one, so every island receives exactly `size`). With N = 2 both are edge islands.
//   ring:  island k receives `size` from island k-1 (island 0 from island N-1).
//   all:   island k receives floor(size/(N-1)) from every other island (rounded down so that no
//          island receives more than `size`); a size below N-1 would send nothing and is an error.
#pragma once
#include <string>
#include <string_view>
#include <vector>
#include "evalforge/ga/brkga.hpp"
#include "evalforge/ga/island_team.hpp"
#include "evalforge/ga/path_relinking.hpp"
#include "evalforge/ga/shake.hpp"

namespace ef::ga {

enum class Topology { kPaper, kRing, kAll };

// "paper", "ring" or "all"; throws ef::Error naming the bad value otherwise.
Topology parse_topology(std::string_view name);
std::string_view topology_name(Topology topology);

struct MigrationParams {
  Topology topology = Topology::kPaper;
  int interval = 25;  // generations between migrations; 0 = never (docs/method.md Table 1: 25)
  int size = 10;      // migrants received per island and migration (Table 1: 10)
};

// `count` best individuals of island `from` are copied to island `to`.
struct MigrationRoute {
  int from = 0;
  int to = 0;
  int count = 0;
  bool operator==(const MigrationRoute&) const = default;
};

// The routes of one migration, sorted by (to, from); routes of count 0 are left out.
// Throws ef::Error for a negative size, or a topology "all" whose share rounds to zero.
std::vector<MigrationRoute> migration_routes(Topology topology, int num_islands, int size);

// Whether a migration follows the transition that made `generation`.
inline bool migration_due(const MigrationParams& params, int generation) {
  return params.interval > 0 && generation > 0 && generation % params.interval == 0;
}

// Migration on populations fresh from next_generation (layout of brkga.hpp), for the
// generation `generation`. Throws ef::Error when a route carries more than pe migrants or an
// island receives more than pm immigrants.
void migrate(std::vector<Population>& islands, const BrkgaParams& brkga, const MigrationParams& migration, u64 seed,
             u32 generation);
// The same rule when this process holds only the islands [first_island, first_island +
// islands.size()) of `num_islands`, the block island_block() gives `team`'s rank: migrants of a
// route between two ranks travel as one message per (sending rank, receiving rank) pair, the
// keys of its routes in route order, and are placed exactly as if they had been copied locally.
// Only ranks that hold both ends of a route exchange anything (no collective).
void migrate(std::vector<Population>& islands, int first_island, int num_islands, const BrkgaParams& brkga,
             const MigrationParams& migration, u64 seed, u32 generation, IslandTeam& team);

struct IslandsConfig {
  std::vector<int> moves;  // one island per move number, strictly ascending (e.g. 18, 22, ..., 46)
  BrkgaParams brkga;
  MigrationParams migration;
  ShakeParams shake;  // off by default
  IprParams ipr;      // off by default; the caller runs path_relink (path_relinking.hpp)
  u64 seed = 1;
  // Throws ef::Error for no island, moves not strictly ascending or outside 0..60, bad BRKGA
  // parameters, or a migration that does not fit them (checked once, up front).
  void validate() const;
};

// The islands one process holds: all of them (first_island 0), or a rank's block of a
// distributed run (island_team.hpp). Island numbers in random streams are always the global
// ones, first_island + k.
struct Archipelago {
  std::vector<int> moves;           // moves[k]: the move number island first_island + k optimises for
  std::vector<Population> islands;  // islands[k]: its population
  int generation = 0;               // the generation the populations belong to
  int first_island = 0;             // global number of islands[0]
  // stalls[k]: island first_island + k's stall state (shake.hpp), updated through the
  // generation before `generation`; kept (and checkpointed) only when shaking is on.
  std::vector<StallState> stalls;
};

// Generation 0: random keys on every island of `block` (island k draws with island number k);
// without a block, on every island.
Archipelago make_archipelago(const IslandsConfig& config, int num_keys);
Archipelago make_archipelago(const IslandsConfig& config, int num_keys, IslandBlock block);

// Steps 1-4 above; every individual of the current generation must have been evaluated.
// Afterwards slot 0 of each island holds the best individual of the generation just left.
// Without a team the archipelago must hold every island; with one, its rank's block.
// Returns what shaking did to each island held (all kNone when shaking is off).
std::vector<ShakeAction> advance_generation(Archipelago& archipelago, const IslandsConfig& config);
std::vector<ShakeAction> advance_generation(Archipelago& archipelago, const IslandsConfig& config, IslandTeam& team);

}  // namespace ef::ga
