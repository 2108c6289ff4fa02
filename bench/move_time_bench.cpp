// Thinking time per move of Othello agents on the same positions: the basis of "at equal time"
// in a tournament between agents whose searches differ (networks that order the tree better or
// worse, ProbCut, another depth). Each agent answers `genmove` through the GTP engine (the code
// path of `evalforge gtp`, with its fixed-depth search and exact endgame) at positions taken from
// game records: random games, a random move number in --moves, the side to move there. The
// agents take turns position by position (interleaved, so load on the machine falls on all of
// them alike); each position starts a fresh game in the engine (clear_board, then the moves), so
// no agent reuses a table from the last position. Figures: the median over --runs runs of the
// mean milliseconds per move, and each agent's ratio to the first agent's in the same run.
//
//   build/bench/move_time_bench --data FILE --agent A.toml --agent B.toml [--positions 100]
//                               [--moves 20-44] [--runs 3] [--seed 1] [--depth D] [--exact E]
#include <fmt/core.h>
#include <CLI/CLI.hpp>
#include <chrono>
#include <string>
#include <vector>
#include "bench_util.hpp"
#include "evalforge/core/error.hpp"
#include "evalforge/core/rng.hpp"
#include "evalforge/data/games.hpp"
#include "evalforge/games/othello/agent_file.hpp"
#include "evalforge/games/othello/bitboard.hpp"
#include "games/othello/gtp_engine.hpp"

using namespace ef;

namespace {

struct Sample {
  std::vector<std::string> commands;  // clear_board, play ..., then the genmove
};

std::string vertex(int square) { return fmt::format("{}{}", static_cast<char>('a' + square % 8), 1 + square / 8); }

// Positions from random games of `games` at a random move in [lo, hi]: the GTP commands that set
// the position up and ask for a move for the side to move.
std::vector<Sample> sample_positions(const std::vector<data::Game>& games, int count, int lo, int hi, u64 seed) {
  std::vector<Sample> out;
  Rng rng(seed, Purpose::kOpening, 0);
  for (int tries = 0; static_cast<int>(out.size()) < count && tries < 100 * count; ++tries) {
    const data::Game& g = games[rng.below(static_cast<u32>(games.size()))];
    const int move = lo + static_cast<int>(rng.below(static_cast<u32>(hi - lo + 1)));
    if (static_cast<int>(g.moves.size()) <= move) continue;  // the game must go on from there
    Sample s;
    s.commands.push_back("clear_board");
    othello::Board board;
    for (int i = 0; i < move; ++i) {
      if (!board.can_move()) board.pass();
      const char* colour = board.side == othello::kBlack ? "b" : "w";
      if (!board.play(g.moves[static_cast<std::size_t>(i)])) fail("game replay failed");
      s.commands.push_back(fmt::format("play {} {}", colour, vertex(g.moves[static_cast<std::size_t>(i)])));
    }
    if (board.game_over()) continue;
    if (!board.can_move()) board.pass();
    s.commands.push_back(fmt::format("genmove {}", board.side == othello::kBlack ? "b" : "w"));
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  bench::print_lines_as_they_come();
  std::vector<std::string> data_files, agent_files;
  int positions = 100, runs = 3;
  std::string moves = "20-44";
  u64 seed = 1;
  int depth = 0, exact = -2;
  CLI::App app{"Thinking time per move of Othello agents on the same positions"};
  app.add_option("--data", data_files, "Game records to take positions from")->required();
  app.add_option("--agent", agent_files, "Agent file (.toml) or swh; repeatable, the first is the reference")
      ->required();
  app.add_option("--positions", positions, "Positions")->check(CLI::Range(1, 100000));
  app.add_option("--moves", moves, "Move numbers to take positions at, A-B");
  app.add_option("--runs", runs, "Runs (the median is printed)")->check(CLI::Range(1, 100));
  app.add_option("--seed", seed, "Seed of the position sample");
  app.add_option("--depth", depth, "Every agent's midgame depth (default: each agent file's own)")
      ->check(CLI::Range(1, play::kMaxDepth));
  app.add_option("--exact", exact, "Every agent's exact-solve empties (default: each agent file's own)")
      ->check(CLI::Range(-1, play::kMaxExactEmpties));
  CLI11_PARSE(app, argc, argv);
  try {
    int lo = 0, hi = 0;
    if (std::sscanf(moves.c_str(), "%d-%d", &lo, &hi) != 2 || lo < 0 || hi > 59 || lo > hi)
      fail("--moves: '{}' is not a range A-B of move numbers 0..59", moves);
    std::vector<std::filesystem::path> files(data_files.begin(), data_files.end());
    const data::GameDatabase db = data::load_games(files);
    if (db.games.empty()) fail("--data: no games");
    const std::vector<Sample> samples = sample_positions(db.games, positions, lo, hi, seed);
    if (samples.empty()) fail("--data: no game goes on past moves {}", moves);
    std::vector<play::OthelloAgent> agents;
    for (const auto& f : agent_files) {
      agents.push_back(play::load_agent(f));
      if (depth > 0) agents.back().limits.depth = depth;
      if (exact > -2) agents.back().limits.exact_empties = exact;
    }
    fmt::print("move_time_bench: {} positions at moves {} of {} games; {} run(s); CPU: {}\n", samples.size(), moves,
               db.games.size(), runs, bench::cpu_model());
    for (const auto& a : agents)
      fmt::print("  {}: depth {}, exact from {} empties{}\n", a.name, a.limits.depth, a.limits.exact_empties,
                 a.probcut ? ", ProbCut" : "");
    std::vector<std::vector<double>> ms(agents.size()), ratio(agents.size());
    for (int r = 0; r < runs; ++r) {
      std::vector<double> seconds(agents.size(), 0.0);
      for (const Sample& s : samples)
        for (std::size_t a = 0; a < agents.size(); ++a) {
          play::GtpEngine engine(agents[a]);  // a fresh engine: nothing carried from the last position
          bool quit = false;
          for (std::size_t c = 0; c + 1 < s.commands.size(); ++c) {
            const std::string reply = engine.handle_line(s.commands[c], quit);
            if (reply.empty() || reply[0] != '=') fail("'{}' was refused: {}", s.commands[c], reply);
          }
          const auto t0 = std::chrono::steady_clock::now();
          const std::string reply = engine.handle_line(s.commands.back(), quit);
          seconds[a] += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
          if (reply.empty() || reply[0] != '=') fail("genmove was refused: {}", reply);
        }
      for (std::size_t a = 0; a < agents.size(); ++a) {
        ms[a].push_back(1000 * seconds[a] / static_cast<double>(samples.size()));
        ratio[a].push_back(seconds[a] / seconds[0]);
      }
      fmt::print("run {}:", r + 1);
      for (std::size_t a = 0; a < agents.size(); ++a) fmt::print(" {} {:.1f} ms", agents[a].name, ms[a].back());
      fmt::print("\n");
    }
    fmt::print("{:>10} {:>27}  agent\n", "ms/move", "ratio to first (same run)");
    for (std::size_t a = 0; a < agents.size(); ++a)
      fmt::print("{:>10.1f} {:>27.3f}  {}\n", bench::median(ms[a]), bench::median(ratio[a]), agent_files[a]);
  } catch (const std::exception& e) {
    fmt::print(stderr, "move_time_bench: {}\n", e.what());
    return 1;
  }
  return 0;
}
