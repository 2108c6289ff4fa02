// Playing Tic-Tac-Toe networks (issue 29, item 5; docs/tictactoe.md, "Playing a network"): agent
// files (games/tictactoe/agent_file.hpp), the perfect agent against the solved game, the GTP
// engine (games/tictactoe/gtp_engine.hpp) in process and through the binary
// (`evalforge gtp --game tictactoe`), and the agent files of an evolve run's best networks
// (`evalforge tictactoe --save-agents`).
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>
#include "evalforge/backends/backend.hpp"
#include "evalforge/core/error.hpp"
#include "evalforge/core/rng.hpp"
#include "evalforge/ga/bitstring_ga.hpp"
#include "evalforge/games/tictactoe/agent_file.hpp"
#include "evalforge/games/tictactoe/fitness_matches.hpp"
#include "games/tictactoe/gtp_engine.hpp"
#include "games/tictactoe/perfect_play.hpp"
#include "gtp/client.hpp"
#include "test_support.hpp"

using namespace ef;
using namespace ef::play;
using ef::test::error_of;
namespace fs = std::filesystem;
using tictactoe::Board;
using tictactoe::PerfectPlay;

namespace {

fs::path scratch(const std::string& name) { return test::scratch_dir("tttplay", name); }

// Random bits for a network of `topology`, as the GA draws them (one 0/1 per element).
ga::BitString random_bits(tictactoe::Topology topology, u64 seed) {
  Rng rng(seed, Purpose::kGame, 7, 0, 0);
  ga::BitString b(static_cast<std::size_t>(tictactoe::network_bits(topology)));
  for (auto& bit : b) bit = static_cast<unsigned char>(rng.below(2));
  return b;
}

// Hex digits of a bit string, written here independently of the library: 4 bits a digit, most
// significant first, the last digit padded with zero bits (best_networks.csv's column).
std::string hex_of(const ga::BitString& bits) {
  std::string out;
  for (std::size_t i = 0; i < bits.size(); i += 4) {
    int v = 0;
    for (std::size_t k = i; k < i + 4; ++k) v = 2 * v + (k < bits.size() ? bits[k] : 0);
    out += "0123456789abcdef"[v];
  }
  return out;
}

// The inverse, for reading best_networks.csv in the tests without the library's reader.
ga::BitString bits_of(const std::string& hex, int bits) {
  ga::BitString b;
  for (char h : hex) {
    const int v = h <= '9' ? h - '0' : h - 'a' + 10;
    for (int k = 3; k >= 0; --k) b.push_back(static_cast<unsigned char>(v >> k & 1));
  }
  b.resize(static_cast<std::size_t>(bits));
  return b;
}

// The agent's move in every position with a side to move (the oracle's 4,520), by its own choose().
std::vector<int> moves_everywhere(const TicTacToeAgent& agent) {
  const tictactoe::Chooser choose = tictactoe::agent_chooser(agent);
  std::vector<int> moves;
  for (const Board& b : PerfectPlay::get().positions_to_move()) moves.push_back(choose(b));
  return moves;
}

void expect_same_network(const tictactoe::Network& a, const tictactoe::Network& b) {
  EXPECT_EQ(a.topology, b.topology);
  for (int i = 0; i < tictactoe::kHidden1; ++i) {
    for (int j = 0; j < 9; ++j) EXPECT_EQ(a.w1[i][j], b.w1[i][j]) << "w1 " << i << " " << j;
    EXPECT_EQ(a.t1[i], b.t1[i]) << "t1 " << i;
  }
  for (int k = 0; k < tictactoe::kHidden2; ++k) {
    for (int i = 0; i < tictactoe::kHidden1; ++i) EXPECT_EQ(a.w2[k][i], b.w2[k][i]) << "w2 " << k << " " << i;
    EXPECT_EQ(a.t2[k], b.t2[k]) << "t2 " << k;
    EXPECT_EQ(a.w3[k], b.w3[k]) << "w3 " << k;
  }
  EXPECT_EQ(a.t3, b.t3);
}

void expect_same_agent(const TicTacToeAgent& a, const TicTacToeAgent& b) {
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.params.kind, b.params.kind);
  EXPECT_EQ(a.params.depth, b.params.depth);
  EXPECT_EQ(a.params.epsilon_ppm, b.params.epsilon_ppm);
  if (a.params.kind == TicTacToeEvaluator::kNetwork) expect_same_network(a.params.network, b.params.network);
}

