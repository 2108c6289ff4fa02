// The ordering network trained on the solver's own trees (runs/ordering_network.hpp, `evalforge
// ordering`): the samples are exact and do not depend on the thread count, excluded games give
// no root, and only the networks within the sampled empties are trained.
#include "runs/ordering_network.hpp"
#include <fmt/core.h>
#include <gtest/gtest.h>
#include <unistd.h>
#include <filesystem>
#include <fstream>
#include <map>
#include <vector>
#include "backends/cpu/network_eval.hpp"
#include "evalforge/backends/backend.hpp"
#include "evalforge/core/error.hpp"
#include "evalforge/core/files.hpp"
#include "evalforge/core/rng.hpp"
#include "evalforge/data/games.hpp"
#include "evalforge/games/othello/agent_file.hpp"
#include "evalforge/games/othello/endgame.hpp"
#include "evalforge/games/othello/game.hpp"
#include "evalforge/games/othello/shape.hpp"
#include "test_support.hpp"

namespace ef {
namespace {

std::filesystem::path player_network() { return std::filesystem::path(EF_SOURCE_DIR) / "networks/ordering/edax.toml"; }

// A complete game of random legal moves, deterministic for a seed.
data::Game random_game(u64 seed) {
  Rng rng(seed, Purpose::kGame, 91);
  othello::Board board;
  data::Game game;
  while (!board.game_over()) {
    if (!board.can_move()) board.pass();
    const int square = rng.random_bit(board.moves());
    board.play(square);
    game.moves.push_back(static_cast<std::uint8_t>(square));
  }
  game.score = board.disc_diff();
  return game;
}

std::vector<data::Game> random_games(int n) {
  std::vector<data::Game> games;
  for (int i = 0; i < n; ++i) games.push_back(random_game(100 + static_cast<u64>(i)));
  return games;
}

// The board of `game` once it has `empties` empties (black, white).
std::pair<u64, u64> board_at(const data::Game& game, int empties) {
  othello::Board board;
  for (const std::uint8_t square : game.moves) {
    if (board.empties() == empties) break;
    if (!board.can_move()) board.pass();
    board.play(square);
  }
  return {board.black(), board.white()};
}

void write_text(const std::filesystem::path& file, const std::string& text) { std::ofstream(file) << text; }

bool same(const TreeSample& a, const TreeSample& b) {
  return a.P == b.P && a.O == b.O && a.score == b.score && a.empties == b.empties && a.root == b.root &&
         a.best_move == b.best_move;
}

// A sampling that takes a second: 12 roots of 14 empties, 3 nodes per level of 8-10 empties and
// 1 of 11-12.
TreeSampleOptions small_sampling() {
  TreeSampleOptions o;
  o.roots = 12;
  o.root_empties = 14;
  o.min_empties = 8;
  o.max_empties = 12;
  o.per_level = 3;
  o.deep_per_level = 1;
  o.deep_empties = 11;
  o.table_bits = 16;
  return o;
}

TEST(OrderingNetwork, SamplesAreExactAndDoNotDependOnThreads) {
  const play::OthelloAgent base = play::load_agent(player_network().string());
  const cpu::SolverOrdering order(base.ntuple_evaluator());
  const std::vector<data::Game> games = random_games(12);
  TreeSampleOptions o = small_sampling();
  o.threads = 1;
  const TreeSamples one = sample_solver_trees(games, order, o);
  o.threads = 2;
  const TreeSamples two = sample_solver_trees(games, order, o);
  ASSERT_GE(one.roots, 10);
  EXPECT_EQ(one.roots, two.roots);
  EXPECT_EQ(one.excluded_games, 0);
  ASSERT_EQ(one.samples.size(), two.samples.size());
  for (std::size_t i = 0; i < one.samples.size(); ++i) EXPECT_TRUE(same(one.samples[i], two.samples[i])) << i;

  // Every label is the exact score (here by the solver without table or ordering), every sample
  // within the range, and no more per root and level than asked for.
  std::map<std::pair<std::uint32_t, int>, int> per_level;
  for (const TreeSample& s : one.samples) {
    const int empties = 64 - popcount64(s.P | s.O);
    EXPECT_EQ(s.empties, empties);
    EXPECT_GE(empties, 8);
    EXPECT_LE(empties, 12);
    EXPECT_LT(s.root, 12u);
    EXPECT_EQ(s.score, search::solve_endgame(s.P, s.O).score) << s.P << " " << s.O;
    // The best move reaches that score.
    ASSERT_TRUE(othello::legal_moves(s.P, s.O) >> s.best_move & 1);
    const u64 f = othello::flips(s.P, s.O, s.best_move);
    EXPECT_EQ(-search::solve_endgame(s.O & ~f, s.P | f | (u64{1} << s.best_move)).score, s.score);
    ++per_level[{s.root, empties}];
  }
  EXPECT_GE(one.samples.size(), 10u * 3 * 3);  // levels 8-10: 3 each (the trees have plenty)
  for (const auto& [key, count] : per_level) EXPECT_LE(count, key.second >= 11 ? 1 : 3);

  // A game that passes through an excluded position gives no root: one position before the
  // root (game 3) and one after it (game 5, symmetric: any of the 8 symmetries counts).
  const auto [b3, w3] = board_at(games[3], 20);
  const auto [b5, w5] = board_at(games[5], 10);
  o.excluded = {{b3, w3}, {othello::symmetry(b5, 3), othello::symmetry(w5, 3)}};
  const TreeSamples without = sample_solver_trees(games, order, o);
  EXPECT_EQ(without.excluded_games, 2);
  EXPECT_EQ(without.roots, one.roots - 2);
  std::vector<TreeSample> expected;
  for (const TreeSample& s : one.samples)
    if (s.root != 3 && s.root != 5) expected.push_back(s);
  ASSERT_EQ(without.samples.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) EXPECT_TRUE(same(without.samples[i], expected[i])) << i;

  // The samples file: read back the same; each line an .obf position in the solver's colours
  // (black to move at an even move number) with its best move and exact score, so that
  // `evalforge solve` reads it and `search` takes it as data.
  const auto dir = test::scratch_dir("ordering", "samples-file");
  write_tree_samples(dir / "s.obf", one.samples, {"a header line"});
  const std::vector<TreeSample> back = read_tree_samples(dir / "s.obf");
  ASSERT_EQ(back.size(), one.samples.size());
  for (std::size_t i = 0; i < back.size(); ++i) EXPECT_TRUE(same(back[i], one.samples[i])) << i;
  const std::vector<data::ObfPosition> obf = data::read_obf(dir / "s.obf");
  ASSERT_EQ(obf.size(), one.samples.size());
  for (std::size_t i = 0; i < obf.size(); ++i) {
    const TreeSample& s = one.samples[i];
    const bool black_moves = (popcount64(s.P | s.O) - 4) % 2 == 0;
    EXPECT_EQ(obf[i].side, black_moves ? othello::kBlack : othello::kWhite);
    EXPECT_EQ(obf[i].black, black_moves ? s.P : s.O);
    ASSERT_EQ(obf[i].move_scores.size(), 1u);
    EXPECT_EQ(obf[i].move_scores[0], std::make_pair(s.best_move, s.score));
  }
}

// A sampling stopped part way (a crash, Ctrl-C) resumes from the roots it finished, through its
// journal, to the samples an uninterrupted run gives; a root whose block was cut short is
// solved again.
TEST(OrderingNetwork, AStoppedSamplingResumesFromItsJournal) {
  const play::OthelloAgent base = play::load_agent(player_network().string());
  const cpu::SolverOrdering order(base.ntuple_evaluator());
  std::vector<data::Game> games = random_games(12);
  games[7].moves.resize(30);  // ends long before the root: a root of kind "none"
  TreeSampleOptions o = small_sampling();
  o.per_level = 2;
  o.threads = 2;
  const auto [b3, w3] = board_at(games[3], 20);
  o.excluded = {{b3, w3}};  // a root of kind "excluded"
  const TreeSamples whole = sample_solver_trees(games, order, o);
  ASSERT_EQ(whole.excluded_games, 1);
  ASSERT_EQ(whole.roots, 10);

  // A failed journal append (a full disk) ends the sampling: no thread starts another root,
  // even if later appends would succeed; the roots in flight still finish.
  int calls = 0, after_failure = 0;
  TreeSampleOptions failing = o;
  failing.on_root = [&](const TreeRootOutcome&) {
    if (++calls == 5) throw Error("disk full");
    if (calls > 5) ++after_failure;
  };
  EXPECT_THROW(sample_solver_trees(games, order, failing), Error);
  EXPECT_LE(after_failure, o.threads - 1);

  // The run "crashes" once 9 roots have been journaled (one thread: roots 0-8).
  const auto dir = test::scratch_dir("ordering", "journal");
  const auto journal = dir / "s.obf.partial";
  const std::vector<std::string> identity = tree_sample_identity(o, games, base);
  write_text(journal, tree_journal_header(identity));
  int journaled = 0, refused = 0;
  TreeSampleOptions stopping = o;
  stopping.threads = 1;
  stopping.on_root = [&](const TreeRootOutcome& r) {
    if (journaled == 9) {
      ++refused;
      throw Error("stopped");
    }
    append_durably(journal, tree_journal_block(r), false);
    ++journaled;
  };
  EXPECT_THROW(sample_solver_trees(games, order, stopping), Error);
  ASSERT_EQ(journaled, 9);
  EXPECT_EQ(refused, 1);
  // ... and the append of a sixth root was cut short half way.
  TreeRootOutcome torn;
  torn.root = 99;  // (not a root of this sampling: a torn block is dropped unread)
  torn.kind = TreeRootOutcome::Kind::kSolved;
  for (const TreeSample& s : whole.samples)
    if (s.root == 0 || s.root == 1) torn.samples.push_back(s);
  const std::string block = tree_journal_block(torn);
  append_durably(journal, block.substr(0, block.size() / 2), false);

  TreeJournal read = read_tree_journal(journal);
  EXPECT_EQ(read.identity, identity);
  EXPECT_TRUE(read.torn);
  ASSERT_EQ(read.roots.size(), 9u);
  std::vector<std::uint32_t> roots;
  for (const TreeRootOutcome& r : read.roots) {
    roots.push_back(r.root);
    for (const TreeSample& s : r.samples) EXPECT_EQ(s.root, r.root);
    EXPECT_EQ(r.kind == TreeRootOutcome::Kind::kExcluded, r.root == 3);
    EXPECT_EQ(r.kind == TreeRootOutcome::Kind::kNoRoot, r.root == 7);
  }
  // An excluded root and one of kind "none" are among them, so resuming them is exercised too.
  EXPECT_EQ(roots, (std::vector<std::uint32_t>{0, 1, 2, 3, 4, 5, 6, 7, 8}));
  TreeSampleOptions resumed = o;
  resumed.resumed = read.roots;
  std::vector<std::uint32_t> solved_now;
  resumed.on_root = [&](const TreeRootOutcome& r) { solved_now.push_back(r.root); };
  const TreeSamples after = sample_solver_trees(games, order, resumed);
  EXPECT_EQ(solved_now.size(), 3u);  // 12 roots, 9 done before
  for (const std::uint32_t r : solved_now) EXPECT_EQ(std::count(roots.begin(), roots.end(), r), 0) << r;
  EXPECT_EQ(after.roots, whole.roots);
  EXPECT_EQ(after.excluded_games, whole.excluded_games);
  ASSERT_EQ(after.samples.size(), whole.samples.size());
  for (std::size_t i = 0; i < whole.samples.size(); ++i) EXPECT_TRUE(same(after.samples[i], whole.samples[i])) << i;

  // Other options, data or base agent: another identity (the command refuses such a journal).
  for (int field = 0; field < 9; ++field) {
    TreeSampleOptions other = o;
    int* const fields[] = {&other.roots,     &other.root_empties,   &other.min_empties,  &other.max_empties,
                           &other.per_level, &other.deep_per_level, &other.deep_empties, &other.table_bits};
    if (field < 8)
      ++*fields[field];
    else
      ++other.seed;
    EXPECT_NE(tree_sample_identity(other, games, base), identity) << field;
  }
  TreeSampleOptions other = o;
  other.excluded[0].first ^= 1;  // another position, as many of them
  EXPECT_NE(tree_sample_identity(other, games, base), identity);
  std::vector<data::Game> swapped = games, edited = games;
  std::swap(swapped[0], swapped[1]);  // the same games in another order
  EXPECT_NE(tree_sample_identity(o, swapped, base), identity);
  std::swap(edited[0].moves[40], edited[0].moves[41]);  // as many games and moves, one order differs
  EXPECT_NE(tree_sample_identity(o, edited, base), identity);
  play::OthelloAgent changed = base;
  changed.networks[4].weights[0] += 1;
  EXPECT_NE(tree_sample_identity(o, games, changed), identity);
  o.threads = 1;  // the thread count changes nothing
  EXPECT_EQ(tree_sample_identity(o, games, base), identity);
  // Resumed roots must be roots of this sampling, each once.
  resumed.on_root = nullptr;
  resumed.resumed = {read.roots[0], read.roots[0]};
  EXPECT_NE(test::error_of([&] { sample_solver_trees(games, order, resumed); }).find("given twice"), std::string::npos);
  resumed.resumed = {TreeRootOutcome{12, TreeRootOutcome::Kind::kNoRoot, {}}};
  EXPECT_NE(test::error_of([&] { sample_solver_trees(games, order, resumed); }).find("outside the 12 roots"),
            std::string::npos);
}

// A journal that no sampling could have written names the file and the line.
TEST(OrderingNetwork, BadJournalsNameTheLine) {
  const auto dir = test::scratch_dir("ordering", "bad-journal");
  const std::string sample = "---------------------------OX------XO--------------------------- X; d3:+0;\n";
  auto error_for = [&](const std::string& text) {
    write_text(dir / "j", text);
    return test::error_of([&] { read_tree_journal(dir / "j"); });
  };
  write_text(dir / "j", "% id\n% root 3 solved\n" + sample + "% end 3\n% root 4 none\n% end 4\n% root 5 solved\n");
  const TreeJournal ok = read_tree_journal(dir / "j");
  EXPECT_EQ(ok.identity, std::vector<std::string>{"id"});
  ASSERT_EQ(ok.roots.size(), 2u);
  EXPECT_EQ(ok.roots[0].samples.size(), 1u);
  EXPECT_EQ(ok.roots[0].samples[0].root, 3u);
  EXPECT_EQ(ok.roots[1].kind, TreeRootOutcome::Kind::kNoRoot);
  EXPECT_TRUE(ok.torn);  // root 5's block has no end
  EXPECT_NE(error_for("% id\n" + sample).find("j:2: '"), std::string::npos);
  EXPECT_NE(error_for("% root 1 none\n" + sample).find("j:2: '"), std::string::npos);  // samples only when solved
  EXPECT_NE(error_for("% root 1 solved\n% end 2\n").find("j:2: '% end 2' ends no open block (root 1's is open)"),
            std::string::npos);
  EXPECT_NE(error_for("% root 1 solved\n% root 2 solved\n").find("j:2: root 2's block starts before root 1's"),
            std::string::npos);
  EXPECT_NE(error_for("% root 1 none\n% end 1\n% root 1 none\n").find("j:3: root 1 has a block already"),
            std::string::npos);
  EXPECT_NE(error_for("% root x none\n").find("j:1: '% root x none' is not the start"), std::string::npos);
  EXPECT_NE(error_for("% root 1 maybe\n").find("j:1:"), std::string::npos);
  EXPECT_NE(error_for("% root 1 none\n% end 1\n% a comment\n").find("j:3:"), std::string::npos);
  EXPECT_THROW(read_tree_journal(dir / "missing"), Error);
}

// A samples file that is not one names the file and the line.
TEST(OrderingNetwork, BadSamplesFilesNameTheLine) {
  const auto dir = test::scratch_dir("ordering", "bad-samples");
  const std::string board = "---------------------------OX------XO---------------------------";
  auto error_for = [&](const std::string& text) {
    write_text(dir / "s.obf", text);
    return test::error_of([&] { read_tree_samples(dir / "s.obf"); });
  };
  write_text(dir / "s.obf", "% root 3\n" + board + " X; d3:+0;\n");
  ASSERT_EQ(read_tree_samples(dir / "s.obf").size(), 1u);
  EXPECT_EQ(read_tree_samples(dir / "s.obf")[0].root, 3u);
  EXPECT_NE(error_for(board + " X; d3:+0;\n").find("s.obf:1: a sample before any '% root N' line"), std::string::npos);
  EXPECT_NE(error_for("% root x\n").find("s.obf:1: 'x' is not a root number"), std::string::npos);
  EXPECT_NE(error_for("% root 1\n" + board + " X;\n").find("s.obf:2: a sample lists one move"), std::string::npos);
  EXPECT_NE(error_for("% root 1\n" + board + " X; d3:+0; c4:+0;\n").find("s.obf:2: a sample lists one move"),
            std::string::npos);
  EXPECT_NE(error_for("% root 1\n\n" + board + " X; a1:+0;\n").find("s.obf:3: move a1 is not legal"),
            std::string::npos);
  EXPECT_THROW(read_tree_samples(dir / "missing.obf"), Error);
}

TEST(OrderingNetwork, OptionsOutOfRangeNameTheOption) {
  auto message = [](TreeSampleOptions o) {
    try {
      check_tree_sample_options(o);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  TreeSampleOptions o;
  EXPECT_EQ(message(o), "accepted");
  o.min_empties = 5;  // the solver's frames start above kSmallEmpties
  EXPECT_EQ(message(o).rfind("min_empties", 0), 0u) << message(o);
  o = {};
  o.max_empties = 11;  // below min_empties = 12
  EXPECT_EQ(message(o).rfind("max_empties", 0), 0u) << message(o);
  o = {};
  o.root_empties = 19;  // must lie above max_empties
  EXPECT_EQ(message(o).rfind("root_empties", 0), 0u) << message(o);
  o = {};
  o.roots = 0;
  EXPECT_EQ(message(o).rfind("roots", 0), 0u) << message(o);
}

// Samples at 12-19 empties: the built-in player network's stages of moves 41-44 and 45-48 (its
// networks 3 and 4) lie within them and are trained; every other network is kept bit for bit.
TEST(OrderingNetwork, TrainsOnlyTheNetworksWithinTheSampledEmpties) {
  const play::OthelloAgent base = play::load_agent(player_network().string());
  ASSERT_EQ(base.network_of_move[41], 3);
  ASSERT_EQ(base.network_of_move[44], 3);
  ASSERT_EQ(base.network_of_move[45], 4);
  ASSERT_EQ(base.network_of_move[48], 4);
  ASSERT_NE(base.network_of_move[40], 3);
  ASSERT_NE(base.network_of_move[49], 4);
  // Positions of random games at 10-21 empties, labelled with the game's result for the side to
  // move (any label will do here: this checks what is trained, not how well).
  std::vector<TreeSample> samples;
  const std::vector<data::Game> games = random_games(200);
  for (std::uint32_t g = 0; g < games.size(); ++g)
    for (int e = 10; e <= 21; ++e) {
      const auto [black, white] = board_at(games[g], e);
      if (64 - popcount64(black | white) != e) continue;
      const bool black_moves = (60 - e) % 2 == 0;
      samples.push_back({black_moves ? black : white, black_moves ? white : black,
                         black_moves ? games[g].score : -games[g].score, e, g});
    }
  TreeSampleOptions range;
  range.min_empties = 12;
  range.max_empties = 19;
  auto backend = make_backend("cpu", 2);
  TrainParams params;
  params.epochs = 2;
  const TreeTraining a = train_on_solver_trees(base, range, samples, params, *backend);
  const TreeTraining b = train_on_solver_trees(base, range, samples, params, *backend);
  ASSERT_EQ(a.networks.size(), 2u);
  EXPECT_EQ(a.networks[0].network, 3);
  EXPECT_EQ(a.networks[0].first_move, 41);
  EXPECT_EQ(a.networks[0].last_move, 44);
  EXPECT_EQ(a.networks[1].network, 4);
  EXPECT_EQ(a.networks[1].first_move, 45);
  EXPECT_EQ(a.networks[1].last_move, 48);
  for (const TreeNetworkReport& r : a.networks) {
    EXPECT_GT(r.train, 0u);
    EXPECT_GT(r.held_out, 0u);
    std::size_t of_moves = 0;
    for (const TreeSample& s : samples)
      if (60 - s.empties >= r.first_move && 60 - s.empties <= r.last_move) ++of_moves;
    EXPECT_EQ(r.train + r.held_out, of_moves);
  }
  ASSERT_EQ(a.agent.networks.size(), base.networks.size());
  for (std::size_t n = 0; n < base.networks.size(); ++n) {
    EXPECT_EQ(a.agent.networks[n].weights == base.networks[n].weights, n != 3 && n != 4) << n;
    EXPECT_EQ(a.agent.networks[n].weights, b.agent.networks[n].weights) << n;  // deterministic
  }
  EXPECT_EQ(a.agent.network_of_move, base.network_of_move);

  // With shapes: the networks trained take the shape searched for a move within their moves,
  // nearest their middle (41-44: 42 and 43 tie, the lower wins; 45-48: 46); the rest keep theirs.
  ntuple::Shape s42{"s42", 42, {{0, 1, 2, 3}, {8, 9, 10}}}, s43{"s43", 43, {{0, 1}}}, s46{"s46", 46, {{0, 9, 18, 27}}},
      s50{"s50", 50, {{5, 6}}};
  const std::vector<ntuple::Shape> shapes{s50, s46, s43, s42};
  const TreeTraining c = train_on_solver_trees(base, range, samples, params, *backend, shapes, "shapes.json");
  ASSERT_EQ(c.agent.networks.size(), base.networks.size());
  for (std::size_t n = 0; n < base.networks.size(); ++n) {
    const ntuple::Geometry& g = c.agent.geometries[static_cast<std::size_t>(c.agent.networks[n].geometry)];
    EXPECT_EQ(c.agent.networks[n].weights.size(), g.num_weights()) << n;
    if (n == 3 || n == 4) continue;
    EXPECT_EQ(c.agent.networks[n].weights, base.networks[n].weights) << n;
    EXPECT_EQ(c.agent.networks[n].geometry, base.networks[n].geometry) << n;
  }
  auto geometry_of = [&](int n) { return c.agent.geometries[static_cast<std::size_t>(c.agent.networks[n].geometry)]; };
  EXPECT_EQ(geometry_of(3).num_weights(), s42.geometry().num_weights());
  EXPECT_EQ(geometry_of(3).num_tuples, 2);
  EXPECT_EQ(geometry_of(4).num_weights(), s46.geometry().num_weights());
  EXPECT_EQ(geometry_of(4).num_tuples, 1);
  EXPECT_EQ(c.agent.geometry_names.size(), c.agent.geometries.size());
  EXPECT_EQ(c.networks[0].mse_base, a.networks[0].mse_base);  // the base's error is the base's
  const std::string e = test::error_of([&] { with_tree_shapes(base, range, {s42, s50}, "best.json"); });
  EXPECT_NE(e.find("best.json has no shape searched for a move within 45-48"), std::string::npos) << e;

  TreeSampleOptions narrow;  // 13-15 empties: no network lies within
  narrow.min_empties = 13;
  narrow.max_empties = 15;
  narrow.root_empties = 16;
  EXPECT_THROW(train_on_solver_trees(base, narrow, samples, params, *backend), Error);
}

// The command: a bad range is refused naming the flag; a small run writes an agent that differs
// from its base only in the trained networks, the same on 1 and 2 threads.
TEST(OrderingCommand, WritesTheSameAgentOnOneAndTwoThreadsAndRefusesBadRanges) {
  const auto dir = test::scratch_dir("ordering", "command");
  const auto transcripts = dir / "games.txt";
  data::write_transcripts(transcripts, random_games(30));
  const std::string common =
      fmt::format("'{}' ordering --data '{}' --roots 8 --epochs 1", EF_EVALFORGE_BIN, transcripts.string());
  {
    const auto [status, out] =
        test::run_command(common + fmt::format(" --out '{}' --max-empties 22 2>&1", (dir / "x.toml").string()));
    EXPECT_NE(status, 0);
    EXPECT_NE(out.find("--root-empties"), std::string::npos) << out;
  }
  {
    const auto [status, out] = test::run_command(
        common + fmt::format(" --out '{}' --min-empties 16 --max-empties 14 2>&1", (dir / "x.toml").string()));
    EXPECT_NE(status, 0);
    EXPECT_NE(out.find("--max-empties"), std::string::npos) << out;
  }
  {  // no network lies within 13-15 empties: refused before any solve
    const auto [status, out] =
        test::run_command(common + fmt::format(" --out '{}' --min-empties 13 --max-empties 15 --root-empties 16 2>&1",
                                               (dir / "x.toml").string()));
    EXPECT_NE(status, 0);
    EXPECT_NE(out.find("--min-empties"), std::string::npos) << out;
    EXPECT_EQ(out.find("roots solved"), std::string::npos) << out;
  }
  {  // nothing drawn: nothing to train, no agent written
    const auto [status, out] = test::run_command(
        common + fmt::format(" --out '{}' --per-level 0 --deep-per-level 0 2>&1", (dir / "x.toml").string()));
    EXPECT_NE(status, 0);
    EXPECT_NE(out.find("no training sample"), std::string::npos) << out;
  }
  EXPECT_FALSE(std::filesystem::exists(dir / "x.toml"));
  for (const int threads : {1, 2}) {
    const auto [status, out] =
        test::run_command(common + fmt::format(" --per-level 1 --deep-per-level 1 --threads {} --out '{}' 2>&1",
                                               threads, (dir / fmt::format("t{}.toml", threads)).string()));
    ASSERT_EQ(status, 0) << out;
  }
  EXPECT_EQ(test::file_bytes(dir / "t1.efnet"), test::file_bytes(dir / "t2.efnet"));
  const play::OthelloAgent base = play::load_agent(player_network().string());
  const play::OthelloAgent trained = play::load_agent((dir / "t1.toml").string());
  ASSERT_EQ(trained.networks.size(), base.networks.size());
  for (std::size_t n = 0; n < base.networks.size(); ++n)
    EXPECT_EQ(trained.networks[n].weights == base.networks[n].weights, n != 3 && n != 4) << n;

  // --samples-out writes what was drawn; --samples trains on it to the same agent, without
  // sampling; a --shapes file without a shape for a trained network is refused before sampling.
  {
    const auto [status, out] =
        test::run_command(common + fmt::format(" --per-level 1 --deep-per-level 1 --out '{}' --samples-out '{}' 2>&1",
                                               (dir / "w.toml").string(), (dir / "s.obf").string()));
    ASSERT_EQ(status, 0) << out;
  }
  EXPECT_EQ(test::file_bytes(dir / "w.efnet"), test::file_bytes(dir / "t1.efnet"));
  {
    const auto [status, out] =
        test::run_command(fmt::format("'{}' ordering --samples '{}' --epochs 1 --out '{}' 2>&1", EF_EVALFORGE_BIN,
                                      (dir / "s.obf").string(), (dir / "r.toml").string()));
    ASSERT_EQ(status, 0) << out;
    EXPECT_EQ(out.find("roots solved"), std::string::npos) << out;
  }
  EXPECT_EQ(test::file_bytes(dir / "r.efnet"), test::file_bytes(dir / "t1.efnet"));
  write_text(dir / "shapes.json", R"({"shapes": [{"name": "a", "move": 42, "tuples": [["a1", "b1"]]}]})");
  {
    const auto [status, out] =
        test::run_command(common + fmt::format(" --shapes '{}' --out '{}' 2>&1", (dir / "shapes.json").string(),
                                               (dir / "x.toml").string()));
    EXPECT_NE(status, 0);
    EXPECT_NE(out.find("no shape searched for a move within 45-48"), std::string::npos) << out;
    EXPECT_EQ(out.find("roots solved"), std::string::npos) << out;
  }
  {
    const auto [status, out] =
        test::run_command(fmt::format("'{}' ordering --samples '{}' --roots 3 --out '{}' 2>&1", EF_EVALFORGE_BIN,
                                      (dir / "s.obf").string(), (dir / "x.toml").string()));
    EXPECT_NE(status, 0);
    EXPECT_NE(out.find("--samples excludes --roots"), std::string::npos) << out;
  }
}

// The command: with --samples-out, a journal beside it (F.partial) makes a stopped sampling
// resume, to the same samples and agent, and goes once F is written; a journal of another
// sampling is refused, naming it, and left alone.
TEST(OrderingCommand, ResumesAStoppedSamplingFromItsJournal) {
  const auto dir = test::scratch_dir("ordering", "command-journal");
  const auto transcripts = dir / "games.txt";
  data::write_transcripts(transcripts, random_games(30));
  const std::string common =
      fmt::format("'{}' ordering --data '{}' --base '{}' --roots 8 --per-level 1 --deep-per-level 1 --epochs 1",
                  EF_EVALFORGE_BIN, transcripts.string(), player_network().string());
  {
    const auto [status, out] =
        test::run_command(common + fmt::format(" --out '{}' --samples-out '{}' 2>&1", (dir / "full.toml").string(),
                                               (dir / "full.obf").string()));
    ASSERT_EQ(status, 0) << out;
  }
  EXPECT_FALSE(std::filesystem::exists(dir / "full.obf.partial"));
  EXPECT_FALSE(std::filesystem::exists(dir / "full.obf.partial.lock"));  // the journal's lock goes with it
  const std::vector<TreeSample> samples = read_tree_samples(dir / "full.obf");

  // The journal a run stopped after three roots leaves: those roots' blocks, and a fourth cut
  // short by the stop.
  TreeSampleOptions o;
  o.roots = 8;
  o.per_level = 1;
  o.deep_per_level = 1;
  const play::OthelloAgent base = play::load_agent(player_network().string());
  const std::vector<std::string> identity = tree_sample_identity(o, data::load_games({transcripts}).games, base);
  std::string journal = tree_journal_header(identity);
  std::vector<TreeRootOutcome> done;
  for (const TreeSample& s : samples) {
    if (done.empty() || done.back().root != s.root) {
      if (done.size() == 3) break;
      done.push_back({s.root, TreeRootOutcome::Kind::kSolved, {}});
    }
    done.back().samples.push_back(s);
  }
  ASSERT_EQ(done.size(), 3u);
  for (const TreeRootOutcome& r : done) journal += tree_journal_block(r);
  journal += "% root 7 solved\n--------";
  write_text(dir / "part.obf.partial", journal);
  {
    const auto [status, out] =
        test::run_command(common + fmt::format(" --out '{}' --samples-out '{}' 2>&1", (dir / "part.toml").string(),
                                               (dir / "part.obf").string()));
    ASSERT_EQ(status, 0) << out;
    EXPECT_NE(out.find("part.obf.partial: 3 of 8 roots done"), std::string::npos) << out;
  }
  EXPECT_TRUE(test::file_bytes(dir / "part.obf") == test::file_bytes(dir / "full.obf"));
  EXPECT_TRUE(test::file_bytes(dir / "part.efnet") == test::file_bytes(dir / "full.efnet"));  // (binary: no dump)
  EXPECT_FALSE(std::filesystem::exists(dir / "part.obf.partial"));
  EXPECT_FALSE(std::filesystem::exists(dir / "part.obf.partial.lock"));

  write_text(dir / "other.obf.partial", journal);
  {
    const auto [status, out] =
        test::run_command(common + fmt::format(" --seed 2 --out '{}' --samples-out '{}' 2>&1",
                                               (dir / "other.toml").string(), (dir / "other.obf").string()));
    EXPECT_NE(status, 0);
    EXPECT_NE(out.find("other.obf.partial: the journal of a sampling with other"), std::string::npos) << out;
    EXPECT_EQ(out.find("roots solved"), std::string::npos) << out;
  }
  EXPECT_EQ(test::file_bytes(dir / "other.obf.partial"), journal);
  EXPECT_FALSE(std::filesystem::exists(dir / "other.toml"));
}

// Two processes never sample into one journal: while one holds it (the lock this test takes is
// the one a running `ordering --samples-out` holds), a second command stops before solving,
// naming the journal and the holder, and leaves the journal as it was.
TEST(OrderingCommand, OneProcessSamplesIntoAJournalAtATime) {
  const auto dir = test::scratch_dir("ordering", "command-journal-lock");
  const auto transcripts = dir / "games.txt";
  data::write_transcripts(transcripts, random_games(30));
  const std::string journal = "a journal being written\n";
  write_text(dir / "busy.obf.partial", journal);
  const std::string command = fmt::format(
      "'{}' ordering --data '{}' --base '{}' --roots 8 --per-level 1 --deep-per-level 1 --epochs 1 --out '{}' "
      "--samples-out '{}' 2>&1",
      EF_EVALFORGE_BIN, transcripts.string(), player_network().string(), (dir / "busy.toml").string(),
      (dir / "busy.obf").string());
  {
    const ExclusiveLock held = lock_exclusively(dir / "busy.obf.partial.lock");
    if (!held.holder) GTEST_SKIP() << dir << ": this file system has no flock";
    ASSERT_FALSE(held.busy);
    const auto [status, out] = test::run_command(command);
    EXPECT_NE(status, 0);
    EXPECT_NE(out.find(fmt::format("busy.obf.partial: another evalforge process (pid {}) is sampling", ::getpid())),
              std::string::npos)
        << out;
    EXPECT_EQ(out.find("roots solved"), std::string::npos) << out;
    EXPECT_EQ(test::file_bytes(dir / "busy.obf.partial"), journal);
    EXPECT_FALSE(std::filesystem::exists(dir / "busy.toml"));
    // The holder's lock file is the holder's: the refused command leaves it as it was.
    EXPECT_EQ(test::file_bytes(dir / "busy.obf.partial.lock"), fmt::format("{}\n", ::getpid()));
  }
  // Released (its holder gone), the journal is the command's again: this one is no journal at
  // all, which the command now says instead.
  const auto [status, out] = test::run_command(command);
  EXPECT_NE(status, 0);
  EXPECT_EQ(out.find("another evalforge process"), std::string::npos) << out;
  EXPECT_NE(out.find("busy.obf.partial:"), std::string::npos) << out;
}

}  // namespace
}  // namespace ef
