// Self-play playouts, EF_HD: how an agent chooses a move and how a game between two agents is
// played, in one body that a CPU worker thread and a CUDA thread both run.
//
// An agent (AgentParams) is an evaluator kind, search limits and an exploration rate:
//   random    a uniformly random legal move;
//   swh       the standard weighted piece counter (eval/swh.hpp);
//   features  the feature-weight form of method.md section 2 (eval/features.hpp);
//   ntuple    n-tuple networks by move number (eval/ntuple_evaluator.hpp; on the device the
//             evaluator and everything it points at live in device memory).
// Search: search::search_othello -- alpha-beta to limits.depth, exact from limits.exact_empties.
//
// Determinism contract (what makes the move lists of the two backends equal):
//  - a game's random numbers come from one Philox stream keyed by (job seed, game id), drawn in
//    ply order, so they depend on nothing outside the game;
//  - at a position with one legal move that move is played and nothing is drawn; otherwise an
//    agent with epsilon_ppm > 0 draws one number below 10^6 and plays a uniformly random legal
//    move (a second draw) when it is below epsilon_ppm; a random agent makes only the second;
//  - the searched move is a pure function of (position, limits, evaluator) (alphabeta.hpp,
//    endgame.hpp), whatever transposition table the endgame solver is given. Node counts do
//    depend on the table, so they are reported but are not part of the contract.
#pragma once
#include "evalforge/core/hd.hpp"
#include "evalforge/core/rng.hpp"
#include "evalforge/eval/features.hpp"
#include "evalforge/eval/ntuple_evaluator.hpp"
#include "evalforge/eval/swh.hpp"
#include "evalforge/games/othello_game.hpp"
#include "evalforge/search/othello_search.hpp"

namespace ef::play {

// Search stacks are sized for these limits on both backends (a CUDA thread keeps its frames in
// local memory), and agents are validated against them; search_othello would otherwise fall
// back to alpha-beta above kMaxExactEmpties and the backends could still agree, but the user
// would not get what they asked for.
constexpr int kMaxDepth = 10;
constexpr int kMaxExactEmpties = 24;
// A game from any start has at most 60 moves and never two passes in a row before its end.
constexpr int kMaxPlies = 120;
constexpr u32 kEpsilonScale = 1000000;  // epsilon in millionths: an integer comparison, exact everywhere

enum class EvaluatorKind : u32 { kRandom = 0, kSwh = 1, kFeatures = 2, kNtuple = 3 };

struct AgentParams {
  EvaluatorKind kind = EvaluatorKind::kSwh;
  search::OthelloLimits limits{1, -1};
  u32 epsilon_ppm = 0;                       // probability of a random move, in millionths
  features::Evaluator features;              // kFeatures
  const ntuple::Evaluator* ntuple = nullptr; // kNtuple (a device pointer on the device)
};

// One played game. Squares 0..63; a pass is search::kPassMove (-1). Fixed size, so that a CUDA
// thread writes it without allocating.
struct GameRecord {
  signed char moves[kMaxPlies];
  int plies = 0;
  int black_score = 0;  // final disc difference black - white, empties to the winner
  u64 nodes = 0;        // positions searched by both agents (not part of the determinism contract)
};

// The move `agent` plays at `s` (which must have a legal move), drawing from `rng` as the
// contract above says. `table` (may be null) serves the exact solves.
template <int kStackDepth = kMaxDepth, int kStackEmpties = kMaxExactEmpties>
EF_HD int choose_move(const AgentParams& agent, const othello::Position& s, Rng& rng, u64& nodes,
                      search::endgame::HashTable* table) {
  const u64 moves = othello::legal_moves(s.board.player, s.board.opponent);
  if ((moves & (moves - 1)) == 0) return ctz64(moves);
  if (agent.kind == EvaluatorKind::kRandom) return rng.random_bit(moves);
  if (agent.epsilon_ppm > 0 && rng.below(kEpsilonScale) < agent.epsilon_ppm) return rng.random_bit(moves);
  search::SearchResult r;
  switch (agent.kind) {
    case EvaluatorKind::kSwh:
      r = search::search_othello<swh::Evaluator, kStackDepth, kStackEmpties>(s, agent.limits, swh::Evaluator{}, table);
      break;
    case EvaluatorKind::kFeatures:
      r = search::search_othello<features::Evaluator, kStackDepth, kStackEmpties>(s, agent.limits, agent.features,
                                                                                  table);
      break;
    default:  // kNtuple
      r = search::search_othello<ntuple::Evaluator, kStackDepth, kStackEmpties>(s, agent.limits, *agent.ntuple,
                                                                                table);
      break;
  }
  nodes += r.nodes;
  return r.best_move;
}

// The Philox stream of game `game` of a batch keyed by `seed`.
EF_HD_INLINE Rng game_rng(u64 seed, u32 game) { return Rng(seed, Purpose::kGame, game & 0xFFFFFFu, game >> 24, 0); }

// Plays from `start` to the end: agents[0] moves for black, agents[1] for white.
template <int kStackDepth = kMaxDepth, int kStackEmpties = kMaxExactEmpties>
EF_HD void play_game(const AgentParams& black, const AgentParams& white, const othello::Position& start, u64 seed,
                     u32 game, GameRecord& out, search::endgame::HashTable* table) {
  Rng rng = game_rng(seed, game);
  othello::Position s = start;
  out.plies = 0;
  out.nodes = 0;
  while (out.plies < kMaxPlies) {
    const u64 moves = othello::legal_moves(s.board.player, s.board.opponent);
    if (!moves) {
      if (!othello::legal_moves(s.board.opponent, s.board.player)) break;  // game over
      out.moves[out.plies++] = static_cast<signed char>(search::kPassMove);
      s = games::Othello::pass(s);
      continue;
    }
    const AgentParams& agent = s.board.side == othello::kBlack ? black : white;
    const int sq = choose_move<kStackDepth, kStackEmpties>(agent, s, rng, out.nodes, table);
    out.moves[out.plies++] = static_cast<signed char>(sq);
    s = games::Othello::play(s, sq);
  }
  out.black_score = s.board.disc_diff_empties_to_winner();
}

}  // namespace ef::play
