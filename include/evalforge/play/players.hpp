// The registry of playout games: every game the backends can play, one line each. The backend
// interface (backend.hpp), the CPU backend's play path and the CUDA play kernel are templates
// instantiated once per entry of EF_FOR_EACH_PLAYOUT_GAME; schedulers only name a game's types
// (GameJobOf<G>, AgentOf<G>, GameRecordOf<G>).
//
// Adding a game: its rules as a games::Game with kMaxPlies and side() (games/), its players with
// a Players<G> specialisation (play/), and one line below.
#pragma once
#include "evalforge/play/agent.hpp"             // Othello
#include "evalforge/play/tictactoe_player.hpp"  // Tic-Tac-Toe

#define EF_FOR_EACH_PLAYOUT_GAME(X) \
  X(::ef::games::Othello)           \
  X(::ef::games::TicTacToe)

namespace ef::play {

template <class G>
using AgentOf = typename Players<G>::Agent;
template <class G>
using ParamsOf = typename Players<G>::Params;

}  // namespace ef::play
