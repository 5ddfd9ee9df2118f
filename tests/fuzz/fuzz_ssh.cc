// Fuzzes ssh targets and known_hosts text: ParseSshTarget gives options or
// an error; a target it accepts never begins with '-' and holds no shell
// or option character; @revoked lines are read without a crash.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "aggregator/observe/collector_ssh.h"
#include "aggregator/targets/known_hosts.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto t = agt::agg::ParseSshTarget(text);
  if (t.ok()) {
    if (text.empty() || text.front() == '-' || t->host.empty() || t->host.front() == '-') std::abort();
    if (text.find_first_of(" \t\n;|&$`'\"\\*?<>()!{}~#=,/") != std::string_view::npos) std::abort();
  }
  (void)agt::agg::RevokedKeys(text);
  return 0;
}
