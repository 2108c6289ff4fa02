// PGN and GGF game files: hand-written fixtures in the shape real exports have (expected moves
// and scores written out here, not computed by the readers), every problem kind with its
// file:line, fatal mode, format detection, the cache, round trips of the real logbook through
// the writers, and `evalforge data convert`.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>
#include <algorithm>
#include <filesystem>
#include <fstream>
#include "evalforge/core/error.hpp"
#include "evalforge/core/rng.hpp"
#include "evalforge/data/games.hpp"
#include "evalforge/games/othello/bitboard.hpp"
#include "test_support.hpp"

namespace fs = std::filesystem;
using namespace ef;
using namespace ef::data;

namespace {

// The first two games of the real logbook (data_readers_test.cpp has them in logbook form):
// game 1 ends 30-34 on a full board (logbook score -04); in game 2 black passes before
// white's g1, and it ends 32-32 (+00).
const std::string kGame1Pgn =
    "1. d3 c3 2. c4 e3 3. c2 b3 4. d2 e1 5. d1 c1 6. f4 d6 7. e6 g4 8. b2 f6 9. d7 c8 10. e7 d8 11. f3 f5\n"
    "12. g5 h4 13. h6 f2 14. f7 h5 15. g6 c6 16. c5 c7 17. b6 b5 18. b4 e8 19. h3 g3 20. h2 e2 21. h7 g2\n"
    "22. b1 a1 23. h1 a2 24. a3 g7 25. f8 h8 26. g8 a4 27. g1 f1 28. a6 a5 29. a7 a8 30. b8 b7";
const std::string kGame2Pgn =
    "1. d3 c3 2. c4 e3 3. c2 b3 4. d2 e1 5. d1 c1 6. f4 d6 7. e6 g4 8. b2 f6 9. d7 c8 10. e7 d8 11. f3 f5\n"
    "12. g5 h4 13. h6 f2 14. f7 h5 15. g6 c6 16. c5 c7 17. b6 b5 18. f8 a6 19. b4 a5 20. a4 e8 21. b8 h7\n"
    "22. g8 b7 23. g2 g3 24. h2 a1 25. f1 e2 26. h3 a3 27. a8 a7 28. h8 g7 29. a2 b1 30. pass g1 31. h1";
const std::string kGame1Ggf =
    "B[d3//1.23]W[c3/-0.50/2.01]B[C4]W[E3]B[C2]W[B3]B[D2]W[E1]B[D1]W[C1]B[F4]W[D6]B[E6]W[G4]B[B2]W[F6]B[D7]W[C8]B[E7]"
    "W[D8]B[F3]W[F5]B[G5]W[H4]B[H6]W[F2]B[F7]W[H5]B[G6]W[C6]B[C5]W[C7]B[B6]W[B5]B[B4]W[E8]B[H3]W[G3]B[H2]W[E2]B[H7]"
    "W[G2]B[B1]W[A1]B[H1]W[A2]B[A3]W[G7]B[F8]W[H8]B[G8]W[A4]B[G1]W[F1]B[A6]W[A5]B[A7]W[A8]B[B8]W[B7]";
const std::string kGame2Ggf =
    "B[D3]W[C3]B[C4]W[E3]B[C2]W[B3]B[D2]W[E1]B[D1]W[C1]B[F4]W[D6]B[E6]W[G4]B[B2]W[F6]B[D7]W[C8]B[E7]W[D8]B[F3]W[F5]"
    "B[G5]W[H4]B[H6]W[F2]B[F7]W[H5]B[G6]W[C6]B[C5]W[C7]B[B6]W[B5]B[F8]W[A6]B[B4]W[A5]B[A4]W[E8]B[B8]W[H7]B[G8]W[B7]"
    "B[G2]W[G3]B[H2]W[A1]B[F1]W[E2]B[H3]W[A3]B[A8]W[A7]B[H8]W[G7]B[A2]W[B1]B[PA]W[G1]B[H1]";
// A shortest game: 9 moves, then black has 13 discs, white none, 51 squares are empty.
const std::string kShortPgn = "1. d3 c3 2. b3 d2 3. e1 d6 4. d7 e3 5. f4";
const std::string kShortGgf = "B[d3]W[c3]B[b3]W[d2]B[e1]W[d6]B[d7]W[e3]B[f4]";
const std::string kStartBo = "BO[8 ---------------------------O*------*O--------------------------- *]";

std::string ggf_game(const std::string& result, const std::string& moves, const std::string& type = "8",
                     const std::string& board = kStartBo) {
  return "(;GM[Othello]PC[GGS/os]DT[2003.09.21_12:30:05.MDT]PB[ant]PW[Saio]RB[2146.23]RW[2488.10]TI[05:00//02:00]TY[" +
         type + "]RE[" + result + "]" + board + moves + ";)";
}

// Squares written out by hand: square = 8*row + column, a1 = 0, h8 = 63.
constexpr int kD3 = 19, kC3 = 18, kC4 = 26, kB7 = 49, kB1 = 1, kG1 = 6, kH1 = 7, kF4 = 29;

// Game 1 in full, from the logbook line, squares by hand.
const std::vector<std::uint8_t> kGame1Moves = {19, 18, 26, 20, 10, 17, 11, 4,  3,  2,  29, 43, 44, 30, 9,
                                               45, 51, 58, 52, 59, 21, 37, 38, 31, 47, 13, 53, 39, 46, 42,
                                               34, 50, 41, 33, 25, 60, 23, 22, 15, 12, 55, 14, 1,  0,  7,
                                               8,  16, 54, 61, 63, 62, 24, 6,  5,  40, 32, 48, 56, 57, 49};

class PgnGgfFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = test::scratch_dir("pgnggf", ::testing::UnitTest::GetInstance()->current_test_info()->name());
  }
  fs::path write(const std::string& name, const std::string& content) const {
    std::ofstream(dir_ / name, std::ios::binary) << content;
    return dir_ / name;
  }
  static ReadOptions no_cache() {
    ReadOptions options;
    options.use_cache = false;
    return options;
  }
  // The problems as "line: start of text" for compact assertions.
  static std::vector<std::string> problem_lines(const GameDatabase& db) {
    std::vector<std::string> out;
    for (const Problem& p : db.problems) out.push_back(describe(p));
    return out;
  }
  static std::string joined(const GameDatabase& db) {
    std::string out;
    for (const Problem& p : db.problems) out += describe(p) + "\n";
    return out;
  }
  fs::path dir_;
};

}  // namespace

