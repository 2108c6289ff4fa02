// One exact endgame solve split over several threads (host only): young brothers wait
// (YBWC), over endgame.hpp's search.
//
// Why YBWC: at a node the first move is searched alone (by the thread that reached the node);
// only when it has not cut off are the node's other moves offered to idle threads. With good
// ordering the first move cuts off at most cut nodes, so work is split almost only where all
// moves must be searched anyway, and little is wasted on moves a cut-off would have skipped.
// Edax and Egaroucid split the same way. The alternative that needs no split points, "lazy
// SMP" (every thread searches the whole tree, sharing only the table), gains far less on an
// exact solve, whose tree has no depth iterations to desynchronise the threads.
//
// How: the top of the tree (nodes with kSplitEmpties empties or more) is searched by
// ParallelSolve::node, recursively on each thread's own stack; below that, by endgame.hpp's
// solve_pass (one thread, no split). A node that has searched its first move without a cut-off
// and sees a thread that could join (a free helper, or the owner of a split point above it
// waiting for its helpers) publishes a SplitPoint holding its remaining moves; idle threads
// take moves from it one at a time (each searched with the split point's current window, null
// window first as in the serial search, then a re-search), and merge the results under its
// lock. The owner searches moves too, and when none are left it helps only at split points
// below its own (a helper's; "helpful master"), so it is never buried in unrelated work when
// its node completes. A cut-off at a split point stops every thread under it: they check the
// chain of split points above them after each child, and drop what they were searching (an
// aborted node stores nothing in the table).
//
// All threads share one table (endgame.hpp's entries are checked against torn writes). The
// ordering passes, the aspiration window and its re-searches are solve_endgame's
// (endgame::drive_passes), each pass split the same way.
//
// What stays the same for any thread count: the score (exact) and the best move (the lowest
// square among the best, as with one thread: a lower square is searched with a window one
// wider, whichever thread searches it and whenever). What does not: node counts and time, which
// depend on which thread finishes first. One thread runs solve_endgame itself (same nodes).
#pragma once
#include <algorithm>
#include <atomic>
#include <mutex>
#include <thread>
#include <vector>
#include "core/cpu_time.hpp"
#include "evalforge/games/othello/endgame.hpp"

namespace ef::search {

namespace endgame {
// Nodes with this many empties or more may be split between threads; smaller subtrees (a few
// thousand nodes, well under a millisecond) are solved by one thread (bench/solve_threads).
constexpr int kSplitEmpties = 12;
}  // namespace endgame

template <class Order = endgame::NoOrdering>
class ParallelSolve {
 public:
  // `table`: the threads share what they prove through it; without one (null) solve() runs on
  // one thread. `order` may be null.
  // `split_empties`: the smallest nodes that may be split (a benchmark's knob).
  ParallelSolve(int threads, endgame::HashTable* table, const Order* order, int split_empties = endgame::kSplitEmpties)
      : threads_(std::max(1, threads)),
        split_empties_(std::max(split_empties, endgame::kSmallEmpties + 2)),
        table_(table),
        order_(order) {}

  SolveResult solve(u64 P, u64 O, int alpha = -64, int beta = 64) {
    namespace eg = endgame;
    const int empties = 64 - popcount64(P | O);
    helper_cpu_seconds_ = 0;
    root_visits_ = 0;
    if (threads_ == 1 || !table_ || empties < split_empties_) return solve_endgame(P, O, alpha, beta, table_, order_);
    if (beta >= 64) beta = eg::kScoreLimit;
    if (alpha <= -64) alpha = -eg::kScoreLimit;
    table_->next_solve();
    workers_ = std::vector<Worker>(static_cast<std::size_t>(threads_));
    done_.store(false);
    free_.store(0);
    open_count_.store(0);
    std::vector<HelperThread> helpers;
    helpers.reserve(static_cast<std::size_t>(threads_ - 1));
    SolveResult result;
    try {  // (a thread that cannot be started throws too: the ones started are joined)
      for (int t = 1; t < threads_; ++t) helpers.push_back({std::thread([this, t] { helper_loop(workers_[t]); })});
      result = eg::drive_passes(P, O, alpha, beta, Order::kEnabled && order_ != nullptr, RootPass{this});
    } catch (...) {
      done_.store(true);
      for (HelperThread& h : helpers) h.thread.join();
      throw;
    }
    done_.store(true);
    for (HelperThread& h : helpers) h.thread.join();
    result.nodes = root_visits_;
    helper_cpu_seconds_ = 0;
    for (const Worker& w : workers_) {
      result.nodes += w.nodes;
      helper_cpu_seconds_ += w.cpu_seconds;
    }
    return result;
  }

