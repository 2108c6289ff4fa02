// Helpers shared by several test files: running the evalforge binary, and the real logbook
// from ../shared/data (loaded once per test binary; null when the file is absent).
#pragma once
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <memory>
#include <string>
#include <utility>
#include <vector>
#include "backends/team_backend.hpp"
#include "evalforge/core/error.hpp"
#include "evalforge/core/files.hpp"
#include "evalforge/core/rng.hpp"
#include "evalforge/core/run_dir.hpp"
#include "evalforge/data/games.hpp"
#include "evalforge/games/othello/agent.hpp"
#include "evalforge/games/othello/shape.hpp"
#include "ga/thread_team.hpp"

namespace ef::test {

// Scratch files of this test process are removed when it ends: every entry of the temp
// directory named ef_..., ef-... or evalforge... that carries this process id as a token
// (…_<pid>, …-<pid>-…), which is how the tests name them. EF_KEEP_TEST_FILES=1 keeps them for
// a look after a failure.
class ScratchCleanup : public ::testing::Environment {
 public:
  void TearDown() override {
    if (const char* keep = std::getenv("EF_KEEP_TEST_FILES"); keep && *keep && std::string(keep) != "0") return;
    const std::string pid = std::to_string(::getpid());
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(std::filesystem::temp_directory_path(), ec)) {
      const std::string name = entry.path().filename().string();
      if (!name.starts_with("ef_") && !name.starts_with("ef-") && !name.starts_with("evalforge")) continue;
      for (std::size_t at = name.find(pid); at != std::string::npos; at = name.find(pid, at + 1)) {
        const bool starts = at > 0 && (name[at - 1] == '_' || name[at - 1] == '-');
        const std::size_t after = at + pid.size();
        const bool ends = after == name.size() || name[after] == '_' || name[after] == '-' || name[after] == '.';
        if (starts && ends) {
          std::filesystem::remove_all(entry.path(), ec);
          break;
        }
      }
    }
  }
};
inline ::testing::Environment* const kScratchCleanup = ::testing::AddGlobalTestEnvironment(new ScratchCleanup);

// Runs a shell command; returns (exit status, stdout).
inline std::pair<int, std::string> run_command(const std::string& command) {
  std::string output;
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return {-1, output};
  char buffer[4096];
  while (const std::size_t n = std::fread(buffer, 1, sizeof buffer, pipe)) output.append(buffer, n);
  const int status = pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, output};
}

// "ulimit -v KB; " for a shell command line, or "" in an AddressSanitizer build: ASan reserves
// terabytes of shadow address space at start-up, so under an address-space limit the binary
// aborts before main. The sanitizer build still runs the command (its errors and exit status
// are checked); only the plain build checks that it also stays within the memory limit.
inline std::string address_space_limit(long kilobytes) {
#if defined(__SANITIZE_ADDRESS__)
  (void)kilobytes;
  return "";
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
  (void)kilobytes;
  return "";
#else
  return "ulimit -v " + std::to_string(kilobytes) + "; ";
#endif
#else
  return "ulimit -v " + std::to_string(kilobytes) + "; ";
#endif
}

// A fresh, empty scratch directory /tmp/ef_<prefix>_<name>_<pid> (removed first if present).
inline std::filesystem::path scratch_dir(const std::string& prefix, const std::string& name) {
  const std::filesystem::path d =
      std::filesystem::temp_directory_path() / ("ef_" + prefix + "_" + name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d);
  return d;
}

// `ranks` ranks as threads (ga/thread_team.hpp): rank 0 runs rank0(team); every other rank
// serves games (backends/team_backend.hpp) on the backend serving() makes (one CPU thread by
// default), as `mpirun -np R evalforge evolve` does with processes. A failure on any rank is
// rethrown here (run_thread_team).
inline void with_serving_ranks(int ranks, const std::function<void(ga::IslandTeam&)>& rank0,
                               const std::function<std::unique_ptr<Backend>(int rank)>& serving = {}) {
  ga::run_thread_team(ranks, [&](ga::ThreadTeam& team) {
    if (team.rank() == 0) return rank0(team);
    const std::unique_ptr<Backend> local = serving ? serving(team.rank()) : make_backend("cpu", 1);
    serve_team_backend(*local, team);
  });
}

// FindMPI's launcher (empty when the build has no MPI: the MPI tests skip).
#ifdef EF_MPIEXEC
inline constexpr const char* kMpiexec = EF_MPIEXEC;
#else
inline constexpr const char* kMpiexec = "";
#endif

// `command` (with `env` before it) on `ranks` ranks under the launcher, root allowed (as CI
// runs) and oversubscribed (3 ranks on 2 cores), at most 120 s; returns (status, output). Open
// MPI's session directory goes under `scratch`: two launchers that start at once (ctest -j) race
// to create the shared default one ("/tmp/ompi.HOST.UID: File exists") and one fails.
// plm=isolated: ranks on this machine only, so the launcher does not look for ssh/rsh, which a
// CI image may lack.
inline std::pair<int, std::string> run_ranks(const std::filesystem::path& scratch, int ranks,
                                             const std::string& command, const std::string& env = "") {
  return run_command(
      "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_plm=isolated "
      "OMPI_MCA_orte_tmpdir_base=" +
      scratch.string() + " " + env + " timeout 120 " + kMpiexec + " --oversubscribe -np " + std::to_string(ranks) +
      " " + command + " 2>&1");
}

