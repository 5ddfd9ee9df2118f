// What config.toml's [daemon] table means to agtmuxd's state engine
// (docs/config.md): completed_to_idle, skew_budget, bind_window,
// pending_bind_ttl and signal_ttl become state::EngineOptions. Retention
// and log_level are applied where the daemon starts its timers and logger.
#pragma once

#include "libagtcore/config.h"
#include "state/engine.h"

namespace agt::agg {

/// The engine's options for a loaded [daemon] table.
state::EngineOptions EngineOptionsFor(const core::DaemonConfig& config);

}  // namespace agt::agg
