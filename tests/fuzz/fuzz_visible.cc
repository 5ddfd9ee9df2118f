// Fuzzes core::VisibleText: whatever an agent prints, what comes out holds
// no control byte (but a kept newline), no C1 control, no bidi override, is
// well-formed UTF-8, and does not change when made visible again.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "libagtcore/base/utf8.h"
#include "libagtcore/base/visible_text.h"

namespace {

void Check(std::string_view in, bool keep_newlines) {
  agt::core::VisibleOptions o;
  o.keep_newlines = keep_newlines;
  const std::string out = agt::core::VisibleText(in, o);
  if (!agt::core::IsValidUtf8(out)) std::abort();
  size_t i = 0;
  while (i < out.size()) {
    const auto c = static_cast<unsigned char>(out[i]);
    if ((c < 0x20 && !(keep_newlines && c == '\n')) || c == 0x7F) std::abort();
    const char32_t cp = agt::core::NextCodePoint(out, &i);
    if ((cp >= 0x80 && cp <= 0x9F) || (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069))
      std::abort();
  }
  if (agt::core::VisibleText(out, o) != out) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  Check(text, false);
  Check(text, true);
  return 0;
}
