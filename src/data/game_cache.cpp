// Binary cache of parsed game files. Parsing the 121k-game logbook means decompressing and
// replaying 7M moves; the cache turns a repeat load into one file read.
//
// One cache file per (source absolute path, detected format, options that change the parse). Layout, little-endian:
//   "EFGAMES\0", u32 format version, u32 key length, key bytes, u64 payload length,
//   u32 crc32(payload), payload.
// The key text also holds the source's size and mtime: a changed source no longer matches and
// is parsed again (the stale cache file is then overwritten). Payload:
//   u64 records_read, u64 games, per game: u8 flags, u8 move count, moves, i32 score,
//     [flags&1: i32 theoretical score], [flags&2: i32 tournament, black, white, year];
//   u64 problems, per problem: u64 record, u8 unit, u8 skipped, u32 length, text.
// Anything unexpected on load (short file, other version or key, bad checksum, counts that
// overrun the payload) is a miss: the caller parses the source instead.
#include <fmt/format.h>
#include <unistd.h>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include "core/bytes.hpp"
#include "data/readers.hpp"
#include "evalforge/core/files.hpp"

namespace ef::data::detail {
namespace {

constexpr char kMagic[8] = {'E', 'F', 'G', 'A', 'M', 'E', 'S', '\0'};
// Bump when the payload layout or the readers' output changes: older cache files then miss.
// 2: reads that ended with a decompression error are no longer cached; version 1 files may hold one.
// 3: the key names the detected format: a text file without a known extension whose first line
//    is a PGN tag or a GGF game was read as a transcript before PGN and GGF were read.
// 4: a truncated WTHOR file is a read error (never cached), and a text file's UTF-8 byte-order
//    mark is skipped: version 3 files may hold either file with a game too few.
constexpr std::uint32_t kCacheVersion = 4;
constexpr std::uint8_t kHasTheoretical = 1, kHasWthorFields = 2;

struct CacheKey {
  std::string name;  // file name in the cache directory: stable while the source changes
  std::string text;  // full key, stored in the file and compared on load
};

std::optional<CacheKey> make_key(const std::filesystem::path& source, FileFormat format, const ReadOptions& options) {
  std::error_code ec;
  const std::filesystem::path absolute = std::filesystem::absolute(source, ec).lexically_normal();
  if (ec) return std::nullopt;
  const std::uintmax_t size = std::filesystem::file_size(source, ec);
  if (ec) return std::nullopt;
  const auto mtime = std::filesystem::last_write_time(source, ec);
  if (ec) return std::nullopt;
  // The format is part of the identity: detection by content can change with the readers.
  const std::string identity = fmt::format("{}\n{}\n{}", absolute.string(), format_name(format),
                                           options.skip_truncated_wthor ? "skip-truncated" : "keep-truncated");
  CacheKey key;
  key.name = fmt::format("{}-{:016x}.efgames", absolute.filename().string().substr(0, 40), fnv1a64(identity));
  key.text =
      fmt::format("{}\nsize {}\nmtime {}", identity, size, static_cast<long long>(mtime.time_since_epoch().count()));
  return key;
}

// Bounds-checked reading: any overrun sets `ok` false and returns zeros from then on. (Not
// core/bytes.hpp's ByteReader, which throws: here anything unexpected is a cache miss.)
class Reader {
 public:
  Reader(const char* data, std::size_t size) : data_(data), size_(size) {}
  bool ok() const { return ok_; }
  bool at_end() const { return pos_ == size_; }
  std::size_t remaining() const { return size_ - pos_; }
  const char* take(std::size_t n) {
    if (!ok_ || n > size_ - pos_) {
      ok_ = false;
      return nullptr;
    }
    const char* p = data_ + pos_;
    pos_ += n;
    return p;
  }
  std::uint64_t unsigned_le(int bytes) {
    const char* p = take(static_cast<std::size_t>(bytes));
    std::uint64_t v = 0;
    if (p)
      for (int i = 0; i < bytes; ++i) v |= std::uint64_t{static_cast<unsigned char>(p[i])} << (8 * i);
    return v;
  }
  std::uint8_t u8() { return static_cast<std::uint8_t>(unsigned_le(1)); }
  std::uint32_t u32() { return static_cast<std::uint32_t>(unsigned_le(4)); }
  std::int32_t i32() { return static_cast<std::int32_t>(u32()); }
  std::uint64_t u64() { return unsigned_le(8); }

