// Fuzzes the redactor with the built-in rules: any text is redacted without
// a crash and without a search failing closed (no rule runs out of its step
// budget), redaction is idempotent, and the capped form keeps its cap.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "libagtcore/event_redact.h"
#include "libagtcore/redact.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const agt::core::Redactor* r = [] {
    auto loaded = agt::core::Redactor::LoadBuiltin();
    if (!loaded.ok()) std::abort();
    return new agt::core::Redactor(std::move(*loaded));
  }();
  std::string_view text(reinterpret_cast<const char*>(data), size);
  agt::core::RedactStats stats;
  const std::string once = r->Redact(text, &stats);
  if (stats.over_budget != 0) std::abort();
  if (r->Redact(once) != once) std::abort();
  const std::string capped = agt::core::RedactCapped(*r, text, 256);
  if (size > 256 && capped.size() > 256 + 64) std::abort();
  return 0;
}
