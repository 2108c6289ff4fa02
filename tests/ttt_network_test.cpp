// The Tic-Tac-Toe network evaluator (games/tictactoe/network.hpp): values against hand computation,
// gene decoding, and the network under minimax through the playout engine.
#include <gtest/gtest.h>
#include <vector>
#include "evalforge/backends/backend.hpp"
#include "evalforge/games/registry.hpp"
#include "evalforge/games/tictactoe/network.hpp"

using namespace ef;
using namespace ef::tictactoe;

namespace {

// The bits of genes given as half-unit values (gene = value + 16, 5 bits, most significant first).
std::vector<unsigned char> bits_of(const std::vector<int>& half_units) {
  std::vector<unsigned char> bits;
  for (int v : half_units) {
    const int g = v + 16;
    for (int k = 4; k >= 0; --k) bits.push_back(static_cast<unsigned char>(g >> k & 1));
  }
  return bits;
}

Board board(const char* cells, int side) {  // "x.o......": a1 b1 c1 a2 ...
  Board b;
  for (int i = 0; i < 9; ++i) {
    if (cells[i] == 'x') b.x |= 1u << i;
    if (cells[i] == 'o') b.o |= 1u << i;
  }
  b.side = side;
  return b;
}

}  // namespace

TEST(TttNetwork, GeneAndBitCountsOfBothTopologies) {
  EXPECT_EQ(network_genes(Topology::kFull), 281);  // 257 weights + 24 thresholds
  EXPECT_EQ(network_bits(Topology::kFull), 1405);
  EXPECT_EQ(network_genes(Topology::kPaper), 118);  // the source's 95 weights + 23 thresholds
  EXPECT_EQ(network_bits(Topology::kPaper), 590);
}

TEST(TttNetwork, DecodingReadsFiveBitGenesInLayerOrder) {
  std::vector<int> genes(281, 0);
  genes[0] = -16;            // w1[0][0]: gene 0, value -8
  genes[9 * 3 + 4] = 15;     // w1[3][4]: gene 31, value 7.5
  genes[162 + 2] = 7;        // t1[2]
  genes[180 + 18 + 5] = -1;  // w2[1][5]
  genes[270 + 4] = 3;        // t2[4]
  genes[275 + 1] = -9;       // w3[1]
  genes[280] = 12;           // t3
  const Network n = decode_network(bits_of(genes).data(), Topology::kFull);
  EXPECT_EQ(n.w1[0][0], -16);
  EXPECT_EQ(n.w1[3][4], 15);
  EXPECT_EQ(n.w1[3][5], 0);
  EXPECT_EQ(n.t1[2], 7);
  EXPECT_EQ(n.w2[1][5], -1);
  EXPECT_EQ(n.t2[4], 3);
  EXPECT_EQ(n.w3[1], -9);
  EXPECT_EQ(n.t3, 12);
  // The first gene's bits are 00000 (value -8); all-ones is gene 31 (value +7.5).
  const std::vector<unsigned char> ones(1405, 1);
  const Network m = decode_network(ones.data(), Topology::kFull);
  EXPECT_EQ(m.w1[8][8], 15);
  EXPECT_EQ(m.t3, 15);
}

TEST(TttNetwork, FullNetworkValuesByHand) {
  // Hidden unit 0 fires on X in the centre (2 * x >= 2); the others never fire (threshold 15 >
  // any sum of these weights). Second-layer unit 0 = NOT(unit 0): -3 * h >= -2; its output
  // weight 5 (2.5), output threshold -1 (-0.5): value = 5 * h2 + 1 half units.
  Network n;
  n.topology = Topology::kFull;
  n.w1[0][4] = 2;
  n.t1[0] = 2;
  for (int i = 1; i < kHidden1; ++i) n.t1[i] = 15;
  n.w2[0][0] = -3;
  n.t2[0] = -2;
  for (int k = 1; k < kHidden2; ++k) n.t2[k] = 15;
  n.w3[0] = 5;
  n.t3 = -1;
  EXPECT_EQ(n.value_for_x(board(".........", kX)), 6);
  EXPECT_EQ(n.value_for_x(board("....x....", kO)), 1);
  EXPECT_EQ(n.value_for_x(board("....o....", kX)), 6);
  // Under the search the value is from the side to move.
  NetworkEvaluator e{&n};
  EXPECT_EQ(e.eval(board("....x....", kO)), -1);
  EXPECT_EQ(e.eval(board("x...o....", kX)), 6);
}