// ---- PGN ------------------------------------------------------------------------------------

TEST_F(PgnGgfFiles, PgnReadsTagsCommentsPassesAndDiscCounts) {
  const std::string text =
      "[Event \"French Championship\"]\n[Site \"Paris\"]\n[Date \"1998.05.02\"]\n[Round \"3\"]\n"
      "[Black \"Tastet, Marc\"]\n[White \"Shaman, David\"]\n[Result \"30-34\"]\n[BlackElo \"2400\"]\n\n"
      "{A game of the real book} " +
      kGame1Pgn +
      " $1 ; the last move\n30-34\n\n"
      "[Event \"?\"]\n[Black \"x\"]\n[White \"y\"]\n[Result \"32-32\"]\n\n" +
      kGame2Pgn +
      " 32-32\n\n"
      "[Event \"short\"]\n[Result \"13-0\"]\n\n" +
      kShortPgn +
      " 13-0\n"
      "[Event \"short, empties to the winner\"]\n" +
      kShortPgn +
      " 64-0\n\n"
      // Upper case squares, no numbers, the PA pass token, a 1/2 result, no tags at all.
      "D3 C3 C4 E3 C2 B3 D2 E1 D1 C1 F4 D6 E6 G4 B2 F6 D7 C8 E7 D8 F3 F5 G5 H4 H6 F2 F7 H5 G6 C6 C5 C7 B6 B5 F8 A6 "
      "B4 A5 A4 E8 B8 H7 G8 B7 G2 G3 H2 A1 F1 E2 H3 A3 A8 A7 H8 G7 A2 B1 PA G1 H1 1/2-1/2\n";
  const GameDatabase db = load_games({write("games.pgn", text)}, no_cache());
  ASSERT_EQ(db.games.size(), 5u) << joined(db);
  EXPECT_TRUE(db.problems.empty()) << joined(db);
  EXPECT_EQ(db.records_read, 5u);

  EXPECT_EQ(db.games[0].moves, kGame1Moves);
  EXPECT_EQ(db.games[0].score, -4);  // 30-34

  const Game& passes = db.games[1];
  ASSERT_EQ(passes.moves.size(), 60u);  // the pass is implicit in Game
  EXPECT_EQ(passes.moves[0], kD3);
  EXPECT_EQ(passes.moves[57], kB1);
  EXPECT_EQ(passes.moves[58], kG1);
  EXPECT_EQ(passes.moves[59], kH1);
  EXPECT_EQ(passes.score, 0);

  const std::vector<std::uint8_t> short_moves = {19, 18, 17, 11, 4, 43, 51, 20, kF4};
  EXPECT_EQ(db.games[2].moves, short_moves);
  EXPECT_EQ(db.games[2].score, 13);  // the board's counts: 13-0 with 51 empty
  EXPECT_EQ(db.games[3].moves, short_moves);
  EXPECT_EQ(db.games[3].score, 64);  // 64-0: the empties given to the winner
  EXPECT_EQ(db.games[4].moves, passes.moves);
  EXPECT_EQ(db.games[4].score, 0);
  EXPECT_EQ(db.games[4].black_player, -1);  // names are not kept
}

