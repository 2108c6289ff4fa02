// Host side of the feature-weight evaluator (src/games/othello/features.hpp): the blog's
// chromosome text "o:e:wf1:wm1:wc1:wf2:wm2:wc2:wf3:wm3:wc3" to Weights and back.
#pragma once
#include <array>
#include <span>
#include <string>
#include <string_view>
#include "games/othello/features.hpp"

namespace ef::features {

// Parses 11 colon-separated integers with the blog's ranges (o 1..20, e 41..60, weights 0..10).
// Throws ef::Error naming `where` (a file:line, a config key) and the bad field.
Weights parse_chromosome(std::string_view text, Material kind, const std::string& where);
std::string format_chromosome(const Weights& weights);  // the same 11 integers, ':'-separated

// The chromosome as 11 integer genes in its text order, and the range of each gene (the blog's:
// o 1..20, e 41..60, every weight 0..10), for the GA layer, which knows genes, not features.
constexpr int kGenes = 11;
struct GeneBounds {
  int low, high;
};
constexpr std::array<GeneBounds, kGenes> kGeneBounds{
    {{1, 20}, {41, 60}, {0, 10}, {0, 10}, {0, 10}, {0, 10}, {0, 10}, {0, 10}, {0, 10}, {0, 10}, {0, 10}}};
std::array<int, kGenes> to_genes(const Weights& weights);
// Throws ef::Error naming `where` unless there are 11 genes, each in its range.
Weights from_genes(std::span<const int> genes, Material kind, const std::string& where);

}  // namespace ef::features
