// Control-mode clients on a remote tmux, over ssh: the ssh collector's
// notifications (docs/observe.md, "The ssh collector").
//
// A thread owns its own SshExecutor (its own libssh2 session: a session is
// not shared between threads, and the collector's scans run on the libuv
// pool). It lists the remote sessions and runs one `tmux -C attach-session
// -r -t <session>` per session on an exec channel of that session, since
// tmux sends %output only for the panes of the client's own session. The
// notifications are parsed with ControlParser and handed to the loop
// through a uv_async, as FeedReports: which sessions are followed (and by
// which connection), which are listed but not followed yet, which panes had
// %output, and whether anything else changed.
//
// Attaches are rare and never come in bursts, because tmux 3.3a crashes
// when a session is created, renamed or closed while a control client is
// half identified (docs/observe.md, "tmux 3.3a and control clients"), and
// over ssh the client is the remote's own `tmux -C`. %sessions-changed, or a
// client that ends (%exit, EOF) because its session was closed, makes the
// thread list the sessions again: clients of the sessions that remain are
// kept, those of sessions gone are dropped, and new sessions wait until no
// notification that tmux sends to every control client (those that reach a
// half-identified one) has come for `settle` and for twice the remote's
// recent rhythm (StirRhythm), or, on a server that never settles, until the
// oldest has waited `settle_max` (then one at a time).
// With no client yet, one session is attached at once (nothing can be
// heard without one). A failed read, no server left, or a client that
// ended while its session is still there (killed) drops them all; the
// thread then reports the feed down and tries again after `retry`.
#pragma once

#include <uv.h>

#include <atomic>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "aggregator/targets/ssh_executor.h"
#include "libagtcore/base/clock.h"

namespace agt::agg {

struct FeedReport {
  /// True while clients follow the sessions of a running server (all but
  /// `waiting`); false when none could attach (no server, no session, ssh
  /// down).
  bool up = false;
  /// session id -> the connection's number, new for every attach: a pane
  /// was heard whole between two reads only if its session's number did
  /// not change in between.
  std::map<std::string, int64_t> sessions;
  /// Sessions listed but not followed yet (waiting for the server to
  /// settle): their panes' output is not heard.
  std::set<std::string> waiting;
  std::set<std::string> output;  // panes with %output since the last report
  bool changed = false;          // a structural notification, or up/down
  std::string why;               // why the feed is down
};

struct SshControlFeedOptions {
  std::vector<std::string> tmux;  // the remote tmux argv prefix ("tmux", "-u", "-S", ...)
  core::TimeNs retry = 1 * core::kNsPerSec;
  core::TimeNs timeout = 10 * core::kNsPerSec;  // to open a channel
  /// A new session is attached once no notification that reaches every
  /// control client has come for this long...
  core::TimeNs settle = 400 * core::kNsPerMs;
  /// ...or, while the server never settles, once it has waited this long
  /// (one such attach per settle_max).
  core::TimeNs settle_max = 5 * core::kNsPerSec;
};

/// The rhythm of the remote's changes as the clients hear them. Attaching a
/// fixed `settle` after the last change lands right on the next one when
/// the remote changes periodically a little slower than that (a session
/// every 0.5 s against a 400 ms settle crashed tmux 3.3a in 1 of 10 runs of
/// ssh_churn_bench), so the quiet needed is also at least twice the longest
/// of the last few gaps between changes; gaps of `kPause` or more are
/// pauses, not a rhythm.
class StirRhythm {
 public:
  static constexpr core::TimeNs kCoalesce = 50 * core::kNsPerMs;  // one change's notifications
  static constexpr core::TimeNs kPause = 2 * core::kNsPerSec;
  static constexpr size_t kGaps = 4;

  void Stir(core::TimeNs now);
  core::TimeNs QuietNeeded(core::TimeNs settle) const;

 private:
  core::TimeNs last_ = 0;
  bool any_ = false;
  std::vector<core::TimeNs> gaps_;  // the last kGaps, oldest first
};

/// The remote command that attaches a read-only control client to
/// `session` (`tmux` is the argv prefix). It never starts a server: tmux's
/// attach-session would start one when the remote server has just exited,
/// and that server, holding our client, would outlive everything on the
/// user's machine. `-N` says so from tmux 3.2 on; an older tmux, which does
/// not know the flag, is asked whether its server answers first.
std::vector<std::string> AttachCommand(const std::vector<std::string>& tmux, const std::string& session);

/// The feed's attach policy, pure: which of the sessions `waiting` (session
/// -> when first listed) to attach at `now`, given the last moment anything
/// reached every control client or the feed attached or dropped one
/// (`stirred`). All of them once nothing has stirred for `quiet` (at least
/// `settle`: StirRhythm); else the oldest once it has waited `settle_max`,
/// at most one per settle_max; with no client yet (nothing can be heard),
/// the oldest at once, at most one per settle. `forced_at` is the last of
/// those single attaches, updated here.
std::vector<std::string> SessionsToAttach(const std::map<std::string, core::TimeNs>& waiting, bool have_clients,
                                          core::TimeNs now, core::TimeNs stirred, core::TimeNs quiet,
                                          core::TimeNs& forced_at, const SshControlFeedOptions& options);

class SshControlFeed {
 public:
  using Sink = std::function<void(FeedReport)>;
  SshControlFeed(uv_loop_t* loop, SshOptions ssh, SshControlFeedOptions options, Sink sink);
  ~SshControlFeed();  // stops and joins the thread
  SshControlFeed(const SshControlFeed&) = delete;
  SshControlFeed& operator=(const SshControlFeed&) = delete;

  void Start();
  /// Control clients started so far (every `attach-session` channel opened).
  int64_t attaches() const { return attaches_.load(); }

 private:
  void Run();
  /// Follows until a channel fails (true, `why` set) or Stop (false).
  bool Follow(SshExecutor& ex, std::string& why);
  void Post(FeedReport r);
  void Drain();
  bool Sleep(core::TimeNs ns);

  uv_loop_t* loop_;
  SshOptions ssh_;
  SshControlFeedOptions options_;
  Sink sink_;
  uv_async_t* async_ = nullptr;
  std::thread thread_;
  std::atomic<bool> stop_{false};
  mutable std::mutex mu_;
  std::condition_variable wake_;
  std::vector<FeedReport> queue_;
  int64_t next_connection_ = 0;
  std::atomic<int64_t> attaches_{0};
};

}  // namespace agt::agg
