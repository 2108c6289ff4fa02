// Tic-Tac-Toe solved (docs/tictactoe.md, "Measuring play"): an exhaustive negamax over every
// position reachable from the empty board, and measures of a deterministic player against it.
//
// The oracle (PerfectPlay)
//  - Positions are indexed by their squares in base 3 (position_index: 0 empty, 1 X, 2 O;
//    3^9 = 19,683 slots); the side to move follows from the counts (X moves first), so a board
//    whose `side` disagrees with its counts is not a reachable position.
//  - value(b) is the game-theoretic value for the side to move: +1 win, 0 draw, -1 loss.
//  - optimal_moves(b) is the set (a 9-bit mask) of the moves that keep that value, that is,
//    the moves m with -value(b.play(m)) == value(b); empty for a finished game.
//  - A position is non-trivial when some legal move has a lower value than the best one, so a
//    player can go wrong there; in the others every move is optimal.
//
// Players and their measures
//  - A player is deterministic: a Chooser returns a legal square for a position with a side to
//    move. tabulate() asks it once per position (4,520 calls) and every measure reads that table.
//  - Optimal-move shares: over the 4,520 positions with a side to move, and over the
//    non-trivial ones.
//  - Worst results, with the player as X and as O, by exhaustive enumeration (memoised on
//    positions): against every line of perfect play (the opponent plays any of its optimal
//    moves, all of them tried) and against every opponent (any legal move, all tried).
//  - Exact win, draw and loss probabilities against an opponent that plays a uniformly random
//    legal move, by weighted enumeration of the whole tree (no sampling).
#pragma once
#include <array>
#include <functional>
#include <span>
#include <string>
#include <vector>
#include "evalforge/core/hd.hpp"
#include "evalforge/core/rng.hpp"
#include "evalforge/games/tictactoe/game.hpp"
#include "evalforge/games/tictactoe/network.hpp"
#include "evalforge/games/tictactoe/players.hpp"

namespace ef::tictactoe {

constexpr int kPositionSlots = 19683;  // 3^9

// The board's squares read as a base-3 number, square 0 the least significant digit (0 empty,
// 1 X, 2 O). The side to move is not part of it.
int position_index(const Board& b);
// The side to move in a legal game with these marks: X when both have as many, O otherwise.
int side_from_counts(const Board& b);
// "x.o/.x./..o, O to move": the board rank by rank (a1 b1 c1 first), for messages.
std::string describe(const Board& b);

// A result from one player's point of view.
enum class Result : int { kLoss = -1, kDraw = 0, kWin = 1 };
const char* result_name(Result r);  // "loss", "draw", "win"

class PerfectPlay {
 public:
  // Builds the table: every reachable position, its value and its optimal moves (a few ms).
  PerfectPlay();
  // One table shared by the whole program, built on first use (thread-safe).
  static const PerfectPlay& get();

  // Whether `b` (marks and side to move) arises in some game from the empty board.
  bool reachable(const Board& b) const;
  // The value for the side to move (+1, 0, -1). ef::Error naming the position when it is not
  // reachable; so do the three below.
  int value(const Board& b) const;
  // The optimal moves as a mask of squares; 0 for a finished game.
  u32 optimal_moves(const Board& b) const;
  // Some legal move is worse than the best (false for a finished game).
  bool nontrivial(const Board& b) const;

  // The oracle as a player: the lowest optimal square, or one optimal square drawn uniformly
  // (one rng.below() draw, none when there is a single optimal move). ef::Error for a finished or
  // unreachable position.
  int lowest_optimal_move(const Board& b) const;
  int random_optimal_move(const Board& b, Rng& rng) const;

  // Every reachable position (5,478), by the number of marks, then by position_index.
  const std::vector<Board>& positions() const { return positions_; }
  // The reachable positions with a side to move (4,520), in the same order.
  const std::vector<Board>& positions_to_move() const { return to_move_; }
  int terminal_positions() const { return static_cast<int>(positions_.size() - to_move_.size()); }
  int nontrivial_positions() const { return nontrivial_; }

  // Distinct games: move sequences from the empty board to a finished position, and how they end.
  struct GameCounts {
    u64 total = 0, x_wins = 0, o_wins = 0, draws = 0;
  };
  GameCounts games() const { return games_; }

 private:
  int slot_of(const Board& b) const;  // position_index, or ef::Error when not reachable
  std::vector<Board> positions_, to_move_;
  std::vector<signed char> value_;       // by position_index; 0 where not reachable
  std::vector<unsigned short> optimal_;  // by position_index
  std::vector<unsigned char> reachable_, nontrivial_flag_;
  int nontrivial_ = 0;
  GameCounts games_;
};

// A deterministic player: a legal square of a position with a side to move.
using Chooser = std::function<int(const Board&)>;

// A player's move in each of the 4,520 positions with a side to move (by position_index; -1 in
// every other slot). ef::Error naming the position when the chooser returns an illegal square.
struct Policy {
  std::vector<signed char> move;
  int at(const Board& b) const { return move[static_cast<std::size_t>(position_index(b))]; }
};
Policy tabulate(const Chooser& chooser, const PerfectPlay& oracle = PerfectPlay::get());

struct ColourMeasures {
  Result worst_vs_perfect = Result::kWin;  // the worst over every line of perfect play
  Result worst_vs_any = Result::kWin;      // the worst over every opponent
  // One game that ends in that result: the moves of both sides from the empty board. Where
  // several opponent moves lead to it, the lowest square is taken.
  std::vector<int> line_vs_perfect, line_vs_any;
  // Against a uniformly random opponent, exact up to double rounding; they sum to 1.
  double win = 0, draw = 0, loss = 0;
};

struct PlayerMeasures {
  int positions = 0, optimal = 0;                        // all positions with a side to move
  int nontrivial_positions = 0, nontrivial_optimal = 0;  // the non-trivial ones
  ColourMeasures as_x, as_o;

