// load_games(): format detection, the per-file readers, the binary cache and WTHOR names,
// plus the small shared pieces of the readers (problem sink, line reader).
#include <fmt/format.h>
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <set>
#include "data/readers.hpp"
#include "evalforge/core/error.hpp"
#include "evalforge/core/files.hpp"

namespace ef::data {

std::string describe(const Problem& problem) {
  if (problem.unit == Problem::Unit::kLine) return fmt::format("{}:{}: {}", problem.file, problem.record, problem.what);
  if (problem.record == 0) return fmt::format("{}: header: {}", problem.file, problem.what);
  return fmt::format("{}: record {}: {}", problem.file, problem.record, problem.what);
}

const char* format_name(FileFormat format) {
  switch (format) {
    case FileFormat::kLogbook: return "logbook";
    case FileFormat::kWthor: return "wthor";
    case FileFormat::kTranscript: return "transcript";
    case FileFormat::kObf: return "obf";
    case FileFormat::kWthorNames: return "wthor-names";
    case FileFormat::kPgn: return "pgn";
    case FileFormat::kGgf: return "ggf";
  }
  return "unknown";
}

namespace detail {

void ProblemSink::report(std::size_t record, std::string what, bool skipped) {
  Problem problem{file_, record, std::move(what), unit_, skipped};
  if (fatal_ && skipped) throw Error(describe(problem));
  out_.push_back(std::move(problem));
}

const char* color_name(int side) { return side == othello::kBlack ? "black" : "white"; }
std::string signed_score(int score) { return fmt::format("{:+d}", score); }

bool equals_ignoring_case(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) return false;
  return true;
}

std::string LineReader::read_error(const std::string& display_name) const {
  if (stream_error_.empty()) return {};
  return fmt::format("{}:{}: {}", display_name, line_number_ + 1, stream_error_);
}

std::string unfinished_game(const othello::Board& board, std::size_t moves) {
  return fmt::format("game not finished after {} moves ({} to move, {} empty squares)", moves, color_name(board.side),
                     board.empties());
}

std::string MoveReplay::play(int square, int color, std::string_view token, std::string_view where) {
  const std::size_t number = moves_.size() + 1;
  if (!pass_if_needed(board_)) return fmt::format("move {} ({}) {}: the game is already over", number, token, where);
  if (color >= 0 && color != board_.side)
    return fmt::format("move {} ({}) {} is {}'s, but {} is to move", number, token, where, color_name(color),
                       color_name(board_.side));
  if (!board_.play(square))
    return fmt::format("move {} ({}) {} is illegal for {}", number, token, where, color_name(board_.side));
  moves_.push_back(static_cast<std::uint8_t>(square));
  return {};
}

std::string MoveReplay::pass(int color, std::string_view token, std::string_view where) {
  if (board_.game_over()) return fmt::format("pass ({}) {}: the game is already over", token, where);
  if (color >= 0 && color != board_.side)
    return fmt::format("pass ({}) {} is {}'s, but {} is to move", token, where, color_name(color),
                       color_name(board_.side));
  if (board_.can_move()) return fmt::format("pass ({}) {}: {} has a legal move", token, where, color_name(board_.side));
  board_.pass();
  return {};
}

void write_game_text(const std::filesystem::path& file, const char* what, std::string header,
                     const std::vector<Game>& games,
                     const std::function<void(std::string&, const Game&)>& append_game) {
  // Written under FILE.tmp and renamed when complete: a full disk leaves the old file (or none)
  // under the name, never a file with its last games missing.
  AtomicFileWriter out(file);
  std::string text = std::move(header);
  try {
    for (const Game& game : games) {
      append_game(text, game);
      if (text.size() > (std::size_t{1} << 20)) {
        out.write(text);
        text.clear();
      }
    }
    out.write(text);
    out.commit();
  } catch (const Error& e) {
    fail("{} not written: {}", what, e.what());
  }
}

std::string quoted(std::string_view text) {
  std::string out = "'";
  out += printable(text);
  out += '\'';
  return out;
}

void require_readable_file(const std::filesystem::path& file) {
  std::error_code ec;
  const auto status = std::filesystem::status(file, ec);
  if (ec || !std::filesystem::exists(status)) fail("cannot read {}: no such file", file.string());
  if (!std::filesystem::is_regular_file(status))
    fail("cannot read {}: not a regular file but {}", file.string(), file_kind(file));
}

LineReader::LineReader(const std::filesystem::path& file) {
  require_readable_file(file);
  gz_ = gzopen(file.c_str(), "rb");
  if (!gz_) fail("cannot open {}: {}", file.string(), std::strerror(errno));
  // 64 KiB: large enough for fast streaming, small enough that opening many small files
  // (tests, a directory of transcripts) does not cost a megabyte of fresh pages each.
  gzbuffer(gz_, 1 << 16);
  buffer_.resize(1 << 16);
}

LineReader::~LineReader() {
  if (gz_) gzclose(gz_);
}

bool LineReader::refill() {
  if (eof_) return false;
  begin_ = end_ = 0;
  const int got = gzread(gz_, buffer_.data(), static_cast<unsigned>(buffer_.size()));
  if (got <= 0) {
    eof_ = true;
    int code = Z_OK;
    const char* message = gzerror(gz_, &code);
    if (got < 0 || (code != Z_OK && code != Z_STREAM_END))
      stream_error_ = fmt::format("data ends with a read error: {} (corrupt or truncated gzip?)",
                                  message && *message ? message : "unknown error");
    return false;
  }
  end_ = static_cast<std::size_t>(got);
  return true;
}

bool LineReader::next(std::string& line) {
  line.clear();
  line_was_cut_ = false;
  bool got_bytes = false;
  while (true) {
    if (begin_ == end_ && !refill()) {
      if (!got_bytes) return false;
      break;  // a last line without '\n'
    }
    got_bytes = true;
    const char* start = buffer_.data() + begin_;
    const char* newline = static_cast<const char*>(std::memchr(start, '\n', end_ - begin_));
    const std::size_t length = newline ? static_cast<std::size_t>(newline - start) : end_ - begin_;
    // An over-long line is cut at kMaxLine; its rest is skipped as it streams by.
    const std::size_t room = kMaxLine - line.size();
    line.append(start, std::min(length, room));
    if (length > room) line_was_cut_ = true;
    begin_ += length;
    if (newline) {
      ++begin_;
      break;
    }
  }
  if (!line.empty() && line.back() == '\r') line.pop_back();
  // A UTF-8 byte-order mark (some editors write one) is no part of the first line.
  if (line_number_ == 0 && line.starts_with("\xEF\xBB\xBF")) line.erase(0, 3);
  ++line_number_;
  return true;
}

}  // namespace detail

