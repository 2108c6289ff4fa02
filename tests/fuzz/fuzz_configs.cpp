// Run configs (TOML) of every run type: search, match, evolve (Elo GA and Tic-Tac-Toe),
// tournament, hex tune, hex match. The first input byte picks the type.
#include "evalforge/runs/evolve_config.hpp"
#include "evalforge/runs/shape_search_config.hpp"
#include "fuzz_support.hpp"
#include "runs/hex_match_run.hpp"
#include "runs/hex_tune_run.hpp"
#include "runs/match_experiment.hpp"
#include "runs/tournament.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace ef;
  const std::string file = fuzz::write_file("c.toml", fuzz::rest(data, size)).string();
  fuzz::expect_clean([&] {
    switch (fuzz::pick(data, size, 6)) {
      case 0: (void)ga::load_search_config(file); break;
      case 1: (void)play::load_match_config(file); break;
      case 2: (void)ga::load_evolve_config(file); break;
      case 3: (void)play::load_tournament_config(file); break;
      case 4: (void)ga::load_hex_tune_config(file); break;
      default: (void)play::load_hex_match_config(file); break;
    }
  });
  return 0;
}