TEST_F(PgnGgfFiles, PgnResultsWithoutCountsTakeTheBoardScore) {
  // 1-0 is black's win (black first, as in B-W counts); `*` and a missing result leave the
  // score to the board: 13 - 0 = +13 raw.
  const std::string text = "[Result \"1-0\"]\n" + kShortPgn + " 1-0\n\n" + kShortPgn + " *\n\n" + "[Result \"*\"]\n" +
                           kShortPgn + "\n\n" + "1.d3 2.c3 3.b3 4.d2 5.e1 6.d6 7.d7 8.e3 9.f4\n";
  const GameDatabase db = load_games({write("results.pgn", text)}, no_cache());
  ASSERT_EQ(db.games.size(), 4u) << joined(db);
  for (const Game& game : db.games) {
    EXPECT_EQ(game.score, 13);
    EXPECT_EQ(game.moves.size(), 9u);
  }
}

TEST_F(PgnGgfFiles, PgnProblemsCarryTheirLinesAndAreSkipped) {
  const std::string text =
      "[Event \"illegal\"]\n"     // 1
      "1. d3 c3 2. a1 13-0\n"     // 2: a1 is illegal for black
      "\n"                        // 3
      "[Event \"unfinished\"]\n"  // 4: the game starts here
      "1. f5 d6 2. c3 *\n"        // 5
      "\n"                        // 6
      "[Result \"60-4\"]\n"       // 7: wrong counts
      + kShortPgn +
      " 60-4\n"                // 8
      "\n"                     // 9
      "[Event \"garbage\"]\n"  // 10
      "1. d3 c3 Nf3 13-0\n"    // 11
      "[Event \"bad tag\n"     // 12
      "1. d3 13-0\n"           // 13
      "[FEN \"8/8/8\"]\n"      // 14
      "1. d3 13-0\n"           // 15
      "[Result \"13-0\"]\n"    // 16: tag and token disagree
      + kShortPgn +
      " 12-0\n"               // 17
      "1. d3 c3 pass 13-0\n"  // 18: black can move
      + kShortPgn +
      " 13-0\n"                    // 19: the one good game
      "1. d3 { an open comment\n"  // 20
      "that never closes\n";       // 21
  const fs::path file = write("bad.pgn", text);
  const GameDatabase db = load_games({file}, no_cache());
  ASSERT_EQ(db.games.size(), 1u) << joined(db);
  EXPECT_EQ(db.games[0].score, 13);
  EXPECT_EQ(db.records_read, 10u);
  const std::vector<std::string> problems = problem_lines(db);
  ASSERT_EQ(problems.size(), 9u) << joined(db);
  const std::string f = file.string();
  EXPECT_EQ(problems[0].rfind(f + ":2: move 3 (a1) at column 13 is illegal for black", 0), 0u) << problems[0];
  EXPECT_EQ(problems[1].rfind(f + ":4: game not finished after 3 moves (white to move", 0), 0u) << problems[1];
  EXPECT_EQ(problems[2].rfind(f + ":7: result 60-4 does not match the final board (black 13, white 0, 51 empty", 0), 0u)
      << problems[2];
  EXPECT_EQ(problems[3].rfind(f + ":11: unexpected 'Nf3' at column 10", 0), 0u) << problems[3];
  EXPECT_EQ(problems[4].rfind(f + ":12: tag at column 1 is not a [Name \"value\"] pair", 0), 0u) << problems[4];
  EXPECT_EQ(problems[5].rfind(f + ":14: [FEN] at column 1: games from a set-up position are not read", 0), 0u)
      << problems[5];
  EXPECT_EQ(problems[6].rfind(f + ":16: result 12-0 after the moves differs from the Result tag 13-0", 0), 0u)
      << problems[6];
  EXPECT_EQ(problems[7].rfind(f + ":18: pass (pass) at column 10: black has a legal move", 0), 0u) << problems[7];
  EXPECT_EQ(problems[8].rfind(f + ":20: comment '{' not closed", 0), 0u) << problems[8];
  for (const Problem& problem : db.problems) EXPECT_TRUE(problem.skipped);

  // Fatal: the first problem stops the load, naming file and line.
  ReadOptions fatal = no_cache();
  fatal.fatal_problems = true;
  const std::string error = test::error_of([&] { load_games({file}, fatal); });
  EXPECT_EQ(error.rfind(f + ":2: move 3 (a1)", 0), 0u) << error;
}

