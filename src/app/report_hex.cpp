// evalforge report for Hex runs (docs/hex.md), drawn by gnuplot into the run directory:
//   hex match:  win_rate.png  player A's running win rate over the games in game order, with its
//                             95% Wilson band, beside 0.5
//   hex tune:   gamma.png     every evaluated individual's gamma against its win rate, by
//                             generation, and the best gamma of each generation
#include <fmt/core.h>
#include <algorithm>
#include <cmath>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>
#include "app/report.hpp"
#include "evalforge/core/error.hpp"
#include "evalforge/core/files.hpp"
#include "evalforge/core/run_dir.hpp"

namespace ef::app {

namespace fs = std::filesystem;

namespace {

// The rows of a run's table, each with exactly `fields` fields; a last line without its newline
// (a row still being written) is left out.
std::vector<std::vector<std::string>> csv_rows(const fs::path& file, std::size_t fields) {
  const std::string text = read_file(file, FileKind::kRunTable);
  std::vector<std::vector<std::string>> rows;
  std::size_t pos = text.find('\n');
  for (int lineno = 2; pos != std::string::npos; ++lineno) {
    const std::size_t end = text.find('\n', pos + 1);
    if (end == std::string::npos) break;
    std::vector<std::string> f;
    std::stringstream ss(text.substr(pos + 1, end - pos - 1));
    for (std::string x; std::getline(ss, x, ',');) f.push_back(x);
    if (f.size() != fields) fail("{}:{}: {} fields (expected {})", file.string(), lineno, f.size(), fields);
    rows.push_back(std::move(f));
    pos = end;
  }
  return rows;
}

double number(const std::string& field, const fs::path& file) {
  return parse_real_field(field, file.string(), "a number");
}

// Wilson score interval of k successes in n trials (95%).
std::pair<double, double> wilson(double k, double n) {
  const double z = 1.959963984540054, p = k / n, z2 = z * z;
  const double centre = (p + z2 / (2 * n)) / (1 + z2 / n);
  const double half = z * std::sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n);
  return {centre - half, centre + half};
}

}  // namespace

void report_hex(const fs::path& dir, const std::string& kind) {
  std::ostringstream gp;
  gp << "set terminal pngcairo size 900,600\nset key outside right\nset grid\n";
  std::string made;
  if (kind == "hex-match") {
    auto rows = csv_rows(dir / "games.csv", 7);
    if (rows.empty()) fail("{}: no games yet", (dir / "games.csv").string());
    std::vector<std::pair<int, bool>> games;  // game, A won
    for (const auto& f : rows) {
      games.emplace_back(static_cast<int>(number(f[0], dir / "games.csv")), f[3] == "A");
    }
    std::sort(games.begin(), games.end());
    gp << "$d << EOD\n";
    int wins = 0;
    for (std::size_t i = 0; i < games.size(); ++i) {
      wins += games[i].second;
      const auto [lo, hi] = wilson(wins, static_cast<double>(i + 1));
      gp << fmt::format("{} {:.5f} {:.5f} {:.5f}\n", i + 1, static_cast<double>(wins) / (i + 1), lo, hi);
    }
    gp << "EOD\n";
    gp << fmt::format("set output '{}'\nset xlabel 'games'\nset ylabel 'win rate of A'\nset yrange [0:1]\n",
                      (dir / "win_rate.png").string());
    gp << "set title 'Hex match: running win rate of player A (95% Wilson band)'\n";
    gp << "plot $d using 1:3:4 with filledcurves fc rgb '#cce0ff' title '95%', $d using 1:2 with lines lw 2 title 'A', "
          "0.5 with lines dt 2 lc rgb 'black' title '0.5'\nunset output\n";
    made = "win_rate.png";
  } else {
    const auto rows = csv_rows(dir / "generations.csv", 6);
    const auto best = csv_rows(dir / "best.csv", 3);
    if (rows.empty()) fail("{}: no generation yet", (dir / "generations.csv").string());
    gp << "$all << EOD\n";
    for (const auto& f : rows) gp << f[0] << " " << f[2] << " " << 1 - number(f[5], dir / "generations.csv") << "\n";
    gp << "EOD\n$best << EOD\n";
    for (const auto& f : best) gp << f[0] << " " << f[1] << " " << 1 - number(f[2], dir / "best.csv") << "\n";
    gp << "EOD\n";
    gp << fmt::format("set output '{}'\nset xlabel 'gamma'\nset ylabel 'win rate'\nset yrange [0:1]\n",
                      (dir / "gamma.png").string());
    gp << "set title 'hex tune: win rate of each evaluated gamma (colour: generation); crosses: best of each "
          "generation'\n";
    gp << "plot $all using 2:3:1 with points pt 7 ps 1.2 lc palette title 'individuals', $best using 2:3 with points "
          "pt 2 ps 2 "
          "lw 2 lc rgb 'black' title 'best'\nunset output\n";
    made = "gamma.png";
  }
  const fs::path script = dir / "report_hex.gp";
  std::ofstream(script) << gp.str();
  run_gnuplot(script);
  fmt::print("report written to {} ({})\n", dir.string(), made);
}

}  // namespace ef::app
