// Position sets: positions at move k, duplicate merging, seeded splits, the two baselines,
// and the numbers docs/method.md gives for the real logbook.
#include <gtest/gtest.h>
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include "evalforge/core/error.hpp"
#include "evalforge/core/rng.hpp"
#include "evalforge/data/games.hpp"
#include "evalforge/data/positions.hpp"
#include "evalforge/games/othello/bitboard.hpp"
#include "evalforge/games/othello/game.hpp"
#include "evalforge/games/othello/squares.hpp"
#include "test_support.hpp"

namespace fs = std::filesystem;
using namespace ef;
using namespace ef::data;

namespace {

// A game from a move string ("d3c3b3"), replayed to check it and to fill in the raw score
// when it ends; `score` overrides it (unfinished games, chosen labels).
Game game_of(const std::string& moves, int score = kNoScore) {
  Game game;
  othello::Board board;
  for (std::size_t i = 0; i + 1 < moves.size(); i += 2) {
    const int square = *parse_square(moves.substr(i, 2));
    if (!board.can_move()) board.pass();
    EXPECT_TRUE(board.play(square)) << moves << " at " << i / 2 + 1;
    game.moves.push_back(static_cast<std::uint8_t>(square));
  }
  game.score = score != kNoScore ? score : board.disc_diff();
  return game;
}

// The board after the first k moves of `moves`.
std::pair<u64, u64> board_after(const std::string& moves, int k) {
  othello::Board board;
  for (int i = 0; i < k; ++i) {
    if (!board.can_move()) board.pass();
    board.play(*parse_square(moves.substr(2 * static_cast<std::size_t>(i), 2)));
  }
  return {board.black(), board.white()};
}

// A complete game of random legal moves, deterministic for a seed.
Game random_game(u64 seed) {
  Rng rng(seed, Purpose::kGame, 7);
  othello::Board board;
  Game game;
  while (!board.game_over()) {
    if (!board.can_move()) board.pass();
    u64 moves = board.moves();
    const int square = rng.random_bit(moves);
    board.play(square);
    game.moves.push_back(static_cast<std::uint8_t>(square));
  }
  game.score = board.disc_diff();
  return game;
}

std::vector<Game> random_games(std::size_t n, u64 first_seed = 1) {
  std::vector<Game> games;
  for (std::size_t i = 0; i < n; ++i) games.push_back(random_game(first_seed + i));
  return games;
}

// Hand-made games. "d3c3b3d6e6" and "d3c3e6d6b3" reach the same board at move 5 by different
// orders (a transposition); the 9-move game ends early.
const std::string kShort = "d3c3b3d2e1d6d7e3f4";  // 9 moves, black +13
const std::string kTransposeA = "d3c3b3d6e6";
const std::string kTransposeB = "d3c3e6d6b3";
const std::string kOther = "f5d6c3d3c4";

std::vector<Game> hand_games() {
  return {game_of(kShort),            // 0: label 13
          game_of(kTransposeA, 10),   // 1
          game_of(kOther, -6),        // 2
          game_of(kTransposeB, 4),    // 3
          game_of(kTransposeA, -2)};  // 4: same moves as game 1
}

PositionSet make_set(std::vector<std::pair<u64, u64>> boards, std::vector<double> labels) {
  PositionSet set;
  for (std::size_t i = 0; i < boards.size(); ++i) {
    set.black.push_back(boards[i].first);
    set.white.push_back(boards[i].second);
    set.label.push_back(labels[i]);
    set.count.push_back(1);
  }
  return set;
}

std::set<std::pair<u64, u64>> boards_of(const PositionSet& set) {
  std::set<std::pair<u64, u64>> boards;
  for (std::size_t i = 0; i < set.size(); ++i) boards.emplace(set.black[i], set.white[i]);
  return boards;
}

bool same_set(const PositionSet& a, const PositionSet& b) {
  return a.move == b.move && a.black == b.black && a.white == b.white && a.label == b.label && a.count == b.count;
}

}  // namespace

