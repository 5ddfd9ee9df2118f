// The step every collector takes with a read of its target's panes: the
// list-panes records become the topology with each agent identified
// (PaneScanner, over the target's /proc view), runtime_observed /
// runtime_ended events (RuntimeTracker), the set of panes the CAP poller
// watches (Poller), capture marks for panes whose window activity advanced,
// and, when it changed, the topology published to the CollectorSink. A
// server that is not running ends every runtime and empties the poller.
//
// What differs between collectors stays with them: how the records and the
// /proc view are read (a local control client and this machine's /proc; one
// ssh round trip and a snapshot of the remote /proc), when a read happens (a
// control client's notifications and a slow timer; a 2 s timer today, and
// the same notifications once a control client runs over ssh), how captures
// run, and target health. The hooks let a collector add its part at the one
// place in the step where it belongs, so no collector repeats the step.
#pragma once

#include <functional>
#include <set>
#include <string>
#include <vector>

#include "aggregator/observe/collector.h"
#include "aggregator/observe/collector_runtimes.h"
#include "aggregator/observe/pane_scan.h"
#include "aggregator/observe/poller.h"
#include "aggregator/observe/tmux_format.h"
#include "libagtcore/os/file_reader.h"

namespace agt::agg {

class ScanStep {
 public:
  /// `instance` is the collector run's ULID (dedupe keys of its events).
  ScanStep(std::string target_id, std::string socket_path, std::string instance, PollerOptions poller,
           AnalyzerFactory analyzers, CollectorSink& sink);
  ScanStep(const ScanStep&) = delete;
  ScanStep& operator=(const ScanStep&) = delete;

  struct Hooks {
    /// Runs once the poller watches the scan's panes, before window activity
    /// marks them. Returns the panes whose every change already reaches the
    /// collector as %output, which the activity marks skip.
    std::function<std::set<std::string>(const PaneScanner::Result& scan)> heard;
    /// Runs after the activity marks (or, for a server that is not running,
    /// after the poller was emptied), just before the topology is
    /// published: the ssh collector hands its scan's captures to the poller.
    std::function<void()> before_publish;
  };

  /// One read of a running server's panes; `files` is the target's /proc.
  void Apply(const std::vector<PaneRecord>& records, const core::FileReader& files, TimeNs now,
             const Hooks& hooks = {});
  /// The server is not running (or no longer reachable as one): forgets
  /// what was learned about it, ends its runtimes, empties the poller, and
  /// publishes a topology without panes.
  void ApplyServerDown(TimeNs now, const Hooks& hooks = {});

  Poller& poller() { return poller_; }
  const Poller& poller() const { return poller_; }
  /// For the collector to set how an agent's version is found.
  RuntimeTracker& runtimes() { return runtimes_; }
  /// The last topology published (target id and socket path before the first).
  const Topology& topology() const { return topology_; }
  /// Whether any topology was published yet.
  bool published() const { return published_; }

 private:
  void Publish(Topology topology, const Hooks& hooks);
  void Send(std::vector<core::Event> events);

  CollectorSink& sink_;
  PaneScanner scanner_;
  RuntimeTracker runtimes_;
  Poller poller_;
  Topology topology_;
  bool published_ = false;
};

}  // namespace agt::agg
