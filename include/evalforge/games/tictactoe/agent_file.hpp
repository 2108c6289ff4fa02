// Tic-Tac-Toe agent files: a player written down so that `evalforge gtp --game tictactoe` (and
// anything else that loads one) plays it from any position (docs/tictactoe.md, "Playing a
// network"). `evalforge tictactoe --save-agents` writes one for each best network of an evolve
// run.
//
// An agent file is TOML:
//   name = "ttt-ply4-t0a"
//   evaluator = "network"   # network | static | random | perfect
//   depth = 4               # network, static (required): minimax plies, 1..9
//   epsilon = 0.000000      # probability of a uniformly random move, 0..1 (default 0)
//   topology = "full"       # network: full | paper (games/tictactoe/network.hpp)
//   bits = "3f0a..."        # network: the bit string in hex, as best_networks.csv holds it
//
// "perfect" is games/tictactoe/players.hpp's kPerfect, minimax to the end of every line; "random"
// plays uniformly random moves. Neither takes a depth. Every key is checked: an unknown key, a key
// that the evaluator does not use, a value out of range or a bit string of the wrong length is an
// ef::Error naming the file and the key.
#pragma once
#include <filesystem>
#include <string>
#include "evalforge/ga/bitstring_ga.hpp"
#include "evalforge/games/tictactoe/network.hpp"
#include "evalforge/games/tictactoe/players.hpp"

namespace ef::play {

// A bit string as hex digits, 4 bits a digit, most significant first, the last digit padded with
// zero bits: the `bits` column of best_networks.csv and the `bits` key of an agent file.
std::string ttt_bits_to_hex(const ga::BitString& bits);
// The inverse: exactly `bits` bits. ef::Error starting with `where` for a character that is not a
// lowercase hex digit or a digit count that does not fit `bits`.
ga::BitString ttt_bits_from_hex(const std::string& hex, int bits, const std::string& where);

// A network's bit string, the inverse of tictactoe::decode_network (network_bits(topology) bits).
ga::BitString ttt_network_bits(const tictactoe::Network& network);

// "perfect", "random", "static" (the static evaluator at 4 plies, the fitness's opponent), or an
// agent file. The agent is validated; ef::Error naming the file (and key) otherwise.
TicTacToeAgent load_tictactoe_agent(const std::string& spec);

// Writes the agent as an agent file, atomically (a temporary file renamed into place), creating the
// directory. ef::Error when the agent fails validate() or the file cannot be written.
void save_tictactoe_agent(const TicTacToeAgent& agent, const std::filesystem::path& file);

}  // namespace ef::play
