#include "evalforge/runs/run_session.hpp"
#include <fmt/format.h>
#include <fmt/ranges.h>
#include "evalforge/core/error.hpp"

namespace ef {

namespace fs = std::filesystem;

RunSession RunSession::start_new(const fs::path& dir, std::string_view kind, const RunOptions& options) {
  RunDir::check_creatable(dir, kind, options.resume_hint);
  RunSession s(dir, options, false);
  s.kind_ = std::string(kind);
  return s;
}

RunSession RunSession::resume(const fs::path& dir, std::string_view kind, const RunOptions& options) {
  RunSession s(dir, options, true);
  s.kind_ = std::string(kind);
  s.run_ = RunDir::open(dir, kind);
  s.run_->set_sink(options.progress);
  // A run resumed under other settings than it ran with mixes two experiments in one set of
  // tables, and nothing in them would say so: an edit is refused unless the user says it is
  // meant, and then it is logged.
  if (const std::vector<std::string> edits = s.run_->config_edits(); !edits.empty()) {
    const std::string config = s.config_file();
    if (!options.accept_config_edits)
      fail(
          "{}: edited since the run was made ({}); a resumed run keeps the settings it started with. Undo the "
          "edit, start a new run, or resume with --accept-config-edits to go on under the edited settings",
          config, fmt::join(edits, "; "));
    s.run_->log(
        fmt::format("{}: edited since the run was made; going on under the edited settings "
                    "(--accept-config-edits): {}",
                    config, fmt::join(edits, "; ")));
    s.run_->accept_config_edits();
  }
  return s;
}

RunDir& RunSession::run() {
  if (!run_) fail("{}: the {} run is not created yet", dir_.string(), kind_);
  return *run_;
}

void RunSession::log(const std::string& line) {
  if (run_) return run_->log(line);
  pending_.push_back(line);
  if (options_->progress) options_->progress(line);
}

void RunSession::check_memory(std::string_view who, const std::vector<MemoryPart>& parts, std::string_view advice) {
  log(ef::check_memory(who, parts, advice));
}

RunDir& RunSession::create(const Tables& tables, const std::string& config_toml,
                           const std::function<void(RunDir&)>& prepare) {
  if (run_) fail("{}: the {} run exists already", dir_.string(), kind_);
  RunDir run = RunDir::create(dir_, kind_, options_->resume_hint, tables);
  for (const std::string& line : pending_) run.log(line);  // the sink had them already
  pending_.clear();
  run.set_sink(options_->progress);
  if (prepare) prepare(run);
  run.commit_config(config_toml);  // last: its presence makes the directory a run
  run_ = std::move(run);
  return *run_;
}

bool RunSession::stop_requested() const { return options_->stop_requested && options_->stop_requested(); }

void RunSession::stopped(std::string_view when) {
  interrupted_ = true;
  if (options_->stopped) *options_->stopped = true;
  log(fmt::format("stopped {}; {}", when,
                  options_->resume_hint.empty() ? fmt::format("resume the run in {} to continue", dir_.string())
                                                : "continue with: " + options_->resume_hint));
}

}  // namespace ef
