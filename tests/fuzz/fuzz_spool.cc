// Fuzzes the spool's reader on a file's bytes: every line is an event or a
// bad line (never a crash), a torn tail is seen, and the lines kept account
// for every complete line.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "libagtcore/net/spool.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  agt::net::SpoolContents c = agt::net::ParseSpool(text);
  size_t lines = 0;
  for (size_t i = 0; i < size; ++i)
    if (data[i] == '\n' && (i == 0 || data[i - 1] != '\n')) ++lines;
  if (c.events.size() + c.bad.size() > lines) std::abort();
  if (c.torn_tail != (size > 0 && data[size - 1] != '\n')) std::abort();
  return 0;
}
