// Host side of the feature-weight evaluator (include/evalforge/games/othello/features.hpp): the blog's
// chromosome text "o:e:wf1:wm1:wc1:wf2:wm2:wc2:wf3:wm3:wc3" (and the positional family's 26
// fields) to Weights and back.
#pragma once
#include <array>
#include <span>
#include <string>
#include <string_view>
#include <vector>
#include "evalforge/games/othello/features.hpp"

namespace ef::features {

// Parses a chromosome: 11 colon-separated integers with the blog's ranges (o 1..20, e 41..60,
// weights 0..10), or 26 for the positional family (the 11, then wx1:we1:wa1:wr1:ws1 and the same
// for phases 2 and 3, each 0..10; features.hpp). Throws ef::Error naming `where` (a file:line, a
// config key) and the bad field.
Weights parse_chromosome(std::string_view text, Material kind, const std::string& where);
std::string format_chromosome(const Weights& weights);  // the same 11 (or 26) integers, ':'-separated

// The chromosome as integer genes in its text order, and the range of each gene, for the GA
// layer, which knows genes, not features: 11 for the blog's family, 26 for the positional one
// (whose first 11 are the blog's).
constexpr int kGenes = 11, kPositionalGenes = 26;
struct GeneBounds {
  int low, high;
};
constexpr std::array<GeneBounds, kPositionalGenes> kAllGeneBounds{
    {{1, 20}, {41, 60}, {0, 10}, {0, 10}, {0, 10}, {0, 10}, {0, 10}, {0, 10}, {0, 10},
     {0, 10}, {0, 10},  {0, 10}, {0, 10}, {0, 10}, {0, 10}, {0, 10}, {0, 10}, {0, 10},
     {0, 10}, {0, 10},  {0, 10}, {0, 10}, {0, 10}, {0, 10}, {0, 10}, {0, 10}}};
// The bounds of the blog's family (11 genes) or of the positional one (26).
constexpr std::span<const GeneBounds> gene_bounds(bool positional) {
  return std::span<const GeneBounds>(kAllGeneBounds).first(positional ? kPositionalGenes : kGenes);
}
std::vector<int> to_genes(const Weights& weights);
// Throws ef::Error naming `where` unless there are 11 or 26 genes, each in its range; 26 make a
// positional chromosome.
Weights from_genes(std::span<const int> genes, Material kind, const std::string& where);

}  // namespace ef::features
