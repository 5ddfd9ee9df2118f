// Change marks for agent panes outside the main control client's session.
// tmux sends %output to a control client only for the panes of its own
// session, so the collector keeps one more control client, a "feed", per
// session that holds a watched (unwrapped agent) pane the main client cannot
// see: `attach-session -E -t $N -f ignore-size,read-only` (a TmuxControlClient,
// so by tmux's client protocol, no process). A feed sends
// no command that changes anything; it turns `%output %<pane> ...` into the
// pane's bytes, and runs the seed captures of its panes' byte screens.
// It is started when such a session appears, stopped when the session goes
// or holds no watched pane any more, and re-attached with backoff when its
// attach ends (the control client's own retry). docs/observe.md, "Feeds".
#pragma once

#include <uv.h>

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "aggregator/observe/collector.h"
#include "aggregator/observe/poller.h"
#include "aggregator/observe/tmux_control_client.h"

namespace agt::agg {

/// The sessions that need a feed: for each watched pane that no window of
/// `main_session` shows, the first session (by id) that shows it. A window
/// linked into several sessions is listed once per session by list-panes.
std::set<std::string> FeedSessions(const Topology& topology, const std::vector<PolledPane>& watched,
                                   const std::string& main_session);

class SessionFeeds {
 public:
  /// A pane's %output (or %extended-output) notification, with the session
  /// of the feed it came through.
  using OutputFn = std::function<void(const std::string& session_id, const ControlNotification& n)>;
  /// `base` gives the tmux binary, socket and retry pacing; each feed
  /// attaches read-only to its own session and does not watch the socket.
  SessionFeeds(uv_loop_t* loop, ControlClientOptions base, OutputFn on_output);
  ~SessionFeeds();
  SessionFeeds(const SessionFeeds&) = delete;
  SessionFeeds& operator=(const SessionFeeds&) = delete;

  /// Starts a feed for each new session id, stops those not listed.
  void Update(const std::set<std::string>& sessions);
  /// Stops every feed (daemon shutdown, server gone).
  void Stop() { Update({}); }

  /// True while a feed is kept for the session (attached or retrying).
  bool Running(const std::string& session_id) const { return feeds_.count(session_id) != 0; }
  size_t size() const { return feeds_.size(); }
  /// The attached feeds: session id -> which attach (its attempt count),
  /// so that a caller can tell one connection from the next.
  std::map<std::string, int64_t> Connected() const;
  /// Feed attach attempts so far.
  int64_t spawns() const;
  /// Sends a two-command line through the session's feed (a read-only
  /// client may read: display-message, capture-pane), so that its reply
  /// comes in order with that feed's %output. False when no feed is attached.
  bool SendPair(const std::string& session_id, const std::string& command,
                TmuxControlClient::PairFn done);
  /// Sends one command through the session's feed, its reply ignored
  /// (`refresh-client -A '%N:continue'`). False when no feed is attached.
  bool Send(const std::string& session_id, const std::string& command);

 private:
  uv_loop_t* loop_;
  ControlClientOptions base_;
  OutputFn on_output_;
  std::map<std::string, std::unique_ptr<TmuxControlClient>> feeds_;  // session id -> client
  int64_t spawns_gone_ = 0;  // spawns of feeds already stopped
};

}  // namespace agt::agg
