// The library's version string (one place, used by --version and run directories).
#include "evalforge/core/version.hpp"

namespace ef {
const char* version() { return "0.1.0"; }
}  // namespace ef