std::string value_of(const std::string& file_text, const std::string& key) {
  std::istringstream in(file_text);
  for (std::string line; std::getline(in, line);)
    if (line.starts_with(key + " = ")) return line.substr(key.size() + 3);
  return "";
}

// A sequence of alternating moves (X first) that reaches `b`, which has no line.
std::vector<int> moves_to(const Board& b) {
  std::vector<int> xs, os, seq;
  for (int sq = 0; sq < 9; ++sq) {
    if (b.x >> sq & 1) xs.push_back(sq);
    if (b.o >> sq & 1) os.push_back(sq);
  }
  for (std::size_t i = 0; i < xs.size(); ++i) {
    seq.push_back(xs[i]);
    if (i < os.size()) seq.push_back(os[i]);
  }
  return seq;
}

const char* kVertex[9] = {"a1", "b1", "c1", "a2", "b2", "c2", "a3", "b3", "c3"};

// ---- Agent files ----------------------------------------------------------------------------

TEST(TttAgentFile, RoundTripsEveryEvaluator) {
  const fs::path dir = scratch("roundtrip");
  std::vector<TicTacToeAgent> agents;
  for (tictactoe::Topology t : {tictactoe::Topology::kFull, tictactoe::Topology::kPaper})
    agents.push_back(network_agent(random_bits(t, 3), t, 3, fmt::format("net-{}", tictactoe::topology_name(t))));
  agents.push_back(tictactoe_agent(TicTacToeEvaluator::kStatic, 2, 250000));
  agents.push_back(tictactoe_agent(TicTacToeEvaluator::kRandom, 1, 0));
  agents.push_back(tictactoe_agent(TicTacToeEvaluator::kPerfect, 9, 1));
  agents[0].params.epsilon_ppm = 123457;
  for (const TicTacToeAgent& a : agents) {
    const fs::path f = dir / (a.name + ".toml");
    save_tictactoe_agent(a, f);
    expect_same_agent(load_tictactoe_agent(f.string()), a);
  }
  // The bits are best_networks.csv's text, and decoding them again gives the same network.
  const ga::BitString bits = random_bits(tictactoe::Topology::kFull, 3);
  EXPECT_EQ(value_of(test::file_bytes(dir / "net-full.toml"), "bits"), "\"" + hex_of(bits) + "\"");
  EXPECT_EQ(value_of(test::file_bytes(dir / "perfect.toml"), "evaluator"), "\"perfect\"");
  EXPECT_EQ(value_of(test::file_bytes(dir / "perfect.toml"), "depth"), "");  // perfect takes none
}

TEST(TttAgentFile, KnownBitsDecodeToKnownGenes) {
  // All ones: every 5-bit gene is 31, worth 31 - 16 = 15 half units; 590 bits are 147 'f' digits
  // and a last digit of two ones and two zero pads, 'c'.
  const fs::path f = scratch("ones") / "ones.toml";
  std::ofstream(f) << "evaluator = \"network\"\ntopology = \"paper\"\ndepth = 1\nbits = \"" << std::string(147, 'f')
                   << "c\"\n";
  const TicTacToeAgent a = load_tictactoe_agent(f.string());
  EXPECT_EQ(a.name, "ones");
  EXPECT_EQ(a.params.depth, 1);
  EXPECT_EQ(a.params.epsilon_ppm, 0u);
  EXPECT_EQ(a.params.network.topology, tictactoe::Topology::kPaper);
  for (int i = 0; i < tictactoe::kHidden1; ++i) EXPECT_EQ(a.params.network.t1[i], 15);
  for (int k = 0; k < tictactoe::kHidden2; ++k) {
    EXPECT_EQ(a.params.network.w2[k][17], 15);
    EXPECT_EQ(a.params.network.w3[k], 15);
  }
}

TEST(TttAgentFile, BuiltIns) {
  EXPECT_EQ(load_tictactoe_agent("perfect").params.kind, TicTacToeEvaluator::kPerfect);
  EXPECT_EQ(load_tictactoe_agent("random").params.kind, TicTacToeEvaluator::kRandom);
  const TicTacToeAgent s = load_tictactoe_agent("static");
  EXPECT_EQ(s.params.kind, TicTacToeEvaluator::kStatic);
  EXPECT_EQ(s.params.depth, 4);
}

