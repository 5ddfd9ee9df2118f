// The real CollectorFactory: a collector per target (local tmux servers
// through a control-mode client, ssh targets over libssh2, both with the
// CAP poller). Kept apart from the daemon so tests can run the daemon
// without tmux.
#pragma once

#include "aggregator/daemon/daemon.h"

namespace agt::agg {

CollectorFactory RealCollectors();

}  // namespace agt::agg
