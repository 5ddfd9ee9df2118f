// Fuzzes ssh targets and known_hosts text: ParseSshTarget gives options or
// an error; a target it accepts never begins with '-' and holds no shell
// or option character; @revoked lines and ssh client configs (with Host
// patterns, for an alias and for a host the text names) are read without a
// crash.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "aggregator/targets/known_hosts.h"
#include "aggregator/targets/ssh_config.h"
#include "aggregator/targets/ssh_target.h"
#include "aggregator/targets/known_hosts.h"
#include "aggregator/targets/ssh_config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto t = agt::agg::ParseSshTarget(text);
  if (t.ok()) {
    if (text.empty() || text.front() == '-' || t->host.empty() || t->host.front() == '-') std::abort();
    if (text.find_first_of(" \t\n;|&$`'\"\\*?<>()!{}~#=,/") != std::string_view::npos) std::abort();
  }
  (void)agt::agg::RevokedKeys(text);
  auto no_include = [](const std::string& path) -> agt::core::Result<std::string> {
    return agt::core::MakeError(agt::core::Err::kNotFound, path);
  };
  for (std::string_view host : {std::string_view("vm"), text.substr(0, 16)}) {
    agt::agg::SshHostConfig cfg;
    // Include names a path under a directory that does not exist.
    (void)agt::agg::ParseSshConfig(text, "fuzz", host, "/nonexistent-agtmux-fuzz", no_include, cfg);
    (void)agt::agg::SshHostMatches(text, host);
  }
  return 0;
}
