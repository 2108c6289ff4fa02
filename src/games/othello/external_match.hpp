// A match between a host OthelloAgent and an external GTP engine (any program speaking GTP on
// stdin/stdout, e.g. Edax, or `evalforge gtp` itself), run as a child process by GtpClient.
//
// Game g: the engine gets `clear_board` and the opening's moves (`play`), then the side to move
// alternates: on the engine's turn it is asked `genmove`, on the agent's turn the agent's move
// (play::choose_move, one Philox stream per game: game_rng(seed, g), drawn in ply order) is
// sent with `play`. Every engine move is checked against games/othello/bitboard.hpp's rules; a forced pass is
// asked of the engine like any move and must come back as "pass".
//
// Forfeits: an engine that answers an illegal or unparsable move, resigns, refuses one of our
// (legal) moves, times out or dies loses that game by forfeit: completed = false, `error` says
// what happened, and the game is scored as a win for the agent by the whole board
// (black_score = +64 when the agent is black, -64 when white), so a misbehaving engine cannot
// gain from misbehaving. Counting wins alone, a forfeit is an agent win; disc averages should
// use completed games. The engine is then restarted for the next game; after max_restarts
// restarts in the whole match a further failure that needs one is an ef::Error.
// An engine that cannot be started at all (its first commands fail, or it refuses
// `boardsize 8`) is an ef::Error at once, naming the command and the engine's last stderr line.
#pragma once
#include <iosfwd>
#include <string>
#include <vector>
#include "evalforge/games/othello/agent.hpp"

namespace ef::play {

struct ExternalMatchOptions {
  std::string command;  // run as /bin/sh -c COMMAND
  int games = 2;
  double move_timeout_s = 10;     // per command during the games (genmove and play)
  double startup_timeout_s = 30;  // per command right after (re)starting the engine (loading weights)
  u64 seed = 1;
  int max_restarts = 3;
  // Move sequences (squares, -1 = pass) from the start position; game g uses
  // openings[(g / 2) % size] (none: the start position), so each opening is played with both
  // colours. The agent plays black in even games, white in odd ones.
  std::vector<std::vector<int>> openings;
};

struct ExternalGame {
  std::vector<int> moves;  // the opening's moves first; squares, -1 = pass
  int black_score = 0;     // disc difference black - white, empties to the winner; +-64 on a forfeit
  bool agent_black = true;
  bool completed = false;  // false: the engine forfeited (see `error`)
  // What ended the game early, with the ply (1 = the game's first move), e.g.
  // "engine played illegal move j9 at ply 12 (not an a1..h8 vertex)",
  // "engine timed out after 10 s at ply 7", "engine died (closed its output, exited with status 1) at ply 3".
  std::string error;
  // Our passes the engine refused (`play C pass` answered with an error; the game went on).
  int refused_passes = 0;
  // The agent's result: disc difference from its side (+64 on a forfeit).
  int agent_score() const { return agent_black ? black_score : -black_score; }
};

// Plays options.games games, appending each to `results` as it ends (so that after an ef::Error,
// e.g. too many restarts, the games played so far are there, as in play_hex_external_match);
// progress (one line a game, restarts) goes to `log` when not null. Throws ef::Error for invalid
// options (an illegal opening names the opening and ply), an engine that cannot be started, or
// more than max_restarts restarts.
void play_external_match(const OthelloAgent& agent, const ExternalMatchOptions& options,
                         std::vector<ExternalGame>& results, std::ostream* log);
// The same, returning the games (nothing of them survives an error).
std::vector<ExternalGame> play_external_match(const OthelloAgent& agent, const ExternalMatchOptions& options,
                                              std::ostream* log);

}  // namespace ef::play
