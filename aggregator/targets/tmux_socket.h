// Which tmux server a local target observes. The `host` target follows the
// rules tmux itself uses to find "the" server, so agtmux sees what the
// user's own `tmux` command would reach: the socket named in $TMUX when the
// daemon was started inside tmux, else $TMUX_TMPDIR (or /tmp) +
// "/tmux-<uid>/default". A target added with --tmux-socket uses that path.
#pragma once

#include <string>
#include <sys/types.h>

#include "libagtcore/os/paths.h"

namespace agt::agg {

/// The socket path of the user's default tmux server.
std::string ResolveHostSocket(const core::EnvFn& env, uid_t uid);

}  // namespace agt::agg