TEST(TttAgentFile, EveryBadKeyOrValueIsRefusedNamingFileAndKey) {
  const fs::path dir = scratch("bad");
  const std::string full = hex_of(random_bits(tictactoe::Topology::kFull, 5));  // 352 digits, 1 bit in the last
  const std::string net = "evaluator = \"network\"\ndepth = 2\n";
  struct Case {
    std::string name, text, key;
  };
  const std::vector<Case> cases = {
      {"unknown", "evaluator = \"static\"\nplies = 3\n", "unknown key plies"},
      {"table", "evaluator = \"static\"\n[network]\ndepth = 3\n", "unknown key network"},
      {"no_evaluator", "depth = 3\n", ": evaluator"},
      {"evaluator", "evaluator = \"neural\"\n", ": evaluator"},
      {"evaluator_type", "evaluator = 3\n", ": evaluator"},
      {"name_type", "name = 4\nevaluator = \"static\"\n", ": name"},
      {"no_depth", "evaluator = \"static\"\n", ": depth"},
      {"no_depth_network", "evaluator = \"network\"\nbits = \"\"\n", ": depth"},
      {"depth0", "evaluator = \"static\"\ndepth = 0\n", ": depth"},
      {"depth10", "evaluator = \"static\"\ndepth = 10\n", ": depth"},
      {"depth_text", "evaluator = \"static\"\ndepth = \"4\"\n", ": depth"},
      {"depth_perfect", "evaluator = \"perfect\"\ndepth = 9\n", ": depth"},
      {"depth_random", "evaluator = \"random\"\ndepth = 1\n", ": depth"},
      {"epsilon_high", "evaluator = \"static\"\ndepth = 2\nepsilon = 1.5\n", ": epsilon"},
      {"epsilon_low", "evaluator = \"static\"\ndepth = 2\nepsilon = -0.1\n", ": epsilon"},
      {"no_bits", net, ": bits"},
      {"bits_short", net + "bits = \"" + full.substr(1) + "\"\n", ": bits"},
      {"bits_long", net + "bits = \"" + full + "0\"\n", ": bits"},
      {"bits_paper_length", net + "topology = \"paper\"\nbits = \"" + full + "\"\n", ": bits"},
      {"bits_digit", net + "bits = \"g" + full.substr(1) + "\"\n", ": bits"},
      {"bits_upper", net + "bits = \"F" + full.substr(1) + "\"\n", ": bits"},
      {"bits_pad", net + "bits = \"" + full.substr(0, full.size() - 1) + "f\"\n", ": bits"},
      {"bits_type", net + "bits = 12\n", ": bits"},
      {"topology", net + "topology = \"sparse\"\nbits = \"" + full + "\"\n", ": topology"},
      {"topology_static", "evaluator = \"static\"\ndepth = 2\ntopology = \"full\"\n", ": topology"},
      {"bits_static", "evaluator = \"perfect\"\nbits = \"" + full + "\"\n", ": bits"},
      {"syntax", "evaluator = \"static\"\ndepth = = 3\n", ":2:"},
  };
  for (const Case& c : cases) {
    const fs::path f = dir / (c.name + ".toml");
    std::ofstream(f) << c.text;
    const std::string e = error_of([&] { load_tictactoe_agent(f.string()); });
    EXPECT_NE(e.find(f.string()), std::string::npos) << c.name << ": " << e;
    EXPECT_NE(e.find(c.key), std::string::npos) << c.name << ": " << e;
  }
  const std::string absent = (dir / "absent.toml").string();
  EXPECT_NE(error_of([&] { load_tictactoe_agent(absent); }).find(absent + ": no such agent file"), std::string::npos);
  // The good file the bad ones were cut from loads.
  const fs::path good = dir / "good.toml";
  std::ofstream(good) << net << "bits = \"" << full << "\"\n";
  EXPECT_EQ(load_tictactoe_agent(good.string()).params.depth, 2);
}

// ---- The perfect agent ----------------------------------------------------------------------

