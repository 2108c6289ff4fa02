// GGF, the Generic Game Server's game format (https://skatgame.net/mburo/ggsa/ggf), as GGS
// archives, NBoard and Egaroucid write it: `(;GM[Othello]PB[..]PW[..]TY[8]RE[+12.00]BO[8 <64
// squares> *]B[f5//1.23]W[d6]...;)`, several games a line (a synchro match is two games side by
// side). Read character by character across lines, so that neither a game split over lines nor
// a `]` or `;)` inside a value confuses it; then each game is checked and replayed.
#include <fmt/format.h>
#include <algorithm>
#include <cctype>
#include <optional>
#include <string_view>
#include "data/readers.hpp"
#include "evalforge/core/error.hpp"
#include "evalforge/games/othello/squares.hpp"

namespace ef::data::detail {
namespace {

// Far beyond any real game (60 moves and a dozen header properties, values of a few dozen
// bytes); larger is garbage, refused rather than collected.
constexpr std::size_t kMaxValue = 4096;
constexpr std::size_t kMaxProperties = 512;

// The standard start, as BO writes it: rows 1..8, columns a..h, `*` black, `O` white.
constexpr std::string_view kStartBoard = "---------------------------O*------*O---------------------------";

bool is_upper(char c) { return c >= 'A' && c <= 'Z'; }

std::string_view trim(std::string_view text) {
  while (!text.empty() && is_blank(text.front())) text.remove_prefix(1);
  while (!text.empty() && is_blank(text.back())) text.remove_suffix(1);
  return text;
}

struct Property {
  std::string name, value;
  std::size_t line = 0, column = 0;
};

struct GgfGame {
  std::size_t line = 0;  // where `(;` stands
  std::vector<Property> properties;
  std::string problem;  // a syntax problem found while collecting; the game is then skipped
  std::size_t problem_line = 0;
};

// TY: [s]<size>[k][r<n>][a][b|w] for Othello (s synchro, k komi, r random start with n discs,
// a anti, b/w colour preference). "" when the game is plain 8x8 Othello from the start.
std::string check_type(std::string_view type) {
  std::size_t pos = 0;
  if (pos < type.size() && (type[pos] == 's' || type[pos] == 'S')) ++pos;  // synchro: two ordinary games
  int size = 0;
  const std::size_t digits = pos;
  while (pos < type.size() && pos - digits < 3 && type[pos] >= '0' && type[pos] <= '9')
    size = 10 * size + (type[pos++] - '0');
  if (pos == digits) return fmt::format("TY[{}] does not start with a board size", type);
  if (size != 8) return fmt::format("TY[{}]: board size {} (only 8x8 games are read)", type, size);
  for (; pos < type.size(); ++pos) {
    const char flag = static_cast<char>(std::tolower(static_cast<unsigned char>(type[pos])));
    if (flag == 'r')
      return fmt::format("TY[{}]: a random start position (only games from the standard start are read)", type);
    if (flag == 'a') return fmt::format("TY[{}]: anti Othello (the fewer discs win) is not read", type);
    if (flag != 'k' && flag != 'b' && flag != 'w' && !(flag >= '0' && flag <= '9'))
      return fmt::format("TY[{}]: unknown game type flag {}", type, quoted(std::string_view(&type[pos], 1)));
  }
  return {};
}

// BO: "8 <64 squares> <side to move>", rows possibly separated by blanks.
std::string check_board(std::string_view board) {
  board = trim(board);
  const std::size_t size_end = std::min(board.find_first_of(" \t\r\n"), board.size());
  if (board.substr(0, size_end) != "8")
    return fmt::format("BO[{}...]: not an 8x8 board (only games from the standard start are read)",
                       quoted(board.substr(0, std::min<std::size_t>(size_end, 8))));
  std::string squares;  // the 64 squares and the side to move, blanks dropped
  for (std::size_t pos = size_end; pos < board.size() && squares.size() <= 65; ++pos)
    if (!is_blank(board[pos])) squares += board[pos];
  if (squares.size() != 65) return "BO does not hold 64 squares and the side to move";
  if (std::string_view(squares).substr(0, 64) != kStartBoard || squares[64] != '*')
    return "BO is not the standard start position with black to move (only those games are read)";
  return {};
}

// RE: black's disc difference, `+12.00`, `-4`, `+0.000:r`; "?" or empty: not given.
struct GgfResult {
  std::optional<int> score;
  char flag = 0;  // 'r' resigned, 't' time out, 's' mutual score; 0 none
};
std::string parse_result(std::string_view text, GgfResult& result) {
  text = trim(text);
  if (text.empty() || text == "?") return {};
  std::size_t pos = 0;
  bool negative = false;
  if (text[pos] == '+' || text[pos] == '-') negative = text[pos++] == '-';
  int value = 0;
  const std::size_t digits = pos;
  while (pos < text.size() && pos - digits < 3 && text[pos] >= '0' && text[pos] <= '9')
    value = 10 * value + (text[pos++] - '0');
  if (pos == digits) return fmt::format("RE[{}] is not a result", text);
  if (pos < text.size() && text[pos] == '.') {
    for (++pos; pos < text.size() && text[pos] >= '0' && text[pos] <= '9'; ++pos)
      if (text[pos] != '0') return fmt::format("RE[{}] is not a whole disc difference", text);
  }
  if (pos < text.size() && text[pos] == ':') {
    if (pos + 2 != text.size() || (text[pos + 1] != 'r' && text[pos + 1] != 't' && text[pos + 1] != 's'))
      return fmt::format("RE[{}]: unknown result flag (r resigned, t time out, s mutual score)", text);
    result.flag = text[pos + 1];
    pos = text.size();
  }
  if (pos != text.size()) return fmt::format("RE[{}] is not a result", text);
  if (value > 64) return fmt::format("RE[{}] is out of range -64..+64", text);
  result.score = negative ? -value : value;
  return {};
}

const char* flag_meaning(char flag) {
  switch (flag) {
    case 'r': return "a resignation";
    case 't': return "a time out";
    case 's': return "a score agreed by both players";
  }
  return "";
}

// Checks and replays one collected game; "" when it is good. `problem_line` is set to the line
// of the offending property (moves), or left at the game's line.
std::string check_game(const GgfGame& ggf, Game& game, std::size_t& problem_line) {
  problem_line = ggf.line;
  const Property* result_property = nullptr;
  bool seen_game = false, seen_type = false, seen_board = false;
  MoveReplay replay;
  for (const Property& property : ggf.properties) {
    const std::string_view value = property.value;
    if (property.name == "GM") {
      if (seen_game) return "GM given twice";
      seen_game = true;
      if (!equals_ignoring_case(trim(value), "othello"))
        return fmt::format("GM[{}]: not an Othello game", quoted(trim(value)).substr(0, 40));
    } else if (property.name == "TY") {
      if (seen_type) return "TY given twice";
      seen_type = true;
      if (std::string problem = check_type(trim(value)); !problem.empty()) return problem;
    } else if (property.name == "BO") {
      if (seen_board) return "BO given twice";
      seen_board = true;
      if (std::string problem = check_board(value); !problem.empty()) return problem;
    } else if (property.name == "RE") {
      if (result_property) return "RE given twice";
      result_property = &property;
    } else if (property.name == "B" || property.name == "W") {
      const int color = property.name == "B" ? othello::kBlack : othello::kWhite;
      // The move is what precedes the first '/'; evaluation and time follow it.
      const std::string_view move = trim(value.substr(0, std::min(value.find('/'), value.size())));
      const std::string token = property.name + "[" + std::string(move) + "]";
      const std::string where = fmt::format("at column {}", property.column);
      std::string problem;
      if (equals_ignoring_case(move, "pa") || equals_ignoring_case(move, "pass")) {
        problem = replay.pass(color, token, where);
      } else if (const auto square = parse_square(move)) {
        problem = replay.play(*square, color, token, where);
      } else {
        problem = fmt::format("{} at column {} is not a move (a square or PA)", detail::quoted(token), property.column);
      }
      if (!problem.empty()) {
        problem_line = property.line;
        return problem;
      }
    }
    // PC, DT, PB, PW, RB, RW, TI, TB, TW, KB, KW, KM, C and any other property: not needed.
  }
  game.moves = std::move(replay.moves());
  const othello::Board& board = replay.board();
  GgfResult result;
  if (result_property)
    if (std::string problem = parse_result(result_property->value, result); !problem.empty()) return problem;
  if (game.moves.empty()) return "no moves";
  if (!board.game_over()) {
    std::string problem = unfinished_game(board, game.moves.size());
    if (result.flag)
      problem += fmt::format(": RE[{}] says it ended by {}", trim(result_property->value), flag_meaning(result.flag));
    return problem;
  }
  if (!result.score) {
    game.score = board.disc_diff();  // no result given: the finished board says it
    return {};
  }
  if (!score_matches_board(*result.score, board))
    return fmt::format("RE[{}] does not match the final board (disc difference {}, {} with empties to the winner)",
                       trim(result_property->value), signed_score(board.disc_diff()),
                       signed_score(board.disc_diff_empties_to_winner()));
  game.score = *result.score;
  return {};
}

class GgfReader {
 public:
  GgfReader(const std::filesystem::path& file, const std::string& display_name, const ReadOptions& options,
            FileGames& out)
      : reader_(file), sink_(display_name, Problem::Unit::kLine, options.fatal_problems, out.problems), out_(out) {}

