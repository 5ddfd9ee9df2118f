// Fuzzes the event envelope codec: DecodeEvent, DecodeEventBatch and
// DecodeEvents (POST /v1/events) must never crash, and every event decoded
// must encode to JSON that decodes back to the same event.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "libagtcore/event_codec.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view json(reinterpret_cast<const char*>(data), size);
  agt::core::Result<agt::core::Event> e = agt::core::DecodeEvent(json);
  if (e.ok()) {
    agt::core::Result<agt::core::Event> again = agt::core::DecodeEvent(agt::core::EncodeEvent(*e));
    if (!again.ok() || !(*again == *e)) std::abort();
  }
  (void)agt::core::DecodeEventBatch(json);
  (void)agt::core::DecodeEvents(json);
  return 0;
}