TEST(TttPerfectAgent, PlaysTheOraclesLowestOptimalMoveEverywhereAndNeverLoses) {
  const PerfectPlay& oracle = PerfectPlay::get();
  const TicTacToeAgent perfect = load_tictactoe_agent("perfect");
  const std::vector<int> moves = moves_everywhere(perfect);
  const auto& positions = oracle.positions_to_move();
  ASSERT_EQ(moves.size(), 4520u);
  int optimal = 0;
  for (std::size_t i = 0; i < positions.size(); ++i) {
    EXPECT_TRUE(oracle.optimal_moves(positions[i]) >> moves[i] & 1) << tictactoe::describe(positions[i]);
    EXPECT_EQ(moves[i], oracle.lowest_optimal_move(positions[i])) << tictactoe::describe(positions[i]);
    optimal += oracle.optimal_moves(positions[i]) >> moves[i] & 1;
  }
  EXPECT_EQ(optimal, 4520);
  const tictactoe::PlayerMeasures m = tictactoe::measure(tictactoe::agent_chooser(perfect));
  EXPECT_TRUE(m.never_loses());
  // Perfect play draws: no opponent can be beaten from the empty board with every reply allowed.
  EXPECT_EQ(m.as_x.worst_vs_any, tictactoe::Result::kDraw);
  EXPECT_EQ(m.as_o.worst_vs_any, tictactoe::Result::kDraw);
}

TEST(TttPerfectAgent, NeverLosesToRandomPlayOnTheBackend) {
  auto cpu = make_backend("cpu", 1);
  const int perfect = cpu->add_agent(load_tictactoe_agent("perfect"));
  const int random = cpu->add_agent(load_tictactoe_agent("random"));
  std::vector<GameJobOf<games::TicTacToe>> jobs;
  for (u32 g = 0; g < 200; ++g) {
    GameJobOf<games::TicTacToe> j;
    j.black = g % 2 ? perfect : random;
    j.white = g % 2 ? random : perfect;
    j.seed = 11;
    j.game = g;
    jobs.push_back(j);
  }
  std::vector<TicTacToeRecord> records(jobs.size());
  cpu->play(jobs, records);
  for (std::size_t g = 0; g < jobs.size(); ++g) {
    Board b;  // replayed here: the record's result is the board's
    for (int i = 0; i < records[g].plies; ++i) b = b.play(records[g].moves[i]);
    ASSERT_TRUE(b.terminal());
    EXPECT_GE(g % 2 ? b.score_for_x() : -b.score_for_x(), 0) << "game " << g;
  }
}

// ---- The GTP engine in process ---------------------------------------------------------------

std::string ask(TttGtpEngine& e, const std::string& line) {
  bool quit = false;
  return e.handle_line(line, quit);
}

std::string ok_text(TttGtpEngine& e, const std::string& line) {
  const std::string r = ask(e, line);
  EXPECT_TRUE(r.starts_with("= ") && r.ends_with("\n\n")) << line << " -> " << r;
  return r.size() >= 4 ? r.substr(2, r.size() - 4) : r;
}

void expect_refused(TttGtpEngine& e, const std::string& line, const std::string& words) {
  const std::string r = ask(e, line);
  EXPECT_TRUE(r.starts_with("? ") && r.find(words) != std::string::npos) << line << " -> " << r;
}

TEST(TttGtpEngine, ProtocolCommands) {
  TttGtpEngine e(load_tictactoe_agent("static"));
  EXPECT_EQ(ask(e, "protocol_version"), "= 2\n\n");
  EXPECT_EQ(ask(e, "3 name"), "=3 evalforge\n\n");
  EXPECT_NE(ask(e, "version").find("tictactoe agent static"), std::string::npos);
  EXPECT_EQ(ask(e, "known_command genmove"), "= true\n\n");
  EXPECT_EQ(ask(e, "known_command komi"), "= false\n\n");
  const std::string list = "\n" + ok_text(e, "list_commands") + "\n";
  for (const char* c : {"protocol_version", "name", "version", "known_command", "list_commands", "boardsize",
                        "clear_board", "play", "genmove", "undo", "showboard", "final_score", "quit"})
    EXPECT_NE(list.find(fmt::format("\n{}\n", c)), std::string::npos) << c;
  EXPECT_EQ(ask(e, "boardsize 3"), "= \n\n");
  expect_refused(e, "boardsize 4", "unacceptable size");
  expect_refused(e, "boardsize", "syntax error");
  EXPECT_EQ(ask(e, "# a comment"), "");
  EXPECT_EQ(ask(e, "9 fly"), "?9 unknown command: 'fly'\n\n");
  bool quit = false;
  EXPECT_EQ(e.handle_line("4 quit", quit), "=4 \n\n");
  EXPECT_TRUE(quit);
}

