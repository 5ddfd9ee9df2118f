// ParseSshTarget (ssh_target.h).
#include "aggregator/targets/ssh_target.h"

#include <string>

namespace agt::agg {

core::Result<SshOptions> ParseSshTarget(std::string_view text) {
  auto bad = [&](const std::string& why) {
    return core::MakeError(core::Err::kTargetInvalid, "ssh_target '" + std::string(text) + "': " + why);
  };
  // The target reaches ssh's argv in the command `agtmux attach` prints,
  // and a resolver: nothing in it may read as an option or a shell word.
  if (text.empty()) return bad("empty");
  if (text.front() == '-') return bad("it may not begin with '-' (it would be read as an ssh option)");
  for (char c : text) {
    const bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' ||
                    c == '_' || c == '-' || c == '@' || c == ':' || c == '[' || c == ']' || c == '%';
    if (!ok)
      return bad(std::string("the character '") + (static_cast<unsigned char>(c) < 0x20 ? '?' : c) +
                 "' is not allowed (only letters, digits, '.', '_', '-', user@, :port and [IPv6])");
  }
  SshOptions o;
  std::string_view rest = text;
  size_t at = rest.rfind('@');
  if (at != std::string_view::npos) {
    o.user = std::string(rest.substr(0, at));
    if (o.user.empty()) return bad("empty user before '@'");
    rest.remove_prefix(at + 1);
  }
  std::string_view port;
  bool has_port = false;
  if (!rest.empty() && rest.front() == '[') {
    size_t close = rest.find(']');
    if (close == std::string_view::npos) return bad("'[' without ']'");
    o.host = std::string(rest.substr(1, close - 1));
    std::string_view after = rest.substr(close + 1);
    if (!after.empty()) {
      if (after.front() != ':') return bad("expected ':' after ']'");
      port = after.substr(1);
      has_port = true;
    }
  } else {
    size_t colon = rest.find(':');
    o.host = std::string(rest.substr(0, colon));
    if (colon != std::string_view::npos) {
      port = rest.substr(colon + 1);
      has_port = true;
    }
  }
  if (o.host.empty()) return bad("no host");
  if (o.host.front() == '-') return bad("the host may not begin with '-'");
  if (!o.user.empty() && o.user.front() == '-') return bad("the user may not begin with '-'");
  if (o.user.find_first_of("@:[]%") != std::string::npos) return bad("the user has '@', ':', '[', ']' or '%'");
  if (o.host.find_first_of(" \t/") != std::string::npos) return bad("the host has a space or '/'");
  if (has_port) {
    if (port.empty() || port.size() > 5 || port.find_first_not_of("0123456789") != std::string_view::npos)
      return bad("the port must be a number from 1 to 65535");
    int p = std::atoi(std::string(port).c_str());
    if (p < 1 || p > 65535) return bad("the port must be a number from 1 to 65535");
    o.port = p;
  }
  return o;
}

}  // namespace agt::agg
