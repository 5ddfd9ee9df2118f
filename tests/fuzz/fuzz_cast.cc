// Fuzzes the asciicast reader (`agtmux wrap --replay`, the lab's corpus):
// any file gives a recording or an error naming the line.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "wrap/asciicast.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto cast = agt::wrap::ParseCast(text);
  if (!cast.ok() && cast.error().message.empty()) std::abort();
  int cols = 0, rows = 0;
  (void)agt::wrap::ParseCastSize(text, &cols, &rows);
  return 0;
}