TEST(Positions, AtMoveKeptFollowsGameOrder) {
  const auto games = hand_games();
  const PositionSet kept = positions_at_move(games, 5, {Duplicates::kKeep});
  EXPECT_EQ(kept.move, 5);
  ASSERT_EQ(kept.size(), 5u);
  const std::string orders[] = {kShort, kTransposeA, kOther, kTransposeB, kTransposeA};
  const double labels[] = {13, 10, -6, 4, -2};
  for (std::size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(std::make_pair(kept.black[i], kept.white[i]), board_after(orders[i], 5)) << i;
    EXPECT_EQ(kept.label[i], labels[i]);
    EXPECT_EQ(kept.count[i], 1u);
  }
  // Move 0 is the start position for every game.
  const PositionSet start = positions_at_move(games, 0, {Duplicates::kKeep});
  ASSERT_EQ(start.size(), 5u);
  EXPECT_EQ(start.black[3], othello::kStartBlack);
  EXPECT_EQ(start.white[3], othello::kStartWhite);
}

TEST(Positions, MergeAveragesLabelsAndCountsGames) {
  const auto games = hand_games();
  ASSERT_EQ(board_after(kTransposeA, 5), board_after(kTransposeB, 5));
  const PositionSet merged = positions_at_move(games, 5, {});
  // Boards at move 5: kShort's, kOther's, and the transposed one (games 1, 3, 4).
  ASSERT_EQ(merged.size(), 3u);
  for (std::size_t i = 1; i < merged.size(); ++i)
    EXPECT_TRUE(std::make_pair(merged.black[i - 1], merged.white[i - 1]) <
                std::make_pair(merged.black[i], merged.white[i]));  // sorted by (black, white)
  std::map<std::pair<u64, u64>, std::pair<double, std::uint32_t>> by_board;
  for (std::size_t i = 0; i < merged.size(); ++i)
    by_board[{merged.black[i], merged.white[i]}] = {merged.label[i], merged.count[i]};
  EXPECT_EQ(by_board[board_after(kTransposeA, 5)], std::make_pair((10.0 + 4.0 - 2.0) / 3.0, 3u));
  EXPECT_EQ(by_board[board_after(kShort, 5)], std::make_pair(13.0, 1u));
  EXPECT_EQ(by_board[board_after(kOther, 5)], std::make_pair(-6.0, 1u));

  // At move 2 games 1, 3 and 4 and the short game share "d3c3": one board, four games.
  const PositionSet at_2 = positions_at_move(games, 2, {});
  ASSERT_EQ(at_2.size(), 2u);
  std::uint32_t total = 0;
  for (const std::uint32_t c : at_2.count) total += c;
  EXPECT_EQ(total, 5u);
  EXPECT_EQ(*std::max_element(at_2.count.begin(), at_2.count.end()), 4u);
}

TEST(Positions, GamesThatEndedEarlierContributeNothing) {
  const auto games = hand_games();
  // Move 6 is beyond the four 5-move games; move 10 is beyond the 9-move game too.
  EXPECT_EQ(positions_at_move(games, 6, {Duplicates::kKeep}).size(), 1u);
  EXPECT_EQ(positions_at_move(games, 9, {}).size(), 1u);
  EXPECT_EQ(positions_at_move(games, 10, {}).size(), 0u);
  EXPECT_EQ(positions_at_move(games, 60, {}).size(), 0u);
}

TEST(Positions, GameIdsSelectGames) {
  const auto games = hand_games();
  const std::vector<std::uint32_t> ids = {4, 2};
  const PositionSet kept = positions_at_move(games, 5, {Duplicates::kKeep}, &ids);
  ASSERT_EQ(kept.size(), 2u);
  EXPECT_EQ(kept.label[0], -2);
  EXPECT_EQ(kept.label[1], -6);
  const std::vector<std::uint32_t> bad = {0, 5};
  EXPECT_THROW(positions_at_move(games, 5, {}, &bad), Error);
}

