// The CPU backend (cpu_backend.cpp): the reference implementation of backends/backend.hpp.
#pragma once
#include <memory>
#include "evalforge/backends/backend.hpp"

namespace ef {

// `threads` worker threads (0 = all hardware threads).
std::unique_ptr<Backend> make_cpu_backend(int threads);

}  // namespace ef
