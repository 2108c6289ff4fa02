// evalforge data generate: the built-in dataset (1-ply SWH players with epsilon-random moves),
// written as plain transcripts that `data` commands and load_games() read back.
#include <fmt/core.h>
#include <chrono>
#include <cstdint>
#include <cmath>
#include <filesystem>
#include <memory>
#include <string>
#include "app/commands.hpp"
#include "data/generate.hpp"
#include "evalforge/core/error.hpp"

namespace ef::app {

namespace {

struct GenerateArgs {
  data::GenerateOptions options;
  std::string out;
};

void run_generate(const GenerateArgs& args) {
  // Fail before the work, not after it, when the output cannot be written where asked.
  const std::filesystem::path out(args.out);
  if (out.has_parent_path() && !std::filesystem::is_directory(out.parent_path()))
    fail("cannot write {}: directory {} does not exist", args.out, out.parent_path().string());
  if (std::filesystem::is_directory(out)) fail("cannot write {}: it is a directory", args.out);
  const auto t0 = std::chrono::steady_clock::now();
  const std::vector<data::Game> games = data::generate_games(args.options);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  data::write_transcripts(args.out, games);

  const data::GameSummary s = data::summarize(games);
  fmt::print("generated {} games (seed {}, epsilon {}, {} random opening moves) in {:.3f} s: {:.0f} games/s\n",
             s.games, args.options.seed, args.options.epsilon, args.options.random_opening_plies, seconds,
             seconds > 0 ? static_cast<double>(s.games) / seconds : 0.0);
  fmt::print("final disc difference black - white: mean {:+.3f}, variance {:.3f} (sd {:.3f})\n", s.mean_score,
             s.score_variance, std::sqrt(s.score_variance));
  fmt::print("black wins {:.1f}%, white wins {:.1f}%, draws {:.1f}%; mean length {:.2f} moves\n",
             100 * s.black_wins, 100 * s.white_wins, 100 * s.draws, s.mean_length);
  fmt::print("wrote {}\n", args.out);
}

}  // namespace

void register_data_generate(CLI::App& app) {
  CLI::App* data = app.get_subcommand("data");
  auto args = std::make_shared<GenerateArgs>();
  CLI::App* cmd = data->add_subcommand(
      "generate", "Generate games between 1-ply SWH players with epsilon-random moves (the Othello League's players)");
  cmd->add_option("--games", args->options.games, "Number of games")->required()->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 48));
  cmd->add_option("--seed", args->options.seed, "Seed: the games are a function of (seed, game number) only")
      ->required();
  cmd->add_option("--out", args->out, "Transcript file to write (one game a line, moves then score)")->required();
  cmd->add_option("--epsilon", args->options.epsilon, "Probability of a uniformly random move")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  cmd->add_option("--opening-plies", args->options.random_opening_plies, "Uniformly random moves at the start")
      ->check(CLI::Range(0, 60))
      ->capture_default_str();
  cmd->add_option("--threads", args->options.threads, "Worker threads (0: all cores); the output does not depend on it")
      ->check(CLI::Range(0, 4096))
      ->capture_default_str();
  cmd->callback([args] { run_generate(*args); });
}

}  // namespace ef::app
