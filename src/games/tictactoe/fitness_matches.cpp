#include "evalforge/games/tictactoe/fitness_matches.hpp"
#include <map>
#include "evalforge/core/error.hpp"
#include "evalforge/engine/round_robin.hpp"

namespace ef::play {

namespace {

constexpr int kOpenings[9] = {0, 1, 2, 3, 5, 6, 7, 8, 4};  // every square but the centre (4), then it

}  // namespace

TicTacToeAgent network_agent(const ga::BitString& bits, tictactoe::Topology topology, int depth,
                             const std::string& name) {
  if (static_cast<int>(bits.size()) != tictactoe::network_bits(topology))
    fail("agent '{}': {} bits, the {} network has {}", name, bits.size(),
         topology == tictactoe::Topology::kFull ? "full" : "paper", tictactoe::network_bits(topology));
  TicTacToeAgent a;
  a.name = name;
  a.params.kind = TicTacToeEvaluator::kNetwork;
  a.params.depth = depth;
  a.params.network = tictactoe::decode_network(bits.data(), topology);
  return a;
}

TicTacToeAgent static_agent(int depth) { return tictactoe_agent(TicTacToeEvaluator::kStatic, depth); }

TttMatches::TttMatches(PlayBackend<games::TicTacToe>& backend, TttOpenings openings, int games_per_opening)
    : backend_(backend), openings_(openings), games_per_opening_(games_per_opening) {
  if (games_per_opening < 1 || games_per_opening > kMaxGamesPerOpening)
    fail("Tic-Tac-Toe matches: {} games per opening (expected 1..{})", games_per_opening, kMaxGamesPerOpening);
}

std::vector<int> TttMatches::play(std::span<const TttMatch> matches, u64 seed) {
  // One backend slot per distinct agent of the batch.
  std::map<const TicTacToeAgent*, int> slot;
  std::vector<const TicTacToeAgent*> agents;
  for (const TttMatch& m : matches)
    for (const TicTacToeAgent* a : {m.player, m.opponent})
      if (slot.emplace(a, static_cast<int>(agents.size())).second) agents.push_back(a);
  for (std::size_t i = 0; i < agents.size(); ++i) {
    if (i < handles_.size())
      backend_.update_agent(handles_[i], *agents[i]);
    else
      handles_.push_back(backend_.add_agent(*agents[i]));
  }
  // Each match: the 8 (or 9) openings (K times), the player as X then as O (engine/round_robin.hpp's
  // layout); with K = 1 the games and game ids of before repetitions existed.
  const int openings = ttt_openings(openings_), starts = openings * games_per_opening_, games = 2 * starts;
  std::vector<Pairing> pairs;
  for (const TttMatch& m : matches) pairs.emplace_back(handles_[slot[m.player]], handles_[slot[m.opponent]]);
  const auto jobs = paired_games<games::TicTacToe>(
      pairs, starts, [openings](std::size_t, int k) { return tictactoe::Board{}.play(kOpenings[k % openings]); }, seed);
  std::vector<TicTacToeRecord> records(jobs.size());
  backend_.play(jobs, records);
  std::vector<int> scores(matches.size(), 0);
  for (std::size_t g = 0; g < jobs.size(); ++g) {
    const int result = pair_first_result<games::TicTacToe>(records[g], g);  // the player's view
    scores[g / static_cast<std::size_t>(games)] += result > 0 ? kTttWinPoints : (result == 0 ? kTttDrawPoints : 0);
  }
  return scores;
}

TttRoundRobin ttt_round_robin(PlayBackend<games::TicTacToe>& backend, std::span<const TicTacToeAgent> players) {
  TttMatches matches(backend);
  std::vector<TttMatch> list;
  for (std::size_t i = 0; i < players.size(); ++i)
    for (std::size_t j = i + 1; j < players.size(); ++j) list.push_back({&players[i], &players[j]});
  const std::vector<int> points = matches.play(list);
  const std::size_t n = players.size();
  TttRoundRobin rr;
  rr.points.assign(n, std::vector<int>(n, -1));
  for (std::size_t k = 0, i = 0; i < n; ++i)
    for (std::size_t j = i + 1; j < n; ++j, ++k) {
      rr.points[i][j] = points[k];
      rr.points[j][i] = 2 * kTttMatchGames * kTttDrawPoints - points[k];
      const int half_wins = points[k] / kTttDrawPoints;  // 0..32
      for (int h = 0; h < 2 * kTttMatchGames; ++h)
        rr.games.push_back({static_cast<int>(i), static_cast<int>(j), h < half_wins ? 1.0 : 0.0});
    }
  return rr;
}

}  // namespace ef::play
