// The run directory: one component for every resumable run (search, match, tournament,
// evolve, hex-match, hex-tune: src/runs/). A run loop creates or opens its directory through RunDir and gets, from one
// place, the rules that make a run survive Ctrl-C, a crash or a power cut and resume bit for bit:
//
//   run.toml     kind of run and the evalforge version that created it
//   config.toml  the resolved configuration; written LAST at creation (commit_config): its
//                presence is what makes a directory a run, so a creation cut short leaves no
//                half run (creating again over it is allowed)
//   *.csv        append-only tables (one header line, then rows); on resume every row is
//                validated by the run, rows past the checkpoint are dropped (the run replays
//                them with the same bits) and a torn last line (an append cut short) is dropped
//   checkpoints  atomic files; binary ones checksummed (write_checkpoint)
//   log.txt      every progress line, also passed to the sink (the app prints them on stderr)
//   .lock        held (flock) by the one process that writes the run: a second create or resume
//                of the same directory is refused while the first lives, and the kernel drops
//                the lock when the holder dies, even by kill -9, so nothing is left to clean up
//
// Every file is replaced atomically (NAME.tmp, fsync, rename, fsync of the directory) or
// appended with an fsync, so after any crash each file is a state some earlier moment wrote.
// The resume rule for a run built on this: the checkpoint says where the run is; every table
// row from before it is kept, every row after it is replayed.
//
// Errors are ef::Error and name the directory, the file, or file:line.
#pragma once
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>
#include "evalforge/core/files.hpp"
#include "evalforge/core/hd.hpp"

namespace ef {

// Stop requests for long runs: install_stop_signals() makes the first SIGINT/SIGTERM set a flag
// (the run loop checkpoints at its next safe point and returns; the command exits 130); a second
// signal gets the default action (the user is not waiting for the work in flight).
void install_stop_signals();
// Whether a stop has been requested (by a signal, or request_stop()). Cheap: read it per unit.
bool stop_requested();
// Tests: as if a signal had arrived, and back.
void request_stop();
void clear_stop();

// A duration for humans: "42s", "3m07s", "2h05m"; "?" for a negative or non-finite one.
std::string format_duration(double seconds);

// Progress with an ETA: the rate is measured over units done in this process only (resumed
// work does not count as instant), so a resumed run's first ETA is not absurdly short.
class ProgressMeter {
 public:
  // `total` units, of which `done_at_start` were done before this process started. The clock
  // (seconds, any origin) is the steady clock unless a test passes its own.
  ProgressMeter(u64 total, u64 done_at_start, std::function<double()> clock = {});
  // "1200/123552 (1.0%), 3.1 s elapsed, ETA 5m10s" with `done` units done in all; the ETA is
  // "?" until this process has done a unit.
  std::string status(u64 done) const;
  // Seconds since construction.
  double elapsed() const;
  // Units per second done by this process (0 before the first).
  double rate(u64 done) const;
  // Seconds left at that rate; NaN before the first unit.
  double eta(u64 done) const;

 private:
  u64 total_, start_;
  std::function<double()> clock_;
  double t0_;
};

// Where a run's time goes, phase by phase (what a full run would cost elsewhere, and where the
// GPU work should aim): laps of one clock, so that the phases add up to the whole.
class PhaseTimes {
 public:
  // `phases`: their names, in the order of their indices; `units` / `unit`: "generations" /
  // "gen", "rounds" / "round"; `first`: the first unit to report on. The clock as ProgressMeter's.
  PhaseTimes(std::vector<std::string> phases, std::string units, std::string unit, long first,
             std::function<double()> clock = {});
  // The time since the last lap (or construction) goes to `phase`.
  void lap(std::size_t phase);
  // "time by phase, generations 0-99: 512.3 s, 5.123 s/gen: fitness training 4.901 s/gen (95.7%);
  // ..." for the units since the last report, up to and including `last` (phases that took no
  // time are left out, the first is always named); then starts anew from last + 1.
  std::string report(long last);

