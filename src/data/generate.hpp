// Built-in dataset: games between two 1-ply SWH players with epsilon-random moves (the Othello
// League's players, docs/anchors.md), after a few uniformly random opening moves.
//
// Every game is a pure function of (seed, game index): its random numbers come from
// ef::Rng(seed, Purpose::kDatagen, index) only, so the output is the same for any thread count.
#pragma once
#include <cstddef>
#include <vector>
#include "data/games.hpp"

namespace ef::data {

struct GenerateOptions {
  std::size_t games = 1000;
  u64 seed = 1;
  double epsilon = 0.1;           // probability of a uniformly random move (after the opening)
  int random_opening_plies = 8;   // the first moves (discs placed) are uniformly random
  int threads = 0;                // 0: std::thread::hardware_concurrency()
};

// Plays options.games games; game i is play_generated_game(options, i). Throws ef::Error for
// an epsilon outside [0, 1], a negative opening length or too many games (> 2^48).
std::vector<Game> generate_games(const GenerateOptions& options);

// One game, played to the end: at each move, with no legal move the side passes; during the
// opening, or with probability epsilon, it plays a uniformly random legal move; otherwise the
// move whose resulting board has the highest SWH value for the mover, ties broken uniformly at
// random. A forced move (one legal move) draws no random numbers. Score: raw disc
// difference black - white (Board::disc_diff()).
Game play_generated_game(const GenerateOptions& options, u64 index);

struct GameSummary {
  std::size_t games = 0;
  double mean_score = 0, score_variance = 0;  // final disc difference black - white (population variance)
  double mean_length = 0;                     // moves (discs placed) per game
  double black_wins = 0, white_wins = 0, draws = 0;  // fractions of the games
};
GameSummary summarize(const std::vector<Game>& games);

}  // namespace ef::data
