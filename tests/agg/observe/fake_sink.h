// A CollectorSink that records every call, for the collectors' tests.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "aggregator/observe/collector.h"

namespace agt::agg::testing {

class FakeSink final : public CollectorSink {
 public:
  std::vector<Topology> topologies;
  std::vector<core::Event> events;
  std::map<std::string, PaneOwner> owner;  // "target/pane" -> who else reads it (default: nobody)
  std::map<std::string, core::Signal> hook;  // "target/pane" -> the hooks' opinion
  std::vector<detect::KeptScreen> kept;
  /// Both kinds of report in the order they came: "topology", or the
  /// event's type.
  std::vector<std::string> calls;

  void OnTopology(const Topology& t) override {
    topologies.push_back(t);
    calls.push_back("topology");
  }
  void OnEvent(core::Event e) override {
    calls.push_back(e.event_type);
    events.push_back(std::move(e));
  }
  PaneOwner OwnerOf(const std::string& target_id, const std::string& pane_id) const override {
    auto it = owner.find(target_id + "/" + pane_id);
    return it == owner.end() ? PaneOwner::kNone : it->second;
  }

  std::optional<core::Signal> HookOpinion(const std::string& target_id,
                                          const std::string& pane_id) const override {
    auto it = hook.find(target_id + "/" + pane_id);
    if (it == hook.end()) return std::nullopt;
    return it->second;
  }
  void KeepScreen(detect::KeptScreen s) override { kept.push_back(std::move(s)); }

  std::vector<core::Event> OfType(std::string_view type) const {
    std::vector<core::Event> r;
    for (const auto& e : events)
      if (e.event_type == type) r.push_back(e);
    return r;
  }
};

}  // namespace agt::agg::testing