// An n-tuple agent: `networks` networks of a small two-tuple geometry (or per move when 61),
// small nonzero pseudo-random weights (+-1 disc), network of move t = t * networks / 61.
inline play::OthelloAgent small_ntuple_agent(int networks, u64 seed, search::OthelloLimits limits) {
  play::OthelloAgent a;
  a.name = "small-ntuple";
  a.kind = play::OthelloEvaluator::kNtuple;
  a.limits = limits;
  a.geometries.push_back(
      ntuple::make_shape("small", {{"a1", "b1", "c1", "d1", "a2", "b2"}, {"a1", "b2", "c3", "d4", "e5"}}, "test")
          .geometry());
  a.geometries.push_back(
      ntuple::make_shape("corners", {{"a1", "h1", "a8", "h8"}, {"c3", "d3", "c4"}}, "test").geometry());
  a.geometry_names = {"small", "corners"};
  Rng rng(seed, Purpose::kPopulation, 77);
  for (int k = 0; k < networks; ++k) {
    play::Network n;
    n.geometry = k % 2;
    n.weights.resize(a.geometries[n.geometry].num_weights());
    for (i32& w : n.weights)
      w = static_cast<i32>(rng.below(2 * static_cast<u32>(ntuple::kOne))) - static_cast<i32>(ntuple::kOne);
    a.networks.push_back(std::move(n));
  }
  for (int t = 0; t < ntuple::kMoveNumbers; ++t) a.network_of_move[t] = t * networks / ntuple::kMoveNumbers;
  a.validate();
  return a;
}

// A file a test wrote or a run made, whole, through the project's bounded reader (run-directory
// files are the largest kind): an ef::Error naming the file when it cannot be read.
inline std::string contents(const std::filesystem::path& f) { return read_file(f, FileKind::kRunTable); }

// A whole file as bytes ("" when it cannot be read).
inline std::string file_bytes(const std::filesystem::path& f) {
  std::ifstream in(f, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// The message of the ef::Error that `f` throws ("" and a test failure when none is thrown).
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "no ef::Error was thrown";
  return "";
}

// One writer per run directory (core/run_dir.hpp's lock), through a run kind's own entry point:
// while the run in `dir` of `kind` is held open for writing (as another process resuming it
// would), `resume` (the kind's resume of `dir`) is refused, naming the directory.
template <class F>
void expect_refused_while_held(const std::filesystem::path& dir, std::string_view kind, F&& resume) {
  const RunDir held = RunDir::open(dir, kind);
  const std::string e = error_of(resume);
  EXPECT_NE(e.find(dir.string() + ": in use by another evalforge process"), std::string::npos) << e;
}

// A hand edit of a run's config.toml is refused on resume (RunSession, core/run_dir.hpp's
// config_edits), through a run kind's own entry point: the first integer setting of `dir`'s
// config.toml is raised by one (a config of the same shape with one value changed), `resume` must
// fail naming the file, the key with both values, and the way out; then the edit is undone and
// nothing else in the directory has changed.
template <class F>
void expect_edited_config_refused(const std::filesystem::path& dir, F&& resume) {
  const std::filesystem::path config = dir / "config.toml";
  const std::string original = file_bytes(config);
  std::size_t line = 0;
  std::string key, value;
  while (line < original.size()) {
    const std::size_t end = std::min(original.find('\n', line), original.size());
    const std::string text = original.substr(line, end - line);
    const std::size_t eq = text.find(" = ");
    if (eq != std::string::npos && eq > 0 && text.find_first_not_of("abcdefghijklmnopqrstuvwxyz_") == eq &&
        eq + 3 < text.size() && text.find_first_not_of("0123456789", eq + 3) == std::string::npos) {
      key = text.substr(0, eq);
      value = text.substr(eq + 3);
      break;
    }
    line = end + 1;
  }
  ASSERT_FALSE(key.empty()) << "no integer setting in " << config;
  const std::string raised = std::to_string(std::stoll(value) + 1);
  std::string edited = original;
  edited.replace(line, key.size() + 3 + value.size(), key + " = " + raised);
  std::vector<std::pair<std::string, std::string>> before;
  for (const auto& f : std::filesystem::directory_iterator(dir))
    if (f.is_regular_file() && f.path().filename() != "config.toml")
      before.emplace_back(f.path().filename(), file_bytes(f.path()));
  { std::ofstream(config, std::ios::binary | std::ios::trunc) << edited; }
  const std::string e = error_of(resume);
  EXPECT_NE(e.find(config.string() + ": edited since the run was made"), std::string::npos) << e;
  EXPECT_NE(e.find(key + ": " + value + " -> " + raised), std::string::npos) << e;
  EXPECT_NE(e.find("--accept-config-edits"), std::string::npos) << e;
  { std::ofstream(config, std::ios::binary | std::ios::trunc) << original; }
  std::vector<std::pair<std::string, std::string>> after;
  for (const auto& f : std::filesystem::directory_iterator(dir))
    if (f.is_regular_file() && f.path().filename() != "config.toml")
      after.emplace_back(f.path().filename(), file_bytes(f.path()));
  std::sort(before.begin(), before.end());
  std::sort(after.begin(), after.end());
  EXPECT_TRUE(before == after) << "the refused resume changed files of " << dir;
}

inline const data::GameDatabase* shared_logbook() {
  static const std::unique_ptr<data::GameDatabase> db = [] {
    const std::filesystem::path file = std::filesystem::path(EF_SHARED_DATA_DIR) / "othello" / "logbook.gam.gz";
    if (!std::filesystem::exists(file)) return std::unique_ptr<data::GameDatabase>();
    data::ReadOptions options;
    options.use_cache = false;
    return std::make_unique<data::GameDatabase>(data::load_games({file}, options));
  }();
  return db.get();
}

}  // namespace ef::test
