// The game-generic playout engine (engine/playout.hpp) on a second game: Tic-Tac-Toe games through
// the same Backend::play path as Othello's, checked against facts of the game itself (perfect
// play draws, a perfect player never loses) and against the random-stream contract.
#include <gtest/gtest.h>
#include <vector>
#include "evalforge/backends/backend.hpp"
#include "evalforge/core/error.hpp"
#include "evalforge/games/registry.hpp"

using namespace ef;

namespace {

using TttJob = GameJobOf<games::TicTacToe>;

play::TicTacToeAgent ttt_agent(play::TicTacToeEvaluator kind, int depth, u32 epsilon_ppm = 0) {
  return play::tictactoe_agent(kind, depth, epsilon_ppm);
}

std::vector<TttJob> games_between(int x, int o, int n, u64 seed, u32 first_game = 0) {
  std::vector<TttJob> jobs(n);
  for (int k = 0; k < n; ++k) {
    jobs[k].black = x;
    jobs[k].white = o;
    jobs[k].seed = seed;
    jobs[k].game = first_game + static_cast<u32>(k);
  }
  return jobs;
}

std::vector<play::TicTacToeRecord> play_all(Backend& b, const std::vector<TttJob>& jobs) {
  std::vector<play::TicTacToeRecord> r(jobs.size());
  b.play(jobs, r);
  return r;
}

// Replays under the rules: legal moves only, the game over at the end, the score X's result.
void expect_legal_replay(const tictactoe::Board& start, const play::TicTacToeRecord& r) {
  tictactoe::Board b = start;
  for (int i = 0; i < r.plies; ++i) {
    const int m = r.moves[i];
    ASSERT_TRUE(m >= 0 && m < 9 && (b.moves() >> m & 1)) << "illegal move " << m << " at ply " << i;
    b = b.play(m);
  }
  EXPECT_TRUE(b.terminal());
  EXPECT_EQ(r.black_score, b.score_for_x());
}

}  // namespace

TEST(PlayoutTicTacToe, PerfectPlayersDrawFromTheEmptyBoard) {
  auto cpu = make_backend("cpu", 2);
  const int perfect = cpu->add_agent(ttt_agent(play::TicTacToeEvaluator::kStatic, 9));
  const auto records = play_all(*cpu, games_between(perfect, perfect, 4, 1));
  for (const auto& r : records) {
    EXPECT_EQ(r.black_score, 0);
    EXPECT_EQ(r.plies, 9);
    expect_legal_replay({}, r);
  }
}

TEST(PlayoutTicTacToe, APerfectPlayerNeverLosesToRandomWithEitherColour) {
  auto cpu = make_backend("cpu", 2);
  const int perfect = cpu->add_agent(ttt_agent(play::TicTacToeEvaluator::kStatic, 9));
  const int random = cpu->add_agent(ttt_agent(play::TicTacToeEvaluator::kRandom, 1));
  auto jobs = games_between(perfect, random, 200, 5);
  const auto more = games_between(random, perfect, 200, 5, 200);
  jobs.insert(jobs.end(), more.begin(), more.end());
  const auto records = play_all(*cpu, jobs);
  int wins = 0;
  for (std::size_t k = 0; k < jobs.size(); ++k) {
    const int perfect_score = k < 200 ? records[k].black_score : -records[k].black_score;
    EXPECT_GE(perfect_score, 0) << "game " << k;
    wins += perfect_score > 0;
    expect_legal_replay({}, records[k]);
  }
  EXPECT_GT(wins, 200);  // random play loses most games against perfect play
}

TEST(PlayoutTicTacToe, RandomGamesFollowTheStreamContract) {
  auto cpu = make_backend("cpu", 1);
  const int random = cpu->add_agent(ttt_agent(play::TicTacToeEvaluator::kRandom, 1));
  const auto jobs = games_between(random, random, 50, 77);
  const auto records = play_all(*cpu, jobs);
  for (std::size_t k = 0; k < jobs.size(); ++k) {
    // playout.hpp: one random_bit(moves) per move with two or more choices, in ply order.
    Rng rng = play::game_rng(77, static_cast<u32>(k));
    tictactoe::Board b;
    std::vector<int> expected;
    while (b.moves()) {
      const u64 moves = b.moves();
      const int sq = (moves & (moves - 1)) == 0 ? ctz64(moves) : rng.random_bit(moves);
      expected.push_back(sq);
      b = b.play(sq);
    }
    EXPECT_EQ(std::vector<int>(records[k].moves, records[k].moves + records[k].plies), expected) << "game " << k;
    EXPECT_EQ(records[k].black_score, b.score_for_x());
  }
}

TEST(PlayoutTicTacToe, SameRecordsForOneAndTwoThreadsAndFromAnyStart) {
  auto one = make_backend("cpu", 1), two = make_backend("cpu", 2);
  const std::vector<play::TicTacToeAgent> agents{ttt_agent(play::TicTacToeEvaluator::kStatic, 1),
                                                 ttt_agent(play::TicTacToeEvaluator::kStatic, 4, 200000),
                                                 ttt_agent(play::TicTacToeEvaluator::kRandom, 1)};
  for (const auto& a : agents) ASSERT_EQ(one->add_agent(a), two->add_agent(a));
  std::vector<TttJob> jobs;
  for (int x = 0; x < 3; ++x)
    for (int o = 0; o < 3; ++o) {
      auto some = games_between(x, o, 20, 9, static_cast<u32>(jobs.size()));
      for (std::size_t k = 0; k < some.size(); ++k)
        if (k % 2) some[k].start = tictactoe::Board{}.play(static_cast<int>(k % 9));  // O to move
      jobs.insert(jobs.end(), some.begin(), some.end());
    }
  const auto a = play_all(*one, jobs), b = play_all(*two, jobs);
  for (std::size_t k = 0; k < jobs.size(); ++k) {
    EXPECT_EQ(a[k].plies, b[k].plies);
    EXPECT_EQ(a[k].black_score, b[k].black_score);
    EXPECT_TRUE(std::equal(a[k].moves, a[k].moves + a[k].plies, b[k].moves)) << "game " << k;
    EXPECT_EQ(a[k].nodes, b[k].nodes);
    expect_legal_replay(jobs[k].start, a[k]);
  }
}

TEST(PlayoutTicTacToe, BadAgentsAndHandlesAreErrors) {
  auto cpu = make_backend("cpu", 1);
  EXPECT_THROW(cpu->add_agent(ttt_agent(play::TicTacToeEvaluator::kStatic, 0)), Error);
  EXPECT_THROW(cpu->add_agent(ttt_agent(play::TicTacToeEvaluator::kStatic, 10)), Error);
  EXPECT_THROW(cpu->add_agent(ttt_agent(play::TicTacToeEvaluator::kStatic, 2, 1000001)), Error);
  const int h = cpu->add_agent(ttt_agent(play::TicTacToeEvaluator::kStatic, 2));
  // Handle spaces are per game: an Othello agent does not make handle 1 valid for Tic-Tac-Toe.
  cpu->add_agent(play::swh_agent());
  cpu->add_agent(play::swh_agent());
  std::vector<play::TicTacToeRecord> out(1);
  EXPECT_THROW(cpu->play(games_between(h, 1, 1, 1), out), Error);
  EXPECT_THROW(cpu->update_agent(5, ttt_agent(play::TicTacToeEvaluator::kStatic, 2)), Error);
}
