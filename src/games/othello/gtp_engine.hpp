// A GTP (Go Text Protocol, version 2) engine that plays Othello with a host OthelloAgent, so that GTP
// match programs and GUIs (and evalforge's own external matches) can play our evaluators.
//
// The protocol plumbing (line handling, ids, responses, the command loop, the 64 KiB line cap)
// is gtp/protocol.hpp's, shared with the Hex engine.
//
// Commands: protocol_version, name, version, known_command, list_commands, boardsize (8 only),
// clear_board, komi (accepted, ignored), play, genmove, undo, showboard, final_score,
// time_settings, time_left, quit.
//
// Time controls (TimeControl below, or GTP's time_settings / time_left): without one the agent
// searches to its fixed depth, a pure function of the position (games/othello/players.hpp's contract). With one,
// the midgame search deepens iteratively (up to kTimedMaxDepth plies) until the move's share of
// the time is spent, and answers with the deepest completed iteration; the exact endgame from
// the agent's exact_empties is not timed. A move's share: the move time; or, on a game clock,
// the time left (GTP's time_left, else the engine's own count since clear_board) divided by
// the engine's moves still to play before the exact endgame, plus 2, less a 5% reserve. A timed
// search is always pvs.hpp's (an agent's search = "alphabeta" applies to fixed depth only).
// Vertices are a1..h8 (case-insensitive; a1 = square 0, square = 8*row + col as in games/othello/bitboard.hpp)
// or "pass"; colours are b, black, w, white. As GTP allows, `play` and `genmove` may be given
// for the side not to move: the side to move becomes that colour first (and `undo` restores it).
//
// Moves are chosen by play::choose_move with one Philox stream per genmove:
// game_rng(seed, n) for the engine's n-th genmove since it started, so a given seed and command
// sequence give the same moves every time.
#pragma once
#include <iosfwd>
#include <string>
#include <vector>
#include "evalforge/games/othello/agent.hpp"
#include "gtp/protocol.hpp"

namespace ef::play {

// Seconds a move may take (move_seconds) or the whole game may take (game_seconds); 0: no limit.
struct TimeControl {
  double move_seconds = 0;
  double game_seconds = 0;
  bool timed() const { return move_seconds > 0 || game_seconds > 0; }
};

constexpr int kTimedMaxDepth = 32;  // the deepest a timed midgame search goes (host stack frames)

class GtpEngine {
 public:
  // `agent` is copied (the evaluator points into the copy, hence no copy/move of the engine).
  // The endgame solver gets a transposition table of 2^table_bits entries (24 bytes each), the
  // midgame search one of 2^search::kMidgameTableBits (40 bytes each).
  explicit GtpEngine(const OthelloAgent& agent, u64 seed = 1, int table_bits = 20, TimeControl time = {});
  GtpEngine(const GtpEngine&) = delete;
  GtpEngine& operator=(const GtpEngine&) = delete;

  // Answers commands from `in` until `quit` or end of input; returns 0 (the exit status).
  // Every response is flushed at once: the other side waits for it on a pipe.
  int run(std::istream& in, std::ostream& out);

  // One input line -> the full response text ("=id result\n\n" / "?id message\n\n"), or an empty
  // string for a line GTP says to ignore (blank or comment). Sets `quit` on `quit`.
  std::string handle_line(const std::string& line, bool& quit);

  const othello::Position& position() const { return position_; }
  // The depth of the last genmove's midgame search (its deepest completed iteration; 0 when it
  // was answered without one: a single legal move, an exact solve, a random move).
  int last_depth() const { return last_depth_; }

 private:
  using Reply = GtpReply;
  Reply execute(const std::string& command, const std::vector<std::string>& args, bool& quit);
  Reply cmd_play(const std::vector<std::string>& args);
  Reply cmd_genmove(const std::vector<std::string>& args);
  Reply cmd_time_settings(const std::vector<std::string>& args);
  Reply cmd_time_left(const std::vector<std::string>& args);
  // Seconds the next genmove for position `s` may spend (0: fixed depth, no clock).
  double move_budget(const othello::Position& s) const;
  std::string showboard() const;
  void clear();

  OthelloAgent agent_;
  ntuple::Evaluator evaluator_;
  OthelloParams params_;
  u64 seed_;
  u32 genmoves_ = 0;  // genmove calls so far: the stream number of the next one
  int last_depth_ = 0;
  std::vector<search::endgame::HashEntry> entries_;
  search::endgame::HashTable table_;
  std::vector<search::TranspositionEntry<games::OthelloKey>> midgame_entries_;
  search::OthelloTable midgame_table_;
  TimeControl time_;
  double clock_left_[2] = {0, 0};  // game clock per colour (game_seconds, or time_left's figure)
  othello::Position position_;
  std::vector<othello::Position> history_;  // positions before each played move, for undo
};

// "b"/"black" -> kBlack, "w"/"white" -> kWhite (case-insensitive); -1 otherwise.
int parse_gtp_color(const std::string& text);
// "a1".."h8" (case-insensitive) -> 0..63, "pass" -> search::kPassMove; kNoMove otherwise.
int parse_gtp_vertex(const std::string& text);
// 0..63 -> "a1".."h8"; search::kPassMove -> "pass".
std::string gtp_vertex(int move);

}  // namespace ef::play