TEST(Positions, ManyMovesInOnePassMatchOneAtATime) {
  auto games = random_games(200);
  games.push_back(game_of(kShort));
  // Consecutive games sharing a prefix exercise the merge shortcut; a repeat of an earlier
  // game (not adjacent) exercises the sort.
  games.push_back(games[3]);
  games.push_back(games[3]);
  const std::vector<int> moves = {0, 1, 5, 9, 18, 18, 30, 59, 60};
  for (const Duplicates duplicates : {Duplicates::kMerge, Duplicates::kKeep}) {
    const auto all = positions_at_moves(games, moves, {duplicates});
    ASSERT_EQ(all.size(), moves.size());
    for (std::size_t i = 0; i < moves.size(); ++i)
      EXPECT_TRUE(same_set(all[i], positions_at_move(games, moves[i], {duplicates}))) << "move " << moves[i];
  }
  const auto distinct = distinct_positions_at_moves(games, moves);
  for (std::size_t i = 0; i < moves.size(); ++i)
    EXPECT_EQ(distinct[i], positions_at_move(games, moves[i], {}).size()) << "move " << moves[i];
  EXPECT_EQ(distinct[0], 1u);
  EXPECT_EQ(distinct[1], 4u);
  // Compacting the lists as they grow (every few boards here, with repeats of earlier games in
  // between) gives the same counts as one sort at the end.
  auto repeated = games;
  for (int copy = 0; copy < 3; ++copy) repeated.insert(repeated.end(), games.begin(), games.begin() + 50 + 40 * copy);
  const auto at_end = distinct_positions_at_moves(repeated, moves, repeated.size() * 60);
  for (const std::size_t every : {1u, 2u, 7u, 64u})
    EXPECT_EQ(distinct_positions_at_moves(repeated, moves, every), at_end) << every;
  EXPECT_EQ(at_end, distinct);
}

TEST(Positions, BadRequestsThrow) {
  auto games = hand_games();
  EXPECT_THROW(positions_at_move(games, 61, {}), Error);
  EXPECT_THROW(positions_at_move(games, -1, {}), Error);
  EXPECT_THROW(positions_at_move(games, 3, {Duplicates::kMerge, LabelSource::kTheoretical}), Error);
  games[0].theoretical_score = 8;
  games.resize(1);
  EXPECT_EQ(positions_at_move(games, 3, {Duplicates::kMerge, LabelSource::kTheoretical}).label[0], 8);
  games[0].moves[4] = games[0].moves[0];  // occupied: does not replay
  EXPECT_THROW(positions_at_move(games, 6, {}), Error);
  games[0] = game_of(kShort);
  games[0].score = kNoScore;
  EXPECT_THROW(positions_at_move(games, 3, {}), Error);
}

// .obf positions with exact scores (e.g. `evalforge ordering --samples-out`) as a position set:
// those of the move's empties, in the file's colours, labelled black - white from the best listed
// score, identical boards merged.
TEST(Positions, ScoredObfPositionsAtMove) {
  const auto games = hand_games();
  const auto [black, white] = board_after(kTransposeA, 5);  // move 5: 55 empties, white to move
  const auto [b2, w2] = board_after(kShort, 5);
  const auto [b3, w3] = board_after(kShort, 4);  // move 4: not taken at move 5
  std::vector<ObfPosition> positions(5);
  positions[0] = {black, white, othello::kWhite, {{19, 3}, {20, 7}}, 11};  // best 7 for white: -7
  positions[1] = {black, white, othello::kWhite, {{19, 3}}, 12};           // the same board: -3
  positions[2] = {b2, w2, othello::kBlack, {{19, -10}}, 13};
  positions[3] = {b3, w3, othello::kBlack, {{19, 20}}, 14};
  positions[4] = {b3, w3, othello::kBlack, {}, 15};  // no score, but at move 4: not read
  const PositionSet at_5 = scored_positions_at_move(positions, 5, "p.obf");
  EXPECT_EQ(at_5.move, 5);
  ASSERT_EQ(at_5.size(), 2u);
  std::map<std::pair<u64, u64>, std::pair<double, std::uint32_t>> by_board;
  for (std::size_t i = 0; i < at_5.size(); ++i)
    by_board[{at_5.black[i], at_5.white[i]}] = {at_5.label[i], at_5.count[i]};
  EXPECT_EQ(by_board[std::make_pair(black, white)], std::make_pair(-5.0, 2u));
  EXPECT_EQ(by_board[std::make_pair(b2, w2)], std::make_pair(-10.0, 1u));
  EXPECT_EQ(scored_positions_at_move(positions, 3, "p.obf").size(), 0u);
  const std::string e = test::error_of([&] { scored_positions_at_move(positions, 4, "p.obf"); });
  EXPECT_NE(e.find("p.obf:15: the position has no move score"), std::string::npos) << e;
  EXPECT_THROW(scored_positions_at_move(positions, 61, "p.obf"), Error);
}

