// The engine side of GTP (version 2) that does not depend on the game: reading a command line
// (capped in length), GTP's preprocessing of it, the optional numeric id, formatting the
// "=id text\n\n" / "?id text\n\n" response, and the command loop. The Othello engine
// (gtp_engine.hpp) and the Hex engine (games/hex/gtp_engine.hpp) both answer through these; each
// only executes its own commands.
#pragma once
#include <cstddef>
#include <functional>
#include <iosfwd>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ef::play {

// Input lines longer than this are refused whole ("? line too long ..."), their bytes beyond the
// cap read and dropped: a controller cannot make an engine hold an unbounded line.
constexpr std::size_t kGtpMaxLine = 64 * 1024;

struct GtpReply {
  bool ok = true;
  std::string text;
};

// What a command of an engine gets: its name and arguments (GTP's preprocessing done); it sets
// `quit` to end the loop after this response.
using GtpExecute =
    std::function<GtpReply(const std::string& command, const std::vector<std::string>& args, bool& quit)>;

// One input line -> the full response text, or "" for a line GTP says to ignore (blank or
// comment). The id (a leading all-digit word) is echoed; an exception from `execute` becomes
// "? internal error: ..."; a blank line inside the reply's text is removed (it would end the
// response early).
std::string gtp_handle_line(const std::string& raw, const GtpExecute& execute, bool& quit);

// The command loop: reads lines from `in` (each capped at `max_line` bytes: a longer one is
// answered "?id line too long" with the id of its start), answers them with gtp_handle_line,
// flushing each response (the controller waits on it), until a command sets `quit` or the input
// ends. Returns 0 (the exit status).
int gtp_run(std::istream& in, std::ostream& out, const GtpExecute& execute, std::size_t max_line = kGtpMaxLine);

// The answers to known_command / list_commands for an engine's command names.
GtpReply gtp_known_command(std::span<const char* const> commands, const std::vector<std::string>& args);
GtpReply gtp_list_commands(std::span<const char* const> commands);

// Helpers for engines' argument checks and messages.
std::string gtp_lower(std::string s);
bool gtp_all_digits(const std::string& s);
// `text` quoted for a message, cut to its first `max` characters ("..." added): an engine
// never echoes more than a short prefix of bad input.
std::string gtp_quote(std::string_view text, std::size_t max = 32);

}  // namespace ef::play
