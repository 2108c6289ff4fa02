// score on held-out test games (--test-data, a search's [data] test_files), the overlap between
// test and fitness positions, --exclude-seen; training windows (--window); and by-phase agents from a search's shapes
// (score --phases). Expected values are recomputed here by replaying the games with the rules
// engine and plain std::set / std::map bookkeeping, never taken from the code under test.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include "data/generate.hpp"
#include "evalforge/backends/backend.hpp"
#include "evalforge/core/error.hpp"
#include "evalforge/data/positions.hpp"
#include "evalforge/games/othello/agent_file.hpp"
#include "evalforge/games/othello/bitboard.hpp"
#include "evalforge/games/othello/shape.hpp"
#include "evalforge/runs/score_table.hpp"
#include "evalforge/runs/shape_search_run.hpp"
#include "test_support.hpp"

namespace fs = std::filesystem;
using namespace ef;

namespace {

using BoardKey = std::pair<u64, u64>;

// The board of `game` after `move` discs were placed, or nothing when the game is shorter.
std::optional<BoardKey> board_at(const data::Game& game, int move) {
  if (static_cast<int>(game.moves.size()) < move) return std::nullopt;
  othello::Board board;
  for (int i = 0; i < move; ++i) {
    if (!board.can_move()) board.pass();
    EXPECT_TRUE(board.play(game.moves[static_cast<std::size_t>(i)]));
  }
  return BoardKey{board.black(), board.white()};
}

// The smallest of a board's 8 images by rotation and reflection, built square by square: the
// key of "the same position up to symmetry" (the n-tuple networks value all 8 images alike).
BoardKey canonical(const BoardKey& b) {
  BoardKey least = b;
  for (int s = 0; s < 8; ++s) {
    BoardKey image{0, 0};
    for (int sq = 0; sq < 64; ++sq) {
      int r = sq / 8, c = sq % 8;
      if (s & 4) std::swap(r, c);
      if (s & 1) c = 7 - c;
      if (s & 2) r = 7 - r;
      if ((b.first >> sq) & 1) image.first |= u64{1} << (8 * r + c);
      if ((b.second >> sq) & 1) image.second |= u64{1} << (8 * r + c);
    }
    least = std::min(least, image);
  }
  return least;
}

// Labels of each distinct board at `move` (all games' final scores reaching it).
std::map<BoardKey, std::vector<int>> labels_at(const std::vector<data::Game>& games, int move) {
  std::map<BoardKey, std::vector<int>> m;
  for (const auto& g : games)
    if (const auto b = board_at(g, move)) m[*b].push_back(g.score);
  return m;
}

// Training games: generated (SWH-greedy after 8 random plies, so openings are shared widely).
// Test games: other generated games, plus 10 exact copies of training games (all their
// positions are seen), so the overlap is substantial and known to be non-zero.
struct GameSets {
  std::vector<data::Game> train, test, other_test;
};
const GameSets& game_sets() {
  static const GameSets sets = [] {
    GameSets s;
    data::GenerateOptions o;
    o.threads = 2;
    o.games = 200;
    o.seed = 11;
    s.train = data::generate_games(o);
    o.games = 60;
    o.seed = 12;
    s.test = data::generate_games(o);
    s.test.insert(s.test.end(), s.train.begin(), s.train.begin() + 10);
    o.seed = 13;
    s.other_test = data::generate_games(o);
    return s;
  }();
  return sets;
}

const std::vector<int> kMoves = {4, 12, 20, 30};

// How many boards of `test` (a board -> labels map; each key once) are, up to symmetry, boards of `train`.
std::size_t count_seen(const std::map<BoardKey, std::vector<int>>& train,
                       const std::map<BoardKey, std::vector<int>>& test) {
  std::set<BoardKey> known;
  for (const auto& [b, labels] : train) known.insert(canonical(b));
  std::size_t seen = 0;
  for (const auto& [b, labels] : test) seen += known.count(canonical(b));
  return seen;
}

// `game` reflected in the a1-h8 diagonal: the start position maps onto itself, so it is a legal
// game with the same score whose boards are the reflections of the original's.
data::Game transposed(const data::Game& game) {
  data::Game t = game;
  for (auto& sq : t.moves) sq = static_cast<std::uint8_t>(8 * (sq % 8) + sq / 8);
  return t;
}

ScoreOptions held_out_options(const std::vector<data::Game>& test) {
  ScoreOptions o;
  o.moves = kMoves;
  o.test_games = &test;
  o.train.epochs = 1;
  o.return_weights = true;
  return o;
}

std::string bin() { return EF_EVALFORGE_BIN; }

}  // namespace

// ---- held-out positions ------------------------------------------------------------------------

