#include "evalforge/core/install_paths.hpp"
#include <cstdlib>
#include <mutex>
#include <string>
#include <system_error>
#include "evalforge/core/error.hpp"

#ifndef EF_BUILD_NETWORKS_DIR
#error "EF_BUILD_NETWORKS_DIR (the source tree's networks/) is set by CMakeLists.txt"
#endif

namespace ef {
namespace {

std::mutex set_mutex;
std::filesystem::path& set_folder() {
  static std::filesystem::path folder;
  return folder;
}

bool is_folder(const std::filesystem::path& p) {
  std::error_code ec;
  return !p.empty() && std::filesystem::is_directory(p, ec);
}

// PREFIX/share/evalforge/networks for a program at PREFIX/bin/NAME; empty when the program's
// path cannot be read (/proc not mounted).
std::filesystem::path installed_folder() {
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec || exe.empty()) return {};
  return exe.parent_path().parent_path() / "share" / "evalforge" / "networks";
}

}  // namespace

void set_networks_dir(const std::filesystem::path& folder) {
  std::lock_guard lock(set_mutex);
  set_folder() = folder;
}

std::filesystem::path networks_dir() {
  if (const char* env = std::getenv("EF_NETWORKS_DIR"); env != nullptr && *env != '\0') {
    if (!is_folder(env)) fail("EF_NETWORKS_DIR: '{}' is not a folder (it should hold ordering/ and tictactoe/)", env);
    return env;
  }
  {
    std::lock_guard lock(set_mutex);
    if (is_folder(set_folder())) return set_folder();
  }
  if (const std::filesystem::path installed = installed_folder(); is_folder(installed)) return installed;
  return EF_BUILD_NETWORKS_DIR;
}

}  // namespace ef
