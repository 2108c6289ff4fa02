#include "runs/ordering_network.hpp"
#include <fmt/format.h>
#include <algorithm>
#include <atomic>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <string_view>
#include <unordered_set>
#include "backends/cpu/endgame_solver.hpp"
#include "core/bytes.hpp"
#include "core/parallel.hpp"
#include "evalforge/core/error.hpp"
#include "evalforge/core/files.hpp"
#include "evalforge/core/memory_check.hpp"
#include "evalforge/core/rng.hpp"
#include "evalforge/games/othello/agent_file.hpp"
#include "evalforge/games/othello/endgame.hpp"
#include "evalforge/games/othello/game.hpp"
#include "evalforge/games/othello/ntuple_evaluator.hpp"
#include "evalforge/games/othello/squares.hpp"

namespace ef {

namespace {

struct Node {
  u64 P, O;
};

// Records the exact passes' nodes of the sampled range (the solver's visit hook).
struct Recorder final : cpu::NodeVisitor {
  std::vector<Node> nodes;
  int min_empties = 0, max_empties = 0;
  void visit(u64 P, u64 O, int empties) override {
    if (empties >= min_empties && empties <= max_empties) nodes.push_back({P, O});
  }
};

struct PairHash {
  std::size_t operator()(const std::pair<u64, u64>& p) const {
    return static_cast<std::size_t>(p.first * 0x9E3779B97F4A7C15ull ^ (p.second + 0x632BE59BD9B4E019ull));
  }
};

// The root of `game` (P to move) at root_empties empties, or false: the game ends before it,
// or the game passes through an excluded position anywhere, before the root or after it (a
// later position is in the root's tree); `was_excluded` says which.
bool root_of_game(const data::Game& game, int root_empties,
                  const std::unordered_set<std::pair<u64, u64>, PairHash>& excluded, u64& P, u64& O,
                  bool& was_excluded) {
  othello::Board board;
  bool have_root = false;
  was_excluded = excluded.count({board.black(), board.white()}) > 0;
  for (const std::uint8_t square : game.moves) {
    if (board.empties() == root_empties && !have_root) {
      if (!board.can_move()) board.pass();
      have_root = true;
      P = board.player;
      O = board.opponent;
    }
    if (!board.can_move()) board.pass();
    if (!board.play(square)) break;  // (games from load_games replay cleanly)
    if (excluded.count({board.black(), board.white()})) was_excluded = true;
  }
  return have_root && !was_excluded;
}

// The first and last move number of each network of `base` (-1 for a network no move uses).
std::pair<std::vector<int>, std::vector<int>> move_ranges(const play::OthelloAgent& base) {
  const int n_networks = static_cast<int>(base.networks.size());
  std::vector<int> first(n_networks, -1), last(n_networks, -1);
  for (int t = 0; t < ntuple::kMoveNumbers; ++t) {
    const int n = base.network_of_move[t];
    if (first[n] < 0) first[n] = t;
    last[n] = t;
  }
  return {first, last};
}

// One sample as a line of a samples file or journal: the .obf position in the solver's colours
// with its best move and exact score. `file` names the file in the error for a sample without
// a best move.
void append_sample_line(std::string& text, const TreeSample& s, const std::string& file) {
  if (s.best_move < 0 || s.best_move > 63)
    fail("{}: the sample of root {} has no best move (square {})", file, s.root, s.best_move);
  const ntuple::SolverView view = ntuple::solver_view(s.P, s.O);
  data::append_obf_position(text, view.p_black ? s.P : s.O, view.p_black ? s.O : s.P,
                            view.p_black ? othello::kBlack : othello::kWhite);
  text += fmt::format(" {}:{:+d};\n", square_name(s.best_move), s.score);
}

// The sample of such a line (blanks trimmed), of root `root`; errors name file:number.
TreeSample parse_sample_line(std::string_view text, std::uint32_t root, const std::string& file, std::size_t number) {
  data::ObfPosition p;
  const std::string problem = data::parse_obf_line(text, p);
  if (!problem.empty()) fail("{}:{}: {}", file, number, problem);
  if (p.move_scores.size() != 1 || p.move_scores[0].first < 0)
    fail("{}:{}: a sample lists one move, its best (a square), with its exact score; this line lists {}", file, number,
         p.move_scores.empty()      ? "none"
         : p.move_scores.size() > 1 ? "several"
                                    : "a pass");
  TreeSample s;
  s.P = p.side == othello::kBlack ? p.black : p.white;
  s.O = p.side == othello::kBlack ? p.white : p.black;
  s.best_move = p.move_scores[0].first;
  s.score = p.move_scores[0].second;
  s.empties = 64 - popcount64(p.black | p.white);
  s.root = root;
  return s;
}

// A whole number (u32) of a line, or nullopt.
std::optional<std::uint32_t> parse_u32(std::string_view text) {
  std::uint32_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc{} || end != text.data() + text.size()) return std::nullopt;
  return value;
}

}  // namespace

