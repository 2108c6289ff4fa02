// Random keys -> n-tuple shape (docs/method.md 1.2): the BRKGA decoder of the shape search.
//
// An individual is a vector of keys in [0, 1). The search region is a list of R squares
// (default: the 24 squares of rows 1..3, a1..h3 = squares 0..23; symmetric sampling carries a
// tuple found there to every edge). Tuple i owns the R keys [R*i, R*i + R): key j belongs to
// region square j. Tuple i takes the n_i region squares with the smallest keys; equal keys are
// broken by the lower position j in the region list, so the result is a pure function of the
// keys (no dependence on sort implementation or platform). The tuples are returned as ascending
// square lists, the form ntuple::Shape uses.
#pragma once
#include <span>
#include <vector>
#include "evalforge/games/othello/shape.hpp"

namespace ef::ga {

// Squares 0..23: rows 1..3 (a1 = 0, square = 8*row + col).
std::vector<int> default_search_region();

// Edax's tuple sizes (docs/anchors.md): 9, 10, 10, 10, 8, 8, 8, 8, 7, 6, 5, 4.
std::vector<int> edax_tuple_sizes();

class Decoder {
 public:
  // The default search region with Edax's tuple sizes.
  Decoder();
  // Throws ef::Error for an empty region, a square outside 0..63 or listed twice, no tuple or
  // more than ntuple::kMaxTuples, or a size outside 1..min(ntuple::kMaxTupleSize, R).
  Decoder(std::vector<int> region, std::vector<int> tuple_sizes);

  const std::vector<int>& region() const { return region_; }
  const std::vector<int>& tuple_sizes() const { return tuple_sizes_; }
  int num_tuples() const { return static_cast<int>(tuple_sizes_.size()); }
  int keys_per_tuple() const { return static_cast<int>(region_.size()); }
  int num_keys() const { return num_tuples() * keys_per_tuple(); }  // keys of one individual

  // Throws ef::Error when keys.size() != num_keys() or a key is outside [0, 1) (NaN included),
  // since such keys would make the ordering ill-defined.
  ntuple::Shape decode(std::span<const double> keys) const;
  // Tuple `tuple` from its own keys (keys [R*tuple, R*tuple + R) of an individual): what decode
  // gives for it. No range check of the keys (decode does that).
  std::vector<int> tuple_squares(std::span<const double> tuple_keys, int tuple) const;

 private:
  std::vector<int> region_;
  std::vector<int> tuple_sizes_;
};

// A tuple's squares as a board mask in the canonical form of its 8 symmetric images (the least
// mask): symmetric sampling plays every image, so tuples with the same canonical mask are the
// same feature.
u64 canonical_tuple_mask(const std::vector<int>& squares);

// The distance of implicit path relinking between tuple `tuple` of two individuals (their keys
// of that tuple): the size of the symmetric difference of the canonical square sets; 0 when the
// two decode to the same feature.
double tuple_block_distance(const Decoder& decoder, std::span<const double> a, std::span<const double> b, int tuple);

}  // namespace ef::ga
