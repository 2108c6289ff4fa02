// Playouts for any game, EF_HD: the one body that plays a whole game between two players, run
// by a CPU worker thread and by a CUDA thread alike (one game per thread on both backends).
//
// A game is a traits type under games::Game (engine/game.hpp) with two more members a playout
// needs (PlayoutGame below). A player of game G is a trivially copyable parameter struct P (an
// evaluator kind, search limits, an exploration rate: what the device reads) with
//   EF_HD int choose(const G::State& s, Rng& rng, u64& nodes, const PlayScratchOf<G>& scratch) const
// returning a legal square of s (s has at least one legal move). Each game's players live in
// its own header (games/othello/players.hpp for Othello, games/tictactoe/players.hpp for Tic-Tac-Toe) and are
// registered once in games/registry.hpp; the backends and schedulers are generic over them.
//
// Determinism contract (what makes the move lists of every backend and thread count equal):
//  - a game's random numbers come from one Philox stream keyed by (job seed, game id), drawn in
//    ply order, so they depend on nothing outside the game;
//  - exploration_move() is the rule every player follows before it searches: a position with
//    one legal move is answered with it and nothing is drawn; a random player draws one
//    random_move(moves) (one below(count) draw); a player with epsilon_ppm > 0 draws below(10^6) and plays a random
//    legal move (a second draw) when it is below epsilon_ppm; a playout policy may answer a
//    pattern of the position without a draw and draw as a random player otherwise (Hex's
//    bridge replies, games/hex/playout_patterns.hpp: the pattern is a function of the board,
//    which carries its last stone);
//  - the searched move is a pure function of (position, limits, evaluator): alpha-beta returns
//    the lowest square among the best (engine/alphabeta.hpp), whatever scratch it is given.
//    Node counts may depend on the scratch (transposition tables), so they are reported but are
//    not part of the contract.
#pragma once
#include <concepts>
#include <type_traits>
#include "evalforge/core/hd.hpp"
#include "evalforge/core/rng.hpp"
#include "evalforge/engine/alphabeta.hpp"
#include "evalforge/engine/game.hpp"

