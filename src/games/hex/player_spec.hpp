// Hex players on the host and the games they play: a player is a backend agent (a network-
// characteristics or resistance evaluator under alpha-beta, or random: games/hex/players.hpp),
// UCT (games/hex/uct.hpp) or the VC alpha-beta (games/hex/vc_search.hpp), named by a spec string:
//
//   random
//   ev[:gamma=G,depth=D,bridges=0|1,edge_bridges=0|1,groups=0|1,sign=1|-1,cp_sign=1|-1,epsilon=E]
//                                                                       Ev (gamma = 0) / Ev'
//   resistance[:depth=D,epsilon=E]
//   uct[:playouts=P,c=C,expand=K,batch=B,playout=random|bridge,prune=none|vc]
//                                       bridge: playouts restore broken bridges; vc: VC-pruned root
//   vcab[:depth=D,width=W,eval=resistance|ev|vc-resistance,gamma=G,fill=dead|captured,prune=none|dominated,time=S]
//                                                                alpha-beta over virtual connections
// and with any kind, vc=1: VC-aware play on top of the player's own move (games/hex/vc.hpp
// vc_guarded_move: keep a won connection, stay in the opponent's must-play region).
//
// A game is play::play_game over games::Hex with these players, so it follows the playout
// contract: game g of a match keyed by `seed` is a pure function of (players, start, seed, g),
// whatever the thread count. UCT draws the key of its own playouts from the game's stream.
#pragma once
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>
#include "evalforge/core/memory_check.hpp"
#include "evalforge/games/hex/players.hpp"
#include "evalforge/ratings/ratings.hpp"
#include "games/hex/uct.hpp"
#include "games/hex/vc_search.hpp"

namespace ef::play {

struct HexPlayer {
  // kAgent plays on a backend (games/hex/players.hpp); the others are host players.
  enum class Kind { kAgent, kUct, kVcSearch };
  std::string spec;  // canonical: every key, in the order above
  Kind kind = Kind::kAgent;
  UctParams uct_params;           // kUct
  hex::VcSearchParams vc_search;  // kVcSearch
  HexAgent agent;                 // kAgent
  bool vc = false;                // VC-aware play (hex::vc_guarded_move) on top of the move chosen
  // kUct, prune=vc: before the search, the connections of the position with its dead cells
  // filled (hex::vc_verdict) decide a won game (played as vc_guarded_move plays it) and restrict
  // the root to the live cells, or to the opponent's must-play region when it has one.
  bool vc_prune = false;
};

// Throws ef::Error quoting the spec for an unknown kind or key, a malformed value or one out of range.
HexPlayer parse_hex_player(std::string_view spec);

// Cell names: "a1".."m13" (column letter, row number), "swap"; hex::kSwapSquare for "swap",
// -1 for anything else (out of an n x n board included).
int parse_hex_cell(std::string_view text, int n);
std::string hex_cell_name(int square);
// The moves of a record, space-separated.
std::string hex_move_list(const HexRecord& r);

// The UCT trees of games between `players` on an n x n board with `threads` tables (one tree
// each, reused for both sides): a memory estimate part (core/memory_check.hpp).
MemoryPart hex_tree_memory(const std::vector<const HexPlayer*>& players, int n, int threads);

// A player's thinking time (wall clock over its moves): reported beside results, never part of one.
struct HexClock {
  double seconds = 0;
  u64 moves = 0;
  void add(const HexClock& o) {
    seconds += o.seconds;
    moves += o.moves;
  }
};

// Plays games on one thread, keeping a UCT tree between calls.
class HexTable {
 public:
  HexTable();
  ~HexTable();
  // Game `game` of the stream `seed`: `black` moves first from `start`.
  HexRecord play(const HexPlayer& black, const HexPlayer& white, const hex::Board& start, u64 seed, u32 game);
  // The thinking time of each colour in the last game play() played.
  const HexClock& clock(int colour) const { return clock_[colour]; }
  // One move for the side to move in `s` (a game still on), drawing from `rng` as a game does.
  int choose(const HexPlayer& player, const hex::Board& s, Rng& rng, u64& nodes);

 private:
  // The player's own move, before VC-aware play.
  int choose_own(const HexPlayer& player, const hex::Board& s, Rng& rng, u64& nodes);
  InlinePlayouts playouts_;
  std::unique_ptr<Uct> uct_;
  UctParams uct_params_;
  HexClock clock_[2];
};

// A random opening: `plies` uniformly random moves (cells, never the swap) from `start`, drawn from
// the stream (seed, Purpose::kOpening, index); a move that would end the game is not played, so
// the opening stops one short of it.
hex::Board hex_random_opening(const hex::Board& start, int plies, u64 seed, u32 index);

// A round robin of host players (at most 64): every pair (i, j), i < j, plays `games` games
// from `start`, colours alternating (i is Black in even games); game k of pair (i, j) is game
// i * 2^20 + j * 2^10 + k of the stream keyed by `seed`, so results do not depend on `threads`
// (0 = all). With opening_plies > 0, games 2o and 2o + 1 of every pair start from the same
// random opening o (hex_random_opening(start, opening_plies, seed, o)), one with each colour:
// deterministic players then meet in as many distinct games as there are openings. Each game as
// a rating input: first = Black, score 1 when Black won (Hex has no draws), in the order
// (i, j, k). `clocks`, when given, gets each player's thinking time over the whole round robin.
// Throws ef::Error for more than 64 players, or for an odd `games` with openings.
std::vector<ratings::GameResult> hex_round_robin(std::span<const HexPlayer> players, int games, const hex::Board& start,
                                                 u64 seed, int threads, int opening_plies = 0,
                                                 std::vector<HexClock>* clocks = nullptr);

}  // namespace ef::play
