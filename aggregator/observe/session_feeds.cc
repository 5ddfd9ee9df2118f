// The feeds of one tmux server (see session_feeds.h): which sessions need
// one, and a read-only control client per such session whose %output lines
// become change marks.
#include "aggregator/observe/session_feeds.h"

namespace agt::agg {

std::set<std::string> FeedSessions(const Topology& topology, const std::vector<PolledPane>& watched,
                                   const std::string& main_session) {
  std::set<std::string> ids;
  for (const auto& w : watched) ids.insert(w.pane_id);
  std::map<std::string, std::set<std::string>> shown_in;  // pane id -> session ids
  for (const auto& p : topology.panes)
    if (ids.count(p.pane_id)) shown_in[p.pane_id].insert(p.session_id);
  std::set<std::string> sessions;
  for (const auto& [pane, in] : shown_in)
    if (!in.count(main_session)) sessions.insert(*in.begin());
  return sessions;
}

SessionFeeds::SessionFeeds(uv_loop_t* loop, ControlClientOptions base, OutputFn on_output)
    : loop_(loop), base_(std::move(base)), on_output_(std::move(on_output)) {
  base_.read_only = true;
  base_.watch_socket = false;
}

SessionFeeds::~SessionFeeds() { Stop(); }

void SessionFeeds::Update(const std::set<std::string>& sessions) {
  for (auto it = feeds_.begin(); it != feeds_.end();) {
    if (sessions.count(it->first)) {
      ++it;
      continue;
    }
    spawns_gone_ += it->second->spawns();
    it->second->Stop();
    it = feeds_.erase(it);
  }
  for (const auto& id : sessions) {
    if (feeds_.count(id)) continue;
    ControlClientOptions o = base_;
    o.session = id;
    TmuxControlClient::Callbacks cb;
    // Only pane output matters; the main client reads everything else.
    cb.on_notification = [this, id](const ControlNotification& n) {
      if (!n.pane_id.empty()) on_output_(id, n);
    };
    auto client = std::make_unique<TmuxControlClient>(loop_, std::move(o), std::move(cb));
    client->Start();
    feeds_.emplace(id, std::move(client));
  }
}

std::map<std::string, int64_t> SessionFeeds::Connected() const {
  std::map<std::string, int64_t> r;
  for (const auto& [id, client] : feeds_)
    if (client->connected()) r[id] = client->spawns();
  return r;
}

int64_t SessionFeeds::spawns() const {
  int64_t n = spawns_gone_;
  for (const auto& [id, client] : feeds_) n += client->spawns();
  return n;
}

bool SessionFeeds::Send(const std::string& session_id, const std::string& command) {
  auto it = feeds_.find(session_id);
  if (it == feeds_.end() || !it->second->connected()) return false;
  return it->second->Send(command, [](const ControlReply&) {});
}


bool SessionFeeds::SendPair(const std::string& session_id, const std::string& command,
                            TmuxControlClient::PairFn done) {
  auto it = feeds_.find(session_id);
  if (it == feeds_.end() || !it->second->connected()) return false;
  return it->second->SendPair(command, std::move(done));
}

}  // namespace agt::agg
