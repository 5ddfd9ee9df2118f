// Fuzzes the rule files users may write: agent pattern sets, identify.toml
// and redaction rules. Any text gives rules or an error naming the file,
// never a crash or an escaped exception.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "libagtcore/detect/identify.h"
#include "libagtcore/detect/pattern_set.h"
#include "libagtcore/redact.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto set = agt::detect::ParsePatternSet(text, "fuzz.toml");
  if (!set.ok() && set.error().message.empty()) std::abort();
  (void)agt::detect::PatternSetName(text, "fuzz.toml");
  (void)agt::detect::ParseIdentifyRules(text, "identify.toml");
  auto red = agt::core::Redactor::Parse(text, "redaction.toml");
  if (!red.ok() && red.error().message.empty()) std::abort();
  return 0;
}
