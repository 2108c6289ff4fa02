// GTP: the engine (`evalforge gtp`) answering through string streams, the client running
// engines as child processes (our own binary, and fake engines written as shell scripts that
// hang, die or cheat), and whole external matches with forfeits and restarts.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cerrno>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>
#include "evalforge/core/error.hpp"
#include "evalforge/core/rng.hpp"
#include "evalforge/engine/alphabeta.hpp"
#include "evalforge/games/othello/game.hpp"
#include "evalforge/games/othello/squares.hpp"
#include "evalforge/games/othello/swh.hpp"
#include "games/othello/external_match.hpp"
#include "games/othello/gtp_engine.hpp"
#include "gtp/client.hpp"
#include "test_support.hpp"

using namespace ef;
using namespace ef::play;
namespace fs = std::filesystem;

namespace {

constexpr int kTableBits = 12;  // small tables: the tests play 1-ply agents

// The full response to one line ("" for lines GTP ignores).
std::string ask(GtpEngine& engine, const std::string& line) {
  bool quit = false;
  return engine.handle_line(line, quit);
}

// No child of this process is left, running or zombie.
bool no_children() { return ::waitpid(-1, nullptr, WNOHANG) == -1 && errno == ECHILD; }

// A random game (squares, -1 = pass) from the start that contains a forced pass before its end.
std::vector<int> random_game_with_pass() {
  for (u32 game = 0; game < 10000; ++game) {
    Rng rng(77, Purpose::kGame, game);
    othello::Position s;
    std::vector<int> moves;
    bool passed = false;
    while (!s.board.game_over()) {
      const u64 legal = games::Othello::moves(s);
      if (!legal) {
        passed = true;
        moves.push_back(search::kPassMove);
        s = games::Othello::pass(s);
        continue;
      }
      const int sq = rng.random_bit(legal);
      moves.push_back(sq);
      s = games::Othello::play(s, sq);
    }
    if (passed) return moves;
  }
  ADD_FAILURE() << "no random game with a pass found";
  return {};
}

// Replays `moves` under games/othello/bitboard.hpp's rules; fails the test on an illegal one.
othello::Position replay(const std::vector<int>& moves) {
  othello::Position s;
  for (std::size_t i = 0; i < moves.size(); ++i) {
    const u64 legal = games::Othello::moves(s);
    if (moves[i] == search::kPassMove) {
      EXPECT_EQ(legal, 0u) << "pass with legal moves at ply " << i + 1;
      EXPECT_FALSE(s.board.game_over()) << "move after the end at ply " << i + 1;
      s = games::Othello::pass(s);
    } else {
      EXPECT_TRUE(moves[i] >= 0 && moves[i] < 64 && (legal >> moves[i] & 1)) << "illegal move at ply " << i + 1;
      if (moves[i] < 0 || moves[i] > 63) return s;
      s = games::Othello::play(s, moves[i]);
    }
  }
  return s;
}

std::string score_text(int black_score) {
  if (black_score == 0) return "0";
  return fmt::format("{}+{}", black_score > 0 ? 'B' : 'W', std::abs(black_score));
}

// ---- The engine ---------------------------------------------------------------------------

TEST(GtpEngine, ProtocolRoundTripThroughStreams) {
  GtpEngine engine(swh_agent(), 1, kTableBits);
  std::istringstream in(
      "protocol_version\n"
      "5 name\n"
      "# a comment line\n"
      "\n"
      "   \t \n"
      "known_command genmove   # trailing comment\n"
      "known_command fly\n"
      "12 list_commands\r\n"
      "boardsize 8\n"
      "3 quit\n"
      "name\n");  // after quit: never read
  std::ostringstream out;
  EXPECT_EQ(engine.run(in, out), 0);
  const std::string text = out.str();
  EXPECT_EQ(text.substr(0, 30), "= 2\n\n=5 evalforge\n\n= true\n\n= f");
  EXPECT_NE(text.find("= false\n\n"), std::string::npos);
  EXPECT_NE(text.find("=12 protocol_version\nname\nversion\n"), std::string::npos);
  for (const char* command : {"boardsize", "clear_board", "komi", "play", "genmove", "undo", "showboard", "final_score",
                              "quit", "known_command"})
    EXPECT_NE(text.find(fmt::format("\n{}\n", command)), std::string::npos) << command;
  EXPECT_TRUE(text.ends_with("=3 \n\n")) << text;
  // Each response ends with exactly one blank line: 7 responses.
  std::size_t responses = 0;
  for (std::size_t at = 0; (at = text.find("\n\n", at)) != std::string::npos; at += 2) ++responses;
  EXPECT_EQ(responses, 7u);
  // End of input without quit also ends the loop.
  std::istringstream eof("name\n");
  std::ostringstream out2;
  EXPECT_EQ(engine.run(eof, out2), 0);
  EXPECT_EQ(out2.str(), "= evalforge\n\n");
}

TEST(GtpEngine, BoardsizeOnlyEight) {
  GtpEngine engine(swh_agent(), 1, kTableBits);
  EXPECT_EQ(ask(engine, "play b d3"), "= \n\n");
  EXPECT_EQ(ask(engine, "boardsize 19"), "? unacceptable size\n\n");
  EXPECT_EQ(ask(engine, "4 boardsize 9"), "?4 unacceptable size\n\n");
  EXPECT_EQ(engine.position().board.discs(), 5);  // a refused size leaves the game alone
  EXPECT_EQ(ask(engine, "boardsize eight").substr(0, 14), "? syntax error");
  EXPECT_EQ(ask(engine, "boardsize").substr(0, 14), "? syntax error");
  EXPECT_EQ(ask(engine, "boardsize 8"), "= \n\n");
  EXPECT_EQ(engine.position().board, othello::Board{});
  EXPECT_EQ(ask(engine, "komi 6.5"), "= \n\n");
  EXPECT_EQ(ask(engine, "komi lots").substr(0, 14), "? syntax error");
}

TEST(GtpEngine, PlayChecksLegalityAndLeavesTheBoardOnRefusal) {
  GtpEngine engine(swh_agent(), 1, kTableBits);
  const othello::Board start;
  EXPECT_EQ(ask(engine, "play black a1").substr(0, 14), "? illegal move");
  EXPECT_EQ(ask(engine, "play b pass").substr(0, 14), "? illegal move");  // black has moves
  EXPECT_EQ(ask(engine, "play b d4").substr(0, 14), "? illegal move");    // occupied
  EXPECT_EQ(engine.position().board, start);
  EXPECT_EQ(ask(engine, "1 play B D3"), "=1 \n\n");  // case-insensitive colour and vertex
  othello::Board expected = start;
  ASSERT_TRUE(expected.play(19));  // d3 = square 19: a1 = 0, row 3 starts at 16
  EXPECT_EQ(engine.position().board, expected);
  // Out of turn is allowed: black again (white is to move) sets black to move first.
  const othello::Board before = engine.position().board;
  EXPECT_EQ(ask(engine, "play b b3").substr(0, 14), "? illegal move");
  EXPECT_EQ(engine.position().board, before);  // still white to move
  EXPECT_EQ(ask(engine, "play w c3"), "= \n\n");
  expected.play(18);
  EXPECT_EQ(engine.position().board, expected);
  othello::Board out_of_turn = expected;  // black to move; white plays again
  out_of_turn.pass();
  const int white_move = ctz64(out_of_turn.moves());
  EXPECT_EQ(ask(engine, fmt::format("play white {}", square_name(white_move))), "= \n\n");
  ASSERT_TRUE(out_of_turn.play(white_move));
  EXPECT_EQ(engine.position().board, out_of_turn);
  EXPECT_EQ(engine.position().board.side, othello::kBlack);
}

TEST(GtpEngine, MalformedCommandsAreAnsweredNotFatal) {
  GtpEngine engine(random_agent(), 1, kTableBits);
  const othello::Board start;
  for (const char* line : {"play", "play x z9", "play b z9", "play b d", "play b d3 d6", "genmove purple", "genmove",
                           "genmove b w", "undo now", "known_command", "fly me to the moon", "PROTOCOL_VERSION"}) {
    const std::string r = ask(engine, line);
    EXPECT_EQ(r.substr(0, 2), "? ") << line << " -> " << r;
    EXPECT_TRUE(r.ends_with("\n\n")) << line;
    EXPECT_EQ(r.find("\n\n"), r.size() - 2) << line;
    EXPECT_EQ(engine.position().board, start) << line;
  }
  EXPECT_NE(ask(engine, "play x z9").find("color"), std::string::npos);
  EXPECT_NE(ask(engine, "play b z9").find("vertex"), std::string::npos);
  EXPECT_EQ(ask(engine, "fly").substr(0, 17), "? unknown command");
  EXPECT_EQ(ask(engine, "9 fly"), "?9 unknown command: fly\n\n");
  EXPECT_EQ(ask(engine, "42").substr(0, 4), "?42 ");  // an id and nothing else
  // Control characters are dropped, binary junk answered like any unknown command.
  EXPECT_EQ(ask(engine, std::string("\x01\x02\x7f\xff\xfe junk", 9)).substr(0, 17), "? unknown command");
  EXPECT_EQ(ask(engine, std::string(100000, 'x')).substr(0, 17), "? unknown command");
  EXPECT_EQ(ask(engine, "   "), "");
  EXPECT_EQ(ask(engine, "# only a comment"), "");
  EXPECT_EQ(engine.position().board, start);
}

TEST(GtpEngine, GenmovePlaysLegalMovesDeterministicallyPerSeed) {
  const auto play_out = [](u64 seed) {
    GtpEngine engine(random_agent(), seed, kTableBits);
    std::vector<int> moves;
    for (int ply = 0; ply < 130 && !engine.position().board.game_over(); ++ply) {
      const othello::Position before = engine.position();
      const char* color = before.board.side == othello::kBlack ? "b" : "w";
      const std::string r = ask(engine, fmt::format("genmove {}", color));
      EXPECT_EQ(r.substr(0, 2), "= ");
      const int move = parse_gtp_vertex(r.substr(2, r.size() - 4));
      EXPECT_NE(move, search::kNoMove) << r;
      moves.push_back(move);
      // The answer is what the engine recorded, and it was legal.
      const u64 legal = games::Othello::moves(before);
      if (move == search::kPassMove) {
        EXPECT_EQ(legal, 0u);
      } else {
        EXPECT_TRUE(legal >> move & 1) << r;
        EXPECT_EQ(engine.position().board, games::Othello::play(before, move).board);
      }
    }
    EXPECT_TRUE(engine.position().board.game_over());
    EXPECT_EQ(replay(moves).board, engine.position().board);
    return moves;
  };
  const std::vector<int> a = play_out(5), b = play_out(5), c = play_out(6);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
}

// Fixed depth (no time control) is a pure function of the position: a depth-4 swh engine (its
// midgame search uses the table, pvs.hpp) answers what plain alpha-beta to depth 4 answers.
TEST(GtpEngine, FixedDepthEngineAnswersTheFixedDepthSearch) {
  GtpEngine engine(swh_agent({4, -1}), 1, kTableBits);
  for (int ply = 0; ply < 60 && !engine.position().board.game_over(); ++ply) {
    const othello::Position before = engine.position();
    const std::string r = ask(engine, before.board.side == othello::kBlack ? "genmove b" : "genmove w");
    ASSERT_EQ(r.substr(0, 2), "= ") << r;
    const int move = parse_gtp_vertex(r.substr(2, r.size() - 4));
    if (!games::Othello::moves(before)) continue;
    if (popcount64(games::Othello::moves(before)) == 1) continue;  // answered without a search
    EXPECT_EQ(move, search::alphabeta<games::Othello>(before, 4, swh::Evaluator{}).best_move) << ply;
    EXPECT_EQ(engine.last_depth(), 4);
  }
}

// With a time limit the engine deepens until it is spent and still answers legal moves; the
// first iteration always completes, so even a tiny budget gives a searched move. (The depth a
// budget reaches depends on the machine, so only its bounds are checked.)
TEST(GtpEngine, TimeControlsDeepenAndKeepMovesLegal) {
  for (const TimeControl time : {TimeControl{0.002, 0}, TimeControl{0, 0.05}}) {
    GtpEngine engine(swh_agent({1, 8}), 3, kTableBits, time);
    while (!engine.position().board.game_over()) {
      const othello::Position before = engine.position();
      const std::string r = ask(engine, before.board.side == othello::kBlack ? "genmove b" : "genmove w");
      ASSERT_EQ(r.substr(0, 2), "= ") << r;
      const int move = parse_gtp_vertex(r.substr(2, r.size() - 4));
      const u64 legal = games::Othello::moves(before);
      if (move == search::kPassMove) {
        EXPECT_EQ(legal, 0u);
        continue;
      }
      ASSERT_TRUE(legal >> move & 1) << r;
      if (popcount64(legal) > 1 && before.board.empties() > 8) {
        EXPECT_GE(engine.last_depth(), 1);
        EXPECT_LE(engine.last_depth(), kTimedMaxDepth);
      }
    }
  }
}

// A generous budget deepens past the first iterations (a few hundred nodes at 1-3 plies take
// microseconds, the budget 0.3 s).
TEST(GtpEngine, TimedEngineDeepens) {
  GtpEngine engine(swh_agent({1, -1}), 1, kTableBits, TimeControl{0.3, 0});
  EXPECT_EQ(ask(engine, "genmove b").substr(0, 2), "= ");
  EXPECT_GE(engine.last_depth(), 3);
}

TEST(GtpEngine, TimeSettingsAndTimeLeft) {
  GtpEngine engine(swh_agent({2, -1}), 1, kTableBits);
  EXPECT_EQ(ask(engine, "time_settings 30 0 0"), "= \n\n");
  EXPECT_EQ(ask(engine, "time_left b 12.5 0"), "= \n\n");
  EXPECT_EQ(ask(engine, "time_settings 0 1 10"), "= \n\n");  // byo-yomi only: 0.1 s a move
  EXPECT_EQ(ask(engine, "genmove b").substr(0, 2), "= ");
  EXPECT_EQ(ask(engine, "time_settings 0 0 0"), "= \n\n");  // no limit: fixed depth again
  EXPECT_EQ(ask(engine, "genmove w").substr(0, 2), "= ");
  EXPECT_EQ(engine.last_depth(), 2);
  for (const char* bad : {"time_settings 30", "time_settings a 0 0", "time_settings -1 0 0", "time_left x 3 0",
                          "time_left b", "time_left b 1x 0", "time_settings 0 1 1e-300", "time_left b 5 0.5"})
    EXPECT_EQ(ask(engine, bad).substr(0, 2), "? ") << bad;
  EXPECT_NE(ask(engine, "list_commands").find("time_left"), std::string::npos);
}

TEST(GtpEngine, PassesUndoShowboardAndFinalScore) {
  const std::vector<int> game = random_game_with_pass();
  ASSERT_FALSE(game.empty());
  GtpEngine engine(swh_agent(), 1, kTableBits);
  othello::Position s;
  std::vector<othello::Position> seen{s};
  bool checked_pass = false;
  for (const int move : game) {
    const char* color = s.board.side == othello::kBlack ? "b" : "w";
    if (move == search::kPassMove) {
      // genmove for a side that must pass answers pass (and records it); undo takes it back.
      EXPECT_EQ(ask(engine, fmt::format("genmove {}", color)), "= pass\n\n");
      EXPECT_EQ(engine.position().board, games::Othello::pass(s).board);
      EXPECT_EQ(ask(engine, "undo"), "= \n\n");
      EXPECT_EQ(engine.position().board, s.board);
      checked_pass = true;
    } else if (games::Othello::moves(s) && !checked_pass) {
      EXPECT_EQ(ask(engine, fmt::format("play {} pass", color)).substr(0, 14), "? illegal move");
    }
    EXPECT_EQ(ask(engine, fmt::format("play {} {}", color, gtp_vertex(move))), "= \n\n") << gtp_vertex(move);
    s = move == search::kPassMove ? games::Othello::pass(s) : games::Othello::play(s, move);
    EXPECT_EQ(engine.position().board, s.board);
    seen.push_back(s);
  }
  EXPECT_TRUE(checked_pass);
  ASSERT_TRUE(s.board.game_over());
  const int score = s.board.disc_diff_empties_to_winner();
  EXPECT_EQ(ask(engine, "final_score"), fmt::format("= {}\n\n", score_text(score)));
  // After the end both colours can only pass.
  EXPECT_EQ(ask(engine, "genmove b"), "= pass\n\n");
  EXPECT_EQ(ask(engine, "genmove w"), "= pass\n\n");
  EXPECT_EQ(ask(engine, "undo"), "= \n\n");
  EXPECT_EQ(ask(engine, "undo"), "= \n\n");

  // showboard draws the board: rank 8 on top, X black, O white.
  const std::string board = ask(engine, "showboard");
  ASSERT_EQ(board.substr(0, 3), "= \n");
  EXPECT_EQ(board.find("\n\n"), board.size() - 2);
  std::istringstream lines(board.substr(3));
  std::string line;
  std::getline(lines, line);
  EXPECT_EQ(line, "   A B C D E F G H");
  for (int row = 7; row >= 0; --row) {
    ASSERT_TRUE(std::getline(lines, line));
    std::string want = fmt::format(" {}", row + 1);
    for (int col = 0; col < 8; ++col) {
      const int sq = 8 * row + col;
      want += (s.board.black() >> sq & 1) ? " X" : (s.board.white() >> sq & 1) ? " O" : " .";
    }
    EXPECT_EQ(line, want + fmt::format(" {}", row + 1));
  }
  EXPECT_NE(board.find("game over"), std::string::npos);

  // Undo all the way back to the start, each step restoring the position before it.
  for (std::size_t i = seen.size() - 1; i-- > 0;) {
    ASSERT_EQ(ask(engine, "undo"), "= \n\n");
    EXPECT_EQ(engine.position().board, seen[i].board) << i;
  }
  EXPECT_EQ(ask(engine, "undo"), "? cannot undo\n\n");
  EXPECT_EQ(ask(engine, "final_score"), "= 0\n\n");
  EXPECT_EQ(ask(engine, "play b d3"), "= \n\n");
  EXPECT_EQ(ask(engine, "clear_board"), "= \n\n");
  EXPECT_EQ(engine.position().board, othello::Board{});
  EXPECT_EQ(ask(engine, "undo"), "? cannot undo\n\n");
}

// ---- Child processes ----------------------------------------------------------------------

class GtpProcess : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / fmt::format("evalforge_gtp_test_{}", ::getpid());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  static std::string evalforge_gtp(const std::string& agent, u64 seed = 1) {
    return fmt::format("'{}' gtp --agent {} --seed {} --table-bits 12", EF_EVALFORGE_BIN, agent, seed);
  }
  // A fake engine: answers "= " to everything, `genmove` with `on_genmove` (shell code). It
  // skips the command's id (the client sends one) and answers without echoing it, as some
  // engines do; `$id` holds it for answers that want it.
  std::string fake_engine(const std::string& name, const std::string& on_genmove, const std::string& prologue = "",
                          const std::string& on_play = "printf '= \\n\\n'") {
    const fs::path p = dir_ / name;
    std::ofstream(p) << "#!/bin/sh\n"
                     << prologue
                     << "while IFS= read -r line; do\n"
                        "  set -- $line\n"
                        "  id=\n"
                        "  case \"$1\" in [0-9]*) id=$1; shift ;; esac\n"
                        "  case \"$1\" in\n"
                        "    play) "
                     << on_play
                     << " ;;\n"
                        "    genmove) "
                     << on_genmove
                     << " ;;\n"
                        "    quit) printf '= \\n\\n'; exit 0 ;;\n"
                        "    *) printf '= \\n\\n' ;;\n"
                        "  esac\n"
                        "done\n";
    fs::permissions(p, fs::perms::owner_all);
    return fmt::format("'{}'", p.string());
  }
  // evalforge gtp (random moves, seed 5) behind a filter that answers our `play C pass` with the
  // shell code `on_pass` instead of passing it on (every other command goes through): engines
  // that treat passes their own way.
  std::string pass_filtered_gtp(const std::string& name, const std::string& on_pass) {
    const fs::path p = dir_ / name;
    std::ofstream(p) << "#!/bin/sh\n"
                        "d=$(mktemp -d); mkfifo \"$d/in\" \"$d/out\"\n"
                     << evalforge_gtp("random", 5)
                     << " < \"$d/in\" > \"$d/out\" &\n"
                        "exec 3>\"$d/in\" 4<\"$d/out\"\n"
                        "rm -r \"$d\"\n"
                        "while IFS= read -r line; do\n"
                        "  case \"$line\" in\n"
                        "    *play*pass*) "
                     << on_pass
                     << " ;;\n"
                        "    *) printf '%s\\n' \"$line\" >&3\n"
                        "       while IFS= read -r r <&4; do printf '%s\\n' \"$r\"; [ -z \"$r\" ] && break; done\n"
                        "       case \"$line\" in *quit*) exit 0 ;; esac ;;\n"
                        "  esac\n"
                        "done\n";
    fs::permissions(p, fs::perms::owner_all);
    return fmt::format("'{}'", p.string());
  }
  static ExternalMatchOptions options(const std::string& command, int games) {
    ExternalMatchOptions o;
    o.command = command;
    o.games = games;
    o.move_timeout_s = 5;
    o.startup_timeout_s = 5;
    return o;
  }

