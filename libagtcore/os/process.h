// Whether a process still runs, the one test agtmux uses for it: the spool
// drain (is a spool file's producer gone?), the daemon's tick (is a
// wrapped agent gone? DaemonCore::EndDeadWrappers) and `agtmux daemon stop` (has agtmuxd exited?).
#pragma once

#include <cstdint>

namespace agt::core {

/// True while `pid` names a process on this machine that has not exited:
/// kill(pid, 0) succeeds or fails with EPERM (it runs as another user),
/// and /proc does not show it as a zombie (exited, not yet reaped). False
/// for pid <= 0.
bool ProcessAlive(int64_t pid);

}  // namespace agt::core