void check_tree_sample_options(const TreeSampleOptions& o) {
  constexpr int kLeast = search::endgame::kSmallEmpties + 1;  // the solver's frames start above kSmallEmpties
  if (o.roots < 1 || o.roots > 10'000'000) fail_input("roots", "{} is outside [1, 10000000]", o.roots);
  if (o.min_empties < kLeast || o.min_empties > 40)
    fail_input("min_empties", "{} is outside [{}, 40] (the solver visits no node of fewer empties)", o.min_empties,
               kLeast);
  if (o.max_empties < o.min_empties || o.max_empties > 40)
    fail_input("max_empties", "{} is outside [{}, 40] (at least the fewest empties sampled)", o.max_empties,
               o.min_empties);
  if (o.root_empties <= o.max_empties || o.root_empties > 40)
    fail_input("root_empties", "{} is outside [{}, 40] (above the most empties sampled)", o.root_empties,
               o.max_empties + 1);
  if (o.per_level < 0 || o.per_level > 1000) fail_input("per_level", "{} is outside [0, 1000]", o.per_level);
  if (o.deep_per_level < 0 || o.deep_per_level > 1000)
    fail_input("deep_per_level", "{} is outside [0, 1000]", o.deep_per_level);
  if (o.table_bits < 10 || o.table_bits > 28) fail_input("table_bits", "{} is outside [10, 28]", o.table_bits);
  if (o.threads < 1) fail_input("threads", "{} (expected at least 1)", o.threads);
}

bool tree_root_held_out(std::uint32_t root) { return (root * 2654435761u >> 7) % 20 == 0; }

