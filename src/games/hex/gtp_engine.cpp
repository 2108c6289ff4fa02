#include "games/hex/gtp_engine.hpp"
#include <fmt/format.h>
#include "evalforge/core/error.hpp"
#include "evalforge/engine/playout.hpp"

namespace ef::play {

namespace {

// What list_commands answers, in this order.
constexpr const char* kCommands[] = {
    "protocol_version", "name", "version",   "known_command", "list_commands",   "boardsize",  "clear_board", "play",
    "genmove",          "undo", "showboard", "final_score",   "all_legal_moves", "param_game", "quit"};

const char* colour_name(int colour) { return colour == hex::kBlack ? "black" : "white"; }

GtpReply syntax(const char* usage) { return {false, fmt::format("syntax error (usage: {})", usage)}; }

GtpReply bad_colour(const std::string& text) {
  return {false, fmt::format("syntax error: invalid colour {} (expected b, black, w or white)", gtp_quote(text))};
}

}  // namespace

int parse_hex_gtp_colour(const std::string& text) {
  if (text.size() > 5) return -1;
  const std::string t = gtp_lower(text);
  if (t == "b" || t == "black") return hex::kBlack;
  if (t == "w" || t == "white") return hex::kWhite;
  return -1;
}

int parse_hex_gtp_cell(const std::string& text, int n) {
  if (text.size() > 11) return -1;
  return parse_hex_cell(gtp_lower(text), n);  // "swap-pieces" and "swap" included
}

std::string hex_gtp_cell(int square) { return square == hex::kSwapSquare ? "swap-pieces" : hex_cell_name(square); }

HexGtpEngine::HexGtpEngine(const HexPlayer& player, int size, bool swap_rule, u64 seed)
    : player_(player), size_(size), swap_rule_(swap_rule), seed_(seed) {
  if (size < 1 || size > hex::kMaxSide) fail("hex gtp: board size {} is outside 1..{}", size, hex::kMaxSide);
  clear();
}

void HexGtpEngine::clear() {
  board_ = hex::empty_board(size_, swap_rule_);
  history_.clear();
  moves_.clear();
}

int HexGtpEngine::run(std::istream& in, std::ostream& out) {
  return gtp_run(in, out,
                 [this](const std::string& c, const std::vector<std::string>& a, bool& q) { return execute(c, a, q); });
}

std::string HexGtpEngine::handle_line(const std::string& line, bool& quit) {
  return gtp_handle_line(
      line, [this](const std::string& c, const std::vector<std::string>& a, bool& q) { return execute(c, a, q); },
      quit);
}

hex::Board HexGtpEngine::for_colour(int colour) const {
  hex::Board s = board_;
  s.side = static_cast<unsigned char>(colour);
  // Out-of-turn play can leave one stone on the board with plies == 1 in ways that are no
  // first move of Black's (White's stone, or Black to move again): no swap then.
  const bool first_move_answer =
      s.side == hex::kWhite && s.stones[hex::kBlack].count() == 1 && !s.stones[hex::kWhite].any();
  if (s.swap_available() && !first_move_answer) s.swap_rule = false;
  return s;
}

GtpReply HexGtpEngine::execute(const std::string& command, const std::vector<std::string>& args, bool& quit) {
  if (command == "protocol_version") return {true, "2"};
  if (command == "name") return {true, "evalforge"};
  if (command == "version") return {true, fmt::format("0.1.0 (hex player {})", player_.spec)};
  if (command == "known_command") return gtp_known_command(kCommands, args);
  if (command == "list_commands") return gtp_list_commands(kCommands);
  if (command == "boardsize") return cmd_boardsize(args);
  if (command == "clear_board") {
    if (!args.empty()) return syntax("clear_board");
    clear();
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
    // benzene's answers: B+ / W+ once a player has connected, "cannot score" before.
    if (board_.winner == hex::kNobody) return {true, "cannot score"};
    return {true, board_.winner == hex::kBlack ? "B+" : "W+"};
  }
  if (command == "all_legal_moves") {
    if (board_.terminal()) return {true, ""};
    std::string text;
    hex::Cells m = for_colour(board_.side).moves();
    for (int k = 0; m.any(); m.drop_lowest(), ++k) text += fmt::format("{}{}", k ? " " : "", hex_gtp_cell(m.lowest()));
    return {true, text};
  }
  if (command == "param_game") return cmd_param_game(args);
  if (command == "quit") {
    quit = true;
    return {true, ""};
  }
  return {false, fmt::format("unknown command: {}", gtp_quote(command))};
}

GtpReply HexGtpEngine::cmd_boardsize(const std::vector<std::string>& args) {
  // benzene's form: boardsize WIDTH [HEIGHT]; only square boards here.
  if (args.empty() || args.size() > 2) return syntax("boardsize N, or boardsize N N");
  int dims[2] = {0, 0};
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (!gtp_all_digits(args[i])) return syntax("boardsize N, or boardsize N N");
    dims[i] = args[i].size() > 3 ? 1000 : std::stoi(args[i]);
  }
  if (args.size() == 2 && dims[0] != dims[1])
    return {false, fmt::format("unacceptable size: {}x{} (only square boards)", dims[0], dims[1])};
  if (dims[0] < 1 || dims[0] > hex::kMaxSide)
    return {false, fmt::format("unacceptable size: {} (1..{})", gtp_quote(args[0], 8), hex::kMaxSide)};
  size_ = dims[0];
  clear();
  return {true, ""};
}

