// The interface the search layer sees of a two-player, zero-sum, perfect-information game.
//
// A game is a traits type G (no objects, no virtual functions: every member is a static EF_HD
// function or constant, so a CUDA thread can run a search over it):
//   G::State                   a small trivially copyable position, side to move included
//   G::kMaxMoves               an upper bound on the legal moves of any position (<= 64)
//   G::kHasPass                whether a side without a legal move passes (Othello) or the game
//                              ends when a side has no move (Tic-Tac-Toe)
//   G::kSymmetries             how many board symmetries symmetry() knows (identity = 0)
//   G::moves(s)                legal moves of the side to move as a bit mask over squares;
//                              0 in a finished game
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
#include "evalforge/core/hd.hpp"

namespace ef::games {

template <class G>
concept Game = requires(const typename G::State& s, int square, int k) {
  requires std::is_trivially_copyable_v<typename G::State>;
  { G::kMaxMoves } -> std::convertible_to<int>;
  { G::kHasPass } -> std::convertible_to<bool>;
  { G::kSymmetries } -> std::convertible_to<int>;
  { G::moves(s) } -> std::same_as<u64>;
  { G::play(s, square) } -> std::same_as<typename G::State>;
  { G::pass(s) } -> std::same_as<typename G::State>;
  { G::terminal(s) } -> std::same_as<bool>;
  { G::final_score(s) } -> std::same_as<int>;
  { G::symmetry(s, k) } -> std::same_as<typename G::State>;
};

}  // namespace ef::games
