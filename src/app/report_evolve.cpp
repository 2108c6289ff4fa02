// `evalforge report` for evolve runs: the champion's ratings and weights over generations.
#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>
#include "app/report.hpp"
#include "evalforge/core/error.hpp"
#include "evalforge/core/files.hpp"
#include "evalforge/core/run_dir.hpp"
#include "evalforge/games/tictactoe/fitness_matches.hpp"
#include "evalforge/runs/evolve_config.hpp"
#include "games/othello/feature_weights.hpp"
#include "games/tictactoe/perfect_play.hpp"
#include "runs/evolve_tictactoe.hpp"

namespace ef::app {

namespace fs = std::filesystem;

namespace {

// Calls `row(fields, "file:line")` for every data row of a CSV file with `columns` columns
// (fields split at commas, as the run directory writes them).
template <class F>
void for_each_row(const fs::path& file, std::size_t columns, F&& row) {
  std::istringstream in(read_file(file, FileKind::kRunTable));
  std::string line;
  std::getline(in, line);  // header
  for (std::size_t lineno = 2; std::getline(in, line); ++lineno) {
    if (line.empty()) continue;
    const std::string where = fmt::format("{}:{}", file.string(), lineno);
    std::vector<std::string> f;
    std::stringstream ss(line);
    for (std::string x; std::getline(ss, x, ',');) f.push_back(x);
    if (line.back() == ',') f.push_back("");
    if (f.size() != columns) fail("{}: expected {} columns, found {}", where, columns, f.size());
    row(f, where);
  }
}

struct EvolveRow {
  int generation = 0;
  std::vector<int> genes;  // 11, or 26 for a positional chromosome
  double elo = 0, bt = NAN, bt_margin = NAN, mean_elo = 0, yardstick = NAN;
};

std::vector<EvolveRow> read_evolve_metrics(const fs::path& file) {
  std::vector<EvolveRow> rows;
  for_each_row(file, 20, [&](const std::vector<std::string>& f, const std::string& where) {
    EvolveRow r;
    r.generation = static_cast<int>(parse_int_field(f[0], 0, 100000000, where, "generation"));
    r.genes = features::to_genes(features::parse_chromosome(f[1], features::Material::kFlips, where));
    r.elo = parse_real_field(f[2], where, "champion_elo");
    if (!f[3].empty()) r.bt = parse_real_field(f[3], where, "champion_bt");
    if (!f[4].empty()) r.bt_margin = parse_real_field(f[4], where, "champion_bt_margin95");
    r.mean_elo = parse_real_field(f[6], where, "elo_mean");
    if (!f[17].empty()) r.yardstick = parse_real_field(f[17], where, "yardstick_score");
    rows.push_back(r);
  });
  if (rows.empty()) fail("{}: no generations recorded yet", file.string());
  return rows;
}

std::string yardstick_name(const fs::path& dir) {
  std::istringstream in(read_file(dir / "config.toml", FileKind::kConfig));
  bool in_section = false;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line[0] == '[') in_section = line == "[yardstick]";
    if (in_section && line.rfind("opponent = ", 0) == 0)
      return fs::path(line.substr(12, line.size() - 13)).stem().string();
  }
  return "yardstick";
}

}  // namespace

