// One tmux server's list-panes records turned into what the collectors
// report: the topology with each pane's agent identified (through a /proc
// view: this machine's, or a snapshot read over ssh), the panes run by
// `agtmux wrap`, the agents' start times, and the panes the CAP poller
// watches. Shared by the local and the ssh collectors; keeps what it needs
// between scans (the last identification per pane, the boot id, window
// activity).
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "aggregator/observe/collector.h"
#include "aggregator/observe/poller.h"
#include "aggregator/observe/tmux_format.h"
#include "libagtcore/os/file_reader.h"

namespace agt::agg {

class PaneScanner {
 public:
  PaneScanner(std::string target_id, std::string socket_path);

  struct Result {
    Topology topology;                   // server_running, boot id, panes with agents
    std::set<std::string> wrapped;       // pane ids run by `agtmux wrap`
    std::map<int64_t, TimeNs> started;   // agent pid -> process start time
    std::vector<PolledPane> polled;      // unwrapped agent panes for the CAP poller
  };
  /// Identifies each record's agent; cheap when a pane's pid, foreground
  /// process and command are unchanged since the last scan.
  Result Scan(const std::vector<PaneRecord>& records, const core::FileReader& files);

  /// Marks for capture the watched panes whose window activity advanced
  /// (one-second grain: also when it is not older than the last capture),
  /// except the panes in `heard`, whose every change already comes as
  /// %output (the grain would capture them again and again in that second).
  void MarkActivity(const Topology& topology, Poller& poller, TimeNs now,
                    const std::set<std::string>& heard = {});

  /// The server is gone: forget what was learned about it.
  void Reset();

 private:
  std::string BootId(int64_t server_pid, const core::FileReader& files);

  struct Identified {
    int64_t pane_pid = 0;
    std::string current_command;
    int64_t fg_pid = 0;
    std::string agent_type;
    bool wrapped = false;
    TimeNs started_at = 0;
  };
  std::string target_id_;
  std::string socket_path_;
  int64_t boot_pid_ = 0;
  std::string boot_id_;
  std::map<std::string, Identified> identified_;  // pane_id -> last identification
  std::map<std::string, int64_t> activity_;       // pane_id -> window activity second
};

}  // namespace agt::agg
