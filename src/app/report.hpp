// Pieces of `evalforge report` shared by its per-run-kind files.
#pragma once
#include <filesystem>
#include <string>

namespace ef::app {

// Runs gnuplot on `script`; ef::Error when gnuplot is missing (naming the Debian package) or fails.
void run_gnuplot(const std::filesystem::path& script);

// An evolve run (runs/evolve_run.hpp): champion_rating.png (the champion's Elo and Bradley-Terry
// rating with its 95% margin per generation, the population's mean Elo, the yardstick score) and
// champion_weights.png (the champion's phase bounds o, e and its weights by phase).
void report_evolve(const std::filesystem::path& dir);
// A tictactoe evolve run: fitness.png, best and mean fitness per generation (the mean over
// trials, with the range over trials as a band), and with co-evolution the monitor's; and when
// the run has oracle.csv, oracle.png: the best networks' measures against perfect play and the
// population's share that never loses, beside the constant evaluator, random networks and the
// static evaluator measured at the run's depth.
void report_tictactoe(const std::filesystem::path& dir);
// A Hex run (app/report_hex.cpp): kind "hex-match" (win_rate.png) or "hex-tune" (gamma.png).
void report_hex(const std::filesystem::path& dir, const std::string& kind);

}  // namespace ef::app
