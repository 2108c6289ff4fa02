// Agent files: the TOML and, for n-tuple agents, the gzip-compressed .efnet beside it. The input
// is the TOML, a 0xFF byte, then the network file's bytes (either may be empty). The TOML is also
// read as a Tic-Tac-Toe agent file (games/tictactoe/agent_file.hpp).
#include <algorithm>
#include "evalforge/games/othello/agent_file.hpp"
#include "evalforge/games/tictactoe/agent_file.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace ef;
  const std::string_view all(reinterpret_cast<const char*>(data), size);
  const std::size_t cut = std::min(all.find('\xff'), all.size());
  const auto toml = fuzz::write_file("agent.toml", all.substr(0, cut));
  fuzz::write_file("agent.efnet", cut < all.size() ? all.substr(cut + 1) : std::string_view());
  fuzz::expect_clean([&] { (void)play::load_agent(toml.string()); });
  fuzz::expect_clean([&] { (void)play::load_tictactoe_agent(toml.string()); });
  return 0;
}
