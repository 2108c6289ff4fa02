// WTHOR (.wtb) game files and the WTHOR.JOU / WTHOR.TRN name files of the French Othello
// federation. Binary, little-endian; every length and index is checked against the file size.
#include <fmt/format.h>
#include <fstream>
#include "data/readers.hpp"
#include "evalforge/core/error.hpp"
#include "evalforge/core/files.hpp"
#include "evalforge/games/othello/squares.hpp"

namespace ef::data::detail {
namespace {

constexpr std::size_t kHeaderSize = 16;
constexpr std::size_t kGameRecordSize = 68;
constexpr std::size_t kMovesPerRecord = 60;

std::vector<unsigned char> read_all_bytes(const std::filesystem::path& file) {
  require_readable_file(file);
  const std::string text = read_file(file, FileKind::kWthor);
  return std::vector<unsigned char>(text.begin(), text.end());
}

std::uint16_t u16_at(const unsigned char* p) { return static_cast<std::uint16_t>(p[0] | (p[1] << 8)); }
std::uint32_t u32_at(const unsigned char* p) {
  return static_cast<std::uint32_t>(p[0]) | (static_cast<std::uint32_t>(p[1]) << 8) |
         (static_cast<std::uint32_t>(p[2]) << 16) | (static_cast<std::uint32_t>(p[3]) << 24);
}

// WTHOR stores a move as 10*row + col, row and col 1..8 (col 1 = file a).
std::optional<int> wthor_square(unsigned char code) {
  const int row = code / 10, col = code % 10;
  if (row < 1 || row > 8 || col < 1 || col > 8) return std::nullopt;
  return 8 * (row - 1) + (col - 1);
}

// How a record that replays cleanly ends.
enum class RecordEnd {
  kFinished,      // the game is over on the board
  kStoppedEarly,  // not over, but the score is the board's with empties to the winner: kept, flagged
  kAdjudicated,   // not over, and the score is not the board's (a truncated record): optional skip
};

// Replays one 68-byte record; returns the problem text (empty: none) and how the game ends.
std::string parse_game_record(const unsigned char* record, int year, Game& game, RecordEnd& end) {
  end = RecordEnd::kFinished;
  game.tournament = u16_at(record);
  game.black_player = u16_at(record + 2);
  game.white_player = u16_at(record + 4);
  game.year = year;
  const int real = record[6], theoretical = record[7];
  if (real > 64) return fmt::format("real score byte {} is out of range 0..64", real);
  if (theoretical > 64) return fmt::format("theoretical score byte {} is out of range 0..64", theoretical);
  game.score = 2 * real - 64;
  game.theoretical_score = 2 * theoretical - 64;

  const unsigned char* moves = record + 8;
  std::size_t count = 0;
  while (count < kMovesPerRecord && moves[count] != 0) ++count;
  for (std::size_t i = count; i < kMovesPerRecord; ++i)
    if (moves[i] != 0)
      return fmt::format("move byte {} at move {} follows the end-of-game marker at move {}", moves[i], i + 1,
                         count + 1);

  othello::Board board;
  for (std::size_t i = 0; i < count; ++i) {
    const auto square = wthor_square(moves[i]);
    if (!square) return fmt::format("move {}: byte {} is not a square (10*row + col expected)", i + 1, moves[i]);
    if (!pass_if_needed(board))
      return fmt::format("move {} ({}): the game is already over", i + 1, square_name(*square));
    if (!board.play(*square))
      return fmt::format("move {} ({}) is illegal for {}", i + 1, square_name(*square), color_name(board.side));
    game.moves.push_back(static_cast<std::uint8_t>(*square));
  }
  const int final_score = board.disc_diff_empties_to_winner();
  if (!board.game_over()) {
    // 31 games of the FFO base stop a few moves early (a player out of time, an agreed end)
    // with exactly the board's score; the 382 others hold an adjudicated score.
    if (final_score == game.score) {
      end = RecordEnd::kStoppedEarly;
      return fmt::format("game stops after {} moves, before its end; its score {} is the board's: kept", count,
                         signed_score(game.score));
    }
    end = RecordEnd::kAdjudicated;
    return fmt::format("game truncated after {} moves with an adjudicated score {} (board: {})", count,
                       signed_score(game.score), signed_score(final_score));
  }
  if (final_score != game.score)
    return fmt::format("score {} (real score byte {}) does not match the final board ({} with empties to the winner)",
                       signed_score(game.score), real, signed_score(final_score));
  return {};
}

// Latin-1 (the WTHOR files' encoding) to UTF-8, stopping at the first NUL; trailing blanks cut.
std::string latin1_to_utf8(const unsigned char* text, std::size_t size) {
  std::string out;
  for (std::size_t i = 0; i < size && text[i] != 0; ++i) {
    const unsigned char c = text[i];
    if (c < 0x80) {
      out += static_cast<char>(c < 0x20 ? ' ' : c);  // control bytes would garble terminals and JSON
    } else {
      out += static_cast<char>(0xC0 | (c >> 6));
      out += static_cast<char>(0x80 | (c & 0x3F));
    }
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

}  // namespace

FileGames read_wthor_games(const std::filesystem::path& file, const std::string& display_name,
                           const ReadOptions& options) {
  FileGames out;
  ProblemSink problems(display_name, Problem::Unit::kRecord, options.fatal_problems, out.problems);
  const std::vector<unsigned char> bytes = read_all_bytes(file);
  if (bytes.size() < kHeaderSize) {
    problems.report(0,
                    fmt::format("file has {} bytes, fewer than the {}-byte WTHOR header", bytes.size(), kHeaderSize));
    return out;
  }
  const std::uint32_t declared = u32_at(&bytes[4]);
  const int board_size = bytes[12];
  if (board_size != 0 && board_size != 8) {
    problems.report(0, fmt::format("board size {} (only 8x8 game files are supported)", board_size));
    return out;
  }
  if (u16_at(&bytes[8]) != 0) {
    problems.report(0, fmt::format("bytes 8-9 hold {} where a .wtb game file has 0 (a name or solitaire file?)",
                                   u16_at(&bytes[8])));
    return out;
  }
  const int year = u16_at(&bytes[10]);
  const std::size_t available = (bytes.size() - kHeaderSize) / kGameRecordSize;
  const std::size_t remainder = (bytes.size() - kHeaderSize) % kGameRecordSize;

  const std::size_t readable = std::min<std::size_t>(declared, available);
  out.games.reserve(readable);
  for (std::size_t i = 0; i < readable; ++i) {
    ++out.records_read;
    Game game;
    RecordEnd end = RecordEnd::kFinished;
    std::string problem = parse_game_record(&bytes[kHeaderSize + i * kGameRecordSize], year, game, end);
    if (problem.empty()) {
      out.games.push_back(std::move(game));
    } else if (end == RecordEnd::kStoppedEarly) {
      problems.report(i + 1, std::move(problem), /*skipped=*/false);
      out.games.push_back(std::move(game));
    } else if (end == RecordEnd::kAdjudicated && !options.skip_truncated_wthor) {
      problems.report(i + 1, problem + ": kept", /*skipped=*/false);
      out.games.push_back(std::move(game));
    } else {
      problems.report(i + 1, std::move(problem));
    }
  }
  if (declared > available) {
    // The file ends before the records its header declares: the games after the cut are lost,
    // which no count of bad records shows. Like a damaged gzip stream, the load stops here
    // unless the damage is accepted (ReadOptions::accept_read_errors).
    out.read_error = fmt::format("{}: record {}: the header declares {} records but the file ends {}", display_name,
                                 available + 1, declared,
                                 remainder ? fmt::format("{} bytes into record {}", remainder, available + 1)
                                           : fmt::format("after record {}", available));
  } else if (declared < available || remainder) {
    ++out.records_read;
    problems.report(declared + 1, fmt::format("{} bytes after the {} records the header declares",
                                              bytes.size() - kHeaderSize - declared * kGameRecordSize, declared));
  }
  return out;
}

std::vector<std::string> read_wthor_names(const std::filesystem::path& file, std::size_t record_size,
                                          std::vector<Problem>& problems) {
  const std::vector<unsigned char> bytes = read_all_bytes(file);
  ProblemSink sink(file.string(), Problem::Unit::kRecord, /*fatal=*/false, problems);
  std::vector<std::string> names;
  if (bytes.size() < kHeaderSize) {
    sink.report(0, "name file shorter than its 16-byte header; names not used", /*skipped=*/false);
    return names;
  }
  const std::size_t declared = u16_at(&bytes[8]);
  const std::size_t available = (bytes.size() - kHeaderSize) / record_size;
  if (declared != available)
    sink.report(0, fmt::format("header declares {} names, the file holds {}", declared, available),
                /*skipped=*/false);
  const std::size_t count = std::min(declared, available);
  names.reserve(count);
  for (std::size_t i = 0; i < count; ++i)
    names.push_back(latin1_to_utf8(&bytes[kHeaderSize + i * record_size], record_size));
  return names;
}

}  // namespace ef::data::detail