void report_evolve(const fs::path& dir) {
  if (read_file_head(dir / "metrics.csv", FileKind::kRunTable, 17) == "generation,trial,") return report_tictactoe(dir);
  const std::vector<EvolveRow> rows = read_evolve_metrics(dir / "metrics.csv");
  std::ostringstream gp;
  gp << "set terminal pngcairo size 1000,600\nset grid\nset xlabel 'generation'\nset key outside right\n";
  gp << "$r << EOD\n";
  for (const EvolveRow& r : rows) {
    gp << r.generation << " " << r.elo << " " << (std::isnan(r.bt) ? std::string("NaN") : fmt::format("{}", r.bt))
       << " " << (std::isnan(r.bt_margin) ? std::string("NaN") : fmt::format("{}", r.bt_margin)) << " " << r.mean_elo
       << " " << (std::isnan(r.yardstick) ? std::string("NaN") : fmt::format("{}", r.yardstick));
    for (int g : r.genes) gp << " " << g;
    gp << "\n";
  }
  gp << "EOD\n";
  gp << fmt::format("set output '{}'\n", (dir / "champion_rating.png").string());
  gp << "set title \"each generation's champion: Elo, and Bradley-Terry with 95% margin\"\nset ylabel 'rating (Elo "
        "scale)'\nset y2label 'score vs "
     << yardstick_name(dir) << "'\nset y2range [0:1]\nset y2tics\nset ytics nomirror\n";
  gp << "plot $r using 1:3:4 with yerrorbars pt 7 ps 0.3 lc 'light-blue' title 'Bradley-Terry (95%)', "
        "$r using 1:2 with lines lw 2 lc 'dark-blue' title 'sequential Elo', "
        "$r using 1:5 with lines lw 1 lc 'gray' title 'population mean Elo', "
        "$r using 1:6 axes x1y2 with lines lw 1 lc 'dark-red' title 'score vs "
     << yardstick_name(dir) << "'\nunset output\nunset y2tics\nunset y2label\nset ytics mirror\n";
  gp << fmt::format("set output '{}'\n", (dir / "champion_weights.png").string());
  gp << "set terminal pngcairo size 1000,900\nset multiplot layout 4,1 title \"the champion's chromosome "
        "o:e:wf1:wm1:wc1:wf2:wm2:wc2:wf3:wm3:wc3\"\nset key outside right\nunset xlabel\n";
  gp << "set title 'phase bounds'\nset ylabel 'move'\nset yrange [0:61]\n"
        "plot $r using 1:7 with steps lw 2 title 'o', $r using 1:8 with steps lw 2 title 'e'\n";
  gp << "set yrange [-0.5:10.5]\nset ylabel 'weight'\n";
  // A positional chromosome's five more weights per phase (genes 12..26, columns 18..32).
  const bool positional = rows[0].genes.size() == static_cast<std::size_t>(features::kPositionalGenes);
  for (int p = 0; p < 3; ++p) {
    if (p == 2) gp << "set xlabel 'generation'\n";
    gp << fmt::format(
        "set title 'phase {}'\nplot $r using 1:{} with steps lw 2 title 'material', $r using 1:{} with "
        "steps lw 2 title 'mobility', $r using 1:{} with steps lw 2 title 'corners'",
        p + 1, 9 + 3 * p, 10 + 3 * p, 11 + 3 * p);
    if (positional) {
      const char* names[5] = {"x-squares", "edges", "anchored", "frontier", "c-squares"};
      for (int j = 0; j < 5; ++j)
        gp << fmt::format(", $r using 1:{} with steps lw 1 dt 2 title '{}'", 18 + 5 * p + j, names[j]);
    }
    gp << "\n";
  }
  gp << "unset multiplot\nunset output\n";
  // The panel (panel.csv, when the run has one): what the fitness cannot show by itself.
  const bool panel = fs::exists(dir / "panel.csv");
  if (panel) {
    gp << "$p << EOD\n";
    for_each_row(dir / "panel.csv", 10, [&](const std::vector<std::string>& f, const std::string& where) {
      gp << parse_int_field(f[0], 0, 100000000, where, "generation");
      for (int k : {2, 3, 4, 7, 8}) gp << " " << parse_real_field(f[k], where, "a score");
      gp << " " << (f[9].empty() ? std::string("NaN") : fmt::format("{}", parse_real_field(f[9], where, "spearman")))
         << "\n";
    });
    gp << "EOD\n";
    gp << fmt::format("set output '{}'\n", (dir / "panel.png").string());
    gp << "set terminal pngcairo size 1000,600\nset xlabel 'generation'\nset key outside right\n"
          "set title 'vs the fixed panel: champion (95% interval), population; rank correlation of fitness with it'\n"
          "set ylabel 'mean score vs the panel'\nset yrange [0:1]\nset y2label 'Spearman "
          "rho'\nset y2range [-1:1]\nset y2tics\nset ytics nomirror\n";
    gp << "plot $p using 1:2:3:4 with yerrorlines pt 7 lw 2 lc 'dark-blue' title 'champion', "
          "$p using 1:5 with lines lc 'gray' title 'population mean', "
          "$p using 1:6 with lines dt 2 lc 'dark-green' title 'population best', "
          "$p using 1:7 axes x1y2 with linespoints pt 6 lc 'dark-red' title 'rho(fitness, panel score)'\n"
          "unset output\n";
  }
  const fs::path script = dir / "report.gp";
  std::ofstream(script) << gp.str();
  run_gnuplot(script);
  fmt::print("report written to {} (champion_rating.png, champion_weights.png{})\n", dir.string(),
             panel ? ", panel.png" : "");
}

}  // namespace ef::app