  // CPU seconds the last solve() spent on threads other than the caller's (0 with one thread):
  // with the caller's own thread CPU time, the solve's CPU cost.
  double helper_cpu_seconds() const { return helper_cpu_seconds_; }

 private:
  // A helper's thread, in a type of this class's own: the vector of them is then an
  // instantiation of this ParallelSolve alone, never shared with other code (the CPU solver's
  // x86-64-v3 and -v4 copies, backends/cpu/endgame_solver.hpp, rely on that).
  struct HelperThread {
    std::thread thread;
  };

  struct alignas(64) Worker {
    u64 nodes = 0;
    double cpu_seconds = 0;  // helpers: their thread's CPU time in this solve
  };

  // A node whose remaining moves are shared. Lives on its owner's stack until every helper has
  // left it (helpers counts them; joining and leaving the list both happen under list_mutex_).
  struct SplitPoint {
    u64 P = 0, O = 0;  // the node's position (after a forced pass: the position after it)
    int horizon = 0;
    bool root_choice = false;  // the root's own moves: ties go to the lowest square
    SplitPoint* parent = nullptr;
    std::mutex m;
    // Under m:
    int alpha = 0, beta = 0, best = 0, best_move = kNoMove;
    int count = 0;
    u8 moves[64] = {};
    std::atomic<int> next{0};  // written under m; read without it to look for work
    std::atomic<bool> cut{false};
    std::atomic<int> helpers{0};
    std::atomic<bool> owner_waiting{false};  // its owner has no move left and waits for helpers
  };

  struct RootPass {
    ParallelSolve* self;
    SolveResult operator()(u64 P, u64 O, int alpha, int beta, int horizon) const {
      SolveResult r;
      ++self->root_visits_;
      int move = kNoMove;
      r.score = self->node(self->workers_[0], P, O, alpha, beta, true, horizon, nullptr, &move);
      r.best_move = move;
      return r;
    }
  };

  static bool cut_above(const SplitPoint* sp) {
    for (; sp; sp = sp->parent)
      if (sp->cut.load(std::memory_order_relaxed)) return true;
    return false;
  }
  static bool below(const SplitPoint* sp, const SplitPoint* ancestor) {
    for (; sp; sp = sp->parent)
      if (sp == ancestor) return true;
    return false;
  }

  // The fail-soft value of (P, O) for the side to move; meaningless when cut_above(within) is
  // true on return (the caller drops it then). `best_move` (root only): the move chosen.
  int node(Worker& w, u64 P, u64 O, int alpha, int beta, bool root, int horizon, SplitPoint* within,
           int* best_move = nullptr) {
    namespace eg = endgame;
    const int empties = 64 - popcount64(P | O);
    if (empties < split_empties_) {
      const SolveResult r = eg::solve_pass<64>(P, O, alpha, beta, table_, order_, horizon, root);
      w.nodes += r.nodes - 1;  // the caller counted (P, O) itself
      if (best_move) *best_move = r.best_move;
      return r.score;
    }
    eg::Frame<64> f;
    int value = 0;
    if (!eg::enter(f, P, O, alpha, beta, root, table_, order_, horizon, w.nodes, value)) {
      if (best_move) *best_move = kNoMove;
      return value;
    }
    const bool root_choice = root && !f.passed;
    bool first = true;
    for (;;) {
      if (f.next == f.count && f.rest) {  // the table's move did not cut off: order the others now
        const u64 rest = f.rest;
        f.rest = 0;
        int cut = 0;
        if (!eg::order_rest(f, rest, false, table_, order_, horizon, cut)) {
          f.best = cut;
          f.best_move = kNoMove;
          break;
        }
      }
      if (f.next == f.count) break;
      if (!first && someone_can_help(within)) {
        split(w, f, horizon, root_choice, within);
        if (cut_above(within)) return 0;
        break;
      }
      const int sq = f.moves[f.next++];
      const int lo = eg::root_tie_alpha(root_choice, f.alpha, f.best_move, sq);
      int v = 0;
      if (!search_move(w, f.P, f.O, sq, lo, f.beta, first, horizon, within, v)) return 0;
      first = false;
      if (v > f.best || (root_choice && v == f.best && sq < f.best_move)) {
        f.best = v;
        f.best_move = sq;
        if (v > f.alpha) f.alpha = v;
        if (f.alpha >= f.beta) break;
      }
    }
    if (f.empties >= eg::kHashEmpties)
      table_->store_result(f.P, f.O, f.empties, horizon, f.entry_alpha, f.beta, f.best, f.best_move);
    if (best_move) *best_move = f.passed ? kPassMove : f.best_move;
    return f.passed ? -f.best : f.best;
  }

