// Tic-Tac-Toe's seeded tie-breaking (issue 29, item 3; docs/tictactoe.md, "Fitness without a free
// ceiling"): a player with random_ties draws among the moves of best value, the lowest of which
// is the deterministic player's move; matches repeat each opening K times; the evolve run's
// ties = "random" fitness is reproducible across threads and interruptions.
#include <gtest/gtest.h>
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>
#include "evalforge/backends/backend.hpp"
#include "evalforge/core/error.hpp"
#include "evalforge/core/rng.hpp"
#include "evalforge/engine/alphabeta.hpp"
#include "evalforge/games/tictactoe/agent_file.hpp"
#include "evalforge/games/tictactoe/fitness_matches.hpp"
#include "evalforge/runs/evolve_config.hpp"
#include "evalforge/runs/evolve_run.hpp"
#include "games/tictactoe/perfect_play.hpp"
#include "test_support.hpp"

using namespace ef;
using namespace ef::play;
using ef::test::error_of;
namespace fs = std::filesystem;
using tictactoe::Board;
using tictactoe::PerfectPlay;

namespace {

fs::path scratch(const std::string& name) { return test::scratch_dir("tttties", name); }

// The moves `agent` plays in `b` over `draws` streams.
std::set<int> drawn_moves(const TicTacToeAgent& agent, const Board& b, int draws) {
  std::set<int> moves;
  const PlayScratchOf<games::TicTacToe> s;
  for (int k = 0; k < draws; ++k) {
    Rng rng(7, Purpose::kGame, static_cast<u32>(k));
    u64 nodes = 0;
    moves.insert(agent.params.choose(b, rng, nodes, s));
  }
  return moves;
}

// The moves whose searched value equals the root's: alpha-beta's own values, move by move.
template <class E>
std::set<int> best_moves(const Board& b, int depth, const E& e) {
  const i32 root = search::alphabeta<games::TicTacToe, E, kTicTacToeMaxDepth>(b, depth, e).value;
  std::set<int> best;
  for (int sq = 0; sq < 9; ++sq)
    if (b.moves() >> sq & 1)
      if (-search::alphabeta<games::TicTacToe, E, kTicTacToeMaxDepth>(b.play(sq), depth - 1, e).value == root)
        best.insert(sq);
  return best;
}

}  // namespace

// In every position with a side to move, for the static player at depths 1 to 4: the drawn
// moves are exactly the moves of best value (every one of them turns up in 64 draws when there
// are several), and the lowest of them is the deterministic player's move.
TEST(TttRandomTies, DrawsAmongTheBestMovesWhoseLowestIsTheDeterministicMove) {
  const auto& positions = PerfectPlay::get().positions_to_move();
  const PlayScratchOf<games::TicTacToe> s;
  int with_ties = 0;
  for (int depth : {1, 2, 4}) {
    TicTacToeAgent fixed = static_agent(depth), tied = fixed;
    tied.params.random_ties = true;
    for (const Board& b : positions) {
      const std::set<int> best = best_moves(b, depth, tictactoe::StaticEvaluator{});
      ASSERT_FALSE(best.empty()) << tictactoe::describe(b);
      Rng unused(1, Purpose::kGame);
      u64 nodes = 0;
      EXPECT_EQ(fixed.params.choose(b, unused, nodes, s), *best.begin()) << depth << tictactoe::describe(b);
      // One legal move is answered without a search (exploration_move), whatever its value.
      if (std::popcount(b.moves()) == 1) continue;
      EXPECT_EQ(drawn_moves(tied, b, 64), best) << depth << tictactoe::describe(b);
      with_ties += best.size() > 1;
    }
  }
  EXPECT_GT(with_ties, 1000);  // the draw is exercised, not just the single-best case
}

// The perfect player with random ties plays every optimal move of the solved game, and only those.
TEST(TttRandomTies, ThePerfectPlayerDrawsAmongTheOptimalMoves) {
  const PerfectPlay& oracle = PerfectPlay::get();
  TicTacToeAgent perfect = load_tictactoe_agent("perfect");
  perfect.params.random_ties = true;
  for (const Board& b : oracle.positions_to_move()) {
    if (std::popcount(b.moves()) == 1) continue;
    std::set<int> optimal;
    for (int sq = 0; sq < 9; ++sq)
      if (oracle.optimal_moves(b) >> sq & 1) optimal.insert(sq);
    EXPECT_EQ(drawn_moves(perfect, b, 64), optimal) << tictactoe::describe(b);
  }
}

// Measures and agent files hold deterministic players: a drawing one is refused, by name.
TEST(TttRandomTies, MeasuresAndAgentFilesRefuseADrawingPlayer) {
  TicTacToeAgent a = static_agent(4);
  a.name = "tied";
  a.params.random_ties = true;
  EXPECT_NE(error_of([&] { tictactoe::agent_chooser(a); }).find("agent 'tied'"), std::string::npos);
  const fs::path f = scratch("save") / "tied.toml";
  EXPECT_NE(error_of([&] { save_tictactoe_agent(a, f); }).find(f.string()), std::string::npos);
  EXPECT_FALSE(fs::exists(f));
}

