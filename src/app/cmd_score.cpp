#include "app/commands.hpp"
namespace ef::app {
void register_score(CLI::App& app) { app.add_subcommand("score", "placeholder"); }
}  // namespace ef::app
