// UCT for Hex, the seed paper's opponent (docs/method.md section 4): a tree in host memory,
// UCB1 selection with coefficient 0.38, random playouts to the end of the game (or, with
// bridge_replies, playouts that restore broken bridges: games/hex/playout_patterns.hpp).
//
// The algorithm, in the variant played here (the seed gives only the UCB1 formula):
//  - selection: from the root, the child maximising  w/n + c * sqrt(2 ln N / n)  (w wins of the
//    player who moved into the child, n its visits, N the parent's visits); a child not yet
//    visited comes first, the lowest square first; ties go to the lowest square;
//  - expansion: a leaf reached once it has `expand_after` visits (pending playouts of the
//    batch included; the root at once) gets a child for every legal move, and the first of
//    them is the leaf -- with the default 1, a leaf is expanded the second time it is reached;
//  - evaluation: a finished game's winner, else a random playout from the leaf (a game of two
//    random players of games/hex/players.hpp: the same body every backend runs);
//  - the move: the root child with most visits, ties to the lowest square.
// With leaf_batch > 1 the search selects that many leaves before it runs their playouts, each
// pending playout counting as a lost visit on its path (virtual loss) so that the batch spreads;
// the batch then runs at once, e.g. on a CUDA backend. leaf_batch = 1 is plain UCT.
//
// Determinism: playout k of a search keyed by `seed` is game k of the playout stream `seed`, so
// the chosen move is a pure function of (position, parameters, seed), on every backend.
#pragma once
#include <span>
#include <vector>
#include "evalforge/engine/play_backend.hpp"
#include "evalforge/games/hex/game.hpp"
#include "evalforge/games/hex/players.hpp"

namespace ef::play {

struct UctParams {
  int playouts = 5000;          // playouts per move
  double exploration = 0.38;    // c of UCB1 (seed Eq. 9)
  int expand_after = 1;         // visits a leaf needs before it is expanded
  int leaf_batch = 1;           // leaves selected before their playouts run (virtual loss)
  bool bridge_replies = false;  // playouts restore broken bridges (hex_bridge_random_agent), else random
  // Throws ef::Error naming `who` for a value out of range.
  void validate(const std::string& who) const;
};

// Runs Hex playouts: winners[i] = the colour (hex::kBlack / kWhite) that wins a game of two
// random players (with bridge replies when `bridge_replies`) from starts[i], game
// `first_game + i` of the stream keyed by `seed`.
class HexPlayouts {
 public:
  virtual ~HexPlayouts() = default;
  virtual void run(std::span<const hex::Board> starts, u64 seed, u32 first_game, std::span<signed char> winners,
                   bool bridge_replies) = 0;
};

// On the calling thread, with the shared play body.
class InlinePlayouts final : public HexPlayouts {
 public:
  void run(std::span<const hex::Board> starts, u64 seed, u32 first_game, std::span<signed char> winners,
           bool bridge_replies) override;
};

// As a batch on a backend (CPU threads or CUDA kernels): the same winners.
class BackendPlayouts final : public HexPlayouts {
 public:
  explicit BackendPlayouts(PlayBackend<games::Hex>& backend);
  void run(std::span<const hex::Board> starts, u64 seed, u32 first_game, std::span<signed char> winners,
           bool bridge_replies) override;

 private:
  PlayBackend<games::Hex>& backend_;
  int random_ = -1;
  int bridge_random_ = -1;  // added to the backend at the first playouts with bridge replies
  std::vector<GameJobOf<games::Hex>> jobs_;
  std::vector<HexRecord> records_;
};

class Uct {
 public:
  Uct(const UctParams& params, HexPlayouts& playouts);
  // The move UCT chooses in `s` (a game still on). `playouts` counts the playouts run. With
  // `root_moves`, the root's children are only those of its legal moves (the others are known to
  // be no better: VC pruning, games/hex/player_spec.cpp); none of them legal means all moves.
  int choose(const hex::Board& s, u64 seed, u64& playouts, const hex::Cells* root_moves = nullptr);
  // Visits of the root's children after the last choose(), by square (for tests and analysis).
  std::vector<std::pair<int, int>> root_visits() const;
  // Bytes a tree of `params` can reach for one move on a board of `cells` cells: every
  // expansion (one per expand_after playouts) adds a child per empty cell; capped at the node
  // limit of expand(). For memory estimates (core/memory_check.hpp).
  static double tree_bytes(const UctParams& params, int cells);

 private:
  struct Node {
    int parent = -1;
    int first_child = -1;
    short children = 0;       // 0: not expanded
    short move = -1;          // the square played into this node
    signed char mover = -1;   // the colour that played it
    signed char winner = -1;  // the game is over here: who won
    int visits = 0;
    int pending = 0;  // playouts selected but not yet backed up (virtual loss)
    double wins = 0;  // playouts won by `mover`
  };
  int select_child(const Node& n) const;
  void expand(int node, const hex::Board& s, const hex::Cells& moves);
  void backup(int leaf, int winner);

  UctParams params_;
  HexPlayouts& playouts_;
  std::vector<Node> nodes_;
};

}  // namespace ef::play
