#include "games/othello/feature_weights.hpp"
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <charconv>
#include "evalforge/core/error.hpp"

namespace ef::features {

namespace {

constexpr const char* kNames[kPositionalGenes] = {"o",   "e",   "wf1", "wm1", "wc1", "wf2", "wm2", "wc2", "wf3",
                                                  "wm3", "wc3", "wx1", "we1", "wa1", "wr1", "ws1", "wx2", "we2",
                                                  "wa2", "wr2", "ws2", "wx3", "we3", "wa3", "wr3", "ws3"};
constexpr const char* kShape = "o:e:wf1:wm1:wc1:...:wc3, or with wx1:we1:wa1:wr1:ws1:...:ws3 after them";

}  // namespace

Weights parse_chromosome(std::string_view text, Material kind, const std::string& where) {
  // The fields first, so that a chromosome of a wrong length is named as such before any of its
  // values is checked against the range of a gene it does not have.
  std::vector<std::string_view> fields;
  for (std::string_view rest = text;;) {
    const std::size_t colon = rest.find(':');
    fields.push_back(rest.substr(0, colon));
    if (colon == std::string_view::npos) break;
    rest = rest.substr(colon + 1);
  }
  if (fields.size() > kPositionalGenes)
    fail("{}: chromosome \"{}\" has more than {} fields ({} expected)", where, text, kPositionalGenes, kShape);
  if (fields.size() != kGenes && fields.size() != kPositionalGenes)
    fail("{}: chromosome \"{}\" has {} fields, {} or {} expected ({})", where, text, fields.size(), kGenes,
         kPositionalGenes, kShape);
  int values[kPositionalGenes];
  for (std::size_t field = 0; field < fields.size(); ++field) {
    const std::string_view token = fields[field];
    int v = 0;
    const auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), v);
    if (ec != std::errc{} || end != token.data() + token.size())
      fail("{}: chromosome field {} ({}) is \"{}\", an integer expected", where, field + 1, kNames[field], token);
    const int lo = kAllGeneBounds[field].low, hi = kAllGeneBounds[field].high;
    if (v < lo || v > hi)
      fail("{}: chromosome field {} ({}) is {}, expected {}..{}", where, field + 1, kNames[field], v, lo, hi);
    values[field] = v;
  }
  return from_genes(std::span<const int>(values, fields.size()), kind, where);
}

std::vector<int> to_genes(const Weights& w) {
  std::vector<int> g{w.o,           w.e,          w.material[0], w.mobility[0], w.corners[0], w.material[1],
                     w.mobility[1], w.corners[1], w.material[2], w.mobility[2], w.corners[2]};
  if (w.positional)
    for (int p = 0; p < 3; ++p)
      g.insert(g.end(), {w.x_squares[p], w.edges[p], w.anchored[p], w.frontier[p], w.c_squares[p]});
  return g;
}

Weights from_genes(std::span<const int> genes, Material kind, const std::string& where) {
  if (genes.size() != kGenes && genes.size() != kPositionalGenes)
    fail("{}: {} genes, {} or {} expected ({})", where, genes.size(), kGenes, kPositionalGenes, kShape);
  for (std::size_t k = 0; k < genes.size(); ++k)
    if (genes[k] < kAllGeneBounds[k].low || genes[k] > kAllGeneBounds[k].high)
      fail("{}: gene {} ({}) is {}, expected {}..{}", where, k + 1, kNames[k], genes[k], kAllGeneBounds[k].low,
           kAllGeneBounds[k].high);
  Weights w;
  w.o = genes[0];
  w.e = genes[1];
  for (int p = 0; p < 3; ++p) {
    w.material[p] = genes[2 + 3 * p];
    w.mobility[p] = genes[3 + 3 * p];
    w.corners[p] = genes[4 + 3 * p];
  }
  w.kind = kind;
  w.positional = genes.size() == kPositionalGenes;
  if (w.positional)
    for (int p = 0; p < 3; ++p) {
      const std::size_t at = kGenes + 5 * static_cast<std::size_t>(p);
      w.x_squares[p] = genes[at];
      w.edges[p] = genes[at + 1];
      w.anchored[p] = genes[at + 2];
      w.frontier[p] = genes[at + 3];
      w.c_squares[p] = genes[at + 4];
    }
  return w;
}

std::string format_chromosome(const Weights& w) { return fmt::format("{}", fmt::join(to_genes(w), ":")); }

}  // namespace ef::features
