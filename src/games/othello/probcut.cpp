#include "games/othello/probcut.hpp"
#include <fmt/format.h>
#include <algorithm>
#include <atomic>
#include <cmath>
#include "core/parallel.hpp"
#include "core/toml_reader.hpp"
#include "evalforge/core/error.hpp"
#include "evalforge/core/files.hpp"
#include "evalforge/core/memory_check.hpp"
#include "evalforge/core/rng.hpp"
#include "evalforge/games/othello/game.hpp"
#include "evalforge/games/othello/tree_search.hpp"

namespace ef::play {

namespace {

// The sample position of index k: a random 8-ply opening and a random count of 0..44 moves of
// the agent at 1 ply (from the position's own stream); false when the game ends first.
template <class E>
bool sample_position(const E& evaluator, u64 seed, u32 k, othello::Position& out) {
  Rng rng(seed, Purpose::kGame, k, 0x9C, 0);
  othello::Position p = othello::random_opening(rng, 8);
  const int plies = static_cast<int>(rng.below(45));
  for (int i = 0; i < plies; ++i) {
    if (!games::Othello::moves(p)) {
      if (!games::Othello::moves(games::Othello::pass(p))) return false;
      p = games::Othello::pass(p);
      continue;
    }
    p = games::Othello::play(p, search::alphabeta<games::Othello>(p, 1, evaluator).best_move);
  }
  if (!games::Othello::moves(p) || p.board.empties() < 10) return false;
  out = p;
  return true;
}

struct Sample {
  int phase = 0;
  bool valid = false;
  double value[search::kProbCutMaxDepth + 1] = {};  // value at each depth 1..max_depth
};

template <class E>
ProbCutFit fit_with(const E& evaluator, const ProbCutFitOptions& o) {
  const int threads = std::max(1, std::min(o.threads, o.positions));
  (void)check_memory(
      "probcut",
      {items_memory("sample positions", o.positions, sizeof(Sample)),
       items_memory(fmt::format("search tables, one a thread of 2^{} entries", o.table_bits), threads,
                    std::ldexp(1.0, o.table_bits) * sizeof(search::TranspositionEntry<games::OthelloKey>))},
      "fewer --positions or --threads");
  std::vector<Sample> samples(static_cast<std::size_t>(o.positions));
  std::atomic<int> next{0};
  const auto worker = [&] {
    std::vector<search::TranspositionEntry<games::OthelloKey>> entries(std::size_t{1} << o.table_bits);
    search::OthelloTable table{entries.data(), entries.size() - 1, 0};
    for (int k; (k = next.fetch_add(1)) < o.positions;) {
      othello::Position p;
      Sample& s = samples[static_cast<std::size_t>(k)];
      if (!sample_position(evaluator, o.seed, static_cast<u32>(k), p)) continue;
      s.valid = true;
      s.phase = search::probcut_phase<games::Othello>(p);
      for (int d = 1; d <= o.max_depth; ++d)
        s.value[d] = search::pvs<games::Othello, E, search::kProbCutMaxDepth>(p, d, evaluator, &table).value;
    }
  };
  run_parallel(threads, worker);

  ProbCutFit fit;
  fit.params.min_depth = o.min_depth;
  fit.params.threshold = static_cast<float>(o.threshold);
  for (int d = o.min_depth; d <= o.max_depth; ++d) {
    const int sd = search::probcut_shallow_depth(d);
    for (int phase = 0; phase < search::kProbCutPhases; ++phase) {
      double n = 0, sx = 0, sy = 0, sxx = 0, sxy = 0, syy = 0;
      for (const Sample& s : samples) {
        if (!s.valid || s.phase != phase) continue;
        const double x = s.value[sd], y = s.value[d];
        n += 1;
        sx += x;
        sy += y;
        sxx += x * x;
        sxy += x * y;
        syy += y * y;
      }
      if (n == 0) continue;
      ProbCutCell c;
      c.depth = d;
      c.phase = phase;
      c.samples = static_cast<int>(n);
      const double vx = sxx - sx * sx / n, vy = syy - sy * sy / n, cxy = sxy - sx * sy / n;
      if (n >= kProbCutMinSamples && vx > 0) {
        c.a = cxy / vx;
        c.b = (sy - c.a * sx) / n;
        double rss = 0;
        for (const Sample& s : samples)
          if (s.valid && s.phase == phase) {
            const double r = s.value[d] - (c.a * s.value[sd] + c.b);
            rss += r * r;
          }
        c.sigma = std::sqrt(rss / n);
        c.correlation = vy > 0 ? cxy / std::sqrt(vx * vy) : 0;
        if (c.a >= 1e-6 && c.a <= 1e6 && c.sigma > 1e-9) {
          fit.params.a[d][phase] = static_cast<float>(c.a);
          fit.params.b[d][phase] = static_cast<float>(c.b);
          fit.params.sigma[d][phase] = static_cast<float>(c.sigma);
        }
      }
      fit.cells.push_back(c);
    }
  }
  return fit;
}

}  // namespace

ProbCutFit fit_probcut(const OthelloAgent& agent, const ProbCutFitOptions& o) {
  if (o.positions < 1 || o.positions > 10'000'000) fail_input("positions", "{} is outside 1..10000000", o.positions);
  if (o.min_depth < 2 || o.min_depth > search::kProbCutMaxDepth)
    fail_input("min_depth", "{} is outside 2..{}", o.min_depth, search::kProbCutMaxDepth);
  if (o.max_depth < o.min_depth || o.max_depth > search::kProbCutMaxDepth)
    fail_input("max_depth", "{} is outside {}..{}", o.max_depth, o.min_depth, search::kProbCutMaxDepth);
  if (!(o.threshold >= 1e-3 && o.threshold <= 10)) fail_input("threshold", "{} is outside 0.001..10", o.threshold);
  agent.validate();
  switch (agent.kind) {
    case OthelloEvaluator::kNtuple: {
      const ntuple::Evaluator e = agent.ntuple_evaluator();
      return fit_with(e, o);
    }
    case OthelloEvaluator::kSwh: return fit_with(swh::Evaluator{}, o);
    case OthelloEvaluator::kFeatures: {
      const features::Evaluator e = features::evaluator_of(agent.features);
      return fit_with(e, o);
    }
    default: fail("probcut: agent '{}' is random: it has no evaluation to fit", agent.name);
  }
}

void save_probcut(const ProbCutFit& fit, const std::filesystem::path& file) {
  std::string t =
      "# evalforge ProbCut parameters (engine/pvs.hpp): the d-ply value ~ a x the s(d)-ply value + b,\n"
      "# residual sigma, in evaluator units; a node fails at once when the prediction clears its\n"
      "# window by threshold x sigma. Written by `evalforge probcut`.\n";
  t += fmt::format("threshold = {}\nmin_depth = {}\n", fit.params.threshold, fit.params.min_depth);
  for (const ProbCutCell& c : fit.cells) {
    if (!(fit.params.sigma[c.depth][c.phase] > 0)) continue;
    t += fmt::format("\n[[cut]]\ndepth = {}\nphase = {}\na = {}\nb = {}\nsigma = {}\nsamples = {}\n", c.depth, c.phase,
                     fit.params.a[c.depth][c.phase], fit.params.b[c.depth][c.phase], fit.params.sigma[c.depth][c.phase],
                     c.samples);
  }
  if (file.has_parent_path()) std::filesystem::create_directories(file.parent_path());
  write_atomically(file, t);
}

std::shared_ptr<const search::ProbCut> load_probcut(const std::filesystem::path& file) {
  if (!std::filesystem::is_regular_file(file)) fail("{}: no such ProbCut parameter file", file.string());
  const toml::table root = parse_toml_file(file.string());
  TableReader r(root, file.string(), "");
  r.allow({"threshold", "min_depth", "cut"});
  auto p = std::make_shared<search::ProbCut>();
  double threshold = p->threshold;
  r.real("threshold", threshold, 1e-3, 10.0);
  p->threshold = static_cast<float>(threshold);
  r.integer("min_depth", p->min_depth, 2, search::kProbCutMaxDepth);
  if (r.has("cut") && !root["cut"].as_array()) fail("{}: must be an array of tables ([[cut]])", r.where("cut"));
  if (const toml::array* cuts = root["cut"].as_array()) {
    for (std::size_t k = 0; k < cuts->size(); ++k) {
      const toml::table* t = cuts->get(k)->as_table();
      if (!t) fail("{}: cut[{}] must be a table", file.string(), k);
      TableReader c(*t, file.string(), fmt::format("cut[{}]", k));
      c.allow({"depth", "phase", "a", "b", "sigma", "samples"});
      int depth = -1, phase = -1, samples = 0;
      double a = 0, b = 0, sigma = 0;
      for (const char* key : {"depth", "phase", "a", "b", "sigma"})
        if (!c.has(key)) fail("{}: required", c.where(key));
      c.integer("depth", depth, 2, search::kProbCutMaxDepth);
      c.integer("phase", phase, 0, search::kProbCutPhases - 1);
      c.real("a", a, 1e-6, 1e6);
      c.real("b", b, -1e12, 1e12);
      c.real("sigma", sigma, 1e-9, 1e12);
      c.integer("samples", samples, 0, 2'000'000'000);
      if (p->sigma[depth][phase] > 0) fail("{}: a second cut for depth {} phase {}", c.where("depth"), depth, phase);
      p->a[depth][phase] = static_cast<float>(a);
      p->b[depth][phase] = static_cast<float>(b);
      p->sigma[depth][phase] = static_cast<float>(sigma);
    }
  }
  return p;
}

}  // namespace ef::play
