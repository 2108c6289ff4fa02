// ProbCut (engine/pvs.hpp, games/othello/probcut.hpp): fitting, the parameter file, the selective search,
// and agents that use it.
#include "games/othello/probcut.hpp"
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <filesystem>
#include <fstream>
#include "evalforge/backends/backend.hpp"
#include "evalforge/games/othello/agent.hpp"
#include "evalforge/games/othello/agent_file.hpp"
#include "evalforge/games/othello/swh.hpp"
#include "evalforge/games/othello/tree_search.hpp"
#include "test_support.hpp"

using namespace ef;
namespace fs = std::filesystem;

namespace {

play::ProbCutFitOptions small_fit(int threads) {
  play::ProbCutFitOptions o;
  o.positions = 120;
  o.min_depth = 3;
  o.max_depth = 5;
  o.threads = threads;
  o.table_bits = 12;
  return o;
}

othello::Position midgame_position(u32 k) {
  Rng rng(77, Purpose::kGame, k);
  return othello::random_opening(rng, 16 + static_cast<int>(k % 12));
}

}  // namespace

// The fit is a pure function of (agent, options): 1 and 2 threads write the same file, and the
// file reads back to the same parameters.
TEST(ProbCut, FitIsThreadIndependentAndRoundTrips) {
  const play::OthelloAgent swh = play::swh_agent({1, -1});
  const play::ProbCutFit one = play::fit_probcut(swh, small_fit(1));
  const play::ProbCutFit two = play::fit_probcut(swh, small_fit(2));
  const fs::path dir = test::scratch_dir("probcut", "fit");
  play::save_probcut(one, dir / "one.toml");
  play::save_probcut(two, dir / "two.toml");
  EXPECT_EQ(test::file_bytes(dir / "one.toml"), test::file_bytes(dir / "two.toml"));
  int fitted = 0;
  for (const play::ProbCutCell& c : one.cells) {
    EXPECT_GE(c.depth, 3);
    EXPECT_LE(c.depth, 5);
    if (one.params.sigma[c.depth][c.phase] > 0) {
      ++fitted;
      EXPECT_GE(c.samples, play::kProbCutMinSamples);
      EXPECT_GT(c.a, 0.0);
      EXPECT_GT(c.correlation, 0.5) << "depth " << c.depth << " phase " << c.phase;  // deep and shallow agree
    }
  }
  EXPECT_GT(fitted, 0);
  const auto back = play::load_probcut(dir / "one.toml");
  for (int d = 0; d <= search::kProbCutMaxDepth; ++d)
    for (int p = 0; p < search::kProbCutPhases; ++p) {
      EXPECT_FLOAT_EQ(back->sigma[d][p], one.params.sigma[d][p]);
      EXPECT_FLOAT_EQ(back->a[d][p], one.params.a[d][p]);
      EXPECT_FLOAT_EQ(back->b[d][p], one.params.b[d][p]);
    }
  EXPECT_EQ(back->min_depth, 3);
}

TEST(ProbCut, BadParameterFilesNameFileAndKey) {
  const fs::path dir = test::scratch_dir("probcut", "bad");
  const auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream(dir / name) << text;
    return dir / name;
  };
  EXPECT_NE(test::error_of([&] { play::load_probcut(dir / "missing.toml"); }).find("missing.toml"), std::string::npos);
  const std::string unknown =
      test::error_of([&] { play::load_probcut(write("u.toml", "threshold = 1.5\nspeed = 3\n")); });
  EXPECT_NE(unknown.find("speed"), std::string::npos) << unknown;
  const std::string depth = test::error_of(
      [&] { play::load_probcut(write("d.toml", "[[cut]]\ndepth = 40\nphase = 0\na = 1.0\nb = 0.0\nsigma = 1.0\n")); });
  EXPECT_NE(depth.find("depth"), std::string::npos) << depth;
  const std::string missing =
      test::error_of([&] { play::load_probcut(write("m.toml", "[[cut]]\ndepth = 4\nphase = 0\na = 1.0\nb = 0.0\n")); });
  EXPECT_NE(missing.find("sigma"), std::string::npos) << missing;
  const std::string slope = test::error_of(
      [&] { play::load_probcut(write("s.toml", "[[cut]]\ndepth = 4\nphase = 0\na = -1.0\nb = 0.0\nsigma = 3.0\n")); });
  EXPECT_NE(slope.find("cut[0].a"), std::string::npos) << slope;
}

