// The controller's side of GTP: an input is everything an external engine writes to its
// stdout, read in chunks (the first byte sets their size, 1..64 bytes, as pipes deliver them),
// while commands with ids 1, 2, ... wait for their answers through scan_gtp_response, exactly
// as GtpClient::send does; each answer goes through the parsers a match applies to a genmove
// answer (Othello vertex, Hex cell). Besides crashes and escaping exceptions, the target
// checks what the parser promises: an answer or a stale response is removed from the buffer,
// and an answer has no trailing blanks.
#include <cstdlib>
#include <string>
#include "fuzz_support.hpp"
#include "games/hex/gtp_engine.hpp"
#include "games/othello/gtp_engine.hpp"
#include "gtp/client.hpp"
#include "gtp/external_engine.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace ef::play;
  const std::size_t chunk = 1 + (size ? data[0] % 64 : 0);
  const std::string_view out = ef::fuzz::rest(data, size);
  std::size_t read = 0;
  std::string buffer;
  bool eof = false;
  for (unsigned long id = 1; id <= 64;) {
    const std::size_t before = buffer.size();
    GtpScan scan = scan_gtp_response(buffer, id, eof);
    switch (scan.kind) {
      case GtpScan::Kind::kResponse:
        if (buffer.size() >= before) std::abort();  // an answer is consumed
        if (!scan.text.empty() && (scan.text.back() == ' ' || scan.text.back() == '\n')) std::abort();
        ef::fuzz::expect_clean([&] {
          const std::string word = engine_move_word(scan.text);
          (void)parse_gtp_vertex(word);
          (void)parse_hex_gtp_cell(word, 11);
        });
        ++id;
        continue;
      case GtpScan::Kind::kStale:
        if (buffer.size() >= before) std::abort();
        continue;
      case GtpScan::Kind::kJunk: return 0;  // the client kills the engine
      case GtpScan::Kind::kNeedMore: break;
    }
    if (eof || buffer.size() > (std::size_t{1} << 20)) return 0;  // the engine died / sent too much
    if (read >= out.size()) {
      eof = true;
      continue;
    }
    const std::string_view piece = out.substr(read, chunk);
    read += piece.size();
    for (char c : piece)
      if (c != '\r') buffer += c;  // CRs dropped, as the client does
  }
  return 0;
}
