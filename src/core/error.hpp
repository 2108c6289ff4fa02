// One exception type for user-facing errors (bad file, bad config value, bad flag): the message
// names the file/line/key and what was expected; the app prints it and exits non-zero.
#pragma once
#include <fmt/format.h>
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

}  // namespace ef