 private:
  std::vector<std::string> names_;
  std::string units_, unit_;
  long first_;
  std::vector<double> seconds_;
  std::function<double()> clock_;
  double mark_;
};

// Where a run's progress lines go: log.txt always; the sink (the app passes one that writes to
// stderr; tests pass none or a capture). The sink gets the line without a trailing newline.
using LineSink = std::function<void(const std::string&)>;

// What every run loop takes from its caller besides its config: the part of the skeleton that
// all the runs of src/runs/ share. A run kind's options derive from it and add their own.
struct RunOptions {
  int threads = 0;                       // 0: all hardware threads
  LineSink progress;                     // progress lines (log.txt gets them anyway); empty: quiet
  std::function<bool()> stop_requested;  // asked at the run's safe points: true = checkpoint and return
  bool check_only = false;  // resume: open and validate the directory (config, checkpoint, tables), then return
  std::string resume_hint;  // how the user continues the run ("evalforge KIND --resume DIR"), named in messages
  bool* stopped = nullptr;  // set to true when a stop request ended the run before its end (the app exits 130)
  // resume: go on under a hand-edited config.toml (the edits are logged) instead of refusing it
  bool accept_config_edits = false;
};

class RunDir {
 public:
  // A new run of `kind` ("search", "match", "tournament", "evolve") in `dir`. Fails with a clear
  // ef::Error naming dir if it already holds a run (hint: "<resume_hint>" e.g. "evalforge search
  // --resume DIR"; an empty hint is left out) or if it holds other files (it must be new, empty,
  // or a creation cut short), creates it, writes run.toml (kind, evalforge version) and then
  // each CSV table's header. config.toml (the resolved config snapshot) is written LAST by
  // commit_config(): its presence marks a run directory, so a crash during creation leaves no
  // half run. Between the two the caller writes whatever else a resume needs (an initial
  // checkpoint, source.toml, ...).
  //
  // The directory is locked (.lock, flock) before anything is checked or written, and stays
  // locked while this RunDir or a copy of it lives: a second process creating or resuming the
  // same directory gets an ef::Error naming it and the holder's pid instead of writing
  // duplicate rows beside the first.
  static RunDir create(const std::filesystem::path& dir, std::string_view kind, std::string_view resume_hint,
                       const std::vector<std::pair<std::string, std::string>>& tables /* name, header */);
  // The checks create() starts with, without creating anything: a run loop calls it before its
  // expensive setup (loading data, building agents), so that a directory that cannot be used
  // is refused at once and a setup error leaves no directory behind.
  static void check_creatable(const std::filesystem::path& dir, std::string_view kind, std::string_view resume_hint);
  // Writes config.toml: from here on the directory is a run that resume can open. A copy of it,
  // .config.committed.toml, is written first: it is what the run was committed to, so that a
  // resume can tell a hand edit of config.toml (config_edits) from the run's own rewrites (a
  // resume with --generations commits the new limit the same way).
  void commit_config(const std::string& config_toml);
  // The settings of config.toml that differ from the committed copy, one entry per key path:
  // "training.epochs: 4 -> 8", "search.seed: 7 -> (removed)", "elo.k: (absent) -> 24". Empty when
  // nothing but comments or layout changed, and for runs made before the copy was kept (they
  // have no record to compare with). ef::Error naming the file when either does not parse.
  std::vector<std::string> config_edits() const;
  // After the user accepted the edits: config.toml becomes the committed copy.
  void accept_config_edits();
  // An existing run of `kind`: fails naming dir when config.toml is missing or run.toml names
  // another kind (run dirs from before run.toml existed: no run.toml => accept, for compatibility).
  // kWrite (resume) locks the directory like create(); kRead (reports, analyses that only read
  // whole rows) neither locks nor waits, and must not write.
  enum class Access { kWrite, kRead };
  static RunDir open(const std::filesystem::path& dir, std::string_view kind, Access access = Access::kWrite);
  // The kind DIR/run.toml names; nullopt when there is no run.toml (a run from before it).
  // ef::Error naming the file when it is malformed.
  static std::optional<std::string> recorded_kind(const std::filesystem::path& dir);

