// Fuzzes the config loader: any text must give a Config or an error (no
// exception escapes toml++, no crash), and an accepted config is complete.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "libagtcore/config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  agt::core::Result<agt::core::Config> c = agt::core::ParseConfig(text, "fuzz.toml");
  if (c.ok() && c->daemon.completed_to_idle <= 0) std::abort();
  if (!c.ok() && c.error().message.empty()) std::abort();
  return 0;
}