// ---- GGF ------------------------------------------------------------------------------------

TEST_F(PgnGgfFiles, GgfReadsAnnotatedGamesSeveralPerLineAndSynchroPairs) {
  const std::string text =
      // Two games on one line; RE in GGS's form, the short game with the empties to the winner.
      ggf_game("-4.000", kGame1Ggf) + " " + ggf_game("+64.00", kShortGgf) + "\n" +
      // A synchro pair (two games of one match), the second with its pass and a resign flag
      // on a finished board.
      "(" + ggf_game("+0.00", kGame2Ggf, "s8") + ggf_game("+13:r", kShortGgf, "s8") + ")\n" +
      // A game split over two lines, a value holding an escaped ']' and ';)'.
      "(;GM[Othello]PB[odd\\] name;)]TY[8]RE[+13]\n" + kStartBo + kShortGgf + ";)\n";
  const GameDatabase db = load_games({write("games.ggf", text)}, no_cache());
  ASSERT_EQ(db.games.size(), 5u) << joined(db);
  EXPECT_TRUE(db.problems.empty()) << joined(db);
  EXPECT_EQ(db.games[0].moves, kGame1Moves);
  EXPECT_EQ(db.games[0].score, -4);
  EXPECT_EQ(db.games[1].moves.size(), 9u);
  EXPECT_EQ(db.games[1].score, 64);
  ASSERT_EQ(db.games[2].moves.size(), 60u);
  EXPECT_EQ(db.games[2].moves[57], kB1);
  EXPECT_EQ(db.games[2].moves[58], kG1);
  EXPECT_EQ(db.games[2].score, 0);
  EXPECT_EQ(db.games[3].score, 13);
  EXPECT_EQ(db.games[3].moves.front(), kD3);
  EXPECT_EQ(db.games[3].moves[1], kC3);
  EXPECT_EQ(db.games[4].score, 13);
  EXPECT_EQ(db.games[4].moves.back(), kF4);
  (void)kC4;
  (void)kB7;
}

TEST_F(PgnGgfFiles, GgfProblemsCarryTheirLinesAndAreSkipped) {
  const std::string random_board = "BO[8 -------------------O----**O----*OO----*O--*-------------------------- O]";
  const std::string text = ggf_game("+64.00:r", "B[f5]W[d6]") + "\n" +                   // 1: resigned, unfinished
                           ggf_game("+0.00", kShortGgf, "s8r20", random_board) + "\n" +  // 2: random start
                           ggf_game("+0.00", kShortGgf, "8", "BO[10 " + std::string(100, '-') + " *]") +
                           "\n" +                                         // 3: BO 10x10
                           ggf_game("+20.00", kShortGgf) + "\n" +         // 4: RE does not match
                           ggf_game("+13", "B[d3]W[c3]B[a1]") + "\n" +    // 5: illegal
                           ggf_game("+13", "B[d3]B[c3]") + "\n" +         // 6: black twice
                           "(;GM[Chess]RE[1-0]B[e4];)\n" +                // 7: not Othello
                           ggf_game("+13", kShortGgf, "10") + "\n" +      // 8: TY size
                           "this is no game\n" +                          // 9: garbage
                           "(;GM[Othello]TY[8]" + kStartBo + "B[d3]\n" +  // 10: not closed ...
                           ggf_game("+13", kShortGgf) + "\n" +            // 11: ... the good game
                           ggf_game("+13", "B[d3]W[PA]") + "\n" +         // 12: white can move
                           ggf_game("+1.5", kShortGgf) + "\n" +           // 13: fraction
                           ggf_game("+13", kShortGgf, "8a");              // 14: anti
  const fs::path file = write("bad.ggf", text);
  const GameDatabase db = load_games({file}, no_cache());
  ASSERT_EQ(db.games.size(), 1u) << joined(db);
  EXPECT_EQ(db.games[0].score, 13);
  EXPECT_EQ(db.records_read, 14u);
  const std::vector<std::string> problems = problem_lines(db);
  ASSERT_EQ(problems.size(), 13u) << joined(db);
  const std::string f = file.string();
  const std::vector<std::string> expected = {
      f + ":1: game not finished after 2 moves (black to move, 58 empty squares): RE[+64.00:r] says it ended by a "
          "resignation",
      f + ":2: TY[s8r20]: a random start position",
      f + ":3: BO['10'...]: not an 8x8 board",
      f + ":4: RE[+20.00] does not match the final board (disc difference +13, +64 with empties to the winner)",
      f + ":5: move 3 (B[a1]) at column ",
      f + ":6: move 2 (B[c3]) at column ",
      f + ":7: GM['Chess']: not an Othello game",
      f + ":8: TY[10]: board size 10",
      f + ":9: unexpected 't' at column 1 outside a game",
      f + ":10: game not closed with ';)' before the next game at line 11, column 1",
      f + ":12: pass (W[PA]) at column ",
      f + ":13: RE[+1.5] is not a whole disc difference",
      f + ":14: TY[8a]: anti Othello",
  };
  for (std::size_t i = 0; i < expected.size(); ++i)
    EXPECT_EQ(problems[i].rfind(expected[i], 0), 0u) << problems[i] << "\nexpected: " << expected[i];

  ReadOptions fatal = no_cache();
  fatal.fatal_problems = true;
  const std::string error = test::error_of([&] { load_games({file}, fatal); });
  EXPECT_EQ(error.rfind(f + ":1: game not finished", 0), 0u) << error;
}

