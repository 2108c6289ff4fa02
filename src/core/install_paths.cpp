#include "evalforge/core/install_paths.hpp"
#include <link.h>
#include <cstdint>
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

// The file of the loaded object that holds this code: the program (read from /proc/self/exe,
// since the loader names the main program by its argv[0]) or a shared object that linked the
// library (the Python module, by the path it was loaded from). Empty when neither can be read.
std::filesystem::path object_holding_this_code() {
  struct Search {
    std::uintptr_t address = 0;
    bool found = false, main_program = false;
    std::string name;
  } search;
  search.address = reinterpret_cast<std::uintptr_t>(&object_holding_this_code);
  dl_iterate_phdr(
      [](dl_phdr_info* info, std::size_t, void* data) {
        auto& s = *static_cast<Search*>(data);
        for (int i = 0; i < info->dlpi_phnum; ++i) {
          const ElfW(Phdr)& h = info->dlpi_phdr[i];
          const std::uintptr_t begin = info->dlpi_addr + h.p_vaddr;
          if (h.p_type == PT_LOAD && s.address >= begin && s.address < begin + h.p_memsz) {
            s.found = true;
            s.main_program = info->dlpi_name == nullptr || info->dlpi_name[0] == '\0';
            if (!s.main_program) s.name = info->dlpi_name;
            return 1;
          }
        }
        return 0;
      },
      &search);
  std::error_code ec;
  if (search.found && !search.main_program) return std::filesystem::weakly_canonical(search.name, ec);
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::filesystem::path() : exe;
}

// PREFIX/share/evalforge/networks for code in PREFIX/bin/NAME (or PREFIX/lib/NAME.so).
std::filesystem::path installed_folder() {
  const std::filesystem::path object = object_holding_this_code();
  if (object.empty()) return {};
  return object.parent_path().parent_path() / "share" / "evalforge" / "networks";
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