 private:
  const char* data_;
  std::size_t size_;
  std::size_t pos_ = 0;
  bool ok_ = true;
};

std::string encode_payload(const FileGames& parsed) {
  ByteWriter w;
  w.put<std::uint64_t>(parsed.records_read);
  w.put<std::uint64_t>(parsed.games.size());
  for (const Game& game : parsed.games) {
    const bool wthor_fields =
        game.black_player != -1 || game.white_player != -1 || game.tournament != -1 || game.year != -1;
    const std::uint8_t flags = static_cast<std::uint8_t>((game.theoretical_score != kNoScore ? kHasTheoretical : 0) |
                                                         (wthor_fields ? kHasWthorFields : 0));
    w.put<std::uint8_t>(flags);
    w.put<std::uint8_t>(static_cast<std::uint8_t>(game.moves.size()));
    w.put_array<std::uint8_t>(game.moves);
    w.put<std::int32_t>(game.score);
    if (flags & kHasTheoretical) w.put<std::int32_t>(game.theoretical_score);
    if (flags & kHasWthorFields) {
      w.put<std::int32_t>(game.tournament);
      w.put<std::int32_t>(game.black_player);
      w.put<std::int32_t>(game.white_player);
      w.put<std::int32_t>(game.year);
    }
  }
  w.put<std::uint64_t>(parsed.problems.size());
  for (const Problem& problem : parsed.problems) {
    w.put<std::uint64_t>(problem.record);
    w.put<std::uint8_t>(static_cast<std::uint8_t>(problem.unit));
    w.put<std::uint8_t>(problem.skipped ? 1 : 0);
    w.put<std::uint32_t>(static_cast<std::uint32_t>(problem.what.size()));
    w.put_bytes(problem.what);
  }
  return w.take();
}

std::optional<FileGames> decode_payload(const char* data, std::size_t size, const std::string& display_name) {
  Reader r(data, size);
  FileGames out;
  out.records_read = r.u64();
  const std::uint64_t game_count = r.u64();
  // Each game takes at least 6 bytes: a count beyond that is corruption, not a reason to allocate.
  if (!r.ok() || game_count > r.remaining() / 6) return std::nullopt;
  out.games.resize(game_count);
  for (Game& game : out.games) {
    const std::uint8_t flags = r.u8();
    const std::uint8_t move_count = r.u8();
    if (move_count > 60) return std::nullopt;
    const char* moves = r.take(move_count);
    if (!moves) return std::nullopt;
    game.moves.assign(reinterpret_cast<const std::uint8_t*>(moves),
                      reinterpret_cast<const std::uint8_t*>(moves) + move_count);
    game.score = r.i32();
    if (flags & kHasTheoretical) game.theoretical_score = r.i32();
    if (flags & kHasWthorFields) {
      game.tournament = r.i32();
      game.black_player = r.i32();
      game.white_player = r.i32();
      game.year = r.i32();
    }
  }
  const std::uint64_t problem_count = r.u64();
  if (!r.ok() || problem_count > r.remaining() / 14) return std::nullopt;
  out.problems.resize(problem_count);
  for (Problem& problem : out.problems) {
    problem.file = display_name;
    problem.record = r.u64();
    const std::uint8_t unit = r.u8();
    if (unit > static_cast<std::uint8_t>(Problem::Unit::kRecord)) return std::nullopt;
    problem.unit = static_cast<Problem::Unit>(unit);
    problem.skipped = r.u8() != 0;
    const std::uint32_t length = r.u32();
    const char* text = r.take(length);
    if (!text) return std::nullopt;
    problem.what.assign(text, length);
  }
  if (!r.ok() || !r.at_end()) return std::nullopt;
  return out;
}

}  // namespace

std::optional<std::filesystem::path> cache_directory(const ReadOptions& options) {
  std::filesystem::path dir = options.cache_dir;
  if (dir.empty()) {
    dir = xdg_directory("XDG_CACHE_HOME", ".cache");
    if (dir.empty()) return std::nullopt;
  }
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec || !std::filesystem::is_directory(dir, ec)) return std::nullopt;
  return dir;
}