// ---- Splits ---------------------------------------------------------------------------

TEST(Splits, ExactSizesAndInputOrder) {
  PositionSet set;
  for (int i = 0; i < 100; ++i) {
    set.black.push_back(static_cast<u64>(i));
    set.white.push_back(0);
    set.label.push_back(i);
    set.count.push_back(1);
  }
  const struct {
    double fraction;
    std::size_t second;
  } cases[] = {{0.2, 20}, {0.29, 29}, {0.0, 0}, {1.0, 100}, {0.555, 55}, {0.001, 0}};
  for (const auto& c : cases) {
    const Split split = split_positions(set, c.fraction, 42, 0);
    EXPECT_EQ(split.second.size(), c.second) << c.fraction;
    EXPECT_EQ(split.first.size(), 100 - c.second) << c.fraction;
    // Each part keeps the input order, and together they are the input.
    EXPECT_TRUE(std::is_sorted(split.first.label.begin(), split.first.label.end()));
    EXPECT_TRUE(std::is_sorted(split.second.label.begin(), split.second.label.end()));
    std::vector<double> all = split.first.label;
    all.insert(all.end(), split.second.label.begin(), split.second.label.end());
    std::sort(all.begin(), all.end());
    EXPECT_EQ(all, set.label);
  }
  EXPECT_EQ(
      split_positions(make_set({{1, 2}, {3, 4}, {5, 6}, {7, 8}, {9, 10}, {11, 12}, {13, 14}}, {1, 2, 3, 4, 5, 6, 7}),
                      0.5, 1, 0)
          .second.size(),
      3u);  // 3.5 rounded down
  EXPECT_THROW(split_positions(set, 1.5, 1, 0), Error);
  EXPECT_THROW(split_positions(set, -0.1, 1, 0), Error);
  EXPECT_THROW(split_positions(set, std::nan(""), 1, 0), Error);
  EXPECT_EQ(split_positions(PositionSet{}, 0.2, 1, 0).second.size(), 0u);
}

TEST(Splits, DeterministicPerSeedAndStream) {
  PositionSet set;
  for (int i = 0; i < 1000; ++i) {
    set.black.push_back(static_cast<u64>(i) * 7919);
    set.white.push_back(1);
    set.label.push_back(i % 17);
    set.count.push_back(1);
  }
  const Split a = split_positions(set, 0.2, 1234, 5);
  const Split again = split_positions(set, 0.2, 1234, 5);
  EXPECT_TRUE(same_set(a.first, again.first));
  EXPECT_TRUE(same_set(a.second, again.second));
  EXPECT_FALSE(same_set(a.second, split_positions(set, 0.2, 1235, 5).second));
  EXPECT_FALSE(same_set(a.second, split_positions(set, 0.2, 1234, 6).second));
  // Streams that differ only above bit 24 differ too (they are not folded together).
  EXPECT_FALSE(same_set(split_positions(set, 0.2, 1234, 1u << 24).second, split_positions(set, 0.2, 1234, 0).second));

  const auto [first, second] = split_games(1000, 0.2, 1234, 5);
  EXPECT_EQ(second.size(), 200u);
  EXPECT_EQ(first.size(), 800u);
  EXPECT_TRUE(std::is_sorted(first.begin(), first.end()));
  EXPECT_TRUE(std::is_sorted(second.begin(), second.end()));
  std::vector<std::uint32_t> all = first;
  all.insert(all.end(), second.begin(), second.end());
  std::sort(all.begin(), all.end());
  for (std::uint32_t i = 0; i < 1000; ++i) EXPECT_EQ(all[i], i);
  // The same selection as split_positions (same seed, stream and size).
  for (std::size_t i = 0; i < second.size(); ++i) EXPECT_EQ(a.second.black[i], set.black[second[i]]);
  EXPECT_EQ(split_games(1000, 0.2, 1234, 5), split_games(1000, 0.2, 1234, 5));
  EXPECT_NE(split_games(1000, 0.2, 1234, 5), split_games(1000, 0.2, 99, 5));
}