TEST(TttGtpEngine, PlayRefusesIllegalMovesAndLeavesTheBoard) {
  TttGtpEngine e(load_tictactoe_agent("static"));
  EXPECT_EQ(ask(e, "play black b2"), "= \n\n");
  EXPECT_EQ(ask(e, "play W A1"), "= \n\n");  // case-insensitive
  const Board before = e.board();
  EXPECT_EQ(before.x, 1u << 4);
  EXPECT_EQ(before.o, 1u << 0);
  EXPECT_EQ(before.side, tictactoe::kX);
  expect_refused(e, "play x b2", "illegal move");
  expect_refused(e, "play o a1", "occupied");
  expect_refused(e, "play b pass", "illegal move");
  expect_refused(e, "play b d1", "invalid vertex");
  expect_refused(e, "play b a4", "invalid vertex");
  expect_refused(e, "play red a2", "invalid colour");
  expect_refused(e, "play b", "syntax error");
  EXPECT_TRUE(e.board() == before);
  // X takes the b column: a line ends the game, and nothing more is played.
  EXPECT_EQ(ask(e, "play x b1"), "= \n\n");
  EXPECT_EQ(ask(e, "play o c1"), "= \n\n");
  expect_refused(e, "final_score", "cannot score");
  EXPECT_EQ(ask(e, "play x b3"), "= \n\n");
  EXPECT_EQ(ok_text(e, "final_score"), "B+");
  expect_refused(e, "play o c3", "the game is over");
  expect_refused(e, "genmove o", "the game is over");
  const std::string board = ok_text(e, "showboard");
  EXPECT_NE(board.find(" 3 . X . 3"), std::string::npos) << board;
  EXPECT_NE(board.find(" 2 . X . 2"), std::string::npos) << board;
  EXPECT_NE(board.find(" 1 O X O 1"), std::string::npos) << board;
  EXPECT_NE(board.find("5 moves, the last b3"), std::string::npos) << board;
  EXPECT_EQ(ask(e, "undo"), "= \n\n");
  expect_refused(e, "final_score", "cannot score");
  EXPECT_EQ(ask(e, "clear_board"), "= \n\n");
  EXPECT_TRUE(e.board() == Board{});
  expect_refused(e, "undo", "cannot undo");
}

TEST(TttGtpEngine, FinalScoreOfAWinForOAndOfADraw) {
  TttGtpEngine e(load_tictactoe_agent("static"));
  for (const char* m : {"b a1", "w b2", "b c3", "w b1", "b a2", "w b3"})
    ASSERT_EQ(ask(e, fmt::format("play {}", m)), "= \n\n");
  EXPECT_EQ(ok_text(e, "final_score"), "W+");
  ask(e, "clear_board");
  // x o x / x o o / o x x: full, no line.
  for (const char* m : {"b a1", "w b1", "b c1", "w b2", "b a2", "w c2", "b b3", "w a3", "b c3"})
    ASSERT_EQ(ask(e, fmt::format("play {}", m)), "= \n\n");
  EXPECT_EQ(ok_text(e, "final_score"), "0");
  expect_refused(e, "genmove b", "the board is full");
}

TEST(TttGtpEngine, GenmoveIsTheAgentsMoveInEveryPosition) {
  // A network agent from every position with a side to move, each set up by `play` commands.
  const TicTacToeAgent net =
      network_agent(random_bits(tictactoe::Topology::kFull, 9), tictactoe::Topology::kFull, 3, "net");
  const tictactoe::Chooser choose = tictactoe::agent_chooser(net);
  TttGtpEngine e(net);
  for (const Board& b : PerfectPlay::get().positions_to_move()) {
    ask(e, "clear_board");
    const std::vector<int> seq = moves_to(b);
    for (std::size_t i = 0; i < seq.size(); ++i)
      ASSERT_EQ(ask(e, fmt::format("play {} {}", i % 2 ? "o" : "x", kVertex[seq[i]])), "= \n\n");
    ASSERT_TRUE(e.board() == b);
    const std::string move = ok_text(e, fmt::format("genmove {}", b.side == tictactoe::kX ? "b" : "w"));
    ASSERT_EQ(move, kVertex[choose(b)]) << tictactoe::describe(b);
  }
  // Out of turn: X to move, O asked; the answer is the agent's move with O to move.
  ask(e, "clear_board");
  ask(e, "play b a1");
  ask(e, "play w b2");
  Board o_to_move = Board{}.play(0).play(4);
  o_to_move.side = tictactoe::kO;
  EXPECT_EQ(ok_text(e, "genmove w"), kVertex[choose(o_to_move)]);
}