std::optional<FileGames> load_cached(const std::filesystem::path& cache_dir, const std::filesystem::path& source,
                                     FileFormat format, const std::string& display_name, const ReadOptions& options) {
  const auto key = make_key(source, format, options);
  if (!key) return std::nullopt;
  const std::filesystem::path cache_file = cache_dir / key->name;
  std::error_code ec;
  if (!std::filesystem::exists(cache_file, ec)) return std::nullopt;
  std::string bytes;
  try {  // a cache file that cannot be read (not regular, too large) is a miss: the source is parsed again
    bytes = read_file(cache_file, FileKind::kGameCache);
  } catch (const Error&) {
    return std::nullopt;
  }

  Reader header(bytes.data(), bytes.size());
  const char* magic = header.take(sizeof kMagic);
  if (!magic || std::memcmp(magic, kMagic, sizeof kMagic) != 0) return std::nullopt;
  if (header.u32() != kCacheVersion) return std::nullopt;
  const std::uint32_t key_length = header.u32();
  const char* key_text = header.take(key_length);
  if (!key_text || std::string_view(key_text, key_length) != key->text) return std::nullopt;
  const std::uint64_t payload_length = header.u64();
  const std::uint32_t expected_crc = header.u32();
  if (!header.ok() || payload_length != header.remaining()) return std::nullopt;
  const char* payload = header.take(payload_length);
  if (!payload || crc32_of(std::string_view(payload, payload_length)) != expected_crc) return std::nullopt;
  return decode_payload(payload, payload_length, display_name);
}

void store_cached(const std::filesystem::path& cache_dir, const std::filesystem::path& source, FileFormat format,
                  const ReadOptions& options, const FileGames& parsed) {
  const auto key = make_key(source, format, options);
  if (!key) return;
  const std::string payload = encode_payload(parsed);
  ByteWriter header;
  header.put_bytes(std::string_view(kMagic, sizeof kMagic));
  header.put<std::uint32_t>(kCacheVersion);
  header.put<std::uint32_t>(static_cast<std::uint32_t>(key->text.size()));
  header.put_bytes(key->text);
  header.put<std::uint64_t>(payload.size());
  header.put<std::uint32_t>(crc32_of(payload));

  // Write beside the target and rename: readers never see a half-written cache file, and
  // concurrent writers (two runs loading the same data) each publish a whole one.
  const std::filesystem::path target = cache_dir / key->name;
  static std::atomic<unsigned> writes{0};
  const std::filesystem::path temporary =
      cache_dir / fmt::format("{}.tmp.{}.{}", key->name, static_cast<long>(getpid()), writes++);
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    if (!out) return;
    out.write(header.bytes().data(), static_cast<std::streamsize>(header.bytes().size()));
    out.write(payload.data(), static_cast<std::streamsize>(payload.size()));
    out.close();
    if (!out) {
      std::error_code ignored;
      std::filesystem::remove(temporary, ignored);
      return;
    }
  }
  std::error_code ec;
  std::filesystem::rename(temporary, target, ec);
  if (ec) std::filesystem::remove(temporary, ec);
}

}  // namespace ef::data::detail
