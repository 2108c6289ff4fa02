#include "app/mpi_rank.hpp"
#include <fmt/core.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <thread>
#include <vector>
#include "app/commands.hpp"
#include "app/options.hpp"
#include "evalforge/core/error.hpp"

namespace ef::app {

void share_node(const mpi::MpiTeam& team, int& threads, const std::string& backend) {
  if (threads == 0) threads = std::max(1, static_cast<int>(std::thread::hardware_concurrency()) / team.local_size());
  if (backend == "cpu") return;
  std::vector<std::string> devices;
  if (const char* v = std::getenv("CUDA_VISIBLE_DEVICES"); v && *v) {
    const std::string list = v;
    for (std::size_t at = 0; at <= list.size();) {
      const std::size_t comma = std::min(list.find(',', at), list.size());
      devices.push_back(list.substr(at, comma - at));
      at = comma + 1;
    }
  }
  const std::string device = devices.empty() ? std::to_string(team.local_rank())
                                             : devices[static_cast<std::size_t>(team.local_rank()) % devices.size()];
  ::setenv("CUDA_VISIBLE_DEVICES", device.c_str(), 1);
}

void run_as_rank(mpi::MpiTeam& team, RunKind kind, const std::function<void(std::string& dir)>& body) {
  std::string dir;
  try {
    body(dir);
  } catch (const std::exception& e) {  // ef::Error and the unexpected alike: no rank may wait for this one
    if (team.size() == 1) throw;
    const auto* error = dynamic_cast<const Error*>(&e);
    fmt::print(stderr, "evalforge: error on rank {} of {}: {}\n", team.rank(), team.size(),
               error ? describe_error(*error) : std::string(e.what()));
    // The hint only where a run exists and this process was writing it (not refused by the
    // lock of another process using it).
    const bool in_use =
        std::string_view(e.what()).find("in use by another evalforge process") != std::string_view::npos;
    if (team.rank() == 0 && !dir.empty() && std::filesystem::exists(std::filesystem::path(dir) / "config.toml") &&
        !in_use)
      fmt::print(stderr, "evalforge: ending all ranks; a run directory already made keeps its last checkpoint: {}\n",
                 "resume with: " + mpi_resume_command(kind, dir));
    std::fflush(stderr);
    team.abort(2);
  }
}

}  // namespace ef::app