  // Searches move `sq` of (P, O) in the window (lo, hi): the full window for a node's first
  // move, else a null window and, when that proves the move better than lo, a re-search from
  // the bound it proved (raised to the split point's alpha when that has moved on: `sp`). The
  // move's value for the side to move at (P, O) goes to `v`; false when a cut-off above has
  // made it moot.
  bool search_move(Worker& w, u64 P, u64 O, int sq, int lo, int hi, bool first, int horizon, SplitPoint* within, int& v,
                   SplitPoint* sp = nullptr) {
    const u64 flipped = othello::flips(P, O, sq);
    const u64 cp = O & ~flipped, co = P | flipped | (u64{1} << sq);
    ++w.nodes;
    if (first || hi - lo <= 1) {
      v = -node(w, cp, co, -hi, -lo, false, horizon, within);
      return !cut_above(within);
    }
    v = -node(w, cp, co, -lo - 1, -lo, false, horizon, within);
    if (cut_above(within)) return false;
    if (v <= lo || v >= hi) return true;
    int from = v - 1;
    if (sp) {
      std::lock_guard lock(sp->m);
      const int now = endgame::root_tie_alpha(sp->root_choice, sp->alpha, sp->best_move, sq);
      from = std::max(from, now);
      hi = sp->beta;
    }
    if (from >= hi) return true;  // (cannot happen while the split point is not cut off)
    ++w.nodes;
    v = -node(w, cp, co, -hi, -from, false, horizon, within);
    return !cut_above(within);
  }

  // Offers f's remaining moves to idle threads, searches them with them, and waits until all
  // are done; f then holds the node's result.
  void split(Worker& w, endgame::Frame<64>& f, int horizon, bool root_choice, SplitPoint* within) {
    SplitPoint sp;
    sp.P = f.P;
    sp.O = f.O;
    sp.horizon = horizon;
    sp.root_choice = root_choice;
    sp.parent = within;
    sp.alpha = f.alpha;
    sp.beta = f.beta;
    sp.best = f.best;
    sp.best_move = f.best_move;
    for (int i = f.next; i < f.count; ++i) sp.moves[sp.count++] = f.moves[i];
    f.next = f.count;
    {
      std::lock_guard lock(list_mutex_);
      active_.push_back(&sp);
      open_count_.fetch_add(1, std::memory_order_relaxed);  // (count >= 1)
    }
    work_at(w, sp);
    set_idle(&sp, true);
    for (;;) {
      if (sp.helpers.load() == 0) {  // (checked again under the lock: a helper may be joining)
        std::lock_guard lock(list_mutex_);
        if (sp.helpers.load() == 0) {
          active_.erase(std::find(active_.begin(), active_.end(), &sp));
          break;
        }
      }
      help_once(w, &sp);
    }
    set_idle(&sp, false);
    std::lock_guard lock(sp.m);
    f.best = sp.best;
    f.best_move = sp.best_move;
    f.alpha = sp.alpha;
  }

