#include "data/generate.hpp"
#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <span>
#include <thread>
#include "core/parallel.hpp"
#include "evalforge/backends/backend.hpp"
#include "evalforge/core/error.hpp"
#include "evalforge/core/rng.hpp"
#include "evalforge/games/othello/bitboard.hpp"
#include "evalforge/games/othello/game.hpp"
#include "evalforge/games/othello/swh.hpp"

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
  if (o.agent) {
    o.agent->validate();
    // A random draw after the opening would come from the playout's own stream (keyed by a
    // 32-bit game number, not by the 48-bit index): the searching player must draw nothing.
    if (o.agent->kind == play::OthelloEvaluator::kRandom)
      fail("generate: agent '{}' is a random player; the generator needs one that searches its moves", o.agent->name);
    if (o.agent->epsilon_ppm() != 0)
      fail("generate: agent '{}' has epsilon {}; the generator needs epsilon 0 (random moves come only in the opening)",
           o.agent->name, o.agent->epsilon);
  }
}

Rng game_rng(const GenerateOptions& options, u64 index) {
  return Rng(options.seed, Purpose::kDatagen, static_cast<u32>(index & 0xFFFFFF), static_cast<u32>(index >> 24));
}

// The random opening of a game: up to `plies` moves, each uniformly random among the legal ones
// (a forced move draws nothing), passing where a side cannot move. Appends the moves to `game`.
othello::Position play_opening(Rng& rng, int plies, Game& game) {
  using G = games::Othello;
  othello::Position s;
  while (static_cast<int>(game.moves.size()) < plies) {
    const u64 moves = G::moves(s);
    if (!moves) {
      if (s.board.game_over()) break;
      s = G::pass(s);
      continue;
    }
    const int n = popcount64(moves);
    const int sq = n == 1 ? ctz64(moves) : nth_square(moves, rng.below(static_cast<u32>(n)));
    s = G::play(s, sq);
    game.moves.push_back(static_cast<std::uint8_t>(sq));
  }
  return s;
}

// The swh1 player's game (the original generator; its bits are pinned by a test).
Game play_swh1_game(const GenerateOptions& options, u64 index) {
  Rng rng = game_rng(options, index);
  Game game;
  game.moves.reserve(60);
  othello::Board b = play_opening(rng, options.random_opening_plies, game).board;
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
    } else if (rng.uniform() < options.epsilon) {
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

// Games first .. first + out.size() - 1 with options.agent: the openings here, the rest by the
// playout engine on the CPU backend (each game on one worker, so the thread count changes only
// the timing). The agent draws no random numbers, so the playout stream's key (seed, game) is
// never read; it is set for form's sake.
void play_agent_games(const GenerateOptions& options, u64 first, std::span<Game> out) {
  const std::unique_ptr<Backend> backend = make_backend("cpu", options.threads);
  const int agent = backend->add_agent(*options.agent);
  std::vector<OthelloJob> jobs(out.size());
  for (std::size_t k = 0; k < out.size(); ++k) {
    Rng rng = game_rng(options, first + k);
    out[k].moves.reserve(60);
    jobs[k] = OthelloJob{agent, agent, play_opening(rng, options.random_opening_plies, out[k]), options.seed,
                         static_cast<u32>(first + k)};
  }
  std::vector<play::OthelloRecord> records(out.size());
  backend->play(jobs, records);
  for (std::size_t k = 0; k < out.size(); ++k) {
    // The record holds the moves after the opening, passes included; a transcript leaves
    // passes implicit and scores the raw disc difference of the final board.
    othello::Board b = jobs[k].start.board;
    for (int p = 0; p < records[k].plies; ++p) {
      const int sq = records[k].moves[p];
      if (sq == search::kPassMove) {
        b.pass();
        continue;
      }
      if (!b.play(sq)) fail("generate: game {} has an illegal move {} (the playout engine is broken)", first + k, sq);
      out[k].moves.push_back(static_cast<std::uint8_t>(sq));
    }
    if (!b.game_over()) fail("generate: game {} ended before the end of the game", first + k);
    out[k].score = b.disc_diff();
  }
}

}  // namespace

Game play_generated_game(const GenerateOptions& options, u64 index) {
  check_options(options);
  if (!options.agent) return play_swh1_game(options, index);
  GenerateOptions one = options;
  one.threads = 1;
  Game game;
  play_agent_games(one, index, std::span<Game>(&game, 1));
  return game;
}

std::vector<Game> generate_games(const GenerateOptions& options) {
  check_options(options);
  std::vector<Game> games(options.games);
  if (options.agent) {
    // In batches, so that the jobs and records of a large run need little memory.
    constexpr std::size_t kBatch = std::size_t{1} << 16;
    for (std::size_t start = 0; start < games.size(); start += kBatch)
      play_agent_games(options, start, std::span<Game>(games).subspan(start, std::min(kBatch, games.size() - start)));
    return games;
  }
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
        for (std::size_t i = start; i < std::min(n, start + kChunk); ++i) games[i] = play_swh1_game(options, i);
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
