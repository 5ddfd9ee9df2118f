// RealObservers while the observer's collectors are not in the build:
// targets are registered and listed, but not observed (their panes appear
// only through wrapper and hook events).
#include "aggregator/observers.h"

namespace agt::agg {

ObserverFactory RealObservers() {
  return [](uv_loop_t*, const TargetSpec&, CollectorSink&) -> core::Result<std::unique_ptr<TargetObserver>> {
    return std::unique_ptr<TargetObserver>();
  };
}

}  // namespace agt::agg
