// Option parsing shared by subcommands: move lists, split/dedup names, training parameters,
// and loading game files with a one-line report of skipped records.
#pragma once
#include <CLI/CLI.hpp>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>
#include "evalforge/backends/backend.hpp"
#include "evalforge/core/error.hpp"
#include "evalforge/data/datasets.hpp"
#include "evalforge/data/games.hpp"
#include "evalforge/data/positions.hpp"

namespace ef::app {

// --backend of the commands that play games (match, tournament, league): the measured advice
// of docs/cuda.md beside the choices.
inline constexpr const char* kPlayBackendHelp =
    "cpu (default), cuda or auto (with a device, each batch where a cost model says it finishes first: "
    "deep-search games in batches of a few thousand ran 8-50x faster on 16 CPU threads than on an H200; "
    "docs/cuda.md); the games are the same on every backend";

// "18,22,30", ranges "24-40", "paper" (18,22,...,46) or "all" (1..59); ef::Error naming `what`.
std::vector<int> parse_moves(const std::string& text, const std::string& what);
data::SplitBy parse_split(const std::string& text);
data::Duplicates parse_dedup(const std::string& text, data::SplitBy split);

// Training parameters from a TOML file's [training] table and/or flags (flags win).
struct TrainArgs {
  std::string config;
  std::optional<double> learning_rate;
  std::optional<int> epochs, batch_size;
  std::optional<u64> seed;
  TrainParams resolve() const;
};
void add_train_options(CLI::App& cmd, TrainArgs& args);
TrainParams read_train_table(const std::string& file);  // the [training] table of a TOML config

// The built-in n-tuple agent trained on WTHOR (the default player of `data generate` and the
// base `evalforge ordering` starts from): networks/ordering/edax.toml of the source tree this
// binary was built from.
std::filesystem::path builtin_ordering_network();
// The exact solver's default move ordering (`evalforge solve --ordering auto`, docs/search.md):
// networks/ordering/edax-shapes.toml, edax.toml with its networks of 12-19 empties given shapes
// searched on the solver's own tree positions and trained on them.
std::filesystem::path builtin_solver_ordering();

// `files`: paths or data-set names (fetched into the cache when missing).
data::GameDatabase load_data_files(const std::vector<std::string>& files, const data::ReadOptions& options,
                                   bool report);

// Makes `dir` (an output directory given with `flag`) if needed and checks that files can be
// written in it, before the work that fills it: ef::Error naming the flag and the path otherwise.
void require_writable_directory(const std::filesystem::path& dir, const std::string& flag);

// Every --seed and --train-seed option under `app` refuses a negative value ("-1" would become
// 2^64-1 without a word: another run than the one asked for). Called once all commands are
// registered, so a new command's seed is covered without a line of its own.
void refuse_negative_seeds(CLI::App& app);

// --accept-config-edits for a command whose `resume` option continues a run (it needs --resume):
// a resumed run refuses a hand-edited config.toml unless this is given (RunOptions).
void add_accept_config_edits(CLI::App& cmd, CLI::Option* resume, bool& accept);

// The message of a library error as the command line says it: an error about one of the
// library's inputs (ef::Error::input, e.g. "backend") names the flag that sets it ("--backend");
// any other error is its message.
std::string describe_error(const Error& e);

}  // namespace ef::app
