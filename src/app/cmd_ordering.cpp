// evalforge ordering (--data FILES... | --samples FILE.obf) --out FILE.toml [--base AGENT]
//                    [--roots N] [--root-empties E] [--min-empties A] [--max-empties B]
//                    [--per-level K] [--deep-per-level K] [--deep-empties E] [--exclude FILE.obf]...
//                    [--samples-out FILE.obf] [--shapes best_shapes.json] [--lr X] [--epochs N]
//                    [--seed S] [--threads T]
// Retrains the exact solver's ordering network on positions of its own search trees, labelled
// by exact solves (runs/ordering_network.hpp, docs/search.md). scripts/make-ordering-network.sh
// runs it to make the solver's built-in network from the WTHOR-trained one. With --samples-out
// the sampling is resumable: a journal (FILE.partial) holds every finished root, and the same
// command run again goes on from it.
#include <fmt/core.h>
#include <algorithm>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>
#include "app/commands.hpp"
#include "app/options.hpp"
#include "backends/cpu/network_eval.hpp"
#include "core/parallel.hpp"
#include "evalforge/backends/backend.hpp"
#include "evalforge/core/error.hpp"
#include "evalforge/core/files.hpp"
#include "evalforge/data/datasets.hpp"
#include "evalforge/data/games.hpp"
#include "evalforge/games/othello/agent_file.hpp"
#include "evalforge/games/othello/shape.hpp"
#include "runs/ordering_network.hpp"

