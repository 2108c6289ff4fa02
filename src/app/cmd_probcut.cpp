// evalforge probcut --agent FILE --out FILE [--positions N] [--min-depth D] [--max-depth D]
//                   [--threshold T] [--seed S] [--threads T]
// Fits ProbCut's parameters for an agent's evaluator (games/othello/probcut.hpp, docs/search.md) and
// writes them; an agent uses them with `probcut = "FILE"` in its .toml.
#include <fmt/core.h>
#include <memory>
#include <string>
#include <thread>
#include "app/commands.hpp"
#include "core/cpu_time.hpp"
#include "evalforge/core/error.hpp"
#include "evalforge/games/othello/agent_file.hpp"
#include "games/othello/probcut.hpp"

namespace ef::app {

namespace {

struct ProbCutArgs {
  std::string agent, out;
  play::ProbCutFitOptions fit;
};

void run_probcut(const ProbCutArgs& args) {
  const play::OthelloAgent agent = play::load_agent(args.agent);
  play::ProbCutFitOptions o = args.fit;
  if (o.threads <= 0) o.threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  fmt::print("fitting ProbCut for {} on {} sample positions of its own play, depths {}..{}, {} thread(s)\n", args.agent,
             o.positions, o.min_depth, o.max_depth, o.threads);
  const play::ProbCutFit fit = play::fit_probcut(agent, o);
  // An n-tuple network's unit is 2^-16 disc: show discs then.
  const bool discs = agent.kind == play::OthelloEvaluator::kNtuple;
  const double unit = discs ? 65536.0 : 1.0;
  fmt::print("{:>5} {:>7} {:>6} {:>8} {:>9} {:>8} {:>9} {:>7}\n", "depth", "shallow", "phase", "samples", "a",
             discs ? "b discs" : "b", discs ? "sigma dsc" : "sigma", "r");
  for (const play::ProbCutCell& c : fit.cells)
    fmt::print("{:>5} {:>7} {:>6} {:>8} {:>9.4f} {:>8.3f} {:>9.3f} {:>7.4f}{}\n", c.depth,
               search::probcut_shallow_depth(c.depth), c.phase, c.samples, c.a, c.b / unit, c.sigma / unit,
               c.correlation, fit.params.sigma[c.depth][c.phase] > 0 ? "" : "  (no cut)");
  play::save_probcut(fit, args.out);
  fmt::print("wrote {} (use it with probcut = \"{}\" in an agent file)\n", args.out, args.out);
}

}  // namespace

void register_probcut(CLI::App& app) {
  auto args = std::make_shared<ProbCutArgs>();
  CLI::App* cmd = app.add_subcommand(
      "probcut", "Fit ProbCut (selective midgame search) parameters for an agent's evaluator (docs/search.md)");
  cmd->add_option("--agent", args->agent, "Agent file (.toml) or built-in (swh)")->required();
  cmd->add_option("--out", args->out, "Parameter file to write (TOML)")->required();
  cmd->add_option("--positions", args->fit.positions, "Sample positions (from the agent's own play)")
      ->check(CLI::Range(1, 10'000'000))
      ->capture_default_str();
  cmd->add_option("--min-depth", args->fit.min_depth, "Smallest depth that tries a cut")
      ->check(CLI::Range(2, search::kProbCutMaxDepth))
      ->capture_default_str();
  cmd->add_option("--max-depth", args->fit.max_depth, "Largest depth fitted (deeper nodes make no cut)")
      ->check(CLI::Range(2, search::kProbCutMaxDepth))
      ->capture_default_str();
  cmd->add_option("--threshold", args->fit.threshold, "Cut when the prediction clears the window by this many sigmas")
      ->check(CLI::Range(0.01, 9.99))
      ->capture_default_str();
  cmd->add_option("--seed", args->fit.seed, "Seed of the sample positions")->capture_default_str();
  cmd->add_option("--threads", args->fit.threads, "Worker threads (0: all cores; the fit does not depend on it)")
      ->check(CLI::Range(0, 4096))
      ->capture_default_str();
  cmd->callback([args] { run_probcut(*args); });
}

}  // namespace ef::app
