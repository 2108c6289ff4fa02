#include "evalforge/core/run_dir.hpp"
#include <fmt/format.h>
#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <cmath>
#include <csignal>
#include <fstream>
#include <sstream>
#include "core/bytes.hpp"
#include "core/toml_reader.hpp"
#include "evalforge/core/error.hpp"
#include "evalforge/core/files.hpp"
#include "evalforge/core/version.hpp"

namespace ef {

namespace fs = std::filesystem;

// ---------------------------------------------------------------------------------------------
// Stop requests

namespace {

// Read by the run loops, written by the signal handler: must be lock-free to be touched there.
std::atomic<bool> g_stop{false};
static_assert(std::atomic<bool>::is_always_lock_free);

extern "C" void on_stop_signal(int) {
  g_stop.store(true);
  // Both signals back to their default action: the second one (of either kind) ends the
  // process at once. sigaction is async-signal-safe, unlike std::signal.
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  sigaction(SIGINT, &dfl, nullptr);
  sigaction(SIGTERM, &dfl, nullptr);
}

}  // namespace

void install_stop_signals() {
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;  // the run's reads and writes carry on; the loop looks at the flag
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

bool stop_requested() { return g_stop.load(std::memory_order_relaxed); }
void request_stop() { g_stop.store(true); }
void clear_stop() { g_stop.store(false); }

// ---------------------------------------------------------------------------------------------
// Durations and progress

std::string format_duration(double s) {
  if (!std::isfinite(s) || s < 0) return "?";
  const long long t = std::llround(s);
  if (t >= 3600) return fmt::format("{}h{:02}m", t / 3600, (t % 3600) / 60);
  if (t >= 60) return fmt::format("{}m{:02}s", t / 60, t % 60);
  return fmt::format("{}s", t);
}

namespace {

double steady_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

ProgressMeter::ProgressMeter(u64 total, u64 done_at_start, std::function<double()> clock)
    : total_(total), start_(done_at_start), clock_(clock ? std::move(clock) : steady_seconds), t0_(clock_()) {}

double ProgressMeter::elapsed() const { return clock_() - t0_; }

PhaseTimes::PhaseTimes(std::vector<std::string> phases, std::string units, std::string unit, long first,
                       std::function<double()> clock)
    : names_(std::move(phases)),
      units_(std::move(units)),
      unit_(std::move(unit)),
      first_(first),
      seconds_(names_.size(), 0.0),
      clock_(clock ? std::move(clock) : steady_seconds),
      mark_(clock_()) {}

void PhaseTimes::lap(std::size_t phase) {
  const double t = clock_();
  seconds_.at(phase) += t - mark_;
  mark_ = t;
}

std::string PhaseTimes::report(long last) {
  const double units = static_cast<double>(std::max(1L, last - first_ + 1));
  double total = 0;
  for (const double x : seconds_) total += x;
  std::string line =
      fmt::format("time by phase, {} {}-{}: {:.1f} s, {:.3f} s/{}:", units_, first_, last, total, total / units, unit_);
  for (std::size_t p = 0; p < names_.size(); ++p)
    if (seconds_[p] > 0 || p == 0)
      line += fmt::format("{} {} {:.3f} s/{} ({:.1f}%)", p ? ";" : "", names_[p], seconds_[p] / units, unit_,
                          total > 0 ? 100 * seconds_[p] / total : 0.0);
  first_ = last + 1;
  std::fill(seconds_.begin(), seconds_.end(), 0.0);
  return line;
}

double ProgressMeter::rate(u64 done) const {
  const double t = elapsed();
  return done > start_ && t > 0 ? static_cast<double>(done - start_) / t : 0.0;
}

double ProgressMeter::eta(u64 done) const {
  if (done >= total_) return 0.0;
  if (done <= start_) return std::nan("");
  return static_cast<double>(total_ - done) * elapsed() / static_cast<double>(done - start_);
}

std::string ProgressMeter::status(u64 done) const {
  const double t = elapsed();
  const double percent = total_ ? 100.0 * static_cast<double>(done) / static_cast<double>(total_) : 100.0;
  const std::string spent = t < 60 ? fmt::format("{:.1f} s", t) : format_duration(t);
  return fmt::format("{}/{} ({:.1f}%), {} elapsed, ETA {}", done, total_, percent, spent, format_duration(eta(done)));
}

// ---------------------------------------------------------------------------------------------
// Creating and opening

namespace {

constexpr std::string_view kConfig = "config.toml", kRunToml = "run.toml", kLog = "log.txt", kLock = ".lock";
// config.toml as the run committed it (commit_config), to tell a hand edit on resume.
constexpr std::string_view kCommittedConfig = ".config.committed.toml";
constexpr char kCheckpointMagic[8] = {'E', 'F', 'R', 'U', 'N', 'C', 'K', '1'};

std::string without_newline(std::string_view s) {
  if (!s.empty() && s.back() == '\n') s.remove_suffix(1);
  return std::string(s);
}

std::size_t count_fields(std::string_view line) {
  return static_cast<std::size_t>(std::count(line.begin(), line.end(), ',')) + 1;
}

// "a search run", "an evolve run": the kind with its article, for messages.
std::string a_run(std::string_view kind) {
  const bool vowel = !kind.empty() && std::string_view("aeiou").find(kind[0]) != std::string_view::npos;
  return fmt::format("{} {} run", vowel ? "an" : "a", kind);
}

RunDir::Row split_row(std::string_view line) {
  RunDir::Row fields;
  for (;;) {
    const std::size_t k = line.find(',');
    fields.emplace_back(line.substr(0, k));
    if (k == std::string_view::npos) return fields;
    line.remove_prefix(k + 1);
  }
}

}  // namespace

std::optional<std::string> RunDir::recorded_kind(const fs::path& dir) {
  const fs::path file = dir / kRunToml;
  if (!fs::exists(file)) return std::nullopt;
  const toml::table t = parse_toml_file(file.string());
  TableReader r(t, file.string(), "");
  r.allow({"kind", "evalforge_version"});
  std::string kind;
  r.text("kind", kind);
  if (kind.empty()) fail("{}: kind is required", file.string());
  return kind;
}

void RunDir::check_creatable(const fs::path& dir, std::string_view kind, std::string_view resume_hint) {
  if (kind.empty()) fail("RunDir::create: empty kind");
  std::error_code ec;
  if (fs::exists(dir, ec) && !fs::is_directory(dir, ec)) fail("{}: exists and is not a directory", dir.string());
  if (fs::exists(dir / kConfig)) {
    const std::optional<std::string> had = recorded_kind(dir);
    const std::string what = had ? a_run(*had) : std::string("a run");
    if (resume_hint.empty()) fail("{}: already holds {}; choose another directory", dir.string(), what);
    fail("{}: already holds {}; continue it with: {} (or choose another directory)", dir.string(), what, resume_hint);
  }
  if (fs::is_directory(dir) && !fs::is_empty(dir)) {
    // Without config.toml, only a creation cut short (run.toml written, config not yet) may be
    // created over: anything else is somebody's files, which a run must not mix with its own.
    // A kill before run.toml was renamed into place leaves at most the lock and run.toml.tmp.
    bool only_creation_leftovers = true;
    for (const auto& entry : fs::directory_iterator(dir)) {
      const std::string name = entry.path().filename().string();
      only_creation_leftovers = only_creation_leftovers && (name == kLock || name == std::string(kRunToml) + ".tmp");
    }
    if (only_creation_leftovers) return;
    const std::optional<std::string> had = recorded_kind(dir);
    if (!had)
      fail("{}: is not empty and holds no run (no run.toml, no config.toml); choose a new or empty directory",
           dir.string());
    if (*had != kind)
      fail(
          "{}: holds the start of {} (run.toml, no config.toml), not of {}; remove it or choose another "
          "directory",
          dir.string(), a_run(*had), a_run(kind));
  }
}

RunDir RunDir::create(const fs::path& dir, std::string_view kind, std::string_view resume_hint,
                      const std::vector<std::pair<std::string, std::string>>& tables) {
  check_creatable(dir, kind, resume_hint);  // refuses before the directory is made
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) fail("{}: cannot create the directory: {}", dir.string(), ec.message());
  RunDir run(dir, std::string(kind));
  run.lock();
  check_creatable(dir, kind, resume_hint);  // again, under the lock: another process may have committed meanwhile
  run.write_file(kRunToml, fmt::format("# evalforge run directory: what kind of run, made by which version\n"
                                       "kind = {}\nevalforge_version = {}\n",
                                       toml_quote(std::string(kind)), toml_quote(version())));
  for (const auto& [name, header] : tables) run.write_file(name, without_newline(header) + "\n");
  return run;
}

void RunDir::commit_config(const std::string& config_toml) {
  // The copy first: a crash between the two leaves a creation cut short (no config.toml).
  write_file(kCommittedConfig, config_toml);
  write_file(kConfig, config_toml);
}

namespace {

// A value on one line as toml++ writes it: 8, 0.25, 'wthor', [ 18, 30 ]; a table's lines
// joined in braces: { oracle = true, population_every = 2 }.
std::string toml_text(const toml::node& n) {
  std::ostringstream os;
  n.visit([&](const auto& v) { os << v; });
  std::string text = os.str();
  if (!n.is_table()) {
    std::replace(text.begin(), text.end(), '\n', ' ');
    return text;
  }
  std::string joined;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);)
    if (!line.empty()) joined += (joined.empty() ? "" : ", ") + line;
  return "{ " + joined + " }";
}

void diff_tables(const toml::table& was, const toml::table& now, const std::string& prefix,
                 std::vector<std::string>& out);

// One setting: tables key by key, arrays of the same length element by element (so an edit
// of one agent of [[agents]] names agents[1].depth), anything else as a whole.
void diff_nodes(const toml::node& was, const toml::node& now, const std::string& path, std::vector<std::string>& out) {
  if (was.is_table() && now.is_table()) return diff_tables(*was.as_table(), *now.as_table(), path + ".", out);
  if (was.is_array() && now.is_array() && was.as_array()->size() == now.as_array()->size()) {
    for (std::size_t i = 0; i < was.as_array()->size(); ++i)
      diff_nodes(*was.as_array()->get(i), *now.as_array()->get(i), fmt::format("{}[{}]", path, i), out);
    return;
  }
  if (was.type() != now.type() || toml_text(was) != toml_text(now))
    out.push_back(fmt::format("{}: {} -> {}", path, toml_text(was), toml_text(now)));
}

// The key paths where `now` differs from `was`: per table, its keys in order (toml++ tables are
// sorted), then the keys only `now` has. Values compare by their TOML text, type included (8 is
// not 8.0).
void diff_tables(const toml::table& was, const toml::table& now, const std::string& prefix,
                 std::vector<std::string>& out) {
  for (const auto& [key, old] : was) {
    const std::string path = prefix + std::string(key.str());
    const toml::node* fresh = now.get(key.str());
    if (!fresh)
      out.push_back(fmt::format("{}: {} -> (removed)", path, toml_text(old)));
    else
      diff_nodes(old, *fresh, path, out);
  }
  for (const auto& [key, fresh] : now)
    if (!was.contains(key.str()))
      out.push_back(fmt::format("{}{}: (absent) -> {}", prefix, std::string(key.str()), toml_text(fresh)));
}

}  // namespace

