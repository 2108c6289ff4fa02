// evalforge hex: the Hex experiments of docs/method.md section 4.
//   hex match    two players (specs: games/hex/player_spec.hpp) over N games, colours alternating, as a
//                resumable run directory; prints A's score with a 95% Wilson interval
//   hex analyse  the network characteristics (d, L, C, C') of both colours along the games of a
//                match run, split by who won: the data that fixes the evaluation's sign
#include <fmt/chrono.h>
#include <fmt/core.h>
#include <fmt/ranges.h>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <ctime>
#include <memory>
#include <sstream>
#include <thread>
#include "app/commands.hpp"
#include "app/options.hpp"
#include "core/parallel.hpp"
#include "evalforge/core/error.hpp"
#include "evalforge/core/run_dir.hpp"
#include "evalforge/games/hex/characteristics.hpp"
#include "evalforge/ratings/ratings.hpp"
#include "games/hex/player_spec.hpp"
#include "games/hex/solver.hpp"
#include "runs/hex_match_run.hpp"
#include "runs/hex_tune_run.hpp"

namespace ef::app {

namespace {

struct HexMatchArgs {
  play::HexMatchConfig config;
  std::string out, resume;
  int threads = 0;
  bool accept_config_edits = false;
};

void print_summary(const std::vector<play::HexGameRow>& rows, const std::string& dir) {
  std::vector<ratings::GameResult> all, as_black, as_white;
  double seconds = 0;
  for (const auto& r : rows) {
    const ratings::GameResult g{0, 1, r.a_won ? 1.0 : 0.0};
    all.push_back(g);
    (r.a_black ? as_black : as_white).push_back(g);
    seconds += r.seconds;
  }
  if (all.empty()) return;
  auto line = [](const char* what, const std::vector<ratings::GameResult>& v) {
    if (v.empty()) return;
    const auto s = ratings::expected_score_interval(v, 2, 0);
    fmt::print("  {:<10} A wins {}/{} = {:.1f}%  95% interval [{:.1f}%, {:.1f}%] (Wilson)\n", what, s.wins, s.games,
               100 * s.mean, 100 * s.low95, 100 * s.high95);
  };
  fmt::print("{}: {} games, {:.0f} s of play in all\n", dir, rows.size(), seconds);
  line("all", all);
  line("A black", as_black);
  line("A white", as_white);
}

// Where a resumable `hex COMMAND` runs: the directory of --resume (its settings come from it),
// or --out, by default runs/hex-COMMAND-DATE-TIME; and the hint its errors give for resuming.
struct RunTarget {
  std::string dir, resume_hint;
  bool resume = false;
};

RunTarget run_target(const char* command, const std::string& resume, const std::string& out) {
  RunTarget t;
  t.resume = !resume.empty();
  if (t.resume && !out.empty()) fail("hex {}: --resume DIR takes its settings from DIR; drop --out", command);
  t.dir = t.resume
              ? resume
              : (out.empty() ? fmt::format("runs/hex-{}-{:%Y%m%d-%H%M%S}", command, fmt::localtime(std::time(nullptr)))
                             : out);
  t.resume_hint = fmt::format("evalforge hex {} --resume {}", command, t.dir);
  return t;
}

void run_hex_match_command(const HexMatchArgs& a) {
  play::HexMatchRunOptions o;
  set_run_options(o, a.threads, a.accept_config_edits);
  bool stopped = false;
  o.stopped = &stopped;
  const RunTarget t = run_target("match", a.resume, a.out);
  o.resume_hint = t.resume_hint;
  const auto rows = play::run_hex_match(t.dir, t.resume ? nullptr : &a.config, o);
  print_summary(rows, t.dir);
  if (stopped) throw ExitStatus{kStoppedExitStatus};
}

struct HexAnalyseArgs {
  std::string run;
  int bucket = 10;
  bool bridges = true;
  bool groups = true;
};

// Per bucket of plies: how often the winner's characteristic is the smaller of the two colours'.
void run_hex_analyse(const HexAnalyseArgs& a) {
  RunDir run = RunDir::open(a.run, "hex-match", RunDir::Access::kRead);  // a match may be running
  const play::HexMatchConfig c = play::load_hex_match_config(run.file("config.toml").string());
  // Read, never rewritten (a match may still be appending): whole lines only, 7 fields each.
  std::vector<std::vector<std::string>> rows;
  {
    const std::string text = run.read_file("games.csv", FileKind::kRunTable);
    std::size_t pos = text.find('\n');
    for (int lineno = 2; pos != std::string::npos && pos + 1 < text.size(); ++lineno) {
      const std::size_t end = text.find('\n', pos + 1);
      if (end == std::string::npos) break;  // a row still being written
      std::vector<std::string> f;
      std::stringstream ss(text.substr(pos + 1, end - pos - 1));
      for (std::string x; std::getline(ss, x, ',');) f.push_back(x);
      if (f.size() != 7) fail("{}:{}: {} fields (expected 7)", run.file("games.csv").string(), lineno, f.size());
      rows.push_back(std::move(f));
      pos = end;
    }
  }
  struct Tally {
    long positions = 0;
    long smaller[4] = {0, 0, 0, 0};      // winner's d, L, C, C' below the loser's
    double log_ratio[4] = {0, 0, 0, 0};  // sum of log(loser / winner)
  };
  std::vector<Tally> buckets;
  hex::NetworkOptions options;
  options.bridges = options.edge_bridges = a.bridges;
  options.groups = a.groups;
  hex::PositionNetwork g;
  for (const auto& f : rows) {
    const bool black_won = (f[1] == f[3]);  // the winner is the player that played Black
    hex::Board b = hex::empty_board(c.size, c.swap);
    std::istringstream in(f[6]);
    int ply = 0;
    for (std::string cell; in >> cell;) {
      const int sq = play::parse_hex_cell(cell, c.size);
      if (sq < 0 || !b.legal(sq))
        fail("{}: game {}: move '{}' is not legal", run.file("games.csv").string(), f[0], cell);
      b = b.play(sq);
      ++ply;
      if (b.terminal()) break;
      hex::NetworkStats s[2];
      for (int colour = 0; colour < 2; ++colour) {
        hex::build_network(b, colour, options, g);
        hex::network_stats(g, s[colour]);
      }
      const hex::NetworkStats& w = s[black_won ? 0 : 1];
      const hex::NetworkStats& l = s[black_won ? 1 : 0];
      const double wv[4] = {double(w.d), w.L, w.C, w.C_prime}, lv[4] = {double(l.d), l.L, l.C, l.C_prime};
      const std::size_t k = static_cast<std::size_t>((ply - 1) / a.bucket);
      if (buckets.size() <= k) buckets.resize(k + 1);
      Tally& t = buckets[k];
      ++t.positions;
      for (int i = 0; i < 4; ++i) {
        t.smaller[i] += wv[i] < lv[i];
        if (wv[i] > 0 && lv[i] > 0) t.log_ratio[i] += std::log(lv[i] / wv[i]);
      }
    }
  }
  fmt::print(
      "{}: {} games; per ply bucket, the share of positions where the WINNER's value is the smaller one\n"
      "and the mean log(loser / winner) (virtual connections: {})\n",
      a.run, rows.size(), a.bridges ? "bridges + edge bridges" : "adjacency only");
  fmt::print("(own stones: {})\n", a.groups ? "one node per group" : "one node per stone");
  fmt::print("{:>9} {:>9} | {:>14} {:>14} {:>14} {:>14}\n", "plies", "positions", "d", "L", "C", "C'");
  for (std::size_t k = 0; k < buckets.size(); ++k) {
    const Tally& t = buckets[k];
    if (!t.positions) continue;
    fmt::print("{:>4}-{:<4} {:>9} |", k * a.bucket + 1, (k + 1) * a.bucket, t.positions);
    for (int i = 0; i < 4; ++i)
      fmt::print(" {:>5.1f}% {:+6.3f}", 100.0 * t.smaller[i] / t.positions, t.log_ratio[i] / t.positions);
    fmt::print("\n");
  }
}

struct HexTournamentArgs {
  std::vector<std::string> players;
  int games = 20;  // per pair
  int size = 11;
  bool swap = false;
  int opening_plies = 0;
  u64 seed = 1;
  int threads = 0;
};

// A round robin (games/hex/player_spec.hpp hex_round_robin). Prints the cross table (wins of the
// row player) and the Bradley-Terry ratings (ratings/ratings.hpp) with 95% margins.
void run_hex_tournament(const HexTournamentArgs& a) {
  std::vector<play::HexPlayer> players;
  for (const auto& spec : a.players) players.push_back(play::parse_hex_player(spec));
  const int n = static_cast<int>(players.size());
  if (n < 2) fail("hex tournament: give at least two --player specs");
  if (n > 64) fail("hex tournament: {} players (at most 64)", n);
  if (a.opening_plies > 0 && a.games % 2)
    fail("hex tournament: --games {} is odd; with --opening-plies each opening is played once with each colour",
         a.games);
  std::vector<play::HexClock> clocks;
  const std::vector<ratings::GameResult> results = play::hex_round_robin(
      players, a.games, hex::empty_board(a.size, a.swap), a.seed, a.threads, a.opening_plies, &clocks);
  std::vector<int> wins(static_cast<std::size_t>(n) * n, 0);
  for (const auto& g : results) {
    const int winner = g.score > 0.5 ? g.first : g.second, loser = g.score > 0.5 ? g.second : g.first;
    ++wins[static_cast<std::size_t>(winner) * n + loser];
  }
  const auto fit = ratings::fit_bradley_terry(results, n);
  fmt::print("Hex round robin on {}x{}{}, {} games a pair{} (row player's wins; ms: thinking time per move)\n", a.size,
             a.size, a.swap ? " with swap" : "", a.games,
             a.opening_plies > 0 ? fmt::format(" from {} openings of {} random plies", a.games / 2, a.opening_plies)
                                 : std::string());
  std::size_t width = 0;
  for (const auto& p : players) width = std::max(width, p.spec.size());
  for (int i = 0; i < n; ++i) {
    fmt::print("{:>3} {:<{}}", i + 1, players[i].spec, width);
    for (int j = 0; j < n; ++j) {
      if (i == j)
        fmt::print("    -");
      else
        fmt::print(" {:>4}", wins[static_cast<std::size_t>(i) * n + j]);
    }
    const play::HexClock& c = clocks[static_cast<std::size_t>(i)];
    fmt::print("   Elo {:+7.1f} +- {:.1f}   {:.1f} ms\n", fit.ratings[i], fit.margins95[i],
               c.moves ? 1e3 * c.seconds / static_cast<double>(c.moves) : 0.0);
  }
}

struct HexTuneArgs {
  ga::HexTuneConfig config;
  std::string out, resume;
  int threads = 0;
  bool accept_config_edits = false;
};

void run_hex_tune_command(const HexTuneArgs& a) {
  ga::HexTuneOptions o;
  set_run_options(o, a.threads, a.accept_config_edits);
  bool stopped = false;
  o.stopped = &stopped;
  const RunTarget t = run_target("tune", a.resume, a.out);
  o.resume_hint = t.resume_hint;
  const ga::HexTuneResult r = ga::run_hex_tune(t.dir, t.resume ? nullptr : &a.config, o);
  if (r.generations_done == 0)  // stopped before its first generation ended: no gamma was measured
    fmt::print("{}: no generation finished yet, so no best gamma (resume to go on)\n", t.dir);
  else
    fmt::print("{}: {} generation(s); best gamma {:.4f}, winning {:.1f}% of its games (generations.csv, best.csv)\n",
               t.dir, r.generations_done, r.best_gamma, 100 * (1 - r.best_fitness));
  if (stopped) throw ExitStatus{kStoppedExitStatus};
}

struct HexSolveArgs {
  int size = 4;
  bool no_fill = false;
  bool no_captured = false;
  bool no_vcs = false;
  bool no_prune = false;
  bool negamax = false;
  bool winner_only = false;
  u64 max_nodes = 0;
  std::string moves;  // a position: these moves from the empty board (empty: every first move)
};

// The position after `moves` (cell names, space-separated) from the empty n x n board; an
// ef::Error names the move that is unknown or illegal, or says that the game is over.
hex::Board position_after(const std::string& moves, int n) {
  hex::Board b = hex::empty_board(n);
  std::istringstream in(moves);
  int k = 0;
  for (std::string cell; in >> cell; ++k) {
    if (b.terminal())
      fail_input("moves", "move {} ('{}') comes after the game is over ({} connected with move {})", k + 1, cell,
                 b.winner == hex::kBlack ? "Black" : "White", k);
    const int sq = play::parse_hex_cell(cell, n);
    if (sq < 0 || sq == hex::kSwapSquare || !b.legal(sq))
      fail_input("moves", "move {} ('{}') is not an empty cell of the {}x{} board", k + 1, cell, n, n);
    b = b.play(sq);
  }
  if (b.terminal())
    fail_input("moves", "the game is over after these moves ({} has connected)",
               b.winner == hex::kBlack ? "Black" : "White");
  return b;
}

hex::HexSolverOptions solver_options(const HexSolveArgs& a) {
  return {.fill_dead = !a.no_fill,
          .fill_captured = !a.no_fill && !a.no_captured,
          .proof_numbers = !a.negamax,
          .use_vcs = !a.no_vcs,
          .prune_dominated = !a.no_prune,
          .max_nodes = a.max_nodes};
}

std::string solver_description(const HexSolveArgs& a) {
  return fmt::format(
      "{}, {}, {}, {}", a.negamax ? "negamax" : "df-pn",
      a.no_fill ? "no fill-in" : (a.no_captured ? "dead cells filled" : "dead and captured cells filled"),
      a.no_vcs ? "no virtual connections" : "virtual connections and must-play",
      a.no_prune ? "every move searched" : "dominated and vulnerable moves left out");
}

// One position, solved: who wins, and every winning move of the side to move.
void run_hex_solve_position(const HexSolveArgs& a) {
  const hex::Board b = position_after(a.moves, a.size);
  const auto start = std::chrono::steady_clock::now();
  hex::HexSolver solver(solver_options(a));
  const char* side = b.side == hex::kBlack ? "Black" : "White";
  if (a.winner_only) {
    const bool wins = solver.wins(b);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    fmt::print("{} to move {}\n{} nodes, {} positions, {:.2f} s ({})\n", side, wins ? "wins" : "loses", solver.nodes(),
               solver.table_size(), seconds, solver_description(a));
    return;
  }
  std::vector<std::string> winning;
  for (hex::Cells e = b.empty(); e.any(); e.drop_lowest())
    if (!solver.wins(b.play(e.lowest()))) winning.push_back(play::hex_cell_name(e.lowest()));
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (winning.empty())
    fmt::print("{} to move loses ({} empty cells, every move loses)", side, b.empty().count());
  else
    fmt::print("{} to move wins; winning moves ({} of {}): {}", side, winning.size(), b.empty().count(),
               fmt::join(winning, " "));
  fmt::print("\n{} nodes, {} positions, {:.2f} s ({})\n", solver.nodes(), solver.table_size(), seconds,
             solver_description(a));
}

// Every first move on the empty board, solved (games/hex/solver.hpp), drawn as the board.
void run_hex_solve(const HexSolveArgs& a) {
  if (!a.moves.empty()) return run_hex_solve_position(a);
  if (a.winner_only) fail_input("winner-only", "needs --moves (the empty board's table solves every first move)");
  const auto start = std::chrono::steady_clock::now();
  // Each first move as it is solved, on stderr: a long run (7 x 7) shows what it has so far.
  const hex::OpeningTable t = hex::solve_openings(a.size, solver_options(a), [&](int square, bool black_wins) {
    const double so_far = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    fmt::print(stderr, "{}: {} ({:.1f} s)\n", play::hex_cell_name(square), black_wins ? "Black wins" : "White wins",
               so_far);
  });
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  fmt::print(
      "hex solve {0}x{0}: Black (rows 1 to {0}) moves first; W = Black wins after a first move there, "
      "L = Black loses\n   ",
      a.size);
  for (int c = 0; c < a.size; ++c) fmt::print(" {}", static_cast<char>('a' + c));
  fmt::print("\n");
  int wins = 0;
  for (int r = 0; r < a.size; ++r) {
    fmt::print("{:>{}}{:>2} ", "", r, r + 1);
    for (int c = 0; c < a.size; ++c) {
      const auto at = std::find(t.squares.begin(), t.squares.end(), hex::square_of(c, r)) - t.squares.begin();
      const bool win = t.black_wins[static_cast<std::size_t>(at)];
      wins += win;
      fmt::print(" {}", win ? 'W' : 'L');
    }
    fmt::print("\n");
  }
  fmt::print("{} winning first moves of {}; {} nodes, {} positions, {:.2f} s ({})\n", wins, t.squares.size(), t.nodes,
             t.positions, seconds, solver_description(a));
}

}  // namespace

void register_hex(CLI::App& app) {
  auto* hex =
      app.add_subcommand("hex", "Hex: network-characteristics evaluation (Ev, Ev') against UCT (resumable matches)");
  hex->require_subcommand(1);
  auto m = std::make_shared<HexMatchArgs>();
  auto* match =
      hex->add_subcommand("match", "Players A and B over N games, colours alternating (A is Black in even games)");
  // The match's settings: a resumed match takes them from its directory, so --resume refuses them.
  std::vector<CLI::Option*> match_settings;
  match_settings.push_back(
      match
          ->add_option("--a", m->config.a,
                       "Player A: random | ev[:gamma=G,depth=D,bridges=0|1,edge_bridges=0|1,groups=0|1,sign=1|-1,"
                       "cp_sign=1|-1,epsilon=E] | "
                       "resistance[:depth=D] | uct[:playouts=P,c=C,expand=K,batch=B,playout=random|bridge] | "
                       "vcab[:depth=D,width=W,eval=resistance|ev|vc-resistance,gamma=G,fill=dead|captured,"
                       "prune=none|dominated,time=S]; any with vc=1")
          ->capture_default_str());
  match_settings.push_back(match->add_option("--b", m->config.b, "Player B (as --a)")->capture_default_str());
  match_settings.push_back(
      match->add_option("--games", m->config.games, "Games")->check(CLI::Range(1, 1 << 24))->capture_default_str());
  match_settings.push_back(match->add_option("--size", m->config.size, "Board side")
                               ->check(CLI::Range(1, hex::kMaxSide))
                               ->capture_default_str());
  match_settings.push_back(match->add_flag("--swap", m->config.swap, "Play with the swap (pie) rule"));
  match_settings.push_back(
      match->add_option("--seed", m->config.seed, "Seed of the games' random streams")->capture_default_str());
  match->add_option("--out", m->out, "Run directory (default runs/hex-match-DATE-TIME)");
  CLI::Option* match_resume = match->add_option("--resume", m->resume, "Continue the match in this directory");
  add_accept_config_edits(*match, match_resume, m->accept_config_edits);
  for (CLI::Option* o : match_settings) match_resume->excludes(o);
  match->add_option("--threads", m->threads, "Games played at once (0 = all hardware threads)")
      ->check(CLI::Range(0, 1024));
  match->callback([m] { run_hex_match_command(*m); });

  auto an = std::make_shared<HexAnalyseArgs>();
  auto* analyse =
      hex->add_subcommand("analyse", "Network characteristics of winner and loser along a match run's games");
  analyse->add_option("run", an->run, "Hex match run directory")->required();
  analyse->add_option("--bucket", an->bucket, "Plies per row")->check(CLI::Range(1, 200))->capture_default_str();
  analyse->add_option("--bridges", an->bridges, "Virtual connections (bridges, edge bridges) in the networks")
      ->capture_default_str();
  analyse->add_option("--groups", an->groups, "One node per group of connected own stones")->capture_default_str();
  analyse->callback([an] { run_hex_analyse(*an); });
  auto t = std::make_shared<HexTuneArgs>();
  auto* tune = hex->add_subcommand("tune", "BRKGA over gamma of Ev' (fitness: games lost against an opponent)");
  // The run's settings: a resumed run takes them from its directory, so --resume refuses them.
  std::vector<CLI::Option*> tune_settings;
  tune_settings.push_back(tune->add_option("--opponent", t->config.opponent, "Opponent player spec (as hex match --b)")
                              ->capture_default_str());
  tune_settings.push_back(tune->add_option("--population", t->config.population, "Individuals")
                              ->check(CLI::Range(2, 100000))
                              ->capture_default_str());
  tune_settings.push_back(tune->add_option("--elite", t->config.elite, "Elite individuals")
                              ->check(CLI::Range(1, 100000))
                              ->capture_default_str());
  tune_settings.push_back(tune->add_option("--mutants", t->config.mutants, "Mutants per generation")
                              ->check(CLI::Range(0, 100000))
                              ->capture_default_str());
  tune_settings.push_back(tune->add_option("--generations", t->config.generations, "Generations")
                              ->check(CLI::Range(1, 100000))
                              ->capture_default_str());
  tune_settings.push_back(tune->add_option("--games", t->config.games, "Games per individual (even)")
                              ->check(CLI::Range(2, 100000))
                              ->capture_default_str());
  tune_settings.push_back(tune->add_option("--gamma-max", t->config.gamma_max, "gamma = key * gamma_max")
                              ->check(CLI::Range(1e-9, 1e6))
                              ->capture_default_str());
  tune_settings.push_back(tune->add_option("--player", t->config.player,
                                           "The Ev' player whose gamma is tuned (an ev spec; its gamma is ignored)")
                              ->capture_default_str());
  tune_settings.push_back(tune->add_option("--size", t->config.size, "Board side")
                              ->check(CLI::Range(1, hex::kMaxSide))
                              ->capture_default_str());
  tune_settings.push_back(
      tune->add_option("--seed", t->config.seed, "Seed of the GA and the games")->capture_default_str());
  tune->add_option("--out", t->out, "Run directory (default runs/hex-tune-DATE-TIME)");
  CLI::Option* tune_resume = tune->add_option("--resume", t->resume, "Continue the run in this directory");
  add_accept_config_edits(*tune, tune_resume, t->accept_config_edits);
  for (CLI::Option* o : tune_settings) tune_resume->excludes(o);
  tune->add_option("--threads", t->threads, "Games played at once (0 = all hardware threads)")
      ->check(CLI::Range(0, 1024));
  tune->callback([t] { run_hex_tune_command(*t); });
  auto tt = std::make_shared<HexTournamentArgs>();
  auto* tour = hex->add_subcommand("tournament", "Round robin of Hex players with Bradley-Terry ratings (95% margins)");
  tour->add_option("--player", tt->players, "A player spec (as hex match --a); give two or more")->required();
  tour->add_option("--games", tt->games, "Games per pair (colours alternating)")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  tour->add_option("--size", tt->size, "Board side")->check(CLI::Range(1, hex::kMaxSide))->capture_default_str();
  tour->add_flag("--swap", tt->swap, "Play with the swap (pie) rule");
  tour->add_option("--opening-plies", tt->opening_plies,
                   "Random moves before the players take over; games 2k and 2k+1 of every pair share opening k")
      ->check(CLI::Range(0, 20))
      ->capture_default_str();
  tour->add_option("--seed", tt->seed, "Seed of the games' random streams")->capture_default_str();
  tour->add_option("--threads", tt->threads, "Games played at once (0 = all hardware threads)")
      ->check(CLI::Range(0, 1024));
  tour->callback([tt] { run_hex_tournament(*tt); });
  auto sv = std::make_shared<HexSolveArgs>();
  auto* solve = hex->add_subcommand(
      "solve", "Solve every first move on a small empty board, or a position (--moves) (exact; up to 6 x 6)");
  solve->add_option("--size", sv->size, "Board side")->check(CLI::Range(1, hex::kMaxSide))->capture_default_str();
  solve->add_flag("--no-fill", sv->no_fill, "Do not fill dead or captured cells");
  solve->add_flag("--no-captured", sv->no_captured, "Fill dead cells only, not captured ones");
  solve->add_flag("--negamax", sv->negamax, "Depth-first negamax from the centre out instead of df-pn");
  solve->add_flag("--winner-only", sv->winner_only,
                  "With --moves: who wins only, not every winning move (one search instead of one a move)");
  solve->add_flag("--no-vcs", sv->no_vcs,
                  "No virtual connections (with --no-fill and --no-prune: the brute-force reference)");
  solve->add_flag("--no-prune", sv->no_prune, "Search dominated and vulnerable moves too");
  solve->add_option("--max-nodes", sv->max_nodes, "Give up after this many nodes (0 = never)")->capture_default_str();
  solve->add_option("--moves", sv->moves,
                    "Solve the position after these moves from the empty board (e.g. \"c3 b2 d2\"): who wins, and "
                    "every winning move");
  solve->callback([sv] { run_hex_solve(*sv); });
  register_hex_external(*hex);
}

}  // namespace ef::app
