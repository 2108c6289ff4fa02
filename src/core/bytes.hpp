// Binary payloads, shared by every file format that evalforge writes itself (run checkpoints,
// agent networks, the game cache): a writer and a bounds-checked reader with an explicit byte
// order, and the two checksums the formats use.
//
// Every multi-byte value is little-endian whatever the host, so a file written on one machine
// reads on another; on a little-endian host (every machine evalforge runs on today) the bytes
// are exactly those of a memcpy, which is what the older formats (.efnet) were written with.
#pragma once
#include <bit>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>
#include "evalforge/core/error.hpp"
#include "evalforge/core/hd.hpp"

namespace ef {

// The value types a payload may hold: integers, enums, bool (one byte), float and double.
template <class T>
concept PayloadValue = std::is_arithmetic_v<T> || std::is_enum_v<T>;

namespace bytes_detail {

// The unsigned integer with T's bits (enums by their underlying type, floats by bit_cast).
template <class T>
using Bits = std::conditional_t<sizeof(T) == 1, std::uint8_t,
                                std::conditional_t<sizeof(T) == 2, std::uint16_t,
                                                   std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>>>;

template <PayloadValue T>
Bits<T> to_bits(T v) {
  static_assert(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8);
  if constexpr (std::is_same_v<T, bool>)
    return v ? 1 : 0;
  else if constexpr (std::is_enum_v<T>)
    return static_cast<Bits<T>>(static_cast<std::underlying_type_t<T>>(v));
  else if constexpr (std::is_floating_point_v<T>)
    return std::bit_cast<Bits<T>>(v);
  else
    return static_cast<Bits<T>>(v);
}

template <PayloadValue T>
T from_bits(Bits<T> b) {
  if constexpr (std::is_same_v<T, bool>)
    return b != 0;
  else if constexpr (std::is_enum_v<T>)
    return static_cast<T>(static_cast<std::underlying_type_t<T>>(b));
  else if constexpr (std::is_floating_point_v<T>)
    return std::bit_cast<T>(b);
  else
    return static_cast<T>(b);
}

}  // namespace bytes_detail

// Builds a payload: values are appended little-endian, in the order put.
class ByteWriter {
 public:
  // One value (integers of 1..8 bytes, enums, bool as one byte 0/1, float, double).
  template <PayloadValue T>
  void put(T v) {
    const auto b = bytes_detail::to_bits(v);
    char raw[sizeof b];
    for (std::size_t i = 0; i < sizeof b; ++i) raw[i] = static_cast<char>(static_cast<std::uint8_t>(b >> (8 * i)));
    bytes_.append(raw, sizeof b);
  }
  // Every element of `values`, as put() would write them one by one (one memcpy on a
  // little-endian host: network files hold millions of weights).
  template <PayloadValue T>
  void put_array(std::span<const T> values) {
    if constexpr (std::endian::native == std::endian::little && !std::is_same_v<T, bool>) {
      const std::size_t at = bytes_.size();
      bytes_.resize(at + values.size_bytes());
      if (!values.empty()) std::memcpy(bytes_.data() + at, values.data(), values.size_bytes());
    } else {
      for (const T& v : values) put(v);
    }
  }
  // Raw bytes (magic numbers, names; a length, when needed, is the caller's to put first).
  void put_bytes(std::string_view b) { bytes_.append(b); }
  // A string as u32 length + bytes.
  void put_string(std::string_view s) {
    put<std::uint32_t>(static_cast<std::uint32_t>(s.size()));
    put_bytes(s);
  }

  std::size_t size() const { return bytes_.size(); }
  const std::string& bytes() const { return bytes_; }
  // The payload, moved out (the writer is empty afterwards).
  std::string take() { return std::move(bytes_); }

 private:
  std::string bytes_;
};

// Reads a payload written by ByteWriter. Every read past the end, and every bad() call, throws
// ef::Error naming `source` (the file) and the byte offset, so a truncated or corrupt file is
// reported, never read out of bounds.
class ByteReader {
 public:
  // `bytes` must outlive the reader; `source` names it in errors (usually the file's path).
  ByteReader(std::string_view bytes, std::string source) : b_(bytes), source_(std::move(source)) {}

