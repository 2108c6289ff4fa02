// Position sets at a move number, duplicate merging, seeded splits and the two MSE baselines.
#include "evalforge/data/positions.hpp"
#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include "data/readers.hpp"
#include "evalforge/core/error.hpp"
#include "evalforge/core/rng.hpp"
#include "evalforge/games/othello/game.hpp"

namespace ef::data {
namespace {

constexpr int kMaxMove = 60;

// A board and the labels of the games that reach it (several when consecutive games share it).
struct Entry {
  u64 black, white;
  std::int64_t label_sum;
  std::uint32_t count;
};

bool board_less(const Entry& a, const Entry& b) { return a.black != b.black ? a.black < b.black : a.white < b.white; }

int label_of(const Game& game, std::size_t index, LabelSource source) {
  const int label = source == LabelSource::kRecorded ? game.score : game.theoretical_score;
  if (label == kNoScore)
    fail("game {} has no {} score", index,
         source == LabelSource::kRecorded ? "recorded" : "theoretical (only WTHOR games have one)");
  return label;
}

// Number of leading moves two games share: their boards are identical up to that move number.
// Book-like databases (a tree of openings, stored in order) share long prefixes between
// consecutive games, which lets the callers merge those positions without sorting them.
int shared_prefix(const Game* previous, const Game& game) {
  if (!previous) return -1;
  const std::size_t n = std::min(previous->moves.size(), game.moves.size());
  std::size_t i = 0;
  while (i < n && previous->moves[i] == game.moves[i]) ++i;
  return static_cast<int>(i);
}

// Replays game `index` and calls emit(move, board) at every move number in 0..last that the
// game reaches. Throws for moves that do not replay (hand-built or corrupted games).
template <typename Emit>
void replay_positions(const Game& game, std::size_t index, int last, Emit&& emit) {
  othello::Board board;
  emit(0, board);
  const int reached = std::min<int>(last, static_cast<int>(game.moves.size()));
  for (int i = 0; i < reached; ++i) {
    const int square = game.moves[static_cast<std::size_t>(i)];
    if (!detail::pass_if_needed(board)) fail("game {}: move {} is played after the game ended", index, i + 1);
    if (!board.play(square)) fail("game {}: move {} (square {}) is illegal", index, i + 1, square);
    emit(i + 1, board);
  }
}

// For each move number 0..60, the indices into `moves` that ask for it.
std::vector<std::vector<std::size_t>> requests_by_move(const std::vector<int>& moves, int& last) {
  std::vector<std::vector<std::size_t>> wanted(kMaxMove + 1);
  last = 0;
  for (std::size_t i = 0; i < moves.size(); ++i) {
    if (moves[i] < 0 || moves[i] > kMaxMove) fail("move number {} is outside 0..{}", moves[i], kMaxMove);
    wanted[static_cast<std::size_t>(moves[i])].push_back(i);
    last = std::max(last, moves[i]);
  }
  return wanted;
}

// Calls f(game index) for the selected games, checking the ids.
template <typename F>
void for_each_game(const std::vector<Game>& games, const std::vector<std::uint32_t>* game_ids, F&& f) {
  if (!game_ids) {
    for (std::size_t i = 0; i < games.size(); ++i) f(i);
    return;
  }
  for (const std::uint32_t id : *game_ids) {
    if (id >= games.size()) fail("game id {} is out of range (there are {} games)", id, games.size());
    f(id);
  }
}

void push_entry(PositionSet& set, u64 black, u64 white, double label, std::uint32_t count) {
  set.black.push_back(black);
  set.white.push_back(white);
  set.label.push_back(label);
  set.count.push_back(count);
}

// Sorted by board; each run of identical boards becomes one entry with the mean label.
// Labels are integers, so the sum (and the mean) does not depend on the order within a run.
PositionSet merge_entries(std::vector<Entry>& entries, int move) {
  std::sort(entries.begin(), entries.end(), board_less);
  PositionSet set;
  set.move = move;
  for (std::size_t begin = 0; begin < entries.size();) {
    std::size_t end = begin;
    std::int64_t sum = 0;
    std::uint32_t count = 0;
    while (end < entries.size() && entries[end].black == entries[begin].black &&
           entries[end].white == entries[begin].white) {
      sum += entries[end].label_sum;
      count += entries[end++].count;
    }
    push_entry(set, entries[begin].black, entries[begin].white, static_cast<double>(sum) / count, count);
    begin = end;
  }
  return set;
}

// Marks which of n items go to the second part: the first k of a partial Fisher-Yates shuffle
// keyed by (seed, stream), k = floor(fraction * n).
std::vector<bool> choose_second(std::size_t n, double second_fraction, u64 seed, u32 stream) {
  if (!(second_fraction >= 0.0 && second_fraction <= 1.0)) fail("split fraction {} is outside [0, 1]", second_fraction);
  if (n > std::numeric_limits<u32>::max()) fail("cannot split {} items (at most 2^32 - 1)", n);
  // The small tolerance keeps products like 0.29 * 100 = 28.999999999999996 at 29.
  const auto k = std::min<std::size_t>(n, static_cast<std::size_t>(std::floor(second_fraction * n + 1e-9)));
  Rng rng(seed, Purpose::kSplit, stream & 0xFFFFFFu, stream >> 24);
  std::vector<u32> order(n);
  std::iota(order.begin(), order.end(), u32{0});
  std::vector<bool> second(n, false);
  for (std::size_t i = 0; i < k; ++i) {
    const std::size_t j = i + rng.below(static_cast<u32>(n - i));
    std::swap(order[i], order[j]);
    second[order[i]] = true;
  }
  return second;
}

Split split_by_mask(const PositionSet& set, const std::vector<bool>& second) {
  Split split;
  split.first.move = split.second.move = set.move;
  for (std::size_t i = 0; i < set.size(); ++i)
    push_entry(second[i] ? split.second : split.first, set.black[i], set.white[i], set.label[i], set.count[i]);
  return split;
}

}  // namespace

std::vector<PositionSet> positions_at_moves(const std::vector<Game>& games, const std::vector<int>& moves,
                                            const PositionOptions& options,
                                            const std::vector<std::uint32_t>* game_ids) {
  int last = 0;
  const auto wanted = requests_by_move(moves, last);
  const bool merge = options.duplicates == Duplicates::kMerge;
  std::vector<PositionSet> sets(moves.size());
  std::vector<std::vector<Entry>> entries(merge ? moves.size() : 0);
  for (std::size_t i = 0; i < moves.size(); ++i) sets[i].move = moves[i];

  const Game* previous = nullptr;
  for_each_game(games, game_ids, [&](std::size_t index) {
    const Game& game = games[index];
    const int label = label_of(game, index, options.label);
    const int shared = shared_prefix(previous, game);
    previous = &game;
    replay_positions(game, index, last, [&](int move, const othello::Board& board) {
      for (const std::size_t request : wanted[static_cast<std::size_t>(move)]) {
        if (!merge) {
          push_entry(sets[request], board.black(), board.white(), label, 1);
        } else if (move <= shared) {
          // Same board as the previous game's at this move: its entry is the last one.
          entries[request].back().label_sum += label;
          ++entries[request].back().count;
        } else {
          entries[request].push_back({board.black(), board.white(), label, 1});
        }
      }
    });
  });
  if (merge)
    for (std::size_t i = 0; i < moves.size(); ++i) {
      sets[i] = merge_entries(entries[i], moves[i]);
      std::vector<Entry>().swap(entries[i]);  // free as we go: several moves can be large
    }
  return sets;
}

PositionSet positions_at_move(const std::vector<Game>& games, int move, const PositionOptions& options,
                              const std::vector<std::uint32_t>* game_ids) {
  return std::move(positions_at_moves(games, {move}, options, game_ids).front());
}

PositionSet scored_positions_at_move(const std::vector<ObfPosition>& positions, int move, const std::string& file) {
  if (move < 0 || move > kMaxMove) fail("move {} is outside 0..{}", move, kMaxMove);
  std::vector<Entry> entries;
  for (const ObfPosition& p : positions) {
    if (64 - popcount64(p.black | p.white) != kMaxMove - move) continue;
    const int best = p.best_score();
    if (best == kNoScore) fail("{}:{}: the position has no move score (a label needs its exact value)", file, p.line);
    entries.push_back({p.black, p.white, p.side == othello::kBlack ? best : -best, 1});
  }
  return merge_entries(entries, move);
}

std::vector<std::size_t> distinct_positions_at_moves(const std::vector<Game>& games, const std::vector<int>& moves,
                                                     std::size_t compact_every) {
  int last = 0;
  const auto wanted = requests_by_move(moves, last);
  using Boards = std::vector<std::pair<u64, u64>>;
  auto compact = [](Boards& boards) {
    std::sort(boards.begin(), boards.end());
    boards.erase(std::unique(boards.begin(), boards.end()), boards.end());
  };
  std::vector<Boards> boards(kMaxMove + 1);
  // A move's list is compacted when it reaches this size: sorted + unique, then the next
  // threshold is twice the distinct count (at least compact_every more), so the sorting costs
  // O(n log n) in all and the list never holds more than about twice its distinct boards.
  std::vector<std::size_t> compact_at(kMaxMove + 1, std::max<std::size_t>(compact_every, 1));
  for (std::size_t index = 0; index < games.size(); ++index) {
    const int shared = shared_prefix(index > 0 ? &games[index - 1] : nullptr, games[index]);
    replay_positions(games[index], index, last, [&](int move, const othello::Board& board) {
      // A board shared with the previous game is already listed.
      const auto m = static_cast<std::size_t>(move);
      if (move <= shared || wanted[m].empty()) return;
      boards[m].emplace_back(board.black(), board.white());
      if (boards[m].size() >= compact_at[m]) {
        compact(boards[m]);
        compact_at[m] = std::max(2 * boards[m].size(), boards[m].size() + std::max<std::size_t>(compact_every, 1));
      }
    });
  }
  std::vector<std::size_t> counts(moves.size(), 0);
  for (int move = 0; move <= kMaxMove; ++move) {
    auto& at_move = boards[static_cast<std::size_t>(move)];
    if (wanted[static_cast<std::size_t>(move)].empty()) continue;
    compact(at_move);
    for (const std::size_t request : wanted[static_cast<std::size_t>(move)]) counts[request] = at_move.size();
    Boards().swap(at_move);
  }
  return counts;
}

Split split_positions(const PositionSet& set, double second_fraction, u64 seed, u32 stream) {
  return split_by_mask(set, choose_second(set.size(), second_fraction, seed, stream));
}

std::pair<std::vector<std::uint32_t>, std::vector<std::uint32_t>> split_games(std::size_t n, double second_fraction,
                                                                              u64 seed, u32 stream) {
  const std::vector<bool> second = choose_second(n, second_fraction, seed, stream);
  std::pair<std::vector<std::uint32_t>, std::vector<std::uint32_t>> parts;
  for (std::size_t i = 0; i < n; ++i) (second[i] ? parts.second : parts.first).push_back(static_cast<std::uint32_t>(i));
  return parts;
}

Split fitness_test_at_move(const std::vector<Game>& games, int move, SplitBy by, double test_fraction, u64 seed,
                           const PositionOptions& options) {
  if (by == SplitBy::kGame) {
    const auto [first_ids, second_ids] = split_games(games.size(), test_fraction, seed, kFitnessTestStream);
    Split split;
    split.first = positions_at_move(games, move, options, &first_ids);
    split.second = positions_at_move(games, move, options, &second_ids);
    return split;
  }
  // By position: the distinct boards are split, so that a board never lands on both sides.
  // With duplicates kept, every copy follows its board, and the boards chosen are the same as
  // with duplicates merged (same seed, same distinct list).
  const PositionSet distinct = positions_at_move(games, move, {Duplicates::kMerge, options.label});
  const std::vector<bool> second_board = choose_second(distinct.size(), test_fraction, seed, kFitnessTestStream);
  if (options.duplicates == Duplicates::kMerge) return split_by_mask(distinct, second_board);

  const PositionSet kept = positions_at_move(games, move, options);
  std::vector<bool> second(kept.size());
  for (std::size_t i = 0; i < kept.size(); ++i) {
    // `distinct` is sorted by (black, white): find the board by binary search.
    std::size_t low = 0, high = distinct.size();
    while (low < high) {
      const std::size_t mid = (low + high) / 2;
      const bool less = distinct.black[mid] != kept.black[i] ? distinct.black[mid] < kept.black[i]
                                                             : distinct.white[mid] < kept.white[i];
      if (less)
        low = mid + 1;
      else
        high = mid;
    }
    second[i] = second_board[low];
  }
  return split_by_mask(kept, second);
}

std::pair<u64, u64> canonical_board(u64 black, u64 white) {
  std::pair<u64, u64> least{black, white};
  for (int s = 1; s < 8; ++s) least = std::min(least, {othello::symmetry(black, s), othello::symmetry(white, s)});
  return least;
}

std::vector<bool> boards_seen(const PositionSet& test, const PositionSet& reference) {
  std::vector<std::pair<u64, u64>> known(reference.size());
  for (std::size_t i = 0; i < reference.size(); ++i) known[i] = canonical_board(reference.black[i], reference.white[i]);
  std::sort(known.begin(), known.end());
  std::vector<bool> seen(test.size());
  for (std::size_t i = 0; i < test.size(); ++i)
    seen[i] = std::binary_search(known.begin(), known.end(), canonical_board(test.black[i], test.white[i]));
  return seen;
}

PositionSet positions_over_moves(const std::vector<Game>& games, int first, int last, int step,
                                 const PositionOptions& options, const std::vector<std::uint32_t>* game_ids) {
  if (first > last || step < 1) fail("positions_over_moves: moves {}..{} step {} are no range", first, last, step);
  std::vector<int> moves;
  for (int m = first; m <= last; m += step) moves.push_back(m);
  std::vector<PositionSet> parts = positions_at_moves(games, moves, options, game_ids);
  PositionSet all = std::move(parts.front());
  for (std::size_t i = 1; i < parts.size(); ++i) {
    const PositionSet& p = parts[i];
    all.black.insert(all.black.end(), p.black.begin(), p.black.end());
    all.white.insert(all.white.end(), p.white.begin(), p.white.end());
    all.label.insert(all.label.end(), p.label.begin(), p.label.end());
    all.count.insert(all.count.end(), p.count.begin(), p.count.end());
  }
  return all;
}

PositionSet without(const PositionSet& set, const std::vector<bool>& drop) {
  if (drop.size() != set.size()) fail("without: {} flags for {} positions", drop.size(), set.size());
  return split_by_mask(set, drop).first;
}

double constant_predictor_mse(const PositionSet& train, const PositionSet& test) {
  if (train.size() == 0 || test.size() == 0) return std::numeric_limits<double>::quiet_NaN();
  double sum = 0;
  for (const double label : train.label) sum += label;
  const double mean = sum / static_cast<double>(train.size());
  double squared = 0;
  for (const double label : test.label) squared += (label - mean) * (label - mean);
  return squared / static_cast<double>(test.size());
}

double irreducible_mse(const PositionSet& test) {
  if (test.size() == 0) return std::numeric_limits<double>::quiet_NaN();
  // Group identical boards (stable, so sums run in input order: deterministic).
  std::vector<std::size_t> order(test.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return test.black[a] != test.black[b] ? test.black[a] < test.black[b] : test.white[a] < test.white[b];
  });
  double squared = 0;
  for (std::size_t begin = 0; begin < order.size();) {
    std::size_t end = begin;
    double sum = 0;
    while (end < order.size() && test.black[order[end]] == test.black[order[begin]] &&
           test.white[order[end]] == test.white[order[begin]])
      sum += test.label[order[end++]];
    const double mean = sum / static_cast<double>(end - begin);
    for (std::size_t i = begin; i < end; ++i) {
      const double deviation = test.label[order[i]] - mean;
      squared += deviation * deviation;
    }
    begin = end;
  }
  return squared / static_cast<double>(test.size());
}

}  // namespace ef::data