// Parameters that can never cut leave the search what it was (alpha-beta's value and move); fitted
// ones give a deterministic search that visits fewer nodes in all.
TEST(ProbCut, NeverCuttingEqualsAlphaBetaAndFittedOneSavesNodes) {
  search::ProbCut never;
  for (auto& row : never.a)
    for (float& x : row) x = 1.0f;
  for (auto& row : never.sigma)
    for (float& x : row) x = 1e6f;  // a margin no swh value clears (probes run, none cuts)
  const play::ProbCutFit fit = play::fit_probcut(play::swh_agent({1, -1}), small_fit(2));
  std::vector<search::TranspositionEntry<games::OthelloKey>> entries(std::size_t{1} << 14);
  search::OthelloTable table{entries.data(), entries.size() - 1, 0};
  search::PvsOptions none, cut;
  none.probcut = &never;
  cut.probcut = &fit.params;
  u64 full_nodes = 0, cut_nodes = 0;
  for (u32 k = 0; k < 40; ++k) {
    const othello::Position p = midgame_position(k);
    if (!games::Othello::moves(p)) continue;
    const search::SearchResult want = search::alphabeta<games::Othello>(p, 5, swh::Evaluator{});
    const search::SearchResult same = search::pvs<games::Othello>(p, 5, swh::Evaluator{}, &table, none);
    ASSERT_EQ(same.value, want.value) << k;
    ASSERT_EQ(same.best_move, want.best_move) << k;
    const search::SearchResult a = search::pvs<games::Othello>(p, 5, swh::Evaluator{}, &table, cut);
    const search::SearchResult b = search::pvs<games::Othello>(p, 5, swh::Evaluator{}, &table, cut);
    EXPECT_EQ(a.value, b.value) << k;
    EXPECT_EQ(a.best_move, b.best_move) << k;
    EXPECT_EQ(a.nodes, b.nodes) << k;
    EXPECT_TRUE(games::Othello::moves(p) >> a.best_move & 1) << k;
    full_nodes += same.nodes;
    cut_nodes += a.nodes;
  }
  EXPECT_LT(cut_nodes, full_nodes);
}

// An agent names its parameters (probcut = FILE, relative to the agent), saves them beside
// itself, plays the same games on 1 and 2 threads, and refuses plain alpha-beta.
TEST(ProbCut, AgentFileKeyRoundTripAndDeterministicGames) {
  const fs::path dir = test::scratch_dir("probcut", "agent");
  play::save_probcut(play::fit_probcut(play::swh_agent({1, -1}), small_fit(2)), dir / "params.toml");
  std::ofstream(dir / "a.toml") << "evaluator = \"swh\"\ndepth = 5\nexact_empties = 8\nprobcut = \"params.toml\"\n";
  const play::OthelloAgent a = play::load_agent((dir / "a.toml").string());
  ASSERT_TRUE(a.probcut);
  play::save_agent(a, dir / "copy" / "b.toml");
  const play::OthelloAgent b = play::load_agent((dir / "copy" / "b.toml").string());
  ASSERT_TRUE(b.probcut);
  for (int d = 0; d <= search::kProbCutMaxDepth; ++d)
    for (int p = 0; p < search::kProbCutPhases; ++p) {
      EXPECT_FLOAT_EQ(b.probcut->sigma[d][p], a.probcut->sigma[d][p]);
      EXPECT_FLOAT_EQ(b.probcut->a[d][p], a.probcut->a[d][p]);
      EXPECT_FLOAT_EQ(b.probcut->b[d][p], a.probcut->b[d][p]);
    }

  std::vector<OthelloJob> jobs(6);
  for (u32 k = 0; k < jobs.size(); ++k) {
    Rng rng(5, Purpose::kGame, k);
    jobs[k].start = othello::random_opening(rng, 6);
    jobs[k].seed = 9;
    jobs[k].game = k;
    jobs[k].black = static_cast<int>(k % 2);
    jobs[k].white = static_cast<int>(1 - k % 2);
  }
  std::vector<play::OthelloRecord> r1(jobs.size()), r2(jobs.size());
  auto one = make_backend("cpu", 1), two = make_backend("cpu", 2);
  for (Backend* be : {one.get(), two.get()}) {
    be->add_agent(a);
    be->add_agent(play::swh_agent({5, 8}));
  }
  one->play(jobs, r1);
  two->play(jobs, r2);
  for (std::size_t k = 0; k < jobs.size(); ++k) {
    ASSERT_EQ(r1[k].plies, r2[k].plies) << k;
    EXPECT_TRUE(std::equal(r1[k].moves, r1[k].moves + r1[k].plies, r2[k].moves)) << k;
    EXPECT_EQ(r1[k].nodes, r2[k].nodes) << k;
  }

  std::ofstream(dir / "c.toml")
      << "evaluator = \"swh\"\ndepth = 5\nsearch = \"alphabeta\"\nprobcut = \"params.toml\"\n";
  const std::string err = test::error_of([&] { play::load_agent((dir / "c.toml").string()); });
  EXPECT_NE(err.find("pvs"), std::string::npos) << err;
  std::ofstream(dir / "d.toml") << "evaluator = \"swh\"\nprobcut = \"nope.toml\"\n";
  const std::string missing = test::error_of([&] { play::load_agent((dir / "d.toml").string()); });
  EXPECT_NE(missing.find("probcut"), std::string::npos) << missing;
}