TEST_F(PgnGgfFiles, MutatedPgnAndGgfNeverCrash) {
  // The fixtures above with bytes changed, cut short or shuffled: each load returns (with
  // problems) or throws ef::Error, and never keeps a game longer than 60 moves.
  const std::string pgn = "[Event \"x\"]\n[Result \"30-34\"]\n{c} " + kGame1Pgn + " $2 30-34\n\n" + kGame2Pgn +
                          " (30... a1) 32-32\n" + kShortPgn + " 64-0 ; end\n";
  const std::string ggf = "(" + ggf_game("-4.00", kGame1Ggf, "s8") + ggf_game("+0.00", kGame2Ggf) + ")\n" +
                          ggf_game("+13:r", kShortGgf) + "\n(;GM[Othello]PB[a\\]b]" + kStartBo + "\n" + kShortGgf +
                          ";)";
  Rng rng(16, Purpose::kGame, 7);
  std::size_t loads = 0, games = 0;
  for (int trial = 0; trial < 400; ++trial) {
    std::string bytes = trial % 2 ? ggf : pgn;
    for (u32 changes = 1 + rng.below(6); changes > 0; --changes) {
      const u32 at = rng.below(static_cast<u32>(bytes.size()));
      const std::string_view specials = "[]();{}$\"\\\n -./:*0123456789PAB";
      bytes[at] =
          rng.below(2) ? specials[rng.below(static_cast<u32>(specials.size()))] : static_cast<char>(rng.next_u32());
    }
    if (rng.below(4) == 0) bytes.resize(rng.below(static_cast<u32>(bytes.size())));
    const fs::path file = write(trial % 2 ? "m.ggf" : "m.pgn", bytes);
    try {
      const GameDatabase db = load_games({file}, no_cache());
      for (const Game& game : db.games) EXPECT_LE(game.moves.size(), 60u);
      games += db.games.size();
      ++loads;
    } catch (const Error&) {
      // A clean refusal is fine.
    }
  }
  EXPECT_GT(loads, 300u);
  EXPECT_GT(games, 100u);  // the mutations leave many games intact: the readers resynchronise
}

TEST_F(PgnGgfFiles, PgnMoveNumbersGluedWithoutEndReadInConstantStack) {
  // Half a million glued move numbers in one token once meant as many nested calls.
  std::string numbers;
  for (int i = 0; i < 500000; ++i) numbers += "1.";
  const GameDatabase db = load_games({write("deep.pgn", numbers + kShortPgn.substr(3) + " 13-0\n")}, no_cache());
  ASSERT_EQ(db.games.size(), 1u) << joined(db);
  EXPECT_EQ(db.games[0].score, 13);
}

// ---- Detection, inspect, cache --------------------------------------------------------------

TEST_F(PgnGgfFiles, FormatsAreDetectedByExtensionAndContent) {
  EXPECT_EQ(detect_format(write("a.pgn", "")), FileFormat::kPgn);
  EXPECT_EQ(detect_format(write("a.GGF", "")), FileFormat::kGgf);
  EXPECT_EQ(detect_format(write("a.dat", "\n  [Event \"x\"]\n1. d3\n")), FileFormat::kPgn);
  EXPECT_EQ(detect_format(write("b.dat", "# games\n" + ggf_game("+13", kShortGgf) + "\n")), FileFormat::kGgf);
  EXPECT_EQ(detect_format(write("c.dat", "d3c3b3d2e1d6d7e3f4 +13\n")), FileFormat::kTranscript);
  EXPECT_STREQ(format_name(FileFormat::kPgn), "pgn");
  EXPECT_STREQ(format_name(FileFormat::kGgf), "ggf");
  const GameDatabase db = load_games({dir_ / "b.dat"}, no_cache());
  ASSERT_EQ(db.games.size(), 1u) << joined(db);
  EXPECT_EQ(db.games[0].score, 13);
}

