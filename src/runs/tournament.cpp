#include "runs/tournament.hpp"
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include "core/bytes.hpp"
#include "core/toml_reader.hpp"
#include "evalforge/core/error.hpp"
#include "evalforge/core/files.hpp"
#include "evalforge/core/memory_check.hpp"
#include "evalforge/core/rng.hpp"
#include "evalforge/core/run_dir.hpp"
#include "evalforge/data/datasets.hpp"
#include "evalforge/data/games.hpp"
#include "evalforge/engine/round_robin.hpp"
#include "evalforge/games/othello/agent_file.hpp"
#include "evalforge/games/othello/squares.hpp"
#include "evalforge/ratings/ratings.hpp"
#include "evalforge/runs/run_session.hpp"
#include "games/othello/feature_weights.hpp"
#include "runs/run_kinds.hpp"

namespace ef::play {

namespace fs = std::filesystem;

namespace {

// The openings' Philox streams (rng.hpp's Purpose values are the library's own; runs/match_experiment.cpp uses
// 20 and 21). Counter (i, attempt, 0): random openings; (i, 0, 1): dataset picks.
constexpr Purpose kTournamentOpeningPurpose = static_cast<Purpose>(22);

constexpr std::string_view kKind = run_kind_name(RunKind::kTournament);
constexpr const char* kGames = "games.csv";
constexpr const char* kSource = "source.toml";
constexpr const char* kGamesHeader = "game,black,white,opening,black_score,result,moves";
constexpr int kMaxOpeningAttempts = 1000;

const char* format_name(TournamentFormat f) { return f == TournamentFormat::kGauntlet ? "gauntlet" : "round-robin"; }
const char* source_name(OpeningSource s) { return s == OpeningSource::kDataset ? "dataset" : "random"; }

// A built-in name, an absolute path, or the first of base_dirs/spec that exists (else spec as
// written, for load_agent / load_games to report).
std::string resolve(const std::string& spec, const std::vector<fs::path>& base_dirs, bool builtins) {
  if (builtins && (spec == "swh" || spec == "random")) return spec;
  const fs::path p(spec);
  if (p.is_absolute()) return spec;
  for (const fs::path& base : base_dirs)
    if (fs::exists(base / p)) return (base / p).lexically_normal().string();
  return spec;
}

TournamentGame game_of(const std::vector<std::pair<int, int>>& pairs, u32 id) {
  const PairedSlot slot = opening_major_slot(pairs.size(), id);  // engine/round_robin.hpp
  const auto& [first, second] = pairs[slot.pair];
  TournamentGame g;
  g.id = id;
  g.opening = slot.opening;
  g.black = slot.swapped ? second : first;
  g.white = slot.swapped ? first : second;
  return g;
}

std::string format_result(int black_score) { return black_score > 0 ? "1" : (black_score < 0 ? "0" : "0.5"); }

std::string transcript(const OthelloRecord& r) {
  std::string s;
  for (int k = 0; k < r.plies; ++k)
    if (r.moves[k] >= 0) s += square_name(r.moves[k]);
  return s;
}

template <class T>
std::optional<T> parse_int(std::string_view s) {
  T v{};
  if (s.empty()) return std::nullopt;
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

// One games.csv row (its 7 fields, counted by RunDir::resume_table), checked against the
// tournament (players and opening of its id) and replayed from its opening; returns the game or
// throws ef::Error "file:line: what".
TournamentGame parse_row(const RunDir::Row& f, const std::string& where, const std::vector<std::pair<int, int>>& pairs,
                         std::size_t total, const std::vector<std::string>& names,
                         const std::vector<othello::Position>& openings) {
  const auto id = parse_int<u32>(f[0]);
  if (!id || *id >= total) fail("{}: game id '{}' (expected 0..{})", where, f[0], total - 1);
  TournamentGame g = game_of(pairs, *id);
  if (f[1] != names[g.black] || f[2] != names[g.white])
    fail("{}: game {} is {} (black) vs {} (white), but the row says '{}' vs '{}'", where, *id, names[g.black],
         names[g.white], f[1], f[2]);
  const auto opening = parse_int<int>(f[3]);
  if (!opening || *opening != g.opening)
    fail("{}: game {} starts from opening {}, not '{}'", where, *id, g.opening, f[3]);
  const auto score = parse_int<int>(f[4]);
  if (!score || *score < -64 || *score > 64) fail("{}: black_score '{}' (expected an integer in -64..64)", where, f[4]);
  if (f[5] != format_result(*score))
    fail("{}: result '{}' does not match black_score {} (expected {})", where, f[5], *score, format_result(*score));
  const std::string_view moves = f[6];
  if (moves.size() % 2) fail("{}: moves '{}' are not a list of squares", where, moves);
  othello::Board b = openings[g.opening].board;
  for (std::size_t k = 0; k < moves.size(); k += 2) {
    const auto sq = parse_square(moves.substr(k, 2));
    if (!sq) fail("{}: move {} '{}' is not a square", where, k / 2 + 1, moves.substr(k, 2));
    if (b.game_over()) fail("{}: move {} ({}) comes after the end of the game", where, k / 2 + 1, square_name(*sq));
    if (!b.can_move()) b.pass();
    if (!b.play(*sq)) fail("{}: move {} ({}) is illegal", where, k / 2 + 1, square_name(*sq));
  }
  if (!b.game_over()) fail("{}: the game is not finished after its {} moves", where, moves.size() / 2);
  if (b.disc_diff_empties_to_winner() != *score)
    fail("{}: the moves end with black_score {}, not {}", where, b.disc_diff_empties_to_winner(), *score);
  g.black_score = *score;
  return g;
}

std::string signed_elo(double x) { return fmt::format("{:+.1f}", x); }

}  // namespace

std::vector<std::pair<int, int>> TournamentConfig::pairings() const {
  std::vector<std::pair<int, int>> p;
  const int n = static_cast<int>(agents.size());
  for (int a = 0; a < (format == TournamentFormat::kGauntlet ? std::min(n, 1) : n); ++a)
    for (int b = a + 1; b < n; ++b) p.emplace_back(a, b);
  return p;
}

std::size_t TournamentConfig::num_games() const {
  const std::size_t n = agents.size();
  const std::size_t pairs = n < 2 ? 0 : format == TournamentFormat::kGauntlet ? n - 1 : n * (n - 1) / 2;
  return pairs * 2 * static_cast<std::size_t>(openings);
}

std::vector<MemoryPart> tournament_memory_estimate(const TournamentConfig& c) {
  const double games = static_cast<double>(c.num_games()), n = static_cast<double>(c.agents.size());
  // Per game: played/pending/done lists, the standings' copy and results, and on resume the
  // line each game was read from.
  const double per_game = 2.0 * sizeof(TournamentGame) + 4 + 1 + 16 + sizeof(std::string);
  return {{fmt::format("per-game bookkeeping ({} games x {} B)", games, per_game), games * per_game},
          {fmt::format("openings ({} x {} B)", c.openings, sizeof(othello::Position)),
           static_cast<double>(c.openings) * sizeof(othello::Position)},
          {fmt::format("rating fit and tables (8 matrices of {} x {} x 8 B)", n, n), 8 * n * n * 8}};
}

TournamentConfig load_tournament_config(const std::string& file, const std::vector<fs::path>& base_dirs_in) {
  const toml::table root = parse_run_config(file);
  std::vector<fs::path> base_dirs = base_dirs_in;
  if (base_dirs.empty()) base_dirs = {fs::absolute(fs::path(file)).parent_path(), fs::current_path()};
  for (const auto& [k, v] : root) {
    const std::string key(k.str());
    if (key != "tournament" && key != "data" && key != "agent")
      fail("{}: unknown section [{}] (expected tournament, data, [[agent]])", file, key);
    if (key == "agent") {
      if (!v.is_array_of_tables()) fail("{}: agent must be an array of tables: write each as [[agent]]", file);
    } else if (!v.is_table()) {
      fail("{}: '{}' must be a table ([{}])", file, key, key);
    }
  }
  const toml::table empty;
  auto section = [&](const char* name) -> const toml::table& {
    const auto* t = root[name].as_table();
    return t ? *t : empty;
  };
  TournamentConfig c;
  {
    TableReader r(section("tournament"), file, "tournament");
    r.allow({"format", "openings", "opening_source", "opening_moves", "seed", "k_factor"});
    std::string format = "round-robin", source = "random";
    r.text("format", format);
    if (format == "round-robin")
      c.format = TournamentFormat::kRoundRobin;
    else if (format == "gauntlet")
      c.format = TournamentFormat::kGauntlet;
    else
      fail("{}: '{}' (expected \"round-robin\" or \"gauntlet\")", r.where("format"), format);
    r.integer("openings", c.openings, 1, 10000000);
    r.text("opening_source", source);
    if (source == "random")
      c.opening_source = OpeningSource::kRandom;
    else if (source == "dataset")
      c.opening_source = OpeningSource::kDataset;
    else
      fail("{}: '{}' (expected \"random\" or \"dataset\")", r.where("opening_source"), source);
    r.integer("opening_moves", c.opening_moves, 0, 59);
    r.seed("seed", c.seed);
    r.real("k_factor", c.k_factor, 1e-3, 1000.0);
  }
  {
    TableReader r(section("data"), file, "data");
    r.allow({"files"});
    r.strings("files", c.data_files);
    for (auto& f : c.data_files) f = resolve(f, base_dirs, false);
    if (c.opening_source == OpeningSource::kDataset && c.data_files.empty())
      fail("{}: data.files: opening_source = \"dataset\" needs game files to take the openings from", file);
    if (c.opening_source == OpeningSource::kRandom && !c.data_files.empty())
      fail(
          "{}: data.files is set but tournament.opening_source is \"random\"; set opening_source = \"dataset\" "
          "to open from those games, or drop the files",
          file);
  }
  if (const toml::array* agents = root["agent"].as_array()) {
    for (std::size_t k = 0; k < agents->size(); ++k) {
      const toml::table& t = *agents->get(k)->as_table();
      TableReader r(t, file, fmt::format("agent[{}]", k));
      r.allow({"file", "name", "depth", "exact_empties", "search", "epsilon"});
      TournamentAgentConfig a;
      r.text("file", a.file);
      if (a.file.empty()) fail("{}: required: a built-in (swh, random) or an agent file", r.where("file"));
      a.path = resolve(a.file, base_dirs, true);
      r.text("name", a.name);
      if (r.has("name") && a.name.empty()) fail("{}: must not be empty", r.where("name"));
      r.integer("depth", a.depth, 1, kMaxDepth);
      r.integer("exact_empties", a.exact_empties, -1, kMaxExactEmpties);
      r.real("epsilon", a.epsilon, 0.0, 1.0);
      r.text("search", a.search);
      if (r.has("search") && a.search != "pvs" && a.search != "alphabeta")
        fail("{}: '{}' (expected pvs or alphabeta)", r.where("search"), a.search);
      c.agents.push_back(std::move(a));
    }
  }
  if (c.format == TournamentFormat::kGauntlet && c.agents.size() < 2)
    fail("{}: a gauntlet needs the first agent and at least one opponent ([[agent]] tables), found {}", file,
         c.agents.size());
  if (c.agents.size() < 2)
    fail("{}: a tournament needs at least 2 agents ([[agent]] tables), found {}", file, c.agents.size());
  const double games = static_cast<double>(c.pairings().size()) * 2.0 * c.openings;
  if (games > static_cast<double>(std::numeric_limits<std::int32_t>::max()))
    fail("{}: {} pairings x {} openings x 2 is {} games, more than game ids can number; use fewer openings", file,
         c.pairings().size(), c.openings, games);
  c.source_file = file;
  // Last, once the config is known to be valid: data-set names (logbook, wthor:1990-2015) become
  // their cached files, fetched when missing.
  c.data_files = data::expand_dataset_names(c.data_files);
  return c;
}

std::vector<OthelloAgent> load_tournament_agents(const TournamentConfig& c) {
  std::vector<OthelloAgent> agents;
  for (std::size_t k = 0; k < c.agents.size(); ++k) {
    const TournamentAgentConfig& ac = c.agents[k];
    const std::string key = fmt::format("{}: agent[{}]", c.source_file, k);
    OthelloAgent a;
    try {
      a = load_agent(ac.path);
    } catch (const Error& e) {
      fail("{}.file: {}", key, e.what());
    }
    if (!ac.name.empty()) a.name = ac.name;
    if (ac.depth != -2) a.limits.depth = ac.depth;
    if (ac.exact_empties != -2) a.limits.exact_empties = ac.exact_empties;
    if (ac.epsilon >= 0) a.epsilon = ac.epsilon;
    if (!ac.search.empty())
      a.limits.algorithm = ac.search == "alphabeta" ? search::MidgameSearch::kAlphaBeta : search::MidgameSearch::kPvs;
    try {
      a.validate();
    } catch (const Error& e) {
      fail("{}: {}", key, e.what());
    }
    if (a.name.empty() || a.name.find_first_of(",\"\r\n\t") != std::string::npos)
      fail("{}.name: '{}' cannot name an agent in games.csv (no commas, quotes or line breaks)", key, a.name);
    for (std::size_t j = 0; j < agents.size(); ++j)
      if (agents[j].name == a.name)
        fail("{}.name: '{}' is also the name of agent[{}]; give each agent its own name = \"...\"", key, a.name, j);
    agents.push_back(std::move(a));
  }
  return agents;
}

std::vector<othello::Position> tournament_openings(const TournamentConfig& c) {
  std::vector<othello::Position> out;
  out.reserve(static_cast<std::size_t>(c.openings));
  if (c.opening_source == OpeningSource::kRandom) {
    for (int i = 0; i < c.openings; ++i) {
      bool found = false;
      for (int attempt = 0; attempt < kMaxOpeningAttempts && !found; ++attempt) {
        Rng rng(c.seed, kTournamentOpeningPurpose, static_cast<u32>(i), static_cast<u32>(attempt), 0);
        othello::Board b;
        int placed = 0;
        while (placed < c.opening_moves && !b.game_over()) {
          if (!b.can_move()) b.pass();
          b.play(rng.random_bit(b.moves()));
          ++placed;
        }
        if (placed == c.opening_moves && !b.game_over()) {
          out.push_back(othello::Position{b, 0});
          found = true;
        }
      }
      if (!found)
        fail("{}: no unfinished position after {} random moves in {} tries (opening {})", c.source_file,
             c.opening_moves, kMaxOpeningAttempts, i);
    }
    return out;
  }
  // Dataset: the position after opening_moves discs (passes implicit) of every game that gets
  // there unfinished; opening i is one of them, drawn uniformly.
  const data::GameDatabase db = data::load_games(std::vector<fs::path>(c.data_files.begin(), c.data_files.end()));
  std::vector<othello::Position> candidates;
  for (const data::Game& g : db.games) {
    othello::Board b;
    bool ok = true;
    for (int k = 0; k < c.opening_moves && ok; ++k) {
      if (k >= static_cast<int>(g.moves.size()) || b.game_over()) {
        ok = false;
        break;
      }
      if (!b.can_move()) b.pass();
      ok = b.play(g.moves[k]);
    }
    if (ok && !b.game_over()) candidates.push_back(othello::Position{b, 0});
  }
  if (candidates.empty())
    fail("{}: no game of {} reaches move {} unfinished", c.source_file, fmt::join(c.data_files, ", "), c.opening_moves);
  for (int i = 0; i < c.openings; ++i) {
    Rng rng(c.seed, kTournamentOpeningPurpose, static_cast<u32>(i), 0, 1);
    out.push_back(candidates[rng.below(static_cast<u32>(candidates.size()))]);
  }
  return out;
}

TournamentGame tournament_game(const TournamentConfig& c, u32 id) { return game_of(c.pairings(), id); }

Standings compute_standings(const TournamentConfig& c, const std::vector<std::string>& names,
                            std::vector<TournamentGame> games) {
  const int n = static_cast<int>(names.size());
  std::sort(games.begin(), games.end(), [](const auto& x, const auto& y) { return x.id < y.id; });
  std::vector<ratings::GameResult> results;
  results.reserve(games.size());
  Standings s;
  s.games = static_cast<int>(games.size());
  s.agents.resize(n);
  s.cross_games.assign(static_cast<std::size_t>(n) * n, 0);
  std::vector<double> points(static_cast<std::size_t>(n) * n, 0.0);
  for (const TournamentGame& g : games) {
    results.push_back({g.black, g.white, g.result()});
    s.cross_games[g.black * n + g.white]++;
    s.cross_games[g.white * n + g.black]++;
    points[g.black * n + g.white] += g.result();
    points[g.white * n + g.black] += 1.0 - g.result();
  }
  s.cross_score.resize(points.size());
  for (std::size_t k = 0; k < points.size(); ++k)
    s.cross_score[k] = s.cross_games[k] ? points[k] / s.cross_games[k] : std::numeric_limits<double>::quiet_NaN();
  const std::vector<double> seq = ratings::sequential_elo(results, n, {c.k_factor, 0.0});
  const ratings::BradleyTerryFit bt = ratings::fit_bradley_terry(results, n);
  for (int i = 0; i < n; ++i) {
    AgentStanding& a = s.agents[i];
    a.name = names[i];
    bool played = false;
    for (int j = 0; j < n; ++j) played = played || s.cross_games[i * n + j] > 0;
    if (!played) fail("standings: agent '{}' has played no game", names[i]);
    const auto si = ratings::expected_score_interval(results, n, i, ratings::ScoreIntervalMethod::kWilson);
    a.games = si.games;
    a.wins = si.wins;
    a.draws = si.draws;
    a.losses = si.losses;
    a.score = si.mean;
    a.score_low95 = si.low95;
    a.score_high95 = si.high95;
    a.bt_elo = bt.ratings[i];
    a.bt_margin95 = bt.margins95[i];
    a.sequential_elo = seq[i];
  }
  s.los = bt.los_table();
  s.ranking.resize(n);
  for (int i = 0; i < n; ++i) s.ranking[i] = i;
  std::stable_sort(s.ranking.begin(), s.ranking.end(), [&](int x, int y) {
    if (s.agents[x].bt_elo != s.agents[y].bt_elo) return s.agents[x].bt_elo > s.agents[y].bt_elo;
    return s.agents[x].score > s.agents[y].score;
  });

  // Text.
  std::size_t w = 5;
  for (const auto& name : names) w = std::max(w, name.size());
  std::string t =
      fmt::format("Tournament: {}, {} agents, {} openings ({}, {} moves), {} games, seed {}\n", format_name(c.format),
                  n, c.openings, source_name(c.opening_source), c.opening_moves, s.games, c.seed);
  t += fmt::format(
      "BT: Bradley-Terry Elo (pool mean 0) with its 95% margin; seq: sequential Elo in game-id order, K = {}; score: "
      "mean score (win 1, draw 1/2) with its 95% Wilson interval\n\n",
      c.k_factor);
  t += fmt::format("{:>4}  {:<{}}  {:>6}  {:>13}  {:>5}  {:>14}  {:>7}  {:>6}  {:>7}\n", "rank", "agent", w, "games",
                   "W-D-L", "score", "95% interval", "BT", "+-95", "seq");
  for (int r = 0; r < n; ++r) {
    const AgentStanding& a = s.agents[s.ranking[r]];
    t += fmt::format("{:>4}  {:<{}}  {:>6}  {:>13}  {:>5.3f}  [{:.3f}, {:.3f}]  {:>7}  {:>6.1f}  {:>7}\n", r + 1,
                     a.name, w, a.games, fmt::format("{}-{}-{}", a.wins, a.draws, a.losses), a.score, a.score_low95,
                     a.score_high95, signed_elo(a.bt_elo), a.bt_margin95, signed_elo(a.sequential_elo));
  }
  const std::size_t cw = std::max<std::size_t>(w, 7);
  auto header = [&](const char* title) {
    std::string h = fmt::format("\n{}\n{:<{}}", title, "", w);
    for (int r = 0; r < n; ++r) h += fmt::format("  {:>{}}", names[s.ranking[r]], cw);
    return h + "\n";
  };
  t += header("Likelihood of superiority, % (row stronger than column; Bradley-Terry)");
  for (int r = 0; r < n; ++r) {
    t += fmt::format("{:<{}}", names[s.ranking[r]], w);
    for (int q = 0; q < n; ++q)
      t += r == q ? fmt::format("  {:>{}}", "-", cw)
                  : fmt::format("  {:>{}.1f}", 100.0 * s.los[s.ranking[r] * n + s.ranking[q]], cw);
    t += "\n";
  }
  t += header("Head to head (row's points / games against column)");
  for (int r = 0; r < n; ++r) {
    t += fmt::format("{:<{}}", names[s.ranking[r]], w);
    for (int q = 0; q < n; ++q) {
      const std::size_t k = static_cast<std::size_t>(s.ranking[r]) * n + s.ranking[q];
      t += fmt::format("  {:>{}}", s.cross_games[k] ? fmt::format("{}/{}", points[k], s.cross_games[k]) : "-", cw);
    }
    t += "\n";
  }
  s.text = t;

  // JSON: agents in rank order; matrices in the same order.
  nlohmann::ordered_json j;
  j["format"] = format_name(c.format);
  j["openings"] = c.openings;
  j["opening_source"] = source_name(c.opening_source);
  j["opening_moves"] = c.opening_moves;
  j["seed"] = c.seed;
  j["k_factor"] = c.k_factor;
  j["games"] = s.games;
  nlohmann::ordered_json agents = nlohmann::ordered_json::array(), ranked = nlohmann::ordered_json::array();
  for (int r = 0; r < n; ++r) {
    const AgentStanding& a = s.agents[s.ranking[r]];
    ranked.push_back(a.name);
    agents.push_back(nlohmann::ordered_json{{"rank", r + 1},
                                            {"name", a.name},
                                            {"file", c.agents[s.ranking[r]].file},
                                            {"games", a.games},
                                            {"wins", a.wins},
                                            {"draws", a.draws},
                                            {"losses", a.losses},
                                            {"score", a.score},
                                            {"score_low95", a.score_low95},
                                            {"score_high95", a.score_high95},
                                            {"bt_elo", a.bt_elo},
                                            {"bt_margin95", a.bt_margin95},
                                            {"sequential_elo", a.sequential_elo}});
  }
  j["agents"] = agents;
  j["order"] = ranked;
  nlohmann::ordered_json los = nlohmann::ordered_json::array(), cg = nlohmann::ordered_json::array(),
                         cs = nlohmann::ordered_json::array();
  for (int r = 0; r < n; ++r) {
    nlohmann::ordered_json lr = nlohmann::ordered_json::array(), gr = nlohmann::ordered_json::array(),
                           sr = nlohmann::ordered_json::array();
    for (int q = 0; q < n; ++q) {
      const std::size_t k = static_cast<std::size_t>(s.ranking[r]) * n + s.ranking[q];
      lr.push_back(s.los[k]);
      gr.push_back(s.cross_games[k]);
      if (s.cross_games[k])
        sr.push_back(s.cross_score[k]);
      else
        sr.push_back(nullptr);
    }
    los.push_back(lr);
    cg.push_back(gr);
    cs.push_back(sr);
  }
  j["los"] = los;  // los[r][q]: P(order[r] stronger than order[q])
  j["head_to_head_games"] = cg;
  j["head_to_head_score"] = cs;  // order[r]'s mean score against order[q]; null: never met
  s.json = j.dump(2) + "\n";
  return s;
}

TournamentOutcome run_tournament(const fs::path& dir, const std::string& config_file,
                                 const TournamentRunOptions& options) {
  const bool resume = config_file.empty();
  if (options.chunk_games < 1) fail("tournament: chunk size {} (expected at least 1 game)", options.chunk_games);
  RunSession session = resume ? RunSession::resume(dir, kKind, options) : RunSession::start_new(dir, kKind, options);
  TournamentConfig c;
  std::vector<std::string> fingerprints;
  if (resume) {
    const std::string source_path = session.run().file(kSource).string();
    const toml::table src = parse_toml_file(source_path);
    TableReader r(src, source_path, "");
    r.allow({"config_dir", "cwd", "agents"});
    std::string config_dir, cwd;
    r.text("config_dir", config_dir);
    r.text("cwd", cwd);
    r.strings("agents", fingerprints);
    if (config_dir.empty() || cwd.empty()) fail("{}: config_dir and cwd are required", source_path);
    c = load_tournament_config(session.config_file(), {fs::path(config_dir), fs::path(cwd)});
  } else {
    c = load_tournament_config(config_file);
  }
  session.check_memory("tournament", tournament_memory_estimate(c), "fewer agents or openings");
  const std::vector<OthelloAgent> agents = load_tournament_agents(c);
  std::vector<std::string> names, prints;
  for (const OthelloAgent& a : agents) {
    names.push_back(a.name);
    prints.push_back(fmt::format("{} {}", agent_fingerprint(a), a.name));
  }
  if (resume && prints != fingerprints) {
    for (std::size_t k = 0; k < std::max(prints.size(), fingerprints.size()); ++k)
      if (k >= prints.size() || k >= fingerprints.size() || prints[k] != fingerprints[k])
        fail(
            "{}: agent[{}] ({}) is not the agent the tournament started with: its file or the config changed "
            "(fingerprints '{}' then, '{}' now); start a new tournament",
            session.run().file(kSource).string(), k, k < names.size() ? names[k] : "removed",
            k < fingerprints.size() ? fingerprints[k] : "none", k < prints.size() ? prints[k] : "none");
  }
  const std::vector<othello::Position> openings = tournament_openings(c);
  const std::vector<std::pair<int, int>> pairs = c.pairings();
  const std::size_t total = c.num_games();

  std::vector<TournamentGame> played;
  std::vector<char> done(total, 0);
  std::unique_ptr<Backend> backend;
  if (!resume) {
    backend = make_backend(options.backend, options.threads);  // a bad backend leaves no directory
    std::vector<std::string> quoted;
    for (const auto& p : prints) quoted.push_back(toml_quote(p));
    session.create({{kGames, kGamesHeader}}, read_file(config_file, FileKind::kConfig), [&](RunDir& run) {
      run.write_file(
          kSource,
          fmt::format("# where the relative paths of config.toml resolve, and the agents it started with\n"
                      "config_dir = {}\ncwd = {}\nagents = [{}]\n",
                      toml_quote(fs::absolute(fs::path(config_file)).parent_path().lexically_normal().string()),
                      toml_quote(fs::current_path().string()), fmt::join(quoted, ", ")));
    });
  } else {
    // Every row is kept (games are independent: no row is past a checkpoint), and checked: its
    // players and opening are those of its id, its moves replay to its score, each id once.
    std::vector<std::string> where_of(total);
    session.run().resume_table(kGames, kGamesHeader, [&](const RunDir::Row& f, const std::string& where) {
      const TournamentGame g = parse_row(f, where, pairs, total, names, openings);
      if (done[g.id]) fail("{}: game {} is already recorded on line {}", where, g.id, where_of[g.id]);
      done[g.id] = 1;
      where_of[g.id] = where.substr(where.rfind(':') + 1);
      played.push_back(g);
      return true;
    });
  }
  RunDir& run = session.run();

  std::vector<u32> pending;
  for (std::size_t id = 0; id < total; ++id)
    if (!done[id]) pending.push_back(static_cast<u32>(id));

  TournamentOutcome outcome;
  outcome.games_total = total;
  outcome.games_played = played.size();
  if (options.check_only) return outcome;
  if (!pending.empty()) {
    if (!backend) backend = make_backend(options.backend, options.threads);
    std::vector<int> handles;
    for (const OthelloAgent& a : agents) handles.push_back(backend->add_agent(a));
    run.log(fmt::format("tournament: {}, {} agents ({}), {} openings ({}, {} moves), {} games, backend {}{}",
                        format_name(c.format), agents.size(), fmt::join(names, ", "), c.openings,
                        source_name(c.opening_source), c.opening_moves, total, backend->name(),
                        played.empty() ? "" : fmt::format(", resuming with {} games to play", pending.size())));
    const ProgressMeter meter(total, played.size());
    for (std::size_t next = 0; next < pending.size();) {
      if (session.stop_requested()) {
        session.stopped(fmt::format("after {} of {} games", played.size(), total));
        return outcome;
      }
      const std::size_t n = std::min<std::size_t>(options.chunk_games, pending.size() - next);
      std::vector<OthelloJob> jobs(n);
      std::vector<TournamentGame> chunk(n);
      for (std::size_t k = 0; k < n; ++k) {
        chunk[k] = game_of(pairs, pending[next + k]);
        jobs[k].black = handles[chunk[k].black];
        jobs[k].white = handles[chunk[k].white];
        jobs[k].start = openings[chunk[k].opening];
        jobs[k].seed = c.seed;
        jobs[k].game = chunk[k].id;
      }
      std::vector<OthelloRecord> records(n);
      backend->play(jobs, records);
      std::string rows;
      for (std::size_t k = 0; k < n; ++k) {
        chunk[k].black_score = records[k].black_score;
        rows += fmt::format("{},{},{},{},{},{},{}\n", chunk[k].id, names[chunk[k].black], names[chunk[k].white],
                            chunk[k].opening, chunk[k].black_score, format_result(chunk[k].black_score),
                            transcript(records[k]));
      }
      run.append_rows(kGames, rows);
      played.insert(played.end(), chunk.begin(), chunk.end());
      next += n;
      outcome.games_played = played.size();
      run.log(fmt::format("games {}, {:.0f} games/s", meter.status(played.size()), meter.rate(played.size())));
    }
  }
  outcome.complete = true;
  outcome.standings = compute_standings(c, names, played);
  run.write_file("standings.txt", outcome.standings.text);
  run.write_file("standings.json", outcome.standings.json);
  return outcome;
}

}  // namespace ef::play