TEST(Splits, ByGameKeepsEachGamesPositionsOnOneSide) {
  // Random games that reach move 36; they diverge fast, so past move ~12 a board identifies
  // its game (checked below), and a board's side tells its game's side.
  std::vector<Game> games;
  for (const Game& game : random_games(420))
    if (game.moves.size() >= 36 && games.size() < 400) games.push_back(game);
  ASSERT_EQ(games.size(), 400u);
  const auto all = positions_at_moves(games, {20, 36}, {Duplicates::kKeep});  // entry i = game i
  ASSERT_EQ(boards_of(all[0]).size(), games.size());
  const Split s20 = fitness_test_at_move(games, 20, SplitBy::kGame, 0.25, 77, {Duplicates::kKeep});
  const Split s36 = fitness_test_at_move(games, 36, SplitBy::kGame, 0.25, 77, {Duplicates::kKeep});
  EXPECT_EQ(s20.second.size(), 100u);  // 25% of 400 games, each with one position at move 20
  EXPECT_EQ(s20.first.size(), 300u);

  const auto second_20 = boards_of(s20.second);
  const auto second_36 = boards_of(s36.second);
  for (std::size_t i = 0; i < games.size(); ++i) {
    const bool in_second_20 = second_20.count({all[0].black[i], all[0].white[i]}) > 0;
    const bool in_second_36 = second_36.count({all[1].black[i], all[1].white[i]}) > 0;
    EXPECT_EQ(in_second_20, in_second_36) << "game " << i;
  }
  // The games on the second side are exactly split_games' choice.
  const auto [first_ids, second_ids] = split_games(games.size(), 0.25, 77, kFitnessTestStream);
  std::set<std::pair<u64, u64>> expected;
  for (const std::uint32_t id : second_ids) expected.emplace(all[0].black[id], all[0].white[id]);
  EXPECT_EQ(second_20, expected);
}

TEST(Splits, ByPositionNeverPutsABoardOnBothSides) {
  // Many copies of few games: plenty of duplicates.
  std::vector<Game> games;
  for (int copy = 0; copy < 5; ++copy)
    for (const Game& game : random_games(30)) {
      Game labelled = game;
      labelled.score += copy;  // identical boards, different labels
      games.push_back(labelled);
    }
  for (const int move : {4, 12, 30}) {
    const Split merged = fitness_test_at_move(games, move, SplitBy::kPosition, 0.2, 9, {});
    const Split kept = fitness_test_at_move(games, move, SplitBy::kPosition, 0.2, 9, {Duplicates::kKeep});
    const std::size_t distinct = positions_at_move(games, move, {}).size();
    EXPECT_EQ(merged.second.size(), static_cast<std::size_t>(0.2 * static_cast<double>(distinct) + 1e-9));
    EXPECT_EQ(merged.first.size() + merged.second.size(), distinct);
    EXPECT_EQ(kept.first.size() + kept.second.size(), games.size());
    // No overlap; kept copies follow their board: the same boards as the merged split.
    std::vector<std::pair<u64, u64>> overlap;
    const auto first = boards_of(kept.first), second = boards_of(kept.second);
    std::set_intersection(first.begin(), first.end(), second.begin(), second.end(), std::back_inserter(overlap));
    EXPECT_TRUE(overlap.empty()) << "move " << move;
    EXPECT_EQ(second, boards_of(merged.second));
    EXPECT_EQ(first, boards_of(merged.first));
    for (const std::uint32_t c : merged.second.count) EXPECT_EQ(c % 5, 0u);  // all 5 copies together
  }
  // By game, the same board can (and with copies of every game, will) fall on both sides.
  const Split by_game = fitness_test_at_move(games, 12, SplitBy::kGame, 0.2, 9, {});
  std::vector<std::pair<u64, u64>> overlap;
  const auto first = boards_of(by_game.first), second = boards_of(by_game.second);
  std::set_intersection(first.begin(), first.end(), second.begin(), second.end(), std::back_inserter(overlap));
  EXPECT_FALSE(overlap.empty());
}

