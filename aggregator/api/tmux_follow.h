// Following the user's tmux server (docs/observe.md, "Which server"): the
// CLI, run inside tmux, names the socket in its $TMUX; when no local target
// watches that server yet, the daemon adds one, named after the socket
// (`tmux -L work` -> target `work`), so the server the user works in is
// watched without a restart. This file decides; the API acts.
#pragma once

#include <string>

#include "aggregator/targets/target_registry.h"
#include "libagtcore/base/result.h"

namespace agt::agg {

struct FollowPlan {
  std::string watched_by;  // the local target that already watches the socket, or ""
  TargetSpec add;          // else the target to add
};

/// E_TARGET_INVALID when `socket` is not an absolute path to a Unix socket
/// owned by this user; else which target watches it or which to add.
/// Sockets compare as files (device and inode), so two spellings of one
/// path are one server.
core::Result<FollowPlan> PlanFollow(const TargetRegistry& targets, const std::string& socket);

}  // namespace agt::agg
