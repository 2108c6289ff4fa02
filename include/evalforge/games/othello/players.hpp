// Othello's players for the playout engine (engine/playout.hpp), EF_HD: how an agent chooses a
// move, in one body that a CPU worker thread and a CUDA thread both run.
//
// An agent (OthelloParams) is an evaluator kind, search limits and an exploration rate:
//   random    a uniformly random legal move;
//   swh       the standard weighted piece counter (games/othello/swh.hpp);
//   features  the feature-weight form of docs/method.md section 2 (games/othello/features.hpp);
//   ntuple    n-tuple networks by move number (games/othello/ntuple_evaluator.hpp; on the device the
//             evaluator and everything it points at live in device memory).
// Search: search::search_othello -- the midgame search (engine/pvs.hpp, or plain alpha-beta
// when limits.algorithm says so) to limits.depth, exact from limits.exact_empties.
// The determinism contract is playout.hpp's; the exact solver's transposition table (the
// scratch's endgame_table) changes node counts only, never a move (endgame.hpp).
#pragma once
#include "evalforge/core/hd.hpp"
#include "evalforge/core/rng.hpp"
#include "evalforge/engine/playout.hpp"
#include "evalforge/games/othello/features.hpp"
#include "evalforge/games/othello/game.hpp"
#include "evalforge/games/othello/ntuple_evaluator.hpp"
#include "evalforge/games/othello/swh.hpp"
#include "evalforge/games/othello/tree_search.hpp"

namespace ef::play {

// Search stacks are sized for these limits on both backends (a CUDA thread keeps its frames in
// local memory), and agents are validated against them; search_othello would otherwise fall
// back to alpha-beta above kMaxExactEmpties and the backends could still agree, but the user
// would not get what they asked for.
constexpr int kMaxDepth = 10;
constexpr int kMaxExactEmpties = 24;
constexpr int kMaxPlies = games::Othello::kMaxPlies;

// The working memory of Othello's playouts (playout.hpp): the backends' transposition tables.
template <>
struct PlayScratchOf<games::Othello> {
  search::endgame::HashTable* endgame_table = nullptr;  // the exact solves (endgame.hpp)
  search::OthelloTable* midgame_table = nullptr;        // the midgame searches (engine/pvs.hpp)
};
using OthelloScratch = PlayScratchOf<games::Othello>;

enum class OthelloEvaluator : u32 { kRandom = 0, kSwh = 1, kFeatures = 2, kNtuple = 3 };

// Every evaluator kind with its name in agent files (`evaluator = "..."`), declared once: agent
// files read and write kinds through this table, and an error lists its names in this order.
struct OthelloEvaluatorName {
  OthelloEvaluator kind;
  const char* name;
};
inline constexpr OthelloEvaluatorName kOthelloEvaluators[] = {{OthelloEvaluator::kNtuple, "ntuple"},
                                                              {OthelloEvaluator::kSwh, "swh"},
                                                              {OthelloEvaluator::kFeatures, "features"},
                                                              {OthelloEvaluator::kRandom, "random"}};

struct OthelloParams {
  OthelloEvaluator kind = OthelloEvaluator::kSwh;
  search::OthelloLimits limits{1, -1};
  u32 epsilon_ppm = 0;                        // probability of a random move, in millionths
  features::Evaluator features;               // kFeatures
  const ntuple::Evaluator* ntuple = nullptr;  // kNtuple (a device pointer on the device)

  // The playout engine's player interface (playout.hpp).
  EF_HD int choose(const othello::Position& s, Rng& rng, u64& nodes, const OthelloScratch& scratch) const;
  // Whether this agent's exact solves reach the transposition table (worth its memory).
  EF_HD bool wants_endgame_table() const {
    return kind != OthelloEvaluator::kRandom && limits.exact_empties >= search::endgame::kHashEmpties;
  }
  // Whether its midgame searches use a transposition table (engine/pvs.hpp; from depth 3 on).
  EF_HD bool wants_midgame_table() const {
    return kind != OthelloEvaluator::kRandom && (limits.algorithm == search::MidgameSearch::kPvs || limits.probcut) &&
           limits.depth >= 3;
  }
};

// One played Othello game (squares 0..63, a pass is search::kPassMove).
using OthelloRecord = GameRecordOf<games::Othello>;

// The move `agent` plays at `s` (which must have a legal move), drawing from `rng` as
// playout.hpp's contract says. `table` (may be null) serves the exact solves, `midgame` (may be
// null) the midgame search; `stop` (host time controls) may cut the midgame search short.
// `searched_depth` (may be null) receives the midgame search's completed depth (0: none ran).
template <int kStackDepth = kMaxDepth, int kStackEmpties = kMaxExactEmpties, class Stop = search::NeverStop>
EF_HD int choose_move(const OthelloParams& agent, const othello::Position& s, Rng& rng, u64& nodes,
                      search::endgame::HashTable* table, search::OthelloTable* midgame = nullptr, const Stop& stop = {},
                      int* searched_depth = nullptr) {
  const int explored = exploration_move(othello::legal_moves(s.board.player, s.board.opponent),
                                        agent.kind == OthelloEvaluator::kRandom, agent.epsilon_ppm, rng);
  if (searched_depth) *searched_depth = 0;
  if (explored != kSearchMove) return explored;
  search::SearchResult r;
  switch (agent.kind) {
    case OthelloEvaluator::kSwh:
      r = search::search_othello<swh::Evaluator, kStackDepth, kStackEmpties, Stop>(s, agent.limits, swh::Evaluator{},
                                                                                   table, midgame, stop);
      break;
    case OthelloEvaluator::kFeatures:
      r = search::search_othello<features::Evaluator, kStackDepth, kStackEmpties, Stop>(s, agent.limits, agent.features,
                                                                                        table, midgame, stop);
      break;
    case OthelloEvaluator::kRandom:  // unreachable: exploration_move answers a random agent
      break;
    case OthelloEvaluator::kNtuple:
      r = search::search_othello<ntuple::Evaluator, kStackDepth, kStackEmpties, Stop>(s, agent.limits, *agent.ntuple,
                                                                                      table, midgame, stop);
      break;
  }
  nodes += r.nodes;
  if (searched_depth) *searched_depth = r.depth;
  return r.best_move;
}

EF_HD_INLINE int OthelloParams::choose(const othello::Position& s, Rng& rng, u64& nodes,
                                       const OthelloScratch& scratch) const {
  return choose_move(*this, s, rng, nodes, scratch.endgame_table, scratch.midgame_table);
}

// Plays from `start` to the end: `black` moves for black, `white` for white (playout.hpp).
EF_HD_INLINE void play_game(const OthelloParams& black, const OthelloParams& white, const othello::Position& start,
                            u64 seed, u32 game, OthelloRecord& out, search::endgame::HashTable* table) {
  OthelloScratch scratch;
  scratch.endgame_table = table;
  play_game<games::Othello>(black, white, start, seed, game, out, scratch);
}

}  // namespace ef::play
