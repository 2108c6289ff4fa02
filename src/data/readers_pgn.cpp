// PGN as Othello sites and WTHOR converters write it: `[Tag "value"]` pairs, then move text
// (`1. f5 d6 2. c3 ...`, numbers optional) ending in a result (`33-31`, `1-0`, `*`). The move
// text is read token by token across lines, so that a game may span lines and a line may end
// one game and start the next; every game is replayed from the standard start.
#include <fmt/format.h>
#include <cctype>
#include <optional>
#include <string_view>
#include "data/readers.hpp"
#include "evalforge/core/error.hpp"
#include "evalforge/games/othello/squares.hpp"

namespace ef::data::detail {
namespace {

// Characters that end a move-text token besides blanks: comments and variations.
bool ends_token(char c) { return is_blank(c) || c == '{' || c == '}' || c == ';' || c == '(' || c == ')'; }

// A result as PGN writes it, from black's view as Othello's `B-W` disc counts are.
struct Result {
  enum class Kind { kUnknown, kCounts, kBlackWins, kWhiteWins, kDraw } kind = Kind::kUnknown;
  int black = 0, white = 0;  // kCounts
  std::string text;
};

// `33-31`, `1-0`, `0-1`, `1/2-1/2`, `*`; nullopt for anything else. Counts above 64 are not a
// result (the caller reports the token).
std::optional<Result> parse_result(std::string_view token) {
  Result result;
  result.text = std::string(token);
  if (token == "*") return result;
  if (token == "1/2-1/2") {
    result.kind = Result::Kind::kDraw;
    return result;
  }
  const auto dash = token.find('-');
  if (dash == std::string_view::npos || dash == 0 || dash + 1 >= token.size() || dash > 2 ||
      token.size() - dash - 1 > 2)
    return std::nullopt;
  const auto number = [](std::string_view digits) -> std::optional<int> {
    int value = 0;
    for (const char c : digits) {
      if (!is_digit(c)) return std::nullopt;
      value = 10 * value + (c - '0');
    }
    return value;
  };
  const auto black = number(token.substr(0, dash)), white = number(token.substr(dash + 1));
  if (!black || !white) return std::nullopt;
  if (token == "1-0")
    result.kind = Result::Kind::kBlackWins;
  else if (token == "0-1")
    result.kind = Result::Kind::kWhiteWins;
  else if (*black + *white > 64)
    return std::nullopt;
  else {
    result.kind = Result::Kind::kCounts;
    result.black = *black;
    result.white = *white;
  }
  return result;
}

// The checks of a finished record against its result; "" when the game is good (score set).
std::string check_result(const othello::Board& board, const std::optional<Result>& result, Game& game) {
  if (game.moves.empty()) return "no moves";
  if (!board.game_over()) {
    std::string problem = unfinished_game(board, game.moves.size());
    if (result && result->kind != Result::Kind::kUnknown) problem += fmt::format(" with result {}", result->text);
    return problem;
  }
  const int raw = board.disc_diff();
  const int black = popcount64(board.black()), white = popcount64(board.white());
  const auto mismatch = [&] {
    return fmt::format("result {} does not match the final board (black {}, white {}, {} empty after {} moves)",
                       result->text, black, white, board.empties(), game.moves.size());
  };
  game.score = raw;  // unless the result gives disc counts
  if (!result) return {};
  switch (result->kind) {
    case Result::Kind::kUnknown: return {};
    case Result::Kind::kBlackWins: return raw > 0 ? std::string() : mismatch();
    case Result::Kind::kWhiteWins: return raw < 0 ? std::string() : mismatch();
    case Result::Kind::kDraw: return raw == 0 ? std::string() : mismatch();
    case Result::Kind::kCounts: {
      // The board's own counts (their sum is below 64 when squares are empty), or the counts
      // with the empty squares given to the winner (sum 64): the two conventions of
      // score_matches_board, each stated in full, so that a sum other than these is garbage.
      const int score = result->black - result->white;
      const bool raw_counts = result->black == black && result->white == white;
      const bool empties_to_winner =
          result->black + result->white == 64 && score == board.disc_diff_empties_to_winner();
      if (!raw_counts && !empties_to_winner) return mismatch();
      game.score = score;
      return {};
    }
  }
  return {};
}

class PgnReader {
 public:
  PgnReader(const std::filesystem::path& file, const std::string& display_name, const ReadOptions& options,
            FileGames& out)
      : reader_(file), sink_(display_name, Problem::Unit::kLine, options.fatal_problems, out.problems), out_(out) {}

