// evalforge tictactoe: a round robin of Tic-Tac-Toe players -- the best networks of evolve runs
// (kind tictactoe: RUN/best_networks.csv, played as RUN/config.toml says: topology, depth), the
// static evaluator at chosen depths, and random play -- each pair meeting in the 16-game match
// of the fitness (games/tictactoe/fitness_matches.hpp: 8 openings x both colours, win 30 / draw 15 / loss 0).
// Prints every pair's points and each player's total and Bradley-Terry rating.
//
// With --measure, no games: each player is measured against perfect play instead
// (games/tictactoe/perfect_play.hpp), beside baselines: the oracle itself, the constant
// evaluator and random networks under the same search, and the static evaluator.
//
// With --save-agents DIR, no games either: an agent file for each best network of the runs, for
// `evalforge gtp --game tictactoe --agent FILE` (games/tictactoe/agent_file.hpp).
#include <fmt/core.h>
#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <utility>
#include "app/commands.hpp"
#include "evalforge/backends/backend.hpp"
#include "evalforge/core/error.hpp"
#include "evalforge/games/tictactoe/agent_file.hpp"
#include "evalforge/games/tictactoe/fitness_matches.hpp"
#include "evalforge/ratings/ratings.hpp"
#include "games/tictactoe/perfect_play.hpp"
#include "runs/evolve_tictactoe.hpp"