  void run() {
    std::string line;
    while (reader_.next(line)) {
      line_ = reader_.line_number();
      garbage_reported_ = false;
      if (reader_.line_was_cut()) {
        if (in_game_)
          flag(fmt::format("line longer than {} bytes", LineReader::kMaxLine));
        else
          garbage(fmt::format("line longer than {} bytes", LineReader::kMaxLine));
      }
      for (std::size_t pos = 0; pos < line.size(); ++pos) read_char(line, pos);
      if (state_ == State::kValue) add_to_value('\n');  // a value that goes on on the next line
    }
    if (in_game_) {
      flag_at(game_.line, "game not closed with ';)' before the end of the file");
      finish_game();
    }
    out_.read_error = reader_.read_error(sink_.file());
  }

 private:
  enum class State { kOutside, kBetween, kName, kValue };

  void flag_at(std::size_t line, std::string problem) {
    if (game_.problem.empty()) {
      game_.problem = std::move(problem);
      game_.problem_line = line;
    }
  }
  void flag(std::string problem) { flag_at(line_, std::move(problem)); }

  // Text outside any game: one problem (a record of its own) per line.
  void garbage(std::string problem) {
    if (garbage_reported_) return;
    garbage_reported_ = true;
    ++out_.records_read;
    sink_.report(line_, std::move(problem));
  }