std::vector<std::string> RunDir::config_edits() const {
  if (!has(kCommittedConfig)) return {};
  const std::string committed = read_file(kCommittedConfig, FileKind::kConfig),
                    current = read_file(kConfig, FileKind::kConfig);
  if (committed == current) return {};
  const auto parse = [&](const std::string& text, std::string_view name) {
    try {
      return toml::parse(text, file(name).string());
    } catch (const toml::parse_error& e) {
      fail("{}:{}: {}", file(name).string(), e.source().begin.line, e.description());
    }
  };
  std::vector<std::string> edits;
  diff_tables(parse(committed, kCommittedConfig), parse(current, kConfig), "", edits);
  return edits;
}

void RunDir::accept_config_edits() { write_file(kCommittedConfig, read_file(kConfig, FileKind::kConfig)); }

RunDir RunDir::open(const fs::path& dir, std::string_view kind, Access access) {
  if (!fs::is_directory(dir)) fail("{}: no such run directory", dir.string());
  RunDir run(dir, std::string(kind));
  // A directory that holds no run gets no .lock: the checks first, then the lock, then the
  // checks again (the holder may have been writing the directory until now).
  if (access == Access::kWrite) {
    check_run(dir, kind);
    run.lock();
  }
  check_run(dir, kind);
  return run;
}

