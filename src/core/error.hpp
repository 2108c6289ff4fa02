// One exception type for user-facing errors (bad file, bad config value, bad flag): the message
// names the file/line/key and what was expected; the app prints it and exits non-zero.
#pragma once
#include <fmt/format.h>
#include <stdexcept>
#include <string>

namespace ef {

struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

template <typename... Args>
[[noreturn]] void fail(fmt::format_string<Args...> f, Args&&... args) {
  throw Error(fmt::format(f, std::forward<Args>(args)...));
}

}  // namespace ef
