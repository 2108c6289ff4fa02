// Square names (a1..h8) for the host side: parsing and printing.
#pragma once
#include <optional>
#include <string>
#include <string_view>

namespace ef {

// "a1".."h8" (case-insensitive) -> 0..63, or nullopt.
inline std::optional<int> parse_square(std::string_view s) {
  if (s.size() != 2) return std::nullopt;
  char f = s[0], r = s[1];
  if (f >= 'A' && f <= 'H') f = static_cast<char>(f - 'A' + 'a');
  if (f < 'a' || f > 'h' || r < '1' || r > '8') return std::nullopt;
  return 8 * (r - '1') + (f - 'a');
}

inline std::string square_name(int sq) {
  return std::string{static_cast<char>('a' + (sq & 7)), static_cast<char>('1' + (sq >> 3))};
}

}  // namespace ef
