// evalforge: one binary, CLI11 subcommands. User errors (ef::Error) print one clear line
// and exit with status 2; CLI parse errors go through CLI11's own exit path.
#include <fmt/core.h>
#include <exception>
#include <string>
#include <string_view>
#include "app/commands.hpp"
#include "app/options.hpp"
#include "evalforge/core/error.hpp"
#include "evalforge/core/run_dir.hpp"
#include "evalforge/data/datasets.hpp"

int main(int argc, char** argv) {
  CLI::App app{"evalforge: GPU-accelerated fitness evaluation for evolving board-game evaluators"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "evalforge 0.1.0");
  // CLI11's own errors (a bad value of an option) as ours are shown: a 120 kB argument is not
  // echoed whole, a control byte in it not sent to the terminal raw.
  app.failure_message([](const CLI::App* a, const CLI::Error& e) {
    return ef::displayable_message(CLI::FailureMessage::simple(a, e));
  });
  ef::app::register_perft(app);
  ef::app::register_data(app);
  ef::app::register_data_generate(app);
  ef::app::register_data_fetch(app);
  ef::app::register_score(app);
  ef::app::register_search(app);
  ef::app::register_report(app);
  ef::app::register_solve(app);
  ef::app::register_verify(app);
  ef::app::register_gtp(app);
  ef::app::register_probcut(app);
  ef::app::register_ordering(app);
  ef::app::register_league(app);
  ef::app::register_match(app);
  ef::app::register_tournament(app);
  ef::app::register_evolve(app);
  ef::app::register_tictactoe(app);
  ef::app::register_hex(app);
  ef::app::refuse_negative_seeds(app);  // every command's --seed, registered above
  // "fetching ..." when a command resolves a data-set name (data/datasets.hpp) goes to stderr.
  ef::data::set_fetch_notes([](const std::string& line) { fmt::print(stderr, "{}\n", line); });
  // Ctrl-C during such a fetch (once the command installed its stop handler) ends it, resumably.
  ef::data::set_fetch_stop([] { return ef::stop_requested(); });
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const ef::app::ExitStatus& e) {
    return e.code;
  } catch (const ef::Error& e) {
    fmt::print(stderr, "evalforge: error: {}\n", ef::displayable_message(ef::app::describe_error(e)));
    return 2;
  } catch (const std::exception& e) {
    fmt::print(stderr, "evalforge: internal error: {}\n", ef::displayable_message(e.what()));
    return 3;
  }
  return 0;
}