namespace {

std::string lowercase(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

bool ends_with(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() && text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// The shape of a WTHOR game file, for files whose extension does not say.
bool looks_like_wthor(const std::filesystem::path& file) {
  std::error_code ec;
  const std::uintmax_t size = std::filesystem::file_size(file, ec);
  if (ec || size < 16 || (size - 16) % 68 != 0) return false;
  std::FILE* f = std::fopen(file.c_str(), "rb");
  if (!f) return false;
  unsigned char header[16];
  const bool read = std::fread(header, 1, 16, f) == 16;
  std::fclose(f);
  if (!read) return false;
  const std::uint32_t declared = header[4] | (header[5] << 8) | (header[6] << 16) | (std::uint32_t{header[7]} << 24);
  return (header[12] == 0 || header[12] == 8) && header[8] == 0 && header[9] == 0 && declared == (size - 16) / 68;
}

}  // namespace

FileFormat detect_format(const std::filesystem::path& file) {
  detail::require_readable_file(file);
  const std::string name = lowercase(file.filename().string());
  if (ends_with(name, ".gam") || ends_with(name, ".gam.gz")) return FileFormat::kLogbook;
  if (ends_with(name, ".wtb")) return FileFormat::kWthor;
  if (ends_with(name, ".obf") || ends_with(name, ".obf.gz")) return FileFormat::kObf;
  if (ends_with(name, ".jou") || ends_with(name, ".trn")) return FileFormat::kWthorNames;
  if (ends_with(name, ".pgn") || ends_with(name, ".pgn.gz")) return FileFormat::kPgn;
  if (ends_with(name, ".ggf") || ends_with(name, ".ggf.gz")) return FileFormat::kGgf;
  if (looks_like_wthor(file)) return FileFormat::kWthor;

  // Text (plain or gzip): the first record line tells the dialect. Binary garbage is refused
  // here rather than reported line by line.
  detail::LineReader reader(file);
  std::string line;
  while (reader.next(line)) {
    if (line.find('\0') != std::string::npos)
      fail("{}: not a text file, and not a known binary format (.wtb)", file.string());
    const auto first = line.find_first_not_of(" \t");
    if (first == std::string::npos || line[first] == '#' || line[first] == '%') continue;
    const std::string_view record = std::string_view(line).substr(first);
    if (record.size() >= 3 && (record[0] == '+' || record[0] == '-') &&
        std::isalpha(static_cast<unsigned char>(record[1])))
      return FileFormat::kLogbook;
    if (record.size() >= 66 && record.substr(0, 64).find_first_not_of("XxOo-.*") == std::string_view::npos)
      return FileFormat::kObf;
    if (record[0] == '[') return FileFormat::kPgn;  // a tag pair: no other format starts so
    if (lowercase(std::string(record.substr(0, 13))) == "(;gm[othello]") return FileFormat::kGgf;
    return FileFormat::kTranscript;
  }
  return FileFormat::kTranscript;  // empty or comments only: zero games, no problems
}

namespace {

// WTHOR.JOU / WTHOR.TRN beside a .wtb file (upper or lower case).
std::optional<std::filesystem::path> find_beside(const std::filesystem::path& wtb, const std::string& name) {
  const std::filesystem::path dir = wtb.parent_path().empty() ? std::filesystem::path(".") : wtb.parent_path();
  for (const std::string& candidate : {name, lowercase(name)}) {
    std::error_code ec;
    if (std::filesystem::is_regular_file(dir / candidate, ec)) return dir / candidate;
  }
  return std::nullopt;
}

void load_wthor_names(const std::filesystem::path& wtb, GameDatabase& db,
                      std::set<std::filesystem::path>& directories_seen) {
  std::error_code ec;
  std::filesystem::path dir = std::filesystem::absolute(wtb, ec).parent_path();
  if (!directories_seen.insert(dir).second) return;
  const auto load = [&](const std::string& name, std::size_t record_size, std::vector<std::string>& names) {
    const auto path = find_beside(wtb, name);
    if (!path) return;
    std::vector<std::string> found = detail::read_wthor_names(*path, record_size, db.problems);
    if (names.empty()) {
      names = std::move(found);
    } else if (found != names) {
      db.problems.push_back({path->string(), 0,
                             "differs from the name file read first; player and tournament numbers refer to that one",
                             Problem::Unit::kRecord, false});
    }
  };
  load("WTHOR.JOU", 20, db.player_names);
  load("WTHOR.TRN", 26, db.tournament_names);
}

detail::FileGames parse_file(const std::filesystem::path& file, FileFormat format, const std::string& display,
                             const ReadOptions& options) {
  switch (format) {
    case FileFormat::kLogbook: return detail::read_text_games(file, display, detail::TextDialect::kLogbook, options);
    case FileFormat::kTranscript:
      return detail::read_text_games(file, display, detail::TextDialect::kTranscript, options);
    case FileFormat::kWthor: return detail::read_wthor_games(file, display, options);
    case FileFormat::kPgn: return detail::read_pgn_games(file, display, options);
    case FileFormat::kGgf: return detail::read_ggf_games(file, display, options);
    case FileFormat::kObf: fail("{} holds test positions (.obf), not games", display);
    case FileFormat::kWthorNames:
      fail("{} is a WTHOR name file; load the .wtb game files (names are read from beside them)", display);
  }
  fail("{}: unknown format", display);
}

}  // namespace

GameDatabase load_games(const std::vector<std::filesystem::path>& files, const ReadOptions& options) {
  GameDatabase db;
  const std::optional<std::filesystem::path> cache_dir =
      options.use_cache ? detail::cache_directory(options) : std::nullopt;
  std::set<std::filesystem::path> name_directories;
  for (const std::filesystem::path& file : files) {
    const std::string display = file.string();
    const FileFormat format = detect_format(file);
    std::optional<detail::FileGames> part;
    if (cache_dir && format != FileFormat::kObf && format != FileFormat::kWthorNames) {
      part = detail::load_cached(*cache_dir, file, format, display, options);
      if (part) {
        ++db.files_from_cache;
        // The parse that filled the cache did not stop at problems; a fatal load must.
        if (options.fatal_problems)
          for (const Problem& problem : part->problems)
            if (problem.skipped) throw Error(describe(problem));
      }
    }
    if (!part) {
      part = parse_file(file, format, display, options);
      if (!part->read_error.empty()) {
        if (!options.accept_read_errors)
          fail(
              "{}: the data is damaged and cannot be read to its end: {} records were read before reading "
              "stopped, records near the damage may be garbage and the rest is lost (`gzip -t` tests a .gz file; "
              "fetch or copy it again; `score --accept-damaged` trains on what was read, `data inspect "
              "--accept-damaged` reports it)",
              part->read_error, part->records_read);
        db.read_errors.push_back(part->read_error);  // a damaged read is never cached
      } else if (cache_dir) {
        detail::store_cached(*cache_dir, file, format, options, *part);
      }
    }
    if (format == FileFormat::kWthor) load_wthor_names(file, db, name_directories);

    db.files.push_back(display);
    db.records_read += part->records_read;
    if (db.games.empty()) {
      db.games = std::move(part->games);
    } else {
      db.games.insert(db.games.end(), std::make_move_iterator(part->games.begin()),
                      std::make_move_iterator(part->games.end()));
    }
    db.problems.insert(db.problems.end(), std::make_move_iterator(part->problems.begin()),
                       std::make_move_iterator(part->problems.end()));
  }
  return db;
}

}  // namespace ef::data