// ---- Baselines ------------------------------------------------------------------------

TEST(Baselines, HandComputedValues) {
  // Train mean (1 + 3 + 8) / 3 = 4; test labels 0 and 6: ((0-4)^2 + (6-4)^2) / 2 = 10.
  const PositionSet train = make_set({{1, 0}, {2, 0}, {3, 0}}, {1, 3, 8});
  const PositionSet test = make_set({{4, 0}, {5, 0}}, {0, 6});
  EXPECT_DOUBLE_EQ(constant_predictor_mse(train, test), 10.0);
  // Groups: board A labels 1, 3 (mean 2), board B label 5: (1 + 1 + 0) / 3.
  const PositionSet with_duplicates = make_set({{7, 1}, {9, 9}, {7, 1}}, {1, 5, 3});
  EXPECT_DOUBLE_EQ(irreducible_mse(with_duplicates), 2.0 / 3.0);
  EXPECT_DOUBLE_EQ(irreducible_mse(test), 0.0);  // distinct boards only
  EXPECT_TRUE(std::isnan(irreducible_mse(PositionSet{})));
  EXPECT_TRUE(std::isnan(constant_predictor_mse(PositionSet{}, test)));

  // On real positions: merged sets have no irreducible error; kept ones the within-board variance.
  const auto games = hand_games();
  EXPECT_DOUBLE_EQ(irreducible_mse(positions_at_move(games, 5, {})), 0.0);
  // Move 5 kept: labels 13, 10, -6, 4, -2; the transposed board holds 10, 4, -2 (mean 4):
  // squared deviations 36 + 0 + 36 over 5 entries.
  EXPECT_DOUBLE_EQ(irreducible_mse(positions_at_move(games, 5, {Duplicates::kKeep})), 72.0 / 5.0);
}

// ---- Real data (skipped when ../shared/data is absent) ---------------------------------

TEST(RealData, LogbookPositionsAtMove18MatchMethodMd) {
  const GameDatabase* db = test::shared_logbook();
  if (!db) GTEST_SKIP() << "logbook.gam.gz not found under " << EF_SHARED_DATA_DIR;
  const PositionSet merged = positions_at_move(db->games, 18, {});
  EXPECT_EQ(merged.size(), 4628u);
  std::uint64_t games = 0;
  for (const std::uint32_t c : merged.count) games += c;
  EXPECT_EQ(games, 121123u);

  // docs/method.md: within identical positions the variance is 25.0 at move 18; a constant
  // predictor scores about 31.3.
  const PositionSet kept = positions_at_move(db->games, 18, {Duplicates::kKeep});
  EXPECT_EQ(kept.size(), 121123u);
  EXPECT_NEAR(irreducible_mse(kept), 25.0, 0.05);
  EXPECT_NEAR(constant_predictor_mse(kept, kept), 31.3, 0.05);

  // The pitfall: split by game, ~98.7% of the test positions at move 18 also occur in training.
  const Split by_game = fitness_test_at_move(db->games, 18, SplitBy::kGame, 0.2, 1, {Duplicates::kKeep});
  const auto train_boards = boards_of(by_game.first);
  std::size_t seen = 0;
  for (std::size_t i = 0; i < by_game.second.size(); ++i)
    seen += train_boards.count({by_game.second.black[i], by_game.second.white[i]});
  EXPECT_NEAR(static_cast<double>(seen) / static_cast<double>(by_game.second.size()), 0.987, 0.01);
}
