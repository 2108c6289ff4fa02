#include "evalforge/runs/evolve_config.hpp"
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <toml++/toml.h>
#include <filesystem>
#include "core/name_table.hpp"
#include "core/toml_reader.hpp"
#include "evalforge/core/error.hpp"
#include "evalforge/games/othello/fitness_matches.hpp"
#include "evalforge/games/othello/players.hpp"
#include "games/othello/feature_weights.hpp"

namespace ef::ga {

namespace fs = std::filesystem;

namespace {

// The chromosome kinds of [population] chromosome: the material term and the family.
struct ChromosomeName {
  features::Material material;
  bool positional;
  const char* name;
};
constexpr ChromosomeName kChromosomes[] = {{features::Material::kFlips, false, "oe_fmc"},
                                           {features::Material::kDiscs, false, "oe_dmc"},
                                           {features::Material::kFlips, true, "pos_fmc"},
                                           {features::Material::kDiscs, true, "pos_dmc"}};
const char* chromosome_name(const play::FeaturePlayOptions& o) {
  for (const ChromosomeName& c : kChromosomes)
    if (c.material == o.material && c.positional == o.positional) return c.name;
  fail("evolve: no chromosome name for material {} positional {}", static_cast<int>(o.material), o.positional);
}
const char* crossover_name(CrossoverKind k) { return k == CrossoverKind::kUniform ? "uniform" : "one-point"; }

struct SelectionName {
  EloSelection kind;
  const char* name;
};
constexpr SelectionName kSelectionNames[] = {
    {EloSelection::kElo, "elo"}, {EloSelection::kScore, "score"}, {EloSelection::kBradleyTerry, "bradley-terry"}};
const char* selection_name(EloSelection s) { return entry_of(kSelectionNames, s)->name; }

struct SearchName {
  EloSearch kind;
  const char* name;
};
constexpr SearchName kSearchNames[] = {{EloSearch::kGa, "ga"}, {EloSearch::kRandom, "random"}};
const char* search_name(EloSearch s) { return entry_of(kSearchNames, s)->name; }

// `key` of `r` as one of the names of `table` (the current value of `out` when absent); an
// ef::Error naming the file, key and the choices for any other name.
template <class Entry, std::size_t N, class Kind>
void read_kind(const TableReader& r, const char* key, const Entry (&table)[N], Kind& out) {
  std::string name = entry_of(table, out)->name;
  r.text(key, name);
  const Entry* k = entry_named(table, name);
  if (!k) fail("{}: '{}' (expected {})", r.where(key), name, names_of(table));
  out = k->kind;
}

}  // namespace

namespace {

// Table `name` of the root, or an empty table when absent (its keys then keep their defaults).
const toml::table& section_of(const toml::table& root, const char* name) {
  static const toml::table empty;
  const auto* t = root[name].as_table();
  return t ? *t : empty;
}

// The root's tables must be among `allowed` ("a, b, c" in the message).
void check_sections(const toml::table& root, const std::string& file, std::initializer_list<const char*> allowed) {
  std::string list;
  for (const char* a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
  for (const auto& [k, v] : root) {
    const std::string key(k.str());
    bool ok = false;
    for (const char* a : allowed) ok = ok || key == a;
    if (!ok) fail("{}: unknown section [{}] (expected {})", file, key, list);
    if (!v.is_table()) fail("{}: '{}' must be a table ([{}])", file, key, key);
  }
}

TicTacToeConfig load_tictactoe(const toml::table& root, const std::string& file) {
  check_sections(root, file, {"evolve", "population", "network", "opponent", "fitness", "monitor", "run"});
  auto section = [&](const char* name) -> const toml::table& { return section_of(root, name); };
  TicTacToeConfig c;
  {
    TableReader r(section("evolve"), file, "evolve");
    r.allow({"kind", "generations", "trials", "seed"});
    r.integer("generations", c.generations, 1, 100000000);
    r.integer("trials", c.trials, 1, 1000);
    r.seed("seed", c.seed);
  }
  {
    TableReader r(section("population"), file, "population");
    r.allow({"size", "selection", "tournament_size", "crossover_rate", "mutation_rate", "elitism"});
    r.integer("size", c.ga.population, 2, 65536);
    std::string selection = "roulette";
    r.text("selection", selection);
    if (selection == "roulette")
      c.ga.selection = Selection::kRoulette;
    else if (selection == "rank")
      c.ga.selection = Selection::kRank;
    else if (selection == "tournament")
      c.ga.selection = Selection::kTournament;
    else
      fail("{}: '{}' (expected roulette, rank or tournament)", r.where("selection"), selection);
    r.integer("tournament_size", c.ga.tournament_size, 1, 65536);
    r.real("crossover_rate", c.ga.crossover_rate, 0.0, 1.0);
    r.real("mutation_rate", c.ga.mutation_rate, 0.0, 1.0);
    r.integer("elitism", c.ga.elitism, 0, 65535);
  }
  {
    TableReader r(section("network"), file, "network");
    r.allow({"topology", "depth"});
    std::string topology = "full";
    r.text("topology", topology);
    if (topology == "full")
      c.topology = tictactoe::Topology::kFull;
    else if (topology == "paper")
      c.topology = tictactoe::Topology::kPaper;
    else
      fail("{}: '{}' (expected full or paper)", r.where("topology"), topology);
    r.integer("depth", c.depth, 1, 9);
  }
  {
    TableReader r(section("opponent"), file, "opponent");
    r.allow({"kind", "depth", "top", "monitor_depth"});
    std::string kind = "static";
    r.text("kind", kind);
    if (kind == "static")
      c.coevolution = false;
    else if (kind == "coevolution")
      c.coevolution = true;
    else
      fail("{}: '{}' (expected static or coevolution)", r.where("kind"), kind);
    if (const toml::node* d = section("opponent").get("depth"); d && d->is_array()) {
      r.integers("depth", c.opponent_depths, 1, 9);
      for (std::size_t i = 0; i < c.opponent_depths.size(); ++i)
        for (std::size_t j = 0; j < i; ++j)
          if (c.opponent_depths[i] == c.opponent_depths[j])
            fail("{}: depth {} is listed twice (each depth is one opponent)", r.where("depth"), c.opponent_depths[i]);
    } else {
      int depth = c.opponent_depths[0];
      r.integer("depth", depth, 1, 9);
      c.opponent_depths = {depth};
    }
    r.integer("top", c.top, 1, 65536);
    r.integer("monitor_depth", c.monitor_depth, 1, 9);
  }
  {
    TableReader r(section("fitness"), file, "fitness");
    r.allow({"kind", "openings", "ties", "games_per_opening"});
    std::string kind = "games", openings = "source", ties = "lowest";
    r.text("kind", kind);
    const auto* known = entry_named(kTttFitnessKinds, kind);
    if (!known) fail("{}: '{}' (expected {})", r.where("kind"), kind, names_of(kTttFitnessKinds));
    c.fitness = known->kind;
    r.text("openings", openings);
    if (openings == "source" || openings == "all")
      c.openings = openings == "all" ? play::TttOpenings::kAll : play::TttOpenings::kSource;
    else
      fail("{}: '{}' (expected source or all)", r.where("openings"), openings);
    if (!c.plays_games() && c.coevolution)
      fail("{}: \"{}\" needs opponent.kind = \"static\" (co-evolution's fitness is its games)", r.where("kind"), kind);
    if (!c.plays_games() && c.openings == play::TttOpenings::kAll)
      fail("{}: \"all\" applies to kind = \"games\" (\"{}\" plays no games)", r.where("openings"), kind);
    r.text("ties", ties);
    if (ties == "lowest" || ties == "random")
      c.random_ties = ties == "random";
    else
      fail("{}: '{}' (expected lowest or random)", r.where("ties"), ties);
    r.integer("games_per_opening", c.games_per_opening, 1, play::kMaxGamesPerOpening);
    if (!c.plays_games() && (c.random_ties || c.games_per_opening > 1))
      fail("{}: applies to kind = \"games\" (\"{}\" plays no games)",
           r.where(c.random_ties ? "ties" : "games_per_opening"), kind);
    if (c.random_ties && c.coevolution)
      fail("{}: \"random\" is built for static opponents (co-evolution plays its games with ties to the lowest square)",
           r.where("ties"));
    if (c.games_per_opening > 1 && !c.random_ties)
      fail(
          "{}: {} games per opening with ties = \"lowest\" would play each game {} times over (the players are "
          "deterministic); set ties = \"random\"",
          r.where("games_per_opening"), c.games_per_opening, c.games_per_opening);
  }
  {
    TableReader r(section("monitor"), file, "monitor");
    r.allow({"oracle", "population_every"});
    r.boolean("oracle", c.oracle);
    r.integer("population_every", c.population_every, 1, 100000000);
  }
  {
    TableReader r(section("run"), file, "run");
    r.allow({"checkpoint_every"});
    r.integer("checkpoint_every", c.checkpoint_every, 1, 100000000);
  }
  c.ga.bits = tictactoe::network_bits(c.topology);
  validate(c.ga, file);
  if (c.coevolution && c.top > c.ga.population)
    fail("{}: opponent.top {} is more than the population of {}", file, c.top, c.ga.population);
  return c;
}

const char* selection_name(Selection s) {
  return s == Selection::kRoulette ? "roulette" : (s == Selection::kRank ? "rank" : "tournament");
}

std::string tictactoe_to_toml(const TicTacToeConfig& c) {
  std::string t;
  t += fmt::format("[evolve]\nkind = \"tictactoe\"\ngenerations = {}\ntrials = {}\nseed = {}\n\n", c.generations,
                   c.trials, c.seed);
  t += fmt::format(
      "[population]\nsize = {}\nselection = \"{}\"\ntournament_size = {}\ncrossover_rate = {}\n"
      "mutation_rate = {}\nelitism = {}\n\n",
      c.ga.population, selection_name(c.ga.selection), c.ga.tournament_size, c.ga.crossover_rate, c.ga.mutation_rate,
      c.ga.elitism);
  t += fmt::format("[network]\ntopology = \"{}\"\ndepth = {}\n\n",
                   c.topology == tictactoe::Topology::kFull ? "full" : "paper", c.depth);
  // One depth is written as an integer, so the config.toml of a one-opponent run reads as before.
  const std::string depths = c.opponent_depths.size() == 1 ? std::to_string(c.opponent_depths[0])
                                                           : fmt::format("[{}]", fmt::join(c.opponent_depths, ", "));
  t += fmt::format("[opponent]\nkind = \"{}\"\ndepth = {}\ntop = {}\nmonitor_depth = {}\n\n",
                   c.coevolution ? "coevolution" : "static", depths, c.top, c.monitor_depth);
  t += fmt::format("[fitness]\nkind = \"{}\"\nopenings = \"{}\"\n", ttt_fitness_name(c.fitness),
                   c.openings == play::TttOpenings::kAll ? "all" : "source");
  // Only when set: the config.toml of a run with the source's deterministic games reads as before.
  if (c.random_ties) t += fmt::format("ties = \"random\"\ngames_per_opening = {}\n", c.games_per_opening);
  t += "\n";
  t += fmt::format("[monitor]\noracle = {}\npopulation_every = {}\n\n", c.oracle, c.population_every);
  t += fmt::format("[run]\ncheckpoint_every = {}\n", c.checkpoint_every);
  return t;
}

}  // namespace

const char* evolve_kind_name(EvolveKind kind) {
  if (const auto* k = entry_of(kEvolveKinds, kind)) return k->name;
  fail("evolve: kind {} is not in kEvolveKinds (runs/evolve_config.hpp)", static_cast<int>(kind));
}

const char* ttt_fitness_name(TttFitness kind) {
  if (const auto* k = entry_of(kTttFitnessKinds, kind)) return k->name;
  fail("evolve: fitness kind {} is not in kTttFitnessKinds (runs/evolve_config.hpp)", static_cast<int>(kind));
}

int& EvolveConfig::generations() {
  switch (kind) {
    case EvolveKind::kEloOthello: return elo.generations;
    case EvolveKind::kTicTacToe: return ttt.generations;
  }
  fail("evolve: kind {} has no generation limit", static_cast<int>(kind));
}

namespace {

EloOthelloConfig load_elo_othello(const toml::table& root, const std::string& file);

}  // namespace

EvolveConfig load_evolve_config(const std::string& file) {
  const toml::table root = parse_run_config(file);
  EvolveConfig c;
  std::string name = evolve_kind_name(c.kind);
  if (const auto* evolve = root["evolve"].as_table()) TableReader(*evolve, file, "evolve").text("kind", name);
  const auto* known = entry_named(kEvolveKinds, name);
  if (!known)
    fail("{}: '{}' (expected {})", TableReader(root, file, "evolve").where("kind"), name, names_of(kEvolveKinds));
  c.kind = known->kind;
  switch (c.kind) {
    case EvolveKind::kEloOthello: c.elo = load_elo_othello(root, file); break;
    case EvolveKind::kTicTacToe: c.ttt = load_tictactoe(root, file); break;
  }
  return c;
}

namespace {

EloOthelloConfig load_elo_othello(const toml::table& root, const std::string& file) {
  EloOthelloConfig elo;
  check_sections(root, file, {"evolve", "population", "elo", "play", "yardstick", "crowning", "panel", "run"});
  auto section = [&](const char* name) -> const toml::table& { return section_of(root, name); };
  EloOthelloConfig& e = elo;
  {
    TableReader r(section("evolve"), file, "evolve");
    r.allow({"kind", "generations", "stall_generations", "seed"});
    r.integer("generations", e.generations, 1, 100000000);
    r.integer("stall_generations", e.stall_generations, 0, 100000000);
    r.seed("seed", e.seed);
  }
  {
    TableReader r(section("population"), file, "population");
    r.allow({"size", "chromosome", "parent_fraction", "mutation_rate", "mutation_genes", "mutation", "crossover",
             "search"});
    r.integer("size", e.ga.population, 3, 4096);
    std::string chromosome = "oe_fmc";
    r.text("chromosome", chromosome);
    const ChromosomeName* known = entry_named(kChromosomes, chromosome);
    if (!known) fail("{}: '{}' (expected {})", r.where("chromosome"), chromosome, names_of(kChromosomes));
    e.play.material = known->material;
    e.play.positional = known->positional;
    r.real("parent_fraction", e.ga.parent_fraction, 1e-9, 1.0);
    r.real("mutation_rate", e.ga.mutation_rate, 0.0, 1.0);
    r.integer("mutation_genes", e.ga.mutation_genes, 1,
              static_cast<int>(features::gene_bounds(e.play.positional).size()));
    std::string mutation = e.ga.mutation_per_gene ? "gene" : "member";
    r.text("mutation", mutation);
    if (mutation != "member" && mutation != "gene")
      fail("{}: '{}' (expected member or gene)", r.where("mutation"), mutation);
    e.ga.mutation_per_gene = mutation == "gene";
    std::string crossover = "uniform";
    r.text("crossover", crossover);
    if (crossover == "uniform")
      e.ga.crossover = CrossoverKind::kUniform;
    else if (crossover == "one-point")
      e.ga.crossover = CrossoverKind::kOnePoint;
    else
      fail("{}: '{}' (expected uniform or one-point)", r.where("crossover"), crossover);
    read_kind(r, "search", kSearchNames, e.ga.search);
  }
  {
    TableReader r(section("elo"), file, "elo");
    r.allow({"k_factor", "initial_rating", "carry_ratings", "bradley_terry", "openings_per_pair", "selection"});
    r.real("k_factor", e.ga.k_factor, 1e-6, 1000.0);
    r.real("initial_rating", e.ga.initial_rating, -100000.0, 100000.0);
    r.boolean("carry_ratings", e.ga.carry_ratings);
    r.boolean("bradley_terry", e.bradley_terry);
    r.integer("openings_per_pair", e.ga.openings_per_pair, 1, 1000);
    read_kind(r, "selection", kSelectionNames, e.ga.selection);
  }
  {
    TableReader r(section("play"), file, "play");
    r.allow({"depth", "exact_empties", "epsilon", "opening_plies"});
    r.integer("depth", e.play.limits.depth, 1, play::kMaxDepth);
    r.integer("exact_empties", e.play.limits.exact_empties, -1, play::kMaxExactEmpties);
    r.real("epsilon", e.play.epsilon, 0.0, 1.0);
    r.integer("opening_plies", e.play.opening_plies, 0, 20);
  }
  {
    TableReader r(section("yardstick"), file, "yardstick");
    r.allow({"opponent", "openings", "opening_plies", "every"});
    r.text("opponent", e.yardstick);
    if (e.yardstick != "none" && e.yardstick != "swh" && e.yardstick != "random") {
      fs::path p(e.yardstick);
      if (p.is_relative()) p = fs::absolute(fs::path(file)).parent_path() / p;
      if (!fs::is_regular_file(p))
        fail("{}: '{}' is not none, swh, random or an agent file", r.where("opponent"), e.yardstick);
      e.yardstick = p.lexically_normal().string();
    }
    r.integer("openings", e.yardstick_openings, 1, 1000000);
    r.integer("opening_plies", e.yardstick_opening_plies, 0, 20);
    r.integer("every", e.yardstick_every, 1, 100000000);
  }
  {
    TableReader r(section("crowning"), file, "crowning");
    r.allow({"rule", "openings", "opening_plies", "los"});
    std::string rule = e.challenge ? "challenge" : "ranking";
    r.text("rule", rule);
    if (rule != "ranking" && rule != "challenge")
      fail("{}: '{}' (expected ranking or challenge)", r.where("rule"), rule);
    e.challenge = rule == "challenge";
    r.integer("openings", e.challenge_openings, 1, 1000000);
    r.integer("opening_plies", e.challenge_opening_plies, 1, 20);
    r.real("los", e.challenge_los, 0.5, 0.999999);
  }
  {
    TableReader r(section("panel"), file, "panel");
    r.allow({"opponents", "openings", "opening_plies", "every", "population"});
    r.strings("opponents", e.panel);
    for (std::string& spec : e.panel) spec = play::resolve_panel_spec(spec, e.play, file, r.where("opponents"));
    r.integer("openings", e.panel_openings, 1, 1000000);
    r.integer("opening_plies", e.panel_opening_plies, 1, 20);
    r.integer("every", e.panel_every, 1, 100000000);
    r.boolean("population", e.panel_population);
  }
  {
    TableReader r(section("run"), file, "run");
    r.allow({"checkpoint_every"});
    r.integer("checkpoint_every", e.checkpoint_every, 1, 100000000);
  }
  if (e.ga.openings_per_pair > 1 && e.play.opening_plies == 0 && e.play.epsilon == 0)
    fail(
        "{}: elo.openings_per_pair {} with play.opening_plies = 0 and play.epsilon = 0 plays the same game {} times; "
        "give play.opening_plies (random openings) or keep openings_per_pair = 1",
        file, e.ga.openings_per_pair, e.ga.openings_per_pair);
  validate(e.ga, play::feature_gene_ranges(e.play.positional), file);
  return elo;
}

std::string elo_othello_to_toml(const EloOthelloConfig& e) {
  std::string t;
  t += fmt::format("[evolve]\nkind = {}\ngenerations = {}\nstall_generations = {}\nseed = {}\n\n",
                   toml_quote(evolve_kind_name(EvolveKind::kEloOthello)), e.generations, e.stall_generations, e.seed);
  t += fmt::format(
      "[population]\nsize = {}\nchromosome = \"{}\"\nparent_fraction = {}\nmutation_rate = {}\nmutation_genes = {}\n"
      "crossover = \"{}\"\n",
      e.ga.population, chromosome_name(e.play), e.ga.parent_fraction, e.ga.mutation_rate, e.ga.mutation_genes,
      crossover_name(e.ga.crossover));
  t += fmt::format("mutation = \"{}\"\nsearch = {}\n\n", e.ga.mutation_per_gene ? "gene" : "member",
                   toml_quote(search_name(e.ga.search)));
  t += fmt::format(
      "[elo]\nk_factor = {}\ninitial_rating = {}\ncarry_ratings = {}\nbradley_terry = {}\nopenings_per_pair = {}\n"
      "selection = {}\n\n",
      e.ga.k_factor, e.ga.initial_rating, e.ga.carry_ratings, e.bradley_terry, e.ga.openings_per_pair,
      toml_quote(selection_name(e.ga.selection)));
  t += fmt::format("[play]\ndepth = {}\nexact_empties = {}\nepsilon = {}\nopening_plies = {}\n\n", e.play.limits.depth,
                   e.play.limits.exact_empties, e.play.epsilon, e.play.opening_plies);
  t += fmt::format("[yardstick]\nopponent = {}\nopenings = {}\nopening_plies = {}\nevery = {}\n\n",
                   toml_quote(e.yardstick), e.yardstick_openings, e.yardstick_opening_plies, e.yardstick_every);
  t += fmt::format("[crowning]\nrule = \"{}\"\nopenings = {}\nopening_plies = {}\nlos = {}\n\n",
                   e.challenge ? "challenge" : "ranking", e.challenge_openings, e.challenge_opening_plies,
                   e.challenge_los);
  std::vector<std::string> quoted;
  for (const std::string& p : e.panel) quoted.push_back(toml_quote(p));
  t += fmt::format("[panel]\nopponents = [{}]\nopenings = {}\nopening_plies = {}\nevery = {}\npopulation = {}\n\n",
                   fmt::join(quoted, ", "), e.panel_openings, e.panel_opening_plies, e.panel_every, e.panel_population);
  t += fmt::format("[run]\ncheckpoint_every = {}\n", e.checkpoint_every);
  return t;
}

}  // namespace

std::string evolve_config_to_toml(const EvolveConfig& c) {
  switch (c.kind) {
    case EvolveKind::kEloOthello: return elo_othello_to_toml(c.elo);
    case EvolveKind::kTicTacToe: return tictactoe_to_toml(c.ttt);
  }
  fail("evolve: kind {} cannot be written", static_cast<int>(c.kind));
}

}  // namespace ef::ga