namespace ef::app {

namespace {

// metrics.csv of a tictactoe run: (generation, trial, population) -> best, mean, monitor best, monitor mean.
struct TttRow {
  int generation = 0, trial = 0;
  std::string population;
  double best = 0, mean = 0, monitor_best = NAN, monitor_mean = NAN;
};

std::vector<TttRow> read_ttt_metrics(const fs::path& file) {
  std::vector<TttRow> rows;
  for_each_row(file, 10, [&](const std::vector<std::string>& f, const std::string& where) {
    TttRow r;
    r.generation = static_cast<int>(parse_int_field(f[0], 0, 100000000, where, "generation"));
    r.trial = static_cast<int>(parse_int_field(f[1], 0, 1000, where, "trial"));
    r.population = f[2];
    r.best = parse_real_field(f[3], where, "best");
    r.mean = parse_real_field(f[4], where, "mean");
    if (!f[6].empty()) r.monitor_best = parse_real_field(f[6], where, "monitor_best");
    if (!f[7].empty()) r.monitor_mean = parse_real_field(f[7], where, "monitor_mean");
    rows.push_back(r);
  });
  if (rows.empty()) fail("{}: no generations recorded yet", file.string());
  return rows;
}

// oracle.csv of a tictactoe run, gathered per generation over every (trial, population) row.
struct OracleGeneration {
  int rows = 0;
  double nontrivial_sum = 0, nontrivial_min = 1, nontrivial_max = 0, optimal_sum = 0;
  int never_loses = 0, holds_perfect = 0;           // best networks that never lose to any opponent / to perfect play
  double loss_sum = 0, loss_min = 1, loss_max = 0;  // loss vs random, the mean of as X and as O
  double population_sum = 0;
  int population_rows = 0;
};

std::map<int, OracleGeneration> read_oracle(const fs::path& file) {
  std::map<int, OracleGeneration> out;
  for_each_row(file, 12, [&](const std::vector<std::string>& f, const std::string& where) {
    OracleGeneration& g = out[static_cast<int>(parse_int_field(f[0], 0, 100000000, where, "generation"))];
    ++g.rows;
    const double nt = parse_real_field(f[4], where, "best_nontrivial_optimal");
    g.nontrivial_sum += nt;
    g.nontrivial_min = std::min(g.nontrivial_min, nt);
    g.nontrivial_max = std::max(g.nontrivial_max, nt);
    g.optimal_sum += parse_real_field(f[3], where, "best_optimal");
    g.holds_perfect += f[5] != "loss" && f[6] != "loss";
    g.never_loses += f[7] != "loss" && f[8] != "loss";
    const double loss = (parse_real_field(f[9], where, "best_x_loss_vs_random") +
                         parse_real_field(f[10], where, "best_o_loss_vs_random")) /
                        2;
    g.loss_sum += loss;
    g.loss_min = std::min(g.loss_min, loss);
    g.loss_max = std::max(g.loss_max, loss);
    if (!f[11].empty()) {
      g.population_sum += parse_real_field(f[11], where, "population_never_loses");
      ++g.population_rows;
    }
  });
  if (out.empty()) fail("{}: no generations recorded yet", file.string());
  return out;
}

// The baselines of oracle.png, under the run's own search depth and topology: the constant
// evaluator, 100 random networks drawn as a generation 0 is (seed 1), and the static evaluator at
// the depth the run plays against (co-evolution: its monitor's). One line of the plot each.
struct OracleBaseline {
  std::string name;
  double nontrivial = 0, never_loses = 0, loss = 0;
};

std::vector<OracleBaseline> oracle_baselines(const fs::path& dir) {
  const ga::EvolveConfig config = ga::load_evolve_config((dir / "config.toml").string());
  const ga::TicTacToeConfig& c = config.ttt;
  // Several opponents: the deepest, the strongest of them.
  const int static_depth =
      c.coevolution ? c.monitor_depth : *std::max_element(c.opponent_depths.begin(), c.opponent_depths.end());
  std::vector<play::TicTacToeAgent> agents{tictactoe::constant_agent(c.depth), play::static_agent(static_depth)};
  const auto random = tictactoe::random_network_agents(100, c.topology, c.depth, 1);
  agents.insert(agents.end(), random.begin(), random.end());
  const auto m = tictactoe::measure_agents(agents, 0);
  auto one = [](std::string name, const tictactoe::PlayerMeasures& x) {
    return OracleBaseline{std::move(name), x.nontrivial_optimal_share(), x.never_loses() ? 1.0 : 0.0,
                          (x.as_x.loss + x.as_o.loss) / 2};
  };
  const tictactoe::MeasureSummary r = tictactoe::summarize({m.begin() + 2, m.end()});
  return {one(fmt::format("constant evaluator, ply {}", c.depth), m[0]),
          OracleBaseline{fmt::format("random networks (mean of 100), ply {}", c.depth), r.nontrivial_optimal_share.mean,
                         1.0 - static_cast<double>(r.lose_vs_any) / r.players, (r.x_loss.mean + r.o_loss.mean) / 2},
          one(fmt::format("static evaluator, ply {}", static_depth), m[1])};
}

// oracle.png: the best networks against perfect play per generation, with the baselines.
std::string oracle_plot(const fs::path& dir) {
  const std::map<int, OracleGeneration> gens = read_oracle(dir / "oracle.csv");
  const std::vector<OracleBaseline> base = oracle_baselines(dir);
  std::ostringstream gp;
  gp << "$o << EOD\n";
  for (const auto& [g, o] : gens) {
    const double n = o.rows;
    gp << g << " " << o.nontrivial_sum / n << " " << o.nontrivial_min << " " << o.nontrivial_max << " "
       << o.optimal_sum / n << " " << o.never_loses / n << " " << o.holds_perfect / n << " "
       << (o.population_rows ? fmt::format("{}", o.population_sum / o.population_rows) : std::string("NaN")) << " "
       << o.loss_sum / n << " " << o.loss_min << " " << o.loss_max << "\n";
  }
  gp << "EOD\n";
  const char* colours[] = {"gray40", "orange", "dark-magenta"};
  auto lines = [&](auto value) {
    std::string out;
    for (std::size_t i = 0; i < base.size(); ++i)
      out += fmt::format(", {} with lines dt 2 lw 2 lc '{}' title '{}'", value(base[i]), colours[i], base[i].name);
    return out;
  };
  gp << fmt::format("set output '{}'\n", (dir / "oracle.png").string());
  gp << "set terminal pngcairo size 1000,1100\nset multiplot layout 3,1 title \"the best network of each trial "
        "against perfect play (never selected on); dashed: baselines\"\nset key outside right\nunset xlabel\n";
  gp << "set title 'optimal moves of the best network: mean over trials, band: range'\n"
        "set ylabel 'share of positions'\nset yrange [*:1]\n";
  gp << "plot $o using 1:3:4 with filledcurves fc 'dark-blue' fs transparent solid 0.2 notitle, "
        "$o using 1:2 with lines lw 2 lc 'dark-blue' title 'non-trivial positions', "
        "$o using 1:5 with lines lw 1 lc 'light-blue' title 'all positions'"
     << lines([](const OracleBaseline& b) { return fmt::format("{}", b.nontrivial); }) << "\n";
  gp << "set title 'never loses, either colour: share of the trials (best), of the population'\nset ylabel "
        "'share'\nset yrange [-0.05:1.05]\n";
  gp << "plot $o using 1:6 with steps lw 2 lc 'dark-red' title 'best: to any opponent', "
        "$o using 1:7 with steps lw 1 lc 'pink' title 'best: to perfect play', "
        "$o using 1:8 with points pt 7 ps 0.6 lc 'dark-green' title 'population: to any opponent'"
     << lines([](const OracleBaseline& b) { return fmt::format("{}", b.never_loses); }) << "\n";
  gp << "set xlabel 'generation'\nset title 'loss probability vs a random opponent (mean of as X and as O)'\nset "
        "ylabel 'probability'\nset yrange [0:*]\n";
  gp << "plot $o using 1:10:11 with filledcurves fc 'dark-blue' fs transparent solid 0.2 notitle, "
        "$o using 1:9 with lines lw 2 lc 'dark-blue' title 'best network'"
     << lines([](const OracleBaseline& b) { return fmt::format("{}", b.loss); }) << "\n";
  gp << "unset multiplot\nunset output\n";
  return gp.str();
}

// The y axis of fitness.png: what the run's [fitness] kind scores.
std::string fitness_label(const ga::TicTacToeConfig& config, int games) {
  switch (config.fitness) {
    case ga::TttFitness::kGames: return fmt::format("fitness ({} games: win 30, draw 15)", games);
    case ga::TttFitness::kOracle: return "oracle fitness: 200 per colour held vs perfect play + 80 x optimal share";
    case ga::TttFitness::kSafety: return "safety fitness: 240 x (2 - loss probability vs random as X - as O)";
  }
  fail("report: fitness kind {} has no label", static_cast<int>(config.fitness));
}

}  // namespace

void report_tictactoe(const fs::path& dir) {
  const std::vector<TttRow> rows = read_ttt_metrics(dir / "metrics.csv");
  const bool monitored = !std::isnan(rows[0].monitor_best);
  const ga::TicTacToeConfig config = ga::load_evolve_config((dir / "config.toml").string()).ttt;
  const int games = play::ttt_match_games(config.openings);
  const int max_points = static_cast<int>(ga::ttt_max_fitness(config));
  // Per generation and population: the mean over trials of best and mean fitness, and the
  // range over trials (the spread the issue asks for), of the fitness and, with co-evolution,
  // of the monitor (against the static evaluator).
  std::map<std::pair<std::string, int>, std::vector<const TttRow*>> by;
  for (const TttRow& r : rows) by[{r.population, r.generation}].push_back(&r);
  std::ostringstream gp;
  gp << "set terminal pngcairo size 1000,600\nset grid\nset xlabel 'generation'\nset key outside right\n"
        "set yrange [0:"
     << max_points << "]\nset ylabel '" << fitness_label(config, games) << "'\n";
  std::string plots;
  for (const std::string& pop : {std::string("a"), std::string("b")}) {
    if (!by.count({pop, 0})) continue;
    gp << "$" << pop << " << EOD\n";
    for (const auto& [key, list] : by) {
      if (key.first != pop) continue;
      double vals[4][3];  // best, mean, monitor best, monitor mean: average, min, max over trials
      for (int k = 0; k < 4; ++k) {
        vals[k][0] = 0;
        vals[k][1] = 1e9;
        vals[k][2] = -1e9;
      }
      for (const TttRow* r : list) {
        const double v[4] = {r->best, r->mean, r->monitor_best, r->monitor_mean};
        for (int k = 0; k < 4; ++k) {
          vals[k][0] += v[k] / list.size();
          vals[k][1] = std::min(vals[k][1], v[k]);
          vals[k][2] = std::max(vals[k][2], v[k]);
        }
      }
      gp << key.second;
      for (int k = 0; k < (monitored ? 4 : 2); ++k) gp << " " << vals[k][0] << " " << vals[k][1] << " " << vals[k][2];
      gp << "\n";
    }
    gp << "EOD\n";
    const std::string name = monitored ? " " + pop : "";
    auto add = [&](int col, const char* what, const char* colour) {
      if (!plots.empty()) plots += ", ";
      plots += fmt::format(
          "${0} using 1:{1}:{2} with filledcurves fc '{3}' fs transparent solid 0.2 notitle, "
          "${0} using 1:{4} with lines lw 2 lc '{3}' title '{5}{6}'",
          pop, col + 1, col + 2, colour, col, what, name);
    };
    add(2, "best", pop == "a" ? "dark-blue" : "dark-green");
    add(5, "mean", pop == "a" ? "light-blue" : "light-green");
    if (monitored) {
      add(8, "monitor best", pop == "a" ? "dark-red" : "orange");
      add(11, "monitor mean", pop == "a" ? "pink" : "gold");
    }
  }
  gp << fmt::format("set output '{}'\n", (dir / "fitness.png").string());
  gp << "set title 'fitness per generation: mean over trials, band: their range"
     << (monitored ? "; monitor: vs the static evaluator" : "") << "'\nplot " << plots
     << (!config.plays_games() ? std::string()
                               : fmt::format(", {} with lines dt 2 lc 'gray' title 'every game drawn'", max_points / 2))
     << "\nunset output\n";
  // Runs made before oracle.csv, or with [monitor] oracle = false, have no oracle.png.
  const bool oracle = fs::exists(dir / "oracle.csv");
  if (oracle) gp << oracle_plot(dir);
  const fs::path script = dir / "report.gp";
  std::ofstream(script) << gp.str();
  run_gnuplot(script);
  fmt::print("report written to {} (fitness.png{})\n", dir.string(), oracle ? ", oracle.png" : "");
}

}  // namespace ef::app