TEST(ScoreHeldOut, TestPositionsAreTheTestGamesAndTheOverlapIsCountedExactly) {
  const GameSets& g = game_sets();
  ScoreOptions o = held_out_options(g.test);
  for (const int move : kMoves) {
    const auto train = labels_at(g.train, move), test = labels_at(g.test, move);
    const MoveSplit m = score_positions_at_move(g.train, move, o);
    // Fitness: every distinct training board (no test split of the data), with its mean label.
    ASSERT_EQ(m.split.first.size(), train.size()) << "move " << move;
    // Test: exactly the distinct boards of the test games, labels averaged.
    ASSERT_EQ(m.split.second.size(), test.size()) << "move " << move;
    std::size_t seen = 0;
    for (std::size_t i = 0; i < m.split.second.size(); ++i) {
      const BoardKey b{m.split.second.black[i], m.split.second.white[i]};
      ASSERT_TRUE(test.count(b)) << "move " << move;
      const auto& labels = test.at(b);
      double sum = 0;
      for (int l : labels) sum += l;
      EXPECT_DOUBLE_EQ(m.split.second.label[i], sum / static_cast<double>(labels.size()));
    }
    seen = count_seen(train, test);
    EXPECT_EQ(m.test_seen, seen) << "move " << move;
    EXPECT_EQ(m.test_excluded, 0u);
    // The 10 copied games make at least 1 seen board per move (the check can fail).
    EXPECT_GE(m.test_seen, 1u) << "move " << move;
    if (move == 4) {
      EXPECT_LT(m.test_seen, test.size()) << "some early boards must be new, or the test is weak";
    }
  }
}

TEST(ScoreHeldOut, DuplicatesKeptCountEveryTestGame) {
  const GameSets& g = game_sets();
  ScoreOptions o = held_out_options(g.test);
  o.positions.duplicates = data::Duplicates::kKeep;
  const int move = 12;
  std::multiset<BoardKey> test;
  std::set<BoardKey> train;
  for (const auto& game : g.test)
    if (const auto b = board_at(game, move)) test.insert(*b);
  for (const auto& game : g.train)
    if (const auto b = board_at(game, move)) train.insert(canonical(*b));
  std::size_t seen = 0;
  for (const auto& b : test) seen += train.count(canonical(b));
  const MoveSplit m = score_positions_at_move(g.train, move, o);
  EXPECT_EQ(m.split.second.size(), test.size());
  EXPECT_EQ(m.test_seen, seen);
  EXPECT_GE(seen, 10u);  // the copied games at least
}

TEST(ScoreHeldOut, APositionSeenInAnotherOrientationIsSeen) {
  // The training games reflected: no board is the same as a training board except by symmetry
  // (a few are their own reflection), yet every test position has been seen.
  const GameSets& g = game_sets();
  std::vector<data::Game> reflected;
  for (const auto& game : g.train) reflected.push_back(transposed(game));
  ScoreOptions o = held_out_options(reflected);
  for (const int move : {12, 30}) {
    const auto train = labels_at(g.train, move), test = labels_at(reflected, move);
    std::size_t same_board = 0;
    for (const auto& [b, labels] : test) same_board += train.count(b);
    EXPECT_LT(same_board, test.size() / 2) << "move " << move;
    const MoveSplit m = score_positions_at_move(g.train, move, o);
    EXPECT_EQ(m.split.second.size(), test.size());
    EXPECT_EQ(m.test_seen, test.size()) << "move " << move;
  }
}

TEST(ScoreHeldOut, ExcludeSeenDropsExactlyTheSeenPositions) {
  const GameSets& g = game_sets();
  ScoreOptions o = held_out_options(g.test);
  o.exclude_seen = true;
  for (const int move : kMoves) {
    const auto train = labels_at(g.train, move), test = labels_at(g.test, move);
    std::set<BoardKey> known, unseen;
    for (const auto& [b, labels] : train) known.insert(canonical(b));
    for (const auto& [b, labels] : test)
      if (!known.count(canonical(b))) unseen.insert(b);
    const MoveSplit m = score_positions_at_move(g.train, move, o);
    std::set<BoardKey> kept;
    for (std::size_t i = 0; i < m.split.second.size(); ++i)
      kept.insert({m.split.second.black[i], m.split.second.white[i]});
    EXPECT_EQ(kept, unseen) << "move " << move;
    EXPECT_EQ(m.test_excluded, test.size() - unseen.size());
    EXPECT_EQ(m.test_seen, m.test_excluded);
  }
  // Test games that are all training games leave nothing: an error, not an empty test set.
  const std::vector<data::Game> copies(g.train.begin(), g.train.begin() + 5);
  ScoreOptions all_seen = held_out_options(copies);
  all_seen.exclude_seen = true;
  const std::string message = test::error_of([&] { score_positions_at_move(g.train, 12, all_seen); });
  EXPECT_NE(message.find("--exclude-seen"), std::string::npos) << message;
}