  const std::filesystem::path& path() const { return dir_; }
  const std::string& kind() const { return kind_; }
  // dir / name; `name` may hold a subdirectory ("checkpoint/state.toml").
  std::filesystem::path file(std::string_view name) const;
  bool has(std::string_view name) const;

  // Append-only CSV. resume_table validates the existing file: header line must equal `header`
  // (else error naming file:1); a missing file is an error (rows would be lost), not silently
  // recreated; a last line without its newline is an interrupted append and is dropped (noted
  // via the log); every other row goes through `keep`, which returns whether the row stays (rows
  // past the checkpoint are replayed and written again) and calls ef::fail naming `where`
  // ("file:line") for a row that is not one this run could have written. Rows must have exactly
  // as many fields as the header (fields are split at every comma: no quoting, so a run's
  // values must not hold commas). The kept rows are written back atomically (when anything was
  // dropped) and returned, in file order. `header` may end with a newline or not.
  using Row = std::vector<std::string>;
  using RowCheck = std::function<bool(const Row& fields, const std::string& where)>;
  std::vector<Row> resume_table(std::string_view name, std::string_view header, const RowCheck& keep);
  // Appends `rows` (whole lines; a missing final newline is added), flushes and fsyncs, so
  // that the rows are on disk before a checkpoint that counts them is written. Error names the
  // file; a missing table is an error (appending would make a file without a header).
  void append_rows(std::string_view name, const std::string& rows);

  // Atomic files: write NAME.tmp, fsync, rename over NAME, fsync the directory.
  void write_file(std::string_view name, const std::string& bytes);
  std::string read_file(std::string_view name, FileKind kind) const;  // core/files.hpp; error names the file
  // A checksummed binary checkpoint: framing = magic "EFRUNCK1", kind (u32 length + bytes),
  // payload length (u64), payload, CRC-32 (zlib's crc32) of everything before it; all
  // little-endian (core/bytes.hpp). read_checkpoint returns nullopt when absent and fails naming
  // the file for a bad magic, other kind, truncation or checksum mismatch.
  void write_checkpoint(std::string_view name, const std::string& payload);
  std::optional<std::string> read_checkpoint(std::string_view name) const;

  // A progress/log line: appended to log.txt (with a newline if missing) and passed to the sink.
  void set_sink(LineSink sink);
  void log(const std::string& line);

 private:
  RunDir(std::filesystem::path dir, std::string kind) : dir_(std::move(dir)), kind_(std::move(kind)) {}
  // Takes the directory's lock (see create) or fails naming the directory; on a file system
  // without flock the run goes on unlocked.
  void lock();
  // open's checks: config.toml present, run.toml (if any) naming `kind`.
  static void check_run(const std::filesystem::path& dir, std::string_view kind);

  std::filesystem::path dir_;
  std::string kind_;
  LineSink sink_;
  std::shared_ptr<const int> lock_;  // the locked .lock file's descriptor, closed (unlocked) with the last copy
};

// The framing of write_checkpoint, without a directory: the bytes of a checkpoint of `kind`
// holding `payload`, and the payload back from such bytes (`source` names them in errors).
// RunDir's checkpoint functions are these plus an atomic write / a read; exposed for tests and
// for runs that keep checkpoints elsewhere.
std::string frame_checkpoint(std::string_view kind, const std::string& payload);
std::string unframe_checkpoint(std::string_view bytes, std::string_view kind, const std::string& source);

// Field parsing for RowCheck callbacks: the whole field must be the number (no blanks, no
// trailing text), else ef::Error "where: <what> '<field>' (expected ...)". Integers are read
// as 64-bit and range-checked, so no value can overflow an int on its way in; reals must be
// finite (no nan, inf).
i64 parse_int_field(std::string_view field, i64 lo, i64 hi, const std::string& where, std::string_view what);
double parse_real_field(std::string_view field, const std::string& where, std::string_view what);

}  // namespace ef
