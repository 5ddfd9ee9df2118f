// Successive topologies -> runtime_observed / runtime_ended (see
// collector_runtimes.h). The events carry no runtime_id: the engine binds
// them by target+pane and assigns pane_epoch itself.
#include "aggregator/observe/collector_runtimes.h"

#include "libagtcore/ids.h"

namespace agt::agg {

RuntimeTracker::RuntimeTracker(std::string target_id, std::string instance)
    : target_id_(std::move(target_id)), instance_(std::move(instance)) {}

core::Event RuntimeTracker::Make(std::string_view type, const std::string& pane_id,
                                 const Tracked& t, TimeNs now) {
  core::Event e;
  e.event_id = core::NewUlid(now);
  e.event_type = std::string(type);
  e.source = core::Source::kPoller;
  e.source_event_id = "observer:" + instance_ + ":" + std::to_string(++seq_);
  e.dedupe_key = core::DeriveDedupeKey(core::Source::kPoller, *e.source_event_id,
                                       t.boot_id + "/" + pane_id + "/" +
                                           std::to_string(t.agent_pid),
                                       type);
  e.event_time = now;
  e.target_id = target_id_;
  e.pane_id = pane_id;
  if (t.agent_pid > 0) e.pid = t.agent_pid;
  if (t.started_at > 0) e.start_hint = t.started_at;
  core::RuntimeInfo info;
  info.agent_type = t.agent_type;
  info.agent_version = t.agent_version;
  info.boot_id = t.boot_id;
  info.tmux_socket = socket_path_;
  info.started_at = t.started_at;
  e.runtime = info;
  return e;
}

std::vector<core::Event> RuntimeTracker::Update(const Topology& topology,
                                                const std::set<std::string>& wrapped,
                                                const std::map<int64_t, TimeNs>& started_at,
                                                TimeNs now) {
  std::vector<core::Event> out;
  socket_path_ = topology.socket_path;
  std::map<std::string, const PaneInfo*> seen;
  if (topology.server_running)
    for (const auto& p : topology.panes) seen[p.pane_id] = &p;

  // Ended first, so a replaced runtime's end precedes its successor's start.
  std::vector<std::pair<std::string, Tracked>> fresh;
  for (auto it = tracked_.begin(); it != tracked_.end();) {
    auto s = seen.find(it->first);
    const PaneInfo* p = s == seen.end() ? nullptr : s->second;
    bool same = p && !p->dead && !wrapped.count(p->pane_id) && p->agent_type == it->second.agent_type &&
                p->agent_pid == it->second.agent_pid && p->pid == it->second.pane_pid &&
                topology.boot_id == it->second.boot_id;
    if (same) {
      ++it;
      continue;
    }
    out.push_back(Make(core::event_type::kRuntimeEnded, it->first, it->second, now));
    it = tracked_.erase(it);
  }
  for (const auto& [pane_id, p] : seen) {
    if (p->dead || p->agent_type.empty() || wrapped.count(pane_id) || tracked_.count(pane_id))
      continue;
    Tracked t;
    t.agent_type = p->agent_type;
    t.agent_pid = p->agent_pid;
    t.pane_pid = p->pid;
    t.boot_id = topology.boot_id;
    auto st = started_at.find(p->agent_pid);
    t.started_at = st == started_at.end() ? 0 : st->second;
    if (version_of_ && t.agent_pid > 0) t.agent_version = version_of_(t.agent_pid);
    out.push_back(Make(core::event_type::kRuntimeObserved, pane_id, t, now));
    tracked_[pane_id] = t;
  }
  return out;
}

}  // namespace agt::agg