// ---- Through the binary ---------------------------------------------------------------------

std::string gtp_command(const std::string& agent, const std::string& extra = "") {
  return fmt::format("'{}' gtp --game tictactoe --agent '{}'{}", EF_EVALFORGE_BIN, agent, extra);
}

TEST(TttGtpBinary, SessionThroughAPipe) {
  const fs::path dir = scratch("pipe");
  const TicTacToeAgent net =
      network_agent(random_bits(tictactoe::Topology::kPaper, 21), tictactoe::Topology::kPaper, 4, "pipe-net");
  const fs::path file = dir / "net.toml";
  save_tictactoe_agent(net, file);
  // A position of three or more marks where the network's move is not the lowest empty square, so
  // that an engine answering anything but the agent's move is caught.
  const tictactoe::Chooser choose = tictactoe::agent_chooser(net);
  Board b;
  bool found = false;
  for (const Board& p : PerfectPlay::get().positions_to_move())
    if (popcount64(p.x | p.o) >= 3 && choose(p) != ctz64(p.moves())) {
      b = p;
      found = true;
      break;
    }
  ASSERT_TRUE(found);
  std::string commands, expected;
  const std::vector<int> seq = moves_to(b);
  for (std::size_t i = 0; i < seq.size(); ++i) {
    commands += fmt::format("{} play {} {}\n", i + 1, i % 2 ? "w" : "b", kVertex[seq[i]]);
    expected += fmt::format("={} \n\n", i + 1);
  }
  const int occupied = seq[0];
  commands += fmt::format("20 genmove {}\n21 play w {}\n22 play b z9\n23 quit\n", b.side == tictactoe::kX ? "b" : "w",
                          kVertex[occupied]);
  expected += fmt::format("=20 {}\n\n", kVertex[choose(b)]);
  const fs::path in = dir / "in.txt";
  std::ofstream(in) << commands;
  const auto [status, out] = test::run_command(fmt::format("{} < '{}'", gtp_command(file.string()), in.string()));
  EXPECT_EQ(status, 0) << out;
  EXPECT_TRUE(out.starts_with(expected)) << commands << "->\n" << out;
  EXPECT_NE(out.find(fmt::format("?21 illegal move: white (O) {} (occupied)\n\n", kVertex[occupied])),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("?22 syntax error: invalid vertex 'z9'"), std::string::npos) << out;
  EXPECT_TRUE(out.ends_with("=23 \n\n")) << out;
}

TEST(TttGtpBinary, ABadAgentFileExitsNamingFileAndKey) {
  const fs::path f = scratch("badbin") / "bad.toml";
  std::ofstream(f) << "evaluator = \"static\"\ndepth = 12\n";
  const auto [status, out] = test::run_command(gtp_command(f.string()) + " < /dev/null 2>&1");
  EXPECT_EQ(status, 2) << out;
  EXPECT_NE(out.find(f.string() + ": depth"), std::string::npos) << out;
}

