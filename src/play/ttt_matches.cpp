#include "play/ttt_matches.hpp"
#include <map>
#include "evalforge/core/error.hpp"

namespace ef::play {

namespace {

constexpr int kOpenings[8] = {0, 1, 2, 3, 5, 6, 7, 8};  // every square but the centre (4)

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

std::vector<int> TttMatches::play(std::span<const TttMatch> matches) {
  // One backend slot per distinct agent of the batch.
  std::map<const TicTacToeAgent*, int> slot;
  std::vector<const TicTacToeAgent*> agents;
  for (const TttMatch& m : matches)
    for (const TicTacToeAgent* a : {m.player, m.opponent})
      if (slot.emplace(a, static_cast<int>(agents.size())).second) agents.push_back(a);
  for (std::size_t i = 0; i < agents.size(); ++i) {
    if (i < handles_.size()) backend_.update_agent(handles_[i], *agents[i]);
    else handles_.push_back(backend_.add_agent(*agents[i]));
  }
  std::vector<GameJobOf<games::TicTacToe>> jobs;
  jobs.reserve(matches.size() * kTttMatchGames);
  for (const TttMatch& m : matches)
    for (int k = 0; k < 8; ++k)
      for (int colour = 0; colour < 2; ++colour) {  // the player as X, then as O
        GameJobOf<games::TicTacToe> j;
        const int p = handles_[slot[m.player]], o = handles_[slot[m.opponent]];
        j.black = colour == 0 ? p : o;
        j.white = colour == 0 ? o : p;
        j.start = tictactoe::Board{}.play(kOpenings[k]);
        j.game = static_cast<u32>(jobs.size());
        jobs.push_back(j);
      }
  std::vector<TicTacToeRecord> records(jobs.size());
  backend_.play(jobs, records);
  std::vector<int> scores(matches.size(), 0);
  for (std::size_t g = 0; g < jobs.size(); ++g) {
    const int result = g % 2 == 0 ? records[g].black_score : -records[g].black_score;  // the player's view
    scores[g / kTttMatchGames] += result > 0 ? kTttWinPoints : (result == 0 ? kTttDrawPoints : 0);
  }
  return scores;
}

}  // namespace ef::play
