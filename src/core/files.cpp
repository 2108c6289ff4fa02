#include "core/files.hpp"
#include <fstream>
#include <sstream>
#include "evalforge/core/error.hpp"

namespace ef {

void write_atomically(const std::filesystem::path& file, const std::string& bytes) {
  const std::filesystem::path tmp = file.string() + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) fail("{}: cannot write", tmp.string());
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    out.flush();
    if (!out) fail("{}: write failed (disk full?)", tmp.string());
  }
  std::error_code ec;
  std::filesystem::rename(tmp, file, ec);  // atomic on POSIX
  if (ec) fail("{}: cannot rename into place: {}", file.string(), ec.message());
}

std::string read_file(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) fail("{}: cannot read", file.string());
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace ef
