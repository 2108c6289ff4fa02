// The Hex subcommands that talk GTP to external engines (none yet).
#include "app/commands.hpp"

namespace ef::app {

void register_hex_external(CLI::App&) {}

}  // namespace ef::app
