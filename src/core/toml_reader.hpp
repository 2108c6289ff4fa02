// Validated reading of TOML tables: every config and agent file goes through this, so that a
// bad value is reported the same way everywhere -- file, table.key and what was expected --
// and unknown keys are rejected instead of silently ignored.
#pragma once
#include <toml++/toml.h>
#include <initializer_list>
#include <string>
#include <vector>
#include "evalforge/core/hd.hpp"

namespace ef {

// Parses `file`; a syntax error becomes ef::Error "file:line: description".
toml::table parse_toml_file(const std::string& file);
// A run config (search, evolve, match, tournament, hex tune, hex match): parse_toml_file, and
// an error when the file sets no key at all. A file of comments only (or an empty one) would
// otherwise run the full default job without a word.
toml::table parse_run_config(const std::string& file);

// "..." with quotes and backslashes escaped, for writing TOML.
std::string toml_quote(const std::string& s);

class TableReader {
 public:
  // `section` names the table in messages ("" for the root table).
  TableReader(const toml::table& t, std::string file, std::string section);

  void allow(std::initializer_list<const char*> keys) const;
  std::string where(const char* key) const;
  bool has(const char* key) const { return t_.get(key) != nullptr; }

  // Each reader leaves `out` unchanged when the key is absent.
  void integer(const char* key, int& out, long lo, long hi) const;
  void seed(const char* key, u64& out) const;
  void real(const char* key, double& out, double lo, double hi) const;
  void text(const char* key, std::string& out) const;
  void boolean(const char* key, bool& out) const;
  void integers(const char* key, std::vector<int>& out, long lo, long hi) const;
  void strings(const char* key, std::vector<std::string>& out) const;

 private:
  const toml::table& t_;
  std::string file_, section_;
};

}  // namespace ef
