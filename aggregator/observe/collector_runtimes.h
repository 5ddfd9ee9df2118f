// Runtime tracking for observed (unwrapped) agent panes: turns successive
// topologies into runtime_observed / runtime_ended events (spec §5). A pane
// gets a new runtime when an agent appears in it, when the agent's pid
// changes, when the pane is re-created under the same id (its first process
// changed) and when the tmux server's boot id changes. Wrapped panes are
// skipped: the wrapper announces its own runtime.
#pragma once

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "aggregator/observe/collector.h"
#include "libagtcore/event.h"

namespace agt::agg {

class RuntimeTracker {
 public:
  /// `instance` distinguishes this collector run in dedupe keys (a ULID
  /// made at start-up), so two daemon runs never share a key.
  RuntimeTracker(std::string target_id, std::string instance);

  /// Feeds one topology; `wrapped` holds the pane ids run by `agtmux wrap`;
  /// `started_at` gives each agent_pid's process start time (0 = unknown).
  std::vector<core::Event> Update(const Topology& topology, const std::set<std::string>& wrapped,
                                  const std::map<int64_t, TimeNs>& started_at, TimeNs now);

  /// How to find an agent process's version (core::AgentVersionFromProcess
  /// for a local server; none for a remote one): asked once per new
  /// runtime, its answer goes into runtime_observed's runtime.agent_version.
  void set_version_finder(std::function<std::string(int64_t pid)> f) { version_of_ = std::move(f); }

  struct Tracked {
    std::string agent_type;
    std::string agent_version;
    int64_t agent_pid = 0;
    int64_t pane_pid = 0;
    std::string boot_id;
    TimeNs started_at = 0;
    int64_t generation = 0;  // counts runtimes observed in this pane
  };
  const std::map<std::string, Tracked>& tracked() const { return tracked_; }

 private:
  core::Event Make(std::string_view type, const std::string& pane_id, const Tracked& t,
                   TimeNs now);

  std::string target_id_;
  std::string instance_;
  std::string socket_path_;
  std::map<std::string, Tracked> tracked_;  // pane_id -> the active runtime
  std::function<std::string(int64_t)> version_of_;
  int64_t seq_ = 0;
};

}  // namespace agt::agg