  fs::path dir_;
};

TEST_F(GtpProcess, ClientTalksToEvalforgeGtp) {
  {
    GtpClient client(evalforge_gtp("swh"));
    client.start();
    ASSERT_TRUE(client.running());
    GtpResponse r = client.send("protocol_version", 5);
    EXPECT_EQ(r.status, GtpResponse::Status::kOk);
    EXPECT_EQ(r.text, "2");
    r = client.send("boardsize 9", 5);
    EXPECT_EQ(r.status, GtpResponse::Status::kFailure);
    EXPECT_EQ(r.text, "unacceptable size");
    r = client.send("list_commands", 5);
    EXPECT_TRUE(r.ok());
    EXPECT_NE(r.text.find("\ngenmove\n"), std::string::npos);
    r = client.send("genmove b", 5);
    ASSERT_TRUE(r.ok());
    const int move = parse_gtp_vertex(r.text);
    EXPECT_TRUE(games::Othello::moves(othello::Position{}) >> move & 1) << r.text;
    r = client.send("showboard", 5);
    EXPECT_TRUE(r.ok());
    EXPECT_NE(r.text.find(" 8 . . . . . . . . 8"), std::string::npos) << r.text;
    client.stop();
    EXPECT_FALSE(client.running());
    EXPECT_EQ(client.send("name", 5).status, GtpResponse::Status::kDied);
    client.restart();
    EXPECT_EQ(client.send("name", 5).text, "evalforge");
  }  // the destructor stops and reaps it
  EXPECT_TRUE(no_children());
}