TEST(ScoreHeldOut, BaselinesAreThoseOfTheTestSetAndTrainingIgnoresIt) {
  const GameSets& g = game_sets();
  auto backend = make_backend("cpu", 2);
  std::vector<ntuple::Shape> shapes = ntuple::load_shapes("edax");
  ScoreOptions o = held_out_options(g.test);
  o.train.epochs = 0;  // zero weights predict 0: the test MSE is the mean squared test label
  const auto rows = score_table(g.train, shapes, o, *backend);
  ASSERT_EQ(rows.size(), kMoves.size());
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const auto train = labels_at(g.train, kMoves[r]), test = labels_at(g.test, kMoves[r]);
    // Constant predictor: the mean of the (merged) training labels, scored on the test boards.
    double train_sum = 0;
    for (const auto& [b, labels] : train) {
      double s = 0;
      for (int l : labels) s += l;
      train_sum += s / static_cast<double>(labels.size());
    }
    const double mean = train_sum / static_cast<double>(train.size());
    double constant = 0, zero = 0;
    for (const auto& [b, labels] : test) {
      double s = 0;
      for (int l : labels) s += l;
      const double label = s / static_cast<double>(labels.size());
      constant += (label - mean) * (label - mean);
      zero += label * label;
    }
    const double n = static_cast<double>(test.size());
    EXPECT_NEAR(rows[r].constant_mse, constant / n, 1e-9) << "move " << kMoves[r];
    EXPECT_EQ(rows[r].irreducible_mse, 0.0);  // merged: one entry per board
    EXPECT_NEAR(rows[r].cells[0].mse, zero / n, 1e-3) << "move " << kMoves[r];
    EXPECT_EQ(rows[r].fitness_positions, train.size());
    EXPECT_EQ(rows[r].test_positions, test.size());
  }

  // The weights depend on the fitness data only: another test set, the same networks; other
  // training data, other networks (so the first comparison can fail).
  o.train.epochs = 1;
  const auto a = score_table(g.train, shapes, o, *backend);
  ScoreOptions other = held_out_options(g.other_test);
  const auto b = score_table(g.train, shapes, other, *backend);
  const std::vector<data::Game> fewer(g.train.begin(), g.train.end() - 20);
  const auto c = score_table(fewer, shapes, other, *backend);
  for (std::size_t r = 0; r < a.size(); ++r) {
    EXPECT_EQ(a[r].cells[0].weights, b[r].cells[0].weights) << "move " << kMoves[r];
    EXPECT_NE(a[r].cells[0].mse, b[r].cells[0].mse) << "different test sets score differently";
  }
  EXPECT_NE(a.back().cells[0].weights, c.back().cells[0].weights);
  // Bit-identical for 1 and 2 threads.
  auto one = make_backend("cpu", 1);
  const auto d = score_table(g.train, shapes, o, *one);
  for (std::size_t r = 0; r < a.size(); ++r) {
    EXPECT_EQ(a[r].cells[0].weights, d[r].cells[0].weights);
    EXPECT_EQ(a[r].cells[0].mse, d[r].cells[0].mse);
  }
}

// ---- training windows (ScoreOptions::window, score --window) ---------------------------------------

TEST(ScoreWindow, FitnessIsTheNeighbouringMovesOfTheSameParityAndTestStaysAtTheMove) {
  const GameSets& g = game_sets();
  ScoreOptions o;
  o.split = data::SplitBy::kGame;
  o.positions.duplicates = data::Duplicates::kKeep;  // every game's board counts once per move
  o.test_fraction = 0.25;
  ScoreOptions plain = o;
  const auto [fitness_games, test_games] =
      data::split_games(g.train.size(), o.test_fraction, o.seed, data::kFitnessTestStream);
  ASSERT_FALSE(test_games.empty());
  for (const auto& [move, window] : std::vector<std::pair<int, int>>{{12, 2}, {3, 3}, {59, 1}, {58, 2}}) {
    o.window = window;
    const MoveSplit w = score_positions_at_move(g.train, move, o);
    const MoveSplit p = score_positions_at_move(g.train, move, plain);
    // Fitness: the board of every fitness game at every move of the window (h-2w, ..., h+2w)
    // within 1..60, with the game's score, replayed here square by square.
    std::multiset<std::pair<BoardKey, double>> expected, got;
    for (const auto id : fitness_games)
      for (int k = move - 2 * window; k <= move + 2 * window; k += 2)  // the moves of the same parity
        if (k >= 1 && k <= 60)
          if (const auto b = board_at(g.train[id], k)) expected.insert({*b, static_cast<double>(g.train[id].score)});
    for (std::size_t i = 0; i < w.split.first.size(); ++i)
      got.insert({{w.split.first.black[i], w.split.first.white[i]}, w.split.first.label[i]});
    EXPECT_EQ(got, expected) << "move " << move << " window " << window;
    EXPECT_GT(w.split.first.size(), p.split.first.size()) << "move " << move;
    // Test: unchanged by the window, the test games' boards at the move itself.
    ASSERT_EQ(w.split.second.size(), p.split.second.size()) << "move " << move;
    EXPECT_EQ(w.split.second.black, p.split.second.black);
    EXPECT_EQ(w.split.second.white, p.split.second.white);
    std::multiset<BoardKey> test_boards, got_test;
    for (const auto id : test_games)
      if (const auto b = board_at(g.train[id], move)) test_boards.insert(*b);
    for (std::size_t i = 0; i < w.split.second.size(); ++i)
      got_test.insert({w.split.second.black[i], w.split.second.white[i]});
    EXPECT_EQ(got_test, test_boards) << "move " << move;
  }
}

