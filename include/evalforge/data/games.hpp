// Game records from real databases and from the built-in generator.
//
// Formats (docs/data.md):
//  - Logistello book `logbook.gam` (also `.gam.gz`): one game a line, `+d3-c3...: -04 10`.
//    Score after ':' = raw disc difference black - white (empties not given to the winner).
//  - WTHOR `.wtb`: binary records; score = 2*real - 64 (empties to the winner); also a
//    theoretical score. Player/tournament names from WTHOR.JOU / WTHOR.TRN when present.
//  - Plain transcripts (`.txt`, anything else that is text): one game a line,
//    `f5d6c3d3...` optionally followed by whitespace and the final disc difference black - white
//    (raw count, like the logbook). '#' starts a comment. A line without a score must replay to a
//    finished game; its score is then taken from the final board. Every transcript game must be
//    finished; its score may also be given with empties to the winner (WTHOR's convention), so
//    that write_transcripts() output of any database reads back unchanged.
//  - PGN (`.pgn`, or a text file whose first record line is a `[Tag "value"]` pair): tag pairs,
//    then move text `1. f5 d6 2. c3 ...` ending in a result. A disc-count result `B-W` gives
//    the score B - W: B and W must be the final board's disc counts (sum below 64 when squares
//    are empty) or the counts with the empty squares given to the winner (sum 64). `1-0`/`0-1`
//    (black first, as in `B-W`) and `1/2-1/2` must name the board's winner; with them, `*` or
//    no result, the score is the board's raw disc difference.
//  - GGF (`.ggf`, or a first record line starting `(;GM[Othello]`): the Generic Game Server's
//    `(;GM[Othello]...BO[8 ...]B[f5]W[d6]...;)`, any number a line. RE[+12.00] is black's
//    disc difference (raw or empties to the winner, like transcripts). Only games from the
//    standard 8x8 start are read: another BO, board size, a random start or anti Othello is a
//    problem. A resigned (`:r`), timed out (`:t`) or agreed (`:s`) game that is not finished on
//    the board is a problem, like every unfinished game.
//    Neither reader keeps player names.
//  - `.obf` positions are not games: see read_obf() below.
// Every game is replayed; problems (illegal move, truncated record, score that does not match
// the final board, garbage) are reported with file and line/record number, and either skipped
// (counted) or fatal (ReadOptions::fatal_problems).
#pragma once
#include <climits>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>
#include "evalforge/core/hd.hpp"

namespace ef::data {

constexpr int kNoScore = INT_MIN;

struct Game {
  std::vector<std::uint8_t> moves;   // squares 0..63 in play order; passes are implicit
  int score = kNoScore;              // final disc difference black - white, as the source defines it
  int theoretical_score = kNoScore;  // WTHOR only: perfect-play disc difference black - white
  std::int32_t black_player = -1, white_player = -1, tournament = -1, year = -1;  // WTHOR only
};

struct Problem {
  // Text files count lines, binary files count records; record 0 of a binary file is its header.
  enum class Unit : std::uint8_t { kLine, kRecord };
  std::string file;
  std::size_t record = 0;  // 1-based line number (text) or record number (binary)
  std::string what;
  Unit unit = Unit::kLine;
  // false: the record was kept and only flagged (e.g. a truncated WTHOR game loaded because
  // skip_truncated_wthor is off). Only skipped records are fatal under fatal_problems.
  bool skipped = true;
};

// "file:12: what" for a line, "file: record 12: what" / "file: header: what" for binary files:
// the form used in ef::Error messages and by `evalforge data inspect`.
std::string describe(const Problem& problem);

struct ReadOptions {
  bool fatal_problems = false;  // first problem throws ef::Error instead of skipping the game
  // WTHOR games that stop before their end with an adjudicated score (382 in the FFO base):
  // skipped (a problem) or kept (flagged). Games that stop early with exactly the board's
  // score (31) are always kept and flagged.
  bool skip_truncated_wthor = true;
  bool use_cache = true;            // binary cache of parsed games in cache_dir (see game_cache.cpp)
  std::filesystem::path cache_dir;  // empty: $XDG_CACHE_HOME/evalforge or ~/.cache/evalforge
  // A file whose container cannot be read to its end (a gzip CRC error, a truncated stream)
  // makes load_games throw, naming it, since the games after the damage are lost; with this,
  // the games read before the damage are used and the error is kept in read_errors.
  bool accept_read_errors = false;
};

struct GameDatabase {
  std::vector<Game> games;                                  // games that replayed cleanly, in file order
  std::vector<Problem> problems;                            // one entry per skipped/flagged record
  std::vector<std::string> files;                           // files read, in order
  std::size_t records_read = 0;                             // records seen (games + problems)
  std::vector<std::string> player_names, tournament_names;  // WTHOR names (UTF-8), when found
  std::size_t files_from_cache = 0;                         // how many of `files` were served by the binary cache
  std::vector<std::string> read_errors;                     // "file:line: what" per damaged file (accept_read_errors)
};

enum class FileFormat { kLogbook, kWthor, kTranscript, kObf, kWthorNames, kPgn, kGgf };

// Format of a file from its extension and, for unknown extensions, its content.
// Throws ef::Error when the file does not exist or cannot be read.
FileFormat detect_format(const std::filesystem::path& file);
const char* format_name(FileFormat format);

// Reads and replays every file (format from extension and content); throws ef::Error for an
// unreadable file or, with fatal_problems, the first bad record.
GameDatabase load_games(const std::vector<std::filesystem::path>& files, const ReadOptions& options = {});

// Writes games as plain transcripts with their scores (the format load_games reads back).
void write_transcripts(const std::filesystem::path& file, const std::vector<Game>& games);
// Writes games as PGN / GGF that load_games reads back to the same moves and scores. A score is
// written as disc counts (PGN) or RE (GGF) in the convention it matches on the final board.
void write_pgn(const std::filesystem::path& file, const std::vector<Game>& games);
void write_ggf(const std::filesystem::path& file, const std::vector<Game>& games);

// One .obf position: board, side to move, and the exact score of each listed move.
struct ObfPosition {
  u64 black = 0, white = 0;
  int side = 0;                                  // 0 black, 1 white
  std::vector<std::pair<int, int>> move_scores;  // (square or -1 for pass, exact score for side to move)
  std::size_t line = 0;                          // 1-based line in the file
  int best_score() const;  // the highest move score (the position's exact value); kNoScore if none
};
// One .obf line (already trimmed, not a comment) into `position` (whose fields start empty);
// returns what is wrong with it, or "" (the checks read_obf makes).
std::string parse_obf_line(std::string_view line, ObfPosition& position);
// `s` without the blanks (space, tab, '\r') at either end: how .obf lines are trimmed.
std::string_view trim_obf_blanks(std::string_view s);
// Appends an .obf line's position: the 64 squares a1..h8 (X black, O white, - empty), a space,
// the side to move and ';' (no move scores, no newline).
void append_obf_position(std::string& text, u64 black, u64 white, int side);
std::vector<ObfPosition> read_obf(const std::filesystem::path& file, std::vector<Problem>* problems = nullptr,
                                  bool fatal_problems = true);
// Writes each game's position at `empties` empties as an .obf line (board and side to move, no
// move scores: a test set for the solver, `evalforge data convert --empties`); the side to move
// is the one that moves next (after a pass, the other one). Games that end before it are left
// out. Returns the number of positions written. Throws ef::Error naming the file.
std::size_t write_obf_positions(const std::filesystem::path& file, const std::vector<Game>& games, int empties);

}  // namespace ef::data
