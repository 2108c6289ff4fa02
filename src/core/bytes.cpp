#include "core/bytes.hpp"
#include <zlib.h>
#include <algorithm>

namespace ef {

u32 crc32_of(std::string_view bytes) {
  uLong crc = crc32(0L, Z_NULL, 0);
  const char* p = bytes.data();
  std::size_t left = bytes.size();
  while (left > 0) {  // zlib's length is a uInt: feed at most 1 GiB per call
    const uInt chunk = static_cast<uInt>(std::min<std::size_t>(left, std::size_t{1} << 30));
    crc = crc32(crc, reinterpret_cast<const Bytef*>(p), chunk);
    p += chunk;
    left -= chunk;
  }
  return static_cast<u32>(crc);
}

}  // namespace ef