TEST_F(PgnGgfFiles, CacheServesPgnAndGgfUnchanged) {
  ReadOptions options;
  options.cache_dir = dir_ / "cache";
  for (const fs::path& file : {write("c.pgn", kShortPgn + " 13-0\n1. d3 c3 2. a1 *\n"),
                               write("c.ggf", ggf_game("+64", kShortGgf) + "\nnoise\n")}) {
    const GameDatabase first = load_games({file}, options);
    const GameDatabase second = load_games({file}, options);
    EXPECT_EQ(first.files_from_cache, 0u);
    EXPECT_EQ(second.files_from_cache, 1u) << file;
    ASSERT_EQ(second.games.size(), 1u);
    EXPECT_EQ(second.games[0].moves, first.games[0].moves);
    EXPECT_EQ(second.games[0].score, first.games[0].score);
    EXPECT_EQ(problem_lines(second), problem_lines(first));
    EXPECT_EQ(second.records_read, 2u);
  }
}

TEST_F(PgnGgfFiles, CacheKeyNamesTheDetectedFormat) {
  // A file without a known extension turns from a transcript into PGN with the same size and
  // modification time (what the cache compares): the cached transcript parse must not serve it.
  ReadOptions options;
  options.cache_dir = dir_ / "cache";
  const std::string pgn = "[Event \"x\"]\nd3 c3 b3 d2 e1 d6 d7 e3 f4 13-0\n";
  std::string transcript = "d3c3b3d2e1d6d7e3f4 +13";
  transcript.resize(pgn.size() - 1, ' ');
  transcript += '\n';
  const fs::path file = write("games.dat", transcript);
  const auto mtime = fs::last_write_time(file);
  ASSERT_EQ(load_games({file}, options).games.size(), 1u);
  ASSERT_EQ(load_games({file}, options).files_from_cache, 1u);

  write("games.dat", pgn);
  fs::last_write_time(file, mtime);
  ASSERT_EQ(detect_format(file), FileFormat::kPgn);
  const GameDatabase db = load_games({file}, options);
  EXPECT_EQ(db.files_from_cache, 0u);
  ASSERT_EQ(db.games.size(), 1u) << joined(db);
  EXPECT_EQ(db.games[0].score, 13);
  EXPECT_EQ(load_games({file}, options).files_from_cache, 1u);
}

// ---- Writers: round trips ---------------------------------------------------------------------

TEST_F(PgnGgfFiles, HandWrittenGamesRoundTripThroughPgnAndGgf) {
  // Both score conventions on a board with empty squares (the short game), and a pass.
  std::vector<Game> games(3);
  games[0].moves = {19, 18, 17, 11, 4, 43, 51, 20, kF4};
  games[0].score = 13;
  games[1].moves = games[0].moves;
  games[1].score = 64;
  const GameDatabase source = load_games({write("two.pgn", kGame2Pgn + " 32-32\n")}, no_cache());
  ASSERT_EQ(source.games.size(), 1u) << joined(source);
  games[2] = source.games[0];

  write_pgn(dir_ / "out.pgn", games);
  std::string pgn = test::file_bytes(dir_ / "out.pgn");
  std::replace(pgn.begin(), pgn.end(), '\n', ' ');  // move text is wrapped wherever a line fills
  EXPECT_NE(pgn.find("[Result \"13-0\"]"), std::string::npos) << pgn;
  EXPECT_NE(pgn.find("[Result \"64-0\"]"), std::string::npos) << pgn;
  EXPECT_NE(pgn.find("30. pass g1 31. h1 32-32"), std::string::npos) << pgn;
  write_ggf(dir_ / "out.ggf", games);
  const std::string ggf = test::file_bytes(dir_ / "out.ggf");
  EXPECT_NE(ggf.find("RE[+13.00]"), std::string::npos) << ggf;
  EXPECT_NE(ggf.find("W[b1]B[PA]W[g1]B[h1];)"), std::string::npos) << ggf;

  for (const char* name : {"out.pgn", "out.ggf"}) {
    const GameDatabase back = load_games({dir_ / name}, no_cache());
    EXPECT_TRUE(back.problems.empty()) << joined(back);
    ASSERT_EQ(back.games.size(), games.size()) << name;
    for (std::size_t i = 0; i < games.size(); ++i) {
      EXPECT_EQ(back.games[i].moves, games[i].moves) << name << " game " << i;
      EXPECT_EQ(back.games[i].score, games[i].score) << name << " game " << i;
    }
  }
}

