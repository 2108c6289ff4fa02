// Connect Four (games/connect_four/), the game that only the tests use: its rules on positions
// set up by hand, and the proof that a game registered by one line plays through the generic
// engine -- the CPU backend's playouts (the same records as the shared body run inline, on 1 and
// 2 threads), a round robin with ratings, and the bit-string GA with its fitness as backend
// batches.
#include <gtest/gtest.h>
#include <algorithm>
#include <numeric>
#include "evalforge/backends/backend.hpp"
#include "evalforge/core/error.hpp"
#include "evalforge/engine/round_robin.hpp"
#include "evalforge/ga/bitstring_ga.hpp"
#include "evalforge/ratings/ratings.hpp"
#include "games/connect_four/fitness.hpp"

using namespace ef;
using connect_four::Board;
using games::ConnectFour;

namespace {

// Square of (row, column), row 0 at the bottom.
constexpr int sq(int row, int column) { return connect_four::kColumns * row + column; }

// Plays columns in turn from the empty board (each disc lands on the lowest empty square).
Board drop(std::initializer_list<int> columns) {
  Board b;
  for (int c : columns) {
    const u64 m = b.moves();
    int landing = -1;
    for (int r = 0; r < connect_four::kRows && landing < 0; ++r)
      if (m >> sq(r, c) & 1) landing = sq(r, c);
    EXPECT_GE(landing, 0) << "column " << c << " is full or the game is over";
    if (landing < 0) return b;
    b = b.play(landing);
  }
  return b;
}

play::ConnectFourAgent random_agent() {
  play::ConnectFourAgent a;
  a.name = "random";
  a.params.kind = play::ConnectFourEvaluator::kRandom;
  return a;
}

// Weights that favour the centre column and the lower rows: a sensible hand-made evaluator.
play::ConnectFourAgent centre_agent(int depth) {
  play::ConnectFourAgent a;
  a.name = "centre-d" + std::to_string(depth);
  a.params.depth = depth;
  for (int r = 0; r < connect_four::kRows; ++r)
    for (int c = 0; c < connect_four::kColumns; ++c)
      a.params.weights[sq(r, c)] = static_cast<signed char>(4 - std::abs(c - 2) * 2 + (r < 2 ? 1 : 0));
  return a;
}

// Replays a record with the rules and checks every move was legal and the score is the final
// position's result for the first player.
void expect_legal(const play::ConnectFourRecord& r, const Board& start) {
  Board b = start;
  for (int i = 0; i < r.plies; ++i) {
    ASSERT_TRUE(b.moves() >> r.moves[i] & 1) << "ply " << i << " plays square " << int(r.moves[i]);
    b = b.play(r.moves[i]);
  }
  EXPECT_TRUE(b.terminal());
  const int first = b.side == 0 ? b.score() : -b.score();
  EXPECT_EQ(r.black_score, first);
}

}  // namespace

TEST(ConnectFour, DiscsFallToTheLowestEmptySquare) {
  EXPECT_EQ(Board{}.moves(), 0b11111u);  // the bottom row
  const Board b = drop({2, 2, 2});
  EXPECT_EQ(b.first, (1u << sq(0, 2)) | (1u << sq(2, 2)));
  EXPECT_EQ(b.second, 1u << sq(1, 2));
  EXPECT_TRUE(b.moves() >> sq(3, 2) & 1);
  const Board full = drop({2, 2, 2, 2});
  EXPECT_FALSE(full.moves() >> sq(3, 2) & 1);  // no square left in column c
  EXPECT_EQ(__builtin_popcountll(full.moves()), 4);
}

