// Game-record readers: logbook, transcripts, WTHOR, obf; problems with their line/record
// numbers; fatal mode; the binary cache; robustness against garbage; the real data files.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include "evalforge/core/error.hpp"
#include "evalforge/core/rng.hpp"
#include "evalforge/data/games.hpp"
#include "evalforge/games/othello/bitboard.hpp"
#include "evalforge/games/othello/squares.hpp"
#include "search_test_support.hpp"
#include "test_support.hpp"

namespace fs = std::filesystem;
using namespace ef;
using namespace ef::data;

namespace {

// Two games from the head of the real logbook (README); the second has a pass (`-b1-g1`).
const std::string kLogbookLine1 =
    "+d3-c3+c4-e3+c2-b3+d2-e1+d1-c1+f4-d6+e6-g4+b2-f6+d7-c8+e7-d8+f3-f5+g5-h4+h6-f2+f7-h5+g6-c6+c5-c7+b6-b5+b4-e8+h3-"
    "g3+h2-e2+h7-g2+b1-a1+h1-a2+a3-g7+f8-h8+g8-a4+g1-f1+a6-a5+a7-a8+b8-b7: -04 10";
const std::string kLogbookLine2 =
    "+d3-c3+c4-e3+c2-b3+d2-e1+d1-c1+f4-d6+e6-g4+b2-f6+d7-c8+e7-d8+f3-f5+g5-h4+h6-f2+f7-h5+g6-c6+c5-c7+b6-b5+f8-a6+b4-"
    "a5+a4-e8+b8-h7+g8-b7+g2-g3+h2-a1+f1-e2+h3-a3+a8-a7+h8-g7+a2-b1-g1+h1: +00 10";
// A shortest game: 9 moves, black 13 discs, white none, 51 empty squares.
const std::string kShortGame = "d3c3b3d2e1d6d7e3f4";

std::vector<int> squares_of(const std::string& moves) {
  std::vector<int> out;
  for (std::size_t i = 0; i + 1 < moves.size(); i += 2) out.push_back(*parse_square(moves.substr(i, 2)));
  return out;
}

// A complete game of random legal moves (deterministic for a seed); score = raw disc difference.
Game random_game(u64 seed) {
  Rng rng(seed, Purpose::kGame);
  othello::Board board;
  Game game;
  while (!board.game_over()) {
    if (!board.can_move()) board.pass();
    u64 moves = board.moves();
    const int square = rng.random_bit(moves);
    board.play(square);
    game.moves.push_back(static_cast<std::uint8_t>(square));
  }
  game.score = board.disc_diff();
  return game;
}

othello::Board final_board(const std::vector<std::uint8_t>& moves) {
  othello::Board board;
  for (const int square : moves) {
    if (!board.can_move()) board.pass();
    EXPECT_TRUE(board.play(square));
  }
  return board;
}

// The logbook form of a game: each move with its colour, passes implicit.
std::string logbook_line(const Game& game) {
  othello::Board board;
  std::string line;
  for (const int square : game.moves) {
    if (!board.can_move()) board.pass();
    line += board.side == othello::kBlack ? '+' : '-';
    line += square_name(square);
    board.play(square);
  }
  return line + fmt::format(": {:+03d} 10", game.score);
}

// A fresh directory per test, removed afterwards.
class DataFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::path(::testing::TempDir()) /
           fmt::format("evalforge-{}-{}-{}", info->test_suite_name(), info->name(), static_cast<long>(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }
  fs::path path(const std::string& name) const { return dir_ / name; }
  fs::path write(const std::string& name, const std::string& content) const {
    std::ofstream out(path(name), std::ios::binary);
    out << content;
    return path(name);
  }
  fs::path write_bytes(const std::string& name, const std::vector<std::uint8_t>& bytes) const {
    std::ofstream out(path(name), std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    return path(name);
  }
  fs::path write_gz(const std::string& name, const std::string& content) const {
    gzFile gz = gzopen(path(name).c_str(), "wb");
    EXPECT_NE(gz, nullptr);
    gzwrite(gz, content.data(), static_cast<unsigned>(content.size()));
    gzclose(gz);
    return path(name);
  }
  // Options that never touch the user's cache.
  ReadOptions no_cache() const {
    ReadOptions options;
    options.use_cache = false;
    return options;
  }
  fs::path dir_;
};

// ---- WTHOR builders ----------------------------------------------------------------------

std::vector<std::uint8_t> wthor_header(std::uint32_t declared, int year = 2001, int board_size = 8) {
  std::vector<std::uint8_t> header(16, 0);
  header[0] = 20, header[1] = 1, header[2] = 1, header[3] = 1;
  for (int i = 0; i < 4; ++i) header[4 + i] = static_cast<std::uint8_t>(declared >> (8 * i));
  header[10] = static_cast<std::uint8_t>(year), header[11] = static_cast<std::uint8_t>(year >> 8);
  header[12] = static_cast<std::uint8_t>(board_size);
  header[14] = 24;
  return header;
}

// One 68-byte record; `real` = black's discs with empties to the winner.
std::vector<std::uint8_t> wthor_record(const std::vector<std::uint8_t>& moves, int real, int theoretical,
                                       int tournament = 1, int black = 2, int white = 3) {
  std::vector<std::uint8_t> record(68, 0);
  record[0] = static_cast<std::uint8_t>(tournament);
  record[2] = static_cast<std::uint8_t>(black);
  record[4] = static_cast<std::uint8_t>(white);
  record[6] = static_cast<std::uint8_t>(real);
  record[7] = static_cast<std::uint8_t>(theoretical);
  for (std::size_t i = 0; i < moves.size() && i < 60; ++i)
    record[8 + i] = static_cast<std::uint8_t>(10 * (moves[i] / 8 + 1) + (moves[i] % 8 + 1));
  return record;
}

int wthor_real_byte(const Game& game) { return (final_board(game.moves).disc_diff_empties_to_winner() + 64) / 2; }

std::vector<std::uint8_t> concat(std::vector<std::vector<std::uint8_t>> parts) {
  std::vector<std::uint8_t> out;
  for (const auto& part : parts) out.insert(out.end(), part.begin(), part.end());
  return out;
}

std::vector<std::uint8_t> name_file(const std::vector<std::string>& names, std::size_t record_size) {
  std::vector<std::uint8_t> bytes(16, 0);
  bytes[8] = static_cast<std::uint8_t>(names.size());
  for (const std::string& name : names) {
    std::vector<std::uint8_t> record(record_size, 0);
    std::copy(name.begin(), name.end(), record.begin());
    bytes.insert(bytes.end(), record.begin(), record.end());
  }
  return bytes;
}

}  // namespace

// ---- Logbook --------------------------------------------------------------------------

TEST_F(DataFiles, LogbookReadsGamesScoresAndImplicitPasses) {
  const auto file = write("book.gam", kLogbookLine1 + "\n" + kLogbookLine2 + "\n");
  const GameDatabase db = load_games({file}, no_cache());
  ASSERT_EQ(db.games.size(), 2u);
  EXPECT_TRUE(db.problems.empty());
  EXPECT_EQ(db.records_read, 2u);
  EXPECT_EQ(db.files, std::vector<std::string>{file.string()});
  EXPECT_EQ(db.games[0].moves.size(), 60u);
  EXPECT_EQ(db.games[0].moves[0], *parse_square("d3"));
  EXPECT_EQ(db.games[0].score, -4);
  EXPECT_EQ(db.games[1].score, 0);
  EXPECT_EQ(db.games[1].moves.size(), 60u);  // `-b1-g1`: black passed between white's two moves
  EXPECT_EQ(db.games[1].moves.back(), *parse_square("h1"));
  EXPECT_EQ(db.games[0].theoretical_score, kNoScore);
}

TEST_F(DataFiles, LogbookGzipReadsLikePlain) {
  std::string content;
  for (u64 seed = 1; seed <= 20; ++seed) content += logbook_line(random_game(seed)) + "\n";
  const GameDatabase plain = load_games({write("a.gam", content)}, no_cache());
  const GameDatabase zipped = load_games({write_gz("a.gam.gz", content)}, no_cache());
  ASSERT_EQ(plain.games.size(), 20u);
  ASSERT_EQ(zipped.games.size(), 20u);
  for (std::size_t i = 0; i < 20; ++i) {
    EXPECT_EQ(plain.games[i].moves, zipped.games[i].moves);
    EXPECT_EQ(plain.games[i].score, zipped.games[i].score);
    EXPECT_EQ(plain.games[i].moves, random_game(i + 1).moves);
  }
}

TEST_F(DataFiles, LogbookProblemsCarryTheirLineNumbers) {
  std::string bad_score = kLogbookLine1;
  bad_score.replace(bad_score.find(": -04"), 5, ": +06");
  const std::string lines[] = {
      kLogbookLine1,                                     // 1 ok
      "",                                                // 2 blank: not a record
      "+d3-c3+a1" + kLogbookLine1.substr(9),             // 3 illegal move (a1 is not legal)
      bad_score,                                         // 4 score does not match the board
      "+d3-c3+c4-e3xx" + kLogbookLine1.substr(12),       // 5 garbage token
      "+d3+c3" + kLogbookLine1.substr(6),                // 6 wrong colour: white is to move
      kLogbookLine1.substr(0, kLogbookLine1.find(':')),  // 7 no score
      "+d3-c3+c4: -04 10",                               // 8 game not finished
      kLogbookLine2,                                     // 9 ok
  };
  std::string content;
  for (const auto& line : lines) content += line + "\n";
  const auto file = write("bad.gam", content);
  const GameDatabase db = load_games({file}, no_cache());
  EXPECT_EQ(db.games.size(), 2u);
  EXPECT_EQ(db.records_read, 8u);
  ASSERT_EQ(db.problems.size(), 6u);
  const std::size_t expected_lines[] = {3, 4, 5, 6, 7, 8};
  const char* expected_words[] = {"illegal",          "does not match", "unexpected",
                                  "white is to move", "missing score",  "not finished"};
  for (std::size_t i = 0; i < 6; ++i) {
    EXPECT_EQ(db.problems[i].record, expected_lines[i]) << db.problems[i].what;
    EXPECT_EQ(db.problems[i].file, file.string());
    EXPECT_EQ(db.problems[i].unit, Problem::Unit::kLine);
    EXPECT_TRUE(db.problems[i].skipped);
    EXPECT_NE(db.problems[i].what.find(expected_words[i]), std::string::npos) << db.problems[i].what;
  }
  EXPECT_EQ(describe(db.problems[0]).rfind(file.string() + ":3: ", 0), 0u) << describe(db.problems[0]);
}

TEST_F(DataFiles, FatalModeThrowsNamingFileAndLine) {
  const auto file = write("bad.gam", kLogbookLine1 + "\n# comment\n+d3-c3+a1: +00\n");
  ReadOptions options = no_cache();
  options.fatal_problems = true;
  try {
    load_games({file}, options);
    FAIL() << "expected ef::Error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(file.string() + ":3:"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("illegal"), std::string::npos) << e.what();
  }
}

TEST_F(DataFiles, MissingOrUnreadableFileThrowsNamingIt) {
  const fs::path missing = path("nothing-here.gam");
  try {
    load_games({missing}, no_cache());
    FAIL() << "expected ef::Error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(missing.string()), std::string::npos) << e.what();
  }
  EXPECT_THROW(load_games({dir_}, no_cache()), Error);  // a directory
  EXPECT_THROW(read_obf(path("none.obf")), Error);
  EXPECT_THROW(detect_format(path("none.wtb")), Error);
}

// A damaged container (a truncated stream, a byte changed inside: gzip CRC error) loses every
// game after the damage, so it stops the load with an error naming the file, unless the caller
// accepts it; then the games before it are used, the damage is in read_errors (not among bad
// records, where it could hide behind them), and nothing of the damaged read is cached.
TEST_F(DataFiles, DamagedGzipStopsTheLoadUnlessAccepted) {
  std::string content;
  for (u64 seed = 1; seed <= 400; ++seed) content += logbook_line(random_game(seed)) + "\n";
  const auto whole = write_gz("whole.gam.gz", content);
  std::ifstream in(whole, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::string flipped = bytes;
  flipped[flipped.size() / 2] = static_cast<char>(flipped[flipped.size() / 2] ^ 0x55);
  const fs::path damaged[] = {write("cut.gam.gz", bytes.substr(0, bytes.size() / 2)),
                              write("trailer.gam.gz", bytes.substr(0, bytes.size() - 4)),
                              write("flipped.gam.gz", flipped)};
  for (const fs::path& file : damaged) {
    const std::string error = test::error_of([&] { load_games({file}, no_cache()); });
    EXPECT_NE(error.find(file.string()), std::string::npos) << error;
    EXPECT_NE(error.find("damaged"), std::string::npos) << error;

    ReadOptions accept;
    accept.accept_read_errors = true;
    accept.cache_dir = path("cache");
    for (int pass = 0; pass < 2; ++pass) {
      const GameDatabase db = load_games({file}, accept);
      EXPECT_EQ(db.files_from_cache, 0u) << file << ": a damaged read must not be cached";
      // A lost trailer (size field) may keep every game; the other damage loses some.
      if (file.filename() == "trailer.gam.gz")
        EXPECT_LE(db.games.size(), 400u) << file;
      else
        EXPECT_LT(db.games.size(), 400u) << file;
      ASSERT_EQ(db.read_errors.size(), 1u) << file;
      EXPECT_NE(db.read_errors[0].find(file.string()), std::string::npos) << db.read_errors[0];
      EXPECT_NE(db.read_errors[0].find("gzip"), std::string::npos) << db.read_errors[0];
    }
  }
  // The undamaged file: no read error, all games.
  const GameDatabase good = load_games({whole}, no_cache());
  EXPECT_TRUE(good.read_errors.empty());
  EXPECT_EQ(good.games.size(), 400u);
}

// ---- Transcripts ----------------------------------------------------------------------

TEST_F(DataFiles, TranscriptsWithAndWithoutScores) {
  const Game full = random_game(7);
  std::string spaced;
  for (const int square : full.moves) spaced += square_name(square) + " ";
  const auto file = write("games.txt", "# transcripts\n" + kShortGame + " +13\n" +  // line 2
                                           kShortGame + "\n" +                      // 3: score from the board
                                           spaced + fmt::format("{:+d}", full.score) + "  # spaced\n" +  // 4
                                           "F5D6C3\n" +                   // 5: not finished, no score
                                           "f5d6c3 +2\n" +                // 6: not finished
                                           "f5 d6 zz\n" +                 // 7: garbage
                                           kShortGame + " +13 extra\n" +  // 8: text after the score
                                           kShortGame + " -13\n");        // 9: wrong score
  EXPECT_EQ(detect_format(file), FileFormat::kTranscript);
  const GameDatabase db = load_games({file}, no_cache());
  ASSERT_EQ(db.games.size(), 3u);
  EXPECT_EQ(db.games[0].moves.size(), 9u);
  EXPECT_EQ(db.games[0].score, 13);
  EXPECT_EQ(db.games[1].score, 13);
  EXPECT_EQ(db.games[2].moves, full.moves);
  EXPECT_EQ(db.games[2].score, full.score);
  ASSERT_EQ(db.problems.size(), 5u);
  const std::size_t expected_lines[] = {5, 6, 7, 8, 9};
  for (std::size_t i = 0; i < 5; ++i) EXPECT_EQ(db.problems[i].record, expected_lines[i]) << db.problems[i].what;
  EXPECT_NE(db.problems[2].what.find("column 7"), std::string::npos) << db.problems[2].what;
}

// A UTF-8 byte-order mark (what some editors put at the start of a text file) is not part of
// the first line: the first game is kept, in every text format.
TEST_F(DataFiles, Utf8ByteOrderMarkIsSkipped) {
  const std::string bom = "\xEF\xBB\xBF";
  const auto transcript = write("bom.txt", bom + kShortGame + " +13\n" + kShortGame + "\n");
  const GameDatabase db = load_games({transcript}, no_cache());
  EXPECT_TRUE(db.problems.empty()) << describe(db.problems.front());
  EXPECT_EQ(db.games.size(), 2u);
  const auto book = write_gz("bom.gam.gz", bom + kLogbookLine1 + "\n");
  EXPECT_EQ(load_games({book}, no_cache()).games.size(), 1u);
  // Detection by content sees through it too: a PGN tag pair first.
  const auto pgn = write("bom.games", bom + "[Event \"x\"]\n\n1. d3 c3 2. b3 d2 3. e1 d6 4. d7 e3 5. f4 *\n");
  EXPECT_EQ(detect_format(pgn), FileFormat::kPgn);
  // Only at the very start: later, the same bytes are garbage on their line.
  const auto later = write("later.txt", kShortGame + "\n" + bom + kShortGame + "\n");
  const GameDatabase db2 = load_games({later}, no_cache());
  EXPECT_EQ(db2.games.size(), 1u);
  ASSERT_EQ(db2.problems.size(), 1u);
  EXPECT_EQ(db2.problems[0].record, 2u);
}

TEST_F(DataFiles, WriteTranscriptsReadsBack) {
  std::vector<Game> games;
  for (u64 seed = 100; seed < 130; ++seed) games.push_back(random_game(seed));
  Game short_game;
  for (const int square : squares_of(kShortGame)) short_game.moves.push_back(static_cast<std::uint8_t>(square));
  short_game.score = 64;  // WTHOR's convention (empties to the winner) reads back too
  games.push_back(short_game);
  const auto file = path("out.txt");
  write_transcripts(file, games);
  const GameDatabase db = load_games({file}, no_cache());
  ASSERT_TRUE(db.problems.empty()) << describe(db.problems.front());
  ASSERT_EQ(db.games.size(), games.size());
  for (std::size_t i = 0; i < games.size(); ++i) {
    EXPECT_EQ(db.games[i].moves, games[i].moves);
    EXPECT_EQ(db.games[i].score, games[i].score);
  }
  EXPECT_THROW(write_transcripts(path("no-such-dir") / "x.txt", games), Error);
}

// ---- WTHOR ----------------------------------------------------------------------------

TEST_F(DataFiles, WthorReadsGamesScoresAndNames) {
  const Game full = random_game(3);
  Game short_game;
  for (const int square : squares_of(kShortGame)) short_game.moves.push_back(static_cast<std::uint8_t>(square));
  const auto file = write_bytes(
      "WTH_2001.wtb", concat({wthor_header(2, 2001), wthor_record(full.moves, wthor_real_byte(full), 30, 1, 0, 1),
                              wthor_record(short_game.moves, 64, 40, 0, 1, 0)}));
  write_bytes("WTHOR.JOU", name_file({"Nobody", "Dupont Ren\xe9"}, 20));
  write_bytes("WTHOR.TRN", name_file({"Divers", "Championnat"}, 26));
  const GameDatabase db = load_games({file}, no_cache());
  ASSERT_TRUE(db.problems.empty()) << describe(db.problems.front());
  ASSERT_EQ(db.games.size(), 2u);
  EXPECT_EQ(db.records_read, 2u);
  EXPECT_EQ(db.games[0].moves, full.moves);
  EXPECT_EQ(db.games[0].score, final_board(full.moves).disc_diff_empties_to_winner());
  EXPECT_EQ(db.games[0].theoretical_score, -4);
  EXPECT_EQ(db.games[0].tournament, 1);
  EXPECT_EQ(db.games[0].black_player, 0);
  EXPECT_EQ(db.games[0].white_player, 1);
  EXPECT_EQ(db.games[0].year, 2001);
  EXPECT_EQ(db.games[1].moves.size(), 9u);
  EXPECT_EQ(db.games[1].score, 64);
  EXPECT_EQ(db.games[1].theoretical_score, 16);
  EXPECT_EQ(db.player_names, (std::vector<std::string>{"Nobody", "Dupont Ren\xc3\xa9"}));  // Latin-1 -> UTF-8
  EXPECT_EQ(db.tournament_names, (std::vector<std::string>{"Divers", "Championnat"}));
}

TEST_F(DataFiles, WthorRecordProblemsCarryRecordNumbers) {
  const Game good = random_game(11);
  std::vector<std::uint8_t> illegal = good.moves;
  illegal[5] = illegal[0];  // an occupied square
  std::vector<std::uint8_t> bad_square = wthor_record(good.moves, wthor_real_byte(good), 32);
  bad_square[8 + 10] = 99;  // row 9: not a square
  std::vector<std::uint8_t> after_end = wthor_record(good.moves, wthor_real_byte(good), 32);
  after_end[8 + 30] = 0;  // end marker in the middle, moves after it
  const int wrong_real = wthor_real_byte(good) == 40 ? 41 : 40;
  const auto file =
      write_bytes("WTH_1990.wtb", concat({wthor_header(6), wthor_record(good.moves, wthor_real_byte(good), 32),  // 1
                                          wthor_record(illegal, 32, 32),                                         // 2
                                          bad_square,                                                            // 3
                                          after_end,                                                             // 4
                                          wthor_record(good.moves, wrong_real, 32),                              // 5
                                          wthor_record(good.moves, 70, 32)}));                                   // 6
  const GameDatabase db = load_games({file}, no_cache());
  EXPECT_EQ(db.games.size(), 1u);
  EXPECT_EQ(db.records_read, 6u);
  ASSERT_EQ(db.problems.size(), 5u);
  const char* expected_words[] = {"illegal", "not a square", "end-of-game marker", "does not match", "out of range"};
  for (std::size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(db.problems[i].record, i + 2);
    EXPECT_EQ(db.problems[i].unit, Problem::Unit::kRecord);
    EXPECT_NE(db.problems[i].what.find(expected_words[i]), std::string::npos) << db.problems[i].what;
  }
  EXPECT_EQ(describe(db.problems[0]), fmt::format("{}: record 2: {}", file.string(), db.problems[0].what));
}

// A file that ends before the records its header declares has lost games that no count of bad
// records shows: like a damaged gzip, loading it is an error naming the file and the record,
// unless accepted (then the games before the cut are used and the damage is kept in read_errors).
TEST_F(DataFiles, WthorTruncatedFileStopsTheLoadUnlessAccepted) {
  const Game game = random_game(5);
  const auto record = wthor_record(game.moves, wthor_real_byte(game), 32);
  auto bytes = concat({wthor_header(3), record, record, record});
  bytes.resize(bytes.size() - 30);  // the third record is cut
  const auto cut = write_bytes("cut.wtb", bytes);
  const std::string e = test::error_of([&] { load_games({cut}, no_cache()); });
  EXPECT_NE(e.find(cut.string() + ": record 3: "), std::string::npos) << e;
  EXPECT_NE(e.find("38 bytes into record 3"), std::string::npos) << e;
  EXPECT_NE(e.find("damaged"), std::string::npos) << e;
  EXPECT_NE(e.find("--accept-damaged"), std::string::npos) << e;

  ReadOptions accept;
  accept.accept_read_errors = true;
  accept.cache_dir = path("cache");
  for (int pass = 0; pass < 2; ++pass) {
    const GameDatabase db = load_games({cut}, accept);
    EXPECT_EQ(db.files_from_cache, 0u) << "a damaged read must not be cached";
    EXPECT_EQ(db.games.size(), 2u);
    EXPECT_EQ(db.records_read, 2u);
    EXPECT_TRUE(db.problems.empty()) << describe(db.problems.front());
    ASSERT_EQ(db.read_errors.size(), 1u);
    EXPECT_NE(db.read_errors[0].find(cut.string() + ": record 3: "), std::string::npos) << db.read_errors[0];
  }
  // Cut at a record boundary: the records after it are lost just the same.
  const auto short_file = write_bytes("short.wtb", concat({wthor_header(3), record}));
  const std::string e2 = test::error_of([&] { load_games({short_file}, no_cache()); });
  EXPECT_NE(e2.find(short_file.string() + ": record 2: "), std::string::npos) << e2;
  EXPECT_NE(e2.find("declares 3 records"), std::string::npos) << e2;

  // Bytes after the declared records lose nothing: a problem, not damage.
  const GameDatabase extra =
      load_games({write_bytes("extra.wtb", concat({wthor_header(1), record, record}))}, no_cache());
  EXPECT_EQ(extra.games.size(), 1u);
  EXPECT_TRUE(extra.read_errors.empty());
  ASSERT_EQ(extra.problems.size(), 1u);
  EXPECT_EQ(extra.problems[0].record, 2u);
}

TEST_F(DataFiles, WthorUnfinishedGames) {
  const Game game = random_game(9);
  std::vector<std::uint8_t> first_20(game.moves.begin(), game.moves.begin() + 20);
  const othello::Board at_20 = final_board(first_20);
  ASSERT_FALSE(at_20.game_over());
  const int board_real = (at_20.disc_diff_empties_to_winner() + 64) / 2;
  const int adjudicated_real = board_real == 50 ? 51 : 50;
  const auto file =
      write_bytes("WTH_1985.wtb", concat({wthor_header(3), wthor_record(game.moves, wthor_real_byte(game), 32),
                                          wthor_record(first_20, adjudicated_real, 32),  // 2
                                          wthor_record(first_20, board_real, 32)}));     // 3
  // Default: the adjudicated game is skipped; the one whose score is the board's is kept, flagged.
  const GameDatabase skipped = load_games({file}, no_cache());
  ASSERT_EQ(skipped.games.size(), 2u);
  ASSERT_EQ(skipped.problems.size(), 2u);
  EXPECT_EQ(skipped.problems[0].record, 2u);
  EXPECT_TRUE(skipped.problems[0].skipped);
  EXPECT_NE(skipped.problems[0].what.find("adjudicated"), std::string::npos);
  EXPECT_EQ(skipped.problems[1].record, 3u);
  EXPECT_FALSE(skipped.problems[1].skipped);
  EXPECT_EQ(skipped.games[1].moves.size(), 20u);

  ReadOptions keep = no_cache();
  keep.skip_truncated_wthor = false;
  const GameDatabase kept = load_games({file}, keep);
  ASSERT_EQ(kept.games.size(), 3u);
  EXPECT_EQ(kept.games[1].score, 2 * adjudicated_real - 64);
  ASSERT_EQ(kept.problems.size(), 2u);
  EXPECT_FALSE(kept.problems[0].skipped);

  // Fatal mode stops at the skipped record, not at a flagged one.
  ReadOptions fatal = keep;
  fatal.fatal_problems = true;
  EXPECT_EQ(load_games({file}, fatal).games.size(), 3u);
  fatal.skip_truncated_wthor = true;
  EXPECT_THROW(load_games({file}, fatal), Error);
}

TEST_F(DataFiles, WthorBadHeader) {
  const GameDatabase tiny = load_games({write_bytes("tiny.wtb", {1, 2, 3})}, no_cache());
  EXPECT_TRUE(tiny.games.empty());
  ASSERT_EQ(tiny.problems.size(), 1u);
  EXPECT_EQ(tiny.problems[0].record, 0u);
  EXPECT_EQ(describe(tiny.problems[0]).find(path("tiny.wtb").string() + ": header: "), 0u);

  const Game game = random_game(2);
  const auto file = write_bytes("ten.wtb", concat({wthor_header(1, 2000, 10), wthor_record(game.moves, 32, 32)}));
  const GameDatabase ten = load_games({file}, no_cache());
  ASSERT_EQ(ten.problems.size(), 1u);
  EXPECT_NE(ten.problems[0].what.find("board size 10"), std::string::npos);

  ReadOptions fatal = no_cache();
  fatal.fatal_problems = true;
  try {
    load_games({file}, fatal);
    FAIL() << "expected ef::Error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(file.string() + ": header:"), std::string::npos) << e.what();
  }
}

// ---- obf ------------------------------------------------------------------------------

TEST_F(DataFiles, ObfPositionsAndProblems) {
  const std::string board = "---------------------------OX------XO---------------------------";
  const auto file = write("test.obf", "% comment\n" + board + " X; F5:+2; D3:-4; C4:+6;\n" +  // line 2
                                          board + " O; E6:+0;\n" +                            // 3: d3 etc are black's
                                          board + " X; A1:+2;\n" +                            // 4: illegal move
                                          board.substr(0, 60) + "\n" +                        // 5: short board
                                          board + " X;\n");                                   // 6: no moves
  std::vector<Problem> problems;
  const auto positions = read_obf(file, &problems, false);
  ASSERT_EQ(positions.size(), 2u);
  EXPECT_EQ(positions[0].side, othello::kBlack);
  EXPECT_EQ(positions[0].black, othello::kStartBlack);
  EXPECT_EQ(positions[0].white, othello::kStartWhite);
  ASSERT_EQ(positions[0].move_scores.size(), 3u);
  EXPECT_EQ(positions[0].move_scores[1], std::make_pair(*parse_square("d3"), -4));
  EXPECT_EQ(positions[0].best_score(), 6);
  EXPECT_EQ(positions[0].line, 2u);
  EXPECT_EQ(positions[1].best_score(), kNoScore);
  ASSERT_EQ(problems.size(), 3u);
  EXPECT_EQ(problems[0].record, 3u);
  EXPECT_EQ(problems[1].record, 4u);
  EXPECT_EQ(problems[2].record, 5u);
  EXPECT_THROW(read_obf(file), Error);                  // fatal by default
  EXPECT_THROW(load_games({file}, no_cache()), Error);  // positions, not games
}

// ---- Cache ----------------------------------------------------------------------------

TEST_F(DataFiles, CacheRoundTripInvalidationAndCorruption) {
  std::string content;
  for (u64 seed = 1; seed <= 50; ++seed) content += logbook_line(random_game(seed)) + "\n";
  content += "+d3-c3+a1: +00\n";  // a problem: cached too
  const auto file = write_gz("book.gam.gz", content);
  ReadOptions options;
  options.cache_dir = path("cache");

  const GameDatabase parsed = load_games({file}, options);
  EXPECT_EQ(parsed.files_from_cache, 0u);
  const GameDatabase cached = load_games({file}, options);
  EXPECT_EQ(cached.files_from_cache, 1u);
  const auto same = [](const GameDatabase& a, const GameDatabase& b) {
    if (a.games.size() != b.games.size() || a.problems.size() != b.problems.size()) return false;
    for (std::size_t i = 0; i < a.games.size(); ++i)
      if (a.games[i].moves != b.games[i].moves || a.games[i].score != b.games[i].score ||
          a.games[i].theoretical_score != b.games[i].theoretical_score)
        return false;
    for (std::size_t i = 0; i < a.problems.size(); ++i)
      if (describe(a.problems[i]) != describe(b.problems[i]) || a.problems[i].skipped != b.problems[i].skipped)
        return false;
    return a.records_read == b.records_read;
  };
  EXPECT_TRUE(same(parsed, cached));
  EXPECT_EQ(parsed.games.size(), 50u);
  EXPECT_EQ(cached.problems.size(), 1u);

  // Fatal mode on a cache hit still stops at the cached problem.
  ReadOptions fatal = options;
  fatal.fatal_problems = true;
  EXPECT_THROW(load_games({file}, fatal), Error);

  // Exactly one cache file (no temporaries left behind).
  std::vector<fs::path> cache_files;
  for (const auto& entry : fs::directory_iterator(path("cache"))) cache_files.push_back(entry.path());
  ASSERT_EQ(cache_files.size(), 1u);
  const fs::path cache_file = cache_files[0];
  std::string cache_bytes;
  {
    std::ifstream in(cache_file, std::ios::binary);
    cache_bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  const auto rewrite_cache = [&](const std::string& bytes) {
    std::ofstream out(cache_file, std::ios::binary | std::ios::trunc);
    out << bytes;
  };
  // Corruptions: a flipped payload byte, a cut file, an empty file, garbage. Each is a miss:
  // the source is parsed again (same result) and the cache rewritten.
  std::string flipped = cache_bytes;
  flipped[flipped.size() - 40] ^= 0x5A;
  for (const std::string& corrupt :
       {flipped, cache_bytes.substr(0, cache_bytes.size() / 2), std::string(), std::string(5000, '\x7f')}) {
    rewrite_cache(corrupt);
    const GameDatabase reparsed = load_games({file}, options);
    EXPECT_EQ(reparsed.files_from_cache, 0u);
    EXPECT_TRUE(same(parsed, reparsed));
    EXPECT_EQ(load_games({file}, options).files_from_cache, 1u);
  }

  // A changed source (new size and mtime) is parsed again.
  const auto changed = write_gz("book.gam.gz", content + logbook_line(random_game(99)) + "\n");
  fs::last_write_time(changed, fs::last_write_time(changed) + std::chrono::seconds(5));
  const GameDatabase updated = load_games({changed}, options);
  EXPECT_EQ(updated.files_from_cache, 0u);
  EXPECT_EQ(updated.games.size(), 51u);
  EXPECT_EQ(load_games({changed}, options).files_from_cache, 1u);

  // Options that change the parse do not share a cache entry.
  ReadOptions keep = options;
  keep.skip_truncated_wthor = false;
  EXPECT_EQ(load_games({changed}, keep).files_from_cache, 0u);
}

TEST_F(DataFiles, CacheDirectoryThatCannotBeCreatedIsIgnored) {
  const auto file = write("book.gam", kLogbookLine1 + "\n");
  write("blocker", "a file where the cache directory would go");
  ReadOptions options;
  options.cache_dir = path("blocker") / "cache";
  const GameDatabase db = load_games({file}, options);
  EXPECT_EQ(db.games.size(), 1u);
  EXPECT_EQ(db.files_from_cache, 0u);
}

// ---- Garbage never crashes --------------------------------------------------------------

TEST_F(DataFiles, GarbageInputNeverCrashes) {
  // Random bytes and randomly mutated valid files, in every format: each load either returns
  // (with problems) or throws ef::Error.
  std::string book;
  for (u64 seed = 1; seed <= 5; ++seed) book += logbook_line(random_game(seed)) + "\n";
  const Game game = random_game(1);
  const auto record = wthor_record(game.moves, wthor_real_byte(game), 32);
  const auto wthor = concat({wthor_header(3), record, record, record});
  const std::string obf = "---------------------------OX------XO--------------------------- X; F5:+2; D3:-4;\n";
  Rng rng(2024, Purpose::kGame, 1);
  std::size_t loads = 0;
  for (int trial = 0; trial < 300; ++trial) {
    std::string bytes;
    const int kind = trial % 4;
    if (kind == 0) bytes = book;
    if (kind == 1) bytes.assign(wthor.begin(), wthor.end());
    if (kind == 2) bytes = obf;
    if (kind == 3) bytes.resize(rng.below(400));
    if (bytes.empty() && kind != 3) continue;
    for (u32 flips = 1 + rng.below(8); flips > 0 && !bytes.empty(); --flips)
      bytes[rng.below(static_cast<u32>(bytes.size()))] = static_cast<char>(rng.next_u32());
    if (kind == 3)
      for (char& c : bytes) c = static_cast<char>(rng.next_u32());
    if (rng.below(3) == 0 && !bytes.empty()) bytes.resize(rng.below(static_cast<u32>(bytes.size())));
    const char* names[] = {"g.gam", "g.wtb", "g.obf", "g.txt"};
    const auto file = write(names[kind], bytes);
    try {
      if (kind == 2) {
        std::vector<Problem> problems;
        read_obf(file, &problems, false);
      } else {
        const GameDatabase db = load_games({file}, no_cache());
        for (const Game& g : db.games) EXPECT_LE(g.moves.size(), 60u);
      }
      ++loads;
    } catch (const Error&) {
      // A clean refusal is fine.
    }
  }
  EXPECT_GT(loads, 100u);
}

// ---- The CLI --------------------------------------------------------------------------

TEST_F(DataFiles, InspectCommandReportsAndFailsCleanly) {
  const auto book = write("book.gam", kLogbookLine1 + "\n" + kLogbookLine2 + "\n+d3-c3+a1: +00\n");
  const std::string bin = EF_EVALFORGE_BIN;
  const auto [status, json_text] =
      test::run_command(fmt::format("'{}' data inspect '{}' --json --no-cache 2>&1", bin, book.string()));
  ASSERT_EQ(status, 0) << json_text;
  EXPECT_NE(json_text.find("\"games\": 2"), std::string::npos) << json_text;
  EXPECT_NE(json_text.find(book.string() + ":3: "), std::string::npos) << json_text;
  EXPECT_NE(json_text.find("\"positions_by_move\""), std::string::npos);

  const auto [fatal_status, fatal_text] =
      test::run_command(fmt::format("'{}' data inspect '{}' --fatal --no-cache 2>&1", bin, book.string()));
  EXPECT_EQ(fatal_status, 2);
  EXPECT_NE(fatal_text.find(book.string() + ":3: "), std::string::npos) << fatal_text;

  const auto [missing_status, missing_text] =
      test::run_command(fmt::format("'{}' data inspect '{}' --no-cache 2>&1", bin, path("absent.gam").string()));
  EXPECT_EQ(missing_status, 2);
  EXPECT_NE(missing_text.find("absent.gam"), std::string::npos) << missing_text;
}

// A truncated WTHOR file stops every command that reads it, naming the file and the record;
// --accept-damaged (data inspect, score) uses the games before the cut and reports the damage.
TEST_F(DataFiles, TruncatedWthorFileStopsInspectScoreAndSearch) {
  std::vector<std::vector<std::uint8_t>> parts{wthor_header(300)};
  for (u64 seed = 1; seed <= 300; ++seed) {
    const Game game = random_game(seed);
    parts.push_back(wthor_record(game.moves, wthor_real_byte(game), 32));
  }
  auto bytes = concat(parts);
  bytes.resize(16 + 250 * 68 + 20);  // ends 20 bytes into record 251
  const auto cut = write_bytes("WTH_2001.wtb", bytes);
  const std::string bin = EF_EVALFORGE_BIN;
  const std::string where = cut.string() + ": record 251: ";

  auto [inspected, out] = test::run_command(fmt::format("'{}' data inspect '{}' --no-cache 2>&1", bin, cut.string()));
  EXPECT_EQ(inspected, 2) << out;
  EXPECT_NE(out.find("DAMAGED DATA: " + where), std::string::npos) << out;
  auto [accepted, out2] =
      test::run_command(fmt::format("'{}' data inspect '{}' --no-cache --accept-damaged 2>&1", bin, cut.string()));
  EXPECT_EQ(accepted, 0) << out2;
  EXPECT_NE(out2.find("games      250"), std::string::npos) << out2;

  const std::string score =
      fmt::format("'{}' score --no-cache --epochs 1 --threads 2 --moves 20 --data '{}'", bin, cut.string());
  auto [scored, out3] = test::run_command(score + " 2>&1");
  EXPECT_EQ(scored, 2) << out3;
  EXPECT_NE(out3.find(where), std::string::npos) << out3;
  auto [scored_anyway, out4] = test::run_command(score + " --accept-damaged 2>&1");
  EXPECT_EQ(scored_anyway, 0) << out4;
  EXPECT_NE(out4.find("DAMAGED DATA: " + where), std::string::npos) << out4;

  const auto config = write("search.toml", test::tiny_search_toml("paper", cut));
  auto [searched, out5] = test::run_command(
      fmt::format("'{}' search --quiet --config '{}' --out '{}' 2>&1", bin, config.string(), path("run").string()));
  EXPECT_EQ(searched, 2) << out5;
  EXPECT_NE(out5.find(where), std::string::npos) << out5;
}

// ---- Real data (skipped when ../shared/data is absent) ---------------------------------

namespace {

const fs::path kSharedData = EF_SHARED_DATA_DIR;

}  // namespace

TEST(RealData, LogbookReplaysAndMatchesEveryScore) {
  const GameDatabase* db = test::shared_logbook();
  if (!db) GTEST_SKIP() << "logbook.gam.gz not found under " << kSharedData;
  EXPECT_EQ(db->games.size(), 121123u);
  EXPECT_EQ(db->records_read, 121123u);
  EXPECT_TRUE(db->problems.empty()) << describe(db->problems.front());
  double sum = 0, squares = 0;
  int low = 64, high = -64;
  std::size_t full_length = 0;
  for (const Game& game : db->games) {
    sum += game.score;
    squares += static_cast<double>(game.score) * game.score;
    low = std::min(low, game.score);
    high = std::max(high, game.score);
    full_length += game.moves.size() == 60;
  }
  const double mean = sum / static_cast<double>(db->games.size());
  EXPECT_NEAR(mean, -1.22, 0.005);
  EXPECT_NEAR(squares / static_cast<double>(db->games.size()) - mean * mean, 31.3, 0.05);
  EXPECT_EQ(low, -44);
  EXPECT_EQ(high, 56);
  EXPECT_EQ(full_length, 119644u);
}

TEST(RealData, Wthor1977MatchesItsHeader) {
  const fs::path file = kSharedData / "othello" / "wthor" / "WTH_1977.wtb";
  if (!fs::exists(file)) GTEST_SKIP() << file << " not found";
  std::ifstream in(file, std::ios::binary);
  unsigned char header[16] = {};
  in.read(reinterpret_cast<char*>(header), 16);
  const std::uint32_t declared = header[4] | (header[5] << 8) | (header[6] << 16) | (std::uint32_t{header[7]} << 24);
  ReadOptions options;
  options.use_cache = false;
  const GameDatabase db = load_games({file}, options);
  EXPECT_EQ(db.records_read, declared);
  EXPECT_EQ(db.games.size() + db.problems.size(), declared);
  EXPECT_EQ(db.games.size(), 12u);
  for (const Game& game : db.games) EXPECT_EQ(game.year, 1977);
  EXPECT_FALSE(db.player_names.empty());
  EXPECT_FALSE(db.tournament_names.empty());
}

TEST(RealData, WthorAllYearsReport382TruncatedGames) {
  const fs::path dir = kSharedData / "othello" / "wthor";
  if (!fs::exists(dir / "WTH_2015.wtb")) GTEST_SKIP() << dir << " not found";
  std::vector<fs::path> files;
  for (int year = 1977; year <= 2015; ++year) files.push_back(dir / fmt::format("WTH_{}.wtb", year));
  ReadOptions options;
  options.use_cache = false;
  const GameDatabase db = load_games(files, options);
  EXPECT_EQ(db.records_read, 117386u);
  const auto skipped =
      std::count_if(db.problems.begin(), db.problems.end(), [](const Problem& p) { return p.skipped; });
  EXPECT_EQ(skipped, 382);
  EXPECT_EQ(db.games.size(), 117386u - 382u);
}

TEST(RealData, FforumObfHasTwentyPositions) {
  const fs::path file = kSharedData / "othello" / "fforum-20-39.obf";
  if (!fs::exists(file)) GTEST_SKIP() << file << " not found";
  const auto positions = read_obf(file);
  ASSERT_EQ(positions.size(), 20u);
  for (const auto& position : positions) EXPECT_NE(position.best_score(), kNoScore);
  EXPECT_EQ(positions[0].best_score(), 6);  // #20: H5 +6
}
