// Fuzzes the ref grammar: ParseRef must never crash, and every ref it
// accepts must survive FormatRef -> ParseRef unchanged. The percent codec
// must round-trip whatever it decodes.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "libagtcore/ref.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  agt::core::Result<agt::core::Ref> ref = agt::core::ParseRef(text);
  if (ref.ok()) {
    agt::core::Result<agt::core::Ref> again = agt::core::ParseRef(agt::core::FormatRef(*ref));
    if (!again.ok() || !(*again == *ref)) std::abort();
  }
  agt::core::Result<std::string> dec = agt::core::PercentDecode(text);
  if (dec.ok()) {
    agt::core::Result<std::string> back =
        agt::core::PercentDecode(agt::core::PercentEncode(*dec));
    if (!back.ok() || *back != *dec) std::abort();
  }
  (void)agt::core::ParseTargetSession(text);
  return 0;
}
