// Game and position files: logbook (.gam, and gzip streams as .gam.gz), transcripts, WTHOR
// (.wtb; the JOU/TRN name files beside it), obf, PGN, GGF. The first input byte picks the kind
// (new kinds go at the end, so that the seeds' first bytes keep their meaning).
#include "evalforge/data/games.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace ef;
  static const char* const kNames[] = {"f.gam", "f.gam.gz", "f.txt", "f.wtb", "f.obf", "WTHOR.JOU", "f.pgn", "f.ggf"};
  const int kind = fuzz::pick(data, size, 8);
  const auto file = fuzz::write_file(kNames[kind], fuzz::rest(data, size));
  data::ReadOptions options;
  options.use_cache = false;
  options.accept_read_errors = (size & 1) != 0;
  fuzz::expect_clean([&] {
    if (kind == 4)
      data::read_obf(file, nullptr, false);
    else if (kind == 5)
      data::load_games({fuzz::write_file("f.wtb", "")}, options);  // names read beside it
    else
      data::load_games({file}, options);
  });
  return 0;
}
