// A GTP engine that plays Tic-Tac-Toe with a TicTacToeAgent (games/tictactoe/players.hpp: an
// evolved network, the static evaluator, random or perfect play; loaded from an agent file by
// games/tictactoe/agent_file.hpp), so that a network can be played from any position and against
// other engines (`evalforge gtp --game tictactoe`; docs/tictactoe.md, "Playing a network").
//
// Commands: protocol_version, name, version, known_command, list_commands, boardsize 3 (the only
// size), clear_board, play COLOUR VERTEX, genmove COLOUR, undo, showboard, final_score, quit.
// Vertices are the squares a1..c3 of docs/tictactoe.md (column letter, row number;
// case-insensitive): square 3 * (row - 1) + column. Colours: X is black (b, black, x) and moves
// first, O is white (w, white, o). As GTP allows, `play` and `genmove` may be given for the side
// not to move: that colour then moves, so any position can be set up by `play` commands. Nobody
// passes in Tic-Tac-Toe, so `pass` is refused, and so is a move once a player has a line or the
// board is full.
//
// Moves are the agent's own choose() (what it plays inside the playout engine), with one Philox
// stream per genmove: game_rng(seed, k) for the engine's k-th genmove since it started, so a seed
// and a command sequence give the same moves every time (only random play and epsilon draw from
// it). The protocol plumbing (ids, responses, the line cap) is gtp/protocol.hpp's.
#pragma once
#include <iosfwd>
#include <string>
#include <vector>
#include "evalforge/games/tictactoe/game.hpp"
#include "evalforge/games/tictactoe/players.hpp"
#include "gtp/protocol.hpp"

namespace ef::play {

class TttGtpEngine {
 public:
  // Throws ef::Error when the agent fails validate().
  explicit TttGtpEngine(const TicTacToeAgent& agent, u64 seed = 1);

  // Answers commands from `in` until `quit` or end of input; returns 0 (the exit status).
  int run(std::istream& in, std::ostream& out);
  // One input line -> the full response text, "" for a line GTP ignores. Sets `quit` on `quit`.
  std::string handle_line(const std::string& line, bool& quit);

  const tictactoe::Board& board() const { return board_; }

 private:
  GtpReply execute(const std::string& command, const std::vector<std::string>& args, bool& quit);
  GtpReply cmd_play(const std::vector<std::string>& args);
  GtpReply cmd_genmove(const std::vector<std::string>& args);
  std::string showboard() const;

  TicTacToeAgent agent_;
  u64 seed_;
  u32 genmoves_ = 0;  // genmove calls so far: the stream number of the next one
  tictactoe::Board board_;
  std::vector<tictactoe::Board> history_;  // positions before each move, for undo
  std::vector<int> moves_;                 // the squares played, for showboard
};

// "b", "black", "x" -> tictactoe::kX; "w", "white", "o" -> tictactoe::kO (case-insensitive); -1
// otherwise.
int parse_ttt_gtp_colour(const std::string& text);
// "a1".."c3" (case-insensitive) -> square 0..8; -1 otherwise.
int parse_ttt_gtp_vertex(const std::string& text);
// A square 0..8 -> its vertex ("a1".."c3").
std::string ttt_gtp_vertex(int square);

}  // namespace ef::play