TEST(ScoreWindow, HeldOutFitnessIsEveryMoveOfTheWindowMergedWithinEachMove) {
  const GameSets& g = game_sets();
  ScoreOptions o = held_out_options(g.test);
  o.window = 1;
  const int move = 20;
  const MoveSplit m = score_positions_at_move(g.train, move, o);
  std::size_t distinct = 0;
  std::multiset<std::pair<BoardKey, double>> expected, got;
  for (const int k : {move - 2, move, move + 2})
    for (const auto& [b, labels] : labels_at(g.train, k)) {
      double sum = 0;
      for (int l : labels) sum += l;
      expected.insert({b, sum / static_cast<double>(labels.size())});
      ++distinct;
    }
  ASSERT_EQ(m.split.first.size(), distinct);
  for (std::size_t i = 0; i < m.split.first.size(); ++i)
    got.insert({{m.split.first.black[i], m.split.first.white[i]}, m.split.first.label[i]});
  EXPECT_EQ(got, expected);
  EXPECT_EQ(m.split.second.size(), labels_at(g.test, move).size());
}

TEST(ScoreWindow, SplitByPositionIsRefusedAndNamesTheWindow) {
  const GameSets& g = game_sets();
  ScoreOptions o;  // split by position
  o.window = 2;
  const std::string message = test::error_of([&] { score_positions_at_move(g.train, 12, o); });
  EXPECT_NE(message.find("window"), std::string::npos) << message;
  EXPECT_NE(message.find("split by game"), std::string::npos) << message;
  o.window = -1;
  o.split = data::SplitBy::kGame;
  EXPECT_NE(test::error_of([&] { score_positions_at_move(g.train, 12, o); }).find("window"), std::string::npos);
}

// ---- the command --------------------------------------------------------------------------------

namespace {

struct Files {
  fs::path dir, train, test, short_test;
};
const Files& files() {
  static const Files f = [] {
    Files f;
    f.dir = test::scratch_dir("heldout", "files");
    f.train = f.dir / "train.txt";
    f.test = f.dir / "test.txt";
    f.short_test = f.dir / "short.txt";
    data::write_transcripts(f.train, game_sets().train);
    data::write_transcripts(f.test, game_sets().test);
    // A finished game of 9 moves (a wipe-out), so it has no position at move 12.
    std::ofstream(f.short_test) << "e6f4e3f6g5d6e7f5c5\n";
    return f;
  }();
  return f;
}

std::pair<int, std::string> run_score_command(const std::string& args) {
  return test::run_command(bin() + " score --no-cache --epochs 1 --threads 2 " + args + " 2>&1");
}

}  // namespace

TEST(ScoreHeldOutCommand, JsonAndTableReportTheOverlap) {
  const Files& f = files();
  const auto [rc, out] =
      run_score_command("--data " + f.train.string() + " --test-data " + f.test.string() + " --moves 4,12 --json");
  ASSERT_EQ(rc, 0) << out;
  const auto j = nlohmann::json::parse(out);
  EXPECT_EQ(j["test_games"], game_sets().test.size());
  ASSERT_EQ(j["rows"].size(), 2u);
  for (std::size_t r = 0; r < 2; ++r) {
    const int move = r == 0 ? 4 : 12;
    const auto train = labels_at(game_sets().train, move), test = labels_at(game_sets().test, move);
    const std::size_t seen = count_seen(train, test);
    EXPECT_EQ(j["rows"][r]["test_positions"], test.size());
    EXPECT_EQ(j["rows"][r]["test_seen"], seen);
    EXPECT_NEAR(j["rows"][r]["test_seen_share"].get<double>(), static_cast<double>(seen) / test.size(), 1e-12);
  }
  const auto [rc2, table] = run_score_command("--data " + f.train.string() + " --test-data " + f.test.string() +
                                              " --moves 12 --exclude-seen");
  ASSERT_EQ(rc2, 0) << table;
  EXPECT_NE(table.find("seen (dropped)"), std::string::npos) << table;
  EXPECT_NE(table.find("held out"), std::string::npos) << table;
}

