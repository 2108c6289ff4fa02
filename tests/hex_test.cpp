// Hex rules (games/hex/game.hpp) against hand positions and an independent cell-by-cell flood; UCT
// (games/hex/uct.hpp) on forced wins checked by brute force; determinism of Hex batches and UCT
// across backends and thread counts; the match run (runs/hex_match_run.hpp) and its resume checks.
#include <gtest/gtest.h>
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <vector>
#include "evalforge/backends/backend.hpp"
#include "evalforge/games/hex/game.hpp"
#include "evalforge/games/hex/playout_patterns.hpp"
#include "games/hex/player_spec.hpp"
#include "games/hex/uct.hpp"
#include "runs/hex_match_run.hpp"
#include "runs/hex_tune_run.hpp"
#include "test_support.hpp"

using namespace ef;
using hex::Board;
using test::error_of;
using test::file_bytes;
using test::scratch_dir;

namespace {

int sq(const char* name, int n = 11) { return play::parse_hex_cell(name, n); }

// The neighbours of (col, row) by the convention's six offsets, without the bit layout.
std::set<int> neighbours_by_offsets(int col, int row, int n) {
  std::set<int> out;
  const int d[6][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}, {1, -1}, {-1, 1}};
  for (auto& o : d) {
    const int c = col + o[0], r = row + o[1];
    if (c >= 0 && r >= 0 && c < n && r < n) out.insert(hex::square_of(c, r));
  }
  return out;
}

std::set<int> members(hex::Cells c) {
  std::set<int> out;
  for (; c.any(); c.drop_lowest()) out.insert(c.lowest());
  return out;
}

// Whether `colour` connects its edges, by a depth-first search over coordinates.
bool connects(const Board& b, int colour) {
  const int n = b.n;
  std::vector<int> stack;
  std::set<int> seen;
  for (int i = 0; i < n; ++i) {
    const int s = colour == hex::kBlack ? hex::square_of(i, 0) : hex::square_of(0, i);
    if (b.stones[colour].has(s)) stack.push_back(s), seen.insert(s);
  }
  while (!stack.empty()) {
    const int s = stack.back();
    stack.pop_back();
    if ((colour == hex::kBlack ? hex::row_of(s) : hex::col_of(s)) == n - 1) return true;
    for (int t : neighbours_by_offsets(hex::col_of(s), hex::row_of(s), n))
      if (b.stones[colour].has(t) && seen.insert(t).second) stack.push_back(t);
  }
  return false;
}

Board with_stones(int n, std::initializer_list<const char*> black, std::initializer_list<const char*> white, int side) {
  Board b = hex::empty_board(n);
  for (const char* c : black) b.stones[hex::kBlack].set(sq(c, n));
  for (const char* c : white) b.stones[hex::kWhite].set(sq(c, n));
  b.side = static_cast<unsigned char>(side);
  b.plies = static_cast<short>(black.size() + white.size());
  b.recompute();
  return b;
}

}  // namespace

TEST(HexRules, NeighboursFollowTheConventionOnEveryCell) {
  for (int n : {1, 2, 5, 11, 13}) {
    const Board b = hex::empty_board(n);
    EXPECT_EQ(b.empty().count(), n * n);
    for (int r = 0; r < n; ++r)
      for (int c = 0; c < n; ++c)
        EXPECT_EQ(members(hex::neighbours(hex::Cells::bit(hex::square_of(c, r)), b.on_board)),
                  neighbours_by_offsets(c, r, n))
            << n << "x" << n << " cell " << c << "," << r;
  }
  const Board b = hex::empty_board(11);
  EXPECT_EQ(members(hex::neighbours(hex::Cells::bit(sq("a1")), b.on_board)),
            (std::set<int>{sq("b1"), sq("a2")}));                                // acute
  EXPECT_EQ(hex::neighbours(hex::Cells::bit(sq("k1")), b.on_board).count(), 3);  // obtuse
  EXPECT_EQ(hex::neighbours(hex::Cells::bit(sq("k11")), b.on_board).count(), 2);
  EXPECT_EQ(members(hex::neighbours(hex::Cells::bit(sq("f6")), b.on_board)),
            (std::set<int>{sq("e6"), sq("g6"), sq("f5"), sq("f7"), sq("g5"), sq("e7")}));
}

TEST(HexRules, CellNamesRoundTripAndRejectOffBoardCells) {
  EXPECT_EQ(sq("a1"), 0);
  EXPECT_EQ(sq("b1"), 1);
  EXPECT_EQ(sq("a2"), hex::kStride);
  EXPECT_EQ(play::hex_cell_name(sq("k11")), "k11");
  EXPECT_EQ(sq("K11"), sq("k11"));
  for (const char* bad : {"l1", "a12", "a0", "a01", "", "a", "1a", "aa1", "a1x"}) EXPECT_EQ(sq(bad), -1) << bad;
  EXPECT_EQ(play::parse_hex_cell("m13", 13), hex::square_of(12, 12));
  EXPECT_EQ(play::parse_hex_cell("swap", 11), hex::kSwapSquare);
}

