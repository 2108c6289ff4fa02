// The registry of playout games: every game the backends can play, one line each. The backend
// interface (backends/backend.hpp), the CPU backend's play path and the CUDA play kernel are templates
// instantiated once per entry of EF_FOR_EACH_PLAYOUT_GAME; schedulers only name a game's types
// (GameJobOf<G>, AgentOf<G>, GameRecordOf<G>).
//
// Adding a game: a folder games/NAME/ with its rules as a games::Game with kMaxPlies and side()
// and its players with a Players<G> specialisation, then its include and one line below
// (docs/architecture.md, "Adding a game"). Players<G>::Params must be a
// PlayoutPlayer (playout.hpp); Players<G>::Agent needs validate() and, unless its parameters
// point at memory that a backend must place (Othello's n-tuple networks: ResidentAgent and the
// CUDA upload are specialised for it), device_params(). Every game needs its own Agent and
// Params types: the backends keep one agent list per game, found by those types.
#pragma once
#include "evalforge/games/connect_four/players.hpp"  // Connect Four (tests only: the proof that a game is one folder)
#include "evalforge/games/hex/players.hpp"           // Hex
#include "evalforge/games/othello/agent.hpp"         // Othello
#include "evalforge/games/tictactoe/players.hpp"     // Tic-Tac-Toe

#define EF_FOR_EACH_PLAYOUT_GAME(X) \
  X(::ef::games::Othello)           \
  X(::ef::games::TicTacToe)         \
  X(::ef::games::Hex)               \
  X(::ef::games::ConnectFour)

namespace ef::play {

// A registered game that does not meet the interface fails here, with its name in the message.
#define EF_CHECK_PLAYOUT_GAME(G)                                                                   \
  static_assert(PlayoutGame<G>, #G ": not a PlayoutGame (games::Game plus kMaxPlies and side())"); \
  static_assert(PlayoutPlayer<ParamsOf<G>, G>, #G ": Players<G>::Params is not a PlayoutPlayer");  \
  static_assert(                                                                                   \
      requires(const AgentOf<G>& a) { a.validate(); }, #G ": Players<G>::Agent needs validate()");
EF_FOR_EACH_PLAYOUT_GAME(EF_CHECK_PLAYOUT_GAME)
#undef EF_CHECK_PLAYOUT_GAME

}  // namespace ef::play
