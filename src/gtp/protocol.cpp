#include "gtp/protocol.hpp"
#include <fmt/format.h>
#include <algorithm>
#include <cctype>
#include <exception>
#include <istream>
#include <ostream>
#include <sstream>
#include <streambuf>

namespace ef::play {

namespace {

enum class LineStatus { kLine, kTooLong, kEnd };

// One line from `in` without its '\n'; at most `max` bytes are kept, the rest of a longer line
// is consumed and dropped. A last line without '\n' counts as a line.
LineStatus read_line(std::istream& in, std::string& line, std::size_t max) {
  using Traits = std::char_traits<char>;
  line.clear();
  std::streambuf* buf = in.rdbuf();
  if (!buf || !in.good()) return LineStatus::kEnd;
  bool any = false, too_long = false;
  for (;;) {
    const Traits::int_type c = buf->sbumpc();
    if (Traits::eq_int_type(c, Traits::eof())) {
      in.setstate(std::ios::eofbit);
      if (!any) return LineStatus::kEnd;
      break;
    }
    any = true;
    if (c == '\n') break;
    if (line.size() < max)
      line += Traits::to_char_type(c);
    else
      too_long = true;
  }
  return too_long ? LineStatus::kTooLong : LineStatus::kLine;
}

// GTP 2 preprocessing: control characters but tab dropped (a CR from a CRLF line among them),
// tabs turned into spaces, everything from '#' on a comment; then split into words.
std::vector<std::string> words_of(const std::string& raw) {
  std::string line;
  for (const char c : raw) {
    if (c == '#') break;
    if (c == '\t')
      line += ' ';
    else if (static_cast<unsigned char>(c) >= 32 && c != 127)
      line += c;
  }
  std::istringstream words(line);
  std::vector<std::string> tokens;
  for (std::string w; words >> w;) tokens.push_back(w);
  return tokens;
}

std::string format_response(const std::string& id, const GtpReply& reply) {
  // A blank line inside a response would end it early.
  std::string text;
  for (std::size_t i = 0; i < reply.text.size(); ++i)
    if (!(reply.text[i] == '\n' && i + 1 < reply.text.size() && reply.text[i + 1] == '\n')) text += reply.text[i];
  while (!text.empty() && text.back() == '\n') text.pop_back();
  return fmt::format("{}{} {}\n\n", reply.ok ? '=' : '?', id, text);
}

}  // namespace

std::string gtp_lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool gtp_all_digits(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::string gtp_quote(std::string_view text, std::size_t max) {
  if (text.size() <= max) return fmt::format("'{}'", text);
  return fmt::format("'{}...'", text.substr(0, max));
}

std::string gtp_handle_line(const std::string& raw, const GtpExecute& execute, bool& quit) {
  const std::vector<std::string> tokens = words_of(raw);
  if (tokens.empty()) return {};
  std::string id;
  std::size_t first = 0;
  if (gtp_all_digits(tokens[0])) {
    id = tokens[0];
    first = 1;
  }
  GtpReply reply;
  if (first == tokens.size()) {
    reply = {false, "missing command after the id"};
  } else {
    const std::vector<std::string> args(tokens.begin() + static_cast<std::ptrdiff_t>(first) + 1, tokens.end());
    // A malformed command is answered, never thrown past the protocol loop: the engine must
    // stay in sync with its controller whatever it is sent.
    try {
      reply = execute(tokens[first], args, quit);
    } catch (const std::exception& e) {
      reply = {false, fmt::format("internal error: {}", e.what())};
    }
  }
  return format_response(id, reply);
}

int gtp_run(std::istream& in, std::ostream& out, const GtpExecute& execute, std::size_t max_line) {
  std::string line;
  bool quit = false;
  while (!quit) {
    const LineStatus status = read_line(in, line, max_line);
    if (status == LineStatus::kEnd) break;
    std::string response;
    if (status == LineStatus::kTooLong) {
      // Answered with the id of its start when the line begins with one (a short one, whole).
      const std::size_t b = line.find_first_not_of(" \t");
      const std::size_t e = b == std::string::npos ? b : line.find_first_of(" \t", b);
      std::string id;
      if (e != std::string::npos && e - b <= 20 && gtp_all_digits(line.substr(b, e - b))) id = line.substr(b, e - b);
      response = format_response(id, {false, fmt::format("line too long (over {} bytes), ignored", max_line)});
    } else {
      response = gtp_handle_line(line, execute, quit);
    }
    if (response.empty()) continue;
    out << response;
    out.flush();
  }
  return 0;
}

GtpReply gtp_known_command(std::span<const char* const> commands, const std::vector<std::string>& args) {
  if (args.size() != 1) return {false, "syntax error (usage: known_command COMMAND)"};
  const bool known =
      std::find_if(commands.begin(), commands.end(), [&](const char* c) { return args[0] == c; }) != commands.end();
  return {true, known ? "true" : "false"};
}

GtpReply gtp_list_commands(std::span<const char* const> commands) {
  std::string text;
  for (const char* c : commands) text += fmt::format("{}{}", text.empty() ? "" : "\n", c);
  return {true, text};
}

}  // namespace ef::play