TEST(PgnGgfRealData, LogbookRoundTripsThroughPgnAndGgf) {
  const GameDatabase* book = test::shared_logbook();
  if (!book) GTEST_SKIP() << "logbook.gam.gz not found under ../shared/data";
  // A few thousand games, and every shorter game (they end with empty squares) also with its
  // score in the other convention, empties to the winner.
  std::vector<Game> games(book->games.begin(), book->games.begin() + 3000);
  std::size_t short_games = 0;
  for (const Game& game : book->games) {
    if (game.moves.size() == 60 || short_games == 500) continue;
    Game other = game;
    othello::Board board;
    for (const int square : other.moves) {
      if (!board.can_move()) board.pass();
      board.play(square);
    }
    ASSERT_GT(board.empties(), 0);
    other.score = board.disc_diff_empties_to_winner();
    games.push_back(other);
    games.push_back(game);
    ++short_games;
  }
  ASSERT_EQ(short_games, 500u);
  const fs::path dir = test::scratch_dir("pgnggf", "logbook");
  ReadOptions options;
  options.use_cache = false;
  for (const char* name : {"book.pgn", "book.ggf"}) {
    if (std::string(name) == "book.pgn")
      write_pgn(dir / name, games);
    else
      write_ggf(dir / name, games);
    const GameDatabase back = load_games({dir / name}, options);
    EXPECT_TRUE(back.problems.empty()) << describe(back.problems.front());
    ASSERT_EQ(back.games.size(), games.size()) << name;
    std::size_t differing = 0;
    for (std::size_t i = 0; i < games.size(); ++i)
      differing += back.games[i].moves != games[i].moves || back.games[i].score != games[i].score;
    EXPECT_EQ(differing, 0u) << name;
  }
}

// ---- The CLI --------------------------------------------------------------------------------

TEST_F(PgnGgfFiles, ConvertCommandWritesEachFormatAndRefusesBadOutput) {
  const std::string bin = EF_EVALFORGE_BIN;
  const fs::path pgn =
      write("in.pgn", "[Result \"30-34\"]\n" + kGame1Pgn + " 30-34\n\n" + kShortPgn + " 64-0\n\n1. d3 c3 2. a1 *\n");
  const auto run = [&](const std::string& args) {
    return test::run_command(fmt::format("'{}' data convert {} --no-cache 2>&1", bin, args));
  };
  for (const char* out : {"out.ggf", "out.txt", "OUT.PGN"}) {
    const auto [status, text] = run(fmt::format("'{}' --out '{}'", pgn.string(), (dir_ / out).string()));
    ASSERT_EQ(status, 0) << text;
    EXPECT_NE(text.find("2 games, 1 problems"), std::string::npos) << text;
    EXPECT_NE(text.find(pgn.string() + ":8: move 3 (a1)"), std::string::npos) << text;
    EXPECT_NE(text.find("wrote 2 games"), std::string::npos) << text;
    const GameDatabase back = load_games({dir_ / out}, no_cache());
    ASSERT_EQ(back.games.size(), 2u) << out << "\n" << joined(back);
    EXPECT_EQ(back.games[0].moves, kGame1Moves);
    EXPECT_EQ(back.games[0].score, -4);
    EXPECT_EQ(back.games[1].score, 64);
  }
  // GGF back to PGN: several inputs.
  const auto [status, text] =
      run(fmt::format("'{}' '{}' --out '{}'", (dir_ / "out.ggf").string(), pgn.string(), (dir_ / "all.pgn").string()));
  ASSERT_EQ(status, 0) << text;
  EXPECT_EQ(load_games({dir_ / "all.pgn"}, no_cache()).games.size(), 4u);

  const auto [fatal_status, fatal_text] =
      run(fmt::format("'{}' --fatal --out '{}'", pgn.string(), (dir_ / "fatal.pgn").string()));
  EXPECT_EQ(fatal_status, 2);
  EXPECT_NE(fatal_text.find(pgn.string() + ":8: move 3 (a1)"), std::string::npos) << fatal_text;
  EXPECT_FALSE(fs::exists(dir_ / "fatal.pgn"));

  const auto [same_status, same_text] = run(fmt::format("'{}' --out '{}'", pgn.string(), pgn.string()));
  EXPECT_EQ(same_status, 2);
  EXPECT_NE(same_text.find("refusing to overwrite"), std::string::npos) << same_text;
  const auto [ext_status, ext_text] = run(fmt::format("'{}' --out '{}'", pgn.string(), (dir_ / "x.wtb").string()));
  EXPECT_EQ(ext_status, 2);
  EXPECT_NE(ext_text.find(".txt (transcripts), .pgn, .ggf or .obf (positions)"), std::string::npos) << ext_text;
  const auto [dir_status, dir_text] =
      run(fmt::format("'{}' --out '{}'", pgn.string(), (dir_ / "absent" / "x.pgn").string()));
  EXPECT_EQ(dir_status, 2);
  EXPECT_NE(dir_text.find("does not exist"), std::string::npos) << dir_text;
}

