#include "games/tictactoe/gtp_engine.hpp"
#include <fmt/format.h>
#include "evalforge/core/error.hpp"
#include "evalforge/engine/playout.hpp"

namespace ef::play {

namespace {

// What list_commands answers, in this order.
constexpr const char* kCommands[] = {"protocol_version", "name",        "version", "known_command", "list_commands",
                                     "boardsize",        "clear_board", "play",    "genmove",       "undo",
                                     "showboard",        "final_score", "quit"};

const char* colour_name(int colour) { return colour == tictactoe::kX ? "black (X)" : "white (O)"; }

GtpReply syntax(const char* usage) { return {false, fmt::format("syntax error (usage: {})", usage)}; }

GtpReply bad_colour(const std::string& text) {
  return {false, fmt::format("syntax error: invalid colour {} (expected b, black, x, w, white or o)", gtp_quote(text))};
}

// Why no move can be made: "" while the game is on.
std::string game_over(const tictactoe::Board& b) {
  const int w = b.winner();
  if (w != tictactoe::kNobody) return fmt::format("the game is over ({} has a line)", colour_name(w));
  if (b.empty() == 0) return "the game is over (the board is full)";
  return "";
}

}  // namespace

int parse_ttt_gtp_colour(const std::string& text) {
  if (text.size() > 5) return -1;
  const std::string t = gtp_lower(text);
  if (t == "b" || t == "black" || t == "x") return tictactoe::kX;
  if (t == "w" || t == "white" || t == "o") return tictactoe::kO;
  return -1;
}

int parse_ttt_gtp_vertex(const std::string& text) {
  if (text.size() != 2) return -1;
  const std::string t = gtp_lower(text);
  const int col = t[0] - 'a', row = t[1] - '1';
  if (col < 0 || col > 2 || row < 0 || row > 2) return -1;
  return 3 * row + col;
}

std::string ttt_gtp_vertex(int square) {
  return fmt::format("{}{}", static_cast<char>('a' + square % 3), square / 3 + 1);
}

TttGtpEngine::TttGtpEngine(const TicTacToeAgent& agent, u64 seed) : agent_(agent), seed_(seed) { agent_.validate(); }

int TttGtpEngine::run(std::istream& in, std::ostream& out) {
  return gtp_run(in, out,
                 [this](const std::string& c, const std::vector<std::string>& a, bool& q) { return execute(c, a, q); });
}

std::string TttGtpEngine::handle_line(const std::string& line, bool& quit) {
  return gtp_handle_line(
      line, [this](const std::string& c, const std::vector<std::string>& a, bool& q) { return execute(c, a, q); },
      quit);
}

GtpReply TttGtpEngine::execute(const std::string& command, const std::vector<std::string>& args, bool& quit) {
  if (command == "protocol_version") return {true, "2"};
  if (command == "name") return {true, "evalforge"};
  if (command == "version") return {true, fmt::format("0.1.0 (tictactoe agent {})", agent_.name)};
  if (command == "known_command") return gtp_known_command(kCommands, args);
  if (command == "list_commands") return gtp_list_commands(kCommands);
  if (command == "boardsize") {
    if (args.size() != 1 || !gtp_all_digits(args[0])) return syntax("boardsize 3");
    if (args[0] != "3")
      return {false, fmt::format("unacceptable size: {} (Tic-Tac-Toe is 3x3)", gtp_quote(args[0], 8))};
    board_ = {};
    history_.clear();
    moves_.clear();
    return {true, ""};
  }
  if (command == "clear_board") {
    if (!args.empty()) return syntax("clear_board");
    board_ = {};
    history_.clear();
    moves_.clear();
    return {true, ""};
  }
  if (command == "play") return cmd_play(args);
  if (command == "genmove") return cmd_genmove(args);
  if (command == "undo") {
    if (!args.empty()) return syntax("undo");
    if (history_.empty()) return {false, "cannot undo: no move has been played"};
    board_ = history_.back();
    history_.pop_back();
    moves_.pop_back();
    return {true, ""};
  }
  if (command == "showboard") return {true, showboard()};
  if (command == "final_score") {
    // As the Hex engine answers (a line has no margin): B+ / W+ for a won game; GTP's 0 for a draw.
    const int w = board_.winner();
    if (w != tictactoe::kNobody) return {true, w == tictactoe::kX ? "B+" : "W+"};
    if (board_.empty() == 0) return {true, "0"};
    return {false, "cannot score: the game is not over"};
  }
  if (command == "quit") {
    quit = true;
    return {true, ""};
  }
  return {false, fmt::format("unknown command: {}", gtp_quote(command))};
}

GtpReply TttGtpEngine::cmd_play(const std::vector<std::string>& args) {
  if (args.size() != 2) return syntax("play COLOUR VERTEX, e.g. play black b2");
  const int colour = parse_ttt_gtp_colour(args[0]);
  if (colour < 0) return bad_colour(args[0]);
  if (gtp_lower(args[1]) == "pass") return {false, "illegal move: nobody passes in Tic-Tac-Toe"};
  const int square = parse_ttt_gtp_vertex(args[1]);
  if (square < 0) return {false, fmt::format("syntax error: invalid vertex {} (expected a1..c3)", gtp_quote(args[1]))};
  if (const std::string over = game_over(board_); !over.empty())
    return {false, fmt::format("illegal move: {} {}: {}", colour_name(colour), ttt_gtp_vertex(square), over)};
  if (!(board_.empty() >> square & 1))
    return {false, fmt::format("illegal move: {} {} (occupied)", colour_name(colour), ttt_gtp_vertex(square))};
  tictactoe::Board s = board_;
  s.side = colour;
  history_.push_back(board_);
  moves_.push_back(square);
  board_ = s.play(square);
  return {true, ""};
}

GtpReply TttGtpEngine::cmd_genmove(const std::vector<std::string>& args) {
  if (args.size() != 1) return syntax("genmove COLOUR");
  const int colour = parse_ttt_gtp_colour(args[0]);
  if (colour < 0) return bad_colour(args[0]);
  if (const std::string over = game_over(board_); !over.empty()) return {false, over};
  tictactoe::Board s = board_;
  s.side = colour;
  // The move the agent makes in the playout engine: its own choose(), on the host.
  Rng rng = game_rng(seed_, genmoves_++);
  u64 nodes = 0;
  const PlayScratchOf<games::TicTacToe> scratch;
  const int square = agent_.device_params().choose(s, rng, nodes, scratch);
  if (square < 0 || square > 8 || !(s.moves() >> square & 1))
    fail("agent {} chose an illegal move ({})", agent_.name, square);
  history_.push_back(board_);
  moves_.push_back(square);
  board_ = s.play(square);
  return {true, ttt_gtp_vertex(square)};
}

std::string TttGtpEngine::showboard() const {
  // Row 3 on top, as GTP boards are drawn (the Othello engine draws rank 8 on top); X = black,
  // O = white, '.' empty; then the move count, the last move and who is to move.
  std::string text = "\n   a b c";
  for (int row = 2; row >= 0; --row) {
    text += fmt::format("\n {}", row + 1);
    for (int col = 0; col < 3; ++col) {
      const int sq = 3 * row + col;
      text += ' ';
      text += (board_.x >> sq & 1) ? 'X' : (board_.o >> sq & 1) ? 'O' : '.';
    }
    text += fmt::format(" {}", row + 1);
  }
  text += "\n   a b c";
  text += fmt::format("\n{} moves", moves_.size());
  if (!moves_.empty()) text += fmt::format(", the last {}", ttt_gtp_vertex(moves_.back()));
  const std::string over = game_over(board_);
  text += over.empty() ? fmt::format("; {} to move", colour_name(board_.side)) : "; " + over;
  return text;
}

}  // namespace ef::play
