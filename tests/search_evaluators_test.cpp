// The search evaluators (SWH, feature weights, n-tuple) on hand-made positions.
#include <gtest/gtest.h>
#include <string>
#include <vector>
#include "core/error.hpp"
#include "games/othello/feature_weights.hpp"
#include "games/othello/features.hpp"
#include "games/othello/game.hpp"
#include "games/othello/ntuple_evaluator.hpp"
#include "games/othello/squares.hpp"
#include "games/othello/swh.hpp"

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
  EXPECT_NE(message("14:42:0").find("players.txt:3: chromosome \"14:42:0\" has 3 fields, 11 expected"),
            std::string::npos)
      << message("14:42:0");
  EXPECT_NE(message("21:42:0:0:4:0:4:10:2:7:9").find("field 1 (o) is 21, expected 1..20"), std::string::npos);
  EXPECT_NE(message("14:40:0:0:4:0:4:10:2:7:9").find("field 2 (e) is 40, expected 41..60"), std::string::npos);
  EXPECT_NE(message("14:42:0:x:4:0:4:10:2:7:9").find("field 4 (wm1) is \"x\""), std::string::npos);
  EXPECT_NE(message("14:42:0:0:4:0:4:10:2:7:9:1").find("more than 11 fields"), std::string::npos);
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
