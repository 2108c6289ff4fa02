#include "runs/hex_match_run.hpp"
#include <fmt/core.h>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <optional>
#include <sstream>
#include <thread>
#include "core/parallel.hpp"
#include "core/toml_reader.hpp"
#include "evalforge/core/error.hpp"
#include "evalforge/runs/run_session.hpp"
#include "games/hex/player_spec.hpp"
#include "runs/run_kinds.hpp"

namespace ef::play {

namespace {
constexpr const char* kKind = run_kind_name(RunKind::kHexMatch);
constexpr const char* kGames = "games.csv";
constexpr const char* kGamesHeader = "game,black,white,winner,plies,seconds,moves";
}  // namespace

HexMatchPlayers validate_hex_match_config(const HexMatchConfig& c, const std::string& who) {
  if (c.games < 1 || c.games > (1 << 24)) fail("{}: games {} is outside 1..2^24", who, c.games);
  if (c.size < 1 || c.size > hex::kMaxSide) fail("{}: size {} is outside 1..{}", who, c.size, hex::kMaxSide);
  return {parse_hex_player(c.a), parse_hex_player(c.b)};
}

HexMatchConfig load_hex_match_config(const std::string& file, HexMatchPlayers* players) {
  const toml::table t = parse_run_config(file);
  TableReader root(t, file, "");
  root.allow({"hex_match"});
  const toml::table* m = t["hex_match"].as_table();
  if (!m) fail("{}: [hex_match] is required", file);
  TableReader r(*m, file, "hex_match");
  r.allow({"a", "b", "games", "size", "swap", "seed"});
  HexMatchConfig c;
  for (const char* key : {"a", "b"})
    if (!r.has(key)) fail("{}: hex_match.{} is required", file, key);
  r.text("a", c.a);
  r.text("b", c.b);
  r.integer("games", c.games, 1, 1 << 24);
  r.integer("size", c.size, 1, hex::kMaxSide);
  r.boolean("swap", c.swap);
  r.seed("seed", c.seed);
  HexMatchPlayers parsed = validate_hex_match_config(c, file);
  if (players) *players = std::move(parsed);
  return c;
}

std::string hex_match_config_toml(const HexMatchConfig& c) {
  return fmt::format("[hex_match]\na = {}\nb = {}\ngames = {}\nsize = {}\nswap = {}\nseed = {}\n", toml_quote(c.a),
                     toml_quote(c.b), c.games, c.size, c.swap ? "true" : "false", c.seed);
}

namespace {

// The row's game replayed: its moves legal, the game over after the last, the winner as written.
void check_row(const HexGameRow& row, const HexMatchConfig& c, const std::string& where) {
  hex::Board b = hex::empty_board(c.size, c.swap);
  std::istringstream in(row.moves);
  int plies = 0;
  for (std::string cell; in >> cell; ++plies) {
    const int sq = parse_hex_cell(cell, c.size);
    if (b.terminal()) fail("{}: move {} ({}) comes after the game was over", where, plies + 1, cell);
    if (sq < 0 || !b.legal(sq)) fail("{}: move {} ({}) is not legal", where, plies + 1, cell);
    b = b.play(sq);
  }
  if (plies != row.plies) fail("{}: {} plies but {} moves", where, row.plies, plies);
  if (!b.terminal()) fail("{}: the game is not over after its moves", where);
  const bool a_won = (b.winner == hex::kBlack) == row.a_black;
  if (a_won != row.a_won) fail("{}: the moves are won by {}, not by the winner written", where, a_won ? "A" : "B");
}

std::string row_text(const HexGameRow& r) {
  return fmt::format("{},{},{},{},{},{:.3f},{}\n", r.game, r.a_black ? "A" : "B", r.a_black ? "B" : "A",
                     r.a_won ? "A" : "B", r.plies, r.seconds, r.moves);
}

// The trees of the players' tables and the rows of every game (moves as text, 4 B a ply).
void check_hex_match_memory(RunSession& session, const HexMatchConfig& c, const HexMatchPlayers& players,
                            const HexMatchRunOptions& options) {
  const HexPlayer &a = players.a, &b = players.b;
  const double rows = static_cast<double>(c.games) * (sizeof(HexGameRow) + 4.0 * c.size * c.size);
  session.check_memory("hex match",
                       {hex_tree_memory({&a, &b}, c.size, resolve_threads(options.threads)),
                        {fmt::format("game rows ({} games)", c.games), rows}},
                       "fewer UCT playouts, fewer games or fewer threads");
}

}  // namespace

std::vector<HexGameRow> run_hex_match(const std::filesystem::path& dir, const HexMatchConfig* config,
                                      const HexMatchRunOptions& options) {
  RunSession session = config ? RunSession::start_new(dir, kKind, options) : RunSession::resume(dir, kKind, options);
  HexMatchConfig c;
  HexMatchPlayers players;  // parsed once, here or by the loader
  std::vector<HexGameRow> done;
  if (config) {
    c = *config;
    players = validate_hex_match_config(c, "hex match");
    // The canonical specs (every key spelled out, numbers in their shortest exact form), so that a
    // later change of a default cannot change what a resumed run plays.
    c.a = players.a.spec;
    c.b = players.b.spec;
    check_hex_match_memory(session, c, players, options);
    session.create({{kGames, kGamesHeader}}, hex_match_config_toml(c));
  } else {
    c = load_hex_match_config(session.config_file(), &players);
    check_hex_match_memory(session, c, players, options);
    std::vector<bool> seen(c.games, false);
    session.run().resume_table(kGames, kGamesHeader, [&](const RunDir::Row& f, const std::string& where) {
      HexGameRow r;
      r.game = static_cast<int>(parse_int_field(f[0], 0, c.games - 1, where, "game"));
      if (seen[r.game]) fail("{}: game {} appears twice", where, r.game);
      seen[r.game] = true;
      r.a_black = r.game % 2 == 0;
      if (f[1] != (r.a_black ? "A" : "B") || f[2] != (r.a_black ? "B" : "A"))
        fail("{}: game {} has {} as Black and {} as White (A is Black in even games)", where, r.game, f[1], f[2]);
      if (f[3] != "A" && f[3] != "B") fail("{}: winner '{}' is neither A nor B", where, f[3]);
      r.a_won = f[3] == "A";
      r.plies = static_cast<int>(parse_int_field(f[4], 1, games::Hex::kMaxPlies, where, "plies"));
      r.seconds = parse_real_field(f[5], where, "seconds");
      r.moves = f[6];
      check_row(r, c, where);
      done.push_back(r);
      return true;
    });
  }
  RunDir* run = &session.run();
  if (options.check_only) return done;
  const HexPlayer &a = players.a, &b = players.b;
  std::vector<int> todo;
  {
    std::vector<bool> have(c.games, false);
    for (const auto& r : done) have[r.game] = true;
    for (int g = 0; g < c.games; ++g)
      if (!have[g]) todo.push_back(g);
  }
  const int threads = resolve_threads(options.threads);
  run->log(fmt::format("hex match: A = {} vs B = {}, {} games on {}x{}{}, seed {}, {} to play on {} thread(s)", a.spec,
                       b.spec, c.games, c.size, c.size, c.swap ? " with swap" : "", c.seed, todo.size(), threads));
  const hex::Board start = hex::empty_board(c.size, c.swap);
  std::atomic<std::size_t> next{0};
  std::mutex mutex;
  ProgressMeter meter(c.games, done.size());
  auto last_report = std::chrono::steady_clock::now();
  bool stopped = false;
  auto worker = [&] {
    HexTable table;
    for (std::size_t k; (k = next.fetch_add(1)) < todo.size();) {
      if (session.stop_requested()) {
        std::lock_guard lock(mutex);
        stopped = true;
        return;
      }
      HexGameRow r;
      r.game = todo[k];
      r.a_black = r.game % 2 == 0;
      const auto t0 = std::chrono::steady_clock::now();
      const HexRecord rec = r.a_black ? table.play(a, b, start, c.seed, static_cast<u32>(r.game))
                                      : table.play(b, a, start, c.seed, static_cast<u32>(r.game));
      r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      r.plies = rec.plies;
      r.a_won = (rec.black_score > 0) == r.a_black;
      r.moves = hex_move_list(rec);
      std::lock_guard lock(mutex);
      run->append_rows(kGames, row_text(r));
      done.push_back(r);
      const auto now = std::chrono::steady_clock::now();
      if (now - last_report > std::chrono::seconds(10) || done.size() == static_cast<std::size_t>(c.games)) {
        last_report = now;
        int wins = 0;
        for (const auto& d : done) wins += d.a_won;
        run->log(fmt::format("hex match: {}; A won {} of {}", meter.status(done.size()), wins, done.size()));
      }
    }
  };
  run_parallel(std::min<int>(threads, std::max<std::size_t>(todo.size(), 1)), worker);
  if (stopped && done.size() < static_cast<std::size_t>(c.games))
    session.stopped(fmt::format("after {} of {} games", done.size(), c.games));
  std::sort(done.begin(), done.end(), [](const HexGameRow& x, const HexGameRow& y) { return x.game < y.game; });
  return done;
}

}  // namespace ef::play
