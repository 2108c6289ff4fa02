// The exact solver's ordering network, retrained on the solver's own search trees
// (`evalforge ordering`, docs/search.md "An ordering network trained on the solver's trees").
//
// The built-in network was trained on positions of real games. The solver asks it about other
// positions: the nodes of its own trees, most of them lopsided ones no game reaches, where it
// underestimates the margin and is noisy (docs/search.md). So:
//  1. sample_solver_trees: root positions from game records (`roots` games spread evenly over
//     the database, each at `root_empties` empties) are solved with the base network; the exact
//     pass's nodes of min_empties..max_empties empties are recorded (the solver's visit hook,
//     games/othello/endgame.hpp), a few per number of empties are drawn at random, and each is
//     solved exactly: its label.
//  2. train_on_solver_trees: the base agent's networks whose move numbers all lie in that range
//     are trained from zero on the samples of their moves (the others are kept), 1 root in 20
//     held out to measure them.
// Both are pure functions of their inputs: each root is solved by one thread with its own table
// (a solve never sees another's entries), the draws come from Philox streams keyed by (seed,
// root, empties), and training is deterministic, so the thread count changes nothing.
#pragma once
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>
#include "backends/cpu/network_eval.hpp"
#include "evalforge/backends/backend.hpp"
#include "evalforge/data/games.hpp"
#include "evalforge/games/othello/agent.hpp"
#include "evalforge/games/othello/shape.hpp"

