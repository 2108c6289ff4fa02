#include "gtp/external_engine.hpp"
#include <fmt/format.h>
#include <cctype>
#include <ostream>
#include "evalforge/core/error.hpp"

namespace ef::play {

void validate_external_engine_options(const ExternalEngineOptions& o) {
  if (o.command.empty()) fail("external match: no engine command");
  if (o.games < 0) fail("external match: {} games", o.games);
  if (!(o.move_timeout_s > 0)) fail("external match: move timeout {} s (must be positive)", o.move_timeout_s);
  if (!(o.startup_timeout_s > 0)) fail("external match: startup timeout {} s (must be positive)", o.startup_timeout_s);
  if (o.max_restarts < 0) fail("external match: max_restarts {} (must be >= 0)", o.max_restarts);
}

ExternalEngine::ExternalEngine(ExternalEngineOptions options)
    : options_(std::move(options)), client_(options_.command) {}

void ExternalEngine::start() {
  // A failure here is not a flaky move but an engine that cannot play at all.
  client_.start();
  for (const std::string& command : options_.setup) {
    const GtpResponse r = client_.send(command, options_.startup_timeout_s);
    if (r.ok() || (r.status == GtpResponse::Status::kFailure && command == "protocol_version")) continue;
    const std::string said = client_.last_stderr_line();
    if (r.status == GtpResponse::Status::kFailure)
      fail("gtp engine '{}' cannot play: it answered '{}' with '? {}'", options_.command, command, r.text);
    fail("gtp engine '{}' did not start: {}{}", options_.command, r.text,
         said.empty() || r.text.find(said) != std::string::npos ? "" : " (stderr: " + said + ")");
  }
}

void ExternalEngine::ready_for_game(const std::string& last_error, std::ostream* log) {
  if (client_.running()) return;
  // The previous game was forfeited and the engine stopped: a fresh one for this game.
  if (restarts_ >= options_.max_restarts)
    fail("gtp engine '{}' failed again after {} restarts (max_restarts): {}", options_.command, restarts_, last_error);
  ++restarts_;
  if (log) *log << fmt::format("restarting engine ({} of at most {})\n", restarts_, options_.max_restarts);
  start();
}

GtpResponse ExternalEngine::send(const std::string& command, int ply, std::optional<std::string>& error) {
  const GtpResponse r = client_.send(command, options_.move_timeout_s);
  if (!r.ok() && !error) {
    if (r.status == GtpResponse::Status::kFailure)
      error = fmt::format("engine refused '{}' at ply {}: {}", command, ply, r.text);
    else
      error = fmt::format("{} at ply {}", r.text, ply);  // timeout, death, garbage: the text says which
  }
  return r;
}

std::string engine_move_word(const std::string& text) {
  std::string answer = text.substr(0, text.find_first_of(" \n"));
  for (char& c : answer) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return answer;
}

}  // namespace ef::play
