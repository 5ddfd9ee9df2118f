// A tmux control-mode client on the daemon's libuv loop: one long-lived
// `tmux -S <socket> -C attach-session -f ignore-size` process per observed
// server (and, with `session` and `read_only`, the feed clients of
// session_feeds.h). Commands go down its stdin (no fork per command); replies
// come back in order and notifications (%output, %window-add, ...) are passed on.
//
// Attaching rather than creating a session leaves no visible state beyond
// one more attached client (ignore-size keeps it out of window sizing).
// While nothing listens on the socket the client only probes it (connect(),
// no fork) every probe_interval: `tmux -C attach` would start a server.
// When an attach fails (a server without sessions) it retries with backoff
// (reconnect_min doubling to reconnect_max). So a server that starts later,
// or restarts, is picked up on its own. The socket's directory is also
// watched (inotify through uv_fs_event): when the socket appears, the
// client attaches at once and retries quickly (fresh_retry, doubling) while
// the new server has no session yet, so a restarted server is followed
// within milliseconds of its first pane rather than at the next probe.
// Connected means attached: tmux sent %session-changed (or answered a
// command).
#pragma once

#include <uv.h>

#include <deque>
#include <functional>
#include <memory>
#include <string>

#include "aggregator/observe/tmux_control.h"
#include "libagtcore/state.h"

namespace agt::agg {

struct ControlClientOptions {
  std::string tmux_bin = "tmux";
  std::string socket_path;  // -S; required
  /// The session to attach to (a session id, "$3"); empty: the one tmux
  /// picks (the most recently used unattached session).
  std::string session;
  /// Attach read-only (`-f read-only`): the client can run no command that
  /// changes anything, and a key it sent would reach no pane.
  bool read_only = false;
  /// Watch the socket's directory to follow a server that starts or
  /// restarts (only the main client of a server needs it).
  bool watch_socket = true;
  core::TimeNs reconnect_min = 250 * core::kNsPerMs;
  core::TimeNs reconnect_max = 5 * core::kNsPerSec;
  /// While nothing listens on the socket, how often to look (a connect()
  /// on the socket, no fork).
  core::TimeNs probe_interval = 500 * core::kNsPerMs;
  /// After the socket appeared: the first retry when the attach fails (the
  /// server may not have its first session yet), doubling up to reconnect_min.
  core::TimeNs fresh_retry = 10 * core::kNsPerMs;
  /// A server without a child process is attached only after it has been
  /// seen listening this long (see Spawn in the .cc: tmux 3.3a can crash
  /// when a control client attaches while it starts).
  core::TimeNs settle_new_server = 1 * core::kNsPerSec;
  /// Flow control: when > 0, the client asks tmux (`refresh-client -f
  /// pause-after=N`) to pause a pane's output to it, with `%pause %N`, once
  /// that output has waited N seconds; the owner continues it
  /// (`refresh-client -A '%N:continue'`). 0: tmux buffers, and detaches a
  /// client five minutes behind.
  int pause_after_s = 0;
};

class TmuxControlClient {
 public:
  using ReplyFn = std::function<void(const ControlReply&)>;
  struct Callbacks {
    std::function<void()> on_connected;  // the first reply or notification arrived
    std::function<void(const ControlNotification&)> on_notification;
    std::function<void()> on_disconnected;  // the process ended (after on_connected)
  };

  TmuxControlClient(uv_loop_t* loop, ControlClientOptions options, Callbacks callbacks);
  ~TmuxControlClient();
  TmuxControlClient(const TmuxControlClient&) = delete;
  TmuxControlClient& operator=(const TmuxControlClient&) = delete;

  /// Starts the first attach attempt.
  void Start();
  /// Ends the process and stops retrying.
  void Stop();
  bool connected() const;
  /// Sends one command line (no trailing newline). False when no process
  /// runs; otherwise `done` is called exactly once, with ok=false and text
  /// "disconnected" if the process ends first.
  bool Send(const std::string& command, ReplyFn done);
  /// Sends one line of two commands ("a ; b"), which tmux answers with two
  /// blocks; `done` gets both, once (as Send: "disconnected" if the process
  /// ends first).
  using PairFn = std::function<void(const ControlReply& first, const ControlReply& second)>;
  bool SendPair(const std::string& command, PairFn done);
  int64_t spawns() const { return spawns_; }
  int64_t commands_sent() const { return commands_; }
  /// Socket probes that found no server (no process was started).
  int64_t probes() const { return probes_; }
  /// True while the socket's directory is watched.
  bool watching() const { return watch_ != nullptr; }

 private:
  struct Conn;
  void Spawn();
  void ScheduleReconnect();
  /// Waits `wait`, then attaches again (if still wanted).
  void RetryIn(core::TimeNs wait);
  void WatchSocketDir();
  void OnSocketEvent(const char* filename);
  void OnData(Conn* c, std::string_view bytes);
  void OnExit(Conn* c);

  uv_loop_t* loop_;
  ControlClientOptions options_;
  Callbacks callbacks_;
  Conn* conn_ = nullptr;
  uv_timer_t* timer_ = nullptr;  // owned; freed in its close callback
  uv_fs_event_t* watch_ = nullptr;  // owned; freed in its close callback; null = not watching
  bool running_ = false;
  bool fresh_ = false;  // the socket appeared and no attach has succeeded since
  int64_t young_pid_ = 0;     // the last server pid seen listening
  uint64_t young_since_ = 0;  // when it was first seen (loop ms)
  core::TimeNs backoff_ = 0;
  int64_t spawns_ = 0;
  int64_t commands_ = 0;
  int64_t probes_ = 0;
};

}  // namespace agt::agg
