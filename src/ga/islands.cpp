#include "evalforge/ga/islands.hpp"
#include <algorithm>
#include <cstring>
#include <numeric>
#include <span>
#include "evalforge/core/error.hpp"
#include "evalforge/core/rng.hpp"

namespace ef::ga {

Topology parse_topology(std::string_view name) {
  if (name == "paper") return Topology::kPaper;
  if (name == "ring") return Topology::kRing;
  if (name == "all") return Topology::kAll;
  fail("migration topology '{}' is unknown (expected paper, ring or all)", name);
}

std::string_view topology_name(Topology topology) {
  switch (topology) {
    case Topology::kPaper: return "paper";
    case Topology::kRing: return "ring";
    case Topology::kAll: return "all";
  }
  return "?";
}

std::vector<MigrationRoute> migration_routes(Topology topology, int num_islands, int size) {
  if (size < 0) fail("migration size {} must not be negative", size);
  if (num_islands < 0) fail("{} islands", num_islands);
  std::vector<MigrationRoute> routes;
  auto add = [&](int from, int to, int count) {
    if (count > 0) routes.push_back({from, to, count});
  };
  if (num_islands < 2 || size == 0) return routes;
  const int n = num_islands;
  switch (topology) {
    case Topology::kPaper:
      for (int k = 0; k < n; ++k) {
        if (k == 0)
          add(1, 0, size);
        else if (k == n - 1)
          add(n - 2, k, size);
        else {
          add(k - 1, k, size - size / 2);  // the lower-move neighbour sends the odd one
          add(k + 1, k, size / 2);
        }
      }
      break;
    case Topology::kRing:
      for (int k = 0; k < n; ++k) add((k + n - 1) % n, k, size);
      break;
    case Topology::kAll: {
      const int share = size / (n - 1);
      if (share == 0)
        fail(
            "migration size {} is smaller than the {} other islands of topology 'all' (each sends size/(N-1), "
            "rounded down)",
            size, n - 1);
      for (int k = 0; k < n; ++k)
        for (int from = 0; from < n; ++from)
          if (from != k) add(from, k, share);
      break;
    }
  }
  // (to, from) order: already so for every topology except ring's island 0 and paper's order
  // within an inner island, which sort fixes.
  std::sort(routes.begin(), routes.end(), [](const MigrationRoute& a, const MigrationRoute& b) {
    return a.to != b.to ? a.to < b.to : a.from < b.from;
  });
  return routes;
}

namespace {

// Checks that the routes fit the BRKGA layout: migrants from the elite, immigrants into the
// mutant slots.
void check_routes_fit(const std::vector<MigrationRoute>& routes, int num_islands, const BrkgaParams& brkga) {
  std::vector<int> received(static_cast<std::size_t>(num_islands), 0);
  for (const auto& r : routes) {
    if (r.count > brkga.elite_count)
      fail("migration: island {} would send {} migrants to island {}, but only its {} elite individuals have a fitness",
           r.from, r.count, r.to, brkga.elite_count);
    received[r.to] += r.count;
  }
  for (int k = 0; k < num_islands; ++k)
    if (received[k] > brkga.mutant_count)
      fail("migration: island {} would receive {} immigrants, but it has only {} mutant slots to replace", k,
           received[k], brkga.mutant_count);
}

}  // namespace

void migrate(std::vector<Population>& islands, const BrkgaParams& brkga, const MigrationParams& migration, u64 seed,
             u32 generation) {
  SoloTeam solo;
  migrate(islands, 0, static_cast<int>(islands.size()), brkga, migration, seed, generation, solo);
}

void migrate(std::vector<Population>& islands, int first_island, int num_islands, const BrkgaParams& brkga,
             const MigrationParams& migration, u64 seed, u32 generation, IslandTeam& team) {
  const int n = num_islands;
  const IslandBlock block = island_block(team.rank(), team.size(), n);
  if (block.first != first_island || block.count != static_cast<int>(islands.size()))
    fail("migration: this process holds islands {}..{}, but rank {} of {} holds {}..{}", first_island,
         first_island + static_cast<int>(islands.size()) - 1, team.rank(), team.size(), block.first,
         block.first + block.count - 1);
  const auto routes = migration_routes(migration.topology, n, migration.size);
  check_routes_fit(routes, n, brkga);
  for (const auto& pop : islands)
    if (pop.size != brkga.population_size)
      fail("migration: an island has {} individuals; the parameters say {}", pop.size, brkga.population_size);
  auto local = [&](int island) -> Population& { return islands[static_cast<std::size_t>(island - first_island)]; };
  const int num_keys = islands.empty() ? 0 : islands[0].num_keys;
  for (const auto& pop : islands)
    if (pop.num_keys != num_keys) fail("migration: the islands have different key counts");

  // Every route's migrants, copied before anything changes: from this process's islands, or
  // out of the message of the rank that holds the source island.
  std::vector<std::vector<double>> migrants(routes.size());
  std::vector<std::pair<int, std::string>> outgoing;  // (rank, keys of its routes in route order)
  std::vector<int> sources;                           // ranks that send to this one, ascending
  for (std::size_t r = 0; r < routes.size(); ++r) {
    const MigrationRoute& route = routes[r];
    const bool from_here = block.holds(route.from), to_here = block.holds(route.to);
    if (from_here) {
      const Population& from = local(route.from);
      const auto keys = std::span(from.keys).first(static_cast<std::size_t>(route.count) * from.num_keys);
      if (to_here) {
        migrants[r].assign(keys.begin(), keys.end());
      } else {
        const int to_rank = island_owner(route.to, team.size(), n);
        auto it = std::find_if(outgoing.begin(), outgoing.end(), [&](const auto& o) { return o.first == to_rank; });
        if (it == outgoing.end()) it = outgoing.insert(outgoing.end(), {to_rank, std::string()});
        const auto* bytes = reinterpret_cast<const char*>(keys.data());
        it->second.append(bytes, keys.size_bytes());
      }
    } else if (to_here) {
      const int from_rank = island_owner(route.from, team.size(), n);
      if (std::find(sources.begin(), sources.end(), from_rank) == sources.end()) sources.push_back(from_rank);
    }
  }
  std::sort(sources.begin(), sources.end());
  const std::vector<std::string> received = team.exchange(outgoing, sources);
  // A message holds the routes from its rank to this one, in route order (as they were packed).
  for (std::size_t s = 0; s < sources.size(); ++s) {
    std::size_t at = 0;
    for (std::size_t r = 0; r < routes.size(); ++r) {
      const MigrationRoute& route = routes[r];
      if (!block.holds(route.to) || block.holds(route.from) || island_owner(route.from, team.size(), n) != sources[s])
        continue;
      const std::size_t bytes = static_cast<std::size_t>(route.count) * num_keys * sizeof(double);
      if (at + bytes > received[s].size())
        fail("migration at generation {}: rank {} sent {} bytes, fewer than its routes carry", generation, sources[s],
             received[s].size());
      migrants[r].resize(static_cast<std::size_t>(route.count) * num_keys);
      std::memcpy(migrants[r].data(), received[s].data() + at, bytes);
      at += bytes;
    }
    if (at != received[s].size())
      fail("migration at generation {}: rank {} sent {} bytes, its routes carry {}", generation, sources[s],
           received[s].size(), at);
  }

  std::size_t r = 0;
  for (int k = 0; k < n; ++k) {
    if (!block.holds(k)) {
      while (r < routes.size() && routes[r].to == k) ++r;
      continue;
    }
    // Mutant slots in a random order; the first ones receive the immigrants.
    std::vector<int> slots(static_cast<std::size_t>(brkga.mutant_count));
    std::iota(slots.begin(), slots.end(), brkga.elite_count);
    Rng rng(seed, Purpose::kMigration, static_cast<u32>(k), generation);
    Population& to = local(k);
    std::size_t placed = 0;
    for (; r < routes.size() && routes[r].to == k; ++r) {
      for (int m = 0; m < routes[r].count; ++m, ++placed) {
        const std::size_t pick = placed + rng.below(static_cast<u32>(slots.size() - placed));
        std::swap(slots[placed], slots[pick]);
        const int slot = slots[placed];
        const double* keys = migrants[r].data() + static_cast<std::size_t>(m) * to.num_keys;
        std::copy(keys, keys + to.num_keys, to.individual(slot).begin());
        to.fitness[slot] = kNotEvaluated;
      }
    }
  }
}

void IslandsConfig::validate() const {
  if (moves.empty()) fail("islands: no move numbers given (one island per move number)");
  for (std::size_t k = 0; k < moves.size(); ++k) {
    if (moves[k] < 0 || moves[k] > 60) fail("islands: move number {} is outside 0..60", moves[k]);
    if (k > 0 && moves[k] <= moves[k - 1])
      fail("islands: move numbers must be strictly ascending (island order defines the neighbours); {} follows {}",
           moves[k], moves[k - 1]);
  }
  brkga.validate();
  shake.validate();
  ipr.validate(brkga.elite_count);
  if (migration.interval < 0) fail("migration interval {} must not be negative (0 = never)", migration.interval);
  if (migration.interval > 0)
    check_routes_fit(migration_routes(migration.topology, static_cast<int>(moves.size()), migration.size),
                     static_cast<int>(moves.size()), brkga);
}

Archipelago make_archipelago(const IslandsConfig& config, int num_keys) {
  return make_archipelago(config, num_keys, {0, static_cast<int>(config.moves.size())});
}

Archipelago make_archipelago(const IslandsConfig& config, int num_keys, IslandBlock block) {
  config.validate();
  if (block.first < 0 || block.count < 0 || block.first + block.count > static_cast<int>(config.moves.size()))
    fail("islands {}..{} of {}", block.first, block.first + block.count - 1, config.moves.size());
  Archipelago a;
  a.first_island = block.first;
  for (int k = block.first; k < block.first + block.count; ++k) {
    a.moves.push_back(config.moves[static_cast<std::size_t>(k)]);
    a.islands.push_back(random_population(config.brkga.population_size, num_keys, config.seed, static_cast<u32>(k)));
  }
  if (config.shake.enabled()) a.stalls.assign(a.islands.size(), StallState{});
  return a;
}

std::vector<ShakeAction> advance_generation(Archipelago& a, const IslandsConfig& config) {
  SoloTeam solo;
  return advance_generation(a, config, solo);
}

std::vector<ShakeAction> advance_generation(Archipelago& a, const IslandsConfig& config, IslandTeam& team) {
  const u32 next = static_cast<u32>(a.generation + 1);
  const bool shaking = config.shake.enabled();
  if (shaking && a.stalls.size() != a.islands.size())
    fail("islands: {} stall states for {} islands with shaking on", a.stalls.size(), a.islands.size());
  for (std::size_t k = 0; k < a.islands.size(); ++k) {
    const auto island = static_cast<u32>(a.first_island + static_cast<int>(k));
    sort_population(a.islands[k]);
    if (shaking) update_stall(a.stalls[k], a.islands[k].fitness[0]);
    a.islands[k] = next_generation(a.islands[k], config.brkga, config.seed, island, next);
  }
  if (migration_due(config.migration, static_cast<int>(next)))
    migrate(a.islands, a.first_island, static_cast<int>(config.moves.size()), config.brkga, config.migration,
            config.seed, next, team);
  std::vector<ShakeAction> actions(a.islands.size(), ShakeAction::kNone);
  if (shaking)
    for (std::size_t k = 0; k < a.islands.size(); ++k) {
      actions[k] = shake_action(config.shake, a.stalls[k]);
      apply_shake(actions[k], a.islands[k], config.brkga, config.shake, a.stalls[k], config.seed,
                  static_cast<u32>(a.first_island + static_cast<int>(k)), next);
    }
  a.generation = static_cast<int>(next);
  return actions;
}

}  // namespace ef::ga