TreeSamples sample_solver_trees(const std::vector<data::Game>& games, const cpu::SolverOrdering& order,
                                const TreeSampleOptions& o) {
  check_tree_sample_options(o);
  // Each thread's table, and at most per_level (deep_per_level) samples a root and level.
  double samples_a_root = 0;
  for (int e = o.min_empties; e <= o.max_empties; ++e)
    samples_a_root += e < o.deep_empties ? o.per_level : o.deep_per_level;
  (void)check_memory(
      "ordering",
      {items_memory(fmt::format("transposition tables, one a thread of 2^{} entries", o.table_bits), o.threads,
                    std::ldexp(1.0, o.table_bits) * sizeof(search::endgame::HashEntry)),
       items_memory("tree samples (at most)",
                    std::min(static_cast<double>(o.roots), static_cast<double>(games.size())) * samples_a_root,
                    sizeof(TreeSample))},
      "a smaller --table-bits, fewer --threads or fewer --roots");
  std::unordered_set<std::pair<u64, u64>, PairHash> excluded;
  for (const auto& [black, white] : o.excluded)
    for (int s = 0; s < 8; ++s) excluded.insert({othello::symmetry(black, s), othello::symmetry(white, s)});

  // Root j comes from game j * games / roots: spread over the whole database (files are often
  // in date order).
  const std::size_t roots = std::min<std::size_t>(static_cast<std::size_t>(o.roots), games.size());
  std::vector<std::vector<TreeSample>> per_root(roots);
  std::vector<char> solved(roots, 0), skipped_excluded(roots, 0), done_before(roots, 0);
  for (const TreeRootOutcome& r : o.resumed) {
    if (r.root >= roots) fail_input("resumed", "root {} is outside the {} roots of this sampling", r.root, roots);
    if (done_before[r.root]) fail_input("resumed", "root {} is given twice", r.root);
    done_before[r.root] = 1;
    solved[r.root] = r.kind == TreeRootOutcome::Kind::kSolved;
    skipped_excluded[r.root] = r.kind == TreeRootOutcome::Kind::kExcluded;
    per_root[r.root] = r.samples;
  }
  std::atomic<std::size_t> next{0};
  std::atomic<int> done{static_cast<int>(o.resumed.size())};
  std::mutex progress_mutex;
  run_parallel(o.threads, [&] {
    std::vector<search::endgame::HashEntry> entries(std::size_t{1} << o.table_bits);
    search::endgame::HashTable table{entries.data(), entries.size() - 1, 0};
    // One thread per solve, in the fastest copy of the solver this CPU runs (the copies search
    // the same tree: the samples do not depend on which).
    Recorder recorder;
    recorder.min_empties = o.min_empties;
    recorder.max_empties = o.max_empties;
    const auto recording = cpu::make_endgame_solver(1, &table, &order, search::endgame::kSplitEmpties,
                                                    cpu::default_solver_isa(), &recorder);
    const auto solver = cpu::make_endgame_solver(1, &table, &order);
    std::vector<Node> at_level;
    for (std::size_t j; (j = next++) < roots;) {
      if (done_before[j]) continue;
      const data::Game& game = games[j * games.size() / roots];
      u64 P = 0, O = 0;
      bool was_excluded = false;
      if (root_of_game(game, o.root_empties, excluded, P, O, was_excluded)) {
        recorder.nodes.clear();
        recording->solve(P, O);
        solved[j] = 1;
        for (int e = o.min_empties; e <= o.max_empties; ++e) {
          at_level.clear();
          for (const auto& n : recorder.nodes)
            if (64 - popcount64(n.P | n.O) == e) at_level.push_back(n);
          // Distinct positions: a re-search or a transposition visits one again.
          std::sort(at_level.begin(), at_level.end(),
                    [](const Node& a, const Node& b) { return a.P != b.P ? a.P < b.P : a.O < b.O; });
          at_level.erase(std::unique(at_level.begin(), at_level.end(),
                                     [](const Node& a, const Node& b) { return a.P == b.P && a.O == b.O; }),
                         at_level.end());
          // A partial Fisher-Yates shuffle: `want` distinct nodes, uniformly.
          const int want =
              std::min<int>(e >= o.deep_empties ? o.deep_per_level : o.per_level, static_cast<int>(at_level.size()));
          Rng rng(o.seed, Purpose::kSolverTree, static_cast<u32>(j), static_cast<u32>(e));
          for (int k = 0; k < want; ++k) {
            const std::size_t pick = k + rng.below(static_cast<u32>(at_level.size() - k));
            std::swap(at_level[k], at_level[pick]);
            const auto& n = at_level[k];
            const search::SolveResult exact = solver->solve(n.P, n.O);
            per_root[j].push_back({n.P, n.O, exact.score, e, static_cast<std::uint32_t>(j), exact.best_move});
          }
        }
      } else if (was_excluded) {
        skipped_excluded[j] = 1;
      }
      const int d = ++done;
      if (o.on_root || o.progress) {
        std::lock_guard lock(progress_mutex);
        if (o.on_root) {
          TreeRootOutcome outcome;
          outcome.root = static_cast<std::uint32_t>(j);
          outcome.kind = solved[j]             ? TreeRootOutcome::Kind::kSolved
                         : skipped_excluded[j] ? TreeRootOutcome::Kind::kExcluded
                                               : TreeRootOutcome::Kind::kNoRoot;
          outcome.samples = per_root[j];
          try {
            o.on_root(outcome);
          } catch (...) {
            next = roots;  // (a full disk): no thread starts another root; the error ends the run
            throw;
          }
        }
        if (o.progress) o.progress(d, static_cast<int>(roots));
      }
    }
  });
  TreeSamples out;
  for (std::size_t j = 0; j < roots; ++j) {
    out.samples.insert(out.samples.end(), per_root[j].begin(), per_root[j].end());
    out.roots += solved[j];
    out.excluded_games += skipped_excluded[j];
  }
  return out;
}

void write_tree_samples(const std::filesystem::path& file, const std::vector<TreeSample>& samples,
                        const std::vector<std::string>& header) {
  std::string text;
  for (const std::string& line : header) text += "% " + line + "\n";
  std::int64_t root = -1;
  for (const TreeSample& s : samples) {
    if (s.root != root) {
      root = s.root;
      text += fmt::format("% root {}\n", root);
    }
    append_sample_line(text, s, file.string());
  }
  write_atomically(file, text);
}

