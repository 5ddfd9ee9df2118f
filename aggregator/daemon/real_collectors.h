// The real CollectorFactory: a collector per target (local tmux servers
// through a control-mode client, ssh targets over libssh2, both with the
// CAP poller). Kept apart from the daemon so tests can run the daemon
// without tmux.
#pragma once

#include "aggregator/daemon/lifecycle.h"
#include "libagtcore/config.h"

namespace agt::agg {

/// `poller` is config.toml's [poller] section, applied to every target.
CollectorFactory RealCollectors(const core::PollerConfig& poller);
/// The same, keeping federated targets' mirrors under `state_dir`/federation.
CollectorFactory RealCollectors(const core::PollerConfig& poller, std::string state_dir);

}  // namespace agt::agg