TEST(HexRules, HandPositionsAreWonByTheRightColourAtTheRightMove) {
  // Black's column a, a1..a11 (rows 1 to 11): Black's connection, made by the last stone, a6.
  Board b = hex::empty_board(11);
  const char* column[] = {"a1", "a2", "a3", "a4", "a5", "a7", "a8", "a9", "a10", "a11", "a6"};
  const char* white[] = {"c1", "c2", "c3", "c4", "c5", "c6", "c7", "c8", "c9", "c10"};
  for (int i = 0; i < 11; ++i) {
    EXPECT_FALSE(b.terminal()) << i;
    b = b.play(sq(column[i]));
    if (i < 10) b = b.play(sq(white[i]));
  }
  EXPECT_TRUE(b.terminal());
  EXPECT_EQ(b.winner, hex::kBlack);
  EXPECT_EQ(games::Hex::final_score(b), -1);  // White to move has lost
  EXPECT_FALSE(b.moves().any());
  // Row 1 for White (a1..k1) joins column a to column k: White's, not Black's.
  Board w = with_stones(11, {}, {"a1", "b1", "c1", "d1", "e1", "f1", "g1", "h1", "i1", "j1", "k1"}, hex::kBlack);
  EXPECT_EQ(w.winner, hex::kWhite);
  // A diagonal of the (+1,-1) direction: a11, b10, .., k1 connects both pairs of edges' lines,
  // but only cells in a chain count: Black's chain a11..k1 touches row 1 (k1) and row 11 (a11).
  Board d = with_stones(11, {"a11", "b10", "c9", "d8", "e7", "f6", "g5", "h4", "i3", "j2", "k1"}, {}, hex::kWhite);
  EXPECT_EQ(d.winner, hex::kBlack);
  // The other diagonal (a1, b2, ..) is not a chain: (+1,+1) is no neighbour.
  Board e = with_stones(11, {"a1", "b2", "c3", "d4", "e5", "f6", "g7", "h8", "i9", "j10", "k11"}, {}, hex::kWhite);
  EXPECT_EQ(e.winner, hex::kNobody);
}

TEST(HexRules, IncrementalWinAgreesWithAFloodOverCoordinatesInRandomGames) {
  for (int n : {2, 3, 7, 11, 13}) {
    for (u32 game = 0; game < 60; ++game) {
      Rng rng(5, Purpose::kGame, game, static_cast<u32>(n));
      Board b = hex::empty_board(n);
      while (!b.terminal()) {
        b = b.play(play::random_move(b.moves(), rng));
        const bool black = connects(b, hex::kBlack), white = connects(b, hex::kWhite);
        ASSERT_FALSE(black && white);
        ASSERT_EQ(b.winner, black ? hex::kBlack : (white ? hex::kWhite : hex::kNobody)) << n << " game " << game;
        ASSERT_EQ(b.connected_colour(), b.winner);
      }
      // A full board has exactly one colour connected; fill the rest and check it is the winner.
      Board full = b;
      int colour = full.side;
      for (hex::Cells m = full.empty(); m.any(); m.drop_lowest(), colour ^= 1) full.stones[colour].set(m.lowest());
      EXPECT_EQ(connects(full, hex::kBlack), b.winner == hex::kBlack);
      EXPECT_NE(connects(full, hex::kBlack), connects(full, hex::kWhite));
    }
  }
}

TEST(HexRules, RandomGamesOn11x11AreWonByTheFirstPlayerAbout52Point3Percent) {
  // 52.3% from 2 M random fills measured elsewhere; 200,000 here: the two estimates' combined
  // standard error is 0.12%, and the check allows 4 of them.
  const int games = 200000;
  int black = 0;
  play::HexRecord r;
  const play::HexParams random = play::hex_random_agent().params;
  for (int g = 0; g < games; ++g) {
    play::play_game<games::Hex>(random, random, hex::empty_board(11), 11, static_cast<u32>(g), r, {});
    black += r.black_score > 0;
  }
  const double p = static_cast<double>(black) / games;
  const double se = std::sqrt(0.523 * 0.477 / games + 0.523 * 0.477 / 2e6);
  EXPECT_NEAR(p, 0.523, 4 * se) << black << " of " << games;
}

TEST(HexRules, SwapMirrorsTheFirstStoneAndHandsTheMoveBack) {
  Board b = hex::empty_board(11, true);
  EXPECT_FALSE(b.moves().has(hex::kSwapSquare));
  b = b.play(sq("b3"));
  EXPECT_TRUE(b.moves().has(hex::kSwapSquare));
  EXPECT_EQ(b.moves().count(), 121);  // 120 empty cells and the swap
  const Board s = b.play(hex::kSwapSquare);
  EXPECT_EQ(s.side, hex::kBlack);
  EXPECT_FALSE(s.stones[hex::kBlack].any());
  EXPECT_EQ(members(s.stones[hex::kWhite]), (std::set<int>{sq("c2")}));
  EXPECT_FALSE(s.moves().has(hex::kSwapSquare));
  EXPECT_FALSE(b.play(sq("c3")).moves().has(hex::kSwapSquare));                     // only as White's first move
  EXPECT_FALSE(hex::empty_board(11).play(sq("b3")).moves().has(hex::kSwapSquare));  // rule off
}

TEST(HexRules, RotationKeepsTheWinner) {
  for (u32 game = 0; game < 40; ++game) {
    Rng rng(9, Purpose::kGame, game);
    Board b = hex::empty_board(9);
    while (!b.terminal()) b = b.play(play::random_move(b.moves(), rng));
    const Board r = games::Hex::symmetry(b, 1);
    EXPECT_EQ(r.winner, b.winner);
    EXPECT_EQ(r.stones[0].count(), b.stones[0].count());
    EXPECT_EQ(games::Hex::symmetry(r, 1).stones[0], b.stones[0]);
  }
}

