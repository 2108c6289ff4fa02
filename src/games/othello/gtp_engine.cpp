#include "games/othello/gtp_engine.hpp"
#include <fmt/format.h>
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include "evalforge/core/error.hpp"
#include "evalforge/games/othello/squares.hpp"
#include "gtp/protocol.hpp"

namespace ef::play {

namespace {

// What list_commands answers, in this order.
constexpr const char* kCommands[] = {
    "protocol_version", "name",          "version",   "known_command", "list_commands", "boardsize",
    "clear_board",      "komi",          "play",      "genmove",       "undo",          "showboard",
    "final_score",      "time_settings", "time_left", "quit"};

std::string lower(std::string s) { return gtp_lower(std::move(s)); }
bool all_digits(const std::string& s) { return gtp_all_digits(s); }

const char* color_name(int color) { return color == othello::kBlack ? "black" : "white"; }

using Clock = std::chrono::steady_clock;

// The midgame search's Stop policy under a time control (engine/pvs.hpp): abort an iteration at
// the deadline (the clock is read every 1024 nodes), and start no new iteration once half the
// budget is gone (the next one would take longer than all before it together).
struct DeadlineStop {
  Clock::time_point start, deadline;
  double budget;
  bool abort(u64 nodes) const { return (nodes & 1023) == 0 && Clock::now() >= deadline; }
  bool next_iteration(int, u64) const {
    return std::chrono::duration<double>(Clock::now() - start).count() < 0.5 * budget;
  }
};

bool parse_stones(const std::string& text, double& out) {
  if (text.empty() || text.size() > 9 ||
      !std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return false;
  out = std::stod(text);
  return true;
}

bool parse_seconds(const std::string& text, double& out) {
  char* end = nullptr;
  out = std::strtod(text.c_str(), &end);
  return end != text.c_str() && !*end && out >= 0 && out < 1e9;
}

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

GtpEngine::GtpEngine(const OthelloAgent& agent, u64 seed, int table_bits, TimeControl time)
    : agent_(agent), seed_(seed), time_(time) {
  agent_.validate();
  if (time_.move_seconds < 0 || time_.game_seconds < 0) fail("gtp: a time limit must not be negative");
  evaluator_ = agent_.ntuple_evaluator();
  params_ = agent_.params(&evaluator_);
  entries_.assign(std::size_t{1} << std::clamp(table_bits, 1, 30), search::endgame::HashEntry{});
  table_ = search::endgame::HashTable{entries_.data(), entries_.size() - 1, 0};
  midgame_entries_.assign(std::size_t{1} << search::kMidgameTableBits, {});
  midgame_table_ = search::OthelloTable{midgame_entries_.data(), midgame_entries_.size() - 1, 0};
  clear();
}

void GtpEngine::clear() {
  position_ = othello::Position{};
  history_.clear();
  clock_left_[0] = clock_left_[1] = time_.game_seconds;
}

double GtpEngine::move_budget(const othello::Position& s) const {
  if (time_.move_seconds > 0 && time_.game_seconds <= 0) return std::min(time_.move_seconds, 1e6);
  if (time_.game_seconds <= 0) return 0;
  // This side's moves before the exact endgame takes over (which is not timed), plus 2.
  const int timed_empties = s.board.empties() - std::max(0, agent_.limits.exact_empties);
  const double moves_left = std::max(0, timed_empties) / 2.0 + 2;
  double budget = 0.95 * std::max(0.0, clock_left_[s.board.side]) / moves_left;
  if (time_.move_seconds > 0) budget = std::min(budget, time_.move_seconds);
  return std::clamp(budget, 0.001, 1e6);
}

GtpEngine::Reply GtpEngine::cmd_time_settings(const std::vector<std::string>& args) {
  // GTP: time_settings MAIN BYO_YOMI_TIME BYO_YOMI_STONES. Othello has no byo-yomi: a main time
  // is a game clock; with none, the byo-yomi period over its stones is a per-move time.
  double main = 0, byo = 0, stones = 0;
  if (args.size() != 3 || !parse_seconds(args[0], main) || !parse_seconds(args[1], byo) ||
      !parse_stones(args[2], stones))
    return {false, "syntax error (usage: time_settings MAIN_SECONDS BYO_YOMI_SECONDS BYO_YOMI_STONES)"};
  time_ = TimeControl{};
  if (main > 0)
    time_.game_seconds = main;
  else if (byo > 0)
    time_.move_seconds = stones > 0 ? byo / stones : byo;
  clock_left_[0] = clock_left_[1] = time_.game_seconds;
  return {true, ""};
}

GtpEngine::Reply GtpEngine::cmd_time_left(const std::vector<std::string>& args) {
  double left = 0, stones = 0;
  const int color = args.size() == 3 ? parse_gtp_color(args[0]) : -1;
  if (color < 0 || !parse_seconds(args[1], left) || !parse_stones(args[2], stones))
    return {false, "syntax error (usage: time_left COLOR SECONDS STONES)"};
  if (time_.game_seconds <= 0 && time_.move_seconds <= 0) time_.game_seconds = left;  // a clock we were not told of
  if (time_.game_seconds > 0)
    clock_left_[color] = left;
  else if (stones > 0)
    time_.move_seconds = left / stones;
  return {true, ""};
}

int GtpEngine::run(std::istream& in, std::ostream& out) {
  return gtp_run(in, out,
                 [this](const std::string& c, const std::vector<std::string>& a, bool& q) { return execute(c, a, q); });
}

std::string GtpEngine::handle_line(const std::string& raw, bool& quit) {
  return gtp_handle_line(
      raw, [this](const std::string& c, const std::vector<std::string>& a, bool& q) { return execute(c, a, q); }, quit);
}

GtpEngine::Reply GtpEngine::execute(const std::string& command, const std::vector<std::string>& args, bool& quit) {
  const auto syntax = [&](const char* usage) { return Reply{false, fmt::format("syntax error (usage: {})", usage)}; };

  if (command == "protocol_version") return {true, "2"};
  if (command == "name") return {true, "evalforge"};
  if (command == "version") return {true, fmt::format("0.1.0 (agent {})", agent_.name)};
  if (command == "known_command") return gtp_known_command(kCommands, args);
  if (command == "list_commands") return gtp_list_commands(kCommands);
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
  if (command == "time_settings") return cmd_time_settings(args);
  if (command == "time_left") return cmd_time_left(args);
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
  if (color < 0)
    return {false, fmt::format("syntax error: invalid color '{}' (expected b, black, w or white)", args[0])};
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
  if (!(legal >> move & 1))
    return {false, fmt::format("illegal move: {} for {}", square_name(move), color_name(color))};
  history_.push_back(position_);
  position_ = games::Othello::play(s, move);
  return {true, ""};
}

GtpEngine::Reply GtpEngine::cmd_genmove(const std::vector<std::string>& args) {
  if (args.size() != 1) return {false, "syntax error (usage: genmove COLOR)"};
  const int color = parse_gtp_color(args[0]);
  if (color < 0)
    return {false, fmt::format("syntax error: invalid color '{}' (expected b, black, w or white)", args[0])};
  othello::Position s = position_;
  if (s.board.side != color) s = games::Othello::pass(s);
  history_.push_back(position_);
  last_depth_ = 0;
  // No legal move (including after the end of the game): the colour passes, and the pass is
  // recorded like a played move so that `undo` takes it back.
  if (!games::Othello::moves(s)) {
    position_ = games::Othello::pass(s);
    return {true, "pass"};
  }
  Rng rng = game_rng(seed_, genmoves_++);
  u64 nodes = 0;
  const auto start = Clock::now();
  const double budget = move_budget(s);
  int move;
  if (budget > 0) {
    OthelloParams timed = params_;
    timed.limits.depth = kTimedMaxDepth;
    timed.limits.algorithm = search::MidgameSearch::kPvs;  // plain alpha-beta cannot be stopped
    const DeadlineStop stop{
        start, start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(budget)), budget};
    move = choose_move<kTimedMaxDepth, kMaxExactEmpties>(timed, s, rng, nodes, &table_, &midgame_table_, stop,
                                                         &last_depth_);
  } else {
    move = choose_move(params_, s, rng, nodes, &table_, &midgame_table_, search::NeverStop{}, &last_depth_);
  }
  if (time_.game_seconds > 0) clock_left_[s.board.side] -= std::chrono::duration<double>(Clock::now() - start).count();
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
