// Hex GTP: the engine (`evalforge gtp --game hex`) answering through string streams, the shared
// protocol loop (ids, line cap), and external Hex matches against our own binary and against
// fake engines written as shell scripts that cheat, hang or die.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>
#include "evalforge/core/error.hpp"
#include "evalforge/games/hex/game.hpp"
#include "games/hex/external_match.hpp"
#include "games/hex/gtp_engine.hpp"
#include "games/hex/player_spec.hpp"
#include "games/othello/gtp_engine.hpp"
#include "gtp/protocol.hpp"

using namespace ef;
using namespace ef::play;
namespace fs = std::filesystem;

namespace {

std::string ask(HexGtpEngine& engine, const std::string& line) {
  bool quit = false;
  return engine.handle_line(line, quit);
}

// The text of a successful response ("= text\n\n" -> "text"); fails the test otherwise.
std::string ok_text(HexGtpEngine& engine, const std::string& line) {
  const std::string r = ask(engine, line);
  EXPECT_TRUE(r.starts_with("= ") && r.ends_with("\n\n")) << line << " -> " << r;
  return r.size() >= 4 ? r.substr(2, r.size() - 4) : r;
}

bool refused(HexGtpEngine& engine, const std::string& line, const std::string& words) {
  const std::string r = ask(engine, line);
  const bool ok = r.starts_with("? ") && r.ends_with("\n\n") && r.find(words) != std::string::npos;
  if (!ok) ADD_FAILURE() << line << " -> " << r << " (expected a '?' answer with '" << words << "')";
  return ok;
}

HexGtpEngine random_engine(int size = 5, bool swap = false, u64 seed = 1) {
  return HexGtpEngine(parse_hex_player("random"), size, swap, seed);
}

int cell(const char* name, int n = 5) { return parse_hex_cell(name, n); }

bool no_children() { return ::waitpid(-1, nullptr, WNOHANG) == -1 && errno == ECHILD; }

// ---- The engine ---------------------------------------------------------------------------

TEST(HexGtpEngine, ProtocolCommandsAndIds) {
  HexGtpEngine engine = random_engine(11);
  EXPECT_EQ(ask(engine, "protocol_version"), "= 2\n\n");
  EXPECT_EQ(ask(engine, "5 name"), "=5 evalforge\n\n");
  EXPECT_NE(ask(engine, "version").find("hex player random"), std::string::npos);
  EXPECT_EQ(ask(engine, "7 known_command genmove"), "=7 true\n\n");
  EXPECT_EQ(ask(engine, "known_command komi"), "= false\n\n");
  const std::string commands = ok_text(engine, "list_commands");
  for (const char* c :
       {"boardsize", "clear_board", "play", "genmove", "undo", "showboard", "final_score", "param_game", "quit"})
    EXPECT_NE(("\n" + commands + "\n").find(fmt::format("\n{}\n", c)), std::string::npos) << c;
  EXPECT_EQ(ask(engine, "# comment"), "");
  EXPECT_EQ(ask(engine, "   "), "");
  EXPECT_EQ(ask(engine, "12 fly"), "?12 unknown command: 'fly'\n\n");
  EXPECT_EQ(ask(engine, "12"), "?12 missing command after the id\n\n");
  bool quit = false;
  EXPECT_EQ(engine.handle_line("9 quit", quit), "=9 \n\n");
  EXPECT_TRUE(quit);
}

TEST(HexGtpEngine, BoardsizePlayUndoShowboardFinalScore) {
  HexGtpEngine engine = random_engine(11);
  EXPECT_EQ(ask(engine, "boardsize 5"), "= \n\n");
  EXPECT_EQ(engine.size(), 5);
  EXPECT_EQ(ask(engine, "1 boardsize 5 5"), "=1 \n\n");  // benzene's WIDTH HEIGHT form
  EXPECT_EQ(ask(engine, "play b C1"), "= \n\n");         // case-insensitive
  EXPECT_EQ(ask(engine, "play WHITE a1"), "= \n\n");
  EXPECT_TRUE(engine.board().stones[hex::kBlack].has(cell("c1")));
  EXPECT_TRUE(engine.board().stones[hex::kWhite].has(cell("a1")));
  EXPECT_EQ(engine.board().side, hex::kBlack);
  EXPECT_EQ(ok_text(engine, "final_score"), "cannot score");

  const std::string board = ok_text(engine, "showboard");
  EXPECT_NE(board.find("   a b c d e"), std::string::npos) << board;
  EXPECT_NE(board.find("\n 1 W . B . . 1"), std::string::npos) << board;
  EXPECT_NE(board.find("\n  2 . . . . . 2"), std::string::npos) << board;  // each row one place further right
  EXPECT_NE(board.find("\n     5 . . . . . 5"), std::string::npos) << board;
  EXPECT_NE(board.find("2 moves, the last a1; black to move"), std::string::npos) << board;

  EXPECT_EQ(ask(engine, "undo"), "= \n\n");
  EXPECT_FALSE(engine.board().stones[hex::kWhite].any());
  EXPECT_EQ(engine.board().side, hex::kWhite);
  for (const char* line : {"play w a1", "play b c2", "play w a2", "play b c3", "play w a3", "play b c4", "play w a4"})
    EXPECT_EQ(ask(engine, line), "= \n\n") << line;
  EXPECT_EQ(ok_text(engine, "final_score"), "cannot score");
  EXPECT_EQ(ask(engine, "play b c5"), "= \n\n");  // column c: row 1 to row 5
  EXPECT_EQ(ok_text(engine, "final_score"), "B+");
  EXPECT_NE(ok_text(engine, "showboard").find("game over: black has won"), std::string::npos);
  EXPECT_TRUE(refused(engine, "play w b5", "the game is over (black has won)"));
  EXPECT_TRUE(refused(engine, "genmove w", "the game is over"));
  EXPECT_EQ(ask(engine, "undo"), "= \n\n");
  EXPECT_EQ(ok_text(engine, "final_score"), "cannot score");
  EXPECT_EQ(ask(engine, "play w c5"), "= \n\n");  // out of turn: white moves instead
  EXPECT_EQ(ask(engine, "clear_board"), "= \n\n");
  EXPECT_EQ(engine.board(), hex::empty_board(5));
  EXPECT_TRUE(refused(engine, "undo", "cannot undo"));

  // A white win on a 3x3 board: row 2 across, then W+.
  EXPECT_EQ(ask(engine, "boardsize 3"), "= \n\n");
  for (const char* line : {"play b a1", "play w a2", "play b b1", "play w b2", "play b a3", "play w c2"})
    EXPECT_EQ(ask(engine, line), "= \n\n") << line;
  EXPECT_EQ(ok_text(engine, "final_score"), "W+");
}

TEST(HexGtpEngine, GenmovePlaysLegalMovesForEitherColour) {
  for (const char* spec : {"random", "uct:playouts=50", "resistance:depth=1", "ev"}) {
    HexGtpEngine engine(parse_hex_player(spec), 5, false, 3);
    int plies = 0;
    while (!engine.board().terminal()) {
      const hex::Board before = engine.board();
      const std::string move = ok_text(engine, plies % 2 ? "genmove w" : "genmove b");
      const int sq = parse_hex_cell(move, 5);
      ASSERT_TRUE(sq >= 0 && before.legal(sq)) << spec << ": " << move;
      EXPECT_EQ(engine.board(), before.play(sq)) << spec;
      ASSERT_LT(++plies, 26);
    }
    EXPECT_EQ(ok_text(engine, "final_score"), engine.board().winner == hex::kBlack ? "B+" : "W+");
  }
  // genmove for the side not to move: that colour moves.
  HexGtpEngine engine = random_engine();
  const std::string move = ok_text(engine, "genmove w");
  EXPECT_TRUE(engine.board().stones[hex::kWhite].has(parse_hex_cell(move, 5))) << move;
  EXPECT_EQ(engine.board().side, hex::kBlack);
  EXPECT_EQ(ask(engine, "undo"), "= \n\n");
  EXPECT_EQ(engine.board(), hex::empty_board(5));
}

TEST(HexGtpEngine, SwapPieces) {
  HexGtpEngine engine = random_engine(5, true);
  EXPECT_TRUE(refused(engine, "play w swap-pieces", "only White's answer to Black's first move"));  // no first move yet
  EXPECT_EQ(ask(engine, "play b a2"), "= \n\n");
  EXPECT_TRUE(refused(engine, "play b swap-pieces", "only White's answer"));
  EXPECT_NE(ok_text(engine, "all_legal_moves").find("swap-pieces"), std::string::npos);
  EXPECT_EQ(ask(engine, "play w Swap-Pieces"), "= \n\n");
  // benzene's swap: the stone turns white, mirrored in the long diagonal (a2 -> b1); Black moves.
  EXPECT_FALSE(engine.board().stones[hex::kBlack].any());
  EXPECT_TRUE(engine.board().stones[hex::kWhite].has(cell("b1")));
  EXPECT_EQ(engine.board().side, hex::kBlack);
  EXPECT_NE(ok_text(engine, "showboard").find("the last swap-pieces"), std::string::npos);
  EXPECT_TRUE(refused(engine, "play w swap-pieces", "only White's answer"));
  EXPECT_EQ(ask(engine, "undo"), "= \n\n");
  EXPECT_TRUE(engine.board().stones[hex::kBlack].has(cell("a2")));
  EXPECT_EQ(ask(engine, "play w c3"), "= \n\n");
  EXPECT_TRUE(refused(engine, "play w swap-pieces", "only White's answer"));  // too late

  // Out of turn, a first stone that is White's, or Black's first stone answered by Black: no swap.
  EXPECT_EQ(ask(engine, "clear_board"), "= \n\n");
  EXPECT_EQ(ask(engine, "play w c3"), "= \n\n");
  EXPECT_TRUE(refused(engine, "play b swap-pieces", "only White's answer"));
  EXPECT_EQ(ok_text(engine, "all_legal_moves").find("swap"), std::string::npos);
  EXPECT_EQ(ask(engine, "clear_board"), "= \n\n");
  EXPECT_EQ(ask(engine, "play b c3"), "= \n\n");
  for (int k = 0; k < 20; ++k) {  // whatever a random Black draws, never the swap
    const std::string m = ok_text(engine, "genmove b");
    EXPECT_NE(m, "swap-pieces");
    EXPECT_EQ(ask(engine, "undo"), "= \n\n");
  }

  // The rule off: refused; param_game turns it on (benzene's allow_swap).
  HexGtpEngine plain = random_engine(5, false);
  EXPECT_EQ(ask(plain, "play b a2"), "= \n\n");
  EXPECT_TRUE(refused(plain, "play w swap-pieces", "the swap rule is off"));
  EXPECT_EQ(ok_text(plain, "param_game"), "\n[bool] allow_swap 0");
  EXPECT_EQ(ask(plain, "param_game allow_swap 1"), "= \n\n");
  EXPECT_EQ(ask(plain, "play w swap-pieces"), "= \n\n");
  EXPECT_TRUE(refused(plain, "param_game komi 1", "unknown parameter"));
  EXPECT_TRUE(refused(plain, "param_game allow_swap maybe", "syntax error"));

  // genmove answers swap-pieces when the player swaps: a random White on 2x2 after a1 has 4 moves, the swap one of
  // them.
  int swaps = 0;
  for (u64 seed = 1; seed <= 40; ++seed) {
    HexGtpEngine e = random_engine(2, true, seed);
    EXPECT_EQ(ask(e, "play b a1"), "= \n\n");
    const std::string m = ok_text(e, "genmove w");
    if (m == "swap-pieces") {
      ++swaps;
      EXPECT_TRUE(e.board().stones[hex::kWhite].has(parse_hex_cell("a1", 2)));  // a1 mirrors to itself
    }
  }
  EXPECT_GT(swaps, 0);
  EXPECT_LT(swaps, 40);
}

TEST(HexGtpEngine, MalformedCommandsAreAnsweredAndTheEngineGoesOn) {
  HexGtpEngine engine = random_engine();
  EXPECT_EQ(ask(engine, "play b c3"), "= \n\n");
  const hex::Board before = engine.board();
  EXPECT_TRUE(refused(engine, "play red c3", "invalid colour 'red'"));
  EXPECT_TRUE(refused(engine, "genmove e", "invalid colour"));
  EXPECT_TRUE(refused(engine, "play b z99", "invalid cell 'z99' (expected a1..e5 or swap-pieces)"));
  EXPECT_TRUE(refused(engine, "play b a0", "invalid cell 'a0'"));
  EXPECT_TRUE(refused(engine, "play b a6", "invalid cell 'a6'"));  // off the 5x5 board
  EXPECT_TRUE(refused(engine, "play b f1", "invalid cell"));
  EXPECT_TRUE(refused(engine, "play b a01", "invalid cell"));
  EXPECT_TRUE(refused(engine, "play b pass", "invalid cell"));
  EXPECT_TRUE(refused(engine, "play w c3", "(occupied)"));
  EXPECT_TRUE(refused(engine, "play w", "syntax error"));
  EXPECT_TRUE(refused(engine, "play w c4 c5", "syntax error"));
  EXPECT_TRUE(refused(engine, "genmove", "syntax error"));
  EXPECT_TRUE(refused(engine, "undo now", "syntax error"));
  EXPECT_TRUE(refused(engine, "boardsize 14", "unacceptable size"));
  EXPECT_TRUE(refused(engine, "boardsize 0", "unacceptable size"));
  EXPECT_TRUE(refused(engine, "boardsize 99999999999999999999", "unacceptable size"));
  EXPECT_TRUE(refused(engine, "boardsize 5 6", "only square boards"));
  EXPECT_TRUE(refused(engine, "boardsize five", "syntax error"));
  EXPECT_TRUE(refused(engine, "boardsize", "syntax error"));
  EXPECT_TRUE(refused(engine, "boardsize 5 5 5", "syntax error"));
  EXPECT_EQ(engine.board(), before);  // nothing refused changed the game
  EXPECT_EQ(engine.size(), 5);
  // Bad input is echoed by a short prefix only.
  const std::string long_word(5000, 'q');
  const std::string r = ask(engine, "play b " + long_word);
  EXPECT_TRUE(r.starts_with("? syntax error: invalid cell 'qqq"));
  EXPECT_LT(r.size(), 200u);
  EXPECT_LT(ask(engine, long_word).size(), 100u);
  EXPECT_LT(ask(engine, "play " + long_word + " a1").size(), 150u);
  EXPECT_EQ(ask(engine, "play w c4"), "= \n\n");  // and it goes on
  EXPECT_EQ(ask(engine, "genmove b").substr(0, 2), "= ");
}

TEST(HexGtpEngine, SameSeedAndCommandsGiveTheSameMoves) {
  const auto transcript = [](const char* spec, u64 seed) {
    HexGtpEngine engine(parse_hex_player(spec), 7, true, seed);
    std::string moves;
    for (int game = 0; game < 3; ++game) {
      ask(engine, "clear_board");
      ask(engine, "play b d4");
      for (int k = 0; !engine.board().terminal() && k < 60; ++k)
        moves += ok_text(engine, k % 2 ? "genmove b" : "genmove w") + " ";
      moves += "| ";
    }
    return moves;
  };
  for (const char* spec : {"random", "uct:playouts=50"}) {
    const std::string a = transcript(spec, 11);
    EXPECT_EQ(a, transcript(spec, 11)) << spec;
    EXPECT_NE(a, transcript(spec, 12)) << spec;  // the seed matters
  }
}

// ---- The shared protocol loop ---------------------------------------------------------------

TEST(HexGtpProtocol, OverlongLinesAreRefusedAndDroppedByBothEngines) {
  const std::string huge(5 * 1024 * 1024, 'x');  // no engine keeps this
  const std::string input =
      "1 name\n2 play b " + huge + "\n" + huge + "\n3 boardsize 5\n4 name\n" + huge;  // last: no '\n'
  HexGtpEngine hex_engine = random_engine(11);
  std::istringstream in(input);
  std::ostringstream out;
  EXPECT_EQ(hex_engine.run(in, out), 0);
  const std::string tooLong = fmt::format("line too long (over {} bytes), ignored", kGtpMaxLine);
  EXPECT_EQ(out.str(), fmt::format("=1 evalforge\n\n?2 {0}\n\n? {0}\n\n=3 \n\n=4 evalforge\n\n? {0}\n\n", tooLong));
  EXPECT_EQ(hex_engine.size(), 5);

  // The Othello engine answers through the same loop.
  GtpEngine othello(swh_agent(), 1, 12);
  std::istringstream in2("7 name\n8 " + huge + "\n9 protocol_version\n");
  std::ostringstream out2;
  EXPECT_EQ(othello.run(in2, out2), 0);
  EXPECT_EQ(out2.str(), fmt::format("=7 evalforge\n\n?8 {}\n\n=9 2\n\n", tooLong));

  // A line of exactly the cap is a line.
  std::istringstream in3("name" + std::string(kGtpMaxLine - 4, ' ') + "\n");
  std::ostringstream out3;
  hex_engine.run(in3, out3);
  EXPECT_EQ(out3.str(), "= evalforge\n\n");
}

TEST(HexGtpProtocol, QuoteCutsLongText) {
  EXPECT_EQ(gtp_quote("f6"), "'f6'");
  EXPECT_EQ(gtp_quote(std::string(40, 'a')), "'" + std::string(32, 'a') + "...'");
}

// ---- External matches ---------------------------------------------------------------------

// Replays a game's moves under games/hex/game.hpp's rules; returns the final board (fails on an illegal move).
hex::Board replay(const HexExternalGame& g, int n, bool swap) {
  hex::Board b = hex::empty_board(n, swap);
  for (std::size_t i = 0; i < g.moves.size(); ++i) {
    EXPECT_TRUE(b.legal(g.moves[i])) << "illegal move at ply " << i + 1;
    if (!b.legal(g.moves[i])) return b;
    b = b.play(g.moves[i]);
  }
  return b;
}

class HexGtpProcess : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / fmt::format("evalforge_hex_gtp_test_{}", ::getpid());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  static std::string evalforge_hex_gtp(const std::string& spec, const std::string& extra = "") {
    return fmt::format("'{}' gtp --game hex --agent {} {}", EF_EVALFORGE_BIN, spec, extra);
  }
  // A fake engine: answers "= " to everything, `genmove` with `on_genmove` (shell code).
  std::string fake_engine(const std::string& name, const std::string& on_genmove) {
    const fs::path p = dir_ / name;
    std::ofstream(p) << "#!/bin/sh\n"
                        "while IFS= read -r line; do\n"
                        "  set -- $line\n"
                        "  case \"$1\" in [0-9]*) shift ;; esac\n"  // the id the client sends
                        "  case \"$1\" in\n"
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
  static HexExternalOptions options(const std::string& command, int games, int size = 5) {
    HexExternalOptions o;
    o.command = command;
    o.games = games;
    o.size = size;
    o.move_timeout_s = 10;
    o.startup_timeout_s = 10;
    return o;
  }

  fs::path dir_;
};

TEST_F(HexGtpProcess, MatchAgainstEvalforgeGtpCompletesWithLegalGames) {
  for (const bool swap : {false, true}) {
    HexExternalOptions o = options(evalforge_hex_gtp("random", swap ? "--seed 5 --swap" : "--seed 5"), 6);
    o.swap = swap;
    std::vector<HexExternalGame> games;
    std::ostringstream log;
    play_hex_external_match(parse_hex_player("uct:playouts=50"), o, games, &log);
    ASSERT_EQ(games.size(), 6u);
    int wins = 0;
    for (std::size_t g = 0; g < games.size(); ++g) {
      const HexExternalGame& game = games[g];
      EXPECT_TRUE(game.completed) << game.error;
      EXPECT_EQ(game.agent_black, g % 2 == 0);
      const hex::Board end = replay(game, 5, swap);
      EXPECT_TRUE(end.terminal());
      EXPECT_EQ(end.winner, game.winner);
      wins += game.agent_won();
    }
    EXPECT_GE(wins, 4) << log.str();  // UCT beats random on 5x5
    EXPECT_NE(log.str().find("game 6/6: uct:playouts=50"), std::string::npos) << log.str();
  }
  EXPECT_TRUE(no_children());
}

TEST_F(HexGtpProcess, SetupCommandsReachTheEngineAndARefusedOneNamesItself) {
  // Commands the engine knows are sent after boardsize and the games go on; one it refuses ends
  // the match with an error naming the command and the engine's answer; a command of two lines
  // is refused before anything starts.
  auto message = [&](const HexExternalOptions& o) {
    std::vector<HexExternalGame> games;
    try {
      play_hex_external_match(parse_hex_player("random"), o, games, nullptr);
    } catch (const ef::Error& e) {
      return std::string(e.what());
    }
    return std::string("no error, ") + std::to_string(games.size()) + " games";
  };
  HexExternalOptions o = options(evalforge_hex_gtp("random", "--seed 5"), 2);
  o.setup = {"name", "version"};
  EXPECT_EQ(message(o), "no error, 2 games");
  o.setup = {"name", "param_mohex max_time 0.5"};
  const std::string refused = message(o);
  EXPECT_NE(refused.find("answered 'param_mohex max_time 0.5' with '? "), std::string::npos) << refused;
  o.setup = {"name\nquit"};
  EXPECT_NE(message(o).find("setup command 'name\nquit' must be one non-empty line"), std::string::npos);
  EXPECT_TRUE(no_children());
}

TEST_F(HexGtpProcess, CheatingHangingAndDyingEnginesForfeit) {
  {
    std::vector<HexExternalGame> games;
    play_hex_external_match(parse_hex_player("random"), options(fake_engine("z99.sh", "printf '= Z99\\n\\n'"), 2),
                            games, nullptr);
    ASSERT_EQ(games.size(), 2u);
    EXPECT_EQ(games[0].error, "engine played illegal move 'z99' at ply 2 (not a cell of the 5x5 board)");
    EXPECT_EQ(games[1].error, "engine played illegal move 'z99' at ply 1 (not a cell of the 5x5 board)");
    for (const auto& g : games) {
      EXPECT_FALSE(g.completed);
      EXPECT_TRUE(g.agent_won());  // a forfeit is our win
    }
  }
  {
    // Always a1: legal once at most, then occupied.
    std::vector<HexExternalGame> games;
    play_hex_external_match(parse_hex_player("random"), options(fake_engine("a1.sh", "printf '= a1\\n\\n'"), 2), games,
                            nullptr);
    ASSERT_EQ(games.size(), 2u);
    for (const auto& g : games) {
      EXPECT_FALSE(g.completed);
      EXPECT_NE(g.error.find("engine played illegal move 'a1'"), std::string::npos) << g.error;
      EXPECT_NE(g.error.find("(occupied)"), std::string::npos) << g.error;
      EXPECT_TRUE(g.agent_won());
    }
    std::vector<HexExternalGame> swaps;
    play_hex_external_match(parse_hex_player("random"),
                            options(fake_engine("sw.sh", "printf '= swap-pieces\\n\\n'"), 1), swaps, nullptr);
    ASSERT_EQ(swaps.size(), 1u);
    EXPECT_EQ(swaps[0].error, "engine played illegal move 'swap-pieces' at ply 2 (the swap rule is off)");
  }
  {
    std::vector<HexExternalGame> games;
    HexExternalOptions o = options(fake_engine("resign.sh", "printf '= resign\\n\\n'"), 1);
    play_hex_external_match(parse_hex_player("random"), o, games, nullptr);
    ASSERT_EQ(games.size(), 1u);
    EXPECT_EQ(games[0].error, "engine resigned at ply 2");
  }
  {
    HexExternalOptions o = options(fake_engine("sleeper.sh", "sleep 1000"), 2);
    o.move_timeout_s = 0.4;
    std::vector<HexExternalGame> games;
    std::ostringstream log;
    play_hex_external_match(parse_hex_player("random"), o, games, &log);
    ASSERT_EQ(games.size(), 2u);
    EXPECT_EQ(games[0].error, "engine timed out after 0.4 s on 'genmove w' at ply 2");
    EXPECT_EQ(games[1].error, "engine timed out after 0.4 s on 'genmove b' at ply 1");
    EXPECT_TRUE(games[0].agent_won() && games[1].agent_won());
    EXPECT_NE(log.str().find("restarting engine (1 of at most 3)"), std::string::npos) << log.str();
  }
  {
    // Refuses our moves: a forfeit too.
    const fs::path p = dir_ / "refuser.sh";
    std::ofstream(p)
        << "#!/bin/sh\nwhile IFS= read -r line; do\n  case \"$line\" in\n"
           "    play*|[0-9]*\" play \"*) printf '? illegal move\\n\\n' ;;\n    *) printf '= \\n\\n' ;;\n  esac\ndone\n";
    fs::permissions(p, fs::perms::owner_all);
    std::vector<HexExternalGame> games;
    play_hex_external_match(parse_hex_player("random"), options(fmt::format("'{}'", p.string()), 1), games, nullptr);
    ASSERT_EQ(games.size(), 1u);
    EXPECT_TRUE(games[0].error.starts_with("engine refused 'play b ")) << games[0].error;
    EXPECT_NE(games[0].error.find("at ply 1: illegal move"), std::string::npos) << games[0].error;
  }
  {
    // Dies at every genmove: after max_restarts an error, the games so far kept.
    HexExternalOptions o = options(fake_engine("dier.sh", "echo 'fake: crashed' >&2; exit 3"), 4);
    o.max_restarts = 1;
    std::vector<HexExternalGame> games;
    try {
      play_hex_external_match(parse_hex_player("random"), o, games, nullptr);
      ADD_FAILURE() << "no error after too many restarts";
    } catch (const ef::Error& e) {
      EXPECT_NE(std::string(e.what()).find("failed again after 1 restarts"), std::string::npos) << e.what();
    }
    ASSERT_EQ(games.size(), 2u);
    for (const auto& g : games) {
      EXPECT_NE(g.error.find("engine died"), std::string::npos) << g.error;
      EXPECT_NE(g.error.find("fake: crashed"), std::string::npos) << g.error;
    }
  }
  EXPECT_TRUE(no_children());
}

TEST_F(HexGtpProcess, EnginesThatCannotPlayAreErrors) {
  // An Othello engine refuses boardsize 5.
  try {
    std::vector<HexExternalGame> games;
    play_hex_external_match(parse_hex_player("random"),
                            options(fmt::format("'{}' gtp --agent random", EF_EVALFORGE_BIN), 1), games, nullptr);
    ADD_FAILURE() << "no error";
  } catch (const ef::Error& e) {
    EXPECT_NE(std::string(e.what()).find("answered 'boardsize 5' with '? unacceptable size'"), std::string::npos)
        << e.what();
  }
  EXPECT_TRUE(no_children());
}

TEST_F(HexGtpProcess, CommandLinePrintsTheScoreAndWritesTranscripts) {
  const fs::path out = dir_ / "games.txt", log = dir_ / "log.txt";
  const std::string cmd = fmt::format(
      "'{}' hex external --a uct:playouts=50 --opponent-cmd \"{}\" --games 4 --size 5 --out '{}' > '{}' 2>&1",
      EF_EVALFORGE_BIN, evalforge_hex_gtp("random", "--size 5"), out.string(), log.string());
  const int status = std::system(cmd.c_str());
  std::stringstream printed;
  printed << std::ifstream(log).rdbuf();
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << printed.str();
  EXPECT_NE(printed.str().find("4 games, wins"), std::string::npos) << printed.str();
  EXPECT_NE(printed.str().find("95% interval ["), std::string::npos) << printed.str();
  std::ifstream t(out);
  std::vector<std::string> lines;
  for (std::string line; std::getline(t, line);) lines.push_back(line);
  ASSERT_EQ(lines.size(), 4u);
  for (std::size_t g = 0; g < lines.size(); ++g) {
    EXPECT_NE(lines[g].find(g % 2 ? "# ours white" : "# ours black"), std::string::npos) << lines[g];
    EXPECT_TRUE(lines[g].find(" B+  #") != std::string::npos || lines[g].find(" W+  #") != std::string::npos)
        << lines[g];
  }

  // Too many restarts: exit status 2, and the transcript of the games played before.
  const std::string dier = fake_engine("dier.sh", "exit 3");
  const std::string bad = fmt::format(
      "'{}' hex external --a random --opponent-cmd \"{}\" --games 5 --size 5 --max-restarts 2 --out '{}' > '{}' 2>&1",
      EF_EVALFORGE_BIN, dier, out.string(), log.string());
  const int bad_status = std::system(bad.c_str());
  std::stringstream printed2;
  printed2 << std::ifstream(log).rdbuf();
  EXPECT_TRUE(WIFEXITED(bad_status) && WEXITSTATUS(bad_status) == 2) << printed2.str();
  EXPECT_NE(printed2.str().find("failed again after 2 restarts"), std::string::npos) << printed2.str();
  std::ifstream t2(out);
  int forfeits = 0;
  for (std::string line; std::getline(t2, line);) forfeits += line.find("forfeit: engine died") != std::string::npos;
  EXPECT_EQ(forfeits, 3);

  // `gtp --game hex` refuses Othello-only settings the other way round: --size for Othello.
  const int mixed = std::system(
      fmt::format("'{}' gtp --agent random --size 5 < /dev/null > /dev/null 2>&1", EF_EVALFORGE_BIN).c_str());
  EXPECT_TRUE(WIFEXITED(mixed) && WEXITSTATUS(mixed) == 2);
  EXPECT_TRUE(no_children());
}

}  // namespace
