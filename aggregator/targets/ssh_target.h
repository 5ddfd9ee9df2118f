// An ssh target's text (`user@host:port`, as `agtmux target add --ssh-target`
// takes it) read into SshOptions, refusing anything that could reach ssh's
// argv as an option or a shell word. The registry validates targets with it;
// the collectors and actions connect with what it returns.
#pragma once

#include <string_view>

#include "aggregator/targets/ssh_executor.h"
#include "libagtcore/base/result.h"

namespace agt::agg {

/// "host", "user@host", "user@host:port" or "user@[v6addr]:port" as
/// SshOptions; `host` may be a ~/.ssh/config Host alias, and what the text
/// leaves out (user, port 0, keys, known_hosts) comes from that config at
/// connect time (ResolveSshOptions).
/// E_TARGET_INVALID naming the problem.
core::Result<SshOptions> ParseSshTarget(std::string_view text);

}  // namespace agt::agg
