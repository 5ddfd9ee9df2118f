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
// which connection), which panes had %output, and whether anything else
// changed. %sessions-changed, or a client that ends (%exit, EOF) because its
// session was closed, makes it list the sessions again and reattach. A
// failed read, no server left, or a client that ended while its session is
// still there (killed) drops them all; the thread then reports the feed
// down and tries again after `retry`.
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
#include "libagtcore/clock.h"

namespace agt::agg {

struct FeedReport {
  /// True while clients follow every session of a running server; false
  /// when none could attach (no server, no session, ssh down).
  bool up = false;
  /// session id -> the connection's number, new for every attach: a pane
  /// was heard whole between two reads only if its session's number did
  /// not change in between.
  std::map<std::string, int64_t> sessions;
  std::set<std::string> output;  // panes with %output since the last report
  bool changed = false;          // a structural notification, or up/down
  std::string why;               // why the feed is down
};

struct SshControlFeedOptions {
  std::vector<std::string> tmux;  // the remote tmux argv prefix ("tmux", "-u", "-S", ...)
  core::TimeNs retry = 1 * core::kNsPerSec;
  core::TimeNs timeout = 10 * core::kNsPerSec;  // to open a channel
};

class SshControlFeed {
 public:
  using Sink = std::function<void(FeedReport)>;
  SshControlFeed(uv_loop_t* loop, SshOptions ssh, SshControlFeedOptions options, Sink sink);
  ~SshControlFeed();  // stops and joins the thread
  SshControlFeed(const SshControlFeed&) = delete;
  SshControlFeed& operator=(const SshControlFeed&) = delete;

  void Start();

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
};

}  // namespace agt::agg