namespace ef {

struct TreeRootOutcome;

struct TreeSampleOptions {
  int roots = 3000;        // games the roots come from, spread evenly over the database
  int root_empties = 20;   // empties of each root position
  int min_empties = 12;    // nodes sampled: min_empties..max_empties empties
  int max_empties = 19;    //   (must be below root_empties)
  int per_level = 8;       // nodes drawn per root and number of empties below deep_empties,
  int deep_per_level = 2;  //   and from deep_empties up (their exact solves cost more)
  int deep_empties = 17;
  u64 seed = 1;
  int threads = 1;
  int table_bits = 20;  // each thread's transposition table: 2^table_bits entries
  // Games that pass through one of these positions (any of the 8 symmetries, either colour to
  // move) give no root: keeps a benchmark's positions (FFO) and their subtrees out of the data.
  std::vector<std::pair<u64, u64>> excluded;          // (black, white)
  std::function<void(int done, int total)> progress;  // after each root (from any thread)
  // Resuming: the roots an earlier run finished (its journal, read_tree_journal), which are not
  // solved again; the result is the one an uninterrupted run gives. Each must be a root index
  // below `roots`, each at most once.
  std::vector<TreeRootOutcome> resumed;
  // After each root this run finishes, before `progress` (one call at a time, from any thread):
  // what it gave, for the journal. When it throws, no thread starts another root, and the
  // exception ends the sampling once the roots in flight are done.
  std::function<void(const TreeRootOutcome&)> on_root;
};

// One sampled node: P to move, its exact score and a best move, the index of its root (the
// held-out split).
struct TreeSample {
  u64 P = 0, O = 0;
  int score = 0;
  int empties = 0;
  std::uint32_t root = 0;
  int best_move = -1;  // a square (P always has a move: the solver visits nodes after a pass)
};

// What one root gave: the unit of a sampling's journal.
struct TreeRootOutcome {
  enum class Kind { kSolved, kExcluded, kNoRoot };  // kNoRoot: the game ends before root_empties
  std::uint32_t root = 0;
  Kind kind = Kind::kNoRoot;
  std::vector<TreeSample> samples;  // kSolved: its samples (possibly none)
};

struct TreeSamples {
  std::vector<TreeSample> samples;  // ordered by root, then empties, then draw
  int roots = 0;                    // roots solved
  int excluded_games = 0;           // games skipped because of TreeSampleOptions::excluded
};

// Throws ef::Error naming the option for values out of range.
void check_tree_sample_options(const TreeSampleOptions& options);

TreeSamples sample_solver_trees(const std::vector<data::Game>& games, const cpu::SolverOrdering& order,
                                const TreeSampleOptions& options);

// The samples as an .obf file that `evalforge solve` can check and `evalforge search` can take as
// data: one line per sample, in the colours the solver's evaluator gives it (black moves at an
// even move number, ntuple::solver_view), with its best move and exact score; a line
// "% root J" before each root's samples (obf comment lines). `header`: comment lines first.
void write_tree_samples(const std::filesystem::path& file, const std::vector<TreeSample>& samples,
                        const std::vector<std::string>& header);
// Reads such a file back (the same samples). Throws ef::Error naming the file and line: a line
// that is not an .obf position, a position without exactly one move score, one before any
// "% root" line, a root line without a number.
std::vector<TreeSample> read_tree_samples(const std::filesystem::path& file);

// The journal of a sampling, so that a long one (hours) that is stopped or crashes resumes
// where it was instead of starting over (`evalforge ordering --samples-out F` keeps it as
// F.partial and removes it once F is written). Text, appended one block per finished root:
//   % <identity line>...                  what the sampling depends on (tree_sample_identity)
//   % root J solved|excluded|none         the root's block: its kind,
//   <samples, as write_tree_samples writes them>
//   % end J                               and its end
// A block without its end line at the end of the file was cut short by a crash: it is dropped
// (`torn`) and the root is solved again.
std::vector<std::string> tree_sample_identity(const TreeSampleOptions& options, const std::vector<data::Game>& games,
                                              const play::OthelloAgent& base);
std::string tree_journal_header(const std::vector<std::string>& identity);
std::string tree_journal_block(const TreeRootOutcome& outcome);
struct TreeJournal {
  std::vector<std::string> identity;
  std::vector<TreeRootOutcome> roots;  // the complete blocks, in file order
  bool torn = false;                   // a block cut short was dropped
};
// Throws ef::Error naming the file and line for anything a journal cannot hold (a sample outside
// a solved block, an end line of another root, a root twice, a malformed line).
TreeJournal read_tree_journal(const std::filesystem::path& file);

// Whether sample `root` is held out of training (1 root in 20, by a hash of its index).
bool tree_root_held_out(std::uint32_t root);

struct TreeNetworkReport {
  int network = 0;  // index in the agent's networks
  int first_move = 0, last_move = 0;
  std::size_t train = 0, held_out = 0;                     // samples
  double mse_constant = 0, mse_base = 0, mse_trained = 0;  // discs^2 on the held-out samples
};

struct TreeTraining {
  play::OthelloAgent agent;  // the base agent with the trained networks in place
  std::vector<TreeNetworkReport> networks;
};

// The networks of `base` that train_on_solver_trees trains: those whose move numbers all lie
// within min_empties..max_empties (empties = 60 - move number), ascending. Throws ef::Error
// (naming min_empties) when there is none, or when `base` is not an n-tuple agent: call it before
// sampling, which takes long.
std::vector<int> networks_within(const play::OthelloAgent& base, const TreeSampleOptions& sampled);

// `base` with the networks that train_on_solver_trees trains reshaped (zero weights) as its
// `shapes` argument says; `base` itself when `shapes` is empty. Throws ef::Error as
// train_on_solver_trees does for a network without a shape: call it before sampling.
play::OthelloAgent with_tree_shapes(const play::OthelloAgent& base, const TreeSampleOptions& sampled,
                                    const std::vector<ntuple::Shape>& shapes, const std::string& shapes_file);

// Throws ef::Error as networks_within does, and when a network to train has no training sample.
// `shapes` (may be empty): the networks trained get these shapes instead of their own, each the
// shape whose `move` lies within the network's moves, nearest their middle (a shape search's
// best_shapes.json, one shape per island's move); a network with no such shape is an error
// naming `shapes_file`. The base networks' held-out errors are still those of `base`.
TreeTraining train_on_solver_trees(const play::OthelloAgent& base, const TreeSampleOptions& sampled,
                                   const std::vector<TreeSample>& samples, const TrainParams& params,
                                   TrainBackend& backend, const std::vector<ntuple::Shape>& shapes = {},
                                   const std::string& shapes_file = {});

}  // namespace ef
