// [daemon] to state::EngineOptions (see daemon_config.h). One field each;
// the units already match (nanoseconds), the defaults are config.h's.
#include "aggregator/daemon/daemon_config.h"

namespace agt::agg {

state::EngineOptions EngineOptionsFor(const core::DaemonConfig& config) {
  state::EngineOptions o;
  o.completed_to_idle = config.completed_to_idle;
  o.skew_budget = config.skew_budget;
  o.bind_window = config.bind_window;
  o.pending_bind_ttl = config.pending_bind_ttl;
  o.signal_ttl = config.signal_ttl;
  return o;
}

}  // namespace agt::agg