// .obf: each chosen game's position at --empties, read back by the solver's reader as the board
// the game reaches there (replayed here) with the side that moves next; a game that ends before
// gives no line.
TEST_F(PgnGgfFiles, ConvertCommandWritesPositionsAsObf) {
  const std::string bin = EF_EVALFORGE_BIN;
  const fs::path pgn = write("pos.pgn", "[Result \"30-34\"]\n" + kGame1Pgn + " 30-34\n\n" + kShortPgn + " 64-0\n");
  const auto run = [&](const std::string& args) {
    return test::run_command(fmt::format("'{}' data convert '{}' {} --no-cache 2>&1", bin, pgn.string(), args));
  };
  othello::Board expected;  // game 1 after 10 moves: 50 empties
  for (int i = 0; i < 10; ++i) {
    if (!expected.can_move()) expected.pass();
    ASSERT_TRUE(expected.play(kGame1Moves[static_cast<std::size_t>(i)]));
  }
  if (!expected.can_move()) expected.pass();
  ASSERT_EQ(expected.empties(), 50);
  const fs::path obf = dir_ / "at50.obf";
  const auto [status, text] = run(fmt::format("--out '{}' --empties 50", obf.string()));
  ASSERT_EQ(status, 0) << text;
  EXPECT_NE(text.find("wrote 1 positions of 50 empties"), std::string::npos) << text;  // the short game ended at 51
  const std::vector<ObfPosition> back = read_obf(obf);
  ASSERT_EQ(back.size(), 1u);
  EXPECT_EQ(back[0].black, expected.black());
  EXPECT_EQ(back[0].white, expected.white());
  EXPECT_EQ(back[0].side, expected.side);
  EXPECT_TRUE(back[0].move_scores.empty());
  // --every / --first choose the games: the second alone ended before.
  const auto [second_status, second_text] =
      run(fmt::format("--out '{}' --empties 50 --every 5 --first 1", obf.string()));
  ASSERT_EQ(second_status, 0) << second_text;
  EXPECT_NE(second_text.find("wrote 0 positions"), std::string::npos) << second_text;
  EXPECT_TRUE(read_obf(obf).empty());
  // Both games at the start: 60 empties, black to move.
  const auto [start_status, start_text] = run(fmt::format("--out '{}' --empties 60", obf.string()));
  ASSERT_EQ(start_status, 0) << start_text;
  const std::vector<ObfPosition> starts = read_obf(obf);
  ASSERT_EQ(starts.size(), 2u);
  EXPECT_EQ(starts[1].black, othello::Board{}.black());
  EXPECT_EQ(starts[1].side, 0);
  // Positions need --empties; the game formats take none of the position options.
  const auto [no_empties_status, no_empties_text] = run(fmt::format("--out '{}'", (dir_ / "x.obf").string()));
  EXPECT_EQ(no_empties_status, 2);
  EXPECT_NE(no_empties_text.find("need --empties"), std::string::npos) << no_empties_text;
  const auto [txt_status, txt_text] = run(fmt::format("--out '{}' --empties 20", (dir_ / "x.txt").string()));
  EXPECT_EQ(txt_status, 2);
  EXPECT_NE(txt_text.find("for an .obf --out"), std::string::npos) << txt_text;
  EXPECT_FALSE(fs::exists(dir_ / "x.obf"));
  EXPECT_FALSE(fs::exists(dir_ / "x.txt"));
}

TEST_F(PgnGgfFiles, InspectReportsPgnAndGgfFiles) {
  const std::string bin = EF_EVALFORGE_BIN;
  const fs::path ggf = write("i.ggf", ggf_game("+64", kShortGgf) + ggf_game("-4", kGame1Ggf) + "\nnoise\n");
  const auto [status, json_text] =
      test::run_command(fmt::format("'{}' data inspect '{}' --json --no-cache 2>&1", bin, ggf.string()));
  ASSERT_EQ(status, 0) << json_text;
  EXPECT_NE(json_text.find("\"format\": \"ggf\""), std::string::npos) << json_text;
  EXPECT_NE(json_text.find("\"games\": 2"), std::string::npos) << json_text;
  EXPECT_NE(json_text.find(ggf.string() + ":2: unexpected 'n'"), std::string::npos) << json_text;
  const fs::path pgn = write("i.pgn", kShortPgn + " 13-0\n");
  const auto [text_status, text] =
      test::run_command(fmt::format("'{}' data inspect '{}' --no-cache 2>&1", bin, pgn.string()));
  ASSERT_EQ(text_status, 0) << text;
  EXPECT_NE(text.find(pgn.string() + ": pgn"), std::string::npos) << text;
}