TEST(ScoreWindowCommand, WindowTrainsOnMoreDataAndNeedsSplitByGame) {
  const Files& f = files();
  const std::string data = "--data " + f.train.string() + " --moves 12,20 --json";
  const auto [rc, out] = run_score_command(data + " --split game --window 2");
  ASSERT_EQ(rc, 0) << out;
  const auto [rc0, out0] = run_score_command(data + " --split game");
  ASSERT_EQ(rc0, 0) << out0;
  const auto j = nlohmann::json::parse(out), j0 = nlohmann::json::parse(out0);
  EXPECT_EQ(j["window"], 2);
  for (std::size_t r = 0; r < 2; ++r) {
    EXPECT_EQ(j["rows"][r]["test_positions"], j0["rows"][r]["test_positions"]);
    EXPECT_GT(j["rows"][r]["fitness_positions"].get<std::size_t>(),
              3 * j0["rows"][r]["fitness_positions"].get<std::size_t>());
    EXPECT_TRUE(std::isfinite(j["rows"][r]["cells"][0]["mse"].get<double>()));
  }
  // Refused before any data is read (the data file named here does not exist).
  const auto [rc2, err] = run_score_command("--data /nonexistent/games.txt --moves 12 --window 2");
  EXPECT_NE(rc2, 0);
  EXPECT_NE(err.find("--window"), std::string::npos) << err;
  EXPECT_NE(err.find("--split game"), std::string::npos) << err;
  EXPECT_EQ(err.find("nonexistent"), std::string::npos) << err;
}

// Move 1 has at most 4 distinct boards, so split by position (20% of the boards to test) leaves
// no test position there: the error says so and names the way out, which works.
TEST(ScoreWindowCommand, FewBoardsAtAMoveSplitByPositionNameSplitByGame) {
  const Files& f = files();
  const auto [rc, out] = run_score_command("--data " + f.train.string() + " --moves 1");
  EXPECT_NE(rc, 0);
  EXPECT_NE(out.find("move 1"), std::string::npos) << out;
  EXPECT_NE(out.find("--split game"), std::string::npos) << out;
  const auto [rc2, out2] = run_score_command("--data " + f.train.string() + " --moves 1 --split game");
  EXPECT_EQ(rc2, 0) << out2;
}

TEST(ScoreHeldOutCommand, BadTestDataIsAnErrorNamingIt) {
  const Files& f = files();
  const std::string data = "--data " + f.train.string();
  {
    const auto [rc, out] = run_score_command(data + " --test-data " + (f.dir / "nope.wtb").string() + " --moves 12");
    EXPECT_NE(rc, 0);
    EXPECT_NE(out.find("nope.wtb"), std::string::npos) << out;
  }
  {
    const auto [rc, out] =
        run_score_command(data + " --test-data " + f.test.string() + " " + f.short_test.string() + " --moves 4,12");
    EXPECT_NE(rc, 0);
    EXPECT_NE(out.find(f.short_test.string()), std::string::npos) << out;
    EXPECT_NE(out.find("move 12"), std::string::npos) << out;
  }
  {
    const auto [rc, out] = run_score_command(data + " --exclude-seen --moves 12");
    EXPECT_NE(rc, 0);
    EXPECT_NE(out.find("--test-data"), std::string::npos) << out;
  }
  {
    const auto [rc, out] =
        run_score_command(data + " --test-data " + f.test.string() + " --test-fraction 0.3 --moves 12");
    EXPECT_NE(rc, 0);
    EXPECT_NE(out.find("--test-fraction"), std::string::npos) << out;
  }
}

// ---- a search with held-out test games -----------------------------------------------------------

namespace {
const char* kTinySearch = R"(
[search]
moves = [12, 20]
island_size = 6
elite = 2
mutants = 2
generations = 4
seed = 3
tuple_sizes = [4, 3]
[migration]
interval = 2
size = 2
[fitness]
test_every = 2
[training]
epochs = 1
[run]
checkpoint_every = 1
)";

fs::path search_config(const std::string& name, const std::string& data_section) {
  const fs::path f = test::scratch_dir("heldout", "cfg_" + name) / "c.toml";
  std::ofstream(f) << kTinySearch << data_section;
  return f;
}

std::string data_section() {
  return "[data]\nfiles = [\"" + files().train.string() + "\"]\ntest_files = [\"" + files().test.string() + "\"]\n";
}

std::string read(const fs::path& f) { return test::file_bytes(f); }
}  // namespace

