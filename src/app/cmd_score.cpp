// evalforge score: the seed paper's Table 2 procedure for one or more shapes.
#include <fmt/core.h>
#include <fmt/ranges.h>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include "app/commands.hpp"
#include "app/options.hpp"
#include "evalforge/core/error.hpp"
#include "evalforge/data/datasets.hpp"
#include "evalforge/data/games.hpp"
#include "evalforge/games/othello/agent_file.hpp"
#include "evalforge/runs/score_table.hpp"

namespace ef::app {

namespace {

struct ScoreArgs {
  std::vector<std::string> shapes{"edax"};
  std::vector<std::string> data;
  std::vector<std::string> test_data;  // held-out test games (instead of a split of `data`)
  bool exclude_seen = false;
  std::string phases;  // one by-phase agent (--save-agents) instead of one per shape
  std::string moves = "18,22,26,30,34,38,42,46";
  std::string split = "position";
  std::string dedup = "auto";
  std::string label = "recorded";
  std::string backend = "cpu";
  int threads = 0;
  bool json = false;
  bool curves = false;
  bool no_cache = false;
  bool fatal = false;
  bool accept_damaged = false;
  u64 seed = 1;
  double test_fraction = 0.2;
  int window = 0;  // each network trains on moves h-2 window..h+2 window of h's parity
  TrainArgs train;
  std::string save_agents;  // directory for one agent file per shape
  int agent_depth = 1;
  int agent_exact = -1;
};

// An agent's file name: `name` with anything but letters, digits, '-' and '_' as '_'.
std::string agent_stem(std::string name) {
  std::string stem = std::move(name);
  for (char& ch : stem)
    if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '-' && ch != '_') ch = '_';
  return stem;
}

// One agent per shape: a network per scored move (trained on that move's fitness positions);
// every other move number uses the network of the nearest scored move (the lower on a tie).
void save_score_agents(const ScoreArgs& a, const std::vector<ntuple::Shape>& shapes, std::vector<ScoreRow>& rows) {
  namespace fs = std::filesystem;
  for (std::size_t s = 0; s < shapes.size(); ++s) {
    const play::OthelloAgent agent = score_agent(shapes[s], rows, s, {a.agent_depth, a.agent_exact});
    const fs::path file = fs::path(a.save_agents) / (agent_stem(shapes[s].name) + ".toml");
    play::save_agent(agent, file);
    if (!a.json) fmt::print("agent written: {}\n", file.string());
  }
}

// One by-phase agent (the paper's Table 3 agents): the network of scored move h is the one
// trained at h with the shape of h's phase; other moves use the nearest scored move of their
// phase. The score table's shapes are the phases' shapes in phase order, so cell p of a row is
// phase p's shape.
void save_phase_agent(const ScoreArgs& a, const ntuple::PhasedShapes& phased, std::vector<ScoreRow>& rows) {
  namespace fs = std::filesystem;
  play::OthelloAgent agent;
  agent.name = agent_stem(fs::path(a.shapes.front()).stem().string() + "-phases");
  agent.kind = play::OthelloEvaluator::kNtuple;
  agent.limits = {a.agent_depth, a.agent_exact};
  for (const auto& s : phased.shapes) {
    agent.geometries.push_back(s.geometry());
    agent.geometry_names.push_back(s.name);
  }
  for (auto& r : rows) {
    const int phase = phased.phase_of_move[r.move];
    agent.networks.push_back(play::Network{phase, std::move(r.cells[static_cast<std::size_t>(phase)].weights)});
  }
  agent.network_of_move = nearest_scored_move(rows, &phased.phase_of_move);
  agent.validate();
  const fs::path file = fs::path(a.save_agents) / (agent.name + ".toml");
  play::save_agent(agent, file);
  if (!a.json) fmt::print("agent written: {}\n", file.string());
}

// Held-out test games: each file is loaded on its own, so that a file without games, or without
// a game that reaches a scored move, is named.
std::vector<data::Game> load_test_games(const ScoreArgs& a, const std::vector<int>& moves,
                                        const data::ReadOptions& ro) {
  std::vector<data::Game> games;
  for (const auto& file : a.test_data) {
    if (!std::filesystem::exists(file) && !data::looks_like_dataset_name(file))
      fail("--test-data: {}: no such file (nor a data-set name such as wthor:2011-2015)", file);
    data::GameDatabase db = load_data_files({file}, ro, !a.json);
    for (const int move : moves)
      if (std::none_of(db.games.begin(), db.games.end(),
                       [&](const data::Game& g) { return static_cast<int>(g.moves.size()) >= move; }))
        fail("--test-data: {}: no game reaches move {}, so it has no test positions there", file, move);
    games.insert(games.end(), std::make_move_iterator(db.games.begin()), std::make_move_iterator(db.games.end()));
  }
  return games;
}

void run_score(const ScoreArgs& a) {
  ScoreOptions o;
  o.moves = parse_moves(a.moves, "--moves");
  o.split = parse_split(a.split);
  o.positions.duplicates = parse_dedup(a.dedup, o.split);
  if (a.label == "theoretical")
    o.positions.label = data::LabelSource::kTheoretical;
  else if (a.label != "recorded")
    fail("--label: '{}' is not a label (expected recorded or theoretical)", a.label);
  o.seed = a.seed;
  o.test_fraction = a.test_fraction;
  o.window = a.window;
  // Before any data is read (score_positions_at_move checks it again for library callers).
  if (a.window > 0 && a.test_data.empty() && o.split != data::SplitBy::kGame)
    fail(
        "--window {} needs --split game (or --test-data): split by position, a test board's game would teach "
        "the board's own label through its other positions",
        a.window);
  o.train = a.train.resolve();
  o.record_curves = a.curves;
  o.return_weights = !a.save_agents.empty();
  if (a.exclude_seen && a.test_data.empty())
    fail("--exclude-seen needs --test-data (it drops held-out test positions)");
  std::vector<ntuple::Shape> shapes;
  std::optional<ntuple::PhasedShapes> phased;
  if (!a.phases.empty()) {
    // Checked before any data is read or network trained: these mistakes would cost a whole run.
    if (a.save_agents.empty()) fail("--phases: it says how to build the agent of --save-agents, which is not given");
    if (a.shapes.size() != 1)
      fail("--phases: give one --shapes file (a search's best_shapes.json), not {}", a.shapes.size());
    phased = ntuple::shapes_by_phase(ntuple::load_shapes(a.shapes[0]), ntuple::parse_phases(a.phases, "--phases"),
                                     a.shapes[0]);
    for (int p = 0; p < static_cast<int>(phased->shapes.size()); ++p) {
      int first = ntuple::kMoveNumbers, last = -1;
      bool scored = false;
      for (int t = 0; t < ntuple::kMoveNumbers; ++t)
        if (phased->phase_of_move[t] == p) {
          first = std::min(first, t);
          last = t;
          scored = scored || std::find(o.moves.begin(), o.moves.end(), t) != o.moves.end();
        }
      if (!scored)
        fail(
            "--phases: no move of --moves is in moves {}..{} (the phase of the shape of move {}), so that shape "
            "would never be trained; score at least one move there (e.g. --moves paper)",
            first, last, phased->shapes[static_cast<std::size_t>(p)].move);
    }
    shapes = phased->shapes;  // cell p of each row: phase p's shape
  } else {
    for (const auto& spec : a.shapes)
      for (auto& s : ntuple::load_shapes(spec)) shapes.push_back(std::move(s));
  }
  if (!a.save_agents.empty() && !phased)  // before any training: two shapes must not share an agent file
    for (std::size_t i = 0; i < shapes.size(); ++i)
      for (std::size_t j = 0; j < i; ++j)
        if (agent_stem(shapes[i].name) == agent_stem(shapes[j].name))
          fail("--save-agents: shapes {} and {} would both be written as {}.toml; give them distinct names", j + 1,
               i + 1, agent_stem(shapes[i].name));

  // Before any training: where the agents go must be writable now, not found out after the work.
  if (!a.save_agents.empty()) require_writable_directory(a.save_agents, "--save-agents");
  // Before the data is read: a batch that cannot fit (64 tuples of 12 squares on 1,024 threads,
  // or the trained tables of many shapes and moves for --save-agents) is refused.
  {
    std::vector<ntuple::Geometry> geometries;
    for (const auto& s : shapes) geometries.push_back(s.geometry());
    (void)check_memory("score", score_memory_estimate(geometries, o.moves.size(), o, a.backend, a.threads),
                       "fewer or smaller shapes, fewer --moves or --threads");
  }

  data::ReadOptions ro;
  ro.use_cache = !a.no_cache;
  ro.fatal_problems = a.fatal;
  ro.accept_read_errors = a.accept_damaged;
  const auto t0 = std::chrono::steady_clock::now();
  const data::GameDatabase db = load_data_files(a.data, ro, !a.json);
  const std::vector<data::Game> test_games = load_test_games(a, o.moves, ro);
  if (!a.test_data.empty()) o.test_games = &test_games;
  o.exclude_seen = a.exclude_seen;
  auto backend = make_backend(a.backend, a.threads);
  const auto t1 = std::chrono::steady_clock::now();
  auto rows = score_table(db.games, shapes, o, *backend);
  const double train_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count();
  const double load_s = std::chrono::duration<double>(t1 - t0).count();
  if (phased)
    save_phase_agent(a, *phased, rows);
  else if (!a.save_agents.empty())
    save_score_agents(a, shapes, rows);
  const auto seen_share = [](const ScoreRow& r) {
    const std::size_t before = r.test_positions + r.test_excluded;
    return before ? static_cast<double>(r.test_seen) / static_cast<double>(before) : 0.0;
  };

  if (a.json) {
    nlohmann::json j;
    j["data"] = a.data;
    j["games"] = db.games.size();
    j["split"] = a.split;
    j["duplicates"] = o.positions.duplicates == data::Duplicates::kMerge ? "merge" : "keep";
    j["seed"] = a.seed;
    j["window"] = a.window;
    if (phased) j["phases"] = ntuple::parse_phases(a.phases, "--phases");  // [[last move, shape move], ...]
    if (!a.test_data.empty()) {
      j["test_data"] = a.test_data;
      j["test_games"] = test_games.size();
      j["exclude_seen"] = a.exclude_seen;
    }
    j["training"] = {{"learning_rate", o.train.learning_rate},
                     {"epochs", o.train.epochs},
                     {"batch_size", o.train.batch_size},
                     {"seed", o.train.seed}};
    j["backend"] = backend->name();
    for (const auto& s : shapes)
      j["shapes"].push_back({{"name", s.name}, {"tuples", ntuple::shape_to_string(s)}, {"weights", s.num_weights()}});
    for (const auto& r : rows) {
      nlohmann::json row{{"move", r.move},
                         {"fitness_positions", r.fitness_positions},
                         {"test_positions", r.test_positions},
                         {"constant_mse", r.constant_mse},
                         {"irreducible_mse", r.irreducible_mse},
                         {"test_seen", r.test_seen},
                         {"test_seen_share", seen_share(r)},
                         {"test_excluded", r.test_excluded}};
      for (std::size_t s = 0; s < shapes.size(); ++s) {
        nlohmann::json c{{"shape", shapes[s].name}, {"mse", r.cells[s].mse}, {"mae", r.cells[s].mae}};
        if (a.curves) c["epoch_train_mse"] = r.cells[s].epoch_mse;
        row["cells"].push_back(c);
      }
      j["rows"].push_back(row);
    }
    j["seconds"] = {{"load", load_s}, {"train", train_s}};
    fmt::print("{}\n", j.dump(2));
    return;
  }

  const bool held_out = !a.test_data.empty();
  fmt::print("test MSE (MAE) after training from zero on the fitness positions at each move\n");
  if (held_out)
    fmt::print("fitness: every game of --data; test: {} games of {}{}\n", test_games.size(),
               fmt::join(a.test_data, ", "),
               a.exclude_seen ? ", without the positions that are also fitness positions" : "");
  if (a.window > 0)
    fmt::print(
        "each move's network trained on the fitness positions at moves h-{0}..h+{0} of h's parity; tested at h\n",
        2 * a.window);
  fmt::print("{}, duplicates {}, {} games, lr {}, epochs {}, batch {}, backend {}\n",
             held_out ? "held out" : "split by " + a.split,
             o.positions.duplicates == data::Duplicates::kMerge ? "merged" : "kept", db.games.size(),
             o.train.learning_rate, o.train.epochs, o.train.batch_size, backend->name());
  fmt::print("{:>4} {:>7} {:>7}", "move", "fit", "test");
  // Held out: how many test positions the training positions contain (shared openings), and
  // with --exclude-seen how many were dropped for it.
  if (held_out) fmt::print(" {:>15}", a.exclude_seen ? "seen (dropped)" : "seen in fit");
  for (const auto& s : shapes) fmt::print(" {:>16}", s.name.substr(0, 16));
  fmt::print(" {:>9} {:>9}\n", "constant", "irreduc.");
  for (const auto& r : rows) {
    fmt::print("{:>4} {:>7} {:>7}", r.move, r.fitness_positions, r.test_positions);
    if (held_out) fmt::print(" {:>15}", fmt::format("{} ({:.1f}%)", r.test_seen, 100 * seen_share(r)));
    for (const auto& c : r.cells) fmt::print(" {:>16}", fmt::format("{:.2f} ({:.2f})", c.mse, c.mae));
    fmt::print(" {:>9.2f} {:>9.2f}\n", r.constant_mse, r.irreducible_mse);
    if (a.curves)
      for (std::size_t s = 0; s < r.cells.size(); ++s) {
        fmt::print("     train MSE by epoch [{}]:", shapes[s].name);
        for (double v : r.cells[s].epoch_mse) fmt::print(" {:.2f}", v);
        fmt::print("\n");
      }
  }
  fmt::print("data {:.1f} s, training {:.1f} s\n", load_s, train_s);
}

}  // namespace

