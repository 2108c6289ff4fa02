// Lookups in the tables that declare a set of kinds once, each entry a `kind` (an enum value)
// and the `name` files and messages use for it (Othello evaluator kinds, evolve kinds, run
// kinds): by kind, by name, and the list of names an error offers.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>

namespace ef {

// The entry of `kind`; null when the table has none.
template <class Entry, std::size_t N, class Kind>
constexpr const Entry* entry_of(const Entry (&table)[N], Kind kind) {
  for (const Entry& e : table)
    if (e.kind == kind) return &e;
  return nullptr;
}

// The entry called `name`; null when no entry is.
template <class Entry, std::size_t N>
constexpr const Entry* entry_named(const Entry (&table)[N], std::string_view name) {
  for (const Entry& e : table)
    if (name == e.name) return &e;
  return nullptr;
}

// The names in table order, as an error lists the choices: "a, b or c".
template <class Entry, std::size_t N>
std::string names_of(const Entry (&table)[N]) {
  std::string names;
  for (std::size_t i = 0; i < N; ++i) {
    if (i > 0) names += i + 1 == N ? " or " : ", ";
    names += table[i].name;
  }
  return names;
}

}  // namespace ef
