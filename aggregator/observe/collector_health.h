// Target health (spec §9): ok -> degraded on the first failure; degraded ->
// down after 3 failures within 30 s; back to ok only after 2 successful
// probes in a row plus a successful topology read. A pure state machine over
// injected time, so the transitions are tested with a fake clock; the
// caller turns each transition into a target_health_changed event
// (MakeHealthEvent) and sends it through the sink.
#pragma once

#include <deque>
#include <optional>
#include <string>

#include "libagtcore/event.h"
#include "libagtcore/vocabulary.h"

namespace agt::agg {

/// The one target health (libagtcore/vocabulary.h), named for this file's use.
using Health = core::TargetHealth;

struct HealthOptions {
  int down_failures = 3;
  core::TimeNs down_window = 30 * core::kNsPerSec;
  int recover_probes = 2;
};

class HealthTracker {
 public:
  explicit HealthTracker(HealthOptions options = {}) : options_(options) {}
  /// Each returns the new health when this call changed it.
  std::optional<Health> Failure(core::TimeNs now);
  std::optional<Health> ProbeOk(core::TimeNs now);
  std::optional<Health> TopologyOk(core::TimeNs now);
  Health health() const { return health_; }

 private:
  std::optional<Health> MaybeRecover();

  HealthOptions options_;
  Health health_ = Health::kOk;
  std::deque<core::TimeNs> failures_;  // within down_window
  int probes_ok_ = 0;                  // consecutive, since the last failure
  bool topology_ok_ = false;           // since the last failure
};

/// A target_health_changed event (source poller) for `target_id`;
/// `seq` numbers the transitions of this collector run (dedupe).
core::Event MakeHealthEvent(const std::string& target_id, Health h, const std::string& instance,
                            int64_t seq, core::TimeNs now, const std::string& reason);

}  // namespace agt::agg
