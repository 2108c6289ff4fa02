#include "evalforge/runs/shape_decoder.hpp"
#include <algorithm>
#include <bit>
#include <numeric>
#include "evalforge/core/error.hpp"
#include "evalforge/games/othello/bitboard.hpp"

namespace ef::ga {

std::vector<int> default_search_region() {
  std::vector<int> squares(24);
  std::iota(squares.begin(), squares.end(), 0);
  return squares;
}

std::vector<int> edax_tuple_sizes() { return {9, 10, 10, 10, 8, 8, 8, 8, 7, 6, 5, 4}; }

Decoder::Decoder() : Decoder(default_search_region(), edax_tuple_sizes()) {}

Decoder::Decoder(std::vector<int> region, std::vector<int> tuple_sizes)
    : region_(std::move(region)), tuple_sizes_(std::move(tuple_sizes)) {
  if (region_.empty()) fail("search region: no squares (expected 1 to 64 squares)");
  u64 seen = 0;
  for (int sq : region_) {
    if (sq < 0 || sq > 63) fail("search region: square {} is not on the board (expected 0..63)", sq);
    if (seen >> sq & 1) fail("search region: square {} is listed twice", sq);
    seen |= u64{1} << sq;
  }
  if (tuple_sizes_.empty() || tuple_sizes_.size() > static_cast<std::size_t>(ntuple::kMaxTuples))
    fail("tuple sizes: {} tuples; expected 1 to {}", tuple_sizes_.size(), ntuple::kMaxTuples);
  const int largest = std::min(ntuple::kMaxTupleSize, static_cast<int>(region_.size()));
  for (std::size_t i = 0; i < tuple_sizes_.size(); ++i)
    if (tuple_sizes_[i] < 1 || tuple_sizes_[i] > largest)
      fail("tuple sizes: tuple {} has size {}; expected 1 to {} (at most {} and the {} squares of the search region)",
           i + 1, tuple_sizes_[i], largest, ntuple::kMaxTupleSize, region_.size());
}

ntuple::Shape Decoder::decode(std::span<const double> keys) const {
  if (keys.size() != static_cast<std::size_t>(num_keys()))
    fail("decoder: {} keys given; this decoder needs {} ({} tuples x {} region squares)", keys.size(), num_keys(),
         num_tuples(), keys_per_tuple());
  for (std::size_t k = 0; k < keys.size(); ++k)
    if (!(keys[k] >= 0.0 && keys[k] < 1.0)) fail("decoder: key {} is {}; keys must lie in [0, 1)", k, keys[k]);

  const std::size_t region_size = region_.size();
  ntuple::Shape shape;
  for (std::size_t t = 0; t < tuple_sizes_.size(); ++t)
    shape.tuples.push_back(tuple_squares(keys.subspan(t * region_size, region_size), static_cast<int>(t)));
  return shape;
}

std::vector<int> Decoder::tuple_squares(std::span<const double> tuple_keys, int tuple) const {
  if (tuple < 0 || tuple >= num_tuples() || tuple_keys.size() != region_.size())
    fail("decoder: tuple {} of {} keys; this decoder has {} tuples of {} keys", tuple, tuple_keys.size(), num_tuples(),
         region_.size());
  std::vector<int> order(region_.size());
  std::iota(order.begin(), order.end(), 0);
  // (key, position) is a strict total order, so the chosen set is unique whatever the
  // algorithm: ties go to the lower position in the region list.
  const auto n = static_cast<std::ptrdiff_t>(tuple_sizes_[static_cast<std::size_t>(tuple)]);
  std::partial_sort(order.begin(), order.begin() + n, order.end(), [&](int a, int b) {
    return tuple_keys[a] != tuple_keys[b] ? tuple_keys[a] < tuple_keys[b] : a < b;
  });
  std::vector<int> squares;
  squares.reserve(static_cast<std::size_t>(n));
  for (std::ptrdiff_t j = 0; j < n; ++j) squares.push_back(region_[static_cast<std::size_t>(order[j])]);
  std::sort(squares.begin(), squares.end());
  return squares;
}

u64 canonical_tuple_mask(const std::vector<int>& squares) {
  u64 mask = 0;
  for (const int sq : squares) mask |= u64{1} << sq;
  u64 best = mask;
  for (int s = 1; s < 8; ++s) best = std::min(best, othello::symmetry(mask, s));
  return best;
}

double tuple_block_distance(const Decoder& decoder, std::span<const double> a, std::span<const double> b, int tuple) {
  const u64 x = canonical_tuple_mask(decoder.tuple_squares(a, tuple));
  const u64 y = canonical_tuple_mask(decoder.tuple_squares(b, tuple));
  return static_cast<double>(std::popcount(x ^ y));
}

}  // namespace ef::ga
