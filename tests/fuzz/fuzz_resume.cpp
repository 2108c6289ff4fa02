// Resuming run directories whose files were damaged: every checkpoint and every table a resume
// reads (search, Elo and Tic-Tac-Toe evolve, tournament, match, hex match, hex tune).
//
// At start-up the target makes one small real run of each kind (templates). An input replaces
// one file of one template: the first byte picks the file (all files of all templates but
// log.txt, in a fixed order), the second says how a binary checkpoint is written (even: the
// rest of the input is its payload, framed and checksummed as the run would, so that the
// decoder sees it; odd: the bytes as they are, for the framing). The resume runs with
// check_only: it opens and validates everything and returns before any work.
//
// EF_FUZZ_WRITE_SEEDS=DIR writes a seed per file (its real contents, checkpoints unframed, the
// templates' directory as @TEMPLATES@) into DIR: that is how tests/fuzz/corpus/fuzz_resume/
// was made (again after a change of the templates: the first byte is the file's index).
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>
#include "data/generate.hpp"
#include "evalforge/core/files.hpp"
#include "evalforge/core/run_dir.hpp"
#include "evalforge/data/games.hpp"
#include "evalforge/runs/evolve_config.hpp"
#include "evalforge/runs/evolve_run.hpp"
#include "evalforge/runs/shape_search_config.hpp"
#include "evalforge/runs/shape_search_run.hpp"
#include "fuzz_support.hpp"
#include "runs/hex_match_run.hpp"
#include "runs/hex_tune_run.hpp"
#include "runs/match_experiment.hpp"
#include "runs/tournament.hpp"

namespace fs = std::filesystem;
using namespace ef;

