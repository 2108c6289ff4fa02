// The search evaluators (SWH, feature weights, n-tuple) on hand-made positions.
#include <gtest/gtest.h>
#include <cstdlib>
#include <string>
#include <vector>
#include "evalforge/core/error.hpp"
#include "evalforge/core/rng.hpp"
#include "evalforge/games/othello/bitboard.hpp"
#include "evalforge/games/othello/features.hpp"
#include "evalforge/games/othello/game.hpp"
#include "evalforge/games/othello/ntuple_evaluator.hpp"
#include "evalforge/games/othello/players.hpp"
#include "evalforge/games/othello/squares.hpp"
#include "evalforge/games/othello/swh.hpp"
#include "games/othello/feature_weights.hpp"

using namespace ef;

namespace {

u64 squares(std::initializer_list<const char*> names) {
  u64 m = 0;
  for (const char* n : names) m |= u64{1} << *parse_square(n);
  return m;
}

othello::Position after(std::initializer_list<const char*> line) {
  othello::Position p;
  for (const char* m : line) p = games::Othello::play(p, *parse_square(m));
  return p;
}

}  // namespace

TEST(SearchEvaluators, SwhFromTheSideToMove) {
  othello::Position p;
  p.board = othello::Board::from_colors(squares({"a1"}), squares({"b2"}), othello::kWhite);
  EXPECT_EQ(swh::Evaluator{}.eval(p), -125);  // white: b2 (-25) against black's a1 (+100)
  p.board.pass();
  EXPECT_EQ(swh::Evaluator{}.eval(p), 125);
  EXPECT_EQ(swh::Evaluator{}.exact(-6), -6000);
}

TEST(SearchEvaluators, FeatureWeightsByHand) {
  // After f5 (flips e5): black 4 discs, white 1, white's replies d6, f4, f6; move number 1.
  const othello::Position p = after({"f5"});
  ASSERT_EQ(p.last_flips, 1);
  ASSERT_EQ(p.move_number(), 1);
  ASSERT_EQ(popcount64(games::Othello::moves(p)), 3);
  features::Evaluator e;
  e.weights = features::parse_chromosome("14:50:4:3:10:2:4:9:5:1:5", features::Material::kFlips, "test");
  // Black's value: 4 * 1 flip - 3 * 3 replies + 10 * 0 corners = -5; white to move sees +5.
  EXPECT_EQ(e.eval(p), 5);
  e.weights.kind = features::Material::kDiscs;
  EXPECT_EQ(e.eval(p), -(4 * 3 - 3 * 3));  // disc difference 4 - 1

  // Corners, and the phase by move number: o = 14, e = 50.
  othello::Position c;
  c.board = othello::Board::from_colors(squares({"a1", "h8", "b1"}), squares({"c1", "a8"}), othello::kWhite);
  c.last_flips = 2;
  features::Weights w;
  w.o = 1;  // c is at move 1 (5 discs): phase 1
  w.e = 41;
  w.material[0] = 1;
  w.mobility[0] = 0;
  w.corners[0] = 7;
  w.corners[1] = 100;  // not used at move 1
  const features::Evaluator fe{w, 1000};
  EXPECT_EQ(fe.eval(c), -(1 * 2 + 7 * (2 - 1)));
  EXPECT_EQ(w.phase(1), 0);
  EXPECT_EQ(w.phase(2), 1);
  EXPECT_EQ(w.phase(41), 1);
  EXPECT_EQ(w.phase(42), 2);
  // Mobility counts against the mover: more replies for the opponent, a lower mover value.
  features::Weights m;
  m.mobility[0] = m.mobility[1] = m.mobility[2] = 1;
  const othello::Position q = after({"f5", "d6"});  // black to move, replies counted for black
  const features::Evaluator mobility_only{m, 1000};
  EXPECT_EQ(mobility_only.eval(q), popcount64(games::Othello::moves(q)));
}

