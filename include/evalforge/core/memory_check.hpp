// Memory estimates before a run allocates: a config can ask for more than any machine holds
// (the loaders accept every value a run could use: 60 islands of 10^6 individuals with 4,096
// keys each is 2 TB of keys). A run adds up what it is about to allocate, from the config,
// and refuses with the estimate (and what it is made of) instead of ending in bad_alloc, an
// OOM kill, or hours of swapping.
//
// The limit is this machine's physical memory, or EF_MEMORY_LIMIT_MB when it is set (shared
// machines, containers with a cgroup limit the kernel does not report as physical memory,
// tests). The estimates are of the big parts only (what grows with config values), so a run
// near the limit may still use somewhat more; the check is there for orders of magnitude.
#pragma once
#include <string>
#include <string_view>
#include <vector>
#include "evalforge/core/hd.hpp"

namespace ef {

struct MemoryPart {
  std::string what;  // "keys (8 islands x 100 x 1,104 x 8 B)"
  double bytes = 0;  // a double: products of config values can pass 2^64
};

// EF_MEMORY_LIMIT_MB (a positive integer) when set, else the physical memory of this machine.
// A bad EF_MEMORY_LIMIT_MB is an ef::Error naming it.
double memory_limit_bytes();

// "512 B", "3.4 MB", "1.97 TB": decimal units, three significant digits.
std::string format_bytes(double bytes);

double total_bytes(const std::vector<MemoryPart>& parts);

// `count` items of `bytes_each`: the part "<what> (<count> x <bytes_each>)". The usual part:
// what grows with a user's number (games, positions, threads) times a fixed size.
MemoryPart items_memory(std::string_view what, double count, double bytes_each);

// Fails (ef::Error) when the parts add up to more than `limit` bytes: "<who>: needs about
// 1.97 TB of memory (keys ...: 1.97 TB; ...), more than the 25.3 GB <limit_name>; <advice>".
// Parts are listed largest first. Returns the line a run logs: "memory estimate: 1.2 GB
// (limit 25.3 GB)".
std::string check_memory(std::string_view who, const std::vector<MemoryPart>& parts, double limit,
                         std::string_view limit_name, std::string_view advice);
// The same with memory_limit_bytes() ("of this machine" or "of EF_MEMORY_LIMIT_MB").
std::string check_memory(std::string_view who, const std::vector<MemoryPart>& parts, std::string_view advice);

}  // namespace ef
