// evalforge report DIR: the paper's figures for a search run, drawn by gnuplot (Debian's
// gnuplot-nox) into DIR as PNG:
//   fitness_ratio.png  best fitness per island against generation, as a ratio to the island's
//                      mean over generations 0-50, moving average (Figure 5)
//   test_ratio.png     the same for the test score (Figure 6)
//   shapes-move-K.png  each island's best shape: every tuple's squares on an 8x8 board
// and for a match run (runs/match_experiment.hpp):
//   win_rate.png       agent 1's score per round against games played, per replicate, with a
//                      moving average, beside 0.5 and the paper's ~0.75 after 300,000 games
#include <fmt/core.h>
#include <fmt/ranges.h>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include "app/commands.hpp"
#include "app/report.hpp"
#include "evalforge/core/error.hpp"
#include "evalforge/core/files.hpp"
#include "evalforge/core/run_dir.hpp"
#include "evalforge/games/othello/shape.hpp"
#include "runs/run_kinds.hpp"

namespace ef::app {

namespace fs = std::filesystem;

namespace {

struct Series {
  std::vector<int> generation;
  std::vector<double> best, test;  // test NaN when not measured
};

std::map<int, Series> read_metrics(const fs::path& file) {
  std::error_code ec;
  if (!fs::exists(file, ec)) fail("{}: no such file (is this a search run directory?)", file.string());
  std::istringstream in(read_file(file, FileKind::kRunTable));
  std::map<int, Series> by_move;
  std::string line;
  std::getline(in, line);  // header
  std::size_t lineno = 1;
  while (std::getline(in, line)) {
    ++lineno;
    if (line.empty()) continue;
    std::vector<std::string> f;
    std::stringstream ss(line);
    for (std::string x; std::getline(ss, x, ',');) f.push_back(x);
    if (line.back() == ',') f.push_back("");
    if (f.size() < 8) fail("{}:{}: expected 8 columns, found {}", file.string(), lineno, f.size());
    try {
      Series& s = by_move[std::stoi(f[2])];
      s.generation.push_back(std::stoi(f[0]));
      s.best.push_back(std::stod(f[3]));
      s.test.push_back(f[6].empty() ? std::nan("") : std::stod(f[6]));
    } catch (const std::exception&) {
      fail("{}:{}: not a metrics row: {}", file.string(), lineno, line);
    }
  }
  if (by_move.empty()) fail("{}: no generations recorded yet", file.string());
  return by_move;
}

// Ratio to the mean over generations 0..50 (of the measured values), then a trailing moving
// average over `window` measured values.
std::vector<std::pair<int, double>> ratio_series(const Series& s, const std::vector<double>& v, int window) {
  double base = 0;
  int nb = 0;
  for (std::size_t i = 0; i < v.size(); ++i)
    if (s.generation[i] <= 50 && !std::isnan(v[i])) base += v[i], ++nb;
  std::vector<std::pair<int, double>> out;
  if (nb == 0 || base == 0) return out;
  base /= nb;
  std::vector<double> vals;
  double sum = 0;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (std::isnan(v[i])) continue;
    vals.push_back(v[i] / base);
    sum += vals.back();
    if (static_cast<int>(vals.size()) > window) sum -= vals[vals.size() - 1 - window];
    out.emplace_back(s.generation[i], sum / std::min<int>(window, static_cast<int>(vals.size())));
  }
  return out;
}

// A match run: rounds.csv (replicate,round,games_played,wins,draws,losses,score,seconds).
void report_match(const fs::path& dir, int window_arg) {
  const fs::path file = dir / "rounds.csv";
  std::istringstream in(read_file(file, FileKind::kRunTable));
  std::map<int, std::vector<std::pair<int, double>>> by_replicate;  // (games played, score)
  std::string line;
  std::getline(in, line);
  std::size_t lineno = 1;
  while (std::getline(in, line)) {
    ++lineno;
    if (line.empty()) continue;
    int p = 0, r = 0, games = 0, w = 0, d = 0, l = 0;
    double score = 0, seconds = 0;
    if (std::sscanf(line.c_str(), "%d,%d,%d,%d,%d,%d,%lf,%lf", &p, &r, &games, &w, &d, &l, &score, &seconds) != 8)
      fail("{}:{}: not a rounds row: {}", file.string(), lineno, line);
    by_replicate[p].emplace_back(games, score);
  }
  if (by_replicate.empty()) fail("{}: no rounds recorded yet", file.string());
  const int rounds = static_cast<int>(by_replicate.begin()->second.size());
  const int window = window_arg > 0 ? window_arg : std::max(1, rounds / 20);
  std::ostringstream gp;
  gp << "set terminal pngcairo size 900,600\nset key inside bottom right box opaque\nset grid\n"
        "set xlabel 'games played'\nset ylabel 'agent 1 score'\nset yrange [0:1]\nset format x '%.0s%c'\n";
  std::string plots;
  for (const auto& [p, rows] : by_replicate) {
    gp << fmt::format("$r{} << EOD\n", p);
    double sum = 0;
    for (std::size_t i = 0; i < rows.size(); ++i) {
      sum += rows[i].second;
      if (static_cast<int>(i) >= window) sum -= rows[i - window].second;
      gp << rows[i].first << " " << rows[i].second << " " << sum / std::min<int>(window, static_cast<int>(i) + 1)
         << "\n";
    }
    gp << "EOD\n";
    if (!plots.empty()) plots += ", ";
    plots += fmt::format(
        "$r{0} using 1:2 with points pt 7 ps 0.3 lc {1} notitle, $r{0} using 1:3 with lines lw 2 lc {1} "
        "title 'replicate {0} (moving average {2} rounds)'",
        p, p + 1, window);
  }
  gp << fmt::format("set output '{}'\n", (dir / "win_rate.png").string());
  gp << "set title 'match: agent 1 vs agent 2, score per round'\n";
  gp << "plot " << plots
     << ", 0.5 with lines dt 2 lc 'gray' title 'even', 0.75 with lines dt 3 lc 'black' "
        "title 'paper, after 300,000 games'\nunset output\n";
  const fs::path script = dir / "report.gp";
  std::ofstream(script) << gp.str();
  run_gnuplot(script);
  fmt::print("report written to {} (win_rate.png)\n", dir.string());
}

void report(const fs::path& dir, int window_arg) {
  // A match from before run.toml is known by its tables.
  if (!fs::exists(dir / "metrics.csv") && fs::exists(dir / "rounds.csv")) return report_match(dir, window_arg);
  const std::optional<std::string> name = RunDir::recorded_kind(dir);
  if (const std::optional<RunKind> kind = name ? run_kind_named(*name) : std::nullopt) {
    switch (*kind) {
      case RunKind::kMatch: return report_match(dir, window_arg);
      case RunKind::kEvolve: return report_evolve(dir);
      case RunKind::kHexMatch:
      case RunKind::kHexTune: return report_hex(dir, *name);
      case RunKind::kSearch:
      case RunKind::kTournament: break;  // the metrics figures below (a tournament has none: an error naming the file)
    }
  }
  const auto series = read_metrics(dir / "metrics.csv");
  int max_gen = 0;
  for (const auto& [m, s] : series) max_gen = std::max(max_gen, s.generation.back());
  const int window = window_arg > 0 ? window_arg : std::max(1, std::min(250, (max_gen + 1) / 10));
  std::ostringstream gp;
  gp << "set terminal pngcairo size 900,600\nset key outside right\nset grid\nset xlabel 'generation'\n";
  for (const auto& [name, title, use_test] :
       {std::tuple{"fitness_ratio", "best fitness", false}, std::tuple{"test_ratio", "test score of the best", true}}) {
    std::string plots;
    for (const auto& [move, s] : series) {
      const auto r = ratio_series(s, use_test ? s.test : s.best, use_test ? 1 : window);
      if (r.empty()) continue;
      gp << fmt::format("$d_{}_{} << EOD\n", name, move);
      for (const auto& [g, v] : r) gp << g << " " << v << "\n";
      gp << "EOD\n";
      if (!plots.empty()) plots += ", ";
      plots += fmt::format("$d_{}_{} with lines lw 2 title 'move {}'", name, move, move);
    }
    if (plots.empty()) continue;
    gp << fmt::format("set output '{}'\n", (dir / (std::string(name) + ".png")).string());
    gp << fmt::format("set title '{} per island / its mean over generations 0-50{}'\nset ylabel 'ratio'\n", title,
                      use_test ? "" : fmt::format(" (moving average {})", window));
    gp << "plot " << plots << "\nunset output\n";
  }
  // Board diagrams of the best shapes.
  if (fs::exists(dir / "best_shapes.json")) {
    for (const auto& shape : ntuple::load_shapes((dir / "best_shapes.json").string())) {
      const int n = static_cast<int>(shape.tuples.size());
      const int cols = std::min(n, 6), rows = (n + cols - 1) / cols;
      gp << fmt::format("set output '{}'\n", (dir / fmt::format("shapes-move-{}.png", shape.move)).string());
      gp << fmt::format(
          "set terminal pngcairo size {},{}\nunset key\nunset grid\nunset xlabel\nunset ylabel\n"
          "set palette defined (0 'white', 1 'dark-green')\nunset colorbox\nset size ratio 1\n"
          "set xrange [-0.5:7.5]\nset yrange [-0.5:7.5]\nset xtics ('a' 0,'b' 1,'c' 2,'d' 3,'e' 4,'f' 5,'g' 6,'h' 7) "
          "scale 0\n"
          "set ytics ('1' 0,'2' 1,'3' 2,'4' 3,'5' 4,'6' 5,'7' 6,'8' 7) scale 0\n"
          "set x2tics 0.5,1,7.5 format '' scale 0\nset y2tics 0.5,1,7.5 format '' scale 0\n"
          "set grid front x2tics y2tics lc 'gray'\nset cbrange [0:1]\n"
          "set multiplot layout {},{} title '{} (move {})'\n",
          220 * cols, 230 * rows + 30, rows, cols, shape.name, shape.move);
      for (int t = 0; t < n; ++t) {
        gp << fmt::format("set title 'tuple {} ({} squares)'\n$t{} << EOD\n", t + 1, shape.tuples[t].size(), t);
        for (int r = 0; r < 8; ++r) {
          for (int c = 0; c < 8; ++c) {
            const bool in =
                std::find(shape.tuples[t].begin(), shape.tuples[t].end(), 8 * r + c) != shape.tuples[t].end();
            gp << (c ? " " : "") << (in ? 1 : 0);
          }
          gp << "\n";
        }
        gp << fmt::format("EOD\nplot $t{} matrix with image\n", t);
      }
      gp << "unset multiplot\nunset output\nset terminal pngcairo size 900,600\nset grid\nunset x2tics\nunset y2tics\n"
            "set size noratio\nset autoscale\nset xtics auto\nset ytics auto\n";
    }
  }
  const fs::path script = dir / "report.gp";
  std::ofstream(script) << gp.str();
  run_gnuplot(script);
  fmt::print("report written to {} (fitness_ratio.png, test_ratio.png, shapes-move-*.png)\n", dir.string());
}

}  // namespace

void run_gnuplot(const fs::path& script) {
  if (std::system("command -v gnuplot >/dev/null 2>&1") != 0)
    fail("gnuplot not found: install Debian's gnuplot-nox (scripts/setup.sh does)");
  const std::string cmd = fmt::format("gnuplot '{}'", script.string());
  if (std::system(cmd.c_str()) != 0) fail("{}: gnuplot failed", script.string());
}

void register_report(CLI::App& app) {
  auto dir = std::make_shared<std::string>();
  auto window = std::make_shared<int>(0);
  auto* cmd = app.add_subcommand("report",
                                 "Draw a search, match or evolve run's figures (PNG, via gnuplot) into its directory");
  cmd->add_option("dir", *dir, "Run directory")->required();
  cmd->add_option(
         "--window", *window,
         "Moving-average window in generations (default: min(250, generations/10)) or match rounds (rounds/20)")
      ->check(CLI::Range(1, 1000000));
  cmd->callback([dir, window] { report(*dir, *window); });
}

}  // namespace ef::app
