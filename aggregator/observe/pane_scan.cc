// Identification of the panes of one scan (see pane_scan.h).
#include "aggregator/observe/pane_scan.h"

#include "aggregator/observe/pane_agent.h"
#include "libagtcore/net/tmux_identity.h"

namespace agt::agg {

PaneScanner::PaneScanner(std::string target_id, std::string socket_path)
    : target_id_(std::move(target_id)), socket_path_(std::move(socket_path)) {}

std::string PaneScanner::BootId(int64_t server_pid, const core::FileReader& files) {
  if (server_pid != boot_pid_ || boot_id_.empty()) {
    auto id = net::TmuxServerBootId(server_pid, files);
    boot_pid_ = server_pid;
    // Without the server's /proc entry the pid alone still changes when it
    // restarts.
    boot_id_ = id ? *id : std::to_string(server_pid) + "-0";
  }
  return boot_id_;
}

PaneScanner::Result PaneScanner::Scan(const std::vector<PaneRecord>& records, const core::FileReader& files) {
  Result r;
  Topology& t = r.topology;
  t.target_id = target_id_;
  t.socket_path = socket_path_;
  t.server_running = true;
  std::map<std::string, Identified> identified;
  for (const PaneRecord& rec : records) {
    if (t.boot_id.empty()) t.boot_id = BootId(rec.server_pid, files);
    PaneInfo p = rec.info;
    p.target_id = target_id_;
    // Identify: a cheap tpgid read each scan; the full /proc read on change.
    Identified c;
    auto prev = identified_.find(p.pane_id);
    auto pg = ForegroundPgid(p.pid, files);
    const int64_t fg_pid = pg && *pg > 0 ? *pg : p.pid;
    if (prev != identified_.end() && prev->second.pane_pid == p.pid && prev->second.fg_pid == fg_pid &&
        prev->second.current_command == p.current_command) {
      c = prev->second;
    } else {
      c.pane_pid = p.pid;
      c.fg_pid = fg_pid;
      c.current_command = p.current_command;
      auto fg = ForegroundProcess(p.pid, files);
      PaneAgent id = IdentifyAgent(p.current_command, fg ? &*fg : nullptr, p.title);
      c.agent_type = id.agent_type;
      c.wrapped = id.wrapped;
      if (fg) {
        c.fg_pid = fg->pid;
        c.started_at = fg->started_at;
      }
    }
    identified[p.pane_id] = c;
    if (!c.agent_type.empty()) {
      p.agent_type = c.agent_type;
      p.agent_pid = c.fg_pid;
      r.started[c.fg_pid] = c.started_at;
    }
    if (c.wrapped) r.wrapped.insert(p.pane_id);
    if (!p.agent_type.empty() && !c.wrapped && !p.dead) {
      PolledPane pp;
      pp.pane_id = p.pane_id;
      pp.agent_type = p.agent_type;
      pp.agent_pid = p.agent_pid;
      pp.title = p.title;
      pp.rows = p.height;
      pp.cols = p.width;
      pp.cursor_row = rec.cursor_y;
      pp.cursor_col = rec.cursor_x;
      pp.alt_screen = rec.alternate_on;
      r.polled.push_back(std::move(pp));
    }
    t.panes.push_back(std::move(p));
  }
  identified_ = std::move(identified);
  return r;
}

void PaneScanner::MarkActivity(const Topology& topology, Poller& poller, TimeNs now,
                               const std::set<std::string>& heard) {
  std::map<std::string, int64_t> activity;
  for (const auto& p : topology.panes) {
    const int64_t sec = p.activity_at / core::kNsPerSec;
    activity[p.pane_id] = sec;
    auto it = activity_.find(p.pane_id);
    if (poller.Watching(p.pane_id) && !heard.count(p.pane_id) &&
        (it == activity_.end() || it->second != sec || poller.LastCapture(p.pane_id) < (sec + 1) * core::kNsPerSec))
      poller.MarkChanged(p.pane_id, now);
  }
  activity_ = std::move(activity);
}

void PaneScanner::Reset() {
  identified_.clear();
  activity_.clear();
  boot_id_.clear();
}

}  // namespace agt::agg