TEST(ConnectFour, FourInARowWinsInEveryDirection) {
  // Across: the first player takes a1..d1 while the second stacks on them.
  const Board across = drop({0, 0, 1, 1, 2, 2, 3});
  EXPECT_TRUE(across.won(0));
  EXPECT_TRUE(across.terminal());
  EXPECT_EQ(across.moves(), 0u);
  EXPECT_EQ(ConnectFour::final_score(across), -1);  // the side to move (second) has lost
  // Up one column.
  const Board up = drop({4, 0, 4, 0, 4, 0, 4});
  EXPECT_TRUE(up.won(0));
  // Up and right from (0,0): (0,0) (1,1) (2,2) (3,3).
  Board diag;
  diag.first = 1u << sq(0, 0) | 1u << sq(1, 1) | 1u << sq(2, 2) | 1u << sq(3, 3);
  EXPECT_TRUE(diag.won(0));
  // Up and left from (0,4): (0,4) (1,3) (2,2) (3,1).
  Board anti;
  anti.second = 1u << sq(0, 4) | 1u << sq(1, 3) | 1u << sq(2, 2) | 1u << sq(3, 1);
  EXPECT_TRUE(anti.won(1));
  // Three in a row and a gap is nothing; the rows do not wrap around the board's edge.
  Board three;
  three.first = 1u << sq(0, 0) | 1u << sq(0, 1) | 1u << sq(0, 2) | 1u << sq(0, 4);
  EXPECT_FALSE(three.won(0));
  Board wrap;
  wrap.first = 1u << sq(0, 3) | 1u << sq(0, 4) | 1u << sq(1, 0) | 1u << sq(1, 1);
  EXPECT_FALSE(wrap.won(0));
}

TEST(ConnectFour, AFullBoardWithoutFourIsADraw) {
  // Columns filled in the order that gives every row the pattern x o x o x / o x o x o shifted:
  // no four in a row anywhere (checked by the rules' own won(), and by the final score).
  Board b;
  b.first = 0, b.second = 0;
  for (int r = 0; r < connect_four::kRows; ++r)
    for (int c = 0; c < connect_four::kColumns; ++c) {
      const bool first = ((c + r / 2) % 2) == 0;  // pairs of rows alternate: no column or diagonal of four
      (first ? b.first : b.second) |= 1u << sq(r, c);
    }
  ASSERT_FALSE(b.won(0));
  ASSERT_FALSE(b.won(1));
  EXPECT_TRUE(b.terminal());
  EXPECT_EQ(ConnectFour::final_score(b), 0);
}

TEST(ConnectFour, MirrorSymmetryMapsColumns) {
  const Board b = drop({0, 1});
  const Board m = ConnectFour::symmetry(b, 1);
  EXPECT_EQ(m.first, 1u << sq(0, 4));
  EXPECT_EQ(m.second, 1u << sq(0, 3));
  EXPECT_EQ(ConnectFour::symmetry(m, 1).first, b.first);
}

TEST(ConnectFour, AgentsAreValidated) {
  play::ConnectFourAgent a = centre_agent(2);
  a.params.depth = 0;
  EXPECT_THROW(a.validate(), Error);
  a.params.depth = play::kConnectFourMaxDepth + 1;
  EXPECT_THROW(a.validate(), Error);
  auto backend = make_backend("cpu", 1);
  EXPECT_THROW(backend->add_agent(a), Error);  // the backend validates what it is given
}

TEST(ConnectFour, BackendPlayoutsEqualTheSharedBodyOnAnyThreadCount) {
  const std::vector<play::ConnectFourAgent> agents{random_agent(), centre_agent(1), centre_agent(3)};
  std::vector<GameJobOf<ConnectFour>> jobs;
  for (int g = 0; g < 60; ++g) {
    GameJobOf<ConnectFour> j;
    j.black = g % 3;
    j.white = (g / 3) % 3;
    j.start = g % 2 ? Board{}.play(g % 5) : Board{};
    j.seed = 11;
    j.game = static_cast<u32>(g);
    jobs.push_back(j);
  }
  std::vector<std::vector<play::ConnectFourRecord>> runs;
  for (int threads : {1, 2}) {
    auto backend = make_backend("cpu", threads);
    for (const auto& a : agents) backend->add_agent(a);
    runs.emplace_back(jobs.size());
    backend->play(jobs, runs.back());
  }
  for (std::size_t g = 0; g < jobs.size(); ++g) {
    play::ConnectFourRecord inline_record;
    play::play_game<ConnectFour>(agents[jobs[g].black].params, agents[jobs[g].white].params, jobs[g].start,
                                 jobs[g].seed, jobs[g].game, inline_record, play::PlayScratchOf<ConnectFour>{});
    for (const auto& run : runs) {
      ASSERT_EQ(run[g].plies, inline_record.plies) << g;
      EXPECT_TRUE(std::equal(run[g].moves, run[g].moves + run[g].plies, inline_record.moves)) << g;
      EXPECT_EQ(run[g].black_score, inline_record.black_score) << g;
    }
    expect_legal(runs[0][g], jobs[g].start);
  }
}