TEST(TttNetwork, PaperTopologyDetectsMarksThroughItsFixedFirstLayer) {
  // Units 2j (+x) and 2j+1 (-x) per square; unit 0 fires on X at a1 with threshold 2, unit 3
  // on O at b1 with threshold 2; others never (15). Second layer: unit 0 = (unit 0 + unit 3 >= 2)
  // = X at a1 AND O at b1, weight 8 (4.0) to the output; no output threshold.
  std::vector<int> genes;
  std::vector<int> t1(18, 15);
  t1[0] = 2;
  t1[3] = 2;
  genes.insert(genes.end(), t1.begin(), t1.end());
  std::vector<int> w2(90, 0);
  w2[0] = 1;
  w2[3] = 1;
  genes.insert(genes.end(), w2.begin(), w2.end());
  genes.insert(genes.end(), {2, 15, 15, 15, 15});  // t2
  genes.insert(genes.end(), {8, 0, 0, 0, 0});      // w3
  const Network n = decode_network(bits_of(genes).data(), Topology::kPaper);
  EXPECT_EQ(n.value_for_x(board("xo.......", kX)), 8);
  EXPECT_EQ(n.value_for_x(board("x........", kO)), 0);
  EXPECT_EQ(n.value_for_x(board("ox.......", kX)), 0);
  EXPECT_EQ(n.value_for_x(board(".o.......", kX)), 0);
}

TEST(TttNetwork, ANetworkPlayerPlaysLegalGamesThroughTheBackend) {
  // A random network (all genes from a fixed pattern) at depth 4 against the static evaluator
  // at depth 4: games end, moves are legal; the same on 1 and 2 threads.
  std::vector<unsigned char> bits(1405);
  for (std::size_t i = 0; i < bits.size(); ++i) bits[i] = static_cast<unsigned char>((i * 7 + i / 3) % 2);
  play::TicTacToeAgent net;
  net.name = "net";
  net.params.kind = play::TicTacToeEvaluator::kNetwork;
  net.params.depth = 4;
  net.params.network = decode_network(bits.data(), Topology::kFull);
  play::TicTacToeAgent stat;
  stat.params.depth = 4;
  auto one = make_backend("cpu", 1), two = make_backend("cpu", 2);
  for (Backend* b : {one.get(), two.get()}) {
    b->add_agent(net);
    b->add_agent(stat);
  }
  std::vector<GameJobOf<games::TicTacToe>> jobs(18);
  for (int k = 0; k < 18; ++k) {
    jobs[k].black = k % 2;
    jobs[k].white = 1 - k % 2;
    jobs[k].start = Board{}.play(k / 2);
    jobs[k].game = static_cast<u32>(k);
  }
  std::vector<play::TicTacToeRecord> a(jobs.size()), b(jobs.size());
  one->play(jobs, a);
  two->play(jobs, b);
  for (std::size_t k = 0; k < jobs.size(); ++k) {
    Board p = jobs[k].start;
    for (int i = 0; i < a[k].plies; ++i) {
      ASSERT_TRUE(p.moves() >> a[k].moves[i] & 1);
      p = p.play(a[k].moves[i]);
    }
    EXPECT_TRUE(p.terminal());
    EXPECT_EQ(a[k].black_score, p.score_for_x());
    EXPECT_EQ(a[k].plies, b[k].plies);
    EXPECT_TRUE(std::equal(a[k].moves, a[k].moves + a[k].plies, b[k].moves));
  }
}
