// `evalforge data ...`: reading game databases. `data inspect` loads files the way training
// will (same readers, same cache) and reports what they hold and what was wrong with them,
// so that a dataset problem shows up here rather than as a strange loss later.
#include <fmt/format.h>
#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include "app/commands.hpp"
#include "evalforge/core/error.hpp"
#include "evalforge/data/datasets.hpp"
#include "evalforge/data/games.hpp"
#include "evalforge/data/positions.hpp"
#include "evalforge/games/othello/bitboard.hpp"

namespace ef::app {
namespace {

using nlohmann::json;

constexpr std::size_t kProblemsListed = 20;

struct InspectArgs {
  std::vector<std::string> files;
  bool fatal = false;
  bool no_cache = false;
  bool json_output = false;
  bool keep_truncated = false;
  bool all_moves = false;
  bool accept_damaged = false;
  std::string cache_dir;
};

// Mean, population variance, min and max of one score over the games that have it.
json score_statistics(const std::vector<data::Game>& games, int data::Game::*score) {
  std::size_t n = 0;
  double sum = 0;
  int low = 0, high = 0;
  for (const data::Game& game : games) {
    const int value = game.*score;
    if (value == data::kNoScore) continue;
    if (n == 0 || value < low) low = value;
    if (n == 0 || value > high) high = value;
    sum += value;
    ++n;
  }
  if (n == 0) return json{{"count", 0}};
  const double mean = sum / static_cast<double>(n);
  double squared = 0;
  for (const data::Game& game : games)
    if (game.*score != data::kNoScore) squared += (game.*score - mean) * (game.*score - mean);
  return json{
      {"count", n}, {"mean", mean}, {"variance", squared / static_cast<double>(n)}, {"min", low}, {"max", high}};
}

json problems_summary(const std::vector<data::Problem>& problems) {
  const auto skipped = static_cast<std::size_t>(
      std::count_if(problems.begin(), problems.end(), [](const data::Problem& p) { return p.skipped; }));
  json listed = json::array();
  for (std::size_t i = 0; i < problems.size() && i < kProblemsListed; ++i)
    listed.push_back(data::describe(problems[i]));
  return json{
      {"total", problems.size()}, {"skipped", skipped}, {"flagged", problems.size() - skipped}, {"first", listed}};
}

// Everything `inspect` reports about a set of games; positions (one replay of every game) only
// where they will be shown.
json games_summary(const data::GameDatabase& db, bool with_positions) {
  json summary{{"records", db.records_read}, {"games", db.games.size()}, {"problems", problems_summary(db.problems)}};
  summary["score"] = score_statistics(db.games, &data::Game::score);
  const json theoretical = score_statistics(db.games, &data::Game::theoretical_score);
  if (theoretical["count"].get<std::size_t>() > 0) summary["theoretical_score"] = theoretical;
  if (!db.player_names.empty()) summary["player_names"] = db.player_names.size();
  if (!db.tournament_names.empty()) summary["tournament_names"] = db.tournament_names.size();

  std::map<std::size_t, std::size_t, std::greater<>> by_length;
  for (const data::Game& game : db.games) ++by_length[game.moves.size()];
  json lengths = json::array();
  for (const auto& [length, count] : by_length) lengths.push_back({{"moves", length}, {"games", count}});
  summary["games_by_length"] = lengths;

  if (with_positions) {
    std::vector<int> moves(60);
    for (int k = 1; k <= 60; ++k) moves[static_cast<std::size_t>(k - 1)] = k;
    const std::vector<std::size_t> distinct = data::distinct_positions_at_moves(db.games, moves);
    json positions = json::array();
    for (int k = 1; k <= 60; ++k) {
      // Games reaching move k: those with at least k moves.
      std::size_t reaching = 0;
      for (const auto& [length, count] : by_length)
        if (length >= static_cast<std::size_t>(k)) reaching += count;
      positions.push_back(
          {{"move", k}, {"positions", reaching}, {"distinct", distinct[static_cast<std::size_t>(k - 1)]}});
    }
    summary["positions_by_move"] = positions;
  }
  return summary;
}

json obf_summary(const std::filesystem::path& file, bool fatal, std::vector<data::Problem>& problems) {
  std::vector<data::Problem> found;
  const std::vector<data::ObfPosition> positions = data::read_obf(file, &found, fatal);
  json summary{{"file", file.string()},
               {"format", "obf"},
               {"positions", positions.size()},
               {"problems", problems_summary(found)}};
  std::size_t n = 0;
  double sum = 0;
  int low = 0, high = 0, fewest_empties = 64, most_empties = 0;
  for (const data::ObfPosition& position : positions) {
    const int empties = 64 - popcount64(position.black | position.white);
    fewest_empties = std::min(fewest_empties, empties);
    most_empties = std::max(most_empties, empties);
    const int best = position.best_score();
    if (best == data::kNoScore) continue;
    if (n == 0 || best < low) low = best;
    if (n == 0 || best > high) high = best;
    sum += best;
    ++n;
  }
  summary["best_score"] =
      n ? json{{"count", n}, {"mean", sum / static_cast<double>(n)}, {"min", low}, {"max", high}} : json{{"count", 0}};
  if (!positions.empty()) summary["empties"] = {{"min", fewest_empties}, {"max", most_empties}};
  problems.insert(problems.end(), found.begin(), found.end());
  return summary;
}

std::string format_stats(const json& stats) {
  if (stats["count"].get<std::size_t>() == 0) return "none";
  return fmt::format("mean {:+.2f}  variance {:.2f}  min {:+d}  max {:+d}", stats["mean"].get<double>(),
                     stats["variance"].get<double>(), stats["min"].get<int>(), stats["max"].get<int>());
}

void print_details(const std::string& title, const json& summary, const std::vector<data::Problem>& problems,
                   bool all_moves) {
  fmt::print("{}\n", title);
  fmt::print("  records    {}\n  games      {}\n", summary["records"].get<std::size_t>(),
             summary["games"].get<std::size_t>());
  const json& p = summary["problems"];
  fmt::print("  problems   {} ({} skipped, {} flagged and kept)\n", p["total"].get<std::size_t>(),
             p["skipped"].get<std::size_t>(), p["flagged"].get<std::size_t>());
  for (std::size_t i = 0; i < problems.size() && i < kProblemsListed; ++i)
    fmt::print("    {}\n", data::describe(problems[i]));
  if (problems.size() > kProblemsListed) fmt::print("    ... and {} more\n", problems.size() - kProblemsListed);
  fmt::print("  score      {}  (final disc difference black - white)\n", format_stats(summary["score"]));
  if (summary.contains("theoretical_score"))
    fmt::print("  theoretical {}  (perfect play from 24 empties)\n", format_stats(summary["theoretical_score"]));
  if (summary.contains("player_names"))
    fmt::print("  names      {} players, {} tournaments\n", summary["player_names"].get<std::size_t>(),
               summary.value("tournament_names", std::size_t{0}));

  std::string lengths;
  std::size_t on_line = 0;
  for (const json& entry : summary["games_by_length"]) {
    if (on_line == 8) {
      lengths += "\n             ";
      on_line = 0;
    }
    lengths += fmt::format("{}: {}  ", entry["moves"].get<std::size_t>(), entry["games"].get<std::size_t>());
    ++on_line;
  }
  fmt::print("  games by length (moves: games)\n             {}\n", lengths);

  if (summary.contains("positions_by_move")) {
    // The compact table shows moves 2, 6, ..., 58 (the paper's islands 18..46 among them) and 60.
    fmt::print("  positions by move (positions = games reaching the move)\n    move  positions  distinct\n");
    for (const json& entry : summary["positions_by_move"]) {
      const int move = entry["move"].get<int>();
      if (!all_moves && move % 4 != 2 && move != 60) continue;
      fmt::print("    {:4}  {:9}  {:8}\n", move, entry["positions"].get<std::size_t>(),
                 entry["distinct"].get<std::size_t>());
    }
  }
}

void run_inspect(const InspectArgs& args) {
  data::ReadOptions options;
  options.fatal_problems = args.fatal;
  options.use_cache = !args.no_cache;
  options.skip_truncated_wthor = !args.keep_truncated;
  options.cache_dir = args.cache_dir;
  options.accept_read_errors = true;  // inspect reports damage (first) and then fails, unless accepted

  const auto start = std::chrono::steady_clock::now();
  json files = json::array();
  data::GameDatabase total;
  std::vector<data::Problem> obf_problems;
  std::size_t game_files = 0;
  // Data-set names (logbook, wthor:2015) stand for their cached files, each reported on its own.
  for (const std::filesystem::path& file : data::resolve_data_specs(args.files)) {
    const std::string name = file.string();
    const data::FileFormat format = data::detect_format(file);
    if (format == data::FileFormat::kObf) {
      files.push_back(obf_summary(file, args.fatal, obf_problems));
      continue;
    }
    data::GameDatabase db = data::load_games({file}, options);
    json summary = games_summary(db, args.json_output);
    summary["file"] = name;
    summary["format"] = data::format_name(format);
    summary["from_cache"] = db.files_from_cache > 0;
    summary["read_errors"] = db.read_errors;
    files.push_back(summary);
    total.read_errors.insert(total.read_errors.end(), db.read_errors.begin(), db.read_errors.end());
    ++game_files;

    total.files.push_back(name);
    total.records_read += db.records_read;
    total.files_from_cache += db.files_from_cache;
    total.games.insert(total.games.end(), std::make_move_iterator(db.games.begin()),
                       std::make_move_iterator(db.games.end()));
    total.problems.insert(total.problems.end(), db.problems.begin(), db.problems.end());
    if (total.player_names.empty()) total.player_names = std::move(db.player_names);
    if (total.tournament_names.empty()) total.tournament_names = std::move(db.tournament_names);
  }
  // One game file: its summary is the total (positions already counted in JSON mode).
  json total_summary;
  if (game_files == 1 && args.json_output) {
    for (const json& summary : files)
      if (summary["format"] != "obf") total_summary = summary;
  } else {
    total_summary = games_summary(total, true);
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  // Damaged data is the first thing said, and a failure unless accepted: games after the
  // damage are lost, which no count of bad records shows.
  auto fail_if_damaged = [&] {
    if (!total.read_errors.empty() && !args.accept_damaged)
      fail("{} damaged file(s), games after the damage are lost; first: {} (--accept-damaged: report and exit 0)",
           total.read_errors.size(), total.read_errors[0]);
  };
  if (args.json_output) {
    json report{{"read_errors", total.read_errors}, {"files", files}, {"seconds", seconds}};
    if (game_files > 0) report["total"] = total_summary;
    fmt::print("{}\n", report.dump(2, ' ', false, json::error_handler_t::replace));
    fail_if_damaged();
    return;
  }
  for (const std::string& e : total.read_errors) fmt::print("DAMAGED DATA: {}\n", e);

  for (const json& summary : files) {
    if (summary["format"] != "obf") continue;
    fmt::print("{}: obf\n  positions  {}\n  problems   {}\n", summary["file"].get<std::string>(),
               summary["positions"].get<std::size_t>(), summary["problems"]["total"].get<std::size_t>());
    for (const json& line : summary["problems"]["first"]) fmt::print("    {}\n", line.get<std::string>());
    const json& best = summary["best_score"];
    if (best["count"].get<std::size_t>() > 0)
      fmt::print("  best score mean {:+.2f}  min {:+d}  max {:+d}  (exact, side to move)\n", best["mean"].get<double>(),
                 best["min"].get<int>(), best["max"].get<int>());
    if (summary.contains("empties"))
      fmt::print("  empties    {}..{}\n", summary["empties"]["min"].get<int>(), summary["empties"]["max"].get<int>());
  }
  if (game_files == 1) {
    for (const json& summary : files)
      if (summary["format"] != "obf")
        print_details(fmt::format("{}: {}{}", summary["file"].get<std::string>(), summary["format"].get<std::string>(),
                                  summary["from_cache"].get<bool>() ? " (from cache)" : ""),
                      total_summary, total.problems, args.all_moves);
  } else if (game_files > 1) {
    std::size_t width = 4;
    for (const json& summary : files) width = std::max(width, summary["file"].get<std::string>().size());
    fmt::print("{:<{}}  {:<10}  {:>8}  {:>8}  {:>8}  score\n", "file", width, "format", "records", "games", "problems");
    for (const json& summary : files) {
      if (summary["format"] == "obf") continue;
      fmt::print("{:<{}}  {:<10}  {:>8}  {:>8}  {:>8}  {}\n", summary["file"].get<std::string>(), width,
                 summary["format"].get<std::string>(), summary["records"].get<std::size_t>(),
                 summary["games"].get<std::size_t>(), summary["problems"]["total"].get<std::size_t>(),
                 format_stats(summary["score"]));
    }
    fmt::print("\n");
    print_details(fmt::format("total: {} files ({} from cache)", game_files, total.files_from_cache), total_summary,
                  total.problems, args.all_moves);
  }
  fmt::print("({:.2f} s)\n", seconds);
  fail_if_damaged();
}

struct ConvertArgs {
  std::vector<std::string> files;
  std::string out;
  bool fatal = false;
  bool no_cache = false;
  std::string cache_dir;
  int empties = -1;  // .obf: the position of each game at this many empties
  int every = 1;     // .obf: games first, first + every, ...
  int first = 0;
};

// The writer for an output file, from its extension (case-insensitive).
enum class OutputFormat { kTranscript, kPgn, kGgf, kObf };
OutputFormat output_format(const std::string& out) {
  std::string extension = std::filesystem::path(out).extension().string();
  std::transform(extension.begin(), extension.end(), extension.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (extension == ".txt") return OutputFormat::kTranscript;
  if (extension == ".pgn") return OutputFormat::kPgn;
  if (extension == ".ggf") return OutputFormat::kGgf;
  if (extension == ".obf") return OutputFormat::kObf;
  fail("--out {}: the output format comes from the extension: .txt (transcripts), .pgn, .ggf or .obf (positions)", out);
}

// `data convert`: the games load_games reads (same readers, checks and cache), written in
// another format; problems are reported as `data inspect` lists them.
void run_convert(const ConvertArgs& args) {
  const OutputFormat format = output_format(args.out);
  if (format == OutputFormat::kObf && args.empties < 0)
    fail("--out {}: positions need --empties (each game's position at that many empties)", args.out);
  if (format != OutputFormat::kObf && (args.empties >= 0 || args.every != 1 || args.first != 0))
    fail("--empties, --every and --first choose positions for an .obf --out, not for {}", args.out);
  const std::filesystem::path out = args.out;
  std::error_code ec;
  if (std::filesystem::is_directory(out, ec)) fail("--out {} is a directory", args.out);
  const std::filesystem::path parent = out.parent_path().empty() ? std::filesystem::path(".") : out.parent_path();
  if (!std::filesystem::is_directory(parent, ec))
    fail("--out {}: directory {} does not exist", args.out, parent.string());
  const std::vector<std::filesystem::path> inputs = data::resolve_data_specs(args.files);  // names too
  for (const std::filesystem::path& input : inputs)
    if (std::filesystem::exists(out, ec) && std::filesystem::equivalent(input, out, ec))
      fail("--out {} is the input file {}: refusing to overwrite it", args.out, input.string());

  data::ReadOptions options;
  options.fatal_problems = args.fatal;
  options.use_cache = !args.no_cache;
  options.cache_dir = args.cache_dir;
  const data::GameDatabase db = data::load_games(inputs, options);

  const json problems = problems_summary(db.problems);
  fmt::print("read {} records from {} file(s): {} games, {} problems ({} skipped)\n", db.records_read, db.files.size(),
             db.games.size(), db.problems.size(), problems["skipped"].get<std::size_t>());
  for (const json& line : problems["first"]) fmt::print("    {}\n", line.get<std::string>());
  if (db.problems.size() > kProblemsListed) fmt::print("    ... and {} more\n", db.problems.size() - kProblemsListed);

  // Unfinished games (WTHOR records kept though they stop early) are written, but no reader
  // accepts them back: say so rather than let the round trip lose them silently.
  std::size_t unfinished = 0;
  for (const data::Game& game : db.games) {
    othello::Board board;
    for (const int square : game.moves) {
      if (!board.can_move()) board.pass();
      board.play(square);
    }
    unfinished += !board.game_over();
  }
  if (format == OutputFormat::kObf) {
    if (static_cast<std::size_t>(args.first) >= db.games.size())
      fail("--first {}: the files hold {} games (0 is the first)", args.first, db.games.size());
    std::vector<data::Game> chosen;
    for (std::size_t i = static_cast<std::size_t>(args.first); i < db.games.size();
         i += static_cast<std::size_t>(args.every))
      chosen.push_back(db.games[i]);
    const std::size_t n = data::write_obf_positions(out, chosen, args.empties);
    fmt::print("wrote {} positions of {} empties to {} (games {}, {}, ...: {} of them end before)\n", n, args.empties,
               args.out, args.first, args.first + args.every, chosen.size() - n);
    return;
  }
  switch (format) {
    case OutputFormat::kObf: break;
    case OutputFormat::kTranscript: data::write_transcripts(out, db.games); break;
    case OutputFormat::kPgn: data::write_pgn(out, db.games); break;
    case OutputFormat::kGgf: data::write_ggf(out, db.games); break;
  }
  fmt::print("wrote {} games to {}\n", db.games.size(), args.out);
  if (unfinished > 0)
    fmt::print("warning: {} of them stop before the end of the game; reading {} back reports them as unfinished\n",
               unfinished, args.out);
}

}  // namespace

void register_data(CLI::App& app) {
  CLI::App* data = app.add_subcommand("data", "Read, inspect and generate game records");
  data->require_subcommand(1);

  auto args = std::make_shared<InspectArgs>();
  CLI::App* inspect = data->add_subcommand(
      "inspect",
      "Load game files (logbook .gam[.gz], WTHOR .wtb, transcripts, PGN, GGF, .obf) and report their contents");
  inspect->add_option("files", args->files, "Files to read")->required();
  inspect->add_flag("--fatal", args->fatal, "Stop at the first bad record (error naming file and line)");
  inspect->add_flag("--no-cache", args->no_cache, "Parse the files even when a binary cache is valid");
  inspect->add_flag("--json", args->json_output, "Print the report as JSON (all 60 moves, per-file details)");
  inspect->add_flag("--keep-truncated", args->keep_truncated,
                    "Keep WTHOR games that stop early with an adjudicated score (flagged, not skipped)");
  inspect->add_flag("--all-moves", args->all_moves, "List distinct positions for every move 1..60");
  inspect->add_flag(
      "--accept-damaged", args->accept_damaged,
      "Exit 0 even when a file is damaged (gzip CRC error, truncation); the damage is still reported first");
  inspect->add_option("--cache-dir", args->cache_dir, "Cache directory (default $XDG_CACHE_HOME/evalforge)");
  inspect->callback([args] { run_inspect(*args); });

  auto convert_args = std::make_shared<ConvertArgs>();
  CLI::App* convert = data->add_subcommand(
      "convert",
      "Read game files (any format data inspect reads) and write their games as transcripts, PGN or GGF, or their "
      "positions at some number of empties as .obf");
  convert->add_option("files", convert_args->files, "Files to read")->required();
  convert
      ->add_option("--out", convert_args->out,
                   "Output file: .txt (transcripts), .pgn, .ggf, or .obf (positions, with --empties)")
      ->required();
  convert
      ->add_option("--empties", convert_args->empties,
                   ".obf: each game's position at this many empties (a test set for evalforge solve)")
      ->check(CLI::Range(0, 60));
  convert->add_option("--every", convert_args->every, ".obf: every N-th game only")->check(CLI::Range(1, 100'000'000));
  convert->add_option("--first", convert_args->first, ".obf: starting from this game (0 = the first)")
      ->check(CLI::Range(0, 100'000'000));
  convert->add_flag("--fatal", convert_args->fatal, "Stop at the first bad record (error naming file and line)");
  convert->add_flag("--no-cache", convert_args->no_cache, "Parse the files even when a binary cache is valid");
  convert->add_option("--cache-dir", convert_args->cache_dir, "Cache directory (default $XDG_CACHE_HOME/evalforge)");
  convert->callback([convert_args] { run_convert(*convert_args); });
}

}  // namespace ef::app
