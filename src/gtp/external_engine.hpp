// The game-independent half of a match against an external GTP engine (external_match.hpp for
// Othello, games/hex/external_match.hpp for Hex): starting the engine and checking that it can play
// (its setup commands), the forfeit rule's bookkeeping (a command that fails is the reason the
// game is forfeited; the engine is then stopped) and restarts between games, at most
// max_restarts in the whole match.
#pragma once
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>
#include "gtp/client.hpp"

namespace ef::play {

struct ExternalEngineOptions {
  std::string command;            // run as /bin/sh -c COMMAND
  int games = 0;                  // checked only (>= 0)
  double move_timeout_s = 10;     // per command during the games
  double startup_timeout_s = 30;  // per command right after (re)starting the engine
  int max_restarts = 3;
  // Sent after each start, each with startup_timeout_s; any failure is an ef::Error (the engine
  // cannot play), except a refused "protocol_version" (old engines lack it).
  std::vector<std::string> setup;
};

// Throws ef::Error ("external match: ...") for an empty command, negative games or
// max_restarts, or a timeout that is not positive.
void validate_external_engine_options(const ExternalEngineOptions& o);

class ExternalEngine {
 public:
  explicit ExternalEngine(ExternalEngineOptions options);

  // Starts the engine and sends the setup commands; ef::Error naming the command (and the
  // engine's last stderr line) when it cannot play.
  void start();
  // Before each game: an engine stopped by a forfeit is restarted (logged to `log` when not
  // null); ef::Error, quoting `last_error` (why the previous game ended), when max_restarts
  // restarts have been made already.
  void ready_for_game(const std::string& last_error, std::ostream* log);
  // Sends one command of a game (move timeout). A failure (refusal, timeout, death, garbage)
  // sets `error`, unless already set, to the forfeit's reason at `ply`, e.g.
  // "engine refused 'play b d3' at ply 5: illegal move" or "engine timed out after 10 s at ply 7".
  GtpResponse send(const std::string& command, int ply, std::optional<std::string>& error);
  // After a forfeit: whatever the engine believes the position is, it is not ours; stop it.
  void forfeit() { client_.stop(0.2); }
  void stop() { client_.stop(); }
  int restarts() const { return restarts_; }

 private:
  ExternalEngineOptions options_;
  GtpClient client_;
  int restarts_ = 0;
};

// The first word of an engine's answer, lower-cased ("" for none).
std::string engine_move_word(const std::string& text);

}  // namespace ef::play
