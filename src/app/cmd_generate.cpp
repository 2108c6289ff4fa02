// evalforge data generate: the built-in dataset (by default the built-in n-tuple network at a
// small depth with an exact endgame; `--player swh1` the original 1-ply SWH players with
// epsilon-random moves), written as plain transcripts that `data` commands and load_games()
// read back.
#include <fmt/core.h>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include "app/commands.hpp"
#include "app/options.hpp"
#include "data/generate.hpp"
#include "evalforge/core/error.hpp"
#include "evalforge/core/memory_check.hpp"
#include "evalforge/games/othello/agent_file.hpp"

namespace ef::app {

namespace {

// The default player: the built-in network (trained on perfect-play scores) searching
// kDefaultDepth plies, exact from kDefaultExactEmpties empties. Chosen so that the quickstart's
// 30,000 games take well under 3 minutes on 2 cores and their labels are worth learning
// (docs/data.md): depth 4 costs ~4x for a little less noise, exact from 14 empties ~4x more.
constexpr int kDefaultDepth = 2;
constexpr int kDefaultExactEmpties = 12;

struct GenerateArgs {
  data::GenerateOptions options;
  std::string out;
  std::string player = "builtin";
  std::optional<int> depth, exact_empties;
  std::optional<double> epsilon;
};

// --player: "swh1" (no agent), "builtin" or an agent file, with --depth/--exact-empties over
// its search limits.
void resolve_player(GenerateArgs& args) {
  if (args.player == "swh1") {
    if (args.depth || args.exact_empties)
      fail("--depth and --exact-empties apply to a searching player, not --player swh1");
    if (args.epsilon) args.options.epsilon = *args.epsilon;
    return;
  }
  if (args.epsilon)
    fail("--epsilon applies to --player swh1 only (a searching player makes no random moves after the opening)");
  const std::string file = args.player == "builtin" ? builtin_ordering_network().string() : args.player;
  play::OthelloAgent agent;
  try {
    agent = play::load_agent(file);
  } catch (const Error& e) {
    fail("--player {}: {} (--player also takes builtin and swh1)", args.player, e.what());
  }
  if (args.player == "builtin") agent.limits = {kDefaultDepth, kDefaultExactEmpties};
  if (args.depth) agent.limits.depth = *args.depth;
  if (args.exact_empties) agent.limits.exact_empties = *args.exact_empties;
  args.options.agent = std::make_shared<const play::OthelloAgent>(std::move(agent));
}

std::string player_name(const data::GenerateOptions& o) {
  if (!o.agent) return fmt::format("swh1, epsilon {}", o.epsilon);
  return fmt::format("{}, depth {}, exact from {} empties", o.agent->name, o.agent->limits.depth,
                     o.agent->limits.exact_empties);
}

void run_generate(GenerateArgs& args) {
  resolve_player(args);
  // Fail before the work, not after it, when the output cannot be written where asked.
  const std::filesystem::path out(args.out);
  if (out.has_parent_path() && !std::filesystem::is_directory(out.parent_path()))
    fail("cannot write {}: directory {} does not exist", args.out, out.parent_path().string());
  if (std::filesystem::is_directory(out)) fail("cannot write {}: it is a directory", args.out);
  // Every game is held until the file is written: its record and a move list of up to 60 squares.
  (void)check_memory(
      "data generate",
      {items_memory("generated games", static_cast<double>(args.options.games), sizeof(data::Game) + 64)},
      "fewer --games");
  const auto t0 = std::chrono::steady_clock::now();
  const std::vector<data::Game> games = data::generate_games(args.options);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  data::write_transcripts(args.out, games);

  const data::GameSummary s = data::summarize(games);
  fmt::print("generated {} games (seed {}, player {}, {} random opening moves) in {:.3f} s: {:.0f} games/s\n", s.games,
             args.options.seed, player_name(args.options), args.options.random_opening_plies, seconds,
             seconds > 0 ? static_cast<double>(s.games) / seconds : 0.0);
  fmt::print("final disc difference black - white: mean {:+.3f}, variance {:.3f} (sd {:.3f})\n", s.mean_score,
             s.score_variance, std::sqrt(s.score_variance));
  fmt::print("black wins {:.1f}%, white wins {:.1f}%, draws {:.1f}%; mean length {:.2f} moves\n", 100 * s.black_wins,
             100 * s.white_wins, 100 * s.draws, s.mean_length);
  fmt::print("wrote {}\n", args.out);
}

}  // namespace

void register_data_generate(CLI::App& app) {
  CLI::App* data = app.get_subcommand("data");
  auto args = std::make_shared<GenerateArgs>();
  CLI::App* cmd = data->add_subcommand(
      "generate",
      "Generate self-play games after random openings: by default the built-in n-tuple network searching "
      "2 plies with perfect play from 12 empties; --player swh1 for the original 1-ply SWH players");
  cmd->add_option("--games", args->options.games, "Number of games")
      ->required()
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 48));
  cmd->add_option("--seed", args->options.seed, "Seed: the games are a function of (seed, game number) only")
      ->required();
  cmd->add_option("--out", args->out, "Transcript file to write (one game a line, moves then score)")->required();
  cmd->add_option("--player", args->player,
                  "builtin (networks/ordering/edax.toml, depth 2, exact from 12 empties), swh1 (1-ply SWH with "
                  "epsilon-random moves: the generator of earlier versions) or an agent file")
      ->capture_default_str();
  cmd->add_option("--depth", args->depth,
                  "Alpha-beta plies of a searching player (default: builtin 2, else the agent file's)")
      ->check(CLI::Range(1, play::kMaxDepth));
  cmd->add_option("--exact-empties", args->exact_empties,
                  "A searching player plays perfectly from this many empties (-1: never; default: builtin 12, else the "
                  "agent file's)")
      ->check(CLI::Range(-1, play::kMaxExactEmpties));
  cmd->add_option("--epsilon", args->epsilon, "--player swh1: probability of a uniformly random move (default 0.1)")
      ->check(CLI::Range(0.0, 1.0));
  cmd->add_option("--opening-plies", args->options.random_opening_plies, "Uniformly random moves at the start")
      ->check(CLI::Range(0, 60))
      ->capture_default_str();
  cmd->add_option("--threads", args->options.threads, "Worker threads (0: all cores); the output does not depend on it")
      ->check(CLI::Range(0, 4096))
      ->capture_default_str();
  cmd->callback([args] { run_generate(*args); });
}

}  // namespace ef::app
