#include "play/gtp_engine.hpp"
#include <fmt/format.h>
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <istream>
#include <ostream>
#include <sstream>
#include "evalforge/games/squares.hpp"

namespace ef::play {

namespace {

// What list_commands answers, in this order.
constexpr const char* kCommands[] = {"protocol_version", "name", "version", "known_command", "list_commands",
                                     "boardsize", "clear_board", "komi", "play", "genmove", "undo", "showboard",
                                     "final_score", "quit"};

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool all_digits(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

const char* color_name(int color) { return color == othello::kBlack ? "black" : "white"; }

}  // namespace

int parse_gtp_color(const std::string& text) {
  const std::string t = lower(text);
  if (t == "b" || t == "black") return othello::kBlack;
  if (t == "w" || t == "white") return othello::kWhite;
  return -1;
}

int parse_gtp_vertex(const std::string& text) {
  if (lower(text) == "pass") return search::kPassMove;
  const auto sq = parse_square(text);
  return sq ? *sq : search::kNoMove;
}

std::string gtp_vertex(int move) { return move == search::kPassMove ? "pass" : square_name(move); }

GtpEngine::GtpEngine(const Agent& agent, u64 seed, int table_bits) : agent_(agent), seed_(seed) {
  agent_.validate();
  evaluator_ = agent_.ntuple_evaluator();
  params_ = agent_.params(&evaluator_);
  entries_.assign(std::size_t{1} << std::clamp(table_bits, 1, 30), search::endgame::HashEntry{});
  table_ = search::endgame::HashTable{entries_.data(), entries_.size() - 1, 0};
}

void GtpEngine::clear() {
  position_ = othello::Position{};
  history_.clear();
}

int GtpEngine::run(std::istream& in, std::ostream& out) {
  std::string line;
  bool quit = false;
  while (!quit && std::getline(in, line)) {
    const std::string response = handle_line(line, quit);
    if (response.empty()) continue;
    out << response;
    out.flush();
  }
  return 0;
}

std::string GtpEngine::handle_line(const std::string& raw, bool& quit) {
  // GTP 2 preprocessing: drop control characters but tab (a CR from a CRLF line among them),
  // tabs become spaces, and everything from '#' on is a comment.
  std::string line;
  for (const char c : raw) {
    if (c == '#') break;
    if (c == '\t') line += ' ';
    else if (static_cast<unsigned char>(c) >= 32 && c != 127) line += c;
  }
  std::istringstream words(line);
  std::vector<std::string> tokens;
  for (std::string w; words >> w;) tokens.push_back(w);
  if (tokens.empty()) return {};

  std::string id;
  std::size_t first = 0;
  if (all_digits(tokens[0])) {
    id = tokens[0];
    first = 1;
  }
  Reply reply;
  if (first == tokens.size()) {
    reply = {false, "missing command after the id"};
  } else {
    const std::vector<std::string> args(tokens.begin() + static_cast<std::ptrdiff_t>(first) + 1, tokens.end());
    // A malformed command is answered, never thrown past the protocol loop: the engine must
    // stay in sync with its controller whatever it is sent.
    try {
      reply = execute(tokens[first], args, quit);
    } catch (const std::exception& e) {
      reply = {false, fmt::format("internal error: {}", e.what())};
    }
  }
  // A blank line inside a response would end it early.
  std::string text;
  for (std::size_t i = 0; i < reply.text.size(); ++i)
    if (!(reply.text[i] == '\n' && i + 1 < reply.text.size() && reply.text[i + 1] == '\n')) text += reply.text[i];
  while (!text.empty() && text.back() == '\n') text.pop_back();
  return fmt::format("{}{} {}\n\n", reply.ok ? '=' : '?', id, text);
}

GtpEngine::Reply GtpEngine::execute(const std::string& command, const std::vector<std::string>& args, bool& quit) {
  const auto syntax = [&](const char* usage) { return Reply{false, fmt::format("syntax error (usage: {})", usage)}; };

  if (command == "protocol_version") return {true, "2"};
  if (command == "name") return {true, "evalforge"};
  if (command == "version") return {true, fmt::format("0.1.0 (agent {})", agent_.name)};
  if (command == "known_command") {
    if (args.size() != 1) return syntax("known_command COMMAND");
    const bool known = std::find(std::begin(kCommands), std::end(kCommands), args[0]) != std::end(kCommands);
    return {true, known ? "true" : "false"};
  }
  if (command == "list_commands") {
    std::string text;
    for (const char* c : kCommands) text += fmt::format("{}{}", text.empty() ? "" : "\n", c);
    return {true, text};
  }
  if (command == "boardsize") {
    if (args.size() != 1 || !all_digits(args[0])) return syntax("boardsize SIZE");
    if (args[0] != "8") return {false, "unacceptable size"};
    clear();
    return {true, ""};
  }
  if (command == "clear_board") {
    clear();
    return {true, ""};
  }
  if (command == "komi") {
    // Othello has no komi; accepted so that Go-minded controllers can send it.
    char* end = nullptr;
    if (args.size() != 1) return syntax("komi FLOAT");
    std::strtod(args[0].c_str(), &end);
    if (end == args[0].c_str() || *end) return syntax("komi FLOAT");
    return {true, ""};
  }
  if (command == "play") return cmd_play(args);
  if (command == "genmove") return cmd_genmove(args);
  if (command == "undo") {
    if (!args.empty()) return syntax("undo");
    if (history_.empty()) return {false, "cannot undo"};
    position_ = history_.back();
    history_.pop_back();
    return {true, ""};
  }
  if (command == "showboard") return {true, showboard()};
  if (command == "final_score") {
    // The disc difference of the current board; at the end of the game the empty squares go to
    // the winner (the WTHOR/obf convention that play_game's black_score uses).
    const othello::Board& b = position_.board;
    const int score = b.game_over() ? b.disc_diff_empties_to_winner() : b.disc_diff();
    if (score == 0) return {true, "0"};
    return {true, fmt::format("{}+{}", score > 0 ? 'B' : 'W', std::abs(score))};
  }
  if (command == "quit") {
    quit = true;
    return {true, ""};
  }
  return {false, fmt::format("unknown command: {}", command)};
}

GtpEngine::Reply GtpEngine::cmd_play(const std::vector<std::string>& args) {
  if (args.size() != 2) return {false, "syntax error (usage: play COLOR VERTEX, e.g. play black d3)"};
  const int color = parse_gtp_color(args[0]);
  if (color < 0) return {false, fmt::format("syntax error: invalid color '{}' (expected b, black, w or white)", args[0])};
  const int move = parse_gtp_vertex(args[1]);
  if (move == search::kNoMove)
    return {false, fmt::format("syntax error: invalid vertex '{}' (expected a1..h8 or pass)", args[1])};
  // Out-of-turn play is legal in GTP: make `color` the side to move first, on a copy, so that a
  // refused move leaves the board (and its side to move) as it was.
  othello::Position s = position_;
  if (s.board.side != color) s = games::Othello::pass(s);
  const u64 legal = games::Othello::moves(s);
  if (move == search::kPassMove) {
    if (legal) return {false, fmt::format("illegal move: {} cannot pass, it has a legal move", color_name(color))};
    history_.push_back(position_);
    position_ = games::Othello::pass(s);
    return {true, ""};
  }
  if (!(legal >> move & 1)) return {false, fmt::format("illegal move: {} for {}", square_name(move), color_name(color))};
  history_.push_back(position_);
  position_ = games::Othello::play(s, move);
  return {true, ""};
}

GtpEngine::Reply GtpEngine::cmd_genmove(const std::vector<std::string>& args) {
  if (args.size() != 1) return {false, "syntax error (usage: genmove COLOR)"};
  const int color = parse_gtp_color(args[0]);
  if (color < 0) return {false, fmt::format("syntax error: invalid color '{}' (expected b, black, w or white)", args[0])};
  othello::Position s = position_;
  if (s.board.side != color) s = games::Othello::pass(s);
  history_.push_back(position_);
  // No legal move (including after the end of the game): the colour passes, and the pass is
  // recorded like a played move so that `undo` takes it back.
  if (!games::Othello::moves(s)) {
    position_ = games::Othello::pass(s);
    return {true, "pass"};
  }
  Rng rng = game_rng(seed_, genmoves_++);
  u64 nodes = 0;
  const int move = choose_move(params_, s, rng, nodes, &table_);
  position_ = games::Othello::play(s, move);
  return {true, square_name(move)};
}

std::string GtpEngine::showboard() const {
  // Rank 8 on top, as GTP boards are drawn; X = black, O = white, '.' empty.
  const othello::Board& b = position_.board;
  const u64 legal = b.moves();
  std::string text = "\n   A B C D E F G H";
  for (int row = 7; row >= 0; --row) {
    text += fmt::format("\n {}", row + 1);
    for (int col = 0; col < 8; ++col) {
      const int sq = 8 * row + col;
      const char c = (b.black() >> sq & 1) ? 'X' : (b.white() >> sq & 1) ? 'O' : (legal >> sq & 1) ? '*' : '.';
      text += ' ';
      text += c;
    }
    text += fmt::format(" {}", row + 1);
  }
  text += "\n   A B C D E F G H";
  text += fmt::format("\nblack (X) {} discs, white (O) {} discs; ", popcount64(b.black()), popcount64(b.white()));
  text += b.game_over() ? "game over" : fmt::format("{} to move (* = legal moves)", color_name(b.side));
  return text;
}

}  // namespace ef::play
