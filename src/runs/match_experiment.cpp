#include "runs/match_experiment.hpp"
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <optional>
#include "core/parallel.hpp"
#include "core/toml_reader.hpp"
#include "evalforge/core/error.hpp"
#include "evalforge/core/memory_check.hpp"
#include "evalforge/core/rng.hpp"
#include "evalforge/core/run_dir.hpp"
#include "evalforge/data/datasets.hpp"
#include "evalforge/data/games.hpp"
#include "evalforge/games/othello/agent_file.hpp"
#include "evalforge/games/othello/shape.hpp"
#include "evalforge/runs/run_session.hpp"
#include "runs/run_kinds.hpp"
#include "runs/training_table.hpp"

namespace ef::play {

namespace fs = std::filesystem;

namespace {

// Streams of this module's random draws (rng.hpp's Purpose values are for the library's own
// layers; these stay clear of them).
constexpr Purpose kOpeningPurpose = static_cast<Purpose>(20);
constexpr Purpose kMatchShufflePurpose = static_cast<Purpose>(21);

void read_agent_table(const toml::table& root, const char* key, const std::string& file, MatchAgentConfig& a) {
  const toml::table empty;
  const toml::table* t = root[key].as_table();
  TableReader r(t ? *t : empty, file, key);
  r.allow({"name", "shapes", "phases", "depth", "exact_empties", "epsilon"});
  r.text("name", a.name);
  r.text("shapes", a.shapes);
  r.integer("depth", a.limits.depth, 1, kMaxDepth);
  r.integer("exact_empties", a.limits.exact_empties, -1, kMaxExactEmpties);
  r.real("epsilon", a.epsilon, 0.0, 1.0);
  if (const toml::node* n = t ? t->get("phases") : nullptr) {
    const auto* arr = n->as_array();
    if (!arr || arr->empty()) fail("{}: expected an array of [last move, shape move] pairs", r.where("phases"));
    for (std::size_t i = 0; i < arr->size(); ++i) {
      const auto* pair = arr->get(i)->as_array();
      const auto last = pair && pair->size() == 2 ? pair->get(0)->value_exact<int64_t>() : std::nullopt;
      const auto move = pair && pair->size() == 2 ? pair->get(1)->value_exact<int64_t>() : std::nullopt;
      if (!last || !move || *last < 0 || *last > 60 || *move < 0 || *move > 60)
        fail("{}[{}]: expected [last move, shape move] with both in 0..60", r.where("phases"), i);
      a.phases.emplace_back(static_cast<int>(*last), static_cast<int>(*move));
    }
    ntuple::check_phases(a.phases, r.where("phases"));  // order and the end at 60, as `score --phases`
  }
}

// The geometries of a match agent and which one each move uses (from its shapes file).
struct AgentLayout {
  std::vector<ntuple::Geometry> geometries;
  std::vector<std::string> names;
  std::array<int, ntuple::kMoveNumbers> geometry_of_move{};
  // Bytes of the networks of moves start_move.. (one per move).
  double weight_bytes(int start_move) const {
    double sum = 0;
    for (int t = start_move; t < ntuple::kMoveNumbers; ++t)
      sum += static_cast<double>(geometries[static_cast<std::size_t>(geometry_of_move[t])].num_weights()) * sizeof(i32);
    return sum;
  }
};

AgentLayout agent_layout(const MatchAgentConfig& c, const std::string& config_file) {
  ntuple::PhasedShapes phased;
  try {
    phased = ntuple::shapes_by_phase(ntuple::load_shapes(c.shapes), c.phases, c.shapes);
  } catch (const Error& e) {
    fail("{}: agent '{}': {}", config_file, c.name, e.what());
  }
  AgentLayout l;
  for (const auto& s : phased.shapes) {
    l.geometries.push_back(s.geometry());
    l.names.push_back(s.name);
  }
  l.geometry_of_move = phased.phase_of_move;
  return l;
}

// The agent a match starts from: one zero network per move number from start_move on (the
// moves before are never evaluated: games start at start_move and searches look forward, so
// they share the first network instead of holding 24 more tables).
OthelloAgent initial_agent(const MatchAgentConfig& c, int start_move, const std::string& config_file) {
  AgentLayout l = agent_layout(c, config_file);
  OthelloAgent a;
  a.name = c.name;
  a.kind = OthelloEvaluator::kNtuple;
  a.limits = c.limits;
  a.epsilon = c.epsilon;
  a.geometries = std::move(l.geometries);
  a.geometry_names = std::move(l.names);
  for (int t = start_move; t < ntuple::kMoveNumbers; ++t) {
    a.networks.push_back(
        Network{l.geometry_of_move[t], std::vector<i32>(a.geometries[l.geometry_of_move[t]].num_weights(), 0)});
    a.network_of_move[t] = t - start_move;
  }
  for (int t = 0; t < start_move; ++t) a.network_of_move[t] = 0;
  a.validate();
  return a;
}

// The position after `move` discs of a dataset game (passes implicit), or nullopt when the game
// is shorter.
std::optional<othello::Position> position_at(const data::Game& g, int move) {
  othello::Position p;
  if (move == 0) return p;
  int placed = 0;
  for (const std::uint8_t sq : g.moves) {
    if (!p.board.can_move()) p.board.pass();
    if (!p.board.play(sq)) return std::nullopt;  // the readers replay every game, so not expected
    if (++placed == move) return p;
  }
  return std::nullopt;
}

struct TrainingPosition {
  u64 black, white;
  i64 label;
};

// Positions of the finished games at each move number from start_move (the first board with
// that many discs), labelled with the game's final score.
std::vector<std::vector<TrainingPosition>> positions_by_move(const std::vector<OthelloJob>& jobs,
                                                             const std::vector<OthelloRecord>& records) {
  std::vector<std::vector<TrainingPosition>> by_move(ntuple::kMoveNumbers);
  for (std::size_t g = 0; g < jobs.size(); ++g) {
    othello::Position s = jobs[g].start;
    const OthelloRecord& r = records[g];
    const i64 label = r.black_score * ntuple::kOne;
    int last = -1;
    for (int k = 0;; ++k) {
      const int t = s.move_number();
      if (t != last) by_move[t].push_back({s.board.black(), s.board.white(), label});
      last = t;
      if (k == r.plies) break;
      s = r.moves[k] < 0 ? games::Othello::pass(s) : games::Othello::play(s, r.moves[k]);
    }
  }
  return by_move;
}

// The round's training: every (replicate, agent, move) network learns from its replicate's
// positions of that move, as training jobs of the backend (the device's with `--backend cuda`;
// `auto` keeps batches this small on the CPU) that start from the network's weights and return
// them. The sample order stays the match's own:
// epoch e shuffles the order of epoch e - 1 (the positions' order at first) with a Philox
// stream keyed (seed, round, replicate, 64 (2 move + agent) + e), so the jobs take their ids
// as given (shuffle = false), one backend call per epoch and replicate (a replicate's trained
// weights are all the memory the results need).
void train_round(Backend& backend, const MatchConfig& c, std::vector<OthelloAgent>& agents,
                 const std::vector<std::vector<std::vector<TrainingPosition>>>& by_move, int round) {
  const int moves = ntuple::kMoveNumbers - c.start_move;
  // The round's positions in one set: replicate p's positions of move t from first[p][t] on.
  PositionData data;
  std::vector<std::vector<std::uint32_t>> first(c.replicates, std::vector<std::uint32_t>(ntuple::kMoveNumbers, 0));
  for (int p = 0; p < c.replicates; ++p)
    for (int t = c.start_move; t < ntuple::kMoveNumbers; ++t) {
      first[p][t] = static_cast<std::uint32_t>(data.size());
      for (const TrainingPosition& q : by_move[p][t]) {
        data.black.push_back(q.black);
        data.white.push_back(q.white);
        data.label.push_back(q.label);
      }
    }
  const int set = backend.add_positions(data);
  data = PositionData{};
  struct Release {  // the set is freed however the round ends
    Backend& backend;
    int set;
    ~Release() {
      try {
        backend.remove_positions(set);
      } catch (...) {  // only while another error unwinds: that one is the one to report
      }
    }
  } release{backend, set};
  for (int p = 0; p < c.replicates; ++p) {
    // Task k: agent k / moves, move start_move + k % moves.
    std::vector<std::vector<std::uint32_t>> order(2 * static_cast<std::size_t>(moves));
    for (std::size_t k = 0; k < order.size(); ++k) {
      const int t = c.start_move + static_cast<int>(k) % moves;
      order[k].resize(by_move[p][t].size());
      std::iota(order[k].begin(), order[k].end(), first[p][t]);
    }
    for (int e = 0; e < c.epochs; ++e) {
      std::vector<TrainJob> jobs;
      std::vector<Network*> nets;
      for (std::size_t k = 0; k < order.size(); ++k) {
        if (order[k].empty()) continue;
        const int a = static_cast<int>(k) / moves, t = c.start_move + static_cast<int>(k) % moves;
        Rng rng(c.seed, kMatchShufflePurpose, static_cast<u32>(round), static_cast<u32>(p),
                static_cast<u32>(2 * t + a) * 64 + static_cast<u32>(e));
        std::vector<std::uint32_t>& ids = order[k];
        for (std::size_t i = ids.size(); i > 1; --i) std::swap(ids[i - 1], ids[rng.below(static_cast<u32>(i))]);
        OthelloAgent& agent = agents[2 * p + a];
        Network& net = agent.networks[agent.network_of_move[t]];
        TrainJob job;
        job.geometry = &agent.geometries[net.geometry];
        job.positions = set;
        job.train_ids = ids;
        job.params.learning_rate = c.learning_rate;
        job.params.epochs = 1;
        job.shuffle = false;
        job.initial_weights = net.weights;
        job.return_weights = true;
        jobs.push_back(job);
        nets.push_back(&net);
      }
      std::vector<TrainResult> results(jobs.size());
      backend.train(jobs, results);
      for (std::size_t i = 0; i < jobs.size(); ++i) nets[i]->weights = std::move(results[i].weights);
    }
  }
}

std::string config_to_toml(const MatchConfig& c) {
  std::string t = "# evalforge match configuration (as run)\n[match]\n";
  t += fmt::format("games = {}\ngames_per_round = {}\nstart_move = {}\nreplicates = {}\nseed = {}\n", c.games,
                   c.games_per_round, c.start_move, c.replicates, c.seed);
  std::vector<std::string> files;
  for (const auto& f : c.data_files) files.push_back(toml_quote(fs::absolute(f).lexically_normal().string()));
  t += fmt::format("\n[data]\nfiles = [{}]\n", fmt::join(files, ", "));
  for (int a = 0; a < 2; ++a) {
    const MatchAgentConfig& m = c.agents[a];
    t += fmt::format("\n[agent{}]\nname = {}\nshapes = {}\ndepth = {}\nexact_empties = {}\nepsilon = {}\n", a + 1,
                     toml_quote(m.name),
                     toml_quote(m.shapes == "edax" ? m.shapes : fs::absolute(m.shapes).lexically_normal().string()),
                     m.limits.depth, m.limits.exact_empties, m.epsilon);
    if (!m.phases.empty()) {
      std::vector<std::string> ph;
      for (const auto& [last, move] : m.phases) ph.push_back(fmt::format("[{}, {}]", last, move));
      t += fmt::format("phases = [{}]\n", fmt::join(ph, ", "));
    }
  }
  t += fmt::format("\n[training]\nlearning_rate = {}\nepochs = {}\n\n[run]\ncheckpoint_every = {}\n", c.learning_rate,
                   c.epochs, c.checkpoint_every);
  return t;
}

std::string checkpoint_agent(int replicate, int agent, int round) {
  return fmt::format("r{}-agent{}-round{}.toml", replicate, agent + 1, round);
}

constexpr std::string_view kKind = run_kind_name(RunKind::kMatch);
constexpr const char* kRounds = "rounds.csv";
constexpr const char* kRoundsHeader = "replicate,round,games_played,wins,draws,losses,score,seconds";
constexpr std::string_view kCheckpointDir = "checkpoint";
constexpr std::string_view kState = "checkpoint/state.toml";

// Resume: rounds.csv keeps the rows of rounds < `next_round` (the checkpoint's); the match plays
// the others again and writes them anew. Every row must be one this match could have written,
// checked in 64-bit arithmetic so that no field can overflow its way into a plausible value:
// replicate and round in range, counts that are not negative and add up to a round, the
// cumulative games of its round, a finite score equal to its counts, each (replicate, round)
// once, and no round before the checkpoint missing. Returns the kept rounds, in file order.
std::vector<MatchRound> resume_rounds(RunDir& run, const MatchConfig& c, int next_round) {
  const i64 per_round = c.games_per_round;
  std::vector<MatchRound> kept;
  std::map<std::pair<i64, i64>, std::string> seen;  // (replicate, round) -> where
  run.resume_table(kRounds, kRoundsHeader, [&](const RunDir::Row& f, const std::string& where) {
    const i64 p = parse_int_field(f[0], 0, c.replicates - 1, where, "replicate");
    const i64 r = parse_int_field(f[1], 0, c.rounds() - 1, where, "round");
    const i64 games = parse_int_field(f[2], 0, std::numeric_limits<i64>::max(), where, "games_played");
    const i64 w = parse_int_field(f[3], 0, per_round, where, "wins");
    const i64 d = parse_int_field(f[4], 0, per_round, where, "draws");
    const i64 l = parse_int_field(f[5], 0, per_round, where, "losses");
    if (w + d + l != per_round)
      fail("{}: wins + draws + losses = {} (expected the {} games of a round)", where, w + d + l, per_round);
    if (games != (r + 1) * per_round)
      fail("{}: games_played {} (after round {} a replicate has played {})", where, games, r, (r + 1) * per_round);
    const double score = parse_real_field(f[6], where, "score");
    const double expected = (static_cast<double>(w) + 0.5 * static_cast<double>(d)) / static_cast<double>(per_round);
    if (std::fabs(score - expected) > 1e-6)
      fail("{}: score {} does not match its wins and draws ({:.6f})", where, f[6], expected);
    if (parse_real_field(f[7], where, "seconds") < 0) fail("{}: seconds '{}' (expected at least 0)", where, f[7]);
    const auto [it, fresh] = seen.emplace(std::make_pair(p, r), where);
    if (!fresh) fail("{}: replicate {} round {} is already recorded at {}", where, p, r, it->second);
    if (r >= next_round) return false;
    MatchRound m;
    m.replicate = static_cast<int>(p);
    m.round = static_cast<int>(r);
    m.wins = static_cast<int>(w);
    m.draws = static_cast<int>(d);
    m.losses = static_cast<int>(l);
    kept.push_back(m);
    return true;
  });
  const std::size_t expected = static_cast<std::size_t>(next_round) * static_cast<std::size_t>(c.replicates);
  if (kept.size() != expected)
    fail("{}: {} rows for rounds 0..{}, expected {} ({} replicates): rows are missing", run.file(kRounds).string(),
         kept.size(), next_round - 1, expected, c.replicates);
  return kept;
}

}  // namespace

MatchConfig load_match_config(const std::string& file) {
  const toml::table root = parse_run_config(file);
  for (const auto& [k, v] : root) {
    const std::string key(k.str());
    if (key != "match" && key != "data" && key != "agent1" && key != "agent2" && key != "training" && key != "run")
      fail("{}: unknown section [{}] (expected match, data, agent1, agent2, training, run)", file, key);
    if (!v.is_table()) fail("{}: '{}' must be a table ([{}])", file, key, key);
  }
  const toml::table empty;
  auto section = [&](const char* name) -> const toml::table& {
    const auto* t = root[name].as_table();
    return t ? *t : empty;
  };
  MatchConfig c;
  c.agents[0].name = "agent1";
  c.agents[1].name = "agent2";
  {
    TableReader r(section("match"), file, "match");
    r.allow({"games", "games_per_round", "start_move", "replicates", "seed"});
    r.integer("games", c.games, 2, 100000000);
    r.integer("games_per_round", c.games_per_round, 2, 1000000);
    if (c.games_per_round % 2)
      fail("{}: must be even (each start is played twice, colours swapped)", r.where("games_per_round"));
    r.integer("start_move", c.start_move, 0, 59);
    r.integer("replicates", c.replicates, 1, 4096);
    r.seed("seed", c.seed);
  }
  {
    TableReader r(section("data"), file, "data");
    r.allow({"files"});
    r.strings("files", c.data_files);
    const fs::path base = fs::path(file).parent_path();
    for (auto& f : c.data_files)
      if (fs::path(f).is_relative() && !fs::exists(f) && fs::exists(base / f)) f = (base / f).string();
  }
  read_agent_table(root, "agent1", file, c.agents[0]);
  read_agent_table(root, "agent2", file, c.agents[1]);
  for (auto& a : c.agents)  // shape files relative to the config when not found from here
    if (a.shapes != "edax" && fs::path(a.shapes).is_relative() && !fs::exists(a.shapes) &&
        fs::exists(fs::path(file).parent_path() / a.shapes))
      a.shapes = (fs::path(file).parent_path() / a.shapes).string();
  {
    TrainParams train;
    train.learning_rate = c.learning_rate;
    train.epochs = c.epochs;
    read_training_table(root, file, train, {.batch_size = false, .seed = false, .max_epochs = 1000});
    c.learning_rate = train.learning_rate;
    c.epochs = train.epochs;
  }
  {
    TableReader r(section("run"), file, "run");
    r.allow({"checkpoint_every"});
    r.integer("checkpoint_every", c.checkpoint_every, 1, 100000000);
  }
  if (c.data_files.empty()) fail("{}: [data] files is required (the games whose positions start the matches)", file);
  // Game ids (the keys of the games' random streams) are 32-bit and one round is one batch.
  if (static_cast<u64>(c.rounds()) * c.games_per_round * c.replicates > 0xFFFFFFFFull)
    fail("{}: match.games x match.replicates is over 2^32 games", file);
  if (static_cast<u64>(c.games_per_round) * c.replicates > (u64{1} << 24))
    fail("{}: match.games_per_round x match.replicates is over 2^24 games a round", file);
  // Last, once the config is known to be valid: data-set names (logbook, wthor:1990-2015) become
  // their cached files, fetched when missing.
  c.data_files = data::expand_dataset_names(c.data_files);
  return c;
}

std::vector<MemoryPart> match_memory_estimate(const MatchConfig& c, const std::string& config_file, int threads) {
  threads = resolve_threads(threads);
  const double replicates = c.replicates, games = replicates * c.games_per_round;
  double agents = 0, largest = 0;  // one replicate's two agents; the largest network
  for (const MatchAgentConfig& a : c.agents) {
    const AgentLayout l = agent_layout(a, config_file);
    agents += l.weight_bytes(c.start_move);
    for (const ntuple::Geometry& g : l.geometries) largest = std::max(largest, 4.0 * g.num_weights());
  }
  const double positions = games * (ntuple::kMoveNumbers + 1 - c.start_move);  // a round's, by move
  return {{fmt::format("agents ({} replicates x {}, and the backend's copies)", c.replicates, format_bytes(agents)),
           2 * replicates * agents},
          {fmt::format("a round's games ({} x {} B)", games, sizeof(OthelloJob) + sizeof(OthelloRecord)),
           games * static_cast<double>(sizeof(OthelloJob) + sizeof(OthelloRecord))},
          // By move (TrainingPosition), as the round's position set (3 x 8 B), packed on the backend (32 B).
          {fmt::format("a round's training positions ({} x {} B)", positions, sizeof(TrainingPosition) + 24 + 32),
           positions * static_cast<double>(sizeof(TrainingPosition) + 24 + 32)},
          {fmt::format("a replicate's trained weights and the backend's training copies ({} threads)", threads),
           agents + threads * largest}};
}

namespace {

// Start positions: the position at start_move of every dataset game long enough to have one.
std::vector<othello::Position> match_starts(const MatchConfig& c) {
  const data::GameDatabase db = data::load_games(std::vector<fs::path>(c.data_files.begin(), c.data_files.end()));
  std::vector<othello::Position> starts;
  for (const auto& g : db.games)
    if (auto p = position_at(g, c.start_move); p && !p->board.game_over()) starts.push_back(*p);
  if (starts.empty()) fail("{}: no game reaches move {}", fmt::join(c.data_files, ", "), c.start_move);
  return starts;
}

// The agents, 2 per replicate: from the checkpoint of a resumed run (next_round set from it), or
// from zero.
std::vector<OthelloAgent> starting_agents(RunSession& session, const MatchConfig& c, const std::string& config_name,
                                          int& next_round) {
  std::vector<OthelloAgent> agents;
  next_round = 0;
  if (session.resuming() && session.run().has(kState)) {
    const std::string state_file = session.run().file(kState).string();
    const toml::table st = parse_toml_file(state_file);
    TableReader r(st, state_file, "");
    r.allow({"next_round"});
    if (!r.has("next_round")) fail("{}: next_round is required", state_file);
    r.integer("next_round", next_round, 0, c.rounds());
    for (int p = 0; p < c.replicates; ++p)
      for (int a = 0; a < 2; ++a)
        agents.push_back(
            load_agent((session.run().file(kCheckpointDir) / checkpoint_agent(p, a, next_round)).string()));
  } else {
    for (int p = 0; p < c.replicates; ++p)
      for (int a = 0; a < 2; ++a) agents.push_back(initial_agent(c.agents[a], c.start_move, config_name));
  }
  return agents;
}

// Round `round`'s games: per replicate, games_per_round / 2 starts drawn from the round's stream,
// each played with agent 1 black, then white.
std::vector<OthelloJob> round_jobs(const MatchConfig& c, const std::vector<othello::Position>& starts,
                                   const std::vector<int>& handles, int round) {
  std::vector<OthelloJob> jobs;
  for (int p = 0; p < c.replicates; ++p)
    for (int k = 0; k < c.games_per_round / 2; ++k) {
      Rng rng(c.seed, kOpeningPurpose, static_cast<u32>(round), static_cast<u32>(p), static_cast<u32>(k));
      const othello::Position& start = starts[rng.below(static_cast<u32>(starts.size()))];
      for (int colour = 0; colour < 2; ++colour) {  // agent 1 black, then white
        OthelloJob j;
        j.black = handles[2 * p + colour];
        j.white = handles[2 * p + 1 - colour];
        j.start = start;
        j.seed = c.seed;
        j.game = static_cast<u32>((static_cast<u64>(round) * c.replicates + p) * c.games_per_round + 2 * k + colour);
        jobs.push_back(j);
      }
    }
  return jobs;
}

}  // namespace

std::vector<MatchRound> run_match(const fs::path& dir, const std::string& config_file, const MatchRunOptions& options) {
  const bool resume = config_file.empty();
  RunSession session = resume ? RunSession::resume(dir, kKind, options) : RunSession::start_new(dir, kKind, options);
  const std::string config_name = resume ? session.config_file() : config_file;
  const MatchConfig c = load_match_config(config_name);
  // Checked before the data and agents load. A resume from a checkpoint reads its agents from
  // their files (the shapes files may be gone) and fitted in memory before: not estimated again.
  if (!resume || !session.run().has(kState))
    session.check_memory("match", match_memory_estimate(c, config_name, options.threads),
                         "fewer replicates, fewer games_per_round, smaller shapes or fewer threads");

  const std::vector<othello::Position> starts = match_starts(c);
  const int rounds = c.rounds();
  int next_round = 0;
  std::vector<OthelloAgent> agents = starting_agents(session, c, config_name, next_round);

  std::vector<MatchRound> results;
  std::unique_ptr<Backend> backend;
  if (!resume) {
    backend = make_backend(options.backend, options.threads);  // a bad backend leaves no directory
    session.create({{kRounds, kRoundsHeader}}, config_to_toml(c));
  } else {
    results = resume_rounds(session.run(), c, next_round);
    if (options.check_only) return results;
    backend = make_backend(options.backend, options.threads);
  }
  RunDir& run = session.run();

  std::vector<int> handles;
  for (const OthelloAgent& a : agents) handles.push_back(backend->add_agent(a));
  run.log(
      fmt::format("match: {} vs {}, {} games per replicate in rounds of {}, {} replicate(s), from move {} of {} "
                  "dataset games, backend {}{}",
                  c.agents[0].name, c.agents[1].name, c.games, c.games_per_round, c.replicates, c.start_move,
                  starts.size(), backend->name(), next_round ? fmt::format(", resuming at round {}", next_round) : ""));

  // The agents of a checkpoint are written under names that carry the round, and state.toml,
  // written last and atomically, names the round: a crash anywhere in between leaves the
  // previous checkpoint whole. The files of older rounds go once the new state is in place.
  const fs::path ckpt = run.file(kCheckpointDir);
  auto save_checkpoint = [&](int round) {
    fs::create_directories(ckpt);
    for (int p = 0; p < c.replicates; ++p)
      for (int a = 0; a < 2; ++a) save_agent(agents[2 * p + a], ckpt / checkpoint_agent(p, a, round));
    run.write_file(kState, fmt::format("next_round = {}\n", round));
    const std::string suffix = fmt::format("-round{}", round);
    for (const auto& entry : fs::directory_iterator(ckpt)) {
      const std::string name = entry.path().filename().string();
      if (name != "state.toml" && entry.path().stem().string().find(suffix) == std::string::npos) {
        std::error_code ec;
        fs::remove(entry.path(), ec);
      }
    }
  };

  std::vector<double> total_score(c.replicates, 0.0);
  std::vector<int> total_games(c.replicates, 0);
  for (const MatchRound& m : results) {
    total_score[m.replicate] += m.wins + 0.5 * m.draws;
    total_games[m.replicate] += m.wins + m.draws + m.losses;
  }
  const ProgressMeter meter(static_cast<u64>(rounds), static_cast<u64>(next_round));
  // Where a round's time goes, logged with the progress lines (issue 52: the cost of a full run).
  enum Phase : std::size_t { kGames, kScores, kTraining, kFiles };
  PhaseTimes phases({"games", "scores and positions", "training", "rows, checkpoints and log"}, "rounds", "round",
                    next_round);
  for (int round = next_round; round < rounds; ++round) {
    if (session.stop_requested()) {
      save_checkpoint(round);
      if (round > next_round) run.log(phases.report(round - 1));
      session.stopped(fmt::format("before round {}: checkpoint written", round));
      return results;
    }
    const auto t0 = std::chrono::steady_clock::now();
    phases.lap(kFiles);
    const std::vector<OthelloJob> jobs = round_jobs(c, starts, handles, round);
    std::vector<OthelloRecord> records(jobs.size());
    backend->play(jobs, records);
    phases.lap(kGames);

    // Scores, then training: every (replicate, agent, move) network is an independent task.
    std::string rows;
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::vector<std::vector<std::vector<TrainingPosition>>> by_move(c.replicates);
    for (int p = 0; p < c.replicates; ++p) {
      MatchRound m;
      m.replicate = p;
      m.round = round;
      const std::size_t first = static_cast<std::size_t>(p) * c.games_per_round;
      for (int g = 0; g < c.games_per_round; ++g) {
        const int s = records[first + g].black_score * (g % 2 == 0 ? 1 : -1);  // agent 1's view
        (s > 0 ? m.wins : (s < 0 ? m.losses : m.draws))++;
      }
      results.push_back(m);
      total_score[p] += m.wins + 0.5 * m.draws;
      total_games[p] += c.games_per_round;
      rows += fmt::format("{},{},{},{},{},{},{:.6f},{:.3f}\n", p, round, total_games[p], m.wins, m.draws, m.losses,
                          m.score(), seconds);
      by_move[p] = positions_by_move(
          std::vector<OthelloJob>(jobs.begin() + first, jobs.begin() + first + c.games_per_round),
          std::vector<OthelloRecord>(records.begin() + first, records.begin() + first + c.games_per_round));
    }
    phases.lap(kScores);
    if (c.epochs > 0) {
      train_round(*backend, c, agents, by_move, round);
      for (std::size_t i = 0; i < agents.size(); ++i) backend->update_agent(handles[i], agents[i]);
      phases.lap(kTraining);
    }
    run.append_rows(kRounds, rows);  // on disk before the checkpoint that has this round behind it
    const bool last = round + 1 == rounds;
    if ((round + 1) % c.checkpoint_every == 0 || last) save_checkpoint(round + 1);
    if (last || (round + 1) % std::max(1, rounds / 20) == 0) {
      double sum = 0;
      for (int p = 0; p < c.replicates; ++p) sum += total_score[p] / total_games[p];
      double this_round = 0;
      for (int p = 0; p < c.replicates; ++p) this_round += results[results.size() - c.replicates + p].score();
      run.log(
          fmt::format("round {}/{}: {} games per replicate, agent 1 scores {:.3f} overall, {:.3f} this round; "
                      "rounds {}",
                      round + 1, rounds, total_games[0], sum / c.replicates, this_round / c.replicates,
                      meter.status(static_cast<u64>(round) + 1)));
      phases.lap(kFiles);
      run.log(phases.report(round));
    }
  }
  // Final agents, ready to play.
  fs::create_directories(run.file("agents"));
  for (int p = 0; p < c.replicates; ++p)
    for (int a = 0; a < 2; ++a) {
      OthelloAgent agent = agents[2 * p + a];
      const std::string stem = c.replicates == 1 ? fmt::format("agent{}", a + 1) : fmt::format("r{}-agent{}", p, a + 1);
      save_agent(agent, run.file("agents") / (stem + ".toml"));
    }
  return results;
}

}  // namespace ef::play
