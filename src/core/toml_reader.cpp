#include "core/toml_reader.hpp"
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <filesystem>
#include "evalforge/core/error.hpp"
#include "evalforge/core/files.hpp"

namespace ef {

toml::table parse_toml_file(const std::string& file) {
  // Through the bounded reader: a directory, a FIFO or a device is named as what it is, and a
  // config file cannot be larger than a config file may be (core/files.hpp).
  const std::string text = read_file(file, FileKind::kConfig);
  try {
    return toml::parse(text, file);
  } catch (const toml::parse_error& e) {
    fail("{}:{}: {}", file, e.source().begin.line, e.description());
  }
}

toml::table parse_run_config(const std::string& file) {
  toml::table t = parse_toml_file(file);
  if (t.empty())
    fail(
        "{}: the config sets no keys (only comments, or nothing): a run needs at least its main table, e.g. "
        "[search] moves = [...]; the files in configs/ show every key with its default",
        file);
  return t;
}

std::string toml_quote(const std::string& s) {
  std::string out = "\"";
  for (char ch : s) {
    const auto u = static_cast<unsigned char>(ch);
    if (ch == '"' || ch == '\\') {
      out += '\\';
      out += ch;
    } else if (u < 0x20 || u == 0x7f) {
      out += fmt::format("\\u{:04X}", u);  // control characters are not allowed raw in TOML strings
    } else {
      out += ch;
    }
  }
  return out + '"';
}

TableReader::TableReader(const toml::table& t, std::string file, std::string section)
    : t_(t), file_(std::move(file)), section_(std::move(section)) {}

std::string TableReader::where(const char* key) const {
  return section_.empty() ? fmt::format("{}: {}", file_, key) : fmt::format("{}: {}.{}", file_, section_, key);
}

void TableReader::allow(std::initializer_list<const char*> keys) const {
  for (const auto& [k, v] : t_) {
    bool ok = false;
    for (const char* a : keys) ok = ok || k.str() == a;
    if (!ok) {
      std::vector<std::string> names(keys.begin(), keys.end());
      const std::string key(k.str());
      fail("{}: unknown key {} (expected one of: {})", file_,
           section_.empty() ? key : fmt::format("{}.{}", section_, key), fmt::join(names, ", "));
    }
  }
}

void TableReader::integer(const char* key, int& out, long lo, long hi) const {
  const toml::node* n = t_.get(key);
  if (!n) return;
  const auto v = n->value_exact<int64_t>();
  if (!v || *v < lo || *v > hi) fail("{}: expected an integer in [{}, {}]", where(key), lo, hi);
  out = static_cast<int>(*v);
}

void TableReader::seed(const char* key, u64& out) const {
  const toml::node* n = t_.get(key);
  if (!n) return;
  const auto v = n->value_exact<int64_t>();
  if (!v || *v < 0) fail("{}: expected a non-negative integer", where(key));
  out = static_cast<u64>(*v);
}

void TableReader::real(const char* key, double& out, double lo, double hi) const {
  const toml::node* n = t_.get(key);
  if (!n) return;
  const auto v = n->value<double>();
  if (!v || !(*v >= lo && *v <= hi)) fail("{}: expected a number in [{}, {}]", where(key), lo, hi);
  out = *v;
}

void TableReader::text(const char* key, std::string& out) const {
  const toml::node* n = t_.get(key);
  if (!n) return;
  const auto v = n->value_exact<std::string>();
  if (!v) fail("{}: expected a string", where(key));
  out = *v;
}

void TableReader::boolean(const char* key, bool& out) const {
  const toml::node* n = t_.get(key);
  if (!n) return;
  const auto v = n->value_exact<bool>();
  if (!v) fail("{}: expected true or false", where(key));
  out = *v;
}

void TableReader::integers(const char* key, std::vector<int>& out, long lo, long hi) const {
  const toml::node* n = t_.get(key);
  if (!n) return;
  const auto* a = n->as_array();
  if (!a || a->empty()) fail("{}: expected a non-empty array of integers in [{}, {}]", where(key), lo, hi);
  out.clear();
  for (std::size_t i = 0; i < a->size(); ++i) {
    const auto v = a->get(i)->value_exact<int64_t>();
    if (!v || *v < lo || *v > hi) fail("{}[{}]: expected an integer in [{}, {}]", where(key), i, lo, hi);
    out.push_back(static_cast<int>(*v));
  }
}

void TableReader::strings(const char* key, std::vector<std::string>& out) const {
  const toml::node* n = t_.get(key);
  if (!n) return;
  out.clear();
  if (auto s = n->value_exact<std::string>()) {
    out.push_back(*s);
    return;
  }
  const auto* a = n->as_array();
  if (!a) fail("{}: expected a string or an array of strings", where(key));
  for (std::size_t i = 0; i < a->size(); ++i) {
    const auto v = a->get(i)->value_exact<std::string>();
    if (!v) fail("{}[{}]: expected a string", where(key), i);
    out.push_back(*v);
  }
}

}  // namespace ef