namespace ef::play {

// What a playout needs of a game beyond the search's Game concept:
//   G::kMaxPlies   the longest game from any start, passes included (sizes the record);
//   G::side(s)     0 when the first player (Othello's black, Tic-Tac-Toe's X) is to move, else 1.
// Moves are squares numbered from 0 (below 128 for boards of up to 64 squares, so a record
// stores them in a signed byte; wider boards' records use 16 bits: MoveCodeOf).
template <class G>
concept PlayoutGame = games::Game<G> && requires(const typename G::State& s) {
  { G::kMaxPlies } -> std::convertible_to<int>;
  { G::side(s) } -> std::convertible_to<int>;
};

constexpr u32 kEpsilonScale = 1000000;  // epsilon in millionths: an integer comparison, exact everywhere

// Working memory a backend hands every game of G it plays: nothing, unless the game specialises
// this in its players header (Othello's transposition tables: games/othello/players.hpp). Each
// field of a specialisation is optional (null when the backend has none to give), and a player
// must choose the same move with or without it.
template <class G>
struct PlayScratchOf {};

// What the backends need of a player's parameters P for game G: trivially copyable (they are
// copied to the device byte for byte), a move choice (the contract below), and whether its
// searches use an endgame table (so that a backend gives tables only to batches that want them).
template <class P, class G>
concept PlayoutPlayer = std::is_trivially_copyable_v<P> &&
    requires(const P& p, const typename G::State& s, Rng& rng, u64& nodes, const PlayScratchOf<G>& scratch) {
  { p.choose(s, rng, nodes, scratch) } -> std::convertible_to<int>;
  { p.wants_endgame_table() } -> std::convertible_to<bool>;
};

// How a record stores one move: a signed byte for games of at most 64 moves, whose squares are
// 0..63 (the pass is -1); 16 bits otherwise (Hex numbers its squares up to 182).
template <class G>
using MoveCodeOf = std::conditional_t<(G::kMaxMoves <= 64), signed char, short>;

// One played game. A pass is search::kPassMove (-1). Fixed size, so that a CUDA thread writes
// it without allocating.
template <PlayoutGame G>
struct GameRecordOf {
  MoveCodeOf<G> moves[G::kMaxPlies];
  int plies = 0;
  // The first player's final result, G::final_score from its side: Othello's disc difference
  // black - white with the empties to the winner; Tic-Tac-Toe's +1 X won, 0 draw, -1 O won.
  int black_score = 0;
  u64 nodes = 0;  // positions searched by both players (not part of the determinism contract)
};

// Each playout game's players, specialised in the game's player header: Agent (the owning host
// form a backend copies), Params (the trivially copyable form the play body reads) and kName.
// The games the backends instantiate are listed once, in games/registry.hpp.
template <class G>
struct Players;
template <class G>
using AgentOf = typename Players<G>::Agent;
template <class G>
using ParamsOf = typename Players<G>::Params;

// A backend's host-side copy of an agent, whose `params` stay valid while it lives: for an agent
// whose parameters are self-contained (device_params() copies them), the copy and its
// parameters; a game whose parameters point at memory (Othello's n-tuple weights) specialises it.
// Held by pointer and never copied, so the pointers stay valid as agents are added.
template <class A>
struct ResidentAgent {
  explicit ResidentAgent(const A& a) : agent(a), params(agent.device_params()) {}
  ResidentAgent(const ResidentAgent&) = delete;
  ResidentAgent& operator=(const ResidentAgent&) = delete;
  A agent;
  decltype(agent.device_params()) params;
};

// The Philox stream of game `game` of a batch keyed by `seed`.
EF_HD_INLINE Rng game_rng(u64 seed, u32 game) { return Rng(seed, Purpose::kGame, game & 0xFFFFFFu, game >> 24, 0); }

constexpr int kSearchMove = -3;  // exploration_move's answer when the player is to search

// A uniformly chosen move of a non-empty set: one below() draw (for a u64 mask the same draw and
// square as Rng::random_bit).
template <class Moves>
EF_HD_INLINE int random_move(const Moves& moves, Rng& rng) {
  using Set = games::MoveSet<Moves>;
  return Set::nth(moves, rng.below(static_cast<u32>(Set::count(moves))));
}

// The exploration rule of the contract above: the square to play, or kSearchMove.
template <class Moves>
EF_HD_INLINE int exploration_move(const Moves& moves, bool random_player, u32 epsilon_ppm, Rng& rng) {
  using Set = games::MoveSet<Moves>;
  if (Set::single(moves)) return Set::lowest(moves);
  if (random_player) return random_move(moves, rng);
  if (epsilon_ppm > 0 && rng.below(kEpsilonScale) < epsilon_ppm) return random_move(moves, rng);
  return kSearchMove;
}

// Plays from `start` to the end of the game (or G::kMaxPlies plies): `first` moves for the
// first player, `second` for the other. A side without a legal move passes when the game has
// passes and the other side can move; otherwise the game is over.
template <PlayoutGame G, class P>
EF_HD void play_game(const P& first, const P& second, const typename G::State& start, u64 seed, u32 game,
                     GameRecordOf<G>& out, const PlayScratchOf<G>& scratch) {
  using State = typename G::State;
  using Set = games::MoveSet<games::MovesOf<G>>;
  Rng rng = game_rng(seed, game);
  State s = start;
  out.plies = 0;
  out.nodes = 0;
  while (out.plies < G::kMaxPlies) {
    if (!Set::any(G::moves(s))) {
      if constexpr (G::kHasPass) {
        const State passed = G::pass(s);
        if (!Set::any(G::moves(passed))) break;  // neither side can move: game over
        out.moves[out.plies++] = static_cast<MoveCodeOf<G>>(search::kPassMove);
        s = passed;
        continue;
      } else {
        break;
      }
    }
    const P& player = G::side(s) == 0 ? first : second;
    const int sq = player.choose(s, rng, out.nodes, scratch);
    out.moves[out.plies++] = static_cast<MoveCodeOf<G>>(sq);
    s = G::play(s, sq);
  }
  const int score = G::final_score(s);
  out.black_score = G::side(s) == 0 ? score : -score;
}

}  // namespace ef::play
