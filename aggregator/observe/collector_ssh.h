// The collector for an ssh target: the same topology, runtimes and CAP
// polling as a local target, read over one persistent libssh2 session.
//
// A scan is one round trip on a libuv pool thread (the executor blocks),
// made of at most three remote commands: `tmux list-panes -a -F ...`, one
// shell script that prints the /proc files agent identification reads
// (base64-framed, so the local identification code runs unchanged on the
// snapshot), and one script that captures every pane the poller has due.
// Results are applied on the loop thread. At most one scan is in flight; a
// slow or dead host delays only its own target.
//
// When scans happen: with `control` set, an SshControlFeed follows the
// remote tmux through one control-mode client per session (on a second ssh
// session of its own), and every notification starts a scan (coalesced: one
// more after the one in flight); panes that had %output are marked changed,
// so the scan captures them (or a scan at the poller's deadline, when the
// pane was captured too recently), and panes heard whole are spared the
// window-activity marks. The timer then only backs the feed up
// (safety_interval, 10 s). While the feed is down (no server or session, a
// channel refused, a client killed), or a remote session waits for its
// client (the feed attaches new sessions only once the remote settles), the
// timer scans every scan_interval (2 s); a feed that is down retries every
// second.
//
// Scans feed the target's HealthTracker (spec §9: degraded on a failure,
// down after 3 within 30 s, ok after 2 good scans): a failed scan
// (connection refused, timeout, host key or auth refused) keeps the last
// topology, and the executor retries on the next scan.
#pragma once

#include <uv.h>

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "aggregator/observe/collector.h"
#include "aggregator/observe/collector_health.h"
#include "aggregator/observe/poller.h"
#include "aggregator/observe/scan_step.h"
#include "aggregator/observe/ssh_control_feed.h"
#include "aggregator/targets/ssh_executor.h"
#include "aggregator/targets/ssh_target.h"
#include "aggregator/targets/target_executor.h"
#include "libagtcore/base/clock.h"
#include "libagtcore/base/result.h"

namespace agt::agg {

/// The script that prints, framed as `==<path>` then the file's bytes in
/// base64 on one line, /proc/stat and for each pid: its stat and comm, and
/// its terminal's foreground process group leader's stat, comm and cmdline.
std::string ProcSnapshotScript(const std::vector<int64_t>& pids);
/// Its output as path -> file content (missing files are simply absent).
/// E_PAYLOAD_INVALID when a frame is not valid base64.
core::Result<std::map<std::string, std::string>> ParseProcSnapshot(std::string_view out);

/// The script that captures `panes` (`capture-pane -p`) with `tmux` (the
/// remote tmux argv), each after a line `==agtmux-capture-<nonce> <pane>
/// <status>`. The nonce is fresh per scan, so no pane's text can forge a
/// frame.
std::string CaptureScript(const std::vector<std::string>& tmux, const std::vector<std::string>& panes,
                          const std::string& nonce);
/// pane id -> captured text; panes whose capture failed are absent.
std::map<std::string, std::string> ParseCaptures(std::string_view out, const std::string& nonce);

struct SshCollectorOptions {
  std::string target_id;
  std::string socket_path;  // the remote tmux socket; empty = the remote user's default server
  TimeNs scan_interval = 2 * core::kNsPerSec;  // while no control feed is up
  /// Where to run the control-mode clients (the target's ssh options); unset:
  /// scans on the timer only.
  std::optional<SshOptions> control;
  TimeNs safety_interval = 10 * core::kNsPerSec;  // the timer while the feed is up
  TimeNs control_retry = 1 * core::kNsPerSec;     // the feed's retry after it went down
  PollerOptions poller;
};

class SshCollector {
 public:
  SshCollector(uv_loop_t* loop, SshCollectorOptions options, std::unique_ptr<TargetExecutor> executor,
               CollectorSink& sink, const core::Clock& clock, AnalyzerFactory analyzers);
  ~SshCollector();
  SshCollector(const SshCollector&) = delete;
  SshCollector& operator=(const SshCollector&) = delete;

  void Start();
  /// Stops the timer; a scan in flight finishes on its pool thread and is
  /// then dropped (the executor lives until it has).
  void Stop();

  const Topology& topology() const { return step_.topology(); }
  int64_t scans() const { return scans_; }
  /// Whether a scan still runs on the pool (also after Stop): its loop must
  /// run until it has finished before the loop is closed.
  bool scan_pending() const { return *works_ > 0; }
  /// Scans finished that a control notification started (or the poller's
  /// deadline for a pane it marked, while the feed is up).
  int64_t notified_scans() const { return notified_scans_; }
  /// Whether the control feed follows the remote tmux now.
  bool feed_up() const { return feed_up_; }

 private:
  struct Scan;
  void StartScan(bool notified);
  void Finish(Scan& scan);
  void OnFeed(FeedReport report);
  void SetTimer(TimeNs first, TimeNs every);
  std::vector<std::string> TmuxArgv() const;
  std::set<std::string> HeardPanes(const Topology& topology);

  uv_loop_t* loop_;
  SshCollectorOptions options_;
  std::shared_ptr<TargetExecutor> executor_;  // shared with a scan in flight
  CollectorSink& sink_;
  const core::Clock& clock_;
  std::string instance_;
  ScanStep step_;
  HealthTracker health_;
  uv_timer_t* timer_ = nullptr;
  uv_timer_t* due_ = nullptr;  // while the feed is up: the poller's next deadline
  Scan* in_flight_ = nullptr;
  std::shared_ptr<int> works_ = std::make_shared<int>(0);  // scans queued, not yet completed
  int64_t scans_ = 0;
  int64_t health_seq_ = 0;
  int64_t notified_scans_ = 0;
  std::unique_ptr<SshControlFeed> feed_;
  bool feed_up_ = false;
  bool feed_whole_ = false;  // up, and every remote session has its client
  bool pending_ = false;                     // a notification came during a scan
  std::map<std::string, int64_t> connected_;  // session -> the feed's connection number
  std::map<std::string, int64_t> heard_;      // connected_ at the previous scan
};

}  // namespace agt::agg
