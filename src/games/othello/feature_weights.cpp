#include "games/othello/feature_weights.hpp"
#include <fmt/format.h>
#include <charconv>
#include "core/error.hpp"

namespace ef::features {

Weights parse_chromosome(std::string_view text, Material kind, const std::string& where) {
  static constexpr const char* kNames[11] = {"o", "e", "wf1", "wm1", "wc1", "wf2", "wm2", "wc2", "wf3", "wm3", "wc3"};
  int values[11];
  std::size_t field = 0;
  std::string_view rest = text;
  for (;; ++field) {
    const std::size_t colon = rest.find(':');
    const std::string_view token = rest.substr(0, colon);
    if (field >= 11)
      fail("{}: chromosome \"{}\" has more than 11 fields (o:e:wf1:wm1:wc1:...:wc3 expected)", where, text);
    int v = 0;
    const auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), v);
    if (ec != std::errc{} || end != token.data() + token.size())
      fail("{}: chromosome field {} ({}) is \"{}\", an integer expected", where, field + 1, kNames[field], token);
    const int lo = kGeneBounds[field].low, hi = kGeneBounds[field].high;
    if (v < lo || v > hi)
      fail("{}: chromosome field {} ({}) is {}, expected {}..{}", where, field + 1, kNames[field], v, lo, hi);
    values[field] = v;
    if (colon == std::string_view::npos) break;
    rest = rest.substr(colon + 1);
  }
  if (field != 10)
    fail("{}: chromosome \"{}\" has {} fields, 11 expected (o:e:wf1:wm1:wc1:...:wc3)", where, text, field + 1);
  return from_genes(values, kind, where);
}

std::array<int, kGenes> to_genes(const Weights& w) {
  return {w.o,           w.e,          w.material[0], w.mobility[0], w.corners[0], w.material[1],
          w.mobility[1], w.corners[1], w.material[2], w.mobility[2], w.corners[2]};
}

Weights from_genes(std::span<const int> genes, Material kind, const std::string& where) {
  if (genes.size() != kGenes) fail("{}: {} genes, 11 expected (o:e:wf1:wm1:wc1:...:wc3)", where, genes.size());
  for (int k = 0; k < kGenes; ++k)
    if (genes[k] < kGeneBounds[k].low || genes[k] > kGeneBounds[k].high)
      fail("{}: gene {} is {}, expected {}..{}", where, k + 1, genes[k], kGeneBounds[k].low, kGeneBounds[k].high);
  Weights w;
  w.o = genes[0];
  w.e = genes[1];
  for (int p = 0; p < 3; ++p) {
    w.material[p] = genes[2 + 3 * p];
    w.mobility[p] = genes[3 + 3 * p];
    w.corners[p] = genes[4 + 3 * p];
  }
  w.kind = kind;
  return w;
}

std::string format_chromosome(const Weights& w) {
  return fmt::format("{}:{}:{}:{}:{}:{}:{}:{}:{}:{}:{}", w.o, w.e, w.material[0], w.mobility[0], w.corners[0],
                     w.material[1], w.mobility[1], w.corners[1], w.material[2], w.mobility[2], w.corners[2]);
}

}  // namespace ef::features
