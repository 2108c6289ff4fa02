// Text game records: the Logistello book (`+d3-c3+c4...: -04 10`) and plain transcripts
// (`f5d6c3... +4`), read line by line and replayed move by move, so that every problem can be
// reported with its line and column.
#include <fmt/format.h>
#include <string_view>
#include "data/readers.hpp"
#include "evalforge/core/error.hpp"
#include "evalforge/games/othello/squares.hpp"

namespace ef::data::detail {
namespace {

bool is_file_letter(char c) { return (c >= 'a' && c <= 'h') || (c >= 'A' && c <= 'H'); }

// A character for a message: printable as itself, anything else as a hex escape.
std::string printable(char c) {
  const auto byte = static_cast<unsigned char>(c);
  if (byte >= 0x21 && byte < 0x7F) return fmt::format("'{}'", c);
  return fmt::format("byte 0x{:02x}", byte);
}

// Parses one record line into `game`; returns the problem text, or an empty string when the
// line is a valid game. `line` holds no comment and is not blank.
std::string parse_game_line(std::string_view line, TextDialect dialect, Game& game) {
  MoveReplay replay;
  std::optional<int> score;
  std::size_t pos = 0;
  const auto column = [](std::size_t p) { return p + 1; };

  while (true) {
    while (pos < line.size() && is_blank(line[pos])) ++pos;
    if (pos >= line.size()) break;
    const char c = line[pos];
    const bool sign = c == '+' || c == '-';

    // Score: `:` then a signed number (the logbook's form), or a bare signed number.
    if (c == ':' || is_digit(c) || (sign && pos + 1 < line.size() && is_digit(line[pos + 1]))) {
      const std::size_t score_column = column(pos);
      if (c == ':') {
        ++pos;
        while (pos < line.size() && is_blank(line[pos])) ++pos;
      }
      std::size_t p = pos;
      bool negative = false;
      if (p < line.size() && (line[p] == '+' || line[p] == '-')) negative = line[p++] == '-';
      const std::size_t digits_begin = p;
      int value = 0;
      while (p < line.size() && is_digit(line[p]) && p - digits_begin < 4) value = 10 * value + (line[p++] - '0');
      if (p == digits_begin) return fmt::format("expected a score after ':' at column {}", score_column);
      if (p < line.size() && is_digit(line[p])) return fmt::format("score at column {} is too long", score_column);
      if (value > 64) return fmt::format("score {} at column {} is out of range -64..+64", value, score_column);
      score = negative ? -value : value;
      pos = p;
      // The logbook has a trailing field after the score that we ignore; a transcript line
      // must end after its score.
      if (dialect == TextDialect::kTranscript) {
        while (pos < line.size() && is_blank(line[pos])) ++pos;
        if (pos < line.size())
          return fmt::format("unexpected {} at column {} after the score", printable(line[pos]), column(pos));
      }
      break;
    }

    // Move: optional colour (`+` black, `-` white), then a square name.
    int color = -1;
    const std::size_t token_begin = pos;
    if (sign) {
      color = c == '+' ? othello::kBlack : othello::kWhite;
      ++pos;
    }
    if (pos >= line.size() || !is_file_letter(line[pos]))
      return fmt::format("unexpected {} at column {}", printable(pos < line.size() ? line[pos] : c),
                         column(pos < line.size() ? pos : token_begin));
    const auto square = pos + 1 < line.size() ? parse_square(line.substr(pos, 2)) : std::nullopt;
    if (!square) return fmt::format("{} at column {} is not a square", quoted(line.substr(pos, 2)), column(pos));
    pos += 2;
    const std::string_view token = line.substr(token_begin, pos - token_begin);
    if (std::string problem = replay.play(*square, color, token, fmt::format("at column {}", column(token_begin)));
        !problem.empty())
      return problem;
  }

  game.moves = std::move(replay.moves());
  const othello::Board& board = replay.board();
  if (game.moves.empty() && !score) return "no moves";
  if (!board.game_over()) return unfinished_game(board, game.moves.size());
  const int raw = board.disc_diff();
  if (!score) {
    if (dialect == TextDialect::kLogbook) return "missing score (expected ': <disc difference>' after the moves)";
    game.score = raw;  // a finished transcript without a score: the board says it
    return {};
  }
  // The logbook's score is the raw disc count. Transcripts accept either convention, raw or
  // empties to the winner (WTHOR's), so that any database written by write_transcripts reads back.
  const bool matches = dialect == TextDialect::kTranscript ? score_matches_board(*score, board) : *score == raw;
  if (!matches)
    return fmt::format("score {} does not match the final board (disc difference {} after {} moves)",
                       signed_score(*score), signed_score(raw), game.moves.size());
  game.score = *score;
  return {};
}

}  // namespace

FileGames read_text_games(const std::filesystem::path& file, const std::string& display_name, TextDialect dialect,
                          const ReadOptions& options) {
  FileGames out;
  ProblemSink problems(display_name, Problem::Unit::kLine, options.fatal_problems, out.problems);
  LineReader reader(file);
  std::string line;
  while (reader.next(line)) {
    std::string_view record = line;
    if (const auto hash = record.find('#'); hash != std::string_view::npos) record = record.substr(0, hash);
    while (!record.empty() && is_blank(record.back())) record.remove_suffix(1);
    while (!record.empty() && is_blank(record.front())) record.remove_prefix(1);
    if (record.empty()) continue;

    ++out.records_read;
    if (reader.line_was_cut()) {
      problems.report(reader.line_number(), fmt::format("line longer than {} bytes", LineReader::kMaxLine));
      continue;
    }
    Game game;
    std::string problem = parse_game_line(record, dialect, game);
    if (!problem.empty()) {
      problems.report(reader.line_number(), std::move(problem));
      continue;
    }
    out.games.push_back(std::move(game));
  }
  if (!reader.stream_error().empty()) {
    // Not a bad record but damaged data: load_games reports it first and stops unless asked
    // to go on (with or without fatal_problems).
    out.read_error = reader.read_error(display_name);
  }
  return out;
}

}  // namespace ef::data::detail

namespace ef::data {

void write_transcripts(const std::filesystem::path& file, const std::vector<Game>& games) {
  detail::write_game_text(file, "transcripts",
                          "# evalforge transcripts: moves, then the final disc difference black - white\n", games,
                          [](std::string& text, const Game& game) {
                            for (const std::uint8_t square : game.moves) text += square_name(square);
                            if (game.score != kNoScore) {
                              text += ' ';
                              text += detail::signed_score(game.score);
                            }
                            text += '\n';
                          });
}

}  // namespace ef::data
