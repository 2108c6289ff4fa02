// The library's version string: one place, used by run directories (run.toml) and --version.
#pragma once

namespace ef {

const char* version();

}  // namespace ef