  void start_game() {
    in_game_ = true;
    game_ = GgfGame{};
    game_.line = line_;
    state_ = State::kBetween;
  }

  void finish_game() {
    in_game_ = false;
    state_ = State::kOutside;
    ++out_.records_read;
    if (!game_.problem.empty()) {
      sink_.report(game_.problem_line, std::move(game_.problem));
      return;
    }
    Game game;
    std::size_t problem_line = game_.line;
    if (std::string problem = check_game(game_, game, problem_line); !problem.empty()) {
      sink_.report(problem_line, std::move(problem));
      return;
    }
    out_.games.push_back(std::move(game));
  }

  void read_char(const std::string& line, std::size_t& pos) {
    const char c = line[pos];
    const auto next_is = [&](char n) { return pos + 1 < line.size() && line[pos + 1] == n; };
    switch (state_) {
      case State::kOutside:
        if (c == '(' && next_is(';')) {
          start_game();
          ++pos;
        } else if (!is_blank(c) && c != '(' && c != ')') {
          // Blanks and the parentheses around a synchro pair are all that stands between games.
          garbage(fmt::format("unexpected {} at column {} outside a game (expected '(;')",
                              quoted(std::string_view(&line[pos], 1)), pos + 1));
        }
        return;
      case State::kBetween:
        if (c == ';' && next_is(')')) {
          ++pos;
          finish_game();
        } else if (c == '(' && next_is(';')) {
          flag_at(game_.line,
                  fmt::format("game not closed with ';)' before the next game at line {}, column {}", line_, pos + 1));
          finish_game();
          start_game();
          ++pos;
        } else if (is_upper(c)) {
          name_.assign(1, c);
          name_line_ = line_;
          name_column_ = pos + 1;
          state_ = State::kName;
        } else if (!is_blank(c)) {
          flag(fmt::format("unexpected {} at column {} (expected a property such as B[f5], or ';)')",
                           quoted(std::string_view(&line[pos], 1)), pos + 1));
        }
        return;
      case State::kName:
        if (is_upper(c) && name_.size() < 8) {
          name_ += c;
        } else if (c == '[') {
          value_.clear();
          state_ = State::kValue;
        } else {
          flag(
              fmt::format("property name {} at column {} is not followed by '['", detail::quoted(name_), name_column_));
          state_ = State::kBetween;
          --pos;  // read this character again between properties
        }
        return;
      case State::kValue:
        if (c == '\\' && pos + 1 < line.size()) {
          add_to_value(line[++pos]);
        } else if (c == ']') {
          state_ = State::kBetween;
          if (game_.properties.size() >= kMaxProperties)
            flag(fmt::format("more than {} properties", kMaxProperties));
          else
            game_.properties.push_back({name_, value_, name_line_, name_column_});
        } else {
          add_to_value(c);
        }
        return;
    }
  }

  void add_to_value(char c) {
    if (value_.size() < kMaxValue)
      value_ += c;
    else
      flag(fmt::format("{}[...] at column {} is longer than {} bytes", name_, name_column_, kMaxValue));
  }

  LineReader reader_;
  ProblemSink sink_;
  FileGames& out_;
  GgfGame game_;
  bool in_game_ = false;
  State state_ = State::kOutside;
  std::string name_, value_;
  std::size_t name_line_ = 0, name_column_ = 0;
  std::size_t line_ = 0;
  bool garbage_reported_ = false;
};

}  // namespace

FileGames read_ggf_games(const std::filesystem::path& file, const std::string& display_name,
                         const ReadOptions& options) {
  FileGames out;
  GgfReader(file, display_name, options, out).run();
  return out;
}

}  // namespace ef::data::detail

namespace ef::data {

void write_ggf(const std::filesystem::path& file, const std::vector<Game>& games) {
  detail::write_game_text(file, "GGF", "", games, [](std::string& text, const Game& game) {
    text += "(;GM[Othello]PC[evalforge]TY[8]";
    if (game.score != kNoScore) text += fmt::format("RE[{:+d}.00]", game.score);
    text += "BO[8 ";
    text += detail::kStartBoard;
    text += " *]";
    othello::Board board;
    for (const std::uint8_t square : game.moves) {
      if (!board.can_move() && !board.game_over()) {
        text += board.side == othello::kBlack ? "B[PA]" : "W[PA]";  // GGS records passes
        board.pass();
      }
      text += board.side == othello::kBlack ? "B[" : "W[";
      text += square_name(square);
      text += ']';
      board.play(square);
    }
    text += ";)\n";
  });
}

}  // namespace ef::data