namespace ef::app {

namespace {

namespace fs = std::filesystem;

struct TttArgs {
  std::vector<std::string> runs;
  std::vector<std::string> agents;  // --agent: agent files or built-ins
  std::vector<int> static_depths{1, 2, 4, 9};
  bool random = true;
  std::string backend = "cpu";
  int threads = 0;
  // --measure
  bool measure = false;
  std::vector<int> depths;    // the baselines' search depths; empty: the runs' depths, or 4
  std::string topology;       // the random networks'; empty: the runs' topologies, or full
  int random_networks = 100;  // a sample per (topology, depth)
  u64 seed = 1;
  bool json = false;
  std::string save_agents;  // --save-agents DIR
  i64 screen_random = 0;    // --screen-random N
};

// ---- --measure ----

using tictactoe::PlayerMeasures;
using tictactoe::Result;

std::string percent(double share) { return fmt::format("{:.2f}", 100 * share); }

const char* short_result(Result r) { return r == Result::kWin ? "win" : (r == Result::kDraw ? "draw" : "LOSS"); }

nlohmann::json colour_json(const tictactoe::ColourMeasures& c) {
  return {{"worst_vs_perfect", tictactoe::result_name(c.worst_vs_perfect)},
          {"line_vs_perfect", c.line_vs_perfect},
          {"worst_vs_any", tictactoe::result_name(c.worst_vs_any)},
          {"line_vs_any", c.line_vs_any},
          {"vs_random", {{"win", c.win}, {"draw", c.draw}, {"loss", c.loss}}}};
}

nlohmann::json measures_json(const std::string& name, const PlayerMeasures& m) {
  return {{"name", name},
          {"optimal", m.optimal},
          {"optimal_share", m.optimal_share()},
          {"nontrivial_optimal", m.nontrivial_optimal},
          {"nontrivial_optimal_share", m.nontrivial_optimal_share()},
          {"never_loses", m.never_loses()},
          {"holds_perfect_play", m.holds_perfect_play()},
          {"as_x", colour_json(m.as_x)},
          {"as_o", colour_json(m.as_o)}};
}

nlohmann::json spread_json(const tictactoe::Spread& s) { return {{"mean", s.mean}, {"min", s.min}, {"max", s.max}}; }

nlohmann::json summary_json(const tictactoe::MeasureSummary& s) {
  return {{"players", s.players},
          {"optimal_share", spread_json(s.optimal_share)},
          {"nontrivial_optimal_share", spread_json(s.nontrivial_optimal_share)},
          {"as_x_vs_random",
           {{"win", spread_json(s.x_win)}, {"draw", spread_json(s.x_draw)}, {"loss", spread_json(s.x_loss)}}},
          {"as_o_vs_random",
           {{"win", spread_json(s.o_win)}, {"draw", spread_json(s.o_draw)}, {"loss", spread_json(s.o_loss)}}},
          {"lose_vs_perfect",
           {{"as_x", s.x_lose_vs_perfect}, {"as_o", s.o_lose_vs_perfect}, {"either", s.lose_vs_perfect}}},
          {"lose_vs_any", {{"as_x", s.x_lose_vs_any}, {"as_o", s.o_lose_vs_any}, {"either", s.lose_vs_any}}}};
}

struct RandomSample {
  tictactoe::Topology topology;
  int depth;
  std::vector<PlayerMeasures> measures;
};

void measure_players(const TttArgs& a) {
  std::vector<play::TicTacToeAgent> players;
  for (const auto& r : a.runs)
    for (auto& n : ga::load_best_networks(r)) players.push_back(std::move(n));
  for (const auto& f : a.agents) players.push_back(play::load_tictactoe_agent(f));
  // The baselines search as deep as the runs' networks (or --depths), with their topologies.
  std::set<int> depths(a.depths.begin(), a.depths.end());
  std::set<tictactoe::Topology> topologies;
  for (const auto& p : players) {
    if (a.depths.empty()) depths.insert(p.params.depth);
    topologies.insert(p.params.network.topology);
  }
  if (depths.empty()) depths.insert(4);
  if (!a.topology.empty())
    topologies = {a.topology == "paper" ? tictactoe::Topology::kPaper : tictactoe::Topology::kFull};
  if (topologies.empty()) topologies.insert(tictactoe::Topology::kFull);
  for (int d : depths)
    if (d < 1 || d > 9) fail("--depths: depth {} is outside 1..9", d);
  for (int d : a.static_depths) {
    if (d < 1 || d > 9) fail("--static: depth {} is outside 1..9", d);
    players.push_back(play::static_agent(d));
  }
  for (int d : depths) players.push_back(tictactoe::constant_agent(d));

  const tictactoe::PerfectPlay& oracle = tictactoe::PerfectPlay::get();
  std::vector<std::pair<std::string, PlayerMeasures>> rows;
  rows.emplace_back("perfect (the oracle)", tictactoe::measure(tictactoe::perfect_chooser(oracle), oracle));
  const std::vector<PlayerMeasures> measured = tictactoe::measure_agents(players, a.threads);
  for (std::size_t i = 0; i < players.size(); ++i) rows.emplace_back(players[i].name, measured[i]);
  std::vector<RandomSample> samples;
  if (a.random_networks > 0)
    for (tictactoe::Topology t : topologies)
      for (int d : depths)
        samples.push_back(
            {t, d,
             tictactoe::measure_agents(tictactoe::random_network_agents(a.random_networks, t, d, a.seed), a.threads)});

  if (a.json) {
    nlohmann::json j{{"positions", static_cast<int>(oracle.positions_to_move().size())},
                     {"nontrivial_positions", oracle.nontrivial_positions()},
                     {"players", nlohmann::json::array()},
                     {"random_networks", nlohmann::json::array()}};
    for (const auto& [name, m] : rows) j["players"].push_back(measures_json(name, m));
    for (const RandomSample& s : samples) {
      nlohmann::json networks = nlohmann::json::array();
      for (std::size_t i = 0; i < s.measures.size(); ++i)
        networks.push_back(measures_json(fmt::format("random-net{}", i), s.measures[i]));
      j["random_networks"].push_back({{"topology", tictactoe::topology_name(s.topology)},
                                      {"depth", s.depth},
                                      {"seed", a.seed},
                                      {"summary", summary_json(tictactoe::summarize(s.measures))},
                                      {"networks", networks}});
    }
    fmt::print("{}\n", j.dump(2));
    return;
  }

  std::size_t width = 6;
  for (const auto& row : rows) width = std::max(width, row.first.size());
  fmt::print(
      "Tic-Tac-Toe players against perfect play: optimal moves in the {} positions with a side to move and in "
      "the {} non-trivial ones (where some move is worse than the best), the worst result against any line of "
      "perfect play and against any opponent, and exact win/draw/loss percentages against a uniformly random "
      "opponent\n\n",
      oracle.positions_to_move().size(), oracle.nontrivial_positions());
  fmt::print("{:<{}} {:^16} | {:^13} | {:^13} | {:^20} | {:^20}\n", "", width, "optimal %", "worst as X", "worst as O",
             "X vs random %", "O vs random %");
  fmt::print("{:<{}} {:>7} {:>8} | {:>7} {:>5} | {:>7} {:>5} | {:>6} {:>6} {:>6} | {:>6} {:>6} {:>6}\n", "player",
             width, "all", "non-triv", "perfect", "any", "perfect", "any", "win", "draw", "loss", "win", "draw",
             "loss");
  for (const auto& [name, m] : rows)
    fmt::print("{:<{}} {:>7} {:>8} | {:>7} {:>5} | {:>7} {:>5} | {:>6} {:>6} {:>6} | {:>6} {:>6} {:>6}\n", name, width,
               percent(m.optimal_share()), percent(m.nontrivial_optimal_share()), short_result(m.as_x.worst_vs_perfect),
               short_result(m.as_x.worst_vs_any), short_result(m.as_o.worst_vs_perfect),
               short_result(m.as_o.worst_vs_any), percent(m.as_x.win), percent(m.as_x.draw), percent(m.as_x.loss),
               percent(m.as_o.win), percent(m.as_o.draw), percent(m.as_o.loss));
  for (const RandomSample& s : samples) {
    const tictactoe::MeasureSummary sum = tictactoe::summarize(s.measures);
    auto spread = [](const tictactoe::Spread& v) {
      return fmt::format("{:>6} [{}, {}]", percent(v.mean), percent(v.min), percent(v.max));
    };
    fmt::print("\n{} random networks ({} topology, depth {}, seed {}): mean [min, max] in %\n", sum.players,
               tictactoe::topology_name(s.topology), s.depth, a.seed);
    fmt::print("  optimal moves                {}\n", spread(sum.optimal_share));
    fmt::print("  optimal, non-trivial         {}\n", spread(sum.nontrivial_optimal_share));
    fmt::print("  X vs random: win             {}\n", spread(sum.x_win));
    fmt::print("               draw            {}\n", spread(sum.x_draw));
    fmt::print("               loss            {}\n", spread(sum.x_loss));
    fmt::print("  O vs random: win             {}\n", spread(sum.o_win));
    fmt::print("               draw            {}\n", spread(sum.o_draw));
    fmt::print("               loss            {}\n", spread(sum.o_loss));
    fmt::print("  lose to some perfect-play line: {} as X, {} as O, {} with either colour (of {})\n",
               sum.x_lose_vs_perfect, sum.o_lose_vs_perfect, sum.lose_vs_perfect, sum.players);
    fmt::print("  lose to some opponent:          {} as X, {} as O, {} with either colour (of {})\n", sum.x_lose_vs_any,
               sum.o_lose_vs_any, sum.lose_vs_any, sum.players);
  }
}

void save_agents(const TttArgs& a) {
  if (a.runs.empty()) fail("tictactoe --save-agents: give the runs whose best networks to save (--run DIR)");
  if (a.measure) fail("tictactoe: --save-agents and --measure are separate uses; give one");
  for (const auto& r : a.runs)
    for (const fs::path& f : ga::save_best_network_agents(r, a.save_agents)) fmt::print("{}\n", f.string());
}

// ---- --screen-random ----

// The random-sampling baseline of a run: how many random networks never lose, with the share's
// 95% Wilson interval and what that means in networks drawn per such network.
void screen_random(const TttArgs& a) {
  if (a.measure || !a.save_agents.empty() || !a.runs.empty() || !a.agents.empty())
    fail("tictactoe: --screen-random is a use of its own (with --depths, --topology, --seed, --threads, --json)");
  const std::vector<int> depths = a.depths.empty() ? std::vector<int>{4} : a.depths;
  const tictactoe::Topology topology = a.topology == "paper" ? tictactoe::Topology::kPaper : tictactoe::Topology::kFull;
  nlohmann::json j = nlohmann::json::array();
  for (int d : depths) {
    const tictactoe::RandomScreen s =
        tictactoe::screen_random_networks(a.screen_random, topology, d, a.seed, a.threads);
    const ratings::ScoreInterval share =
        ratings::score_interval(static_cast<int>(s.never_lose), 0, static_cast<int>(s.count - s.never_lose));
    // Networks drawn per network that never loses: 1 / share (infinite at a share of 0).
    auto per = [](double p) { return p > 1e-12 ? fmt::format("{:.0f}", 1 / p) : std::string("inf"); };
    if (a.json) {
      j.push_back({{"topology", tictactoe::topology_name(topology)},
                   {"depth", d},
                   {"seed", a.seed},
                   {"networks", s.count},
                   {"never_lose", s.never_lose},
                   {"first", s.first},
                   {"share", share.mean},
                   {"share_low95", share.low95},
                   {"share_high95", share.high95}});
      continue;
    }
    fmt::print(
        "random sampling ({} topology, depth {}, seed {}): {} of {} networks never lose to any opponent with either "
        "colour (the first: {})\n  share {:.4f} % [{:.4f}, {:.4f}] (95% Wilson); networks drawn per such network: {} "
        "[{}, {}]\n",
        tictactoe::topology_name(topology), d, a.seed, s.never_lose, s.count,
        s.first < 0 ? std::string("none") : fmt::format("network {}", s.first), 100 * share.mean, 100 * share.low95,
        100 * share.high95, per(share.mean), per(share.high95), per(share.low95));
  }
  if (a.json) fmt::print("{}\n", j.dump(2));
}

void run(const TttArgs& a) {
  if (a.screen_random > 0) {
    screen_random(a);
    return;
  }
  if (!a.save_agents.empty()) {
    save_agents(a);
    return;
  }
  if (a.measure) {
    measure_players(a);
    return;
  }
  std::vector<play::TicTacToeAgent> players;
  for (const auto& r : a.runs)
    for (auto& n : ga::load_best_networks(r)) players.push_back(std::move(n));
  for (const auto& f : a.agents) players.push_back(play::load_tictactoe_agent(f));
  for (int d : a.static_depths) {
    if (d < 1 || d > 9) fail("--static: depth {} is outside 1..9", d);
    players.push_back(play::static_agent(d));
  }
  if (a.random) {
    play::TicTacToeAgent r;
    r.name = "random";
    r.params.kind = play::TicTacToeEvaluator::kRandom;
    players.push_back(r);
  }
  if (players.size() < 2) fail("tictactoe: fewer than two players (give --run DIR, --agent FILE or --static DEPTHS)");
  auto backend = make_backend(a.backend, a.threads);
  const play::TttRoundRobin rr = play::ttt_round_robin(*backend, players);
  const auto& table = rr.points;
  const std::size_t n = players.size();
  const auto fit = ratings::fit_bradley_terry(rr.games, static_cast<int>(n));
  std::size_t width = 8;
  for (const auto& p : players) width = std::max(width, p.name.size());
  fmt::print(
      "Tic-Tac-Toe round robin: {} players, 16 games a pair (8 openings x both colours), points of the row "
      "player (240 = all drawn)\n\n",
      n);
  fmt::print("{:<{}} {:>7} {:>9}", "player", width, "total", "BT elo");
  for (std::size_t j = 0; j < n; ++j) fmt::print(" {:>5}", j + 1);
  fmt::print("\n");
  for (std::size_t i = 0; i < n; ++i) {
    int total = 0;
    for (std::size_t j = 0; j < n; ++j)
      if (j != i) total += table[i][j];
    fmt::print("{:<{}} {:>7} {:>+9.0f}", fmt::format("{} {}", i + 1, players[i].name), width + 3, total,
               fit.ratings[i]);
    for (std::size_t j = 0; j < n; ++j) fmt::print(" {:>5}", j == i ? std::string("-") : std::to_string(table[i][j]));
    fmt::print("\n");
  }
}

}  // namespace

void register_tictactoe(CLI::App& app) {
  auto a = std::make_shared<TttArgs>();
  auto* cmd = app.add_subcommand(
      "tictactoe",
      "A round robin of evolved Tic-Tac-Toe networks, the static evaluator and random play; or, with --measure, "
      "their measures against perfect play");
  cmd->add_option("--run", a->runs, "A tictactoe evolve run directory (its best_networks.csv)")->take_all();
  cmd->add_option("--agent", a->agents,
                  "Tic-Tac-Toe agent files (or the built-ins perfect, random, static) to play or measure too")
      ->take_all();
  cmd->add_option("--static", a->static_depths, "Depths of static-evaluator players")
      ->delimiter(',')
      ->capture_default_str();
  cmd->add_flag("!--no-random", a->random, "Leave out the random player");
  cmd->add_option("--threads", a->threads, "CPU worker threads (0 = all)")->check(CLI::Range(0, 1024));
  cmd->add_option("--backend", a->backend, "cpu, cuda or auto");
  cmd->add_flag("--measure", a->measure,
                "No games: measure each player against perfect play (optimal-move shares, worst results against "
                "perfect play and against any opponent, exact results against a random opponent), beside "
                "baselines: the oracle, the constant evaluator, random networks and the --static players "
                "(docs/tictactoe.md); --no-random and --backend do not apply");
  cmd->add_option("--depths", a->depths,
                  "--measure, --screen-random: search depths of the constant-evaluator and random-network baselines "
                  "(default: the depths of the --run networks, or 4)")
      ->delimiter(',')
      ->check(CLI::Range(1, 9));
  cmd->add_option("--topology", a->topology,
                  "--measure, --screen-random: the random networks' topology (default: the --run networks', or full)")
      ->check(CLI::IsMember({"full", "paper"}));
  cmd->add_option("--random-networks", a->random_networks,
                  "--measure: random networks per topology and depth (0 = none)")
      ->capture_default_str()
      ->check(CLI::Range(0, 1000000));
  cmd->add_option("--seed", a->seed,
                  "--measure, --screen-random: seed of the random networks (drawn as the GA's generation 0)")
      ->capture_default_str();
  cmd->add_option("--save-agents", a->save_agents,
                  "No games: write an agent file (DIR/RUN-t<trial><population>.toml) for each best network of the "
                  "--run directories, for `evalforge gtp --game tictactoe --agent FILE`; prints the files");
  cmd->add_option("--screen-random", a->screen_random,
                  "No games: draw N random networks per --depths (default 4) with --topology (default full) and "
                  "--seed, as the GA draws its generation 0, and count those that never lose to any opponent with "
                  "either colour, with a 95% interval: the random-sampling baseline a run must beat "
                  "(docs/tictactoe.md)")
      ->check(CLI::Range(i64{1}, i64{1000000000}))
      // The flags of the other uses, which it would ignore (--run, --agent, --measure and
      // --save-agents are refused in screen_random, naming it).
      ->excludes("--static")
      ->excludes("--no-random")
      ->excludes("--backend")
      ->excludes("--random-networks");
  cmd->add_flag(
      "--json", a->json,
      "--measure, --screen-random: print JSON instead of the table (--measure: with each player's worst lines)");
  cmd->callback([a] { run(*a); });
}

}  // namespace ef::app
