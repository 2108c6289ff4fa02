// Every kind of run directory, declared once: its name in run.toml and the command that creates
// and resumes it. Each run loop takes its kind's name from here, and `evalforge report` picks
// its figures by kind with a switch over RunKind that has no default (app/cmd_report.cpp), so a
// new kind is one entry here and one case there.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include "core/name_table.hpp"

namespace ef {

enum class RunKind { kSearch, kMatch, kTournament, kEvolve, kHexMatch, kHexTune };

struct RunKindInfo {
  RunKind kind;
  const char* name;     // run.toml's kind
  const char* command;  // `evalforge COMMAND --resume DIR` continues it
};

inline constexpr RunKindInfo kRunKinds[] = {
    {RunKind::kSearch, "search", "search"},              // runs/shape_search_run
    {RunKind::kMatch, "match", "match"},                 // runs/match_experiment
    {RunKind::kTournament, "tournament", "tournament"},  // runs/tournament
    {RunKind::kEvolve, "evolve", "evolve"},              // runs/evolve_run, evolve_tictactoe
    {RunKind::kHexMatch, "hex-match", "hex match"},      // runs/hex_match_run
    {RunKind::kHexTune, "hex-tune", "hex tune"},         // runs/hex_tune_run
};

// Every RunKind has an entry, so these never meet a null (kKind = run_kind_name(...) is a
// constant expression: a missing entry would not compile).
constexpr const char* run_kind_name(RunKind kind) { return entry_of(kRunKinds, kind)->name; }

// The kind called `name` in run.toml; nullopt for a name no kind has.
constexpr std::optional<RunKind> run_kind_named(std::string_view name) {
  const RunKindInfo* k = entry_named(kRunKinds, name);
  return k ? std::optional<RunKind>(k->kind) : std::nullopt;
}

// How a user continues the run in `dir`: "evalforge COMMAND --resume DIR" (the runs' resume hint).
inline std::string resume_command(RunKind kind, const std::string& dir) {
  return std::string("evalforge ") + entry_of(kRunKinds, kind)->command + " --resume " + dir;
}

}  // namespace ef