// K games per opening: deterministic players play the same games K times (K times the points);
// drawing players play other games under another seed, and the same under the same seed.
TEST(TttRandomTies, MatchesRepeatEachOpeningKTimes) {
  auto backend = make_backend("cpu", 2);
  TicTacToeAgent a = static_agent(2), b = static_agent(4);
  const std::vector<TttMatch> list{{&a, &b}, {&b, &a}};
  const std::vector<int> once = TttMatches(*backend).play(list);
  const std::vector<int> thrice = TttMatches(*backend, TttOpenings::kSource, 3).play(list);
  ASSERT_EQ(thrice.size(), 2u);
  EXPECT_EQ(thrice[0], 3 * once[0]);
  EXPECT_EQ(thrice[1], 3 * once[1]);
  // The two matches are the same 16 games seen from either side: every game's 30 points shared.
  EXPECT_EQ(once[0] + once[1], kTttMatchGames * kTttWinPoints);
  a.params.random_ties = b.params.random_ties = true;
  TttMatches tied(*backend, TttOpenings::kSource, 8);
  std::set<std::vector<int>> outcomes;
  for (u64 seed : {1, 2, 3, 4, 5, 6}) {
    const std::vector<int> p = tied.play(list, seed);
    EXPECT_EQ(p, tied.play(list, seed)) << seed;
    EXPECT_LE(p[0], 8 * kTttMatchGames * kTttWinPoints) << seed;
    outcomes.insert(p);
  }
  EXPECT_GT(outcomes.size(), 1u);  // the seed draws other ties
  EXPECT_NE(error_of([&] { TttMatches(*backend, TttOpenings::kSource, 0); }).find("games per opening"),
            std::string::npos);
}

// The run: ties = "random" with several games per opening gives the same bits on 1 and 2
// threads and across an interruption, its config round-trips, and the keys are checked.
TEST(TttRandomTies, EvolveRunIsReproducibleAndItsKeysAreChecked) {
  const fs::path dir = scratch("run");
  const auto config = [&](const std::string& fitness, const std::string& opponent = "[opponent]\ndepth = 2\n") {
    const fs::path f = dir / ("c" + std::to_string(std::hash<std::string>{}(fitness + opponent)) + ".toml");
    std::ofstream(f) << "[evolve]\nkind = \"tictactoe\"\ngenerations = 4\ntrials = 2\nseed = 3\n"
                        "[population]\nsize = 10\nmutation_rate = 0.01\nelitism = 1\n[network]\ndepth = 2\n"
                        "[monitor]\noracle = false\n"
                     << opponent << "[fitness]\n"
                     << fitness;
    return f.string();
  };
  const ga::EvolveConfig c = ga::load_evolve_config(config("ties = \"random\"\ngames_per_opening = 3\n"));
  EXPECT_TRUE(c.ttt.random_ties);
  EXPECT_EQ(c.ttt.games_per_opening, 3);
  const fs::path again = dir / "again.toml";
  std::ofstream(again) << ga::evolve_config_to_toml(c);
  EXPECT_EQ(ga::load_evolve_config(again.string()).ttt.games_per_opening, 3);
  ga::EvolveRunOptions one, two, stop;
  one.threads = 1;
  two.threads = stop.threads = 2;
  stop.stop_requested = [n = 0]() mutable { return ++n >= 2; };
  ga::run_evolve(c, dir / "one", one);
  ga::run_evolve(c, dir / "two", two);
  ASSERT_TRUE(ga::run_evolve(c, dir / "cut", stop).interrupted);
  ASSERT_TRUE(ga::resume_evolve(dir / "cut", one).complete);
  const auto metrics = [&](const fs::path& run) {  // without the timing columns
    std::istringstream in(test::file_bytes(run / "metrics.csv"));
    std::string out;
    for (std::string line; std::getline(in, line);) out += line.substr(0, line.rfind(',', line.rfind(',') - 1)) + "\n";
    return out;
  };
  EXPECT_EQ(metrics(dir / "one"), metrics(dir / "two"));
  EXPECT_EQ(metrics(dir / "one"), metrics(dir / "cut"));
  EXPECT_EQ(test::file_bytes(dir / "one" / "best_networks.csv"), test::file_bytes(dir / "cut" / "best_networks.csv"));
  // The fitness is on the 16-game scale whatever K: the mean over the repetitions.
  std::istringstream rows(metrics(dir / "one"));
  std::string row;
  std::getline(rows, row);
  while (std::getline(rows, row)) {
    std::vector<std::string> f;
    std::istringstream fields(row);
    for (std::string x; std::getline(fields, x, ',');) f.push_back(x);
    ASSERT_GE(f.size(), 6u) << row;
    EXPECT_LE(std::stod(f[3]), 480.0) << row;
    EXPECT_GE(std::stod(f[5]), 0.0) << row;
  }
  const auto refused = [&](const std::string& fitness, const std::string& key,
                           const std::string& opponent = "[opponent]\ndepth = 2\n") {
    const std::string e = error_of([&] { ga::load_evolve_config(config(fitness, opponent)); });
    EXPECT_NE(e.find("fitness." + key), std::string::npos) << fitness << ": " << e;
  };
  refused("games_per_opening = 2\n", "games_per_opening");  // deterministic games K times over
  refused("ties = \"sometimes\"\n", "ties");
  refused("ties = \"random\"\ngames_per_opening = 65\n", "games_per_opening");
  refused("kind = \"oracle\"\nties = \"random\"\n", "ties");
  refused("ties = \"random\"\n", "ties", "[opponent]\nkind = \"coevolution\"\ntop = 2\n");
}