  double optimal_share() const { return positions ? static_cast<double>(optimal) / positions : 0.0; }
  double nontrivial_optimal_share() const {
    return nontrivial_positions ? static_cast<double>(nontrivial_optimal) / nontrivial_positions : 0.0;
  }
  // Never loses, with either colour, against perfect play / against anything.
  bool holds_perfect_play() const {
    return as_x.worst_vs_perfect != Result::kLoss && as_o.worst_vs_perfect != Result::kLoss;
  }
  bool never_loses() const { return as_x.worst_vs_any != Result::kLoss && as_o.worst_vs_any != Result::kLoss; }
};

PlayerMeasures measure(const Policy& policy, const PerfectPlay& oracle = PerfectPlay::get());

// measure(chooser).never_loses() without tabulating the whole policy: the chooser is asked only
// in the positions that some opponent can lead it to (each once), and the search stops at the
// first line it loses. A generation's population is screened with it (runs/evolve_tictactoe.cpp).
bool never_loses(const Chooser& chooser);
// A player's exact loss probabilities against a uniformly random opponent, as X and as O: the
// same numbers, bit for bit, as measure(chooser).as_x.loss and .as_o.loss, but the chooser is
// asked only in the positions a game against some opponent reaches (each once), so it costs a
// fraction of measure(). Both are 0 exactly when never_loses(chooser): a random opponent plays
// every line with a probability above 0. The fitness kind "safety" (runs/evolve_tictactoe.hpp).
struct LossVsRandom {
  double as_x = 0, as_o = 0;
};
LossVsRandom loss_vs_random(const Chooser& chooser);
// loss_vs_random of every agent (through agent_chooser) on `threads` threads (0 = every hardware
// thread); the result does not depend on the thread count.
std::vector<LossVsRandom> loss_vs_random_of_agents(std::span<const play::TicTacToeAgent> agents, int threads);

inline PlayerMeasures measure(const Chooser& chooser, const PerfectPlay& oracle = PerfectPlay::get()) {
  return measure(tabulate(chooser, oracle), oracle);
}

// A playout agent (games/tictactoe/players.hpp) as a Chooser: the move of its own choose(),
// that is, alpha-beta to its depth with its evaluator, the lowest square among equal moves.
// ef::Error naming the agent when it is not deterministic (a random player, or epsilon_ppm > 0)
// or fails its validate().
Chooser agent_chooser(const play::TicTacToeAgent& agent);

// The measures of every agent (through agent_chooser), on `threads` threads (0 = every hardware
// thread); the result does not depend on the thread count.
std::vector<PlayerMeasures> measure_agents(std::span<const play::TicTacToeAgent> agents, int threads);

// The oracle as a Chooser (lowest optimal square).
Chooser perfect_chooser(const PerfectPlay& oracle = PerfectPlay::get());

// A network agent whose evaluator is 0 everywhere (every weight and threshold 0: the hidden units
// all fire, the output is 0), so only the search's exact wins and losses tell moves apart.
play::TicTacToeAgent constant_agent(int depth);

// `count` networks with uniformly random bits, drawn as the GA draws its generation 0
// (ga::random_bit_population with this seed, stream 0), under minimax to `depth`, named
// "random-net<i>". ef::Error about "random_networks" for a negative count.
// `first` > 0 draws networks first .. first + count - 1 of that sequence (named by their index).
std::vector<play::TicTacToeAgent> random_network_agents(int count, Topology topology, int depth, u64 seed,
                                                        i64 first = 0);

// Random sampling, the baseline a GA that looks for networks that never lose must beat: `count`
// networks drawn as random_network_agents draws them (the same networks, in the same order),
// screened by never_loses in chunks, so a million networks need little memory, on `threads`
// threads; the result does not depend on the thread count.
struct RandomScreen {
  i64 count = 0;
  i64 never_lose = 0;  // networks that never lose to any opponent with either colour
  i64 first = -1;      // the index of the first of them; -1 when none
};
RandomScreen screen_random_networks(i64 count, Topology topology, int depth, u64 seed, int threads);

// The spread of measures over a sample of players (the random-network baseline).
struct Spread {
  double mean = 0, min = 0, max = 0;
};
struct MeasureSummary {
  int players = 0;
  Spread optimal_share, nontrivial_optimal_share;
  Spread x_win, x_draw, x_loss, o_win, o_draw, o_loss;  // against the random opponent
  // How many lose to some perfect-play line / to some opponent, as X, as O, with either colour.
  int x_lose_vs_perfect = 0, o_lose_vs_perfect = 0, lose_vs_perfect = 0;
  int x_lose_vs_any = 0, o_lose_vs_any = 0, lose_vs_any = 0;
};
MeasureSummary summarize(const std::vector<PlayerMeasures>& sample);

}  // namespace ef::tictactoe