TEST(SearchHeldOut, TestFilesRunResumeAndAreValidated) {
  const fs::path dir = test::scratch_dir("heldout", "search");
  ga::SearchRunOptions quiet;
  quiet.threads = 2;
  const ga::SearchConfig c = ga::load_search_config(search_config("ok", data_section()).string());
  ASSERT_EQ(c.test_files.size(), 1u);
  ga::run_search(c, dir / "full", quiet);
  // The island log line counts the held-out test positions and their overlap (recomputed here).
  const std::string log = read(dir / "full" / "log.txt");
  const auto train = labels_at(game_sets().train, 12), test = labels_at(game_sets().test, 12);
  const std::size_t seen = count_seen(train, test);
  EXPECT_NE(log.find(fmt::format("island move 12: {} fitness, {} test positions (held out; {} of them also fitness",
                                 train.size(), test.size(), seen)),
            std::string::npos)
      << log;
  // The test scores come from the test files: the same run without them has other ones.
  const std::string metrics = read(dir / "full" / "metrics.csv");
  EXPECT_NE(read(dir / "full" / "config.toml").find("test_files = ["), std::string::npos);

  // Interrupted and resumed: the same rows (minus wall time) as the uninterrupted run.
  ga::SearchRunOptions stop = quiet;
  stop.stop_requested = [calls = 0]() mutable { return ++calls >= 2; };
  EXPECT_TRUE(ga::run_search(c, dir / "cut", stop).interrupted);
  EXPECT_TRUE(ga::resume_search(dir / "cut", quiet).complete);
  const auto without_time = [](const std::string& text) {
    std::string out;
    std::size_t begin = 0;
    while (begin < text.size()) {
      const std::size_t end = text.find('\n', begin);
      const std::string line = text.substr(begin, end - begin);
      out += line.substr(0, line.rfind(',')) + "\n";
      begin = end + 1;
    }
    return out;
  };
  EXPECT_EQ(without_time(metrics), without_time(read(dir / "cut" / "metrics.csv")));
  ga::SearchConfig split = c;
  split.test_files.clear();
  ga::run_search(split, dir / "split", quiet);
  EXPECT_NE(without_time(metrics), without_time(read(dir / "split" / "metrics.csv")));

  // A resume validates test_files like every key of config.toml: a bad type names the key, a
  // missing file names the file.
  const fs::path cfg = dir / "cut" / "config.toml";
  std::string text = read(cfg);
  const std::string good = text;
  text.replace(text.find("test_files = ["), 14, "test_files = [3, ");
  std::ofstream(cfg) << text;
  std::string message = test::error_of([&] { ga::resume_search(dir / "cut", quiet); });
  EXPECT_NE(message.find("data.test_files"), std::string::npos) << message;
  std::ofstream(cfg) << good;
  text = good;
  const std::string test_path = fs::absolute(files().test).lexically_normal().string();
  ASSERT_NE(text.find(test_path), std::string::npos) << text;
  text.replace(text.find(test_path), test_path.size(), (dir / "gone.txt").string());
  std::ofstream(cfg) << text;
  message = test::error_of([&] { ga::resume_search(dir / "cut", quiet, 6); });
  EXPECT_NE(message.find("gone.txt"), std::string::npos) << message;

  // Config errors name the file and key; a test file that does not exist is named at the start.
  message =
      test::error_of([] { ga::load_search_config(search_config("key", "[data]\ntest_file = [\"x\"]\n").string()); });
  EXPECT_NE(message.find("data.test_file"), std::string::npos) << message;
  message = test::error_of([] { ga::load_search_config(search_config("type", "[data]\ntest_files = 7\n").string()); });
  EXPECT_NE(message.find("data.test_files"), std::string::npos) << message;
  ga::SearchConfig missing = c;
  missing.test_files = {(dir / "absent.wtb").string()};
  message = test::error_of([&] { ga::run_search(missing, dir / "missing", quiet); });
  EXPECT_NE(message.find("absent.wtb"), std::string::npos) << message;
}

// ---- by-phase agents ----------------------------------------------------------------------------

namespace {

// The paper's Table 3 agent, written out here: the island (shape move) that plays each move.
int paper_island_of_move(int move) {
  if (move <= 32) return 30;
  if (move <= 36) return 34;
  if (move <= 40) return 38;
  if (move <= 44) return 42;
  return 46;
}

// A best_shapes.json as a search writes it: islands 18..46, each with a shape of its own (one
// 4-square tuple whose last square tells the islands apart).
fs::path shapes_file(const fs::path& dir, const std::vector<int>& moves) {
  const char* extra[] = {"d1", "e1", "f1", "g1", "h1", "a2", "b2", "c2"};
  nlohmann::json list = nlohmann::json::array();
  for (std::size_t i = 0; i < moves.size(); ++i)
    list.push_back({{"name", fmt::format("island-{}", moves[i])},
                    {"move", moves[i]},
                    {"tuples", {{"a1", "b1", "c1", extra[i]}, {"a8", "b8", "c8"}}}});
  const fs::path f = dir / "best_shapes.json";
  std::ofstream(f) << nlohmann::json{{"shapes", list}}.dump();
  return f;
}

}  // namespace

TEST(ScorePhases, ParsingAndTheSharedMapping) {
  const ntuple::Phases paper{{32, 30}, {36, 34}, {40, 38}, {44, 42}, {60, 46}};
  EXPECT_EQ(ntuple::parse_phases("paper", "--phases"), paper);
  EXPECT_EQ(ntuple::parse_phases("32:30,36:34,40:38,44:42,60:46", "--phases"), paper);
  for (const char* bad : {"32:30,36", "32:30,60:x", "30:30,50:46", "40:30,36:34,60:46", "32:30,60:61", ""}) {
    const std::string m = test::error_of([&] { ntuple::parse_phases(bad, "--phases"); });
    EXPECT_NE(m.find("--phases"), std::string::npos) << bad << ": " << m;
  }
  std::vector<ntuple::Shape> shapes;
  for (int move : {30, 34, 38, 42, 46}) {
    ntuple::Shape s = ntuple::edax_shape();
    s.move = move;
    s.name = fmt::format("island-{}", move);
    shapes.push_back(s);
  }
  const auto phased = ntuple::shapes_by_phase(shapes, paper, "runs/x/best_shapes.json");
  for (int t = 0; t <= 60; ++t)
    EXPECT_EQ(phased.shapes[static_cast<std::size_t>(phased.phase_of_move[t])].move, paper_island_of_move(t)) << t;
  shapes.pop_back();
  const std::string m = test::error_of([&] { ntuple::shapes_by_phase(shapes, paper, "runs/x/best_shapes.json"); });
  EXPECT_NE(m.find("move 46"), std::string::npos) << m;
  EXPECT_NE(m.find("runs/x/best_shapes.json"), std::string::npos) << m;
}

