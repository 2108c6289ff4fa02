// evalforge tictactoe: a round robin of Tic-Tac-Toe players -- the best networks of evolve runs
// (kind tictactoe: RUN/best_networks.csv, played as RUN/config.toml says: topology, depth), the
// static evaluator at chosen depths, and random play -- each pair meeting in the 16-game match
// of the fitness (play/ttt_matches.hpp: 8 openings x both colours, win 30 / draw 15 / loss 0).
// Prints every pair's points and each player's total and Bradley-Terry rating.
#include <fmt/core.h>
#include <filesystem>
#include <fstream>
#include <sstream>
#include "app/commands.hpp"
#include "core/run_dir.hpp"
#include "evalforge/backend.hpp"
#include "evalforge/core/error.hpp"
#include "ga/evolve_config.hpp"
#include "ga/ratings.hpp"
#include "play/ttt_matches.hpp"

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

ga::BitString bits_from_hex(const std::string& hex, int bits, const std::string& where) {
  ga::BitString b;
  for (char h : hex) {
    int v;
    if (h >= '0' && h <= '9') v = h - '0';
    else if (h >= 'a' && h <= 'f') v = h - 'a' + 10;
    else fail("{}: '{}' is not a hex digit", where, h);
    for (int k = 3; k >= 0; --k) b.push_back(static_cast<unsigned char>(v >> k & 1));
  }
  if (static_cast<int>(b.size()) < bits || static_cast<int>(b.size()) >= bits + 4)
    fail("{}: {} hex digits for a network of {} bits", where, hex.size(), bits);
  b.resize(bits);
  return b;
}

// The best networks of one run, named "RUN:t<trial><population>".
std::vector<play::TicTacToeAgent> run_networks(const fs::path& dir) {
  const ga::EvolveConfig c = ga::load_evolve_config((dir / "config.toml").string());
  if (c.kind != "tictactoe") fail("{}: not a tictactoe evolve run (kind {})", dir.string(), c.kind);
  const fs::path file = dir / "best_networks.csv";
  std::ifstream in(file);
  if (!in) fail("{}: cannot read (is the run complete?)", file.string());
  std::vector<play::TicTacToeAgent> out;
  std::string line;
  std::getline(in, line);
  for (std::size_t lineno = 2; std::getline(in, line); ++lineno) {
    const std::string where = fmt::format("{}:{}", file.string(), lineno);
    std::vector<std::string> f;
    std::stringstream ss(line);
    for (std::string x; std::getline(ss, x, ',');) f.push_back(x);
    if (f.size() != 5) fail("{}: expected 5 columns (trial,population,fitness,monitor,bits)", where);
    const auto trial = parse_int_field(f[0], 0, 1000, where, "trial");
    out.push_back(play::network_agent(bits_from_hex(f[4], c.ttt.ga.bits, where), c.ttt.topology, c.ttt.depth,
                                      fmt::format("{}:t{}{}", dir.filename().string(), trial, f[1])));
  }
  if (out.empty()) fail("{}: no networks", file.string());
  return out;
}

void run(const TttArgs& a) {
  std::vector<play::TicTacToeAgent> players;
  for (const auto& r : a.runs)
    for (auto& n : run_networks(r)) players.push_back(std::move(n));
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
  play::TttMatches matches(*backend);
  std::vector<play::TttMatch> list;
  for (std::size_t i = 0; i < players.size(); ++i)
    for (std::size_t j = i + 1; j < players.size(); ++j) list.push_back({&players[i], &players[j]});
  const std::vector<int> points = matches.play(list);
  // Points of i against j (0..480); the match's 16 games as Bradley-Terry results (a draw is
  // half a win: 15 points of 30 per game).
  const std::size_t n = players.size();
  std::vector<std::vector<int>> table(n, std::vector<int>(n, -1));
  std::vector<tournament::GameResult> games;
  for (std::size_t k = 0, i = 0; i < n; ++i)
    for (std::size_t j = i + 1; j < n; ++j, ++k) {
      table[i][j] = points[k];
      table[j][i] = 2 * 16 * play::kTttDrawPoints - points[k];
      // Points are 30/15/0 per game: rebuild wins and draws from the sum over 16 games is not
      // unique, so rate by the match score as 32 half-games.
      const int half_wins = points[k] / play::kTttDrawPoints;  // 0..32
      for (int h = 0; h < 32; ++h)
        games.push_back({static_cast<int>(i), static_cast<int>(j), h < half_wins ? 1.0 : 0.0});
    }
  const auto fit = tournament::fit_bradley_terry(games, static_cast<int>(n));
  std::size_t width = 8;
  for (const auto& p : players) width = std::max(width, p.name.size());
  fmt::print("Tic-Tac-Toe round robin: {} players, 16 games a pair (8 openings x both colours), points of the row "
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
  auto* cmd = app.add_subcommand("tictactoe", "A round robin of evolved Tic-Tac-Toe networks, the static evaluator and random play");
  cmd->add_option("--run", a->runs, "A tictactoe evolve run directory (its best_networks.csv)")->take_all();
  cmd->add_option("--static", a->static_depths, "Depths of static-evaluator players")->delimiter(',')->capture_default_str();
  cmd->add_flag("!--no-random", a->random, "Leave out the random player");
  cmd->add_option("--threads", a->threads, "CPU worker threads (0 = all)")->check(CLI::Range(0, 1024));
  cmd->add_option("--backend", a->backend, "cpu, cuda or auto");
  cmd->callback([a] { run(*a); });
}

}  // namespace ef::app
