// Implicit path relinking (IPR) between elite individuals of the islands (BRKGA-MP-IPR, Andrade,
// Toso, Gonçalves & Resende 2021; docs/method.md 1.2, "Implicit path relinking").
//
// The path: an individual's keys fall into blocks of block_size consecutive keys (for shapes:
// one block per tuple, the keys the decoder reads for it). From a base individual towards a
// guide, the blocks whose decoded content differs (block_distance > 0) are the path's moves.
// Each step makes, for every move left, the candidate "current individual with that block taken
// from the guide", evaluates all candidates of all paths in ONE batch (the caller's evaluator,
// e.g. one backend call), and continues from the best candidate (lowest fitness; a tie goes to
// the lower block). A path takes ceil(percentage x moves) steps (at least one when it has a
// move); the best candidate met on the way is its result. With percentage 1 the last step
// reaches the guide, and the distance to the guide falls by each step's block.
//
// Pairs (path_relink on an archipelago): every `interval` generations (g > 0), after generation
// g is evaluated, each island k makes `pairs` paths. Base: its i-th best elite individual for
// pair i (selection best) or a uniform elite individual (random). Guide: an elite individual of
// another island (the same island when there is only one), the island uniform over the others,
// the individual its best (best) or uniform (random); a guide closer than min_distance to the
// base is drawn again, up to 8 draws, else the pair is skipped. Draws:
// Rng(seed, Purpose::kPathRelinking, k, g, pair). The elites of every island are known to every
// rank (one gather and broadcast), so the pairs do not depend on how islands are spread.
// Result: a path's best replaces the island's worst individual (highest fitness, the last slot
// on a tie) when it is strictly better than that worst and no individual of the island is at
// distance 0 from it; pairs are applied in order. Its fitness was measured on the island's data
// of generation g, like everyone else's, so it ranks with them at the next transition.
#pragma once
#include <functional>
#include <limits>
#include <optional>
#include <span>
#include <string_view>
#include <vector>
#include "evalforge/ga/brkga.hpp"
#include "evalforge/ga/island_team.hpp"

namespace ef::ga {

enum class IprSelection { kBest, kRandom };
// "best" or "random".
const char* ipr_selection_name(IprSelection selection);
std::optional<IprSelection> parse_ipr_selection(std::string_view name);

struct IprParams {
  int interval = 0;  // generations between relinkings; 0 = never
  int pairs = 1;     // paths per island and relinking
  IprSelection selection = IprSelection::kBest;
  double percentage = 0.5;    // share of a path's moves walked, in (0, 1]
  double min_distance = 1.0;  // pairs closer than this are not relinked
  bool enabled() const { return interval > 0; }
  // Throws ef::Error for a negative interval, pairs < 1, percentage outside (0, 1], a negative
  // min_distance, or (with `elite_count`) more pairs than elite individuals under selection best.
  void validate(int elite_count) const;
};

// What the path needs of the problem: the blocks, their distance and a batch evaluator.
struct RelinkProblem {
  int block_size = 1;
  // Distance between block `block` of two individuals (their keys of that block); 0 = alike.
  std::function<double(std::span<const double> a, std::span<const double> b, int block)> block_distance;
  // fitness[i] of individuals[i], measured for island islands[i] (a local index the caller
  // gave in RelinkPath::island); one call per step, every path's candidates together.
  std::function<void(const std::vector<int>& islands, const std::vector<std::vector<double>>& individuals,
                     std::vector<double>& fitness)>
      evaluate;
};

// The sum of the block distances of two individuals of the same number of keys.
double relink_distance(const RelinkProblem& problem, std::span<const double> a, std::span<const double> b);

struct RelinkPath {
  std::vector<double> base, guide;
  int island = 0;  // handed to the evaluator with the path's candidates
};

struct RelinkResult {
  std::vector<double> best;  // the best candidate met (empty: base and guide alike, no step)
  double fitness = std::numeric_limits<double>::quiet_NaN();
  int evaluations = 0;
  double distance = 0;                  // base to guide
  std::vector<double> guide_distances;  // distance from the current individual to the guide after each step
};

// The paths walked side by side (rule above); results in path order.
std::vector<RelinkResult> relink(const std::vector<RelinkPath>& paths, const RelinkProblem& problem, double percentage);

struct Archipelago;
struct IslandsConfig;

// One path of a relinking on an archipelago, for the log.
struct IprReport {
  int island = 0;        // global number of the base's island
  int guide_island = 0;  // global number of the guide's island
  int pair = 0;
  double base_fitness = 0;
  RelinkResult result;
  bool inserted = false;  // the path's best replaced the island's worst
  double replaced_fitness = std::numeric_limits<double>::quiet_NaN();
};

// The relinking of the generation just evaluated (pairs and result above); nothing when it is
// not due. Every individual of the islands held must have been evaluated. `problem.evaluate`
// gets local island indices (into archipelago.islands). Reports of the islands held, in order.
std::vector<IprReport> path_relink(Archipelago& archipelago, const IslandsConfig& config, const RelinkProblem& problem,
                                   IslandTeam& team);

}  // namespace ef::ga
