#include "data/generate.hpp"
#include "evalforge/core/parallel.hpp"
#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include "evalforge/core/error.hpp"
#include "evalforge/core/rng.hpp"
#include "evalforge/eval/swh.hpp"
#include "evalforge/games/othello.hpp"

namespace ef::data {

namespace {

constexpr u64 kMaxGames = u64{1} << 48;  // the game index fills Rng's 24-bit a and 24 bits of b

// The k-th (0-based) set bit of m, k < popcount(m).
int nth_square(u64 m, u32 k) {
  for (; k; --k) m &= m - 1;
  return ctz64(m);
}

// The move whose resulting board is best for the mover by SWH; ties broken uniformly at random
// (reservoir sampling over the tied moves, in square order).
int best_swh_move(const othello::Board& b, u64 moves, Rng& rng) {
  int best = -1, best_value = 0;
  u32 ties = 0;
  for (u64 m = moves; m; m &= m - 1) {
    const int sq = ctz64(m);
    const u64 f = othello::flips(b.player, b.opponent, sq);
    const int value = swh::evaluate(b.player | f | (u64{1} << sq), b.opponent & ~f);
    if (best < 0 || value > best_value) {
      best = sq;
      best_value = value;
      ties = 1;
    } else if (value == best_value && rng.below(++ties) == 0) {
      best = sq;
    }
  }
  return best;
}

void check_options(const GenerateOptions& o) {
  if (!(o.epsilon >= 0.0 && o.epsilon <= 1.0)) fail("epsilon must be in [0, 1], got {}", o.epsilon);
  if (o.random_opening_plies < 0) fail("random opening plies must be >= 0, got {}", o.random_opening_plies);
  if (o.games > kMaxGames) fail("at most 2^48 games, got {}", o.games);
  if (o.threads < 0) fail("threads must be >= 0 (0: all cores), got {}", o.threads);
}

}  // namespace

Game play_generated_game(const GenerateOptions& options, u64 index) {
  Rng rng(options.seed, Purpose::kDatagen, static_cast<u32>(index & 0xFFFFFF), static_cast<u32>(index >> 24));
  othello::Board b;
  Game game;
  game.moves.reserve(60);
  for (;;) {
    const u64 moves = b.moves();
    if (!moves) {
      if (b.game_over()) break;
      b.pass();
      continue;
    }
    int sq;
    const int n = popcount64(moves);
    if (n == 1) {
      sq = ctz64(moves);
    } else if (static_cast<int>(game.moves.size()) < options.random_opening_plies || rng.uniform() < options.epsilon) {
      sq = nth_square(moves, rng.below(static_cast<u32>(n)));
    } else {
      sq = best_swh_move(b, moves, rng);
    }
    b.play(sq);
    game.moves.push_back(static_cast<std::uint8_t>(sq));
  }
  game.score = b.disc_diff();
  return game;
}

std::vector<Game> generate_games(const GenerateOptions& options) {
  check_options(options);
  std::vector<Game> games(options.games);
  const std::size_t n = games.size();
  auto threads = static_cast<unsigned>(resolve_threads(options.threads));
  threads = static_cast<unsigned>(std::clamp<std::size_t>(threads, 1, std::max<std::size_t>(n, 1)));

  // Games are claimed in chunks from a shared counter; each lands in its own slot, so the
  // schedule affects only the timing, never the result.
  constexpr std::size_t kChunk = 64;
  std::atomic<std::size_t> next{0};
  std::exception_ptr error;
  std::mutex error_mutex;
  const auto work = [&] {
    try {
      for (std::size_t start; (start = next.fetch_add(kChunk)) < n;)
        for (std::size_t i = start; i < std::min(n, start + kChunk); ++i) games[i] = play_generated_game(options, i);
    } catch (...) {
      const std::lock_guard lock(error_mutex);
      if (!error) error = std::current_exception();
      next = n;
    }
  };
  run_parallel(static_cast<int>(threads), work);
  if (error) std::rethrow_exception(error);
  return games;
}

GameSummary summarize(const std::vector<Game>& games) {
  GameSummary s;
  s.games = games.size();
  if (games.empty()) return s;
  double sum = 0, sum_sq = 0, length = 0, black = 0, white = 0;
  for (const Game& g : games) {
    const double x = g.score;
    sum += x;
    sum_sq += x * x;
    length += static_cast<double>(g.moves.size());
    black += g.score > 0;
    white += g.score < 0;
  }
  const double n = static_cast<double>(games.size());
  s.mean_score = sum / n;
  s.score_variance = std::max(0.0, sum_sq / n - s.mean_score * s.mean_score);
  s.mean_length = length / n;
  s.black_wins = black / n;
  s.white_wins = white / n;
  s.draws = 1.0 - s.black_wins - s.white_wins;
  return s;
}

}  // namespace ef::data
