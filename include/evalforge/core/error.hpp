// One exception type for user-facing errors (bad file, bad config value, bad flag): the message
// names the file/line/key and what was expected; the app prints it and exits non-zero.
#pragma once
#include <fmt/format.h>
#include <algorithm>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

namespace ef {

struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
  // An error about one of the library's inputs: the message is "INPUT: DETAIL".
  Error(std::string input_name, const std::string& detail_text)
      : std::runtime_error(input_name + ": " + detail_text), input(std::move(input_name)), detail(detail_text) {}
  // The library's own name of the input the error is about ("backend", "devices", "moves"), or
  // empty. The library never names a front end's spelling of it: a front end that calls the
  // input something else (the CLI's --backend flag) says so with `detail` (app/options.hpp
  // describe_error).
  std::string input;
  std::string detail;
};

template <typename... Args>
[[noreturn]] void fail(fmt::format_string<Args...> f, Args&&... args) {
  throw Error(fmt::format(f, std::forward<Args>(args)...));
}

// fail() about the input `input` (its name in the library's interface, e.g. "backend").
template <typename... Args>
[[noreturn]] void fail_input(std::string_view input, fmt::format_string<Args...> f, Args&&... args) {
  throw Error(std::string(input), fmt::format(f, std::forward<Args>(args)...));
}

// Bytes from a file or a peer for a message: printable ASCII as is, every other byte as \xNN. A
// corrupt file's bytes then never reach a terminal raw (an escape sequence could rewrite what
// the user sees), and the message stays valid UTF-8 for JSON and logs.
inline std::string printable(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte >= 0x20 && byte < 0x7F)
      out += c;
    else
      out += fmt::format("\\x{:02x}", byte);
  }
  return out;
}

// The length of the UTF-8 sequence at the start of `text` (2..4), or 0 when it is not one
// (a stray continuation byte, an overlong form, a surrogate, a code point above U+10FFFF, or a
// sequence cut short).
inline std::size_t utf8_sequence_length(std::string_view text) {
  if (text.empty()) return 0;
  const auto at = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const auto cont = [&](std::size_t k) { return k < text.size() && (at(k) & 0xC0) == 0x80; };
  const unsigned char b = at(0);
  if (b >= 0xC2 && b <= 0xDF) return cont(1) ? 2 : 0;
  if (b >= 0xE0 && b <= 0xEF) {
    if (!cont(1) || !cont(2)) return 0;
    if ((b == 0xE0 && at(1) < 0xA0) || (b == 0xED && at(1) > 0x9F)) return 0;  // overlong; surrogate
    return 3;
  }
  if (b >= 0xF0 && b <= 0xF4) {
    if (!cont(1) || !cont(2) || !cont(3)) return 0;
    if ((b == 0xF0 && at(1) < 0x90) || (b == 0xF4 && at(1) > 0x8F)) return 0;  // overlong; above U+10FFFF
    return 4;
  }
  return 0;
}

// `message` with every run of more than kMaxShownToken bytes without a space or line break (a
// 120 kB argument, a garbage line a message quotes) shown as its start and end around
// "[... N bytes ...]", cut between UTF-8 characters. A long path stays recognisable.
constexpr std::size_t kMaxShownToken = 256;
inline std::string elide_long_tokens(std::string_view message) {
  constexpr std::size_t kHead = 160, kTail = 48;
  const auto continuation = [&](std::size_t k) {
    return k < message.size() && (static_cast<unsigned char>(message[k]) & 0xC0) == 0x80;
  };
  std::string out;
  std::size_t i = 0;
  while (i < message.size()) {
    const std::size_t end = std::min(message.find_first_of(" \n\t", i), message.size());
    if (end - i > kMaxShownToken) {
      std::size_t head = i + kHead, tail = end - kTail;
      while (head > i && continuation(head)) --head;
      while (tail < end && continuation(tail)) ++tail;
      out.append(message.substr(i, head - i));
      out += "[... " + std::to_string(tail - head) + " bytes ...]";
      out.append(message.substr(tail, end - tail));
    } else {
      out.append(message.substr(i, end - i));
    }
    if (end < message.size()) out += message[end];
    i = end + 1;
  }
  return out;
}

// An error message as it is shown: control bytes (an escape sequence from a corrupt file that a
// message quotes) and bytes that are not UTF-8 as \xNN; line breaks, tabs and UTF-8 text as they
// are; a token of more than kMaxShownToken bytes elided in its middle (elide_long_tokens). The
// command line prints its errors (its own and CLI11's) through it and the Python module raises
// them through it, so both say the same, and the result is always valid UTF-8.
inline std::string displayable_message(std::string_view text) {
  const std::string elided = elide_long_tokens(text);
  const std::string_view message = elided;
  std::string out;
  out.reserve(message.size());
  for (std::size_t i = 0; i < message.size();) {
    const auto byte = static_cast<unsigned char>(message[i]);
    if (byte < 0x80) {
      if ((byte < 0x20 && byte != '\n' && byte != '\t') || byte == 0x7F)
        out += fmt::format("\\x{:02x}", byte);
      else
        out += message[i];
      ++i;
    } else if (const std::size_t n = utf8_sequence_length(message.substr(i)); n > 0) {
      out.append(message, i, n);
      i += n;
    } else {
      out += fmt::format("\\x{:02x}", byte);
      ++i;
    }
  }
  return out;
}

}  // namespace ef
