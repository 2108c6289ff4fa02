// The built-in dataset generator: deterministic in the seed, independent of the thread count,
// legal games with the recorded scores; for the swh1 player SWH-greedy moves where no
// randomness applies and the bits of earlier versions; for a searching player the agent's
// moves, perfect play in the endgame, and a game that is a function of its opening.
#include "data/generate.hpp"
#include <gtest/gtest.h>
#include <unistd.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <tuple>
#include "evalforge/core/error.hpp"
#include "evalforge/games/othello/agent_file.hpp"
#include "evalforge/games/othello/bitboard.hpp"
#include "evalforge/games/othello/endgame.hpp"
#include "evalforge/games/othello/swh.hpp"
#include "test_support.hpp"

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

// A searching player: depth-1 SWH (its choice is checkable by hand), perfect from 10 empties.
GenerateOptions agent_options(std::size_t games, u64 seed, int threads = 1, int exact_empties = 10) {
  GenerateOptions o = options(games, seed, threads);
  o.agent = std::make_shared<const play::OthelloAgent>(play::swh_agent({1, exact_empties}));
  return o;
}

// FNV-1a over every game: its moves, a 0xFF separator, then the score + 128.
u64 hash_games(const std::vector<Game>& games) {
  u64 h = 1469598103934665603ull;
  const auto add = [&](unsigned x) { h = (h ^ (x & 0xFF)) * 1099511628211ull; };
  for (const Game& g : games) {
    for (const std::uint8_t m : g.moves) add(m);
    add(0xFF);
    add(static_cast<unsigned>(g.score + 128));
  }
  return h;
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

// make(games, threads) gives the options of one player and seed. The games are the same for
// 1, 2, 3 and all threads, and a game does not depend on how many are generated with it.
template <class Make>
void expect_independent_of_threads_and_count(const Make& make, std::size_t games, std::size_t prefix,
                                             std::size_t single) {
  const auto one = generate_games(make(games, 1));
  for (const int threads : {2, 3, 0}) EXPECT_TRUE(same_games(one, generate_games(make(games, threads)))) << threads;
  EXPECT_TRUE(same_games(generate_games(make(prefix, 2)), std::vector<Game>(one.begin(), one.begin() + prefix)));
  EXPECT_TRUE(same_games({play_generated_game(make(1, 1), single)}, {one[single]}));
}

TEST(Generate, BitIdenticalForAnyThreadCount) {
  expect_independent_of_threads_and_count([](std::size_t n, int t) { return options(n, 7, t); }, 500, 77, 123);
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

// The swh1 player is the generator of earlier versions: datasets made with it must stay
// reproducible. The hashes were recorded with that generator as it was before the searching
// player was added (commit fcaca58), built separately.
TEST(Generate, Swh1GamesAreThoseOfEarlierVersions) {
  EXPECT_EQ(hash_games(generate_games(options(500, 11, 2))), 0x4f83db284c1838e6ull);
  GenerateOptions o = options(500, 12, 2);
  o.random_opening_plies = 3;
  o.epsilon = 0.25;
  EXPECT_EQ(hash_games(generate_games(o)), 0x104536f95c05b330ull);
}

TEST(GenerateAgent, BitIdenticalForAnyThreadCountAndDifferentAcrossSeeds) {
  expect_independent_of_threads_and_count([](std::size_t n, int t) { return agent_options(n, 7, t); }, 120, 33, 101);
  const auto one = generate_games(agent_options(120, 7, 2));
  const auto other = generate_games(agent_options(120, 8, 2));
  std::size_t differing = 0;
  for (std::size_t i = 0; i < one.size(); ++i) differing += one[i].moves != other[i].moves;
  EXPECT_GT(differing, 110u);
}

// After the opening a searching player draws nothing: without a random opening every game is
// the same, and games that share their first 8 moves share the rest.
TEST(GenerateAgent, AGameIsAFunctionOfItsOpening) {
  GenerateOptions o = agent_options(20, 3, 2);
  o.random_opening_plies = 0;
  const auto games = generate_games(o);
  for (const Game& g : games) EXPECT_TRUE(g.moves == games[0].moves && g.score == games[0].score);

  // 2000 openings of 2 random moves: at most 12 distinct (4 x 3), so many games share one.
  o = agent_options(2000, 4, 2);
  o.random_opening_plies = 2;
  const auto many = generate_games(o);
  std::size_t shared = 0;
  for (std::size_t i = 1; i < many.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (std::equal(many[i].moves.begin(), many[i].moves.begin() + 2, many[j].moves.begin())) {
        ++shared;
        EXPECT_TRUE(many[i].moves == many[j].moves && many[i].score == many[j].score) << i << " " << j;
        break;
      }
  EXPECT_GT(shared, 1900u);
}

// Every game replays legally to a finished board with its recorded score; the opening is the
// swh1 player's opening (the same draws); each searched move before the endgame maximises the
// SWH value for the mover (the lowest such square: alpha-beta's rule); and the score is the
// perfect-play score of the position where the exact endgame began.
TEST(GenerateAgent, OpeningThenAgentMovesThenPerfectPlay) {
  constexpr int kExact = 10;
  GenerateOptions o = agent_options(150, 2024, 2, kExact);
  const auto games = generate_games(o);
  GenerateOptions swh1 = options(150, 2024, 2);
  const auto openings = generate_games(swh1);
  std::size_t solved = 0;
  for (std::size_t i = 0; i < games.size(); ++i) {
    const Game& g = games[i];
    ASSERT_GE(g.moves.size(), 9u);
    EXPECT_TRUE(std::equal(g.moves.begin(), g.moves.begin() + 8, openings[i].moves.begin())) << i;
    othello::Board b;
    int exact_score = 1000;  // black's perfect-play score where the endgame began
    for (std::size_t k = 0; k < g.moves.size(); ++k) {
      const std::uint8_t sq = g.moves[k];
      if (!b.can_move()) {
        ASSERT_FALSE(b.game_over());
        b.pass();
      }
      if (exact_score == 1000 && b.empties() <= kExact) {
        const int s = search::solve_endgame(b.player, b.opponent).score;
        exact_score = b.side == othello::kBlack ? s : -s;
      }
      if (k >= 8 && b.empties() > kExact && popcount64(b.moves()) > 1) {
        int best = -1000000, best_square = -1;
        for (u64 m = b.moves(); m; m &= m - 1) {
          const int s = ctz64(m);
          const u64 f = othello::flips(b.player, b.opponent, s);
          const int value = swh::evaluate(b.player | f | (u64{1} << s), b.opponent & ~f);
          if (value > best) best = value, best_square = s;
        }
        EXPECT_EQ(int(sq), best_square) << "game " << i << " move " << k;
      }
      ASSERT_TRUE(b.play(sq)) << "illegal move " << int(sq);
    }
    EXPECT_TRUE(b.game_over());
    EXPECT_EQ(g.score, b.disc_diff());
    if (exact_score == 1000) continue;  // a game over before its endgame (a wipe-out)
    EXPECT_EQ(b.disc_diff_empties_to_winner(), exact_score) << "game " << i;
    ++solved;
  }
  EXPECT_GT(solved, 140u);
}

TEST(GenerateAgent, RejectsARandomOrExploringAgent) {
  GenerateOptions o = agent_options(5, 1);
  play::OthelloAgent a = play::swh_agent({2, 10});
  a.epsilon = 0.05;
  o.agent = std::make_shared<const play::OthelloAgent>(a);
  EXPECT_THROW(generate_games(o), ef::Error);
  o.agent = std::make_shared<const play::OthelloAgent>(play::random_agent());
  EXPECT_THROW(generate_games(o), ef::Error);
  a = play::swh_agent({play::kMaxDepth + 1, 10});
  o.agent = std::make_shared<const play::OthelloAgent>(a);
  EXPECT_THROW(generate_games(o), ef::Error);
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
  const std::string cmd = std::string(EF_EVALFORGE_BIN) +
                          " data generate --player swh1 --games 200 --seed 31 --threads 2 --out " + file.string() +
                          " > " + (dir / "stdout.txt").string();
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

namespace {

int run_quiet(const std::string& args) {
  return std::system((std::string(EF_EVALFORGE_BIN) + " data generate " + args + " > /dev/null 2>&1").c_str());
}

}  // namespace

// The command's default player is the built-in network at depth 2, exact from 12 empties.
TEST(Generate, CommandDefaultIsTheBuiltinNetworkAgent) {
  const auto dir = std::filesystem::temp_directory_path() / ("ef_generate_default_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto file = dir / "games.txt";
  ASSERT_EQ(run_quiet("--games 12 --seed 5 --threads 2 --out " + file.string()), 0);
  ReadOptions ro;
  ro.fatal_problems = true;
  ro.use_cache = false;
  const GameDatabase db = load_games({file}, ro);
  play::OthelloAgent builtin = play::load_agent(std::string(EF_SOURCE_DIR) + "/networks/ordering/edax.toml");
  builtin.limits = {2, 12};
  GenerateOptions o = options(12, 5, 2);
  o.agent = std::make_shared<const play::OthelloAgent>(builtin);
  EXPECT_TRUE(same_games(db.games, generate_games(o)));
  std::filesystem::remove_all(dir);
}

TEST(Generate, CommandRejectsOptionsOfTheOtherPlayer) {
  const std::string out = (std::filesystem::temp_directory_path() / "ef_generate_never_written.txt").string();
  EXPECT_NE(run_quiet("--games 2 --seed 1 --player swh1 --depth 3 --out " + out), 0);
  EXPECT_NE(run_quiet("--games 2 --seed 1 --player swh1 --exact-empties 10 --out " + out), 0);
  EXPECT_NE(run_quiet("--games 2 --seed 1 --epsilon 0.2 --out " + out), 0);
  EXPECT_NE(run_quiet("--games 2 --seed 1 --player no-such-agent.toml --out " + out), 0);
  EXPECT_FALSE(std::filesystem::exists(out));
}

// A full disk (here: a file-size limit, `ulimit -f`, with SIGXFSZ ignored so that the write fails
// with EFBIG as on a full disk) never leaves a partial file under the final name: `data generate`
// and `data convert` write FILE.tmp, fsync it and rename it, so the old file stays as it was (or
// no file appears), and the error names the file.
TEST(Generate, FullDiskLeavesNoPartialFileUnderTheFinalName) {
  const auto dir = std::filesystem::temp_directory_path() / ("ef_generate_full_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string bin = EF_EVALFORGE_BIN;
  const auto limited = [](const std::string& command) {
    // 64 KiB: the 2,000 games (about 250 KB of transcripts) do not fit.
    return ef::test::run_command("bash -c 'trap \"\" XFSZ; ulimit -f 64; " + command + "' 2>&1");
  };
  const auto games = dir / "games.txt";
  ASSERT_EQ(run_quiet("--player swh1 --games 2000 --seed 3 --threads 2 --out " + games.string()), 0);
  const std::string whole = ef::test::file_bytes(games);
  ASSERT_GT(whole.size(), 200000u);

  // Over an existing file: it is kept as it was.
  const auto kept = dir / "kept.txt";
  std::ofstream(kept) << "# the old content\n";
  auto [status, out] =
      limited(bin + " data generate --player swh1 --games 2000 --seed 3 --threads 2 --out " + kept.string());
  EXPECT_EQ(status, 2) << out;
  EXPECT_NE(out.find(kept.string()), std::string::npos) << out;
  EXPECT_EQ(ef::test::file_bytes(kept), "# the old content\n");
  EXPECT_FALSE(std::filesystem::exists(kept.string() + ".tmp"));
  // A new file: none appears.
  const auto fresh = dir / "fresh.txt";
  std::tie(status, out) =
      limited(bin + " data generate --player swh1 --games 2000 --seed 3 --threads 2 --out " + fresh.string());
  EXPECT_EQ(status, 2) << out;
  EXPECT_FALSE(std::filesystem::exists(fresh));
  EXPECT_FALSE(std::filesystem::exists(fresh.string() + ".tmp"));
  // data convert, in each output format.
  for (const char* name : {"out.txt", "out.pgn", "out.ggf"}) {
    const auto converted = dir / name;
    std::tie(status, out) =
        limited(bin + " data convert " + games.string() + " --no-cache --out " + converted.string());
    EXPECT_EQ(status, 2) << name << ": " << out;
    EXPECT_NE(out.find(converted.string()), std::string::npos) << out;
    EXPECT_FALSE(std::filesystem::exists(converted)) << name;
    EXPECT_FALSE(std::filesystem::exists(converted.string() + ".tmp")) << name;
  }
  // Without the limit, the same command writes the whole file and leaves no temporary behind.
  std::tie(status, out) =
      ef::test::run_command(bin + " data convert " + games.string() + " --no-cache --out " + fresh.string() + " 2>&1");
  EXPECT_EQ(status, 0) << out;
  EXPECT_EQ(ef::test::file_bytes(fresh), whole);
  EXPECT_FALSE(std::filesystem::exists(fresh.string() + ".tmp"));
  std::filesystem::remove_all(dir);
}