namespace {

// Whether the side to move wins at once by `move`, or (two) wins whatever the reply is.
bool wins_now(const Board& b, int move) { return b.play(move).winner == b.side; }
bool wins_in_two(const Board& b, int move) {
  const Board after = b.play(move);
  if (after.winner == b.side) return true;
  for (hex::Cells r = after.moves(); r.any(); r.drop_lowest()) {
    const Board reply = after.play(r.lowest());
    bool answer = false;
    for (hex::Cells m = reply.moves(); m.any() && !answer; m.drop_lowest()) answer = wins_now(reply, m.lowest());
    if (!answer) return false;
  }
  return true;
}

}  // namespace

// Bridge replies (games/hex/playout_patterns.hpp). On 7x7, c3 (col 2, row 2) and d4 (col 3,
// row 3) form a bridge over d3 and c4; c2's edge bridge to Black's top edge is over c1 and d1;
// b3's to White's left edge over a3 and a4.
TEST(HexPatterns, BridgeReplyRestoresTheOtherCarrier) {
  const Board base = with_stones(7, {"c3", "d4", "c2"}, {"f6", "b3"}, hex::kWhite);
  EXPECT_EQ(hex::bridge_reply(base), -1);  // no last stone
  const std::pair<const char*, const char*> black_bridges[] = {{"d3", "c4"}, {"c4", "d3"}, {"c1", "d1"}, {"d1", "c1"}};
  for (const auto& [intrusion, reply] : black_bridges) {
    const Board after = base.play(sq(intrusion, 7));  // White intrudes, Black to move
    EXPECT_EQ(hex::bridge_reply(after), sq(reply, 7)) << intrusion;
  }
  // White's edge bridge: Black intrudes at a3, White restores it at a4 (and the other way).
  Board w = with_stones(7, {"c3", "d4", "c2"}, {"f6", "b3"}, hex::kBlack);
  EXPECT_EQ(hex::bridge_reply(w.play(sq("a3", 7))), sq("a4", 7));
  EXPECT_EQ(hex::bridge_reply(w.play(sq("a4", 7))), sq("a3", 7));
  // The far edges: Black's e6 to row 7 over d7 / e7, White's f6 to column g over g5 / g6.
  const Board far = with_stones(7, {"e6"}, {"f6"}, hex::kWhite);
  EXPECT_EQ(hex::bridge_reply(far.play(sq("d7", 7))), sq("e7", 7));
  EXPECT_EQ(hex::bridge_reply(far.play(sq("e7", 7))), sq("d7", 7));
  const Board far_w = with_stones(7, {"e6"}, {"f6"}, hex::kBlack);
  EXPECT_EQ(hex::bridge_reply(far_w.play(sq("g5", 7))), sq("g6", 7));
  EXPECT_EQ(hex::bridge_reply(far_w.play(sq("g6", 7))), sq("g5", 7));
  // An edge is its owner's only: White's stone on the second row has no bridge to Black's edge.
  EXPECT_EQ(hex::bridge_reply(with_stones(7, {"a7"}, {"c2"}, hex::kBlack).play(sq("c1", 7))), -1);
  // The last stone must be the opponent's. White's d3 next to its own c3 and d4 would "restore"
  // c4 if the rule looked at the mover's own stone, as it would after GTP's out-of-turn play.
  Board own = with_stones(7, {"f6"}, {"c3", "d4"}, hex::kWhite).play(sq("d3", 7));
  own.side = hex::kWhite;  // White to move again
  EXPECT_EQ(hex::bridge_reply(own), -1);
  // No bridge broken: a stone away from the mover's pairs, or a bridge already lost.
  EXPECT_EQ(hex::bridge_reply(base.play(sq("g1", 7))), -1);
  const Board lost = with_stones(7, {"c3", "d4"}, {"c4", "f6"}, hex::kWhite);
  EXPECT_EQ(hex::bridge_reply(lost.play(sq("d3", 7))), -1);
  // The swap clears the last stone: nothing to answer.
  const Board swapped = hex::empty_board(7, true).play(sq("d4", 7)).play(hex::kSwapSquare);
  EXPECT_EQ(swapped.last, -1);
  EXPECT_EQ(hex::bridge_reply(swapped), -1);
}

