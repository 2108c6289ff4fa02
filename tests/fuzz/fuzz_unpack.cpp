// What a download goes through before its checksum: unpacking as served (gzip, zip or plain,
// recognised by the first bytes) into a file, streamed, under a cap on the unpacked size. The
// input is the downloaded file's bytes; the cap is small (1 MB), so a gzip or zip bomb among
// the inputs must stop at it with an ef::Error, in bounded memory and time.
#include "evalforge/data/download.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace ef;
  const auto download = fuzz::write_file("download.part", std::string_view(reinterpret_cast<const char*>(data), size));
  fuzz::expect_clean([&] { data::unpack_download(download, fuzz::work_dir() / "unpacked", "games.txt", 1'000'000); });
  return 0;
}