void RunDir::check_run(const fs::path& dir, std::string_view kind) {
  if (!fs::exists(dir / kConfig)) {
    if (fs::exists(dir / kRunToml))
      fail("{}: not a run yet: its creation was cut short (run.toml but no config.toml); start the run again",
           dir.string());
    fail("{}: not a {} run directory (no config.toml)", dir.string(), kind);
  }
  if (const std::optional<std::string> had = recorded_kind(dir); had && *had != kind)
    fail("{}: holds {}, not {} ({})", dir.string(), a_run(*had), a_run(kind), (dir / kRunToml).string());
}

void RunDir::lock() {
  ExclusiveLock lock = lock_exclusively(file(kLock));
  if (lock.busy)
    fail(
        "{}: in use by another evalforge process{}: one process writes a run at a time; wait for it to finish or "
        "stop it (Ctrl-C checkpoints it), then resume",
        dir_.string(), lock.holder_pid.empty() ? std::string() : " (pid " + lock.holder_pid + ")");
  lock_ = std::move(lock.holder);  // null on a file system without flock: the run goes on unlocked
}

fs::path RunDir::file(std::string_view name) const { return dir_ / fs::path(name); }

bool RunDir::has(std::string_view name) const { return fs::exists(file(name)); }

// ---------------------------------------------------------------------------------------------
// Tables

