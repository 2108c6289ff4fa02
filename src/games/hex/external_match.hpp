// A Hex match between one of our players (games/hex/player_spec.hpp spec) and an external Hex GTP engine (a
// MoHex/benzene-style program, or `evalforge gtp --game hex` itself) run as a child process.
//
// Game g: the engine gets `clear_board`, then the side to move alternates: on the engine's turn
// it is asked `genmove`, on ours our move (HexTable::choose, one Philox stream per game:
// game_rng(seed, g), drawn in ply order) is sent with `play`. Our player is Black in even games,
// White in odd ones. Every engine move is checked against games/hex/game.hpp's rules (with the swap rule on,
// "swap-pieces" is White's legal answer to Black's first move; colours stay with their players).
//
// Forfeits, as in the Othello external match (external_match.hpp, sharing external_engine.hpp):
// an engine that answers an illegal or unparsable move, resigns, refuses one of our (legal)
// moves, times out or dies loses that game by forfeit (completed = false, `error` says what
// happened, scored as a win for our player); the engine is restarted for the next game; after
// max_restarts restarts in the whole match a further failure that needs one is an ef::Error.
// An engine that cannot be started (its first commands fail, or it refuses `boardsize N`, or,
// with the swap rule, `param_game allow_swap 1`) is an ef::Error at once.
#pragma once
#include <iosfwd>
#include <string>
#include <vector>
#include "evalforge/games/hex/game.hpp"
#include "games/hex/player_spec.hpp"

namespace ef::play {

struct HexExternalOptions {
  std::string command;  // run as /bin/sh -c COMMAND
  int games = 2;
  int size = 11;      // board side, 1..13
  bool swap = false;  // the swap rule (the engine is told with `param_game allow_swap 1`)
  // GTP commands sent after boardsize (and the swap's), at every (re)start, e.g. an engine's
  // time settings; one the engine refuses ends the match with an error naming it.
  std::vector<std::string> setup;
  double move_timeout_s = 10;     // per command during the games
  double startup_timeout_s = 30;  // per command right after (re)starting the engine
  u64 seed = 1;
  int max_restarts = 3;
};

struct HexExternalGame {
  std::vector<int> moves;  // squares, hex::kSwapSquare for the swap
  bool agent_black = true;
  bool completed = false;     // false: the engine forfeited (see `error`)
  int winner = hex::kNobody;  // the colour that connected; our colour on a forfeit
  // What ended the game early, with the ply (1 = the first move), e.g.
  // "engine played illegal move z9 at ply 4 (not a cell of the 5x5 board)".
  std::string error;
  bool agent_won() const { return winner == (agent_black ? hex::kBlack : hex::kWhite); }
};

// Plays options.games games, appending each to `results` as it ends (so that after an ef::Error,
// e.g. too many restarts, the games played so far are there); progress (a line a game,
// restarts) goes to `log` when not null. Throws ef::Error for invalid options or player, an
// engine that cannot be started, or more than max_restarts restarts.
void play_hex_external_match(const HexPlayer& player, const HexExternalOptions& options,
                             std::vector<HexExternalGame>& results, std::ostream* log);

}  // namespace ef::play