// Checked against the definition on random positions: whenever a reply is given it is an empty
// cell adjacent to the last stone, and some two cells held by the mover (stones or its edge)
// are both adjacent to the reply and to the last stone without touching each other; and
// whenever the definition finds such a pair the rule gives a reply.
TEST(HexPatterns, BridgeReplyAgreesWithTheDefinitionOnRandomPositions) {
  for (int n : {4, 5, 7, 11}) {
    // Cells (or off-board stand-ins) adjacent to square x, in (col, row) coordinates.
    auto adjacent = [](int c1, int r1, int c2, int r2) {
      const int dc = c2 - c1, dr = r2 - r1;
      return (dc == 1 && dr == 0) || (dc == -1 && dr == 0) || (dc == 0 && dr == 1) || (dc == 0 && dr == -1) ||
             (dc == 1 && dr == -1) || (dc == -1 && dr == 1);
    };
    // Held by `colour` for a bridge, written from the rules rather than from the code under test:
    // its stone, or off the board beyond one of its own edges only (Black joins the first and
    // last rows, White the first and last columns: game.hpp's on_edge).
    auto held_by = [n](const Board& b, int colour, int c, int r) {
      const bool off_rows = r < 0 || r >= n, off_cols = c < 0 || c >= n;
      if (off_rows && off_cols) return false;
      if (off_rows) return colour == hex::kBlack;
      if (off_cols) return colour == hex::kWhite;
      return b.stones[colour].has(hex::square_of(c, r));
    };
    int replies = 0;
    for (u32 g = 0; g < 300; ++g) {
      Rng rng(5, Purpose::kGame, g);
      Board b = hex::empty_board(n);
      const int plies = 2 + static_cast<int>(rng.below(static_cast<u32>(n * n - 2)));
      for (int p = 0; p < plies && !b.terminal(); ++p) b = b.play(play::random_move(b.moves(), rng));
      if (b.terminal()) continue;
      const int mover = b.side, x = b.last;
      const int xc = hex::col_of(x), xr = hex::row_of(x);
      bool pair_exists = false;
      std::vector<int> replies_by_definition;
      for (hex::Cells e = b.empty(); e.any(); e.drop_lowest()) {
        const int y = e.lowest(), yc = hex::col_of(y), yr = hex::row_of(y);
        if (!adjacent(xc, xr, yc, yr)) continue;
        // Held positions around both x and y: the board and one ring of off-board stand-ins.
        std::vector<std::pair<int, int>> held;
        for (int c = -1; c <= n; ++c)
          for (int r = -1; r <= n; ++r)
            if (adjacent(xc, xr, c, r) && adjacent(yc, yr, c, r) && held_by(b, mover, c, r)) held.push_back({c, r});
        for (std::size_t i = 0; i < held.size(); ++i)
          for (std::size_t j = i + 1; j < held.size(); ++j)
            if (!adjacent(held[i].first, held[i].second, held[j].first, held[j].second)) {
              pair_exists = true;
              replies_by_definition.push_back(y);
            }
      }
      const int reply = hex::bridge_reply(b);
      EXPECT_EQ(reply >= 0, pair_exists) << "n " << n << " game " << g;
      if (reply >= 0) {
        ++replies;
        EXPECT_NE(std::find(replies_by_definition.begin(), replies_by_definition.end(), reply),
                  replies_by_definition.end())
            << "n " << n << " game " << g;
      }
    }
    EXPECT_GT(replies, 10) << "n " << n;  // the positions exercise the rule
  }
}

TEST(HexPatterns, BridgeRandomPlayersAnswerEveryBrokenBridgeAndFinishTheirGames) {
  const play::HexParams policy = play::hex_bridge_random_agent().params;
  play::HexRecord record;
  int answered = 0;
  for (u32 g = 0; g < 200; ++g) {
    play::play_game<games::Hex>(policy, policy, hex::empty_board(9), 7, g, record, {});
    ASSERT_GT(record.plies, 0);
    Board b = hex::empty_board(9);
    for (int p = 0; p < record.plies; ++p) {
      const int reply = hex::bridge_reply(b);
      const int move = record.moves[p];
      if (reply >= 0) {
        EXPECT_EQ(move, reply) << "game " << g << " ply " << p;
        ++answered;
      }
      ASSERT_TRUE(b.legal(move));
      b = b.play(move);
    }
    EXPECT_TRUE(b.terminal());
  }
  EXPECT_GT(answered, 200);
}

// The flag reaches the playouts and the players: the same starts and stream give other winners
// with bridge replies, and a table that plays both kinds of UCT builds each its own tree.
TEST(HexPatterns, BridgeRepliesChangeThePlayoutsAndTheGames) {
  play::InlinePlayouts playouts;
  std::vector<Board> starts(64, hex::empty_board(11));
  std::vector<signed char> plain(starts.size()), bridged(starts.size());
  playouts.run(starts, 9, 0, plain, false);
  playouts.run(starts, 9, 0, bridged, true);
  EXPECT_NE(plain, bridged);
  const play::HexPlayer random_uct = play::parse_hex_player("uct:playouts=60");
  const play::HexPlayer bridge_uct = play::parse_hex_player("uct:playouts=60,playout=bridge");
  play::HexTable table;
  int differ = 0;
  for (u32 g = 0; g < 4; ++g) {
    const play::HexRecord mixed = table.play(bridge_uct, random_uct, hex::empty_board(7), 3, g);
    const play::HexRecord same = table.play(bridge_uct, bridge_uct, hex::empty_board(7), 3, g);
    differ += play::hex_move_list(mixed) != play::hex_move_list(same);
  }
  EXPECT_GT(differ, 0);  // White's playouts differ, so its moves do
}

TEST(HexUct, FindsTheWinInOne) {
  // 7x7, Black to move: column c is Black's but for c4; White has a wall elsewhere.
  const Board b =
      with_stones(7, {"c1", "c2", "c3", "c5", "c6", "c7"}, {"e1", "e2", "e3", "e4", "e5", "f6"}, hex::kBlack);
  ASSERT_FALSE(b.terminal());
  play::InlinePlayouts playouts;
  play::UctParams p;
  p.playouts = 2000;
  play::Uct uct(p, playouts);
  u64 done = 0;
  const int m = uct.choose(b, 3, done);
  EXPECT_EQ(m, sq("c4", 7));
  EXPECT_TRUE(wins_now(b, m));
  EXPECT_LT(done, 2000u);  // leaves where c4 has won need no playout
}

