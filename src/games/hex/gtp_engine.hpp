// A GTP engine that plays Hex with a HexPlayer (games/hex/player_spec.hpp: uct, vcab, ev,
// resistance, random), in the conventions of the MoHex/benzene engines, so that HexGui,
// gogui-twogtp-style controllers and evalforge's own external matches can play our players
// (docs/hex-gtp.md).
//
// Commands: protocol_version, name, version, known_command, list_commands, boardsize N [N]
// (square boards 1..13), clear_board, play COLOUR CELL, genmove COLOUR, undo, showboard,
// final_score, all_legal_moves, param_game [allow_swap 0|1], quit. Cells are a1..m13 (column
// letter, row number; case-insensitive) or swap-pieces (White's answer to Black's first move,
// under the swap rule); colours are b, black, w, white. Black connects row 1 to row n, White
// column a to the last column (games/hex/game.hpp). As GTP allows, `play` and `genmove` may be given for
// the side not to move: that colour then moves (and `undo` restores the position as it was);
// the swap is only ever White's answer to a first move that Black made.
//
// Moves are chosen by HexTable::choose with one Philox stream per genmove: game_rng(seed, k) for
// the engine's k-th genmove since it started, so a given seed and command sequence give the same
// moves every time. The protocol plumbing (ids, responses, the 64 KiB line cap) is
// gtp/protocol.hpp's, shared with the Othello engine.
#pragma once
#include <iosfwd>
#include <string>
#include <vector>
#include "evalforge/games/hex/game.hpp"
#include "games/hex/player_spec.hpp"
#include "gtp/protocol.hpp"

namespace ef::play {

class HexGtpEngine {
 public:
  // Throws ef::Error for a size outside 1..13.
  explicit HexGtpEngine(const HexPlayer& player, int size = 11, bool swap_rule = false, u64 seed = 1);

  // Answers commands from `in` until `quit` or end of input; returns 0 (the exit status).
  int run(std::istream& in, std::ostream& out);
  // One input line -> the full response text, "" for a line GTP ignores. Sets `quit` on `quit`.
  std::string handle_line(const std::string& line, bool& quit);

  const hex::Board& board() const { return board_; }
  int size() const { return size_; }
  bool swap_rule() const { return swap_rule_; }

 private:
  GtpReply execute(const std::string& command, const std::vector<std::string>& args, bool& quit);
  GtpReply cmd_boardsize(const std::vector<std::string>& args);
  GtpReply cmd_play(const std::vector<std::string>& args);
  GtpReply cmd_genmove(const std::vector<std::string>& args);
  GtpReply cmd_param_game(const std::vector<std::string>& args);
  std::string showboard() const;
  void clear();
  // The position with `colour` to move: the current one, or (out of turn) a copy with the side
  // changed, the swap rule off unless the swap really is White's answer to Black's first move.
  hex::Board for_colour(int colour) const;

  HexPlayer player_;
  HexTable table_;
  int size_;
  bool swap_rule_;
  u64 seed_;
  u32 genmoves_ = 0;  // genmove calls so far: the stream number of the next one
  hex::Board board_;
  std::vector<hex::Board> history_;  // positions before each played move, for undo
  std::vector<int> moves_;           // the moves played (squares, hex::kSwapSquare), for showboard
};

// "b"/"black" -> hex::kBlack, "w"/"white" -> hex::kWhite (case-insensitive); -1 otherwise.
int parse_hex_gtp_colour(const std::string& text);
// A GTP cell (case-insensitive "a1".."m13" within an n x n board, "swap-pieces" or "swap") ->
// its square or hex::kSwapSquare; -1 otherwise.
int parse_hex_gtp_cell(const std::string& text, int n);
// A square -> its GTP name ("f6"; "swap-pieces" for hex::kSwapSquare).
std::string hex_gtp_cell(int square);

}  // namespace ef::play