  // One value; `what` names it in the truncation error ("reading <what>").
  template <PayloadValue T>
  T get(const char* what = "a value") {
    using B = bytes_detail::Bits<T>;
    const std::string_view raw = bytes(sizeof(B), what);
    B b = 0;
    for (std::size_t i = 0; i < sizeof(B); ++i) {
      const B byte = static_cast<std::uint8_t>(raw[i]);
      b = static_cast<B>(b | static_cast<B>(byte << (8 * i)));
    }
    return bytes_detail::from_bits<T>(b);
  }
  // `count` values written by put_array. The size is checked before anything is allocated: a
  // corrupt count is an error, not an exhausted memory.
  template <PayloadValue T>
  std::vector<T> get_array(std::size_t count, const char* what) {
    if (count > remaining() / sizeof(T))
      fail("{}: truncated at byte {} (reading {} x {} bytes of {}; {} bytes left)", source_, pos_, count, sizeof(T),
           what, remaining());
    std::vector<T> out(count);
    if constexpr (std::endian::native == std::endian::little && !std::is_same_v<T, bool>) {
      const std::string_view raw = bytes(count * sizeof(T), what);
      if (count) std::memcpy(out.data(), raw.data(), raw.size());
    } else {
      for (T& v : out) v = get<T>(what);
    }
    return out;
  }
  // The next `n` raw bytes (a view into the payload).
  std::string_view bytes(std::size_t n, const char* what) {
    if (n > remaining()) fail("{}: truncated at byte {} (reading {})", source_, pos_, what);
    const std::string_view s = b_.substr(pos_, n);
    pos_ += n;
    return s;
  }
  // A string written by put_string; longer than `max_length` is corruption.
  std::string get_string(std::size_t max_length, const char* what) {
    const std::uint32_t n = get<std::uint32_t>(what);
    if (n > max_length) bad(fmt::format("{} of {} bytes (at most {} expected)", what, n, max_length));
    return std::string(bytes(n, what));
  }

  std::size_t pos() const { return pos_; }
  std::size_t remaining() const { return b_.size() - pos_; }
  bool at_end() const { return pos_ == b_.size(); }
  // Fails unless every byte has been read: trailing bytes mean a different layout.
  void expect_end() const {
    if (!at_end()) bad(fmt::format("{} unexpected trailing bytes", remaining()));
  }
  // A value that cannot be right: "source: byte N: what".
  [[noreturn]] void bad(const std::string& what) const { fail("{}: byte {}: {}", source_, pos_, what); }
  const std::string& source() const { return source_; }

 private:
  std::string_view b_;
  std::string source_;
  std::size_t pos_ = 0;
};

// The object bytes of trivially copyable values, for messages between processes of one build
// (backends/team_backend.hpp: game jobs, records, agent parameters): both ends have the same
// layout, so a memcpy is the exact value. Never for files, which outlive a build and cross
// machines (put() and put_array() fix the byte order there); never for a type that holds a
// pointer (it would point into the sender's memory).
template <class T>
requires std::is_trivially_copyable_v<T>
void put_objects(ByteWriter& w, std::span<const T> values) {
  w.put_bytes(std::string_view(reinterpret_cast<const char*>(values.data()), values.size_bytes()));
}
template <class T>
requires std::is_trivially_copyable_v<T>
void put_object(ByteWriter& w, const T& value) { put_objects(w, std::span<const T>(&value, 1)); }
// `count` objects written by put_objects (the size is checked before anything is allocated).
template <class T>
requires std::is_trivially_copyable_v<T> std::vector<T> get_objects(ByteReader& r, std::size_t count,
                                                                    const char* what) {
  if (count > r.remaining() / sizeof(T)) r.bad(fmt::format("{} x {} bytes of {} expected", count, sizeof(T), what));
  std::vector<T> out(count);
  const std::string_view raw = r.bytes(count * sizeof(T), what);
  if (count) std::memcpy(static_cast<void*>(out.data()), raw.data(), raw.size());
  return out;
}
template <class T>
requires std::is_trivially_copyable_v<T> T get_object(ByteReader& r, const char* what) {
  T value;
  const std::string_view raw = r.bytes(sizeof(T), what);
  std::memcpy(static_cast<void*>(&value), raw.data(), sizeof(T));
  return value;
}

// FNV-1a, 64 bits: a fast non-cryptographic hash for names and fingerprints (cache file names,
// tournament agent fingerprints). Byte-wise, so feeding pieces one by one gives the hash of
// their concatenation.
class Fnv1a {
 public:
  void add_bytes(const void* data, std::size_t size) {
    const auto* p = static_cast<const unsigned char*>(data);
    for (std::size_t i = 0; i < size; ++i) h_ = (h_ ^ p[i]) * 0x100000001b3ull;
  }
  void add(std::string_view s) { add_bytes(s.data(), s.size()); }
  // The object representation of a trivially copyable value (host byte order: fingerprints
  // are compared on the machine that made them; no padding-bearing structs, please).
  template <class T>
  requires std::is_trivially_copyable_v<T>
  void add_value(const T& v) { add_bytes(&v, sizeof v); }
  u64 value() const { return h_; }

 private:
  u64 h_ = 0xcbf29ce484222325ull;
};

inline u64 fnv1a64(std::string_view bytes) {
  Fnv1a h;
  h.add(bytes);
  return h.value();
}

// CRC-32 as zlib's crc32() computes it (the checksum of .efnet, game-cache and run-checkpoint
// files); any size (zlib takes at most 4 GiB per call).
u32 crc32_of(std::string_view bytes);

}  // namespace ef
