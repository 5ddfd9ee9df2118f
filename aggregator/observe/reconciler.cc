// The reconciler's three periodic checks (see reconciler.h).
#include "aggregator/observe/reconciler.h"

#include <errno.h>
#include <signal.h>

#include "libagtcore/ids.h"

namespace agt::agg {
namespace {

bool KillZero(int64_t pid) {
  if (pid <= 0) return false;
  return kill(pid_t(pid), 0) == 0 || errno == EPERM;
}

core::Event Synthetic(std::string_view type, const std::string& source_event_id,
                      const std::string& payload, TimeNs now) {
  core::Event e;
  e.event_id = core::NewUlid(now);
  e.event_type = std::string(type);
  e.source = core::Source::kPoller;
  e.source_event_id = source_event_id;
  e.dedupe_key = core::DeriveDedupeKey(core::Source::kPoller, source_event_id, payload, type);
  e.event_time = now;
  return e;
}

}  // namespace

Reconciler::Reconciler(std::string instance, ReconcilerDeps deps, CollectorSink& sink,
                       HealthOptions health)
    : instance_(std::move(instance)), deps_(std::move(deps)), sink_(sink), health_options_(health) {
  if (!deps_.pid_alive) deps_.pid_alive = KillZero;
}

void Reconciler::AddTarget(TargetProbe probe) {
  std::string id = probe.target_id;
  targets_.insert_or_assign(id, Target{std::move(probe), HealthTracker(health_options_)});
}

void Reconciler::RemoveTarget(const std::string& target_id) { targets_.erase(target_id); }

Health Reconciler::health(const std::string& target_id) const {
  auto it = targets_.find(target_id);
  return it == targets_.end() ? Health::kOk : it->second.tracker.health();
}

void Reconciler::Tick(TimeNs now) {
  CheckWrappers(now);
  CheckHealth(now);
  CheckDemotions(now);
}

void Reconciler::Emit(const std::string& target_id, std::optional<Health> changed, TimeNs now,
                      const std::string& reason) {
  if (!changed) return;
  sink_.OnEvent(MakeHealthEvent(target_id, *changed, instance_, ++seq_, now, reason));
}

void Reconciler::ReportFailure(const std::string& target_id, TimeNs now, const std::string& reason) {
  auto it = targets_.find(target_id);
  if (it == targets_.end()) return;
  Emit(target_id, it->second.tracker.Failure(now), now, reason);
}

void Reconciler::CheckWrappers(TimeNs now) {
  if (!deps_.wrapped_runtimes) return;
  std::set<std::string> active;
  for (const WrappedRuntime& w : deps_.wrapped_runtimes()) {
    active.insert(w.runtime_id);
    if (w.wrapper_pid <= 0 || deps_.pid_alive(w.wrapper_pid)) continue;
    if (!reported_stale_.insert(w.runtime_id).second) continue;
    const std::string id = "reconciler:wrapper-gone:" + w.runtime_id;
    for (std::string_view type : {core::event_type::kStaleDetected, core::event_type::kRuntimeEnded}) {
      core::Event e = Synthetic(type, id, std::to_string(w.wrapper_pid), now);
      e.runtime_id = w.runtime_id;
      e.target_id = w.target_id;
      e.pane_id = w.pane_id;
      e.pid = w.wrapper_pid;
      e.raw_payload = "wrapper pid " + std::to_string(w.wrapper_pid) + " is gone";
      sink_.OnEvent(std::move(e));
    }
  }
  // Forget runtimes the engine no longer lists (they ended).
  for (auto it = reported_stale_.begin(); it != reported_stale_.end();)
    it = active.count(*it) ? std::next(it) : reported_stale_.erase(it);
}

void Reconciler::CheckHealth(TimeNs now) {
  for (auto& [id, t] : targets_) {
    core::Status s = t.probe.probe ? t.probe.probe() : core::Ok();
    if (!s.ok()) {
      Emit(id, t.tracker.Failure(now), now, s.error().ToString());
      continue;
    }
    Emit(id, t.tracker.ProbeOk(now), now, "probe ok");
    if (t.tracker.health() != Health::kOk && t.probe.read_topology) {
      core::Status topo = t.probe.read_topology();
      if (topo.ok()) Emit(id, t.tracker.TopologyOk(now), now, "probe and topology ok");
      else Emit(id, t.tracker.Failure(now), now, topo.error().ToString());
    }
  }
}

void Reconciler::CheckDemotions(TimeNs now) {
  if (!deps_.due_demotions) return;
  std::set<std::pair<std::string, int64_t>> due;
  for (const Demotion& d : deps_.due_demotions(now)) {
    due.emplace(d.runtime_id, d.state_version);
    if (demoted_.count({d.runtime_id, d.state_version})) continue;  // sent, not yet applied
    demoted_.emplace(d.runtime_id, d.state_version);
    const std::string id = "reconciler:demotion:" + d.runtime_id + ":" + std::to_string(d.state_version);
    core::Event e = Synthetic(core::event_type::kDemotionDue, id, "", now);
    e.runtime_id = d.runtime_id;
    e.target_id = d.target_id;
    e.pane_id = d.pane_id;
    e.source_seq = d.state_version;
    sink_.OnEvent(std::move(e));
  }
  // Keep only what is still due, so a pane demoted, promoted and due again
  // under a new version is sent again.
  for (auto it = demoted_.begin(); it != demoted_.end();)
    it = due.count(*it) ? std::next(it) : demoted_.erase(it);
}

}  // namespace agt::agg