std::vector<TreeSample> read_tree_samples(const std::filesystem::path& file) {
  const std::string bytes = read_file(file, FileKind::kTreeSamples);
  std::vector<TreeSample> samples;
  std::int64_t root = -1;
  std::size_t number = 0;
  for (std::size_t at = 0; at < bytes.size();) {
    const std::size_t end = std::min(bytes.find('\n', at), bytes.size());
    std::string_view text(bytes.data() + at, end - at);
    at = end + 1;
    ++number;
    text = data::trim_obf_blanks(text);
    if (text.empty() || text[0] == '#') continue;
    if (text[0] == '%') {
      // "% root J" starts root J's samples; other comments are skipped.
      std::string_view rest = data::trim_obf_blanks(text.substr(1));
      if (rest.substr(0, 4) != "root") continue;
      rest = data::trim_obf_blanks(rest.substr(4));
      const auto value = parse_u32(rest);
      if (!value) fail("{}:{}: '{}' is not a root number (expected '% root J')", file.string(), number, rest);
      root = *value;
      continue;
    }
    if (root < 0) fail("{}:{}: a sample before any '% root N' line", file.string(), number);
    samples.push_back(parse_sample_line(text, static_cast<std::uint32_t>(root), file.string(), number));
  }
  return samples;
}

std::vector<std::string> tree_sample_identity(const TreeSampleOptions& o, const std::vector<data::Game>& games,
                                              const play::OthelloAgent& base) {
  Fnv1a data, excluded;
  for (const data::Game& g : games) {
    data.add_value(static_cast<u32>(g.moves.size()));
    data.add_bytes(g.moves.data(), g.moves.size());
  }
  for (const auto& [black, white] : o.excluded) {
    excluded.add_value(black);
    excluded.add_value(white);
  }
  return {"journal of an evalforge ordering sampling: resumed by the same command (same data, base agent and options)",
          fmt::format("roots {} root-empties {} sampled {}..{} per-level {} deep-per-level {} deep-empties {} seed {} "
                      "table-bits {}",
                      o.roots, o.root_empties, o.min_empties, o.max_empties, o.per_level, o.deep_per_level,
                      o.deep_empties, o.seed, o.table_bits),
          fmt::format("data {} games {:016x}, excluded {} positions {:016x}, base agent {}", games.size(), data.value(),
                      o.excluded.size(), excluded.value(), play::agent_fingerprint(base))};
}

std::string tree_journal_header(const std::vector<std::string>& identity) {
  std::string text;
  for (const std::string& line : identity) text += "% " + line + "\n";
  return text;
}

namespace {
constexpr std::string_view kKindNames[] = {"solved", "excluded", "none"};  // TreeRootOutcome::Kind's order
}

std::string tree_journal_block(const TreeRootOutcome& r) {
  std::string text = fmt::format("% root {} {}\n", r.root, kKindNames[static_cast<int>(r.kind)]);
  for (const TreeSample& s : r.samples) append_sample_line(text, s, "journal");
  text += fmt::format("% end {}\n", r.root);
  return text;
}