TEST(HexUct, FindsAForcedWinInTwo) {
  // 7x7, Black to move: chains c1-c3 and b6-b7 joined by c4 (adjacent to c3, bridged to b6 over
  // b5/c5) or by b5 (bridged to c3 over b4/c4); no single move wins.
  const Board b = with_stones(7, {"c1", "c2", "c3", "b6", "b7"}, {"e3", "e4", "e5", "d6", "a5", "f2"}, hex::kBlack);
  ASSERT_FALSE(b.terminal());
  int winning = 0, losing = 0;
  for (hex::Cells m = b.moves(); m.any(); m.drop_lowest()) {
    ASSERT_FALSE(wins_now(b, m.lowest()));
    (wins_in_two(b, m.lowest()) ? winning : losing)++;
  }
  ASSERT_GT(winning, 0);
  ASSERT_GT(losing, 10);
  play::InlinePlayouts playouts;
  play::UctParams p;
  p.playouts = 20000;
  play::Uct uct(p, playouts);
  u64 done = 0;
  const int m = uct.choose(b, 4, done);
  EXPECT_TRUE(wins_in_two(b, m)) << play::hex_cell_name(m) << " (" << winning << " winning moves)";
}

TEST(HexUct, RootMovesRestrictTheRootAndNoneLegalMeansAll) {
  const Board b = with_stones(7, {"c1", "c2", "c3", "b6", "b7"}, {"e3", "e4", "e5", "d6", "a5", "f2"}, hex::kBlack);
  play::InlinePlayouts playouts;
  play::UctParams p;
  p.playouts = 300;
  play::Uct uct(p, playouts);
  u64 done = 0;
  hex::Cells root;
  for (const char* c : {"c4", "b5", "g7"}) root.set(sq(c, 7));
  root.set(sq("c1", 7));  // a stone: not a legal move, left out
  const int m = uct.choose(b, 5, done, &root);
  EXPECT_TRUE(root.has(m));
  const auto visits = uct.root_visits();
  ASSERT_EQ(visits.size(), 3u);
  int total = 0;
  for (const auto& [square, n] : visits) {
    EXPECT_TRUE(root.has(square) && b.legal(square)) << square;
    total += n;
  }
  EXPECT_EQ(total, 300);
  const hex::Cells stones_only = hex::Cells::bit(sq("c1", 7));
  uct.choose(b, 5, done, &stones_only);
  EXPECT_EQ(static_cast<int>(uct.root_visits().size()), b.moves().count());
}

TEST(HexUct, BatchedPlayoutsOnABackendChooseAsInlinePlayoutsDo) {
  auto backend = make_backend("cpu", 2);
  play::InlinePlayouts inline_playouts;
  play::BackendPlayouts batched(*backend);
  for (int batch : {1, 16, -16}) {  // -16: batches of 16 with bridge replies in the playouts
    play::UctParams p;
    p.playouts = 600;
    p.leaf_batch = std::abs(batch);
    p.bridge_replies = batch < 0;
    play::Uct a(p, inline_playouts), b(p, batched);
    Rng rng(1, Purpose::kGame, static_cast<u32>(batch));
    Board s = hex::empty_board(7);
    for (int ply = 0; ply < 6 && !s.terminal(); ++ply) {
      u64 n1 = 0, n2 = 0;
      const int m1 = a.choose(s, 100 + ply, n1), m2 = b.choose(s, 100 + ply, n2);
      ASSERT_EQ(m1, m2) << "batch " << batch << " ply " << ply;
      EXPECT_EQ(a.root_visits(), b.root_visits());
      EXPECT_EQ(n1, n2);
      s = s.play(m1);
    }
  }
}

TEST(HexBatch, RecordsAreTheSameOnOneAndTwoThreads) {
  std::vector<play::HexRecord> out[2];
  for (int t = 0; t < 2; ++t) {
    auto backend = make_backend("cpu", t + 1);
    const int random = backend->add_agent(play::hex_random_agent());
    play::HexAgent ev;
    ev.name = "ev";
    ev.params.kind = play::HexEvaluator::kBetweenness;
    ev.params.epsilon_ppm = 100000;
    const int e = backend->add_agent(ev);
    std::vector<GameJobOf<games::Hex>> jobs;
    for (u32 g = 0; g < 24; ++g) {
      GameJobOf<games::Hex> j;
      j.black = g % 2 ? random : e;
      j.white = g % 2 ? e : random;
      j.start = hex::empty_board(g % 3 == 0 ? 5 : 6, g % 4 == 1);
      j.seed = 77;
      j.game = g;
      jobs.push_back(j);
    }
    out[t].resize(jobs.size());
    backend->play(std::span<const GameJobOf<games::Hex>>(jobs), std::span<play::HexRecord>(out[t]));
  }
  for (std::size_t g = 0; g < out[0].size(); ++g) {
    EXPECT_EQ(play::hex_move_list(out[0][g]), play::hex_move_list(out[1][g])) << g;
    EXPECT_EQ(out[0][g].black_score, out[1][g].black_score);
    EXPECT_NE(out[0][g].black_score, 0);  // Hex has no draws
  }
}

