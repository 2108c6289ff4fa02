// The Tic-Tac-Toe side of seed 003's GA (ga/bitstring_ga.hpp, docs/tictactoe.md): bit strings
// as network agents, and a batch of 16-game matches played as ONE Backend::play batch.
//
// A match is the 16-game set that scores a network (the source's 0..480 scale, 240 = every game
// drawn): for each of the 8 openings (X's first move on a square other than the centre: a1, b1,
// c1, a2, c2, a3, b3, c3), one game with the network as X (continuing from that move) and one as
// O (replying to it); win 30, draw 15, loss 0. Both sides search to a fixed depth with no
// randomness, so a match is a pure function of the two players. With the centre opening (b2)
// added after the 8 (TttOpenings::kAll), a match is 18 games, 0..540, 270 = every game drawn; the
// first 16 games are the same games either way.
#pragma once
#include <span>
#include <string>
#include <vector>
#include "evalforge/engine/play_backend.hpp"
#include "evalforge/ga/bitstring_ga.hpp"
#include "evalforge/games/tictactoe/network.hpp"
#include "evalforge/games/tictactoe/players.hpp"
#include "evalforge/ratings/ratings.hpp"

namespace ef::play {

constexpr int kTttMatchGames = 16;  // the source's set
constexpr int kTttWinPoints = 30, kTttDrawPoints = 15;
constexpr int kMaxGamesPerOpening = 64;

// The source's 8 openings (every first move but the centre), or all 9.
enum class TttOpenings { kSource, kAll };
constexpr int ttt_openings(TttOpenings o) { return o == TttOpenings::kAll ? 9 : 8; }
constexpr int ttt_match_games(TttOpenings o) { return 2 * ttt_openings(o); }
constexpr int ttt_max_points(TttOpenings o) { return ttt_match_games(o) * kTttWinPoints; }

// The agent a bit string plays as: its network (decoded for `topology`) under minimax to `depth`.
// Throws ef::Error naming `name` when the bit string has the wrong length.
TicTacToeAgent network_agent(const ga::BitString& bits, tictactoe::Topology topology, int depth,
                             const std::string& name);
TicTacToeAgent static_agent(int depth);

struct TttMatch {
  const TicTacToeAgent* player = nullptr;
  const TicTacToeAgent* opponent = nullptr;
};

// With `games_per_opening` K > 1 every opening is played K times with both colours (the set of
// openings repeated: game k starts from opening k mod openings), which only makes sense with
// players that break ties at random (TicTacToeParams::random_ties): a deterministic pair plays
// the same game K times. The games' streams are keyed by (seed, game id), so a new seed is a new
// draw of the ties.
class TttMatches {
 public:
  explicit TttMatches(PlayBackend<games::TicTacToe>& backend, TttOpenings openings = TttOpenings::kSource,
                      int games_per_opening = 1);
  // Each match's points for its player, summed over its games (0..K x ttt_max_points: 480, or
  // 540 with all openings, per repetition), all matches' games in one batch.
  std::vector<int> play(std::span<const TttMatch> matches, u64 seed = 1);

 private:
  PlayBackend<games::TicTacToe>& backend_;
  TttOpenings openings_;
  int games_per_opening_;
  std::vector<int> handles_;  // agent slots, replaced in place batch after batch
};

// A round robin of `players` (at least 2) in which every pair meets in the 16-game match above,
// as one batch: points[i][j] is i's points against j (0..480; -1 on the diagonal), and every
// match as 32 half-games for a Bradley-Terry fit (a draw is half a win: 15 points of 30 per
// game, and the split of a match's points into wins and draws is not unique, so the match score
// is what is rated).
struct TttRoundRobin {
  std::vector<std::vector<int>> points;
  std::vector<ratings::GameResult> games;
};
TttRoundRobin ttt_round_robin(PlayBackend<games::TicTacToe>& backend, std::span<const TicTacToeAgent> players);

}  // namespace ef::play