  void run() {
    std::string line;
    while (reader_.next(line)) {
      line_ = reader_.line_number();
      if (reader_.line_was_cut()) {
        start_game_if_needed();
        flag(fmt::format("line longer than {} bytes", LineReader::kMaxLine));
        continue;
      }
      read_line(line);
    }
    if (in_comment_) {
      start_game_if_needed();
      flag_at(comment_line_, "comment '{' not closed before the end of the file");
    }
    if (variation_depth_ > 0) {
      start_game_if_needed();
      flag_at(variation_line_, "variation '(' not closed before the end of the file");
    }
    finish_game();
    out_.read_error = reader_.read_error(sink_.file());
  }

 private:
  struct Pending {
    std::size_t line = 0;  // where the game starts; 0: no game open
    bool has_moves_text = false;
    std::optional<Result> tag_result, token_result;
    std::string problem;  // the first problem; the rest of the game is then only skipped
    std::size_t problem_line = 0;
    MoveReplay replay;
  };

  void start_game_if_needed() {
    if (game_.line == 0) game_.line = line_;
  }
  void flag_at(std::size_t line, std::string problem) {
    if (problem.empty() || !game_.problem.empty()) return;
    game_.problem = std::move(problem);
    game_.problem_line = line;
  }
  void flag(std::string problem) { flag_at(line_, std::move(problem)); }

  void finish_game() {
    if (game_.line == 0) return;
    ++out_.records_read;
    Pending game = std::move(game_);
    game_ = Pending{};
    if (!game.problem.empty()) {
      sink_.report(game.problem_line, std::move(game.problem));
      return;
    }
    if (game.tag_result && game.token_result && game.tag_result->kind != Result::Kind::kUnknown &&
        game.token_result->kind != Result::Kind::kUnknown && game.tag_result->text != game.token_result->text) {
      sink_.report(game.line, fmt::format("result {} after the moves differs from the Result tag {}",
                                          game.token_result->text, game.tag_result->text));
      return;
    }
    // The result after the moves unless it is `*` and the tag knows more.
    std::optional<Result> result = game.token_result;
    if (!result || result->kind == Result::Kind::kUnknown) result = game.tag_result ? game.tag_result : result;
    Game out;
    out.moves = std::move(game.replay.moves());
    if (std::string problem = check_result(game.replay.board(), result, out); !problem.empty()) {
      sink_.report(game.line, std::move(problem));
      return;
    }
    out_.games.push_back(std::move(out));
  }

  void read_line(std::string_view line) {
    std::size_t pos = 0;
    if (!in_comment_ && variation_depth_ == 0) {
      while (pos < line.size() && is_blank(line[pos])) ++pos;
      if (pos >= line.size()) {
        // A blank line after move text ends the game, result or not (the next one may have no tags).
        if (game_.has_moves_text) finish_game();
        return;
      }
      if (pos == 0 && line[0] == '%') return;  // PGN's escape line: for other software
      if (line[pos] == '[') {
        // Tags after move text begin the next game.
        if (game_.has_moves_text) finish_game();
        start_game_if_needed();
        pos = read_tags(line, pos);
      }
    }
    read_moves_text(line, pos);
  }

