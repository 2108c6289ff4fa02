// ProbCut parameters for an agent (engine/pvs.hpp): fitting them on sample positions, and
// their file.
//
// Fitting (`evalforge probcut`): sample positions come from the agent's own play -- a random
// 8-ply opening, then 0..44 moves of the agent at 1 ply -- so no data set is needed and the
// positions are the kind the agent meets. For every position and every depth d from min_depth
// to max_depth, the non-selective search (pvs without ProbCut) gives the d-ply value v_d and
// the s(d)-ply value v_s; per (d, phase) a least-squares line v_d ~ a v_s + b is fitted, and
// sigma is the root-mean-square residual. A (d, phase) with fewer than kMinSamples positions,
// or a non-positive slope, gets no cut. The fit is a pure function of (agent, options): the
// positions come from Philox streams keyed by (seed, position index), and each position's
// searches do not depend on the others, so the thread count does not change it.
//
// File (TOML; written by the fit, read by load_agent for `probcut = "FILE"`):
//   threshold = 1.5          # sigmas
//   min_depth = 3
//   [[cut]]                  # one per fitted (depth, phase)
//   depth = 6
//   phase = 2                # moves 0-14, 15-29, 30-44, 45-60
//   a = 0.98
//   b = 1234.5               # evaluator units (an n-tuple network: 65536 per disc)
//   sigma = 140000.0
//   samples = 512            # informative
#pragma once
#include <filesystem>
#include <memory>
#include <string>
#include <vector>
#include "evalforge/games/othello/agent.hpp"

namespace ef::play {

constexpr int kProbCutMinSamples = 30;

struct ProbCutFitOptions {
  int positions = 600;
  int min_depth = 3;
  int max_depth = 8;
  double threshold = 1.5;
  u64 seed = 1;
  int threads = 1;
  int table_bits = 18;
};

struct ProbCutCell {
  int depth = 0, phase = 0, samples = 0;
  double a = 0, b = 0, sigma = 0, correlation = 0;
};

struct ProbCutFit {
  search::ProbCut params;
  std::vector<ProbCutCell> cells;  // every (depth, phase) with samples, fitted or not
};

// Throws ef::Error for options out of range (naming the option) or an agent that cannot search.
ProbCutFit fit_probcut(const OthelloAgent& agent, const ProbCutFitOptions& options);

void save_probcut(const ProbCutFit& fit, const std::filesystem::path& file);
// Throws ef::Error naming the file and key for anything malformed.
std::shared_ptr<const search::ProbCut> load_probcut(const std::filesystem::path& file);

}  // namespace ef::play
