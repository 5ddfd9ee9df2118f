// Fuzzes the wrapper's stream scanner (titles, OSC notifications, progress,
// bells) on raw terminal bytes, fed in two reads split anywhere.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "libagtcore/screen/stream_scanner.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  agt::screen::StreamScanner s;
  const size_t cut = size == 0 ? 0 : data[0] % (size + 1);
  s.Feed(bytes.substr(0, cut), 1);
  s.Feed(bytes.substr(cut), 2);
  (void)s.recent_output();
  return 0;
}