TEST(ScorePhases, WritesOneAgentThatUsesThePapersShapeAtEachMoveAndPlays) {
  const fs::path dir = test::scratch_dir("heldout", "phases");
  const fs::path shapes = shapes_file(dir, {18, 22, 26, 30, 34, 38, 42, 46});
  const std::string common = "--shapes " + shapes.string() + " --data " + files().train.string() + " --moves paper";
  const auto [rc, out] = run_score_command(common + " --phases paper --save-agents " + (dir / "phased").string());
  ASSERT_EQ(rc, 0) << out;
  const fs::path agent_file = dir / "phased" / "best_shapes-phases.toml";
  ASSERT_TRUE(fs::exists(agent_file)) << out;
  const play::OthelloAgent agent = play::load_agent(agent_file.string());
  const auto all = ntuple::load_shapes(shapes.string());
  const auto geometry_of = [&](int island) {
    for (const auto& s : all)
      if (s.move == island) return s.geometry();
    ADD_FAILURE() << "no island " << island;
    return ntuple::Geometry{};
  };
  ASSERT_EQ(agent.networks.size(), 8u);  // one per scored move
  for (int t = 0; t <= 60; ++t) {
    const auto& net = agent.networks[static_cast<std::size_t>(agent.network_of_move[t])];
    const ntuple::Geometry& g = agent.geometries[static_cast<std::size_t>(net.geometry)];
    const ntuple::Geometry want = geometry_of(paper_island_of_move(t));
    ASSERT_EQ(g.num_tuples, want.num_tuples) << "move " << t;
    for (int i = 0; i < g.num_tuples; ++i) EXPECT_EQ(g.mask[i], want.mask[i]) << "move " << t;
  }
  // The network of a scored move is the one trained there with its phase's shape: the same as
  // that shape's own agent (score without --phases) at that move.
  const auto [rc2, out2] = run_score_command(common + " --save-agents " + (dir / "each").string());
  ASSERT_EQ(rc2, 0) << out2;
  for (int move : {18, 30, 34, 46}) {
    const play::OthelloAgent own =
        play::load_agent((dir / "each" / fmt::format("island-{}.toml", paper_island_of_move(move))).string());
    EXPECT_EQ(agent.networks[static_cast<std::size_t>(agent.network_of_move[move])].weights,
              own.networks[static_cast<std::size_t>(own.network_of_move[move])].weights)
        << "move " << move;
  }
  // It plays: league games against the benchmark player.
  const auto [rc3, out3] =
      test::run_command(bin() + " league --threads 2 --games 4 --agent " + agent_file.string() + " 2>&1");
  EXPECT_EQ(rc3, 0) << out3;
  // --json records the phases used.
  const auto [rc5, out5] =
      run_score_command(common + " --phases paper --json --save-agents " + (dir / "json").string());
  ASSERT_EQ(rc5, 0) << out5;
  EXPECT_EQ(nlohmann::json::parse(out5)["phases"].dump(), "[[32,30],[36,34],[40,38],[44,42],[60,46]]");
  // An explicit list that differs from the paper's maps differently.
  const auto [rc4, out4] = run_score_command(common + " --phases 40:18,60:46 --save-agents " + (dir / "two").string());
  ASSERT_EQ(rc4, 0) << out4;
  const play::OthelloAgent two = play::load_agent((dir / "two" / "best_shapes-phases.toml").string());
  EXPECT_EQ(two.geometries.size(), 2u);
  EXPECT_EQ(two.geometry_names, (std::vector<std::string>{"island-18", "island-46"}));
  EXPECT_EQ(two.networks[static_cast<std::size_t>(two.network_of_move[40])].geometry, 0);
  EXPECT_EQ(two.networks[static_cast<std::size_t>(two.network_of_move[41])].geometry, 1);
}

