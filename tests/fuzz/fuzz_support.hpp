// Shared by the libFuzzer targets (one binary each, tests/fuzz/CMakeLists.txt): the parsers
// read files, so each input is written to a file in a private directory first. An ef::Error is
// the expected answer to bad input; anything else that escapes (another exception, a crash, a
// sanitizer report, a hang) is a finding.
#pragma once
#include <unistd.h>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include "evalforge/core/error.hpp"

namespace ef::fuzz {

// The directory is removed at a normal exit (libFuzzer's end of run: static destruction) and
// left after a crash, beside its repro.
struct WorkDir {
  std::filesystem::path path;
  ~WorkDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
};

inline const std::filesystem::path& work_dir() {
  static const WorkDir dir = [] {
    auto d = std::filesystem::temp_directory_path() / ("evalforge-fuzz-" + std::to_string(getpid()));
    std::filesystem::create_directories(d);
    return WorkDir{d};
  }();
  return dir.path;
}

inline std::filesystem::path write_file(const std::string& name, std::string_view bytes) {
  const auto p = work_dir() / name;
  std::ofstream(p, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return p;
}

// Runs f, accepting ef::Error (bad input, reported cleanly) and nothing else. EF_FUZZ_VERBOSE=1
// prints each input's outcome (checking that seeds reach deep, not a first-line error).
template <class F>
void expect_clean(F&& f) {
  static const bool verbose = std::getenv("EF_FUZZ_VERBOSE") != nullptr;
  try {
    f();
    if (verbose) std::fprintf(stderr, "accepted\n");
  } catch (const Error& e) {
    if (verbose) std::fprintf(stderr, "error: %s\n", e.what());
  }
}

// The first byte of an input picks a variant (file kind, config type, ...); the rest is data.
inline int pick(const std::uint8_t* data, std::size_t size, int variants) { return size ? data[0] % variants : 0; }
inline std::string_view rest(const std::uint8_t* data, std::size_t size) {
  return size ? std::string_view(reinterpret_cast<const char*>(data) + 1, size - 1) : std::string_view();
}

}  // namespace ef::fuzz