TEST(HexPlayers, SpecsParseToCanonicalFormsAndBadOnesNameTheProblem) {
  EXPECT_EQ(play::parse_hex_player("uct").spec, "uct:playouts=5000,c=0.38,expand=1,batch=1");
  EXPECT_EQ(play::parse_hex_player("ev:gamma=0.1").agent.params.betweenness.gamma, 0.1);
  EXPECT_EQ(play::parse_hex_player(play::parse_hex_player("ev:gamma=0.5,depth=2").spec).spec,
            play::parse_hex_player("ev:gamma=0.5,depth=2").spec);
  EXPECT_EQ(play::parse_hex_player("random").agent.params.kind, play::HexEvaluator::kRandom);
  const play::HexPlayer bridge = play::parse_hex_player("uct:playouts=100,playout=bridge");
  EXPECT_TRUE(bridge.uct_params.bridge_replies);
  EXPECT_EQ(bridge.spec, "uct:playouts=100,c=0.38,expand=1,batch=1,playout=bridge");
  EXPECT_EQ(play::parse_hex_player(bridge.spec).spec, bridge.spec);
  EXPECT_FALSE(play::parse_hex_player("uct:playout=random").uct_params.bridge_replies);
  EXPECT_EQ(play::parse_hex_player("uct:playout=random").spec, play::parse_hex_player("uct").spec);
  const play::HexPlayer pruned = play::parse_hex_player("uct:playouts=100,playout=bridge,prune=vc");
  EXPECT_TRUE(pruned.vc_prune);
  EXPECT_EQ(pruned.spec, "uct:playouts=100,c=0.38,expand=1,batch=1,playout=bridge,prune=vc");
  EXPECT_EQ(play::parse_hex_player(pruned.spec).spec, pruned.spec);
  EXPECT_EQ(play::parse_hex_player("uct:prune=none").spec, play::parse_hex_player("uct").spec);
  const std::pair<const char*, const char*> bad[] = {
      {"mohex", "unknown kind 'mohex'"},
      {"uct:playout=patterns", "playout=patterns"},
      {"uct:prune=all", "prune=all"},
      {"resistance:prune=vc", "unknown key 'prune'"},
      {"ev:playout=bridge", "unknown key 'playout'"},
      {"uct:playouts=0", "playouts=0"},
      {"ev:gamma=-1", "gamma -1"},
      {"ev:depth=9", "depth=9"},
      {"ev:speed=3", "unknown key 'speed'"},
      {"uct:c=x", "c=x is not a number"},
      {"resistance:gamma=1", "unknown key 'gamma'"},
      {"ev:gamma", "'gamma' is not key=value"},
      {"ev:sign=0", "sign=0"},
      {"random:depth=1", "unknown key 'depth'"},
      // A key given twice is refused, not taken last-wins.
      {"uct:playouts=10,c=0.3,playouts=20", "playouts is given twice (playouts=10 and playouts=20)"},
      {"ev:vc=1,vc=0", "vc is given twice"}};
  for (const auto& case_ : bad) {
    const char* spec = case_.first;  // plain variables: clang < 16 cannot capture structured bindings
    const char* message = case_.second;
    const std::string e = error_of([&] { play::parse_hex_player(spec); });
    EXPECT_NE(e.find(message), std::string::npos) << spec << ": " << e;
  }
  // A 120 kB spec is refused with a short excerpt, not echoed whole.
  const std::string huge = "uct:playouts=" + std::string(120000, '9');
  const std::string e = error_of([&] { play::parse_hex_player(huge); });
  EXPECT_NE(e.find("is 120013 bytes, longer than any player spec (at most 1024)"), std::string::npos)
      << e.substr(0, 300);
  EXPECT_LT(e.size(), 300u);
}

TEST(HexMatchRun, ResumesToTheSameGamesAndRejectsTamperedRows) {
  const auto dir = scratch_dir("hex", "match");
  play::HexMatchConfig c;
  c.a = "uct:playouts=40";
  c.b = "random";
  c.games = 6;
  c.size = 5;
  play::HexMatchRunOptions o;
  o.threads = 2;
  const auto first = play::run_hex_match(dir / "full", &c, o);
  ASSERT_EQ(first.size(), 6u);
  test::expect_refused_while_held(dir / "full", "hex-match", [&] { play::run_hex_match(dir / "full", nullptr, o); });
  test::expect_edited_config_refused(dir / "full", [&] { play::run_hex_match(dir / "full", nullptr, o); });
  // Keep the header and two rows, tear the third: the resumed run plays the rest, same games.
  const std::string csv = file_bytes(dir / "full" / "games.csv");
  std::filesystem::create_directories(dir / "cut");
  for (const char* f : {"run.toml", "config.toml"}) std::filesystem::copy_file(dir / "full" / f, dir / "cut" / f);
  std::size_t pos = 0;
  for (int lines = 0; lines < 3; ++lines) pos = csv.find('\n', pos) + 1;
  std::ofstream(dir / "cut" / "games.csv") << csv.substr(0, pos + 5);
  o.threads = 1;
  const auto resumed = play::run_hex_match(dir / "cut", nullptr, o);
  ASSERT_EQ(resumed.size(), 6u);
  for (int g = 0; g < 6; ++g) {
    EXPECT_EQ(resumed[g].moves, first[g].moves) << g;
    EXPECT_EQ(resumed[g].a_won, first[g].a_won);
  }
  // A row whose winner does not follow from its moves is refused, naming the line.
  std::string rows = file_bytes(dir / "full" / "games.csv");
  const std::size_t second_line = rows.find('\n') + 1;
  std::string tampered = rows;
  const std::size_t comma3 = [&] {
    std::size_t p = second_line;
    for (int k = 0; k < 3; ++k) p = rows.find(',', p) + 1;
    return p;
  }();
  tampered[comma3] = tampered[comma3] == 'A' ? 'B' : 'A';
  std::ofstream(dir / "full" / "games.csv") << tampered;
  const std::string e = error_of([&] { play::run_hex_match(dir / "full", nullptr, o); });
  EXPECT_NE(e.find("games.csv:2"), std::string::npos) << e;
  EXPECT_NE(e.find("not by the winner written"), std::string::npos) << e;
}

