// evalforge tictactoe: a round robin of Tic-Tac-Toe players -- the best networks of evolve runs
// (kind tictactoe: RUN/best_networks.csv, played as RUN/config.toml says: topology, depth), the
// static evaluator at chosen depths, and random play -- each pair meeting in the 16-game match
// of the fitness (games/tictactoe/fitness_matches.hpp: 8 openings x both colours, win 30 / draw 15 / loss 0).
// Prints every pair's points and each player's total and Bradley-Terry rating.
#include <fmt/core.h>
#include <filesystem>
#include "app/commands.hpp"
#include "backends/backend.hpp"
#include "core/error.hpp"
#include "games/tictactoe/fitness_matches.hpp"
#include "ratings/ratings.hpp"
#include "runs/evolve_tictactoe.hpp"

namespace ef::app {

namespace {

namespace fs = std::filesystem;

struct TttArgs {
  std::vector<std::string> runs;
  std::vector<int> static_depths{1, 2, 4, 9};
  bool random = true;
  std::string backend = "cpu";
  int threads = 0;
};

void run(const TttArgs& a) {
  std::vector<play::TicTacToeAgent> players;
  for (const auto& r : a.runs)
    for (auto& n : ga::load_best_networks(r)) players.push_back(std::move(n));
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
  if (players.size() < 2) fail("tictactoe: fewer than two players (give --run DIR or --static DEPTHS)");
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
  auto* cmd = app.add_subcommand("tictactoe",
                                 "A round robin of evolved Tic-Tac-Toe networks, the static evaluator and random play");
  cmd->add_option("--run", a->runs, "A tictactoe evolve run directory (its best_networks.csv)")->take_all();
  cmd->add_option("--static", a->static_depths, "Depths of static-evaluator players")
      ->delimiter(',')
      ->capture_default_str();
  cmd->add_flag("!--no-random", a->random, "Leave out the random player");
  cmd->add_option("--threads", a->threads, "CPU worker threads (0 = all)")->check(CLI::Range(0, 1024));
  cmd->add_option("--backend", a->backend, "cpu, cuda or auto");
  cmd->callback([a] { run(*a); });
}

}  // namespace ef::app