// Two engines through GtpClient play a game from each opening (X's first move, and the empty board),
// a network as X against the perfect agent as O and the other way round; each ends as the same game
// played by the library's backend.
TEST(TttGtpBinary, GamesBetweenTwoEnginesMatchTheLibrary) {
  const fs::path dir = scratch("twoengines");
  const TicTacToeAgent net =
      network_agent(random_bits(tictactoe::Topology::kFull, 33), tictactoe::Topology::kFull, 2, "net");
  save_tictactoe_agent(net, dir / "net.toml");
  const TicTacToeAgent perfect = load_tictactoe_agent("perfect");
  auto cpu = make_backend("cpu", 1);
  const int h_net = cpu->add_agent(net), h_perfect = cpu->add_agent(perfect);

  GtpClient engine_net(gtp_command((dir / "net.toml").string()));
  GtpClient engine_perfect(gtp_command("perfect"));
  engine_net.start();
  engine_perfect.start();
  int losses_of_perfect = 0;
  for (int net_is_x = 0; net_is_x < 2; ++net_is_x)
    for (int opening = -1; opening < 9; ++opening) {
      GtpClient& x = net_is_x ? engine_net : engine_perfect;
      GtpClient& o = net_is_x ? engine_perfect : engine_net;
      ASSERT_TRUE(x.send("clear_board", 5).ok());
      ASSERT_TRUE(o.send("clear_board", 5).ok());
      Board b;
      std::vector<int> gtp_moves;
      if (opening >= 0) {
        ASSERT_TRUE(x.send(fmt::format("play b {}", kVertex[opening]), 5).ok());
        ASSERT_TRUE(o.send(fmt::format("play b {}", kVertex[opening]), 5).ok());
        b = b.play(opening);
      }
      const Board start = b;
      while (!b.terminal()) {
        const bool x_moves = b.side == tictactoe::kX;
        GtpClient& mover = x_moves ? x : o;
        GtpClient& other = x_moves ? o : x;
        const GtpResponse r = mover.send(x_moves ? "genmove b" : "genmove w", 5);
        ASSERT_TRUE(r.ok()) << r.text;
        const int sq = parse_ttt_gtp_vertex(r.text);
        ASSERT_TRUE(sq >= 0 && (b.moves() >> sq & 1)) << r.text;
        ASSERT_TRUE(other.send(fmt::format("play {} {}", x_moves ? "b" : "w", r.text), 5).ok());
        gtp_moves.push_back(sq);
        b = b.play(sq);
      }
      const std::string score_x = x.send("final_score", 5).text, score_o = o.send("final_score", 5).text;
      EXPECT_EQ(score_x, score_o);
      EXPECT_EQ(score_x, b.score_for_x() > 0 ? "B+" : (b.score_for_x() < 0 ? "W+" : "0"));
      // The library: the same players from the same start on the backend.
      GameJobOf<games::TicTacToe> job;
      job.black = net_is_x ? h_net : h_perfect;
      job.white = net_is_x ? h_perfect : h_net;
      job.start = start;
      const std::vector<GameJobOf<games::TicTacToe>> jobs{job};
      std::vector<TicTacToeRecord> records(1);
      cpu->play(jobs, records);
      ASSERT_EQ(records[0].plies, static_cast<int>(gtp_moves.size()));
      for (int i = 0; i < records[0].plies; ++i) EXPECT_EQ(records[0].moves[i], gtp_moves[i]) << "ply " << i;
      EXPECT_EQ(records[0].black_score, b.score_for_x());
      losses_of_perfect += net_is_x ? b.score_for_x() > 0 : b.score_for_x() < 0;
    }
  EXPECT_EQ(losses_of_perfect, 0);
}

TEST(TttAgentsInTheTictactoeCommand, MeasuredAndPlayed) {
  // --measure: the perfect agent file is optimal in all 4,520 positions and never loses (the oracle's
  // own count of positions with a side to move).
  const fs::path f = scratch("cmd") / "p.toml";
  save_tictactoe_agent(load_tictactoe_agent("perfect"), f);
  const auto [rc, out] = test::run_command(fmt::format(
      "'{}' tictactoe --measure --json --agent '{}' --static 1 --random-networks 0", EF_EVALFORGE_BIN, f.string()));
  ASSERT_EQ(rc, 0) << out;
  const auto j = nlohmann::json::parse(out);
  bool seen = false;
  for (const auto& p : j["players"])
    if (p["name"] == "perfect") {
      seen = true;
      EXPECT_EQ(p["optimal"], 4520);
      EXPECT_EQ(p["never_loses"], true);
    }
  EXPECT_TRUE(seen) << out;
  // The round robin: against the 1-ply static player the perfect agent loses no game, so its points
  // are at least the 240 of 16 draws.
  const auto [rc2, table] = test::run_command(
      fmt::format("'{}' tictactoe --agent perfect --static 1 --no-random --threads 1", EF_EVALFORGE_BIN));
  ASSERT_EQ(rc2, 0) << table;
  std::istringstream rows(table);
  int points = -1;
  for (std::string line; std::getline(rows, line);)
    if (line.starts_with("1 perfect")) {
      std::istringstream words(line);
      std::string n, name, total;
      words >> n >> name >> total;
      points = std::stoi(total);
    }
  EXPECT_GE(points, 240) << table;
}

// ---- The best networks of a run ---------------------------------------------------------------