namespace {

struct Template {
  std::string kind;                             // RunDir kind (checkpoint framing)
  fs::path dir;                                 // the finished small run
  std::function<void(const fs::path&)> resume;  // check_only resume of a copy
};

struct Target {
  std::size_t run;   // index into templates
  std::string file;  // relative to the run directory
};

std::vector<Template> templates;
std::vector<Target> targets;

fs::path write(const fs::path& file, const std::string& text) {
  std::ofstream(file) << text;
  return file;
}

// The options of a template's resume: one thread, validate and return (check_only).
template <class Options>
Options checking() {
  Options o;
  o.threads = 1;
  o.check_only = true;
  return o;
}

constexpr const char* kRootPlaceholder = "@TEMPLATES@";
const fs::path& templates_root() {
  static const fs::path root = fuzz::work_dir() / "templates";
  return root;
}

void make_templates() {
  const fs::path& root = templates_root();
  fs::remove_all(root);
  fs::create_directories(root);
  data::GenerateOptions g;
  g.games = 120;
  g.seed = 5;
  g.threads = 1;
  const fs::path games = root / "games.txt";
  data::write_transcripts(games, data::generate_games(g));

  {  // search: 2 islands of 4, small tuples, 2 generations
    const fs::path cfg = write(root / "search.toml",
                               "[search]\nmoves = [30, 40]\nisland_size = 4\nelite = 1\nmutants = 1\ngenerations = 2\n"
                               "tuple_sizes = [3, 2]\n[migration]\ninterval = 1\nsize = 1\n[training]\nepochs = 1\n"
                               "[fitness]\ntest_every = 1\n[data]\nfiles = [\"" +
                                   games.string() + "\"]\n");
    ga::SearchRunOptions o;
    o.threads = 1;
    ga::run_search(ga::load_search_config(cfg.string()), root / "search", o);
    templates.push_back(
        {"search", root / "search", [](const fs::path& d) { ga::resume_search(d, checking<ga::SearchRunOptions>()); }});
  }
  auto evolve_resume = [](const fs::path& d) { ga::resume_evolve(d, checking<ga::EvolveRunOptions>()); };
  {  // Elo GA: 3 members, 2 generations, with a yardstick
    const fs::path cfg = write(root / "elo.toml",
                               "[evolve]\nkind = \"elo-othello\"\ngenerations = 2\n[population]\nsize = 3\n"
                               "[yardstick]\nopponent = \"random\"\nopenings = 1\n");
    ga::EvolveRunOptions o;
    o.threads = 1;
    ga::run_evolve(ga::load_evolve_config(cfg.string()), root / "elo", o);
    templates.push_back({"evolve", root / "elo", evolve_resume});
  }
  {  // Tic-Tac-Toe co-evolution: 2 trials of 4 members, 2 generations
    const fs::path cfg =
        write(root / "ttt.toml",
              "[evolve]\nkind = \"tictactoe\"\ngenerations = 2\ntrials = 2\n[population]\nsize = 4\n"
              "[network]\ndepth = 1\n[opponent]\nkind = \"coevolution\"\ntop = 2\nmonitor_depth = 1\n");
    ga::EvolveRunOptions o;
    o.threads = 1;
    ga::run_evolve(ga::load_evolve_config(cfg.string()), root / "ttt", o);
    templates.push_back({"evolve", root / "ttt", evolve_resume});
  }
  {  // tournament: 3 agents, 1 opening
    const fs::path cfg = write(root / "tournament.toml",
                               "[tournament]\nopenings = 1\n[[agent]]\nfile = \"swh\"\n[[agent]]\nfile = \"random\"\n"
                               "[[agent]]\nfile = \"swh\"\nname = \"swh-2\"\ndepth = 2\n");
    play::TournamentRunOptions o;
    o.threads = 1;
    play::run_tournament(root / "tournament", cfg.string(), o);
    templates.push_back({"tournament", root / "tournament", [](const fs::path& d) {
                           play::run_tournament(d, "", checking<play::TournamentRunOptions>());
                         }});
  }
  {  // match: 2 rounds of 4 games from move 50, small shapes, a checkpoint every round
    write(root / "small.json", R"({"name": "small", "tuples": [["a1","b1","c1"], ["b2","c3"]]})");
    const fs::path cfg =
        write(root / "match.toml",
              "[match]\ngames = 8\ngames_per_round = 4\nstart_move = 50\nreplicates = 2\n[data]\n"
              "files = [\"" +
                  games.string() + "\"]\n[agent1]\nname = \"a\"\nshapes = \"" + (root / "small.json").string() +
                  "\"\ndepth = 1\n[agent2]\nname = \"b\"\nshapes = \"" + (root / "small.json").string() +
                  "\"\ndepth = 1\n[run]\ncheckpoint_every = 1\n");
    play::MatchRunOptions o;
    o.threads = 1;
    play::run_match(root / "match", cfg.string(), o);
    templates.push_back({"match", root / "match",
                         [](const fs::path& d) { play::run_match(d, "", checking<play::MatchRunOptions>()); }});
  }
  {  // hex match: 4 games on 3x3
    play::HexMatchConfig c;
    c.a = "random";
    c.b = "uct:playouts=8";
    c.games = 4;
    c.size = 3;
    play::HexMatchRunOptions o;
    o.threads = 1;
    play::run_hex_match(root / "hex-match", &c, o);
    templates.push_back({"hex-match", root / "hex-match", [](const fs::path& d) {
                           play::run_hex_match(d, nullptr, checking<play::HexMatchRunOptions>());
                         }});
  }
  {  // hex tune: 4 individuals, 2 generations of 2 games on 3x3
    ga::HexTuneConfig c;
    c.opponent = "random";
    c.population = 4;
    c.elite = 1;
    c.mutants = 1;
    c.generations = 2;
    c.games = 2;
    c.size = 3;
    ga::HexTuneOptions o;
    o.threads = 1;
    ga::run_hex_tune(root / "hex-tune", &c, o);
    templates.push_back({"hex-tune", root / "hex-tune",
                         [](const fs::path& d) { ga::run_hex_tune(d, nullptr, checking<ga::HexTuneOptions>()); }});
  }
  for (std::size_t t = 0; t < templates.size(); ++t) {
    std::vector<std::string> files;
    for (const auto& e : fs::recursive_directory_iterator(templates[t].dir))
      if (e.is_regular_file()) {
        // What a resume reads: run.toml, config.toml, the tables, checkpoints (a match's are in
        // checkpoint/, agent files and state.toml), a tournament's source.toml. Not the results
        // a run writes for the user (best shapes, standings, agents, champions) nor log.txt.
        const std::string f = fs::relative(e.path(), templates[t].dir).string();
        const std::string ext = e.path().extension().string();
        if (f == "run.toml" || f == "config.toml" || f == "source.toml" || ext == ".csv" || ext == ".bin" ||
            f.starts_with("checkpoint/"))
          files.push_back(f);
      }
    std::sort(files.begin(), files.end());
    for (const auto& f : files) targets.push_back({t, f});
  }
}

bool is_checkpoint(const std::string& bytes) { return bytes.starts_with("EFRUNCK1"); }

void write_seeds(const fs::path& out) {
  fs::create_directories(out);
  for (std::size_t i = 0; i < targets.size(); ++i) {
    const Template& t = templates[targets[i].run];
    std::string bytes = read_file(t.dir / targets[i].file, FileKind::kRunTable);
    if (is_checkpoint(bytes)) bytes = unframe_checkpoint(bytes, t.kind, targets[i].file);
    // Paths into the templates (configs name their data and shapes) become a placeholder that
    // the target puts back: seeds do not depend on the process that wrote them.
    for (std::size_t at; (at = bytes.find(templates_root().string())) != std::string::npos;)
      bytes.replace(at, templates_root().string().size(), kRootPlaceholder);
    std::string name = fs::path(t.dir).filename().string() + "-" + targets[i].file;
    std::replace(name.begin(), name.end(), '/', '-');
    std::ofstream(out / name, std::ios::binary) << static_cast<char>(i) << '\0' << bytes;
  }
}

// A working copy of every template, and what its files held: an input changes one file, the
// resume may rewrite tables (dropping rows) or the config; afterwards every file is put back
// and anything new removed, which costs far less than copying the directory for each input.
struct WorkingCopy {
  fs::path dir;
  std::vector<std::pair<fs::path, std::string>> files;  // every file of the template
};
std::vector<WorkingCopy> copies;

void make_working_copies() {
  for (std::size_t t = 0; t < templates.size(); ++t) {
    WorkingCopy w;
    w.dir = fuzz::work_dir() / ("run-" + std::to_string(t));
    fs::remove_all(w.dir);
    fs::copy(templates[t].dir, w.dir, fs::copy_options::recursive);
    for (const auto& e : fs::recursive_directory_iterator(w.dir))
      if (e.is_regular_file()) w.files.emplace_back(e.path(), read_file(e.path(), FileKind::kRunTable));
    copies.push_back(std::move(w));
  }
}

void restore(const WorkingCopy& w) {
  std::vector<fs::path> extra;
  for (const auto& e : fs::recursive_directory_iterator(w.dir))
    if (e.is_regular_file() &&
        std::none_of(w.files.begin(), w.files.end(), [&](const auto& f) { return f.first == e.path(); }))
      extra.push_back(e.path());
  for (const auto& p : extra) fs::remove(p);
  for (const auto& [path, bytes] : w.files) {
    std::ifstream in(path, std::ios::binary);
    const std::string now(std::istreambuf_iterator<char>(in), {});
    if (now != bytes) std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  make_templates();
  make_working_copies();
  if (const char* out = std::getenv("EF_FUZZ_WRITE_SEEDS")) write_seeds(out);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2 || targets.empty()) return 0;
  const Target& target = targets[data[0] % targets.size()];
  const Template& t = templates[target.run];
  const WorkingCopy& w = copies[target.run];
  std::string bytes(reinterpret_cast<const char*>(data) + 2, size - 2);
  for (std::size_t at = 0; (at = bytes.find(kRootPlaceholder, at)) != std::string::npos;) {
    bytes.replace(at, std::string_view(kRootPlaceholder).size(), templates_root().string());
    at += templates_root().string().size();
  }
  const bool framed = data[1] % 2 == 0 && is_checkpoint(read_file(t.dir / target.file, FileKind::kRunTable));
  std::ofstream(w.dir / target.file, std::ios::binary | std::ios::trunc)
      << (framed ? frame_checkpoint(t.kind, bytes) : bytes);
  fuzz::expect_clean([&] { t.resume(w.dir); });
  restore(w);
  return 0;
}
