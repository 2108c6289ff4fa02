// The skeleton every run loop of src/runs/ stands on: one call of a run (a creation or a resume)
// from its directory to its stop. The run directory (core/run_dir.hpp) says how files survive a
// crash; the session says, once for all run kinds, in what order a run does things:
//
//   new run                                   resume
//   RunSession::start_new: refuses an         RunSession::resume: opens and locks the
//     unusable directory, makes nothing         directory, progress lines go to the sink
//   check_memory: refuses a run that cannot fit (its line is logged once the directory is there)
//   the run's own setup: data, agents, players; an error here leaves no directory behind
//   create: the directory, its tables, what   the run validates its checkpoint and tables;
//     a resume needs (prepare), config last     check_only() returns here
//   the loop: stop_requested() at each safe point; stopped("after generation 7") logs how to
//   continue and reports the stop (RunOptions::stopped, interrupted())
//
// What differs between run kinds (their config, checkpoint, tables, loop body) stays in their
// own files; what is the same is here, so a new run kind cannot forget the lock, the memory
// check, the commit point or the hint a stopped run gives.
#pragma once
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>
#include "evalforge/core/memory_check.hpp"
#include "evalforge/core/run_dir.hpp"

namespace ef {

class RunSession {
 public:
  using Tables = std::vector<std::pair<std::string, std::string>>;  // name, header

  // A new run of `kind` in `dir`: refuses at once a directory that holds a run or other files
  // (RunDir::check_creatable); nothing is made until create(). `options` must outlive the session.
  static RunSession start_new(const std::filesystem::path& dir, std::string_view kind, const RunOptions& options);
  // The run of `kind` in `dir`, opened and locked (RunDir::open), its lines going to the sink.
  static RunSession resume(const std::filesystem::path& dir, std::string_view kind, const RunOptions& options);

  bool resuming() const { return resuming_; }
  const RunOptions& options() const { return *options_; }
  const std::filesystem::path& path() const { return dir_; }
  // The directory: from the start on resume, from create() on for a new run (an ef::Error before).
  RunDir& run();
  // The config file of a resumed run (DIR/config.toml).
  std::string config_file() const { return (dir_ / "config.toml").string(); }

  // A progress line: to the run's log (and the sink) once the directory is there; before that
  // to the sink at once, and into log.txt first thing when create() makes it (so the lines of a
  // new run's setup, such as its data loading, are in its log too).
  void log(const std::string& line);
  // core/memory_check.hpp's check: an ef::Error when the parts exceed the limit; else logs the
  // estimate's line.
  void check_memory(std::string_view who, const std::vector<MemoryPart>& parts, std::string_view advice);

  // A new run: creates the directory (locked) with its tables, lets `prepare` write what a resume
  // needs (an initial checkpoint, source.toml), then commits `config_toml`, which makes the
  // directory a run.
  RunDir& create(const Tables& tables, const std::string& config_toml,
                 const std::function<void(RunDir&)>& prepare = {});

  // Whether the user asked to stop (the options' stop_requested); ask it at each safe point.
  bool stop_requested() const;
  // Logs "stopped <when>; continue with: <hint>" and reports the stop: interrupted() from now
  // on, and *options.stopped when the caller asked for it.
  void stopped(std::string_view when);
  bool interrupted() const { return interrupted_; }

 private:
  RunSession(std::filesystem::path dir, const RunOptions& options, bool resuming)
      : dir_(std::move(dir)), options_(&options), resuming_(resuming) {}

  std::filesystem::path dir_;
  std::string kind_;
  const RunOptions* options_;
  bool resuming_;
  bool interrupted_ = false;
  std::optional<RunDir> run_;
  std::vector<std::string> pending_;  // lines logged before the directory was made
};

}  // namespace ef