  // Takes sp's moves one at a time until none are left or it is cut off.
  void work_at(Worker& w, SplitPoint& sp) {
    for (;;) {
      int sq, lo, hi;
      {
        std::lock_guard lock(sp.m);
        const int i = sp.next.load(std::memory_order_relaxed);
        if (sp.cut.load(std::memory_order_relaxed) || i == sp.count) return;
        sp.next.store(i + 1, std::memory_order_relaxed);
        if (i + 1 == sp.count) open_count_.fetch_sub(1, std::memory_order_relaxed);  // its last move
        sq = sp.moves[i];
        lo = endgame::root_tie_alpha(sp.root_choice, sp.alpha, sp.best_move, sq);
        hi = sp.beta;
      }
      if (cut_above(sp.parent)) return;
      int v = 0;
      if (!search_move(w, sp.P, sp.O, sq, lo, hi, false, sp.horizon, &sp, v, &sp)) return;
      std::lock_guard lock(sp.m);
      if (sp.cut.load(std::memory_order_relaxed)) return;
      if (v > sp.best || (sp.root_choice && v == sp.best && sq < sp.best_move)) {
        sp.best = v;
        sp.best_move = sq;
        if (v > sp.alpha) sp.alpha = v;
        if (sp.alpha >= sp.beta) {
          sp.cut.store(true, std::memory_order_relaxed);
          if (sp.next.load(std::memory_order_relaxed) < sp.count)  // moves no one will take
            open_count_.fetch_sub(1, std::memory_order_relaxed);
        }
      }
    }
  }

  // A split point with moves left (below `ancestor` when given), joined: its helpers count
  // includes the caller, who leaves it with helpers.fetch_sub(1) when done.
  SplitPoint* find_work(const SplitPoint* ancestor) {
    // Without the lock first: idle threads call this in a loop, and the lock is the one busy
    // threads take to split.
    if (open_count_.load(std::memory_order_relaxed) == 0) return nullptr;
    std::lock_guard lock(list_mutex_);
    for (SplitPoint* sp : active_) {
      if (sp->next.load(std::memory_order_relaxed) >= sp->count || cut_above(sp)) continue;
      if (ancestor && (sp == ancestor || !below(sp, ancestor))) continue;
      sp->helpers.fetch_add(1);
      return sp;
    }
    return nullptr;
  }

  // Whether a thread could join a split point made at a node under `within`: a helper with
  // nothing to do (it joins anything), or the owner of a split point above, waiting for its
  // helpers (it joins only below its own). An owner waiting elsewhere could not join, so a
  // split made for it would only cost its locks.
  bool someone_can_help(const SplitPoint* within) const {
    if (free_.load(std::memory_order_relaxed) > 0) return true;
    for (; within; within = within->parent)
      if (within->owner_waiting.load(std::memory_order_relaxed)) return true;
    return false;
  }

  // An idle thread's step: joins a split point with moves left (for the owner waiting at
  // `waiting_at`, only below it), searches moves there until none are left, and leaves it; or
  // yields when there is none. Free helpers pass null.
  // (The caller is counted idle around this: free_ for a helper, waiting_at->owner_waiting
  // for an owner; both are cleared while it works.)
  void help_once(Worker& w, SplitPoint* waiting_at) {
    SplitPoint* sp = find_work(waiting_at);
    if (!sp) {
      std::this_thread::yield();
      return;
    }
    set_idle(waiting_at, false);
    work_at(w, *sp);
    sp->helpers.fetch_sub(1);  // the last access: its owner may free it from here on
    set_idle(waiting_at, true);
  }
  void set_idle(SplitPoint* waiting_at, bool idle) {
    if (waiting_at)
      waiting_at->owner_waiting.store(idle, std::memory_order_relaxed);
    else
      free_.fetch_add(idle ? 1 : -1, std::memory_order_relaxed);
  }

  void helper_loop(Worker& w) {
    const double cpu0 = thread_cpu_seconds();
    set_idle(nullptr, true);
    while (!done_.load(std::memory_order_relaxed)) help_once(w, nullptr);
    set_idle(nullptr, false);
    w.cpu_seconds = thread_cpu_seconds() - cpu0;
  }

  int threads_;
  int split_empties_;
  endgame::HashTable* table_;
  const Order* order_;
  std::vector<Worker> workers_;
  u64 root_visits_ = 0;
  double helper_cpu_seconds_ = 0;
  std::mutex list_mutex_;
  std::vector<SplitPoint*> active_;
  std::atomic<int> open_count_{0};  // split points with moves left to take, not cut off
  std::atomic<int> free_{0};        // helpers looking for work (they join any split point)
  std::atomic<bool> done_{false};
};

}  // namespace ef::search