namespace ef::app {

namespace {

struct OrderingArgs {
  std::vector<std::string> data, exclude;
  std::string base, out, samples_in, samples_out, shapes;
  TreeSampleOptions sample;
  TrainArgs train;
  int threads = 0;
  bool range_given = false;  // --min-empties or --max-empties on the command line
};

void train_and_write(const OrderingArgs& args, const play::OthelloAgent& base, const std::string& base_file,
                     const TreeSampleOptions& o, const std::vector<TreeSample>& samples,
                     const std::vector<ntuple::Shape>& shapes, const TrainParams& params, TrainBackend& backend);

void run_ordering(const OrderingArgs& args) {
  TreeSampleOptions o = args.sample;
  o.threads = resolve_threads(args.threads);
  std::vector<TreeSample> from_file;
  if (!args.samples_in.empty()) {
    from_file = read_tree_samples(args.samples_in);  // throws file:line: what
    if (from_file.empty()) fail("--samples {}: no samples", args.samples_in);
    // Unless given, the range is the samples' own: it says which networks are trained.
    if (!args.range_given) {
      const auto [least, most] =
          std::minmax_element(from_file.begin(), from_file.end(),
                              [](const TreeSample& a, const TreeSample& b) { return a.empties < b.empties; });
      o.min_empties = least->empties;
      o.max_empties = most->empties;
    }
    o.root_empties = std::max(o.root_empties, o.max_empties + 1);  // nothing is sampled: only the range counts
  }
  check_tree_sample_options(o);
  TrainParams params = args.train.resolve();
  if (!args.train.epochs && args.train.config.empty()) params.epochs = 8;  // what the built-in network uses
  const std::string base_file = args.base.empty() ? builtin_ordering_network().string() : args.base;
  const play::OthelloAgent base = play::load_agent(base_file);
  if (base.kind != play::OthelloEvaluator::kNtuple) fail("--base {}: not an n-tuple agent", base_file);
  // What sampling (minutes to hours) would only find out at its end, first: a range that holds
  // no whole network, an output that cannot be written.
  networks_within(base, o);
  const std::vector<ntuple::Shape> shapes =
      args.shapes.empty() ? std::vector<ntuple::Shape>{} : ntuple::load_shapes(args.shapes);
  with_tree_shapes(base, o, shapes, args.shapes);  // a network without a shape: an error now, not after sampling
  for (const auto& [file, flag] : {std::pair{args.out, "--out"}, std::pair{args.samples_out, "--samples-out"}}) {
    if (file.empty()) continue;
    const std::filesystem::path dir = std::filesystem::path(file).parent_path();
    require_writable_directory(dir.empty() ? std::filesystem::path(".") : dir, flag);
  }
  auto backend = make_backend("cpu", o.threads);
  if (!args.samples_in.empty()) {
    // Samples written by an earlier run (--samples-out): train only.
    fmt::print("{} samples of {}..{} empties from {}\n", from_file.size(), o.min_empties, o.max_empties,
               args.samples_in);
    train_and_write(args, base, base_file, o, from_file, shapes, params, *backend);
    return;
  }
  if (args.data.empty()) fail("--data: give the game records the roots come from (or --samples FILE)");
  // With --samples-out, every finished root is appended to a journal beside it (F.partial), so
  // that a sampling of hours that is stopped or crashes loses only the roots in flight: the
  // same command resumes it, with the same result as an uninterrupted run. One process per
  // journal (locked before the data is read, so that a second copy stops at once): two copies
  // appending to one journal would each solve every root, and a resume would refuse the doubles.
  std::filesystem::path journal, journal_lock_file;
  ExclusiveLock journal_lock;
  if (!args.samples_out.empty()) {
    journal = args.samples_out + ".partial";
    journal_lock_file = args.samples_out + ".partial.lock";
    journal_lock = lock_exclusively(journal_lock_file);
    if (journal_lock.busy)
      fail(
          "{}: another evalforge process{} is sampling into this journal; wait for it to finish or stop it, then "
          "run the command again to resume",
          journal.string(), journal_lock.holder_pid.empty() ? std::string() : " (pid " + journal_lock.holder_pid + ")");
  }
  // The lock file is only the lock's: it goes (still held) whenever this run leaves no journal
  // behind, on success or on an error before the journal was written.
  struct LockFileRemover {
    const std::filesystem::path& journal;
    const std::filesystem::path& lock_file;
    ~LockFileRemover() {
      std::error_code ignored;
      if (!lock_file.empty() && !std::filesystem::exists(journal, ignored)) std::filesystem::remove(lock_file, ignored);
    }
  } lock_file_remover{journal, journal_lock_file};
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
  if (!journal.empty()) {
    const std::vector<std::string> identity = tree_sample_identity(o, db.games, base);
    if (std::filesystem::exists(journal)) {
      TreeJournal earlier = read_tree_journal(journal);  // throws file:line: what
      if (earlier.identity != identity) {
        std::size_t k = 0;
        while (k < earlier.identity.size() && k < identity.size() && earlier.identity[k] == identity[k]) ++k;
        fail(
            "{}: the journal of a sampling with other data, base agent or options (it says '{}', this command '{}'); "
            "run that command again to resume it, or delete the file to start over",
            journal.string(), k < earlier.identity.size() ? earlier.identity[k] : "",
            k < identity.size() ? identity[k] : "");
      }
      const std::size_t roots = std::min<std::size_t>(o.roots, db.games.size());
      for (const TreeRootOutcome& r : earlier.roots)
        if (r.root >= roots)
          fail("{}: root {} is not a root of this sampling (it has {}); the file was edited by hand?", journal.string(),
               r.root, roots);
      if (earlier.torn) {
        // An append cut short: keep the whole blocks only, so that new blocks follow a clean end.
        std::string text = tree_journal_header(identity);
        for (const TreeRootOutcome& r : earlier.roots) text += tree_journal_block(r);
        write_atomically(journal, text);
      }
      fmt::print(stderr, "resuming from {}: {} of {} roots done{}\n", journal.string(), earlier.roots.size(), roots,
                 earlier.torn ? " (a root cut short by the interruption is solved again)" : "");
      o.resumed = std::move(earlier.roots);
    } else {
      write_atomically(journal, tree_journal_header(identity));
    }
    o.on_root = [&journal](const TreeRootOutcome& r) { append_durably(journal, tree_journal_block(r), false); };
  }
  const TreeSamples samples = sample_solver_trees(db.games, order, o);
  fmt::print("{} roots solved ({} games skipped: they pass through an --exclude position), {} samples\n", samples.roots,
             samples.excluded_games, samples.samples.size());
  if (!args.samples_out.empty()) {
    write_tree_samples(
        args.samples_out, samples.samples,
        {fmt::format("evalforge ordering samples: {} roots at {} empties, nodes of {}..{} empties, seed {}; "
                     "base {}",
                     samples.roots, o.root_empties, o.min_empties, o.max_empties, o.seed, base_file)});
    fmt::print("wrote {} ({} samples)\n", args.samples_out, samples.samples.size());
  }
  train_and_write(args, base, base_file, o, samples.samples, shapes, params, *backend);
  // Only now: stopped during the training, the same command finds every root done and trains.
  if (!journal.empty()) std::filesystem::remove(journal);
}

void train_and_write(const OrderingArgs& args, const play::OthelloAgent& base, const std::string& base_file,
                     const TreeSampleOptions& o, const std::vector<TreeSample>& samples,
                     const std::vector<ntuple::Shape>& shapes, const TrainParams& params, TrainBackend& backend) {
  const TreeTraining trained = train_on_solver_trees(base, o, samples, params, backend, shapes, args.shapes);
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
  auto* data =
      cmd->add_option("--data", args->data, "Game records the root positions come from (files or data-set names)")
          ->take_all();
  auto* samples = cmd->add_option("--samples", args->samples_in,
                                  "Train on the samples of an earlier run's --samples-out instead of sampling");
  samples->excludes(data);
  cmd->add_option("--samples-out", args->samples_out,
                  "Also write the samples (.obf: each node's best move and exact score, '% root J' lines): for "
                  "--samples, evalforge solve, or evalforge search --data. Makes the sampling resumable: finished "
                  "roots go to FILE.partial as they finish; the same command run again goes on from there")
      ->excludes(samples);
  cmd->add_option("--shapes", args->shapes,
                  "Train the networks with these shapes instead of the base's: a shape search's best_shapes.json, "
                  "the shape searched for a move within each network's moves (nearest their middle)");
  cmd->add_option("--out", args->out, "Agent file to write (.toml; its .efnet beside it)")->required();
  cmd->add_option("--base", args->base,
                  "The n-tuple agent to start from: it orders the sampled solves, and its networks outside the "
                  "sampled empties are kept (default: networks/ordering/edax.toml)");
  TreeSampleOptions& s = args->sample;
  std::vector<CLI::Option*> sampling;  // options of the sampling, which --samples skips
  sampling.push_back(
      cmd->add_option("--roots", s.roots, "Root positions (games spread evenly over the data)")->capture_default_str());
  sampling.push_back(
      cmd->add_option("--root-empties", s.root_empties, "Empties of each root position")->capture_default_str());
  CLI::Option* min_empties =
      cmd->add_option("--min-empties", s.min_empties, "Fewest empties of a sampled node (with --samples: the file's)")
          ->capture_default_str();
  CLI::Option* max_empties =
      cmd->add_option("--max-empties", s.max_empties,
                      "Most empties of a sampled node (with --samples: the file's); the networks whose moves all lie "
                      "within min..max are trained")
          ->capture_default_str();
  sampling.push_back(
      cmd->add_option("--per-level", s.per_level, "Nodes drawn per root and number of empties")->capture_default_str());
  sampling.push_back(
      cmd->add_option("--deep-per-level", s.deep_per_level, "The same from --deep-empties up (exact solves cost more)")
          ->capture_default_str());
  sampling.push_back(
      cmd->add_option("--deep-empties", s.deep_empties, "Where --deep-per-level takes over")->capture_default_str());
  sampling.push_back(
      cmd->add_option("--exclude", args->exclude,
                      "Positions (.obf file or data-set name, e.g. ffo) whose games give no root: keeps a benchmark "
                      "out of the data; repeatable"));
  sampling.push_back(cmd->add_option("--seed", s.seed, "Seed of the draws")->capture_default_str());
  sampling.push_back(cmd->add_option("--table-bits", s.table_bits, "Transposition table of each thread: 2^bits entries")
                         ->capture_default_str());
  cmd->add_option("--threads", args->threads, "Worker threads (0: all cores); the result does not depend on it")
      ->check(CLI::Range(0, 4096))
      ->capture_default_str();
  for (CLI::Option* option : sampling) samples->excludes(option);
  add_train_options(*cmd, args->train);
  cmd->callback([args, min_empties, max_empties] {
    args->range_given = min_empties->count() > 0 || max_empties->count() > 0;
    run_ordering(*args);
  });
}

}  // namespace ef::app
