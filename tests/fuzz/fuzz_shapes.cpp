// Shape files, JSON and TOML (the first input byte picks which).
#include "evalforge/games/othello/shape.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace ef;
  const auto file = fuzz::write_file(fuzz::pick(data, size, 2) ? "s.toml" : "s.json", fuzz::rest(data, size));
  fuzz::expect_clean([&] {
    for (const auto& s : ntuple::load_shapes(file.string())) (void)s.geometry();
  });
  return 0;
}
