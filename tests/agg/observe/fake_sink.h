// A CollectorSink that records every call, for the collectors' tests.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "aggregator/observe/collector.h"

namespace agt::agg::testing {

class FakeSink final : public CollectorSink {
 public:
  std::vector<Topology> topologies;
  std::vector<core::Event> events;
  std::set<std::string> owned;  // "target/pane" owned by a fresher source

  void OnTopology(const Topology& t) override { topologies.push_back(t); }
  void OnEvent(core::Event e) override { events.push_back(std::move(e)); }
  bool OwnedByFresherSource(const std::string& target_id,
                            const std::string& pane_id) const override {
    return owned.count(target_id + "/" + pane_id) != 0;
  }

  std::vector<core::Event> OfType(std::string_view type) const {
    std::vector<core::Event> r;
    for (const auto& e : events)
      if (e.event_type == type) r.push_back(e);
    return r;
  }
};

}  // namespace agt::agg::testing
