// The collector for a local target: keeps one tmux server's topology current
// through a control-mode client, tracks observed runtimes, and drives the CAP
// poller for unwrapped agent panes. Everything it learns leaves through the
// CollectorSink (topology, runtime_observed/ended, poller state_changed).
//
// Topology is read with ONE `list-panes -a -F` command, sent through the
// control client (no fork), when the client connects, shortly after each
// structural notification (%window-add, %unlinked-window-close,
// %layout-change, %session-changed, ...), and on a slow scan timer (1 s) that
// also catches pane_current_command changes and window activity in sessions
// other than the attached one (tmux sends %output only for the control
// client's own session). A pane is marked for capture on %output or when its
// window's activity second may be newer than its last capture. The %output
// of agent panes in other sessions comes from one read-only feed client per
// such session (session_feeds.h), so the scan is only the fallback. The
// %output bytes themselves feed each such pane's byte screen (poller.h), seeded
// and checked by captures sent through the same connection as the bytes.
#pragma once

#include <uv.h>

#include <map>
#include <memory>
#include <set>
#include <string>

#include "aggregator/observe/collector.h"
#include "aggregator/observe/loop_timer.h"
#include "aggregator/observe/poller.h"
#include "aggregator/observe/scan_step.h"
#include "aggregator/observe/session_feeds.h"
#include "aggregator/observe/tmux_control_client.h"
#include "libagtcore/base/clock.h"
#include "libagtcore/os/file_reader.h"
#include "libagtcore/base/result.h"

namespace agt::agg {

struct LocalCollectorOptions {
  std::string target_id = "host";
  std::string socket_path;          // the server to observe (ResolveHostSocket for host)
  std::string tmux_bin = "tmux";
  TimeNs scan_interval = 1 * core::kNsPerSec;
  TimeNs refresh_debounce = 20 * core::kNsPerMs;
  /// How long a lost control client may take to come back before the
  /// server is reported as not running (avoids churn when only the attached
  /// session died).
  TimeNs down_grace = 1500 * core::kNsPerMs;
  /// The control client's socket probe and attach retry (ControlClientOptions).
  TimeNs probe_interval = 500 * core::kNsPerMs;
  TimeNs reconnect_min = 250 * core::kNsPerMs;
  PollerOptions poller;
  /// Flow control for the main client and the feeds (ControlClientOptions::
  /// pause_after_s): a pane whose output waited this long for us is paused
  /// by tmux, continued at once and its byte screen seeded again.
  int pause_after_s = 2;
  /// Unwrapped agent panes read from their %output bytes (docs/observe.md,
  /// "Byte screens"); false keeps the capture-only poller (the benchmark's
  /// baseline). Sets poller.byte_screens.
  bool byte_screens = true;
};

class LocalCollector {
 public:
  LocalCollector(uv_loop_t* loop, LocalCollectorOptions options, CollectorSink& sink,
                 const core::Clock& clock, const core::FileReader& files,
                 AnalyzerFactory analyzers);
  ~LocalCollector();
  LocalCollector(const LocalCollector&) = delete;
  LocalCollector& operator=(const LocalCollector&) = delete;

  void Start();
  void Stop();

  /// The last topology sent to the sink.
  const Topology& topology() const { return step_.topology(); }
  /// Sets the tmux user options @agtmux_state and @agtmux_source on a pane
  /// (for pane-border-format); false when not connected.
  bool SetPaneOptions(const std::string& pane_id, core::State state, core::Source source);
  /// Re-reads the topology now (coalesced with one in flight).
  void Refresh();
  /// ok while the control client is connected or the server is simply not
  /// running; E_TARGET_UNREACHABLE when tmux cannot be started at all.
  core::Status Probe() const;

  const Poller& poller() const { return step_.poller(); }
  const TmuxControlClient& control() const { return *control_; }
  /// The feed clients of the sessions the main client does not see.
  const SessionFeeds& feeds() const { return feeds_; }
  int64_t topology_reads() const { return topology_reads_; }
  /// Change marks that came from %output for a watched pane, through the
  /// main client or a feed (the activity scan's marks are not counted).
  int64_t output_marks() const { return output_marks_; }
  /// %pause notifications: panes tmux paused because we fell behind.
  int64_t pauses() const { return pauses_; }

 private:
  void OnConnected();
  void OnNotification(const ControlNotification& n);
  /// %output for a pane, from the main client (its session) or a feed.
  void OnOutput(const std::string& session_id, const ControlNotification& n);
  /// Sends a pane's seed capture through the connection its bytes come by.
  bool SendSeed(const std::string& pane_id);
  void OnDisconnected();
  void OnListPanes(const ControlReply& reply);
  void SchedulePoll();
  void RunPoll();
  void ScheduleRefresh();
  void PublishDownUnlessConnected();
  /// The watched panes whose %output has reached us without a break since
  /// the previous topology read (so the activity scan need not mark them).
  /// Also chooses, for each such pane, the one session whose connection's
  /// bytes feed its byte screen (byte_source_).
  std::set<std::string> HeardPanes(const Topology& topology);

  uv_loop_t* loop_;
  LocalCollectorOptions options_;
  const core::Clock& clock_;
  const core::FileReader& files_;
  std::string instance_;
  std::unique_ptr<TmuxControlClient> control_;
  std::string main_session_;  // the main client's session id, from %session-changed
  /// Sessions whose %output reached us at the last topology read: session id
  /// -> the connection (the main client's is negative).
  std::map<std::string, int64_t> heard_;
  /// Pane id -> the session whose connection's %output feeds its byte
  /// screen: a window linked into several sessions is heard more than once.
  std::map<std::string, std::string> byte_source_;
  ScanStep step_;
  SessionFeeds feeds_;

  LoopTimer scan_timer_;
  LoopTimer poll_timer_;
  LoopTimer debounce_timer_;
  LoopTimer grace_timer_;
  bool refresh_in_flight_ = false;
  bool refresh_again_ = false;
  int64_t topology_reads_ = 0;
  int64_t output_marks_ = 0;
  int64_t pauses_ = 0;
};

}  // namespace agt::agg
