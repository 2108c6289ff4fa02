#include "app/commands.hpp"
namespace ef::app {
void register_data(CLI::App& app) { app.add_subcommand("data", "Inspect and generate game records (placeholder)"); }
}  // namespace ef::app