TreeJournal read_tree_journal(const std::filesystem::path& file) {
  const std::string bytes = read_file(file, FileKind::kTreeSamples);
  const std::string name = file.string();
  TreeJournal journal;
  std::optional<TreeRootOutcome> open;  // the block being read
  std::unordered_set<std::uint32_t> seen;
  std::size_t number = 0;
  for (std::size_t at = 0; at < bytes.size();) {
    const std::size_t newline = bytes.find('\n', at);
    if (newline == std::string::npos) {  // a last line cut short: an append that did not finish
      journal.torn = true;
      break;
    }
    std::string_view text = data::trim_obf_blanks(std::string_view(bytes.data() + at, newline - at));
    at = newline + 1;
    ++number;
    if (text.empty()) continue;
    const bool comment = text[0] == '%';
    const std::string_view rest = comment ? data::trim_obf_blanks(text.substr(1)) : std::string_view{};
    if (comment && rest.substr(0, 5) == "root ") {
      const std::string_view fields = data::trim_obf_blanks(rest.substr(5));
      const std::size_t blank = fields.find(' ');
      const auto root = parse_u32(fields.substr(0, blank));
      const std::string_view kind = blank == std::string_view::npos ? "" : data::trim_obf_blanks(fields.substr(blank));
      const auto* found = std::find(std::begin(kKindNames), std::end(kKindNames), kind);
      if (!root || found == std::end(kKindNames))
        fail("{}:{}: '{}' is not the start of a root's block (expected '% root J solved|excluded|none')", name, number,
             text);
      if (open)
        fail("{}:{}: root {}'s block starts before root {}'s has ended (a journal is only ever appended to)", name,
             number, *root, open->root);
      if (!seen.insert(*root).second) fail("{}:{}: root {} has a block already", name, number, *root);
      open = TreeRootOutcome{*root, static_cast<TreeRootOutcome::Kind>(found - std::begin(kKindNames)), {}};
    } else if (comment && rest.substr(0, 4) == "end ") {
      const auto root = parse_u32(data::trim_obf_blanks(rest.substr(4)));
      if (!root || !open || *root != open->root)
        fail("{}:{}: '{}' ends no open block{}", name, number, text,
             open ? fmt::format(" (root {}'s is open)", open->root) : std::string{});
      journal.roots.push_back(std::move(*open));
      open.reset();
    } else if (comment && !open && journal.roots.empty()) {
      journal.identity.emplace_back(rest);  // the identity lines before the first block
    } else if (!comment && open && open->kind == TreeRootOutcome::Kind::kSolved) {
      open->samples.push_back(parse_sample_line(text, open->root, name, number));
    } else {
      fail("{}:{}: '{}' is not a line of a sampling journal here (a sample belongs in a solved root's block)", name,
           number, text);
    }
  }
  if (open) journal.torn = true;  // its end line never made it to the disk
  return journal;
}

std::vector<int> networks_within(const play::OthelloAgent& base, const TreeSampleOptions& sampled) {
  if (base.kind != play::OthelloEvaluator::kNtuple || base.networks.empty())
    fail_input("base", "agent {} has no n-tuple networks to train", base.name);
  std::vector<int> chosen;
  for (int n = 0; n < static_cast<int>(base.networks.size()); ++n) {
    bool used = false, inside = true;
    for (int t = 0; t < ntuple::kMoveNumbers; ++t)
      if (base.network_of_move[t] == n) {
        used = true;
        if (60 - t < sampled.min_empties || 60 - t > sampled.max_empties) inside = false;
      }
    if (used && inside) chosen.push_back(n);
  }
  if (chosen.empty())
    fail_input("min_empties",
               "no network of agent {} values only positions of {}..{} empties (the sampled range): nothing to "
               "train",
               base.name, sampled.min_empties, sampled.max_empties);
  return chosen;
}

play::OthelloAgent with_tree_shapes(const play::OthelloAgent& base, const TreeSampleOptions& sampled,
                                    const std::vector<ntuple::Shape>& shapes, const std::string& shapes_file) {
  play::OthelloAgent shaped = base;
  if (shapes.empty()) return shaped;
  const std::vector<int> chosen = networks_within(base, sampled);
  const auto [first, last] = move_ranges(base);
  for (const int n : chosen) {
    const ntuple::Shape* pick = nullptr;
    int pick_distance = 0;
    for (const ntuple::Shape& shape : shapes) {
      if (shape.move < first[n] || shape.move > last[n]) continue;
      const int distance = std::abs(2 * shape.move - first[n] - last[n]);  // to the middle, doubled
      if (!pick || distance < pick_distance || (distance == pick_distance && shape.move < pick->move)) {
        pick = &shape;
        pick_distance = distance;
      }
    }
    if (!pick)
      fail_input("shapes",
                 "{} has no shape searched for a move within {}-{} (network {} of agent {}; a shape search's "
                 "best_shapes.json gives each shape its move)",
                 shapes_file, first[n], last[n], n, base.name);
    shaped.geometry_names.resize(shaped.geometries.size());
    shaped.geometries.push_back(pick->geometry());
    shaped.geometry_names.push_back(pick->name.empty() ? fmt::format("move-{}", pick->move) : pick->name);
    shaped.networks[n].geometry = static_cast<int>(shaped.geometries.size()) - 1;
    shaped.networks[n].weights.assign(shaped.geometries.back().num_weights(), 0);  // trained from zero
  }
  return shaped;
}

