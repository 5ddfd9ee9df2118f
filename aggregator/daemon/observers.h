// The real ObserverFactory: the observer's per-target collectors (local
// tmux servers through a control-mode client, with the CAP poller). Kept
// apart from the daemon so tests can run the daemon without tmux.
#pragma once

#include "aggregator/daemon/daemon.h"

namespace agt::agg {

ObserverFactory RealObservers();

}  // namespace agt::agg