std::vector<std::vector<std::string>> csv_rows(const fs::path& file) {
  std::istringstream in(test::file_bytes(file));
  std::vector<std::vector<std::string>> rows;
  std::string line;
  std::getline(in, line);
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::istringstream ss(line);
    for (std::string x; std::getline(ss, x, ',');) f.push_back(x);
    rows.push_back(f);
  }
  return rows;
}

TEST(TttSaveAgents, SavedBestNetworksPlayAsInsideTheGa) {
  const fs::path dir = scratch("save");
  const fs::path config = dir / "c.toml", run = dir / "run", agents = dir / "agents";
  // Opponent at 2 plies, networks at 3: a small run with distinct players.
  std::ofstream(config)
      << "[evolve]\nkind = \"tictactoe\"\ngenerations = 3\ntrials = 2\nseed = 6\n"
         "[population]\nsize = 10\nmutation_rate = 0.01\n"
         "[network]\ndepth = 3\ntopology = \"paper\"\n[opponent]\ndepth = 2\n[monitor]\noracle = false\n";
  const auto [rc, out] = test::run_command(fmt::format("'{}' evolve --config '{}' --out '{}' --threads 1 --quiet 2>&1",
                                                       EF_EVALFORGE_BIN, config.string(), run.string()));
  ASSERT_EQ(rc, 0) << out;
  const auto [rc2, listed] = test::run_command(fmt::format("'{}' tictactoe --save-agents '{}' --run '{}' 2>&1",
                                                           EF_EVALFORGE_BIN, agents.string(), run.string()));
  ASSERT_EQ(rc2, 0) << listed;
  const auto rows = csv_rows(run / "best_networks.csv");
  ASSERT_EQ(rows.size(), 2u);
  auto cpu = make_backend("cpu", 1);
  TttMatches matches(*cpu);
  const TicTacToeAgent opponent = static_agent(2);
  for (const auto& row : rows) {
    const fs::path file = agents / fmt::format("run-t{}{}.toml", row[0], row[1]);
    EXPECT_NE(listed.find(file.string()), std::string::npos) << listed;
    const std::string text = test::file_bytes(file);
    EXPECT_EQ(value_of(text, "bits"), "\"" + row[4] + "\"");  // best_networks.csv's text
    const TicTacToeAgent saved = load_tictactoe_agent(file.string());
    EXPECT_EQ(saved.name, fmt::format("run-t{}{}", row[0], row[1]));
    // The GA's agent for these bits (its own construction), move for move.
    const ga::BitString bits = bits_of(row[4], tictactoe::network_bits(tictactoe::Topology::kPaper));
    const TicTacToeAgent inside = network_agent(bits, tictactoe::Topology::kPaper, 3, "inside");
    EXPECT_EQ(moves_everywhere(saved), moves_everywhere(inside));
    // And its fitness, the 16 games replayed with the saved agent, is the run's.
    const TttMatch m{&saved, &opponent};
    EXPECT_EQ(fmt::format("{:.3f}", static_cast<double>(matches.play(std::span(&m, 1))[0])), row[2]);
  }
}

// The agent files shipped in networks/tictactoe/ (docs/tictactoe.md, "Playing a network"): the best
// networks of configs/ttt-oracle.toml, each of which never loses to any opponent with either colour.
TEST(TttShippedAgents, LoadAndNeverLose) {
  int files = 0;
  for (const auto& entry : fs::directory_iterator(fs::path(EF_SOURCE_DIR) / "networks" / "tictactoe")) {
    if (entry.path().extension() != ".toml") continue;
    ++files;
    const TicTacToeAgent a = load_tictactoe_agent(entry.path().string());
    EXPECT_EQ(a.params.kind, TicTacToeEvaluator::kNetwork) << entry.path();
    EXPECT_EQ(a.params.depth, 4) << entry.path();
    EXPECT_TRUE(tictactoe::measure(tictactoe::agent_chooser(a)).never_loses()) << entry.path();
  }
  EXPECT_EQ(files, 5);
}

TEST(TttSaveAgents, NeedsARun) {
  const auto [rc, out] =
      test::run_command(fmt::format("'{}' tictactoe --save-agents /tmp/ef_none_{} 2>&1", EF_EVALFORGE_BIN, ::getpid()));
  EXPECT_EQ(rc, 2) << out;
  EXPECT_NE(out.find("--run"), std::string::npos) << out;
}

}  // namespace
