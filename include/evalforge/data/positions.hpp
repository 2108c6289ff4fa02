// Position sets for training and scoring n-tuple networks.
// The position "at move k" is the board after k discs have been placed (passes not counted),
// labelled with the game's final disc difference black - white. Games that ended before
// move k contribute nothing.
#pragma once
#include <vector>
#include "evalforge/data/games.hpp"

namespace ef::data {

enum class SplitBy { kPosition, kGame };             // by distinct position (default) or by game (the paper's)
enum class Duplicates { kMerge, kKeep };             // merge identical boards, averaging labels; or keep all
enum class LabelSource { kRecorded, kTheoretical };  // WTHOR: real score or theoretical score

struct PositionSet {
  int move = 0;
  std::vector<u64> black, white;
  std::vector<double> label;         // final disc difference (mean over merged duplicates)
  std::vector<std::uint32_t> count;  // games behind each entry (1 when kept)
  std::size_t size() const { return label.size(); }
};

struct PositionOptions {
  Duplicates duplicates = Duplicates::kMerge;
  LabelSource label = LabelSource::kRecorded;
};

// All positions at move k of the given games (all games when `game_ids` is null), in a
// deterministic order (sorted by (black, white) when merged; game order when kept).
// Throws ef::Error for a move outside 0..60, a game id out of range, a game whose moves do not
// replay, or a game without the requested label (e.g. kTheoretical on logbook games).
PositionSet positions_at_move(const std::vector<Game>& games, int move, const PositionOptions& options,
                              const std::vector<std::uint32_t>* game_ids = nullptr);

// The same for several move numbers at once, replaying each game only once (up to the largest
// move asked for): result i holds the positions at moves[i].
std::vector<PositionSet> positions_at_moves(const std::vector<Game>& games, const std::vector<int>& moves,
                                            const PositionOptions& options,
                                            const std::vector<std::uint32_t>* game_ids = nullptr);

// Positions with exact scores (.obf lines, e.g. `evalforge ordering --samples-out`) at move k:
// those with 60 - k empties, in the file's colours, labelled black - white from the side to
// move's best listed score; identical boards merged as positions_at_move merges them. Throws
// ef::Error naming `file` and the line of a position with no score.
PositionSet scored_positions_at_move(const std::vector<ObfPosition>& positions, int move, const std::string& file);

// Number of distinct boards at each of `moves` over all games (labels not needed), in one replay.
// Memory follows the distinct boards, not the games: a move's list is sorted and deduplicated
// whenever it has grown by `compact_every` boards since the last time (or doubled, whichever is
// later), so 2 M games that share most positions need a few MB, not 16 bytes per game and move.
// The counts do not depend on `compact_every` (tests pass a small one).
std::vector<std::size_t> distinct_positions_at_moves(const std::vector<Game>& games, const std::vector<int>& moves,
                                                     std::size_t compact_every = std::size_t{1} << 16);

struct Split {
  PositionSet first, second;  // e.g. (fitness, test) or (training, validation)
};

// The positions at moves first, first + step, ..., up to `last`, of the given games (all when
// `game_ids` is null) as one set, move by move, each move's part as positions_at_move gives it
// (so duplicates are merged within a move only, which is all there is: a move number is a disc
// count, so boards of different moves never coincide). `move` of the result is `first`. One
// replay of each game.
PositionSet positions_over_moves(const std::vector<Game>& games, int first, int last, int step,
                                 const PositionOptions& options, const std::vector<std::uint32_t>* game_ids = nullptr);

// Stream used by fitness_test_at_move, kept apart from the small stream numbers (island,
// generation) that training/validation splits use.
constexpr u32 kFitnessTestStream = 0xFFFFFFFFu;

// Seeded, deterministic split of a position set: `second_fraction` of the entries (rounded
// down) go to `second`, chosen by a Philox-keyed shuffle of (seed, stream). Order within each
// part follows the input order. A fraction outside [0, 1] throws ef::Error.
Split split_positions(const PositionSet& set, double second_fraction, u64 seed, u32 stream);

// Seeded split of game indices 0..n-1: returns (first, second) index lists, each sorted.
std::pair<std::vector<std::uint32_t>, std::vector<std::uint32_t>> split_games(std::size_t n, double second_fraction,
                                                                              u64 seed, u32 stream);

// The Table 2 procedure's data: fitness (80%) and test (20%) positions at move k.
// By position: distinct positions at move k are split. By game: games are split, then the
// positions at move k of each part are taken (duplicates as options say).
Split fitness_test_at_move(const std::vector<Game>& games, int move, SplitBy by, double test_fraction, u64 seed,
                           const PositionOptions& options);

// The image of a board with the smallest (black, white) among its 8 rotations and reflections:
// one key for the positions that are the same up to symmetry.
std::pair<u64, u64> canonical_board(u64 black, u64 white);

// For each entry of `test`, whether its board or one of its 7 other symmetry images is a board
// of `reference` (any entry of it): the test positions a model trained on `reference` has seen.
// Images count because the n-tuple networks sample all 8 of them (symmetric sampling), so they
// value such a position exactly as the training one; and databases differ in orientation (the
// logbook opens d3, WTHOR f5). Othello databases share their openings, so a held-out file's
// early positions are mostly in any large training set.
std::vector<bool> boards_seen(const PositionSet& test, const PositionSet& reference);
// The entries of `set` whose `drop` flag is false, in order.
PositionSet without(const PositionSet& set, const std::vector<bool>& drop);

// Baselines: MSE of predicting the training-set mean label (constant predictor) on `test`;
// and the irreducible MSE of `test`: the MSE of predicting each distinct board's own mean
// label over `test` (0 when duplicates are merged). Both average over entries (each entry one
// sample, as a loss over the set does) and are NaN for an empty set.
double constant_predictor_mse(const PositionSet& train, const PositionSet& test);
double irreducible_mse(const PositionSet& test);

}  // namespace ef::data