  // `[Name "value"]` pairs, several a line allowed; returns where the move text begins.
  std::size_t read_tags(std::string_view line, std::size_t pos) {
    while (pos < line.size() && line[pos] == '[') {
      const std::size_t tag_column = pos + 1;
      ++pos;
      while (pos < line.size() && is_blank(line[pos])) ++pos;
      const std::size_t name_begin = pos;
      while (pos < line.size() && (std::isalnum(static_cast<unsigned char>(line[pos])) || line[pos] == '_')) ++pos;
      const std::string_view name = line.substr(name_begin, pos - name_begin);
      while (pos < line.size() && is_blank(line[pos])) ++pos;
      std::string value;
      bool closed = false;
      if (!name.empty() && pos < line.size() && line[pos] == '"') {
        for (++pos; pos < line.size(); ++pos) {
          if (line[pos] == '\\' && pos + 1 < line.size())
            value += line[++pos];
          else if (line[pos] == '"')
            break;
          else
            value += line[pos];
        }
        if (pos < line.size()) {
          ++pos;
          while (pos < line.size() && is_blank(line[pos])) ++pos;
          closed = pos < line.size() && line[pos] == ']';
        }
      }
      if (!closed) {
        flag(fmt::format("tag at column {} is not a [Name \"value\"] pair", tag_column));
        return line.size();
      }
      ++pos;
      use_tag(name, value, tag_column);
      while (pos < line.size() && is_blank(line[pos])) ++pos;
    }
    return pos;
  }

  void use_tag(std::string_view name, const std::string& value, std::size_t column) {
    if (name == "Result") {
      game_.tag_result = value == "?" || value.empty() ? std::optional<Result>(Result{}) : parse_result(value);
      if (!game_.tag_result)
        flag(fmt::format("[Result {}] at column {} is not a result", detail::quoted(value), column));
    } else if ((name == "SetUp" && value != "0") || name == "FEN") {
      flag(fmt::format("[{}] at column {}: games from a set-up position are not read (only the standard start)", name,
                       column));
    }
    // Event, Site, Date, Round, Black, White and any other tag: not kept.
  }

  void read_moves_text(std::string_view line, std::size_t pos) {
    while (pos < line.size()) {
      if (in_comment_) {
        const auto close = line.find('}', pos);
        if (close == std::string_view::npos) return;
        in_comment_ = false;
        pos = close + 1;
        continue;
      }
      const char c = line[pos];
      if (is_blank(c)) {
        ++pos;
        continue;
      }
      if (c == ';') return;  // comment to the end of the line
      if (c == '{') {
        in_comment_ = true;
        comment_line_ = line_;
        ++pos;
        continue;
      }
      if (c == '(') {
        // A variation (alternative moves): skipped, nesting counted.
        if (variation_depth_++ == 0) variation_line_ = line_;
        ++pos;
        continue;
      }
      if (c == ')') {
        if (variation_depth_ == 0) {
          start_game_if_needed();
          flag(fmt::format("')' at column {} closes no variation", pos + 1));
        } else {
          --variation_depth_;
        }
        ++pos;
        continue;
      }
      std::size_t end = pos;
      while (end < line.size() && !ends_token(line[end])) ++end;
      if (c == '}') end = pos + 1;  // a stray '}': one token, reported as unexpected
      if (variation_depth_ == 0) read_token(line.substr(pos, end - pos), pos + 1);
      pos = end;
    }
  }

