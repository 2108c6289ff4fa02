// Host side of the feature-weight evaluator (include/evalforge/eval/features.hpp): the blog's
// chromosome text "o:e:wf1:wm1:wc1:wf2:wm2:wc2:wf3:wm3:wc3" to Weights and back.
#pragma once
#include <string>
#include <string_view>
#include "evalforge/eval/features.hpp"

namespace ef::features {

// Parses 11 colon-separated integers with the blog's ranges (o 1..20, e 41..60, weights 0..10).
// Throws ef::Error naming `where` (a file:line, a config key) and the bad field.
Weights parse_chromosome(std::string_view text, Material kind, const std::string& where);
std::string format_chromosome(const Weights& weights);  // the same 11 integers, ':'-separated

}  // namespace ef::features
