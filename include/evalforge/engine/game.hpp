// The interface the search layer sees of a two-player, zero-sum, perfect-information game.
//
// A game is a traits type G (no objects, no virtual functions: every member is a static EF_HD
// function or constant, so a CUDA thread can run a search over it):
//   G::State                   a small trivially copyable position, side to move included
//   G::kMaxMoves               an upper bound on the legal moves of any position (<= 255); every
//                              square number must also fit a byte (< 256): a search frame stores
//                              moves as bytes
//   G::kHasPass                whether a side without a legal move passes (Othello) or the game
//                              ends when a side has no move (Tic-Tac-Toe)
//   G::kSymmetries             how many board symmetries symmetry() knows (identity = 0)
//   G::moves(s)                legal moves of the side to move as a set of squares, empty in a
//                              finished game: a u64 bit mask for boards of up to 64 squares
//                              (Othello, Tic-Tac-Toe), a wider type with a MoveSet
//                              specialisation (below) for larger boards (Hex)
//   G::play(s, square)         the position after the side to move plays a legal square
//   G::pass(s)                 the position after the side to move passes (only called when
//                              kHasPass and moves(s) == 0)
//   G::terminal(s)             the game is over
//   G::final_score(s)          the exact result of a finished game from the side to move
//                              (Othello: disc difference with empties to the winner;
//                              Tic-Tac-Toe: +1 win, 0 draw, -1 loss)
//   G::symmetry(s, k)          the image of s under symmetry k, 0 <= k < kSymmetries
//
// The search never asks the game to allocate; states are copied by value.
#pragma once
#include <concepts>
#include <type_traits>
#include <utility>
#include "evalforge/core/hd.hpp"

namespace ef::games {

// How generic code reads a set of moves M: MoveSet<M> has static EF_HD members
//   any(m)        the set is not empty
//   single(m)     the set (not empty) has exactly one move
//   lowest(m)     the lowest square of a non-empty set
//   drop_lowest(m) removes it
//   count(m)      the number of moves
//   nth(m, k)     the k-th lowest square, 0 <= k < count(m)
// Squares are ordered by their number, so "lowest square first" means the same in every game.
template <class M>
struct MoveSet;

template <>
struct MoveSet<u64> {
  static EF_HD_INLINE bool any(u64 m) { return m != 0; }
  static EF_HD_INLINE bool single(u64 m) { return (m & (m - 1)) == 0; }
  static EF_HD_INLINE int lowest(u64 m) { return ctz64(m); }
  static EF_HD_INLINE void drop_lowest(u64& m) { m &= m - 1; }
  static EF_HD_INLINE int count(u64 m) { return popcount64(m); }
  static EF_HD_INLINE int nth(u64 m, u32 k) {
    for (; k; --k) m &= m - 1;
    return ctz64(m);
  }
};

template <class G>
using MovesOf = std::remove_cvref_t<decltype(G::moves(std::declval<const typename G::State&>()))>;

template <class M>
concept MoveSetType = requires(M m, const M& cm, u32 k) {
  { MoveSet<M>::any(cm) } -> std::same_as<bool>;
  { MoveSet<M>::single(cm) } -> std::same_as<bool>;
  { MoveSet<M>::lowest(cm) } -> std::convertible_to<int>;
  MoveSet<M>::drop_lowest(m);
  { MoveSet<M>::count(cm) } -> std::convertible_to<int>;
  { MoveSet<M>::nth(cm, k) } -> std::convertible_to<int>;
};

template <class G>
concept Game = requires(const typename G::State& s, int square, int k) {
  requires std::is_trivially_copyable_v<typename G::State>;
  { G::kMaxMoves } -> std::convertible_to<int>;
  { G::kHasPass } -> std::convertible_to<bool>;
  { G::kSymmetries } -> std::convertible_to<int>;
  requires MoveSetType<std::remove_cvref_t<decltype(G::moves(s))>>;
  { G::play(s, square) } -> std::same_as<typename G::State>;
  { G::pass(s) } -> std::same_as<typename G::State>;
  { G::terminal(s) } -> std::same_as<bool>;
  { G::final_score(s) } -> std::same_as<int>;
  { G::symmetry(s, k) } -> std::same_as<typename G::State>;
};

}  // namespace ef::games