TEST(SearchEvaluators, ChromosomeTextRoundTripAndErrors) {
  const features::Weights w = features::parse_chromosome("14:42:0:0:4:0:4:10:2:7:9", features::Material::kDiscs, "x");
  EXPECT_EQ(features::format_chromosome(w), "14:42:0:0:4:0:4:10:2:7:9");
  EXPECT_EQ(w.o, 14);
  EXPECT_EQ(w.e, 42);
  EXPECT_EQ(w.corners[2], 9);
  EXPECT_EQ(w.kind, features::Material::kDiscs);
  const auto message = [](const char* text) {
    try {
      features::parse_chromosome(text, features::Material::kFlips, "players.txt:3");
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message("14:42:0").find("players.txt:3: chromosome \"14:42:0\" has 3 fields, 11 or 26 expected"),
            std::string::npos)
      << message("14:42:0");
  EXPECT_NE(message("21:42:0:0:4:0:4:10:2:7:9").find("field 1 (o) is 21, expected 1..20"), std::string::npos);
  EXPECT_NE(message("14:40:0:0:4:0:4:10:2:7:9").find("field 2 (e) is 40, expected 41..60"), std::string::npos);
  EXPECT_NE(message("14:42:0:x:4:0:4:10:2:7:9").find("field 4 (wm1) is \"x\""), std::string::npos);
  EXPECT_NE(message("14:42:0:0:4:0:4:10:2:7:9:1").find("has 12 fields, 11 or 26 expected"), std::string::npos);
  // The positional family: 26 fields, named in errors.
  const std::string pos = "14:42:0:0:4:0:4:10:2:7:9:1:2:3:4:5:6:7:8:9:10:0:1:2:3:4";
  const features::Weights p = features::parse_chromosome(pos, features::Material::kFlips, "x");
  EXPECT_TRUE(p.positional);
  EXPECT_EQ(features::format_chromosome(p), pos);
  EXPECT_EQ(p.x_squares[0], 1);
  EXPECT_EQ(p.c_squares[0], 5);
  EXPECT_EQ(p.edges[1], 7);
  EXPECT_EQ(p.frontier[2], 3);
  EXPECT_EQ(features::to_genes(p).size(), 26u);
  EXPECT_NE(
      message("14:42:0:0:4:0:4:10:2:7:9:1:2:3:4:5:6:7:8:9:10:0:1:2:3:11").find("field 26 (ws3) is 11, expected 0..10"),
      std::string::npos);
  EXPECT_NE(message((pos + ":1").c_str()).find("more than 26 fields"), std::string::npos);
  EXPECT_FALSE(features::parse_chromosome("14:42:0:0:4:0:4:10:2:7:9", features::Material::kFlips, "x").positional);
}

namespace {

// The positional terms written square by square (features.hpp computes them on bitboards).
int reference_positional(const features::Weights& w, u64 mover, u64 opp, int p) {
  auto at = [](u64 b, int file, int rank) {
    return file >= 0 && file < 8 && rank >= 0 && rank < 8 && (b >> (rank * 8 + file) & 1);
  };
  const u64 empty = ~(mover | opp);
  auto x_squares = [&](u64 own) {
    const int xs[4][4] = {{1, 1, 0, 0}, {6, 1, 7, 0}, {1, 6, 0, 7}, {6, 6, 7, 7}};  // X file, rank; corner
    int n = 0;
    for (const auto& x : xs) n += at(own, x[0], x[1]) && at(empty, x[2], x[3]);
    return n;
  };
  auto edges = [&](u64 own) {
    int n = 0;
    for (int f = 0; f < 8; ++f)
      for (int r = 0; r < 8; ++r) {
        const bool edge = f == 0 || f == 7 || r == 0 || r == 7, corner = (f == 0 || f == 7) && (r == 0 || r == 7);
        n += edge && !corner && at(own, f, r);
      }
    return n;
  };
  auto anchored = [&](u64 own) {
    int n = 0;
    for (int cf : {0, 7})
      for (int cr : {0, 7}) {
        if (!at(own, cf, cr)) continue;
        const int df = cf == 0 ? 1 : -1, dr = cr == 0 ? 1 : -1;
        for (int k = 1; k <= 6 && at(own, cf + k * df, cr); ++k) ++n;
        for (int k = 1; k <= 6 && at(own, cf, cr + k * dr); ++k) ++n;
      }
    return n;
  };
  auto frontier = [&](u64 own) {
    int n = 0;
    for (int f = 0; f < 8; ++f)
      for (int r = 0; r < 8; ++r) {
        if (!at(own, f, r)) continue;
        bool next_to_empty = false;
        for (int df = -1; df <= 1; ++df)
          for (int dr = -1; dr <= 1; ++dr) next_to_empty |= (df || dr) && at(empty, f + df, r + dr);
        n += next_to_empty;
      }
    return n;
  };
  auto c_squares = [&](u64 own) {
    const int cs[8][4] = {{1, 0, 0, 0}, {0, 1, 0, 0}, {6, 0, 7, 0}, {7, 1, 7, 0},
                          {0, 6, 0, 7}, {1, 7, 0, 7}, {7, 6, 7, 7}, {6, 7, 7, 7}};  // C file, rank; corner
    int n = 0;
    for (const auto& c : cs) n += at(own, c[0], c[1]) && at(empty, c[2], c[3]);
    return n;
  };
  return -w.x_squares[p] * (x_squares(mover) - x_squares(opp)) + w.edges[p] * (edges(mover) - edges(opp)) +
         w.anchored[p] * (anchored(mover) - anchored(opp)) - w.frontier[p] * (frontier(mover) - frontier(opp)) -
         w.c_squares[p] * (c_squares(mover) - c_squares(opp));
}

// Positions of random games (seeded), every ply.
std::vector<othello::Position> random_game_positions(int games, u64 seed) {
  std::vector<othello::Position> out;
  Rng rng(seed, Purpose::kGame);
  for (int g = 0; g < games; ++g) {
    othello::Position p;
    while (!games::Othello::terminal(p)) {
      const u64 moves = games::Othello::moves(p);
      p = moves ? games::Othello::play(p, rng.random_bit(moves)) : games::Othello::pass(p);
      out.push_back(p);
    }
  }
  return out;
}

}  // namespace

TEST(SearchEvaluators, PositionalTermsByHandAndAgainstASquareBySquareReference) {
  // Black has just moved (white to move): black a1 b1 c1 g2 d4, white h8 g8 g1 e5 d5.
  othello::Position p;
  p.board = othello::Board::from_colors(squares({"a1", "b1", "c1", "g2", "d4"}),
                                        squares({"h8", "g8", "g1", "e5", "d5"}), othello::kWhite);
  // Move 6 (phase 1 with o = 14); the blog's weights 0, positional wx 1, we 2, wa 3, wr 4, ws 5:
  //   X-squares: black g2 with h1 empty (b2 is empty), white none        -1 x (1 - 0)
  //   edges: black b1 c1, white g8 g1                                    +2 x (2 - 2)
  //   anchored: black b1 c1 from a1, white g8 from h8 (not g1: h1 empty) +3 x (2 - 1)
  //   frontier: all 5 black and all 5 white discs touch an empty square  -4 x (5 - 5)
  //   C-squares: black b1 (but a1 is taken), white g1 next to empty h1,
  //              white g8 (but h8 is taken)                              -5 x (0 - 1)
  const features::Evaluator e = features::evaluator_of(features::parse_chromosome(
      "14:50:0:0:0:0:0:0:0:0:0:1:2:3:4:5:0:0:0:0:0:0:0:0:0:0", features::Material::kFlips, "test"));
  EXPECT_EQ(e.eval(p), -(-1 + 0 + 3 - 0 + 5));  // white to move sees the negated mover's value
  EXPECT_EQ(e.exact(2), 2 * features::kPositionalExactScale);
  EXPECT_EQ(features::evaluator_of(features::Weights{}).exact(2), 2 * features::kExactScale);

  // On positions of random games, with random weights: the bitboard terms equal the reference,
  // the 26-gene chromosome with positional weights 0 values every position as its 11-gene
  // prefix, and the heuristic stays below a 2-disc proven win at the largest weights.
  Rng rng(3, Purpose::kGame);
  const std::vector<othello::Position> positions = random_game_positions(12, 9);
  ASSERT_GT(positions.size(), 500u);
  features::Weights all10;
  all10.positional = true;
  for (int ph = 0; ph < 3; ++ph)
    all10.material[ph] = all10.mobility[ph] = all10.corners[ph] = all10.x_squares[ph] = all10.edges[ph] =
        all10.anchored[ph] = all10.frontier[ph] = all10.c_squares[ph] = 10;
  for (const othello::Position& q : positions) {
    features::Weights w;
    w.positional = true;
    for (int ph = 0; ph < 3; ++ph) {
      int* terms[5] = {w.x_squares, w.edges, w.anchored, w.frontier, w.c_squares};
      for (int* t : terms) t[ph] = static_cast<int>(rng.next_u32() % 11);
    }
    const u64 mover = q.board.opponent, opp = q.board.player;
    for (int ph = 0; ph < 3; ++ph)
      ASSERT_EQ(features::positional_value(w, mover, opp, ph), reference_positional(w, mover, opp, ph));
    const std::string blog = "9:45:3:4:5:6:7:8:1:2:10";
    const features::Evaluator short_form =
        features::evaluator_of(features::parse_chromosome(blog, features::Material::kDiscs, "t"));
    const features::Evaluator long_form = features::evaluator_of(
        features::parse_chromosome(blog + ":0:0:0:0:0:0:0:0:0:0:0:0:0:0:0", features::Material::kDiscs, "t"));
    ASSERT_EQ(short_form.eval(q), long_form.eval(q));
    const features::Evaluator strongest = features::evaluator_of(all10);
    ASSERT_LT(std::abs(strongest.eval(q)), strongest.exact(2));
  }
}

TEST(SearchEvaluators, NTupleSignStagesAndClamp) {
  // One tuple {a1}: its 8 images are the corners, each twice. Weights: empty 0, white -1 disc,
  // black +1 disc; so the output is 2 * (black corners - white corners) discs.
  ntuple::Geometry g;
  g.num_tuples = 1;
  g.mask[0] = 1;
  g.offset[1] = 3;
  const std::vector<i32> w = {0, static_cast<i32>(-ntuple::kOne), static_cast<i32>(ntuple::kOne)};
  const ntuple::Evaluator e = ntuple::Evaluator::single(&g, w.data());
  othello::Position p;
  p.board = othello::Board::from_colors(squares({"a1", "h1", "d4"}), squares({"h8", "e5"}), othello::kWhite);
  EXPECT_EQ(e.value_for_black(p), 2 * ntuple::kOne);
  EXPECT_EQ(e.eval(p), -2 * ntuple::kOne);  // white to move
  p.board.pass();
  EXPECT_EQ(e.eval(p), 2 * ntuple::kOne);
  EXPECT_EQ(e.exact(3), 3 * ntuple::kOne);

  // Per move number: weight set t is t times the base set; p is at move 1 (5 discs).
  std::vector<i32> per_move(3 * ntuple::kMoveNumbers);
  for (int t = 0; t < ntuple::kMoveNumbers; ++t)
    for (int k = 0; k < 3; ++k) per_move[3 * t + k] = w[k] * t;
  const ntuple::Evaluator staged = ntuple::Evaluator::per_move(&g, per_move.data());
  EXPECT_EQ(p.move_number(), 1);
  EXPECT_EQ(staged.value_for_black(p), 2 * ntuple::kOne);
  othello::Position later = p;
  later.board.player |= squares({"c3", "c4", "c5", "c6"});  // 9 discs: move 5
  EXPECT_EQ(staged.value_for_black(later), 5 * 2 * ntuple::kOne);

  // Clamp at +-128 discs: 4 black corners at 40 discs a placement would be 320 discs.
  const std::vector<i32> big = {0, 0, static_cast<i32>(40 * ntuple::kOne)};
  const ntuple::Evaluator clamped = ntuple::Evaluator::single(&g, big.data());
  othello::Position corners;
  corners.board = othello::Board::from_colors(squares({"a1", "h1", "a8", "h8"}), squares({"d4"}), othello::kBlack);
  EXPECT_EQ(clamped.eval(corners), 128 * ntuple::kOne);
}

TEST(SearchEvaluators, AtOnePlyDiscsAreFlipsWithTheWeightDoubled) {
  // After a move, the disc difference is (own - opponent + 1) + 2 x flips: the same constant for
  // every move from one position. So at 1 ply an oe_dmc chromosome with material weights w
  // picks the moves of the oe_fmc chromosome with 2w (docs/evolve.md), as long as no move ends
  // the game (a finished game is scored exactly, without the constant).
  const features::Weights dmc = features::parse_chromosome("9:45:3:4:5:1:7:8:5:2:10", features::Material::kDiscs, "t");
  const features::Weights fmc = features::parse_chromosome("9:45:6:4:5:2:7:8:10:2:10", features::Material::kFlips, "t");
  play::OthelloParams a, b;
  a.kind = b.kind = play::OthelloEvaluator::kFeatures;
  a.features = features::evaluator_of(dmc);
  b.features = features::evaluator_of(fmc);
  Rng rng(0, Purpose::kGame);
  int compared = 0, differ_from_flips_alone = 0;
  for (const othello::Position& p : random_game_positions(20, 4)) {
    const u64 moves = games::Othello::moves(p);
    if (popcount64(moves) < 2) continue;
    bool ends = false;
    for (u64 m = moves; m; m &= m - 1) ends |= games::Othello::terminal(games::Othello::play(p, ctz64(m)));
    if (ends) continue;
    u64 nodes = 0;
    const int by_discs = play::choose_move(a, p, rng, nodes, nullptr);
    ASSERT_EQ(by_discs, play::choose_move(b, p, rng, nodes, nullptr)) << compared;
    ++compared;
    // Not a tautology: the move is not always the one of most flips.
    int most = -1, best = -1;
    for (u64 m = moves; m; m &= m - 1)
      if (const int f = popcount64(othello::flips(p.board.player, p.board.opponent, ctz64(m))); f > most) {
        most = f;
        best = ctz64(m);
      }
    differ_from_flips_alone += best != by_discs;
  }
  EXPECT_GT(compared, 500);
  EXPECT_GT(differ_from_flips_alone, 50);
}