TEST(HexTune, AStoppedRunResumesToTheSameGenerations) {
  const auto dir = scratch_dir("hex", "tune");
  ga::HexTuneConfig c;
  c.opponent = "random";
  c.population = 4;
  c.elite = 1;
  c.mutants = 1;
  c.generations = 3;
  c.games = 4;
  c.size = 4;
  ga::HexTuneOptions o;
  o.threads = 2;
  const ga::HexTuneResult full = ga::run_hex_tune(dir / "full", &c, o);
  EXPECT_EQ(full.generations_done, 3);
  test::expect_refused_while_held(dir / "full", "hex-tune", [&] { ga::run_hex_tune(dir / "full", nullptr, o); });
  test::expect_edited_config_refused(dir / "full", [&] { ga::run_hex_tune(dir / "full", nullptr, o); });
  // Stop once the first generation is on disk, then resume on one thread.
  bool stopped = false;
  o.stop_requested = [&] { return file_bytes(dir / "cut" / "best.csv").find("\n0,") != std::string::npos; };
  o.stopped = &stopped;
  ga::run_hex_tune(dir / "cut", &c, o);
  EXPECT_TRUE(stopped);
  EXPECT_EQ(file_bytes(dir / "cut" / "best.csv").find("\n1,"), std::string::npos);  // only generation 0
  o.stop_requested = nullptr;
  o.threads = 1;
  const ga::HexTuneResult resumed = ga::run_hex_tune(dir / "cut", nullptr, o);
  EXPECT_EQ(resumed.best_gamma, full.best_gamma);
  EXPECT_EQ(file_bytes(dir / "cut" / "generations.csv"), file_bytes(dir / "full" / "generations.csv"));
  EXPECT_EQ(file_bytes(dir / "cut" / "best.csv"), file_bytes(dir / "full" / "best.csv"));
  // A checkpoint from another population size is refused, naming the file.
  c.population = 5;
  std::filesystem::remove_all(dir / "other");
  ga::run_hex_tune(dir / "other", &c, ga::HexTuneOptions{});
  std::filesystem::copy_file(dir / "full" / "population.bin", dir / "other" / "population.bin",
                             std::filesystem::copy_options::overwrite_existing);
  const std::string e = error_of([&] { ga::run_hex_tune(dir / "other", nullptr, ga::HexTuneOptions{}); });
  EXPECT_NE(e.find("population.bin"), std::string::npos) << e;
}

TEST(HexRoundRobin, OpeningsArePlayedOnceWithEachColourAndResultsDoNotDependOnThreads) {
  const std::vector<play::HexPlayer> players = {play::parse_hex_player("resistance"), play::parse_hex_player("ev"),
                                                play::parse_hex_player("uct:playouts=50")};
  const hex::Board start = hex::empty_board(5);
  std::vector<play::HexClock> clocks;
  const auto one = play::hex_round_robin(players, 6, start, 3, 1, 2, &clocks);
  const auto two = play::hex_round_robin(players, 6, start, 3, 2, 2);
  ASSERT_EQ(one.size(), 18u);
  for (std::size_t g = 0; g < one.size(); ++g) {
    EXPECT_EQ(one[g].first, two[g].first);
    EXPECT_EQ(one[g].second, two[g].second);
    EXPECT_EQ(one[g].score, two[g].score) << g;
  }
  // The contract of the header, game by game: game k of pair (i, j) starts from opening k / 2,
  // i is Black in even games.
  play::HexTable table;
  std::vector<u64> moves(3, 0);  // each player's moves in the replays
  std::size_t u = 0;
  for (int i = 0; i < 3; ++i)
    for (int j = i + 1; j < 3; ++j)
      for (int k = 0; k < 6; ++k, ++u) {
        const hex::Board opening = play::hex_random_opening(start, 2, 3, static_cast<u32>(k / 2));
        EXPECT_EQ(opening.plies, 2);
        EXPECT_EQ((opening.stones[0] | opening.stones[1]).count(), 2);
        EXPECT_EQ(opening.stones[0].count(), 1);  // one stone each: Black to move again
        const int black = k % 2 == 0 ? i : j, white = k % 2 == 0 ? j : i;
        const u32 game = static_cast<u32>(i) << 20 | static_cast<u32>(j) << 10 | static_cast<u32>(k);
        const play::HexRecord r = table.play(players[black], players[white], opening, 3, game);
        EXPECT_EQ(one[u].first, black);
        EXPECT_EQ(one[u].score, r.black_score > 0 ? 1.0 : 0.0) << i << " " << j << " " << k;
        moves[static_cast<std::size_t>(black)] += static_cast<u64>((r.plies + 1) / 2);  // Black moves first
        moves[static_cast<std::size_t>(white)] += static_cast<u64>(r.plies / 2);
      }
  // Three openings, not one: deterministic players get distinct games.
  EXPECT_NE(play::hex_random_opening(start, 2, 3, 0).stones[0], play::hex_random_opening(start, 2, 3, 1).stones[0]);
  // Each player's clock counted its own moves (the opening's are nobody's), and some time.
  ASSERT_EQ(clocks.size(), 3u);
  for (std::size_t p = 0; p < 3; ++p) {
    EXPECT_EQ(clocks[p].moves, moves[p]) << p;
    EXPECT_GT(clocks[p].seconds, 0.0) << p;
  }
  // An odd number of games cannot give each opening both colours.
  EXPECT_NE(error_of([&] { play::hex_round_robin(players, 5, start, 3, 1, 2); }).find("odd"), std::string::npos);
}

