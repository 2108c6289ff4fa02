#include "app/options.hpp"
#include <fmt/core.h>
#include <unistd.h>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <functional>
#include <limits>
#include <string_view>
#include <utility>
#include "core/toml_reader.hpp"
#include "evalforge/core/error.hpp"
#include "evalforge/core/install_paths.hpp"
#include "runs/training_table.hpp"

namespace ef::app {

std::filesystem::path builtin_ordering_network() { return networks_dir() / "ordering" / "edax.toml"; }

std::filesystem::path builtin_solver_ordering() { return networks_dir() / "ordering" / "edax-shapes.toml"; }

std::vector<int> parse_moves(const std::string& text, const std::string& what) {
  if (text == "paper") return {18, 22, 26, 30, 34, 38, 42, 46};
  if (text == "all") {
    std::vector<int> all;
    for (int m = 1; m <= 59; ++m) all.push_back(m);
    return all;
  }
  auto number = [&](const std::string& item) {
    int v = 0;
    const auto [p, ec] = std::from_chars(item.data(), item.data() + item.size(), v);
    if (item.empty() || ec != std::errc{} || p != item.data() + item.size() || v < 1 || v > 60)
      fail(
          "{}: '{}' is not a move number (expected integers 1..60 or ranges A-B separated by commas, 'paper' or "
          "'all')",
          what, item);
    return v;
  };
  std::vector<int> moves;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = std::min(text.find(',', start), text.size());
    const std::string item = text.substr(start, end - start);
    const std::size_t dash = item.find('-');
    if (dash == std::string::npos) {
      moves.push_back(number(item));
    } else {
      const int lo = number(item.substr(0, dash)), hi = number(item.substr(dash + 1));
      if (lo > hi) fail("{}: range '{}' runs backwards", what, item);
      for (int m = lo; m <= hi; ++m) moves.push_back(m);
    }
    start = end + 1;
  }
  return moves;
}

data::SplitBy parse_split(const std::string& text) {
  if (text == "position") return data::SplitBy::kPosition;
  if (text == "game") return data::SplitBy::kGame;
  fail("--split: '{}' is not a split (expected position or game)", text);
}

data::Duplicates parse_dedup(const std::string& text, data::SplitBy split) {
  if (text == "merge") return data::Duplicates::kMerge;
  if (text == "keep") return data::Duplicates::kKeep;
  if (text == "auto") return split == data::SplitBy::kGame ? data::Duplicates::kKeep : data::Duplicates::kMerge;
  fail("--dedup: '{}' is not a choice (expected merge, keep or auto)", text);
}

TrainParams read_train_table(const std::string& file) {
  TrainParams p;
  read_training_table(parse_toml_file(file), file, p);
  return p;
}

TrainParams TrainArgs::resolve() const {
  TrainParams p = config.empty() ? TrainParams{} : read_train_table(config);
  if (learning_rate) p.learning_rate = *learning_rate;
  if (epochs) p.epochs = *epochs;
  if (batch_size) p.batch_size = *batch_size;
  if (seed) p.seed = *seed;
  return p;
}

void add_train_options(CLI::App& cmd, TrainArgs& a) {
  cmd.add_option("--config", a.config, "TOML file whose [training] table sets the training parameters");
  cmd.add_option("--lr", a.learning_rate, "Learning rate: share of a position's error removed per step")
      ->check(CLI::Range(kMinLearningRate, kMaxLearningRate));
  cmd.add_option("--epochs", a.epochs, "Passes over the training positions")->check(CLI::Range(0, kMaxEpochs));
  cmd.add_option("--batch", a.batch_size, "Positions per weight update (1 = plain SGD)")
      ->check(CLI::Range(1, kMaxBatchSize));
  cmd.add_option("--train-seed", a.seed, "Seed of the training sample order");
}

data::GameDatabase load_data_files(const std::vector<std::string>& files, const data::ReadOptions& options,
                                   bool report) {
  const std::vector<std::filesystem::path> paths = data::resolve_data_specs(files);
  data::GameDatabase db = data::load_games(paths, options);
  // Damaged files first (accepted with --accept-damaged): they lose games, bad records only one.
  for (const std::string& e : db.read_errors)
    fmt::print(stderr, "DAMAGED DATA: {} (using the games read before it)\n", e);
  if (report && !db.problems.empty()) {
    fmt::print(stderr, "{} record(s) skipped; first: {}:{}: {}\n", db.problems.size(), db.problems[0].file,
               db.problems[0].record, db.problems[0].what);
  }
  if (db.games.empty()) fail("{}: no usable games", fmt::join(files, ", "));
  return db;
}

void require_writable_directory(const std::filesystem::path& dir, const std::string& flag) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) fail("{} {}: cannot create the directory: {}", flag, dir.string(), ec.message());
  if (::access(dir.c_str(), W_OK) != 0)
    fail("{} {}: cannot write in the directory: {}", flag, dir.string(), std::strerror(errno));
}

void refuse_negative_seeds(CLI::App& app) {
  static const CLI::Validator kSeed(
      [](std::string& text) -> std::string {
        if (!text.empty() && text.front() == '-')
          return fmt::format("{} is negative: a seed is a whole number from 0 to {}", text,
                             std::numeric_limits<u64>::max());
        return {};
      },
      "SEED");
  for (CLI::Option* option : app.get_options())
    if (option->check_lname("seed") || option->check_lname("train-seed")) option->check(kSeed);
  for (CLI::App* sub : app.get_subcommands(std::function<bool(CLI::App*)>{})) refuse_negative_seeds(*sub);
}

std::string describe_error(const Error& e) {
  // The library's input names and the flags that set them, declared once.
  static constexpr std::pair<std::string_view, std::string_view> kFlags[] = {{"backend", "--backend"},
                                                                             {"devices", "--devices"},
                                                                             {"moves", "--moves"},
                                                                             {"positions", "--positions"},
                                                                             {"min_depth", "--min-depth"},
                                                                             {"max_depth", "--max-depth"},
                                                                             {"threshold", "--threshold"},
                                                                             {"generations", "--generations"},
                                                                             {"random_networks", "--random-networks"},
                                                                             {"screen_random", "--screen-random"},
                                                                             {"roots", "--roots"},
                                                                             {"root_empties", "--root-empties"},
                                                                             {"min_empties", "--min-empties"},
                                                                             {"max_empties", "--max-empties"},
                                                                             {"per_level", "--per-level"},
                                                                             {"deep_per_level", "--deep-per-level"},
                                                                             {"table_bits", "--table-bits"},
                                                                             {"base", "--base"}};
  for (const auto& [input, flag] : kFlags)
    if (e.input == input) return fmt::format("{}: {}", flag, e.detail);
  return e.what();
}

void add_accept_config_edits(CLI::App& cmd, CLI::Option* resume, bool& accept) {
  cmd.add_flag("--accept-config-edits", accept,
               "With --resume: go on under a config.toml edited since the run was made (the edits go to log.txt); "
               "without it such a resume is refused, naming the keys")
      ->needs(resume);
}

}  // namespace ef::app
