// .obf test positions: `<64 squares a1..h8> <X|O>; <move>:<score>; ...`, one position a line.
// Each listed move must be legal (a pass only when there is none), so that a position whose
// board or side to move was garbled cannot slip through with plausible-looking scores.
#include <fmt/format.h>
#include <algorithm>
#include <cctype>
#include <string_view>
#include "data/readers.hpp"
#include "evalforge/core/error.hpp"
#include "evalforge/games/othello/game.hpp"
#include "evalforge/games/othello/squares.hpp"

namespace ef::data {
namespace {

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

}  // namespace

std::string_view trim_obf_blanks(std::string_view s) {
  while (!s.empty() && is_blank(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_blank(s.back())) s.remove_suffix(1);
  return s;
}

void append_obf_position(std::string& text, u64 black, u64 white, int side) {
  for (int square = 0; square < 64; ++square) text += (black >> square & 1) ? 'X' : ((white >> square & 1) ? 'O' : '-');
  text += side == othello::kBlack ? " X;" : " O;";
}

std::string parse_obf_line(std::string_view line, ObfPosition& position) {
  if (line.size() < 64) return fmt::format("board has {} characters, 64 expected", line.size());
  for (int square = 0; square < 64; ++square) {
    const char c = line[static_cast<std::size_t>(square)];
    const u64 bit = u64{1} << square;
    if (c == 'X' || c == 'x' || c == '*')
      position.black |= bit;
    else if (c == 'O' || c == 'o')
      position.white |= bit;
    else if (c != '-' && c != '.')
      return fmt::format("square {} is {} (X, O or - expected)", square_name(square),
                         detail::quoted(std::string_view(&c, 1)));
  }
  std::string_view rest = trim_obf_blanks(line.substr(64));
  if (rest.empty()) return "side to move missing after the board";
  if (rest[0] == 'X' || rest[0] == 'x')
    position.side = othello::kBlack;
  else if (rest[0] == 'O' || rest[0] == 'o')
    position.side = othello::kWhite;
  else
    return fmt::format("side to move {} (X or O expected)", detail::quoted(rest.substr(0, 1)));
  rest = trim_obf_blanks(rest.substr(1));

  const othello::Board board = othello::Board::from_colors(position.black, position.white, position.side);
  const u64 legal = board.moves();
  // Entries are separated by ';'; the one before the first ';' (right after the side) is empty.
  bool first = true;
  while (!rest.empty()) {
    const std::size_t end = std::min(rest.find(';'), rest.size());
    const std::string_view entry = trim_obf_blanks(rest.substr(0, end));
    rest = end < rest.size() ? rest.substr(end + 1) : std::string_view{};
    if (entry.empty()) {
      if (first) {
        first = false;
        continue;
      }
      if (trim_obf_blanks(rest).empty()) break;  // a trailing ';'
      return "empty move entry between ';'";
    }
    first = false;
    const std::size_t colon = entry.find(':');
    if (colon == std::string_view::npos) return fmt::format("move entry {} has no ':score'", detail::quoted(entry));
    const std::string_view move_text = trim_obf_blanks(entry.substr(0, colon));
    const std::string_view score_text = trim_obf_blanks(entry.substr(colon + 1));

    int square = -1;
    if (iequals(move_text, "PS") || iequals(move_text, "PA") || iequals(move_text, "pass")) {
      if (legal) return "pass listed although the side to move has legal moves";
    } else if (const auto parsed = parse_square(move_text)) {
      square = *parsed;
      if (!(legal >> square & 1)) return fmt::format("move {} is not legal in this position", move_text);
    } else {
      return fmt::format("{} is not a move", detail::quoted(move_text));
    }
    for (const auto& [listed, unused] : position.move_scores)
      if (listed == square) return fmt::format("move {} listed twice", move_text);

    std::size_t p = 0;
    bool negative = false;
    if (p < score_text.size() && (score_text[p] == '+' || score_text[p] == '-')) negative = score_text[p++] == '-';
    int value = 0;
    const std::size_t digits = p;
    while (p < score_text.size() && score_text[p] >= '0' && score_text[p] <= '9' && p - digits < 3)
      value = 10 * value + (score_text[p++] - '0');
    if (p == digits || p != score_text.size()) return fmt::format("{} is not a score", detail::quoted(score_text));
    if (value > 64) return fmt::format("score {} is out of range -64..+64", score_text);
    position.move_scores.emplace_back(square, negative ? -value : value);
  }
  return {};
}

std::size_t write_obf_positions(const std::filesystem::path& file, const std::vector<Game>& games, int empties) {
  std::size_t written = 0;
  detail::write_game_text(file, "obf", "", games, [&](std::string& text, const Game& game) {
    othello::Board board;
    for (std::size_t i = 0;; ++i) {
      if (!board.can_move()) board.pass();
      if (board.empties() == empties) {
        if (!board.can_move()) return;  // the game ended here
        append_obf_position(text, board.black(), board.white(), board.side);
        text += '\n';
        ++written;
        return;
      }
      if (i == game.moves.size() || !board.play(game.moves[i])) return;  // ended (or stopped) before
    }
  });
  return written;
}

int ObfPosition::best_score() const {
  int best = kNoScore;
  for (const auto& [square, score] : move_scores) best = std::max(best, score);
  return best;
}

std::vector<ObfPosition> read_obf(const std::filesystem::path& file, std::vector<Problem>* problems,
                                  bool fatal_problems) {
  std::vector<Problem> local;
  detail::ProblemSink sink(file.string(), Problem::Unit::kLine, fatal_problems, problems ? *problems : local);
  detail::LineReader reader(file);
  std::vector<ObfPosition> positions;
  std::string line;
  while (reader.next(line)) {
    const std::string_view text = trim_obf_blanks(line);
    if (text.empty() || text[0] == '#' || text[0] == '%') continue;
    if (reader.line_was_cut()) {
      sink.report(reader.line_number(), "line too long");
      continue;
    }
    ObfPosition position;
    position.line = reader.line_number();
    std::string problem = parse_obf_line(text, position);
    if (!problem.empty()) {
      sink.report(reader.line_number(), std::move(problem));
      continue;
    }
    positions.push_back(std::move(position));
  }
  if (!reader.stream_error().empty()) sink.report(reader.line_number() + 1, reader.stream_error());
  return positions;
}

}  // namespace ef::data
