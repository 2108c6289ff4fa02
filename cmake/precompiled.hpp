// The precompiled header of the big targets (library, binary, tests, Python module; EF_PCH,
// CMakeLists.txt): the standard and outside headers that most files include, parsed once a target
// instead of once a file. What a file uses it still includes itself: a build with -DEF_PCH=OFF
// and the layering.public_headers_alone test (each public header compiled alone) keep that true.
// Only stable outside headers belong here; a project header would rebuild every file it changes.
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <span>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#if defined(__x86_64__) && !defined(__CUDACC__)
#include <immintrin.h>  // the bitboards' and hd.hpp's intrinsics: a fifth of a file's parsing
#endif
