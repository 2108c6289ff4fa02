// Whole-file reads and atomic writes, for run directories, agents and configs.
#pragma once
#include <filesystem>
#include <string>

namespace ef {

// Writes `bytes` to FILE.tmp, then renames it over `file`: a crash leaves the old file or the
// new one, never half of either. Throws ef::Error naming the file.
void write_atomically(const std::filesystem::path& file, const std::string& bytes);
// The whole file; throws ef::Error naming it when it cannot be read.
std::string read_file(const std::filesystem::path& file);

}  // namespace ef
