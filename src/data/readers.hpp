// Internal to the data layer: per-file readers, the problem sink they share, the line reader,
// replay helpers and the binary cache. load_games() (games.cpp) ties them together.
#pragma once
#include <zlib.h>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>
#include "evalforge/data/games.hpp"
#include "evalforge/games/othello/bitboard.hpp"

namespace ef::data::detail {

// What one file contributed: the unit the cache stores.
struct FileGames {
  std::vector<Game> games;
  std::vector<Problem> problems;
  std::size_t records_read = 0;
  std::string read_error;  // the container could not be read to its end (gzip CRC, truncation); never cached
};

// Collects the problems of one file; under fatal_problems a skipped record throws ef::Error
// at once (a flagged-but-kept record never does).
class ProblemSink {
 public:
  ProblemSink(std::string file, Problem::Unit unit, bool fatal, std::vector<Problem>& out)
      : file_(std::move(file)), unit_(unit), fatal_(fatal), out_(out) {}
  void report(std::size_t record, std::string what, bool skipped = true);
  const std::string& file() const { return file_; }

 private:
  std::string file_;
  Problem::Unit unit_;
  bool fatal_;
  std::vector<Problem>& out_;
};

// Reads a text file line by line, gzip or plain (zlib's gzopen reads both transparently).
// gzread plus our own line splitting rather than gzgets: gzgets cannot tell an embedded NUL
// byte from the end of the line, and garbage input must never confuse the line count.
class LineReader {
 public:
  static constexpr std::size_t kMaxLine = std::size_t{1} << 20;  // longer lines are cut (flagged)

  explicit LineReader(const std::filesystem::path& file);  // throws ef::Error if unreadable
  ~LineReader();
  LineReader(const LineReader&) = delete;
  LineReader& operator=(const LineReader&) = delete;

  // The next line, without its '\n' (and a trailing '\r'); false at the end of the data.
  bool next(std::string& line);
  std::size_t line_number() const { return line_number_; }
  bool line_was_cut() const { return line_was_cut_; }
  // Non-empty when the data ended with a decompression error (corrupt or truncated gzip).
  const std::string& stream_error() const { return stream_error_; }
  // FileGames::read_error for the file: "<display_name>:<line>: <stream error>", or "".
  std::string read_error(const std::string& display_name) const;

 private:
  bool refill();

  gzFile gz_ = nullptr;
  std::vector<char> buffer_;
  std::size_t begin_ = 0, end_ = 0;
  bool eof_ = false;
  std::size_t line_number_ = 0;
  bool line_was_cut_ = false;
  std::string stream_error_;
};

// Checks that `file` is a readable regular file; throws ef::Error naming it otherwise.
void require_readable_file(const std::filesystem::path& file);

// The side to move passes when it has no legal move but the opponent has one.
// Returns false (board unchanged) when neither side can move: the game is over.
inline bool pass_if_needed(othello::Board& board) {
  if (board.can_move()) return true;
  if (othello::legal_moves(board.opponent, board.player) == 0) return false;
  board.pass();
  return true;
}

const char* color_name(int side);

// Character classes of the text readers (a '\n' only occurs in values that span lines).
inline bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f'; }
inline bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool equals_ignoring_case(std::string_view a, std::string_view b);  // ASCII letters only

// A final score (black - white) agrees with the final board when it is the board's disc
// difference, raw (the logbook's convention) or with the empty squares given to the winner
// (WTHOR's, GGS's): text formats are written with either, and every text reader accepts both.
inline bool score_matches_board(int score, const othello::Board& board) {
  return score == board.disc_diff() || score == board.disc_diff_empties_to_winner();
}

// "game not finished after 40 moves (black to move, 20 empty squares)"
std::string unfinished_game(const othello::Board& board, std::size_t moves);

// Replays a record move by move from the standard start, with the checks every text reader
// makes. Each call returns the problem text, or "" when the move (or pass) was applied.
// `where` places the token for the message ("at column 12"); passes may be implicit (a move
// of the other side) or explicit (pass()).
class MoveReplay {
 public:
  // `color`: othello::kBlack / kWhite when the record says whose move it is, -1 when not.
  std::string play(int square, int color, std::string_view token, std::string_view where);
  std::string pass(int color, std::string_view token, std::string_view where);
  const othello::Board& board() const { return board_; }
  std::vector<std::uint8_t>& moves() { return moves_; }

 private:
  othello::Board board_;
  std::vector<std::uint8_t> moves_;
};

// Writes a game file: `header`, then each game's text from `append_game`, flushed every MiB.
// Throws ef::Error naming the file (and `what`, e.g. "PGN") when it cannot be written.
void write_game_text(const std::filesystem::path& file, const char* what, std::string header,
                     const std::vector<Game>& games, const std::function<void(std::string&, const Game&)>& append_game);
std::string signed_score(int score);  // "+4", "-12", "+0"
// Input text for a message, in quotes: printable ASCII as is, other bytes as \xNN, so that
// garbage input yields readable messages (and valid UTF-8 for JSON).
std::string quoted(std::string_view text);

// Text games: logbook (`+d3-c3...: -04 10`) and plain transcripts (`f5d6... +4`).
enum class TextDialect { kLogbook, kTranscript };
FileGames read_text_games(const std::filesystem::path& file, const std::string& display_name, TextDialect dialect,
                          const ReadOptions& options);

// PGN as Othello sites and WTHOR converters write it (readers_pgn.cpp).
FileGames read_pgn_games(const std::filesystem::path& file, const std::string& display_name,
                         const ReadOptions& options);

// GGF, the Generic Game Server's format (NBoard, Egaroucid), Othello games only (readers_ggf.cpp).
FileGames read_ggf_games(const std::filesystem::path& file, const std::string& display_name,
                         const ReadOptions& options);

// WTHOR .wtb game file (names are read separately: read_wthor_names).
FileGames read_wthor_games(const std::filesystem::path& file, const std::string& display_name,
                           const ReadOptions& options);

// WTHOR.JOU (record size 20) or WTHOR.TRN (26): names converted from Latin-1 to UTF-8.
std::vector<std::string> read_wthor_names(const std::filesystem::path& file, std::size_t record_size,
                                          std::vector<Problem>& problems);

// Binary cache of one file's FileGames; keyed by absolute path, size, mtime, the detected file
// format, the cache's format version and the options that change what is parsed. A miss (absent, stale, corrupt)
// returns nullopt; storing never throws (a cache that cannot be written is simply not used).
std::optional<std::filesystem::path> cache_directory(const ReadOptions& options);
std::optional<FileGames> load_cached(const std::filesystem::path& cache_dir, const std::filesystem::path& source,
                                     FileFormat format, const std::string& display_name, const ReadOptions& options);
void store_cached(const std::filesystem::path& cache_dir, const std::filesystem::path& source, FileFormat format,
                  const ReadOptions& options, const FileGames& parsed);

}  // namespace ef::data::detail
