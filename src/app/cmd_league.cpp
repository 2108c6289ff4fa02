// evalforge league: the Othello League benchmark of docs/anchors.md (Lucas & Runarsson; Jaskowski &
// Szubert). The agent plays the standard weighted piece counter (SWH) from the start position,
// both at 1 ply (the benchmark measures evaluators, not searches) and both moving at random
// with probability epsilon = 0.1, in double games (each pairing twice, colours swapped); a
// win scores 1, a draw 0.5. Reported: the expected score with its 95% Wilson interval.
#include <fmt/core.h>
#include <chrono>
#include <nlohmann/json.hpp>
#include "app/commands.hpp"
#include "app/options.hpp"
#include "evalforge/backends/backend.hpp"
#include "evalforge/core/error.hpp"
#include "evalforge/core/memory_check.hpp"
#include "evalforge/games/othello/agent_file.hpp"
#include "evalforge/ratings/ratings.hpp"

namespace ef::app {

namespace {

struct LeagueArgs {
  std::string agent;
  int double_games = 1000;
  double epsilon = 0.1;
  int depth = 1;
  u64 seed = 1;
  int threads = 0;
  std::string backend = "cpu";
  bool json = false;
};

void run_league(const LeagueArgs& a) {
  (void)check_memory("league", {play::play_batch_memory<games::Othello>(2.0 * a.double_games)}, "fewer --games");
  play::OthelloAgent agent = play::load_agent(a.agent);
  agent.limits = {a.depth, -1};
  agent.epsilon = a.epsilon;
  play::OthelloAgent swh = play::swh_agent({a.depth, -1});
  swh.epsilon = a.epsilon;
  auto backend = make_backend(a.backend, a.threads);
  const int me = backend->add_agent(agent), them = backend->add_agent(swh);
  std::vector<OthelloJob> jobs;
  for (int g = 0; g < 2 * a.double_games; ++g) {
    OthelloJob j;
    const bool black = g % 2 == 0;  // game 2k: the agent is black; game 2k+1: white
    j.black = black ? me : them;
    j.white = black ? them : me;
    j.seed = a.seed;
    j.game = static_cast<u32>(g);
    jobs.push_back(j);
  }
  std::vector<play::OthelloRecord> records(jobs.size());
  const auto t0 = std::chrono::steady_clock::now();
  backend->play(jobs, records);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  std::vector<ratings::GameResult> games;
  double black_score_sum = 0, white_score_sum = 0;
  for (std::size_t g = 0; g < jobs.size(); ++g) {
    const int s = records[g].black_score;
    const double black = s > 0 ? 1.0 : (s < 0 ? 0.0 : 0.5);
    games.push_back({g % 2 == 0 ? 0 : 1, g % 2 == 0 ? 1 : 0, black});
    (g % 2 == 0 ? black_score_sum : white_score_sum) += g % 2 == 0 ? black : 1.0 - black;
  }
  const auto si = ratings::expected_score_interval(games, 2, 0);
  const double as_black = black_score_sum / a.double_games, as_white = white_score_sum / a.double_games;
  if (a.json) {
    nlohmann::json j{
        {"agent", agent.name},       {"opponent", "swh"}, {"depth", a.depth},           {"epsilon", a.epsilon},
        {"games", si.games},         {"wins", si.wins},   {"draws", si.draws},          {"losses", si.losses},
        {"expected_score", si.mean}, {"low95", si.low95}, {"high95", si.high95},        {"as_black", as_black},
        {"as_white", as_white},      {"seed", a.seed},    {"backend", backend->name()}, {"seconds", seconds}};
    fmt::print("{}\n", j.dump(2));
    return;
  }
  fmt::print("Othello League: {} vs swh, {} ply, epsilon {}, {} double games, backend {}\n", agent.name, a.depth,
             a.epsilon, a.double_games, backend->name());
  fmt::print("  wins {}  draws {}  losses {}\n", si.wins, si.draws, si.losses);
  fmt::print("  expected score {:.3f}  95% interval [{:.3f}, {:.3f}] (Wilson)\n", si.mean, si.low95, si.high95);
  fmt::print("  as black {:.3f}, as white {:.3f}\n", as_black, as_white);
  fmt::print("  {:.1f} s, {:.0f} games/s\n", seconds, seconds > 0 ? si.games / seconds : 0.0);
}

}  // namespace

void register_league(CLI::App& app) {
  auto a = std::make_shared<LeagueArgs>();
  auto* cmd = app.add_subcommand("league", "Othello League benchmark: expected score against SWH (1 ply, epsilon 0.1)");
  cmd->add_option("--agent", a->agent, "Agent file (.toml) or a built-in (swh, random)")->required();
  cmd->add_option("--games", a->double_games, "Double games (each played twice, colours swapped)")
      ->check(CLI::Range(1, 10000000));
  cmd->add_option("--epsilon", a->epsilon, "Probability of a random move, both sides")->check(CLI::Range(0.0, 1.0));
  cmd->add_option("--depth", a->depth, "Search depth of both sides (the benchmark's is 1)")
      ->check(CLI::Range(1, play::kMaxDepth));
  cmd->add_option("--seed", a->seed, "Seed of the random moves");
  cmd->add_option("--threads", a->threads, "CPU worker threads (0 = all)")->check(CLI::Range(0, 1024));
  cmd->add_option("--backend", a->backend, kPlayBackendHelp);
  cmd->add_flag("--json", a->json, "Print the result as JSON");
  cmd->callback([a] { run_league(*a); });
}

}  // namespace ef::app