  void read_token(std::string_view token, std::size_t column) {
    start_game_if_needed();
    game_.has_moves_text = true;
    if (token[0] == '$') {  // a NAG ($1 good move, ...)
      if (token.size() < 2 || token.substr(1).find_first_not_of("0123456789") != std::string_view::npos)
        flag(fmt::format("{} at column {} is not a $number annotation", quoted(token), column));
      return;
    }
    // Move numbers: digits then dots, perhaps glued to the move (`12.f5`, `12...d6`). A loop,
    // not recursion: a line of `1.1.1.1...` must not exhaust the stack.
    while (is_digit(token[0])) {
      std::size_t digits = 0;
      while (digits < token.size() && is_digit(token[digits])) ++digits;
      if (digits == token.size() || token[digits] != '.') break;  // a result such as 33-31
      std::size_t rest = digits;
      while (rest < token.size() && token[rest] == '.') ++rest;
      if (rest == token.size()) return;
      token.remove_prefix(rest);
      column += rest;
    }
    if (const auto result = parse_result(token)) {
      game_.token_result = result;
      finish_game();  // the result ends the game; what follows starts the next one
      return;
    }
    if (!game_.problem.empty()) return;  // the rest of a bad game is only skipped
    const std::string where = fmt::format("at column {}", column);
    if (equals_ignoring_case(token, "pass") || equals_ignoring_case(token, "pa") || token == "--") {
      flag(game_.replay.pass(-1, token, where));
      return;
    }
    // A square, perhaps with an annotation (`f5!`, `c4?!`).
    std::string_view square_text = token;
    while (!square_text.empty() && (square_text.back() == '!' || square_text.back() == '?'))
      square_text.remove_suffix(1);
    const auto square = parse_square(square_text);
    if (!square) {
      flag(fmt::format("unexpected {} at column {} (expected a move, a pass or a result)", quoted(token), column));
      return;
    }
    flag(game_.replay.play(*square, -1, square_text, where));
  }

  LineReader reader_;
  ProblemSink sink_;
  FileGames& out_;
  Pending game_;
  std::size_t line_ = 0;
  bool in_comment_ = false;
  std::size_t comment_line_ = 0;
  std::size_t variation_depth_ = 0;
  std::size_t variation_line_ = 0;
};

}  // namespace

FileGames read_pgn_games(const std::filesystem::path& file, const std::string& display_name,
                         const ReadOptions& options) {
  FileGames out;
  PgnReader(file, display_name, options, out).run();
  return out;
}

}  // namespace ef::data::detail

namespace ef::data {

void write_pgn(const std::filesystem::path& file, const std::vector<Game>& games) {
  detail::write_game_text(file, "PGN", "", games, [](std::string& text, const Game& game) {
    othello::Board board;
    std::string moves;
    int number = 0;  // full moves written: black's move (or pass) starts one
    std::size_t line_length = 0;
    const auto put = [&](const std::string& token) {
      if (line_length + token.size() + 1 > 79) {
        moves += '\n';
        line_length = 0;
      } else if (line_length > 0) {
        moves += ' ';
        ++line_length;
      }
      moves += token;
      line_length += token.size();
    };
    const auto put_turn = [&](const std::string& move) {
      if (board.side == othello::kBlack) put(fmt::format("{}.", ++number));
      put(move);
    };
    for (const std::uint8_t square : game.moves) {
      if (!board.can_move() && !board.game_over()) {
        put_turn("pass");  // explicit, so that move numbers stay black-then-white
        board.pass();
      }
      put_turn(square_name(square));
      board.play(square);
    }
    // Disc counts in the convention the score has on the final board; a score that matches
    // neither (an unfinished game) as counts with empties to the winner when it can be.
    std::string result = "*";
    const int black = popcount64(board.black()), white = popcount64(board.white());
    if (game.score != kNoScore) {
      if (game.score == black - white)
        result = fmt::format("{}-{}", black, white);
      else if (game.score >= -64 && game.score <= 64 && game.score % 2 == 0)
        result = fmt::format("{}-{}", (64 + game.score) / 2, (64 - game.score) / 2);
    }
    put(result);
    text += fmt::format(
        "[Event \"?\"]\n[Site \"?\"]\n[Date \"????.??.??\"]\n[Round \"?\"]\n[Black \"?\"]\n[White \"?\"]\n"
        "[Result \"{}\"]\n\n{}\n\n",
        result, moves);
  });
}

}  // namespace ef::data