TEST(HexCommands, TournamentRatesTheStrongerPlayerHigherAndBadSpecsExit2) {
  const std::string bin = EF_EVALFORGE_BIN;
  const auto [rc, out] =
      test::run_command(bin + " hex tournament --player random --player resistance --games 6 --size 5 2>&1");
  ASSERT_EQ(rc, 0) << out;
  // The resistance player should win every game against random on 5x5 (the games are fixed by
  // the seed, so this is a deterministic check that the cross table counts the right side).
  EXPECT_NE(out.find("random"), std::string::npos) << out;
  const std::size_t row = out.find("  2 resistance");
  ASSERT_NE(row, std::string::npos) << out;
  EXPECT_NE(out.substr(row, out.find('\n', row) - row).find("    6    -"), std::string::npos) << out;
  const auto [rc2, out2] =
      test::run_command(bin + " hex match --a mohex --b random --games 2 --out /tmp/ef_hex_bad_spec 2>&1");
  EXPECT_EQ(rc2, 2) << out2;
  EXPECT_NE(out2.find("unknown kind 'mohex'"), std::string::npos) << out2;
  EXPECT_FALSE(std::filesystem::exists("/tmp/ef_hex_bad_spec/config.toml"));
  const auto [rc3, out3] = test::run_command(
      bin + " hex tournament --player random --player resistance --games 5 --opening-plies 2 --size 5 2>&1");
  EXPECT_EQ(rc3, 2) << out3;
  EXPECT_NE(out3.find("--games 5 is odd"), std::string::npos) << out3;
}

// A resumed match or tune takes its settings from its directory: a setting given with --resume
// would be ignored, so it is refused (before any directory is read).
TEST(HexCommands, ResumeRefusesTheSettingsItWouldIgnore) {
  const std::string bin = EF_EVALFORGE_BIN;
  for (const std::string args : {"match --resume /nonexistent --games 10", "match --resume /nonexistent --swap",
                                 "tune --resume /nonexistent --generations 5", "tune --resume /nonexistent --seed 3"}) {
    const auto [rc, out] = test::run_command(bin + " hex " + args + " 2>&1");
    EXPECT_NE(rc, 0) << args << ": " << out;
    const std::string setting = args.substr(args.find(" --", args.find("--resume") + 1) + 1);
    EXPECT_NE(out.find(setting.substr(0, setting.find(' ')) + " excludes --resume"), std::string::npos)
        << args << ": " << out;
  }
}

// A tune stopped before its first generation ends has measured no gamma, and says so instead of
// printing one. (Generation 0 here is 200 games against a 2,000-playout UCT on 9 x 9: minutes,
// while the interrupt comes after 2 s.)
TEST(HexCommands, ATuneStoppedInItsFirstGenerationPrintsNoBestGamma) {
  const auto dir = scratch_dir("hex", "tune-stop");
  // SIGINT once the run has logged its start (its stop handler is in place by then), not after a
  // fixed delay: on a loaded machine that could land before the handler, or after generation 0.
  // (Up to 120 s for the start line: a suite run beside other work took over 30 s once.)
  const std::string run = (dir / "run").string(), log = run + "/log.txt";
  const auto [rc, out] = test::run_command(
      "bash -c '" + std::string(EF_EVALFORGE_BIN) +
      " hex tune --population 4 --elite 1 --mutants 1 --generations 3 --games 2000 --size 9 --threads 1"
      " --opponent uct:playouts=2000 --out " +
      run + " > " + (dir / "out.txt").string() +
      " 2>&1 & pid=$!; for i in $(seq 2400); do grep -q \"hex tune: gamma\" " + log +
      " 2>/dev/null && break; sleep 0.05; done; kill -INT $pid; wait $pid; cat " + (dir / "out.txt").string() + "'");
  // The signal lands after the start line: between it and generation 0's first check ("before"),
  // or among its games ("during"); which one depends on the machine's load.
  EXPECT_TRUE(out.find("stopped during generation 0") != std::string::npos ||
              out.find("stopped before generation 0") != std::string::npos)
      << out;
  EXPECT_NE(out.find("no generation finished yet, so no best gamma"), std::string::npos) << out;
  EXPECT_EQ(out.find("); best gamma "), std::string::npos) << out;  // the line of a finished generation
  std::filesystem::remove_all(dir);
}

// hex solve --moves: a move after the game is won says so, instead of "not an empty cell".
TEST(HexCommands, AMoveAfterTheGameIsWonIsNamedAsSuch) {
  const std::string bin = EF_EVALFORGE_BIN;
  // On the 1 x 1 board Black's first stone connects both of Black's edges at once.
  const auto [rc, out] = test::run_command(bin + " hex solve --size 1 --moves \"a1 a1\" 2>&1");
  EXPECT_EQ(rc, 2) << out;
  EXPECT_NE(out.find("move 2 ('a1') comes after the game is over (Black connected with move 1)"), std::string::npos)
      << out;
}
