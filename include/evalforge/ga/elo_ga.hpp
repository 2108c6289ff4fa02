// The Elo round-robin GA (docs/method.md section 2, seed 002; docs/evolve.md): a population of
// integer chromosomes whose fitness is an Elo rating earned in a double round robin among
// themselves. This file is the scheduler only: it knows genes, ranges, pairings, results and
// ratings, never a game. What a chromosome plays like (an Othello feature-weight agent) and how
// the games are played (one Backend::play batch) is the caller's: see
// games/othello/fitness_matches.hpp and runs/evolve_run.hpp.
//
// One generation:
//   1. the tournament: every unordered pair {i, j}, i < j, plays twice, i first then j first
//      (round_robin_pairings: game id 2 * pair + colour, pairs in (i, j) lexicographic order);
//   2. ratings: the sequential Elo update after every game, in game-id order (ratings.hpp),
//      starting from each member's carried rating (carry_ratings) or from initial_rating;
//   3. ranking: by rating, highest first, ties to the lower index (a stable order);
//   4. the next population, in this order: the top parent_fraction of the ranking (the parents,
//      unchanged, keeping rating, birth and record); mutants (each member of the current
//      population, in index order, yields with probability mutation_rate a copy with
//      mutation_genes distinct genes redrawn to a different value of their range); offspring
//      of crossover between two distinct parents drawn uniformly, until the population is full.
//      New members start at initial_rating with an empty record.
// Every random number is keyed by (seed, Purpose::kEvolve, generation, role, index): a
// generation depends only on the population it starts from, so a checkpoint needs nothing else.
#pragma once
#include <span>
#include <string>
#include <utility>
#include <vector>
#include "evalforge/core/hd.hpp"

namespace ef::ga {

struct GeneRange {
  int low = 0, high = 0;  // inclusive
};

enum class CrossoverKind { kUniform, kOnePoint };

// What ranks a generation's members for breeding and survival.
enum class EloSelection {
  kElo,           // the blog's: the sequential Elo after the tournament (carried ratings), order-dependent
  kScore,         // this generation's tournament score (points / games): every game counts the same
  kBradleyTerry,  // this generation's Bradley-Terry fit of all its games (ratings/ratings.hpp)
};
// How the next generation is made from a ranked one.
enum class EloSearch {
  kGa,      // parents survive, mutants, offspring (step 4 above)
  kRandom,  // a baseline: a fresh population of uniform chromosomes every generation, same games
};

struct EloGaParams {
  int population = 352;
  double parent_fraction = 0.35;  // top share of the ranking that breeds and survives
  double mutation_rate = 0.083;   // per member of the current population: chance of a mutant copy
  int mutation_genes = 1;         // genes redrawn in a mutant
  // The other reading of the blog's rate: per gene. No mutant copies; every gene of every
  // offspring is redrawn (to a different value of its range) with probability mutation_rate.
  bool mutation_per_gene = false;
  CrossoverKind crossover = CrossoverKind::kUniform;
  double k_factor = 16.0;
  double initial_rating = 0.0;
  bool carry_ratings = true;  // survivors keep their rating into the next tournament
  // Games a pair plays: openings_per_pair openings, each with both colours. 1 is the blog's
  // (with no random openings, its two games are pure functions of the two chromosomes).
  int openings_per_pair = 1;
  EloSelection selection = EloSelection::kElo;
  EloSearch search = EloSearch::kGa;
};

struct Member {
  std::vector<int> genes;
  double rating = 0.0;
  int born = 0;                         // generation it first played in
  u64 wins = 0, draws = 0, losses = 0;  // over its whole life, all tournaments
};

struct EloPopulation {
  int generation = 0;  // the generation these members play (0-based)
  std::vector<Member> members;
};

// The game ids of one tournament of n players: element g is (first, second) of game g, laid out
// as engine/round_robin.hpp's paired_games lays out the pairs i < j with `openings` openings each:
// g = (pair * openings + opening) * 2 + colour, colour 0 with i first.
std::vector<std::pair<int, int>> round_robin_pairings(int n, int openings = 1);

// Number of parents for a population (at least 2, at most population).
int parent_count(const EloGaParams& params);

// Throws ef::Error (naming `where` and the key) for a population < 3, fractions outside their
// ranges, mutation_genes outside 1..genes, a k_factor <= 0.
void validate(const EloGaParams& params, std::span<const GeneRange> ranges, const std::string& where);

// Generation 0: population members with uniform genes in their ranges.
EloPopulation initial_population(std::span<const GeneRange> ranges, const EloGaParams& params, u64 seed);

// Steps 2 and 3: updates ratings and records from the scores of the tournament's games (the
// first player's score, 0, 0.5 or 1, by game id, as round_robin_pairings(n,
// params.openings_per_pair) numbers them) and ranks the members by params.selection.
struct RatedGeneration {
  std::vector<int> order;       // member indices, best first; ties to the lower index
  std::vector<double> fitness;  // per member, what the order sorts by (Elo, score or BT Elo)
};
RatedGeneration rate_generation(EloPopulation& population, std::span<const double> first_scores,
                                const EloGaParams& params);
// The order of rate_generation.
std::vector<int> rate_tournament(EloPopulation& population, std::span<const double> first_scores,
                                 const EloGaParams& params);

// The ranking of members by rating, best first, ties to the lower index.
std::vector<int> ranking(const EloPopulation& population);

// Step 4: the population of the next generation from a rated one and its ranking (with
// EloSearch::kRandom: fresh uniform chromosomes, whatever the ranking).
EloPopulation next_generation(const EloPopulation& rated, std::span<const int> ranking,
                              std::span<const GeneRange> ranges, const EloGaParams& params, u64 seed);

// Population diversity: distinct chromosomes, and the mean fraction of genes in which two
// members differ (over all pairs).
struct Diversity {
  int distinct = 0;
  double mean_gene_distance = 0.0;
};
Diversity diversity(const EloPopulation& population);

}  // namespace ef::ga
