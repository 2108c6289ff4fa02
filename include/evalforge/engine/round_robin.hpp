// Matches and round robins of any playout game, as one backend batch: the game-generic part of
// every tournament the games' fitness code plays (Othello's Elo GA generations and yardstick,
// Tic-Tac-Toe's 16-game matches, the test game's round robin), and the layout of Othello's
// resumable tournament run. A game's own code says who plays (handles on its PlayBackend<G>) and
// from where (its openings); this file says in which order the games are laid out and keyed, once.
// (Hex's round robin, games/hex/player_spec.hpp, plays host players with per-thread search
// trees, not backend agents, so it does not go through a backend batch.)
#pragma once
#include <cstddef>
#include <span>
#include <utility>
#include <vector>
#include "evalforge/core/error.hpp"
#include "evalforge/engine/play_backend.hpp"
#include "evalforge/ratings/ratings.hpp"

namespace ef::play {

// A pair of agents (backend handles of one game) that meet.
using Pairing = std::pair<int, int>;

// The games of `pairs`, each pair playing `openings` starts twice, colours swapped: job
// k = (pair * openings + opening) * 2 + colour, where colour 0 has the pair's `first` move first.
// Every job has stream key (seed, k), so a job's game depends only on its place in this layout.
// `opening(pair, o)` is the start of the pair's o-th opening (the same State for both colours).
template <PlayoutGame G, class Opening>
std::vector<GameJobOf<G>> paired_games(std::span<const Pairing> pairs, int openings, Opening&& opening, u64 seed) {
  std::vector<GameJobOf<G>> jobs;
  jobs.reserve(pairs.size() * static_cast<std::size_t>(openings) * 2);
  for (std::size_t p = 0; p < pairs.size(); ++p)
    for (int o = 0; o < openings; ++o) {
      const typename G::State start = opening(p, o);
      for (int colour = 0; colour < 2; ++colour) {
        GameJobOf<G> j;
        j.black = colour == 0 ? pairs[p].first : pairs[p].second;
        j.white = colour == 0 ? pairs[p].second : pairs[p].first;
        j.start = start;
        j.seed = seed;
        j.game = static_cast<u32>(jobs.size());
        jobs.push_back(j);
      }
    }
  return jobs;
}

// The other layout, for tournaments that are played in chunks and may stop anywhere (Othello's
// resumable tournament run): game id = (opening * pairs + pair) * 2 + colour, opening-major, so
// that after any number of games every pairing has played about as often and partial standings
// are fair. paired_games is pair-major because its batch is always played whole. Game ids key
// the games' streams and are written in run directories, so neither layout may change.
struct PairedSlot {
  std::size_t pair = 0;  // index into the pairs
  int opening = 0;
  bool swapped = false;  // true: the pair's `second` moves first
};
inline PairedSlot opening_major_slot(std::size_t pairs, u32 id) {
  const u32 q = id / 2;
  return {q % pairs, static_cast<int>(q / pairs), id % 2 == 1};
}

// The result of paired game k (laid out as paired_games does) for its pair's `first`: +1 won,
// 0 drawn, -1 lost (the sign of G::final_score from that side).
template <PlayoutGame G>
int pair_first_result(const GameRecordOf<G>& record, std::size_t k) {
  const int s = k % 2 == 0 ? record.black_score : -record.black_score;
  return s > 0 ? 1 : (s < 0 ? -1 : 0);
}

// A round robin among the agents `handles` of `backend`: every pair i < j (agent indices) plays
// every start of `openings` with both colours, all in one batch laid out by paired_games. Returns
// each game as a rating input between agent indices (ratings::GameResult: first = the agent that
// moved first, score 1 / 0.5 / 0), in job order.
template <PlayoutGame G>
std::vector<ratings::GameResult> round_robin(PlayBackend<G>& backend, std::span<const int> handles,
                                             std::span<const typename G::State> openings, u64 seed) {
  if (handles.size() < 2) fail("round robin: {} agents (at least 2)", handles.size());
  if (openings.empty()) fail("round robin: no openings");
  std::vector<Pairing> pairs, indices;
  for (std::size_t i = 0; i < handles.size(); ++i)
    for (std::size_t j = i + 1; j < handles.size(); ++j) {
      pairs.emplace_back(handles[i], handles[j]);
      indices.emplace_back(static_cast<int>(i), static_cast<int>(j));
    }
  const auto jobs = paired_games<G>(
      pairs, static_cast<int>(openings.size()),
      [&](std::size_t, int o) { return openings[static_cast<std::size_t>(o)]; }, seed);
  std::vector<GameRecordOf<G>> records(jobs.size());
  backend.play(jobs, records);
  std::vector<ratings::GameResult> games(jobs.size());
  const std::size_t per_pair = openings.size() * 2;
  for (std::size_t k = 0; k < jobs.size(); ++k) {
    const Pairing& p = indices[k / per_pair];
    const bool swapped = k % 2 == 1;
    const int first = swapped ? p.second : p.first, second = swapped ? p.first : p.second;
    const int s = records[k].black_score;
    games[k] = {first, second, s > 0 ? 1.0 : (s < 0 ? 0.0 : 0.5)};
  }
  return games;
}

}  // namespace ef::play
