// evalforge ordering --data FILES... --out FILE.toml [--base AGENT] [--roots N] [--root-empties E]
//                    [--min-empties A] [--max-empties B] [--per-level K] [--deep-per-level K]
//                    [--deep-empties E] [--exclude FILE.obf]... [--lr X] [--epochs N] [--seed S]
//                    [--threads T]
// Retrains the exact solver's ordering network on positions of its own search trees, labelled
// by exact solves (runs/ordering_network.hpp, docs/search.md). scripts/make-ordering-network.sh
// runs it to make the solver's built-in network from the WTHOR-trained one.
#include <fmt/core.h>
#include <memory>
#include <string>
#include <vector>
#include "app/commands.hpp"
#include "app/options.hpp"
#include "backends/backend.hpp"
#include "backends/cpu/network_eval.hpp"
#include "core/error.hpp"
#include "core/parallel.hpp"
#include "data/datasets.hpp"
#include "data/games.hpp"
#include "games/othello/agent_file.hpp"
#include "runs/ordering_network.hpp"

namespace ef::app {

namespace {

struct OrderingArgs {
  std::vector<std::string> data, exclude;
  std::string base, out;
  TreeSampleOptions sample;
  TrainArgs train;
  int threads = 0;
};

void run_ordering(const OrderingArgs& args) {
  TreeSampleOptions o = args.sample;
  o.threads = resolve_threads(args.threads);
  check_tree_sample_options(o);
  TrainParams params = args.train.resolve();
  if (!args.train.epochs && args.train.config.empty()) params.epochs = 8;  // what the built-in network uses
  const std::string base_file = args.base.empty() ? builtin_ordering_network().string() : args.base;
  const play::OthelloAgent base = play::load_agent(base_file);
  if (base.kind != play::OthelloEvaluator::kNtuple) fail("--base {}: not an n-tuple agent", base_file);
  // What sampling (minutes to hours) would only find out at its end, first: a range that holds
  // no whole network, an output that cannot be written.
  networks_within(base, o);
  const std::filesystem::path out_dir = std::filesystem::path(args.out).parent_path();
  require_writable_directory(out_dir.empty() ? std::filesystem::path(".") : out_dir, "--out");
  for (const std::filesystem::path& file : data::resolve_data_specs(args.exclude)) {
    const std::vector<data::ObfPosition> positions = data::read_obf(file);  // throws file:line: what
    if (positions.empty()) fail("--exclude {}: no positions", file.string());
    for (const data::ObfPosition& p : positions) o.excluded.emplace_back(p.black, p.white);
  }
  const data::GameDatabase db = load_data_files(args.data, {}, true);
  fmt::print(stderr,
             "{} games; {} roots at {} empties; sampling {}..{} empties, {} per root and level ({} from {} up)\n",
             db.games.size(), std::min<std::size_t>(o.roots, db.games.size()), o.root_empties, o.min_empties,
             o.max_empties, o.per_level, o.deep_per_level, o.deep_empties);
  o.progress = [](int done, int total) {
    if (done % 100 == 0 || done == total) fmt::print(stderr, "  {}/{} roots solved\n", done, total);
  };
  const ntuple::Evaluator evaluator = base.ntuple_evaluator();
  const cpu::SolverOrdering order(evaluator);
  o.threads =
      std::min(o.threads, std::max(1, std::min<int>(o.roots, static_cast<int>(db.games.size()))));  // a table each
  const TreeSamples samples = sample_solver_trees(db.games, order, o);
  fmt::print("{} roots solved ({} games skipped: they pass through an --exclude position), {} samples\n", samples.roots,
             samples.excluded_games, samples.samples.size());

  auto backend = make_backend("cpu", o.threads);
  const TreeTraining trained = train_on_solver_trees(base, o, samples.samples, params, *backend);
  fmt::print("{:>7} {:>7} {:>8} {:>8} {:>12} {:>12} {:>12}\n", "network", "moves", "train", "held-out", "MSE constant",
             "MSE base", "MSE trained");
  for (const TreeNetworkReport& r : trained.networks)
    fmt::print("{:>7} {:>7} {:>8} {:>8} {:>12.1f} {:>12.1f} {:>12.1f}\n", r.network,
               fmt::format("{}-{}", r.first_move, r.last_move), r.train, r.held_out, r.mse_constant, r.mse_base,
               r.mse_trained);
  fmt::print("(MSE in discs^2 on the held-out roots' samples, the solver's view; other networks as in {})\n",
             base_file);
  play::OthelloAgent agent = trained.agent;
  agent.name = std::filesystem::path(args.out).stem().string();
  const std::filesystem::path net = play::save_agent(agent, args.out);
  fmt::print("wrote {} and {} (use it with evalforge solve --ordering {})\n", args.out, net.string(), args.out);
}

}  // namespace

void register_ordering(CLI::App& app) {
  auto args = std::make_shared<OrderingArgs>();
  CLI::App* cmd = app.add_subcommand(
      "ordering", "Retrain the exact solver's ordering network on its own search trees, exact labels (docs/search.md)");
  cmd->add_option("--data", args->data, "Game records the root positions come from (files or data-set names)")
      ->required()
      ->take_all();
  cmd->add_option("--out", args->out, "Agent file to write (.toml; its .efnet beside it)")->required();
  cmd->add_option("--base", args->base,
                  "The n-tuple agent to start from: it orders the sampled solves, and its networks outside the "
                  "sampled empties are kept (default: networks/ordering/edax.toml)");
  TreeSampleOptions& s = args->sample;
  cmd->add_option("--roots", s.roots, "Root positions (games spread evenly over the data)")->capture_default_str();
  cmd->add_option("--root-empties", s.root_empties, "Empties of each root position")->capture_default_str();
  cmd->add_option("--min-empties", s.min_empties, "Fewest empties of a sampled node")->capture_default_str();
  cmd->add_option("--max-empties", s.max_empties,
                  "Most empties of a sampled node; the networks whose moves all lie within min..max are trained")
      ->capture_default_str();
  cmd->add_option("--per-level", s.per_level, "Nodes drawn per root and number of empties")->capture_default_str();
  cmd->add_option("--deep-per-level", s.deep_per_level, "The same from --deep-empties up (exact solves cost more)")
      ->capture_default_str();
  cmd->add_option("--deep-empties", s.deep_empties, "Where --deep-per-level takes over")->capture_default_str();
  cmd->add_option("--exclude", args->exclude,
                  "Positions (.obf file or data-set name, e.g. ffo) whose games give no root: keeps a benchmark "
                  "out of the data; repeatable");
  cmd->add_option("--seed", s.seed, "Seed of the draws")->capture_default_str();
  cmd->add_option("--table-bits", s.table_bits, "Transposition table of each thread: 2^bits entries")
      ->capture_default_str();
  cmd->add_option("--threads", args->threads, "Worker threads (0: all cores); the result does not depend on it")
      ->check(CLI::Range(0, 4096))
      ->capture_default_str();
  add_train_options(*cmd, args->train);
  cmd->callback([args] { run_ordering(*args); });
}

}  // namespace ef::app