GtpReply HexGtpEngine::cmd_play(const std::vector<std::string>& args) {
  if (args.size() != 2) return syntax("play COLOUR CELL, e.g. play black f6 or play w swap-pieces");
  const int colour = parse_hex_gtp_colour(args[0]);
  if (colour < 0) return bad_colour(args[0]);
  const int move = parse_hex_gtp_cell(args[1], size_);
  if (move < 0)
    return {false, fmt::format("syntax error: invalid cell {} (expected a1..{}{} or swap-pieces)", gtp_quote(args[1]),
                               static_cast<char>('a' + size_ - 1), size_)};
  if (board_.terminal())
    return {false, fmt::format("illegal move: {} {}: the game is over ({} has won)", colour_name(colour),
                               hex_gtp_cell(move), colour_name(board_.winner))};
  const hex::Board s = for_colour(colour);
  if (!s.legal(move)) {
    std::string why;
    if (move != hex::kSwapSquare)
      why = "occupied";
    else if (!board_.swap_rule)
      why = "the swap rule is off";
    else
      why = "the swap is only White's answer to Black's first move";
    return {false, fmt::format("illegal move: {} {} ({})", colour_name(colour), hex_gtp_cell(move), why)};
  }
  history_.push_back(board_);
  moves_.push_back(move);
  board_ = s.play(move);
  return {true, ""};
}

GtpReply HexGtpEngine::cmd_genmove(const std::vector<std::string>& args) {
  if (args.size() != 1) return syntax("genmove COLOUR");
  const int colour = parse_hex_gtp_colour(args[0]);
  if (colour < 0) return bad_colour(args[0]);
  if (board_.terminal()) return {false, fmt::format("the game is over ({} has won)", colour_name(board_.winner))};
  const hex::Board s = for_colour(colour);
  Rng rng = game_rng(seed_, genmoves_++);
  u64 nodes = 0;
  const int move = table_.choose(player_, s, rng, nodes);
  if (!s.legal(move)) fail("player {} chose an illegal move ({})", player_.spec, move);
  history_.push_back(board_);
  moves_.push_back(move);
  board_ = s.play(move);
  return {true, hex_gtp_cell(move)};
}

GtpReply HexGtpEngine::cmd_param_game(const std::vector<std::string>& args) {
  // benzene's: without arguments the parameters, one a line; `param_game allow_swap 0|1` sets the
  // swap rule, for the game in progress (its earlier positions included, for undo) and later ones.
  if (args.empty()) return {true, fmt::format("\n[bool] allow_swap {}", swap_rule_ ? 1 : 0)};
  if (args.size() != 2) return syntax("param_game, or param_game allow_swap 0|1");
  if (args[0] != "allow_swap") return {false, fmt::format("unknown parameter: {} (allow_swap)", gtp_quote(args[0]))};
  const std::string v = gtp_lower(args[1]);
  if (v != "0" && v != "1" && v != "true" && v != "false") return syntax("param_game allow_swap 0|1");
  swap_rule_ = v == "1" || v == "true";
  board_.swap_rule = swap_rule_;
  for (hex::Board& b : history_) b.swap_rule = swap_rule_;
  return {true, ""};
}

std::string HexGtpEngine::showboard() const {
  // A rhombus like benzene's: row 1 on top, each row one place further right; B = black,
  // W = white, '.' empty; then the legend, the move count, the last move and who is to move.
  const int n = size_;
  std::string letters;
  for (int c = 0; c < n; ++c) letters += fmt::format("{}{}", c ? " " : "", static_cast<char>('a' + c));
  std::string text = "\n   " + letters;
  for (int r = 0; r < n; ++r) {
    text += fmt::format("\n{}{:>2}", std::string(static_cast<std::size_t>(r), ' '), r + 1);
    for (int c = 0; c < n; ++c) {
      const int sq = hex::square_of(c, r);
      text += ' ';
      text += board_.stones[hex::kBlack].has(sq) ? 'B' : board_.stones[hex::kWhite].has(sq) ? 'W' : '.';
    }
    text += fmt::format(" {}", r + 1);
  }
  text += fmt::format("\n{}{}", std::string(static_cast<std::size_t>(n + 2), ' '), letters);
  text += fmt::format("\nB = black (connects rows 1 and {}), W = white (connects columns a and {}); swap rule {}", n,
                      static_cast<char>('a' + n - 1), board_.swap_rule ? "on" : "off");
  text += fmt::format("\n{} moves", moves_.size());
  if (!moves_.empty()) text += fmt::format(", the last {}", hex_gtp_cell(moves_.back()));
  text += board_.terminal() ? fmt::format("; game over: {} has won", colour_name(board_.winner))
                            : fmt::format("; {} to move", colour_name(board_.side));
  return text;
}

}  // namespace ef::play