std::vector<RunDir::Row> RunDir::resume_table(std::string_view name, std::string_view header_in, const RowCheck& keep) {
  const fs::path path = file(name);
  const std::string header = without_newline(header_in);
  if (!fs::exists(path))
    fail("{}: missing: the run's rows would be lost (restore the file, or start a new run)", path.string());
  const std::string content = ef::read_file(path, FileKind::kRunTable);
  std::size_t end = content.size();
  bool changed = false;
  if (!content.empty() && content.back() != '\n') {
    // A last line without its newline: an append cut short. Its rows are replayed.
    const std::size_t nl = content.rfind('\n');
    end = nl == std::string::npos ? 0 : nl + 1;
    if (end == 0) fail("{}:1: expected the header '{}'", path.string(), header);
    log(fmt::format("{}: dropped an incomplete last line (an interrupted append); its work is done again",
                    path.string()));
    changed = true;
  }
  const std::size_t expected_fields = count_fields(header);
  std::string kept_text;
  std::vector<Row> kept;
  std::size_t pos = 0, line_no = 0;
  while (pos < end) {
    const std::size_t nl = content.find('\n', pos);
    const std::string_view line(content.data() + pos, nl - pos);
    const std::size_t next = nl + 1;
    ++line_no;
    const std::string where = fmt::format("{}:{}", path.string(), line_no);
    if (line_no == 1) {
      if (line != header) fail("{}: expected the header '{}', found '{}'", where, header, printable(line));
      kept_text.append(content, pos, next - pos);
      pos = next;
      continue;
    }
    Row fields = split_row(line);
    if (fields.size() != expected_fields)
      fail("{}: expected {} comma-separated fields ({}), found {}", where, expected_fields, header, fields.size());
    if (keep(fields, where)) {
      kept_text.append(content, pos, next - pos);
      kept.push_back(std::move(fields));
    } else {
      changed = true;
    }
    pos = next;
  }
  if (line_no == 0) fail("{}:1: empty (expected the header '{}')", path.string(), header);
  if (changed) ef::write_atomically(path, kept_text);
  return kept;
}

void RunDir::append_rows(std::string_view name, const std::string& rows_in) {
  if (rows_in.empty()) return;
  const fs::path path = file(name);
  append_durably(path, rows_in.back() == '\n' ? rows_in : rows_in + "\n", false);
}

