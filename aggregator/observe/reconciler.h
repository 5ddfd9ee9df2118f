// The reconciler: periodic checks that turn what the daemon can only infer
// into synthetic events on the ordinary ingest path (spec §5: it never
// writes states itself):
//  (a) a wrapped runtime whose wrapper pid is gone without a wrapper_exited
//      -> stale_detected, then runtime_ended (once per runtime);
//  (b) each target's health, from its probe and topology read
//      -> target_health_changed on every transition (collector_health.h);
//  (c) completed panes due for demotion (the engine's DueDemotions)
//      -> demotion_due, carrying the guarded state_version in source_seq.
// The daemon core supplies the engine-side views as functions, so the
// reconciler never holds the engine.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "aggregator/observe/collector.h"
#include "aggregator/observe/collector_health.h"
#include "libagtcore/result.h"
#include "state/engine.h"

namespace agt::agg {

/// An active runtime announced by a wrapper (owner wrapper), with its pid.
struct WrappedRuntime {
  std::string runtime_id;
  std::string target_id;
  std::string pane_id;
  int64_t wrapper_pid = 0;
};

using Demotion = state::Engine::Demotion;

struct ReconcilerDeps {
  /// Active wrapper-owned runtimes on targets whose pids this machine can
  /// check (local targets).
  std::function<std::vector<WrappedRuntime>()> wrapped_runtimes;
  /// The engine's DueDemotions(now).
  std::function<std::vector<Demotion>(TimeNs)> due_demotions;
  /// Whether a pid is alive; defaults to kill(pid, 0) (EPERM counts as alive).
  std::function<bool(int64_t)> pid_alive;
};

/// How the reconciler checks one target's health.
struct TargetProbe {
  std::string target_id;
  std::function<core::Status()> probe;          // cheap liveness (e.g. tmux -V)
  std::function<core::Status()> read_topology;  // a topology read; needed to recover
};

class Reconciler {
 public:
  Reconciler(std::string instance, ReconcilerDeps deps, CollectorSink& sink,
             HealthOptions health = {});
  void AddTarget(TargetProbe probe);
  void RemoveTarget(const std::string& target_id);
  /// Runs the three checks once, at `now`.
  void Tick(TimeNs now);
  /// Feeds a failure or success seen elsewhere (e.g. a command that timed
  /// out on the target) into the target's health.
  void ReportFailure(const std::string& target_id, TimeNs now, const std::string& reason);
  Health health(const std::string& target_id) const;

 private:
  struct Target {
    TargetProbe probe;
    HealthTracker tracker;
  };
  void Emit(const std::string& target_id, std::optional<Health> changed, TimeNs now,
            const std::string& reason);
  void CheckWrappers(TimeNs now);
  void CheckHealth(TimeNs now);
  void CheckDemotions(TimeNs now);

  std::string instance_;
  ReconcilerDeps deps_;
  CollectorSink& sink_;
  HealthOptions health_options_;
  std::map<std::string, Target> targets_;
  std::set<std::string> reported_stale_;  // runtime ids already ended by us
  std::set<std::pair<std::string, int64_t>> demoted_;  // (runtime, version) sent
  int64_t seq_ = 0;
};

}  // namespace agt::agg
