// The target health state machine (see collector_health.h).
#include "aggregator/observe/collector_health.h"

#include "libagtcore/ids.h"

namespace agt::agg {

std::optional<Health> HealthTracker::Failure(core::TimeNs now) {
  probes_ok_ = 0;
  topology_ok_ = false;
  failures_.push_back(now);
  while (!failures_.empty() && failures_.front() <= now - options_.down_window)
    failures_.pop_front();
  Health next = health_;
  if (health_ == Health::kOk) next = Health::kDegraded;
  if (health_ != Health::kDown && int(failures_.size()) >= options_.down_failures)
    next = Health::kDown;
  if (next == health_) return std::nullopt;
  health_ = next;
  return health_;
}

std::optional<Health> HealthTracker::MaybeRecover() {
  if (health_ == Health::kOk || probes_ok_ < options_.recover_probes || !topology_ok_)
    return std::nullopt;
  health_ = Health::kOk;
  failures_.clear();
  return health_;
}

std::optional<Health> HealthTracker::ProbeOk(core::TimeNs) {
  ++probes_ok_;
  return MaybeRecover();
}

std::optional<Health> HealthTracker::TopologyOk(core::TimeNs) {
  topology_ok_ = true;
  return MaybeRecover();
}

core::Event MakeHealthEvent(const std::string& target_id, Health h, const std::string& instance,
                            int64_t seq, core::TimeNs now, const std::string& reason) {
  core::Event e;
  e.event_id = core::NewUlid(now);
  e.event_type = std::string(core::event_type::kTargetHealthChanged);
  e.source = core::Source::kPoller;
  e.source_event_id = "health:" + instance + ":" + target_id + ":" + std::to_string(seq);
  e.dedupe_key = core::DeriveDedupeKey(core::Source::kPoller, *e.source_event_id,
                                       std::string(core::TargetHealthName(h)), e.event_type);
  e.event_time = now;
  e.target_id = target_id;
  e.health = std::string(core::TargetHealthName(h));
  e.raw_payload = reason;
  return e;
}

}  // namespace agt::agg
