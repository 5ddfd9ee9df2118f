// A tmux control-mode client on the daemon's libuv loop: one long-lived
// client, attached with `attach-session -E -f ignore-size`, per observed
// server (and, with `session` and `read_only`, the feed clients of
// session_feeds.h). The daemon is the client itself: it speaks tmux's
// client protocol on the server's socket (tmux_imsg.h) and hands the server
// one end of a socketpair as the client's stdin and stdout, so commands go
// down that socket (no fork at all); replies come back in order and
// notifications (%output, %window-add, ...) are passed on. A server that
// does not speak tmux 3.3a's protocol is attached through a `tmux -S
// <socket> -C` process instead, as before (docs/observe.md, "tmux 3.3a and
// control clients": why the protocol, and not `tmux -C`).
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
#include <vector>

#include "aggregator/observe/tmux_control.h"
#include "libagtcore/vocabulary.h"

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
  /// How to attach: speaking tmux's client protocol (the default; a server
  /// that does not speak tmux 3.3a's is attached by a process anyway), or
  /// always through a `tmux -C` process (the old way: the benchmark and the
  /// crash test compare the two; the daemon never asks for it).
  enum class Attach { kProtocol, kProcess };
  Attach attach = Attach::kProtocol;
};

class TmuxControlClient {
 public:
  using ReplyFn = std::function<void(const ControlReply&)>;
  struct Callbacks {
    std::function<void()> on_connected;  // the first reply or notification arrived
    std::function<void(const ControlNotification&)> on_notification;
    std::function<void()> on_disconnected;  // the client ended (after on_connected)
  };

  TmuxControlClient(uv_loop_t* loop, ControlClientOptions options, Callbacks callbacks);
  ~TmuxControlClient();
  TmuxControlClient(const TmuxControlClient&) = delete;
  TmuxControlClient& operator=(const TmuxControlClient&) = delete;

  /// Starts the first attach attempt.
  void Start();
  /// Ends the attach (closes its sockets, or ends its process) and stops
  /// retrying.
  void Stop();
  bool connected() const;
  /// Sends one command line (no trailing newline). False when no attach is
  /// under way; otherwise `done` is called exactly once, with ok=false and
  /// text "disconnected" if the attach ends first.
  bool Send(const std::string& command, ReplyFn done);
  /// Sends one line of two commands ("a ; b"), which tmux answers with two
  /// blocks; `done` gets both, once (as Send: "disconnected" if the attach
  /// ends first).
  using PairFn = std::function<void(const ControlReply& first, const ControlReply& second)>;
  bool SendPair(const std::string& command, PairFn done);
  /// Attach attempts: connections by the protocol, or `tmux -C` processes
  /// for a server that needs them.
  int64_t spawns() const { return spawns_; }
  /// True when the server currently followed is attached through `tmux -C`
  /// (it answered with another protocol version, or the protocol attach
  /// failed otherwise than "no server").
  bool spawning() const { return spawn_server_ != 0 && spawn_server_ == young_pid_; }
  int64_t commands_sent() const { return commands_; }
  /// Socket probes that found no server (no attach was tried).
  int64_t probes() const { return probes_; }
  /// True while the socket's directory is watched.
  bool watching() const { return watch_ != nullptr; }

 private:
  struct Conn;
  /// Probes the socket and attaches (by the protocol, or by a process).
  void Spawn();
  void AttachByProtocol(int64_t server);
  void SpawnProcess();
  /// attach-session and its flags, as the server gets them either way.
  std::vector<std::string> AttachCommand() const;
  /// Attaches `server` through `tmux -C` from now on, and says why (once).
  void FallBack(int64_t server, const std::string& why);
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
  int64_t spawn_server_ = 0;  // the server pid attached through `tmux -C`; 0: none
  core::TimeNs backoff_ = 0;
  int64_t spawns_ = 0;
  int64_t commands_ = 0;
  int64_t probes_ = 0;
};

}  // namespace agt::agg
