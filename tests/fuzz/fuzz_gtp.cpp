// GTP engines (Othello and Hex): every input line goes to handle_line, as from a controller.
// The first input byte picks the engine; players are random movers so that a genmove is quick.
#include <memory>
#include <string>
#include "fuzz_support.hpp"
#include "games/hex/gtp_engine.hpp"
#include "games/othello/gtp_engine.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace ef;
  const bool hex = fuzz::pick(data, size, 2) == 1;
  play::OthelloAgent agent;
  agent.kind = play::OthelloEvaluator::kRandom;
  std::unique_ptr<play::GtpEngine> othello;
  std::unique_ptr<play::HexGtpEngine> hex_engine;
  if (hex)
    hex_engine = std::make_unique<play::HexGtpEngine>(play::parse_hex_player("random"), 5);
  else
    othello = std::make_unique<play::GtpEngine>(agent, 1, 10);
  const std::string_view in = fuzz::rest(data, size);
  bool quit = false;
  for (std::size_t begin = 0; begin <= in.size() && !quit;) {
    std::size_t end = in.find('\n', begin);
    if (end == std::string_view::npos) end = in.size();
    const std::string line(in.substr(begin, end - begin));
    fuzz::expect_clean([&] { (void)(hex ? hex_engine->handle_line(line, quit) : othello->handle_line(line, quit)); });
    begin = end + 1;
  }
  return 0;
}