TEST(ScorePhases, ErrorsNameTheProblem) {
  const fs::path dir = test::scratch_dir("heldout", "phase_errors");
  const fs::path shapes = shapes_file(dir, {18, 22, 26, 30, 34, 38, 42});  // no island 46
  const std::string common = "--shapes " + shapes.string() + " --data " + files().train.string();
  {
    const auto [rc, out] = run_score_command(common + " --phases paper");
    EXPECT_NE(rc, 0);
    EXPECT_NE(out.find("--save-agents"), std::string::npos) << out;
  }
  {
    const auto [rc, out] = run_score_command(common + " --phases paper --save-agents " + (dir / "a").string());
    EXPECT_NE(rc, 0);
    EXPECT_NE(out.find("move 46"), std::string::npos) << out;
    EXPECT_NE(out.find(shapes.string()), std::string::npos) << out;
  }
  {
    const auto [rc, out] =
        run_score_command(common + " --phases 32:30,60:42 --moves 30 --save-agents " + (dir / "b").string());
    EXPECT_NE(rc, 0);
    EXPECT_NE(out.find("33..60"), std::string::npos) << out;
  }
  {
    const auto [rc, out] = run_score_command(common + " --phases 32:30,50:42 --save-agents " + (dir / "c").string());
    EXPECT_NE(rc, 0);
    EXPECT_NE(out.find("move 60"), std::string::npos) << out;
  }
}

// --save-agents where nothing can be written (here under a regular file, which even root cannot
// make a directory of; a read-only directory too when not root): a clear error naming the path,
// exit 2, before any training -- not "internal error" (exit 3) after it.
TEST(ScoreSaveAgents, UnwritableDirectoryIsAnErrorNamingThePathBeforeTraining) {
  const fs::path dir = test::scratch_dir("heldout", "unwritable");
  std::ofstream(dir / "blocker") << "a file\n";
  std::vector<fs::path> targets{dir / "blocker" / "agents"};
  if (::geteuid() != 0) {
    fs::create_directories(dir / "read-only");
    fs::permissions(dir / "read-only", fs::perms::owner_read | fs::perms::owner_exec);
    targets.push_back(dir / "read-only" / "agents");
    targets.push_back(dir / "read-only");
  }
  for (const fs::path& target : targets) {
    const auto [rc, out] =
        run_score_command("--data " + files().train.string() + " --moves 12 --save-agents " + target.string());
    EXPECT_EQ(rc, 2) << out;
    EXPECT_NE(out.find("--save-agents"), std::string::npos) << out;
    EXPECT_NE(out.find(target.string()), std::string::npos) << out;
    EXPECT_EQ(out.find("internal error"), std::string::npos) << out;
    EXPECT_EQ(out.find("agent written"), std::string::npos) << out;
  }
  if (::geteuid() != 0) fs::permissions(dir / "read-only", fs::perms::owner_all);
}

// ---- scripts/make-agent.sh: shapes to an agent that plays (docs/play.md) ----------------------------

TEST(MakeAgentScript, WritesATrainedAgentOfEveryMoveAndItsProbCutTwin) {
  const fs::path dir = test::scratch_dir("heldout", "make-agent");
  const fs::path shapes = shapes_file(dir, {18, 22, 26, 30, 34, 38, 42, 46});
  const fs::path out = dir / "agent";
  const auto [rc, text] =
      test::run_command(fmt::format("EVALFORGE='{}' EPOCHS=1 WINDOW=1 DEPTH=2 EXACT=8 PROBCUT_POSITIONS=60 "
                                    "PROBCUT_MAX_DEPTH=4 TEST_FRACTION=0.25 THREADS=2 "
                                    "'{}/scripts/make-agent.sh' '{}' '{}' '{}' 2>&1",
                                    bin(), EF_SOURCE_DIR, shapes.string(), out.string(), files().train.string()));
  ASSERT_EQ(rc, 0) << text;
  const play::OthelloAgent agent = play::load_agent((out / "best_shapes-phases.toml").string());
  const play::OthelloAgent twin = play::load_agent((out / "best_shapes-phases-probcut.toml").string());
  // Every move 1..59 has a network of its own, trained there (no nearest-move stand-ins).
  ASSERT_EQ(agent.networks.size(), 59u);
  std::set<int> used;
  for (int t = 1; t <= 59; ++t) used.insert(agent.network_of_move[t]);
  EXPECT_EQ(used.size(), 59u);
  EXPECT_EQ(agent.limits.depth, 2);
  EXPECT_EQ(agent.limits.exact_empties, 8);
  EXPECT_EQ(agent.probcut, nullptr);
  // The twin: the same networks, with the ProbCut parameters fitted for them.
  EXPECT_NE(twin.probcut, nullptr);
  EXPECT_EQ(twin.name, "best_shapes-phases-probcut");
  ASSERT_EQ(twin.networks.size(), agent.networks.size());
  for (std::size_t n = 0; n < agent.networks.size(); ++n)
    EXPECT_EQ(twin.networks[n].weights, agent.networks[n].weights);
  EXPECT_NE(test::file_bytes(out / "score.txt").find("moves h-2..h+2 of h's parity"), std::string::npos);

  const auto [rc2, usage] = test::run_command(fmt::format("'{}/scripts/make-agent.sh' only-one 2>&1", EF_SOURCE_DIR));
  EXPECT_EQ(rc2, 2);
  EXPECT_NE(usage.find("usage"), std::string::npos) << usage;
}