void register_score(CLI::App& app) {
  auto a = std::make_shared<ScoreArgs>();
  auto* cmd = app.add_subcommand("score", "Train shapes from zero and print test losses per move (Table 2)");
  cmd->add_option("--shapes", a->shapes, "Shape file (JSON/TOML) or 'edax'; repeatable")->take_all();
  cmd->add_option("--data", a->data, "Game records: logbook (.gam/.gam.gz), WTHOR .wtb, transcripts")
      ->required()
      ->take_all();
  cmd->add_option("--moves", a->moves, "Move numbers, e.g. 18,22,30 or 'paper' (18,22,...,46)");
  cmd->add_option("--split", a->split, "Fitness/test split: position (distinct boards) or game (the paper's)");
  cmd->add_option("--dedup", a->dedup,
                  "Duplicate boards: merge (labels averaged), keep, or auto "
                  "(merge for --split position, keep for --split game)");
  cmd->add_option("--label", a->label, "Label: recorded final score, or theoretical (WTHOR's perfect-play score)");
  cmd->add_option("--seed", a->seed, "Seed of the fitness/test split and the sample order");
  cmd->add_option("--window", a->window,
                  "Train the network of move h on the fitness positions at h and the W moves on either side with the "
                  "same side to move (h-2W, ..., h+2W; test positions stay at h); needs --split game or --test-data")
      ->check(CLI::Range(0, 29));
  auto* test_fraction = cmd->add_option("--test-fraction", a->test_fraction, "Share of the data in the test set")
                            ->check(CLI::Range(0.01, 0.99));
  cmd->add_option("--test-data", a->test_data,
                  "Held-out test games (files like --data): every game of --data becomes fitness data, and the "
                  "test set is these games' positions at each move; the table shows how many also occur in --data")
      ->take_all()
      ->excludes(test_fraction);
  cmd->add_flag("--exclude-seen", a->exclude_seen,
                "With --test-data: drop the test positions that also occur among the fitness positions");
  cmd->add_option("--threads", a->threads, "CPU worker threads (0 = all)")->check(CLI::Range(0, 1024));
  cmd->add_option("--backend", a->backend, "cpu, cuda or auto");
  cmd->add_flag("--json", a->json, "Print the table as JSON");
  cmd->add_flag("--curves", a->curves, "Also print the training MSE of every epoch");
  cmd->add_flag("--no-cache", a->no_cache, "Do not read or write the binary cache of parsed games");
  cmd->add_flag("--fatal", a->fatal, "Stop at the first bad record instead of skipping it");
  cmd->add_flag("--accept-damaged", a->accept_damaged,
                "Use the games read before a damaged part of a file (gzip CRC error, truncation) instead of stopping");
  cmd->add_option("--save-agents", a->save_agents,
                  "Write one agent per shape (TOML + .efnet) into this directory: the trained network of "
                  "each scored move, the nearest one for the other moves");
  cmd->add_option(
      "--phases", a->phases,
      "With --save-agents: write one agent that uses the searched shapes by phase, 'paper' "
      "(32:30,36:34,40:38,44:42,60:46) or last move:shape move pairs; --shapes is a search's best_shapes.json");
  cmd->add_option("--agent-depth", a->agent_depth, "Search depth written into the agents")
      ->check(CLI::Range(1, play::kMaxDepth));
  cmd->add_option("--agent-exact", a->agent_exact, "Exact-solve empties written into the agents (-1: never)")
      ->check(CLI::Range(-1, play::kMaxExactEmpties));
  add_train_options(*cmd, a->train);
  cmd->callback([a] { run_score(*a); });
}

}  // namespace ef::app