// An engine that answers `play` twice (both answers carrying the command's id): the second
// answer must not be taken for the next command's. Before ids were sent and matched, `name`
// got "played" back and every later answer was one command late.
TEST_F(GtpProcess, ClientSkipsADoubleAnswerByItsId) {
  {
    GtpClient client(
        fake_engine("twice.sh", "printf \"=$id e6\\n\\n\"", "", "printf \"=$id played\\n\\n=$id played\\n\\n\""));
    client.start();
    EXPECT_EQ(client.send("play b d3", 5).text, "played");
    const GtpResponse r = client.send("genmove w", 5);
    EXPECT_TRUE(r.ok());
    EXPECT_EQ(r.text, "e6");
    EXPECT_EQ(client.stale_responses(), 1u);
    EXPECT_EQ(client.send("play b c4", 5).text, "played");
    EXPECT_EQ(client.send("name", 5).text, "");  // the fake answers "= " without an id: accepted
    EXPECT_EQ(client.stale_responses(), 2u);
  }
  EXPECT_TRUE(no_children());
}

TEST_F(GtpProcess, EvalforgeGtpRejectsABadAgent) {
  GtpClient client(evalforge_gtp((dir_ / "absent.toml").string()));
  client.start();
  const GtpResponse r = client.send("name", 5);
  EXPECT_EQ(r.status, GtpResponse::Status::kDied);
  EXPECT_NE(r.text.find("exited with status 2"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("absent.toml: no such agent file"), std::string::npos) << r.text;
  EXPECT_TRUE(no_children());
}

TEST_F(GtpProcess, ExternalMatchAgainstEvalforgeGtpIsLegal) {
  ExternalMatchOptions o = options(evalforge_gtp("random", 3), 4);
  o.openings = {{}, {19, 18}};  // start position; d3 c3
  std::ostringstream log;
  const std::vector<ExternalGame> games = play_external_match(swh_agent(), o, &log);
  ASSERT_EQ(games.size(), 4u);
  for (std::size_t g = 0; g < games.size(); ++g) {
    const ExternalGame& game = games[g];
    EXPECT_TRUE(game.completed) << game.error;
    EXPECT_EQ(game.error, "");
    EXPECT_EQ(game.agent_black, g % 2 == 0);
    const othello::Position end = replay(game.moves);
    EXPECT_TRUE(end.board.game_over()) << g;
    EXPECT_EQ(game.black_score, end.board.disc_diff_empties_to_winner()) << g;
    if (g >= 2) {
      EXPECT_EQ(std::vector<int>(game.moves.begin(), game.moves.begin() + 2), (std::vector<int>{19, 18}));
    }
  }
  EXPECT_EQ(log.str().find("restarting"), std::string::npos) << log.str();
  EXPECT_NE(log.str().find("game 4/4: swh plays white"), std::string::npos) << log.str();
  EXPECT_TRUE(no_children());
  // The same seeds replay the same match.
  const std::vector<ExternalGame> again = play_external_match(swh_agent(), o, nullptr);
  for (std::size_t g = 0; g < games.size(); ++g) EXPECT_EQ(again[g].moves, games[g].moves);
}

// GRhino's gtp-rhino refuses every `play C pass` ("? syntax error") and passes on its own. An
// engine like it (here: evalforge gtp behind a filter that refuses passes; its genmove names the
// colour, so it stays in step) finishes every game, and the refusals are in the log. Our side
// plays at random, so it has to pass in some of these games (checked, so the test cannot pass
// without exercising a refusal).
TEST_F(GtpProcess, AnEngineThatRefusesPassesStillFinishesItsGames) {
  const std::string engine = pass_filtered_gtp("no-passes.sh", "set -- $line; printf '?%s syntax error\\n\\n' \"$1\"");
  ExternalMatchOptions o = options(engine, 24);
  std::ostringstream log;
  const std::vector<ExternalGame> games = play_external_match(random_agent(), o, &log);
  ASSERT_EQ(games.size(), 24u);
  int agent_passes = 0, refused = 0;
  for (std::size_t g = 0; g < games.size(); ++g) {
    const ExternalGame& game = games[g];
    EXPECT_TRUE(game.completed) << g << ": " << game.error;
    const othello::Position end = replay(game.moves);
    EXPECT_TRUE(end.board.game_over()) << g;
    EXPECT_EQ(game.black_score, end.board.disc_diff_empties_to_winner()) << g;
    // Our passes: replayed, a pass by the side our agent plays.
    othello::Position s;
    for (const int m : game.moves) {
      if (m == search::kPassMove && (s.board.side == othello::kBlack) == game.agent_black) ++agent_passes;
      s = m == search::kPassMove ? games::Othello::pass(s) : games::Othello::play(s, m);
    }
    refused += game.refused_passes;
  }
  ASSERT_GT(agent_passes, 0) << "no game made our side pass: the test would not exercise a refusal";
  EXPECT_EQ(refused, agent_passes);  // the filter refuses every one of our passes, and each is counted
  EXPECT_NE(log.str().find("the engine refused 'play"), std::string::npos) << log.str();
  EXPECT_EQ(log.str().find("restarting"), std::string::npos) << log.str();
  EXPECT_TRUE(no_children());
}

// Only a refusal is forgiven: an engine that hangs on our pass still forfeits that game.
TEST_F(GtpProcess, AnEngineThatHangsOnOurPassForfeits) {
  const std::string engine = pass_filtered_gtp("hangs-on-passes.sh", "sleep 1000");
  ExternalMatchOptions o = options(engine, 24);
  o.move_timeout_s = 0.5;
  o.max_restarts = 24;
  std::vector<ExternalGame> games;
  play_external_match(random_agent(), o, games, nullptr);
  ASSERT_EQ(games.size(), 24u);
  int hung = 0;
  for (const ExternalGame& game : games) {
    if (game.completed) continue;
    EXPECT_NE(game.error.find("timed out"), std::string::npos) << game.error;
    EXPECT_NE(game.error.find("pass"), std::string::npos) << game.error;
    EXPECT_EQ(game.refused_passes, 0);
    ++hung;
  }
  // The same games as the refusing engine's test: some make our side pass.
  EXPECT_GT(hung, 0);
  EXPECT_TRUE(no_children());
}

TEST_F(GtpProcess, HangingEngineTimesOutAndIsKilledWithItsChildren) {
  const std::string engine = fake_engine("sleeper.sh", "sleep 1000");
  {
    GtpClient client(engine);
    client.start();
    EXPECT_TRUE(client.send("boardsize 8", 5).ok());
    const pid_t group = client.pid();
    const auto t0 = std::chrono::steady_clock::now();
    const GtpResponse r = client.send("genmove b", 0.3);
    const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_EQ(r.status, GtpResponse::Status::kTimeout);
    EXPECT_NE(r.text.find("timed out after 0.3 s"), std::string::npos) << r.text;
    EXPECT_GE(waited, 0.29);
    EXPECT_LT(waited, 2.0);
    EXPECT_FALSE(client.running());
    // The shell, the script it runs and the script's `sleep` are all gone, zombies included.
    errno = 0;
    EXPECT_EQ(::kill(-group, 0), -1);
    EXPECT_EQ(errno, ESRCH);
    EXPECT_TRUE(no_children());
  }

  ExternalMatchOptions o = options(engine, 2);
  o.move_timeout_s = 0.5;
  std::ostringstream log;
  const std::vector<ExternalGame> games = play_external_match(swh_agent(), o, &log);
  ASSERT_EQ(games.size(), 2u);
  // Game 1: the agent (black) moves, the engine hangs on ply 2; game 2: it hangs on ply 1.
  EXPECT_FALSE(games[0].completed);
  EXPECT_EQ(games[0].error, "engine timed out after 0.5 s on 'genmove w' at ply 2");
  EXPECT_EQ(games[0].moves.size(), 1u);
  EXPECT_EQ(games[0].black_score, 64);  // a forfeit: a whole-board win for the agent
  EXPECT_EQ(games[1].error, "engine timed out after 0.5 s on 'genmove b' at ply 1");
  EXPECT_EQ(games[1].black_score, -64);
  EXPECT_EQ(games[1].agent_score(), 64);
  EXPECT_NE(log.str().find("restarting engine (1 of at most 3)"), std::string::npos) << log.str();
  EXPECT_TRUE(no_children());
}

TEST_F(GtpProcess, DyingEngineIsRestartedUpToTheLimit) {
  const std::string engine = fake_engine("dier.sh", "echo 'fake engine: out of memory' >&2; exit 3");
  ExternalMatchOptions o = options(engine, 3);
  std::ostringstream log;
  const std::vector<ExternalGame> games = play_external_match(swh_agent(), o, &log);
  ASSERT_EQ(games.size(), 3u);
  for (const ExternalGame& game : games) {
    EXPECT_FALSE(game.completed);
    EXPECT_NE(game.error.find("engine died"), std::string::npos) << game.error;
    EXPECT_NE(game.error.find("exited with status 3"), std::string::npos) << game.error;
    EXPECT_NE(game.error.find("fake engine: out of memory"), std::string::npos) << game.error;
    EXPECT_EQ(game.agent_score(), 64);
  }
  EXPECT_NE(log.str().find("restarting engine (2 of at most 3)"), std::string::npos) << log.str();
  EXPECT_TRUE(no_children());

  o.max_restarts = 1;  // game 3 would need a second restart
  std::vector<ExternalGame> played;
  try {
    play_external_match(swh_agent(), o, played, nullptr);
    ADD_FAILURE() << "no error after too many restarts";
  } catch (const ef::Error& e) {
    EXPECT_NE(std::string(e.what()).find("failed again after 1 restarts"), std::string::npos) << e.what();
  }
  EXPECT_EQ(played.size(), 2u);  // the games before the error are kept
  EXPECT_TRUE(no_children());

  // The command writes their transcript before it reports the error (it used to write none).
  const fs::path out = dir_ / "partial.txt";
  const auto [status, output] = test::run_command(
      fmt::format("'{}' match --agent swh --opponent-cmd \"{}\" --games 3 --max-restarts 1 --out '{}' 2>&1",
                  EF_EVALFORGE_BIN, engine, out.string()));
  EXPECT_NE(status, 0) << output;
  EXPECT_NE(output.find("failed again after 1 restarts"), std::string::npos) << output;
  const std::string transcript = test::file_bytes(out);
  EXPECT_EQ(std::count(transcript.begin(), transcript.end(), '\n'), 2) << transcript;
  EXPECT_NE(transcript.find("forfeit: engine died"), std::string::npos) << transcript;
  EXPECT_TRUE(no_children());
}

TEST_F(GtpProcess, EngineThatRecoversAfterARestartCompletesLaterGames) {
  // Dies at its first genmove, once; every later start is a real engine.
  const fs::path marker = dir_ / "died-once";
  const std::string engine =
      fake_engine("flaky.sh", fmt::format("touch '{}'; exit 1", marker.string()),
                  fmt::format("[ -e '{}' ] && exec {}\n", marker.string(), evalforge_gtp("random")));
  std::ostringstream log;
  const std::vector<ExternalGame> games = play_external_match(swh_agent(), options(engine, 3), &log);
  ASSERT_EQ(games.size(), 3u);
  EXPECT_FALSE(games[0].completed);
  EXPECT_NE(games[0].error.find("engine died"), std::string::npos) << games[0].error;
  for (int g = 1; g < 3; ++g) {
    EXPECT_TRUE(games[g].completed) << games[g].error;
    EXPECT_TRUE(replay(games[g].moves).board.game_over());
  }
  EXPECT_NE(log.str().find("restarting engine (1 of at most 3)"), std::string::npos) << log.str();
  EXPECT_TRUE(no_children());
}

TEST_F(GtpProcess, IllegalOrGarbledEngineMovesAreForfeits) {
  // a1 is never legal at the start; j9 is not a square; an empty answer is no move at all.
  struct Case {
    const char* answer;
    const char* error;
  } cases[] = {
      {"printf '= a1\\n\\n'", "engine played illegal move a1 at ply 1 (not a legal move for black)"},
      {"printf '= J9\\n\\n'", "engine played illegal move j9 at ply 1 (not an a1..h8 vertex)"},
      {"printf '= pass\\n\\n'", "engine played illegal move pass at ply 1 (a pass, but black has a legal move)"},
      {"printf '= resign\\n\\n'", "engine resigned at ply 1"},
      {"printf '? no idea\\n\\n'", "engine refused 'genmove b' at ply 1: no idea"},
      {"printf 'e6\\n\\n'", "engine sent 'e6' instead of a GTP response to 'genmove b' at ply 1"},
  };
  int k = 0;
  for (const Case& c : cases) {
    ExternalMatchOptions o = options(fake_engine(fmt::format("cheat{}.sh", k++), c.answer), 2);
    const std::vector<ExternalGame> games = play_external_match(random_agent(), o, nullptr);
    ASSERT_EQ(games.size(), 2u);
    EXPECT_FALSE(games[0].completed);
    EXPECT_NE(games[0].error, "");  // the engine is white in game 1: its first move is ply 2
    EXPECT_EQ(games[0].moves.size(), 1u);
    EXPECT_FALSE(games[1].completed);
    EXPECT_EQ(games[1].error, c.error);  // the engine is black in game 2, so ply 1 is its move
    EXPECT_EQ(games[1].moves.size(), 0u);
    EXPECT_EQ(games[1].agent_score(), 64);
  }
  EXPECT_TRUE(no_children());
}

TEST_F(GtpProcess, EnginesThatCannotPlayAreErrors) {
  const auto error_of = [&](const std::string& command) -> std::string {
    try {
      play_external_match(swh_agent(), options(command, 2), nullptr);
    } catch (const ef::Error& e) {
      return e.what();
    }
    return "no error";
  };
  std::string e = error_of("exec /nonexistent/engine --gtp");
  EXPECT_NE(e.find("did not start"), std::string::npos) << e;
  EXPECT_NE(e.find("/nonexistent/engine"), std::string::npos) << e;
  e = error_of(fake_engine("go.sh", "true",
                           "read -r line; printf '= 2\\n\\n'; read -r line; printf '? unacceptable size\\n\\n'\n"));
  EXPECT_NE(e.find("cannot play: it answered 'boardsize 8' with '? unacceptable size'"), std::string::npos) << e;
  ExternalMatchOptions bad = options("true", 2);
  bad.openings = {{19, 19}};
  try {
    play_external_match(swh_agent(), bad, nullptr);
    ADD_FAILURE() << "illegal opening accepted";
  } catch (const ef::Error& err) {
    EXPECT_EQ(std::string(err.what()), "external match: opening 1: move 2 (d3) is not legal for white");
  }
  EXPECT_TRUE(no_children());
}

}  // namespace
