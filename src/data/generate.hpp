// Built-in dataset: self-play games after a few uniformly random opening moves, by one of two
// players (GenerateOptions::agent):
//  - a searching agent (the default of `evalforge data generate`: the built-in n-tuple network
//    at a small alpha-beta depth, exact from a number of empties): after the opening it plays
//    both sides through the playout engine (Backend::play, engine/playout.hpp) with no random
//    moves, so a game's score is a deterministic function of the position it reached, and the
//    last moves are perfect play -- labels that an evaluator can learn;
//  - "swh1" (agent null; the original generator, kept so that its datasets stay reproducible):
//    two 1-ply SWH players with epsilon-random moves (the Othello League's players,
//    docs/anchors.md), whose scores are mostly noise at the moves the quickstart scores.
//
// Every game is a pure function of (seed, game index): its random numbers come from
// ef::Rng(seed, Purpose::kDatagen, index) only (the searching agent draws none), so the output
// is the same for any thread count.
#pragma once
#include <cstddef>
#include <memory>
#include <vector>
#include "evalforge/data/games.hpp"
#include "evalforge/games/othello/agent.hpp"

namespace ef::data {

struct GenerateOptions {
  std::size_t games = 1000;
  u64 seed = 1;
  int random_opening_plies = 8;  // the first moves (discs placed) are uniformly random
  int threads = 0;               // 0: std::thread::hardware_concurrency()
  // The player of both sides after the opening; null: the swh1 player. Its epsilon must be 0
  // (its moves are searched, not drawn).
  std::shared_ptr<const play::OthelloAgent> agent;
  double epsilon = 0.1;  // swh1 only: probability of a uniformly random move after the opening
};

// Plays options.games games; game i is play_generated_game(options, i). Throws ef::Error for
// an epsilon outside [0, 1], a negative opening length, too many games (> 2^48), or an agent
// that is invalid or has a non-zero epsilon.
std::vector<Game> generate_games(const GenerateOptions& options);

// One game, played to the end. A side with no legal move passes. A forced move (one legal
// move) draws no random numbers. During the opening each move is uniformly random among the
// legal ones. After it:
//  - with an agent: the agent's move (play::choose_move: alpha-beta to its depth, exact from
//    its exact_empties);
//  - swh1: with probability epsilon a uniformly random legal move; otherwise the move whose
//    resulting board has the highest SWH value for the mover, ties broken uniformly at random.
// Score: raw disc difference black - white of the final board (Board::disc_diff()).
Game play_generated_game(const GenerateOptions& options, u64 index);

struct GameSummary {
  std::size_t games = 0;
  double mean_score = 0, score_variance = 0;         // final disc difference black - white (population variance)
  double mean_length = 0;                            // moves (discs placed) per game
  double black_wins = 0, white_wins = 0, draws = 0;  // fractions of the games
};
GameSummary summarize(const std::vector<Game>& games);

}  // namespace ef::data
