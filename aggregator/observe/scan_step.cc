// A read of a target's panes applied in the order the collectors rely on
// (see scan_step.h): identify, runtimes, the poller's panes, the
// collector's hook, activity marks, then publish if anything changed.
#include "aggregator/observe/scan_step.h"

namespace agt::agg {

ScanStep::ScanStep(std::string target_id, std::string socket_path, std::string instance,
                   PollerOptions poller, AnalyzerFactory analyzers, CollectorSink& sink)
    : sink_(sink),
      scanner_(target_id, socket_path),
      runtimes_(target_id, instance),
      poller_(target_id, instance, poller, std::move(analyzers), sink) {
  topology_.target_id = std::move(target_id);
  topology_.socket_path = std::move(socket_path);
}

void ScanStep::Apply(const std::vector<PaneRecord>& records, const core::FileReader& files, TimeNs now,
                     const Hooks& hooks) {
  PaneScanner::Result scan = scanner_.Scan(records, files);
  Send(runtimes_.Update(scan.topology, scan.wrapped, scan.started, now));
  poller_.SetPanes(scan.polled, now);
  const std::set<std::string> heard = hooks.heard ? hooks.heard(scan) : std::set<std::string>();
  scanner_.MarkActivity(scan.topology, poller_, now, heard);
  Publish(std::move(scan.topology), hooks);
}

void ScanStep::ApplyServerDown(TimeNs now, const Hooks& hooks) {
  scanner_.Reset();
  Topology down;
  down.target_id = topology_.target_id;
  down.socket_path = topology_.socket_path;
  Send(runtimes_.Update(down, {}, {}, now));
  poller_.SetPanes({}, now);
  Publish(std::move(down), hooks);
}

void ScanStep::Publish(Topology topology, const Hooks& hooks) {
  if (hooks.before_publish) hooks.before_publish();
  if (published_ && topology == topology_) return;
  topology_ = std::move(topology);
  published_ = true;
  sink_.OnTopology(topology_);
}

void ScanStep::Send(std::vector<core::Event> events) {
  for (auto& e : events) sink_.OnEvent(std::move(e));
}

}  // namespace agt::agg
