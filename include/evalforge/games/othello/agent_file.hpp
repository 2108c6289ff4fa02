// Agent files: what `score` and `match` write so that a trained evaluator can be played, and
// what `league`, `tournament`, `gtp` and `match` read.
//
// An agent file is TOML:
//   name = "edax-match"
//   evaluator = "ntuple"        # ntuple | swh | features | random
//   depth = 7                   # alpha-beta plies in the midgame (1..10)
//   exact_empties = 20          # solve exactly from this many empties (-1: never; at most 24)
//   epsilon = 0.0               # probability of a uniformly random move
//   network = "edax-match.efnet"    # ntuple: the networks, relative to this file
//   chromosome = "14:42:0:0:4:0:4:10:2:7:9"   # features: o:e:wf1:wm1:wc1:...:wc3
//   material = "flips"          # features: flips | discs
// Unknown keys are rejected with the file and key named.
//
// The network file (.efnet) is gzip-compressed binary, little-endian:
//   "EFNET001"; u32 geometries; per geometry: u32 name length, name bytes, u32 tuples, u64 masks;
//   u32 networks; per network: u32 geometry, u32 weights, i32 weights...;
//   61 x u32: the network of each move number 0..60; u32 CRC-32 of everything before it.
#pragma once
#include <filesystem>
#include <string>
#include "evalforge/games/othello/agent.hpp"

namespace ef::play {

// "random", "swh", or an agent file. Throws ef::Error naming the file (and key or byte offset).
OthelloAgent load_agent(const std::string& spec);

// Writes `file` (TOML) and, for an n-tuple agent, the network beside it (same stem, .efnet),
// each atomically (a temporary file renamed into place). Returns the network file's path (empty
// for other kinds).
std::filesystem::path save_agent(const OthelloAgent& agent, const std::filesystem::path& file);

// 16 hex digits: FNV-1a over everything that decides how `agent` plays or orders moves (its
// kind, limits, ProbCut, feature weights, n-tuple shapes, weights and move stages; not its
// name). A run that must resume with the same agent records it: a tournament's source.toml, the
// journal of `evalforge ordering`'s sampling.
std::string agent_fingerprint(const OthelloAgent& agent);

// The network file alone (used by save_agent/load_agent; exposed for tests).
void save_networks(const OthelloAgent& agent, const std::filesystem::path& file);
void load_networks(OthelloAgent& agent, const std::filesystem::path& file);

}  // namespace ef::play
