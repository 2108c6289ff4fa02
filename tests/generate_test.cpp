// The built-in dataset generator: deterministic in the seed, independent of the thread count,
// legal games with the recorded scores, and SWH-greedy moves where no randomness applies.
#include <gtest/gtest.h>
#include <unistd.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include "data/generate.hpp"
#include "evalforge/core/error.hpp"
#include "evalforge/eval/swh.hpp"
#include "evalforge/games/othello.hpp"

using namespace ef;
using namespace ef::data;

namespace {

GenerateOptions options(std::size_t games, u64 seed, int threads = 1) {
  GenerateOptions o;
  o.games = games;
  o.seed = seed;
  o.threads = threads;
  return o;
}

bool same_games(const std::vector<Game>& a, const std::vector<Game>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i].moves != b[i].moves || a[i].score != b[i].score) return false;
  return true;
}

}  // namespace

TEST(Generate, DeterministicForASeedAndDifferentAcrossSeeds) {
  const auto a = generate_games(options(300, 42));
  const auto b = generate_games(options(300, 42));
  const auto c = generate_games(options(300, 43));
  EXPECT_TRUE(same_games(a, b));
  EXPECT_FALSE(same_games(a, c));
  std::size_t differing = 0;
  for (std::size_t i = 0; i < a.size(); ++i) differing += a[i].moves != c[i].moves;
  EXPECT_GT(differing, 290u);  // 8 random opening moves: seeds give different games
  // Distinct games within one seed too.
  std::size_t distinct_openings = 0;
  for (std::size_t i = 1; i < a.size(); ++i) distinct_openings += a[i].moves != a[0].moves;
  EXPECT_EQ(distinct_openings, a.size() - 1);
}

TEST(Generate, BitIdenticalForAnyThreadCount) {
  const auto one = generate_games(options(500, 7, 1));
  EXPECT_TRUE(same_games(one, generate_games(options(500, 7, 2))));
  EXPECT_TRUE(same_games(one, generate_games(options(500, 7, 3))));
  EXPECT_TRUE(same_games(one, generate_games(options(500, 7, 0))));
  // A game does not depend on how many games are generated with it.
  const auto prefix = generate_games(options(77, 7, 2));
  EXPECT_TRUE(same_games(prefix, std::vector<Game>(one.begin(), one.begin() + 77)));
  EXPECT_TRUE(same_games({play_generated_game(options(1, 7), 123)}, {one[123]}));
}

TEST(Generate, GamesReplayLegallyToAFinishedBoardWithTheRecordedScore) {
  const auto games = generate_games(options(1000, 2024, 2));
  ASSERT_EQ(games.size(), 1000u);
  for (const Game& g : games) {
    othello::Board b;
    for (const std::uint8_t sq : g.moves) {
      if (!b.can_move()) {
        ASSERT_FALSE(b.game_over());
        b.pass();
      }
      ASSERT_TRUE(b.play(sq)) << "illegal move " << int(sq);
    }
    EXPECT_TRUE(b.game_over());
    EXPECT_EQ(g.score, b.disc_diff());
    EXPECT_LE(g.moves.size(), 60u);
    EXPECT_GE(g.moves.size(), 9u);
  }
  const GameSummary s = summarize(games);
  EXPECT_EQ(s.games, 1000u);
  EXPECT_GT(s.mean_length, 55.0);
  EXPECT_GT(s.score_variance, 100.0);  // varied outcomes
  EXPECT_NEAR(s.black_wins + s.white_wins + s.draws, 1.0, 1e-12);
}

// epsilon 0, no random opening: every move with a choice is one of the SWH-best moves.
TEST(Generate, GreedyMovesMaximizeSwhForTheMover) {
  GenerateOptions o = options(50, 5);
  o.epsilon = 0;
  o.random_opening_plies = 0;
  const auto games = generate_games(o);
  std::size_t differing = 0;
  for (const Game& g : games) {
    differing += g.moves != games[0].moves;  // ties are broken at random, so games still vary
    othello::Board b;
    for (const std::uint8_t sq : g.moves) {
      if (!b.can_move()) b.pass();
      int best = -1000000;
      for (u64 m = b.moves(); m; m &= m - 1) {
        const int s = ctz64(m);
        const u64 f = othello::flips(b.player, b.opponent, s);
        best = std::max(best, swh::evaluate(b.player | f | (u64{1} << s), b.opponent & ~f));
      }
      const u64 f = othello::flips(b.player, b.opponent, sq);
      EXPECT_EQ(swh::evaluate(b.player | f | (u64{1} << sq), b.opponent & ~f), best);
      ASSERT_TRUE(b.play(sq));
    }
  }
  EXPECT_GT(differing, 0u);
}

TEST(Generate, EpsilonOneWithoutOpeningIsStillDeterministic) {
  GenerateOptions o = options(100, 9, 2);
  o.epsilon = 1.0;
  o.random_opening_plies = 0;
  EXPECT_TRUE(same_games(generate_games(o), generate_games(o)));
}

TEST(Generate, RejectsBadOptions) {
  GenerateOptions o = options(10, 1);
  o.epsilon = 1.5;
  EXPECT_THROW(generate_games(o), ef::Error);
  o.epsilon = 0.1;
  o.random_opening_plies = -1;
  EXPECT_THROW(generate_games(o), ef::Error);
}

// The command writes transcripts that read back as the same games.
TEST(Generate, CommandWritesTranscriptsThatReadBack) {
  const auto dir = std::filesystem::temp_directory_path() / ("ef_generate_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto file = dir / "games.txt";
  const std::string cmd = std::string(EF_EVALFORGE_BIN) + " data generate --games 200 --seed 31 --threads 2 --out " +
                          file.string() + " > " + (dir / "stdout.txt").string();
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  std::ifstream log(dir / "stdout.txt");
  const std::string text((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("generated 200 games"), std::string::npos) << text;
  EXPECT_NE(text.find("games/s"), std::string::npos) << text;

  ReadOptions ro;
  ro.fatal_problems = true;
  ro.use_cache = false;
  const GameDatabase db = load_games({file}, ro);
  EXPECT_TRUE(db.problems.empty());
  EXPECT_TRUE(same_games(db.games, generate_games(options(200, 31))));
  std::filesystem::remove_all(dir);
}