TEST(ConnectFour, RoundRobinRanksTheSearchersAboveRandomPlay) {
  auto backend = make_backend("cpu", 2);
  const std::vector<play::ConnectFourAgent> agents{random_agent(), centre_agent(1), centre_agent(4)};
  std::vector<int> handles;
  for (const auto& a : agents) handles.push_back(backend->add_agent(a));
  std::vector<Board> openings;
  for (int c = 0; c < connect_four::kColumns; ++c)
    for (int d = 0; d < connect_four::kColumns; ++d)  // a disc in column c, then one in column d
      openings.push_back(Board{}.play(c).play(d == c ? c + connect_four::kColumns : d));
  const auto games = play::round_robin<ConnectFour>(*backend, handles, openings, 5);
  ASSERT_EQ(games.size(), 3u * openings.size() * 2);  // 3 pairs, 25 openings, both colours
  // Head to head: points[i][j] = i's score against j over their 50 games.
  double points[3][3] = {};
  for (const auto& g : games) {
    points[g.first][g.second] += g.score;
    points[g.second][g.first] += 1 - g.score;
  }
  // Both searchers beat random play clearly (between the two searchers, on this small board and
  // from these openings, the colour decides most games: no order is asserted there).
  EXPECT_GT(points[2][0], 40.0) << points[2][0];
  EXPECT_GT(points[1][0], 35.0) << points[1][0];
  const auto fit = ratings::fit_bradley_terry(games, 3);
  EXPECT_GT(fit.ratings[1], fit.ratings[0] + 100);
  EXPECT_GT(fit.ratings[2], fit.ratings[0] + 100);
  // The same batch again: the same games (a round robin is a pure function of its inputs).
  const auto again = play::round_robin<ConnectFour>(*backend, handles, openings, 5);
  for (std::size_t k = 0; k < games.size(); ++k) EXPECT_EQ(again[k].score, games[k].score) << k;
}

TEST(ConnectFour, TheBitStringGaEvolvesWeightsThroughTheBackend) {
  // Counts the play batches that reach the backend: one per generation.
  struct Counting : ForwardingBackend {
    using ForwardingBackend::ForwardingBackend;
    using ForwardingBackend::play;
    int batches = 0;
    void play(std::span<const GameJobOf<ConnectFour>> jobs, std::span<play::ConnectFourRecord> results) override {
      ++batches;
      ForwardingBackend::play(jobs, results);
    }
  };
  ga::BitGaParams p;
  p.population = 16;
  p.bits = connect_four::kChromosomeBits;
  p.selection = ga::Selection::kTournament;
  p.crossover_rate = 0.7;
  p.mutation_rate = 0.02;
  p.elitism = 2;
  const int generations = 12;
  auto evolve = [&](int threads, std::vector<double>* first_fitness) {
    auto inner = make_backend("cpu", threads);
    Counting backend(*inner);
    auto population = ga::random_bit_population(p, 9, 0);
    std::vector<double> fitness;
    for (int g = 0;; ++g) {
      std::vector<play::ConnectFourAgent> agents;
      for (std::size_t i = 0; i < population.size(); ++i)
        agents.push_back(connect_four::weights_agent(population[i], 1, "member-" + std::to_string(i)));
      fitness = connect_four::points_against(backend, agents, centre_agent(1), 100 + static_cast<u64>(g));
      if (g == 0 && first_fitness) *first_fitness = fitness;
      if (g == generations) break;
      population = ga::next_bit_generation(population, fitness, p, 9, 0, g);
    }
    EXPECT_EQ(backend.batches, generations + 1);
    return std::make_pair(population, fitness);
  };
  std::vector<double> first;
  const auto [population, fitness] = evolve(1, &first);
  const auto [population2, fitness2] = evolve(2, nullptr);
  EXPECT_EQ(population, population2);  // bit-identical on 1 and 2 threads
  EXPECT_EQ(fitness, fitness2);
  // Selection works on play: the last generation's mean beats the random first generation's.
  const double mean0 = std::accumulate(first.begin(), first.end(), 0.0) / first.size();
  const double mean = std::accumulate(fitness.begin(), fitness.end(), 0.0) / fitness.size();
  EXPECT_GT(mean, mean0);
  EXPECT_THROW(connect_four::weights_agent(ga::BitString(7, 0), 1, "short"), Error);
}