TreeTraining train_on_solver_trees(const play::OthelloAgent& base, const TreeSampleOptions& sampled,
                                   const std::vector<TreeSample>& samples, const TrainParams& params,
                                   TrainBackend& backend, const std::vector<ntuple::Shape>& shapes,
                                   const std::string& shapes_file) {
  const std::vector<int> chosen = networks_within(base, sampled);
  const auto [first, last] = move_ranges(base);
  const play::OthelloAgent shaped = with_tree_shapes(base, sampled, shapes, shapes_file);

  // One resident position set per network: the samples of its moves as (black, white) with the
  // label black - white, in the colours the solver's evaluator uses (ntuple::solver_view).
  const std::size_t n_networks = base.networks.size();
  std::vector<PositionData> data(n_networks);
  std::vector<std::vector<std::uint32_t>> train_ids(n_networks), held_ids(n_networks);
  for (const TreeSample& s : samples) {
    const ntuple::SolverView view = ntuple::solver_view(s.P, s.O);
    const int n = base.network_of_move[view.move];
    if (std::find(chosen.begin(), chosen.end(), n) == chosen.end()) continue;
    PositionData& d = data[n];
    (tree_root_held_out(s.root) ? held_ids : train_ids)[n].push_back(static_cast<std::uint32_t>(d.size()));
    d.black.push_back(view.p_black ? s.P : s.O);
    d.white.push_back(view.p_black ? s.O : s.P);
    d.label.push_back(ntuple::label_to_fixed(view.p_black ? s.score : -s.score));
  }
  std::vector<TrainJob> jobs;
  std::vector<int> job_network;
  for (const int n : chosen) {
    if (train_ids[n].empty())
      fail_input("samples", "no training sample for network {} of agent {} (moves {}-{}): nothing to train it on", n,
                 base.name, first[n], last[n]);
    TrainJob j;
    j.geometry = &shaped.geometries[static_cast<std::size_t>(shaped.networks[n].geometry)];
    j.positions = backend.add_positions(data[n]);
    j.train_ids = train_ids[n];
    j.eval_ids = held_ids[n].empty() ? train_ids[n] : held_ids[n];
    j.params = params;
    j.stream[0] = static_cast<u32>(n);
    j.return_weights = true;
    jobs.push_back(j);
    job_network.push_back(n);
  }
  std::vector<TrainResult> results(jobs.size());
  backend.train(jobs, results);

  TreeTraining out{shaped, {}};
  for (std::size_t k = 0; k < jobs.size(); ++k)
    out.agent.networks[job_network[k]].weights = std::move(results[k].weights);
  // Held-out errors of the base and the trained networks, through the solver's own evaluator.
  const ntuple::Evaluator base_eval = base.ntuple_evaluator(), trained_eval = out.agent.ntuple_evaluator();
  const cpu::SolverOrdering base_order(base_eval), trained_order(trained_eval);
  for (const int n : chosen) {
    TreeNetworkReport r;
    r.network = n;
    r.first_move = first[n];
    r.last_move = last[n];
    r.train = train_ids[n].size();
    r.held_out = held_ids[n].size();
    double mean = 0;  // the constant predictor: the training labels' mean
    for (const std::uint32_t i : train_ids[n])
      mean += static_cast<double>(data[n].label[i]) / static_cast<double>(ntuple::kOne);
    mean /= static_cast<double>(r.train);
    for (const std::uint32_t i : held_ids[n]) {
      const u64 black = data[n].black[i], white = data[n].white[i];
      const double y = static_cast<double>(data[n].label[i]) / static_cast<double>(ntuple::kOne);
      // value(P, O) is for P, the side the network's colours put to move: black at an even move.
      const bool black_moves = ntuple::solver_view(black, white).p_black;
      auto black_value = [&](const cpu::SolverOrdering& ord) {
        const int v = black_moves ? ord.value(black, white) : -ord.value(white, black);
        return static_cast<double>(v) / search::endgame::kOrderUnit;
      };
      const double b = black_value(base_order), t = black_value(trained_order);
      r.mse_constant += (mean - y) * (mean - y);
      r.mse_base += (b - y) * (b - y);
      r.mse_trained += (t - y) * (t - y);
    }
    if (r.held_out) {
      r.mse_constant /= static_cast<double>(r.held_out);
      r.mse_base /= static_cast<double>(r.held_out);
      r.mse_trained /= static_cast<double>(r.held_out);
    }
    out.networks.push_back(r);
  }
  return out;
}

}  // namespace ef