// ---------------------------------------------------------------------------------------------
// Files and checkpoints

void RunDir::write_file(std::string_view name, const std::string& bytes) { ef::write_atomically(file(name), bytes); }

std::string RunDir::read_file(std::string_view name, FileKind kind) const { return ef::read_file(file(name), kind); }

std::string frame_checkpoint(std::string_view kind, const std::string& payload) {
  ByteWriter w;
  w.put_bytes(std::string_view(kCheckpointMagic, sizeof kCheckpointMagic));
  w.put_string(kind);
  w.put<u64>(payload.size());
  w.put_bytes(payload);
  w.put<u32>(crc32_of(w.bytes()));
  return w.take();
}

std::string unframe_checkpoint(std::string_view bytes, std::string_view kind, const std::string& source) {
  if (bytes.size() < sizeof kCheckpointMagic ||
      std::memcmp(bytes.data(), kCheckpointMagic, sizeof kCheckpointMagic) != 0)
    fail("{}: not an evalforge run checkpoint (expected the magic EFRUNCK1)", source);
  ByteReader r(bytes, source);
  r.bytes(sizeof kCheckpointMagic, "magic");
  const std::string recorded = r.get_string(256, "run kind");
  const u64 length = r.get<u64>("payload length");
  if (r.remaining() < 4 || length > r.remaining() - 4)
    fail("{}: truncated checkpoint: {} payload bytes and a 4-byte checksum expected, {} bytes left", source, length,
         r.remaining());
  if (length < r.remaining() - 4)
    fail("{}: {} bytes after the checkpoint's checksum (not a checkpoint this version wrote)", source,
         r.remaining() - 4 - length);
  const std::string_view payload = r.bytes(static_cast<std::size_t>(length), "payload");
  const std::size_t checked = r.pos();
  const u32 stored = r.get<u32>("checksum");
  if (crc32_of(bytes.substr(0, checked)) != stored)
    fail("{}: checkpoint checksum mismatch (the file is corrupt)", source);
  if (recorded != kind) fail("{}: a checkpoint of a {} run, not of a {} run", source, recorded, kind);
  return std::string(payload);
}

void RunDir::write_checkpoint(std::string_view name, const std::string& payload) {
  write_file(name, frame_checkpoint(kind_, payload));
}

std::optional<std::string> RunDir::read_checkpoint(std::string_view name) const {
  const fs::path path = file(name);
  if (!fs::exists(path)) return std::nullopt;
  // The magic first: a large file that is no checkpoint is refused before it is read.
  return unframe_checkpoint(ef::read_file_with_magic(path, FileKind::kCheckpoint,
                                                     std::string_view(kCheckpointMagic, sizeof kCheckpointMagic)),
                            kind_, path.string());
}

// ---------------------------------------------------------------------------------------------
// Log

void RunDir::set_sink(LineSink sink) { sink_ = std::move(sink); }

void RunDir::log(const std::string& line_in) {
  const std::string line = without_newline(line_in);
  {
    std::ofstream out(file(kLog), std::ios::app | std::ios::binary);
    out << line << '\n';
    out.flush();
    if (!out) fail("{}: cannot append the log line", file(kLog).string());
  }
  if (sink_) sink_(line);
}

// ---------------------------------------------------------------------------------------------
// Fields

i64 parse_int_field(std::string_view field, i64 lo, i64 hi, const std::string& where, std::string_view what) {
  i64 v = 0;
  const auto [p, ec] = std::from_chars(field.data(), field.data() + field.size(), v);
  if (field.empty() || ec != std::errc() || p != field.data() + field.size() || v < lo || v > hi)
    fail("{}: {} '{}' (expected an integer in {}..{})", where, what, field, lo, hi);
  return v;
}

double parse_real_field(std::string_view field, const std::string& where, std::string_view what) {
  double v = 0;
  const auto [p, ec] = std::from_chars(field.data(), field.data() + field.size(), v);
  if (field.empty() || ec != std::errc() || p != field.data() + field.size() || !std::isfinite(v))
    fail("{}: {} '{}' (expected a finite number)", where, what, field);
  return v;
}

}  // namespace ef
