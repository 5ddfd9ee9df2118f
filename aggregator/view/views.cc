// Builds the API's read model (see views.h): joins topology and engine state
// into pane rows, filters them with the view filters of docs/spec.md §11, rolls
// them up into windows and sessions, and renders items with their identity.
// Rendering is deterministic (sorted rows, fixed key order), so the watch hub
// can diff two renderings item by item.
#include "aggregator/view/views.h"

#include <algorithm>
#include <set>
#include <tuple>

#include "libagtcore/detect/pattern_analyzer.h"
#include "libagtcore/detect/verified.h"
#include "libagtcore/ref.h"

namespace agt::agg {

std::string_view ScopeName(Scope s) {
  switch (s) {
    case Scope::kPanes: return "panes";
    case Scope::kWindows: return "windows";
    case Scope::kSessions: return "sessions";
  }
  return "panes";
}

std::optional<Scope> ParseScope(std::string_view s) {
  if (s == "panes") return Scope::kPanes;
  if (s == "windows") return Scope::kWindows;
  if (s == "sessions") return Scope::kSessions;
  return std::nullopt;
}

namespace {

core::Result<bool> ParseBool(const std::map<std::string, std::string>& q, const char* key) {
  auto it = q.find(key);
  if (it == q.end()) return false;
  const std::string& v = it->second;
  if (v.empty() || v == "1" || v == "true") return true;
  if (v == "0" || v == "false") return false;
  return core::MakeError(core::Err::kRequestInvalid,
                         std::string("query parameter '") + key + "' must be true or false, not '" + v + "'");
}

core::Error BadParam(const char* key, const std::string& why) {
  return core::MakeError(core::Err::kRequestInvalid, std::string("query parameter '") + key + "': " + why);
}

}  // namespace

core::Result<ViewFilter> ParseViewFilter(const std::map<std::string, std::string>& q) {
  static const std::set<std::string> known = {
      "target", "all_targets", "target_session", "session", "state", "agent", "needs_action",
      "all", "with_agent_status", "agent_summary", "group_by", "scope", "cursor", "once",
      "interval"};
  for (const auto& [k, v] : q)
    if (!known.count(k)) return BadParam(k.c_str(), "unknown parameter");
  ViewFilter f;
  if (auto it = q.find("target"); it != q.end()) {
    std::string v = it->second;
    size_t start = 0;
    while (start <= v.size()) {
      size_t comma = v.find(',', start);
      std::string t = v.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
      if (!t.empty()) f.targets.push_back(t);
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
    if (f.targets.empty()) return BadParam("target", "empty");
  }
  auto all_targets = ParseBool(q, "all_targets");
  if (!all_targets) return all_targets.error();
  if (*all_targets && !f.targets.empty())
    return BadParam("all_targets", "cannot be combined with target");
  if (auto it = q.find("target_session"); it != q.end()) {
    auto ts = core::ParseTargetSession(it->second);
    if (!ts) return BadParam("target_session", ts.error().message);
    f.target_session = std::make_pair(ts->target, ts->session);
  }
  if (auto it = q.find("session"); it != q.end()) f.session = it->second;
  if (auto it = q.find("state"); it != q.end()) {
    f.state = core::ParseState(it->second);
    if (!f.state) return BadParam("state", core::UnknownStateMessage(it->second));
  }
  if (auto it = q.find("agent"); it != q.end()) f.agent = it->second;
  for (auto [key, out] : {std::pair{"needs_action", &f.needs_action}, std::pair{"all", &f.all_panes},
                          std::pair{"with_agent_status", &f.with_agent_status},
                          std::pair{"agent_summary", &f.agent_summary}}) {
    auto b = ParseBool(q, key);
    if (!b) return b.error();
    *out = *b;
  }
  if (auto it = q.find("group_by"); it != q.end()) {
    if (it->second != "target-session" && it->second != "session-name")
      return BadParam("group_by", "must be target-session or session-name, not '" + it->second + "'");
    f.group_by = it->second;
  }
  return f;
}

void WriteFilters(JsonOut& j, const ViewFilter& f) {
  j.BeginObject();
  j.Key("targets").BeginArray();
  for (const auto& t : f.targets) j.Str(t);
  j.EndArray();
  j.Key("all_targets").Bool(f.targets.empty());
  j.Key("target_session");
  if (f.target_session) {
    j.Str(f.target_session->first + "/" + core::PercentEncode(f.target_session->second));
  } else {
    j.Null();
  }
  j.Key("session");
  f.session.empty() ? j.Null() : j.Str(f.session);
  j.Key("state");
  f.state ? j.Str(core::StateName(*f.state)) : j.Null();
  j.Key("agent");
  f.agent.empty() ? j.Null() : j.Str(f.agent);
  j.Key("needs_action").Bool(f.needs_action);
  j.Key("all").Bool(f.all_panes);
  j.Key("with_agent_status").Bool(f.with_agent_status);
  j.Key("agent_summary").Bool(f.agent_summary);
  j.Key("group_by").Str(f.group_by);
  j.EndObject();
}

std::string IdentityFromKey(Scope scope, std::string_view key) {
  std::vector<std::string_view> parts;
  while (true) {
    size_t sep = key.find('\x1f');
    parts.push_back(key.substr(0, sep));
    if (sep == std::string_view::npos) break;
    key = key.substr(sep + 1);
  }
  parts.resize(4);
  JsonOut j;
  j.BeginObject();
  if (scope == Scope::kSessions) {
    if (parts[0] != "*") j.Key("target").Str(parts[0]);
    j.Key("session_name").Str(parts[1]);
  } else {
    j.Key("target").Str(parts[0]).Key("session_name").Str(parts[1]).Key("window_id").Str(parts[2]);
    if (scope == Scope::kPanes) j.Key("pane_id").Str(parts[3]);
  }
  j.EndObject();
  return j.Take();
}

bool OfAnotherServer(const state::Runtime& rt, const Topology& topology) {
  return topology.server_running && !topology.boot_id.empty() && !rt.boot_id.empty() &&
         rt.boot_id != topology.boot_id;
}

void WriteVerification(JsonOut& j, const std::string& agent_type, const std::string& agent_version) {
  const detect::Verification v =
      detect::VerifyVersion(detect::DefaultLibrary().get(), agent_type, agent_version);
  j.Key("agent_version");
  agent_version.empty() ? j.Null() : j.Str(agent_version);
  j.Key("verified");
  v.verified ? j.Bool(*v.verified) : j.Null();
  j.Key("verified_on").BeginArray();
  for (const auto& x : v.verified_on) j.Str(x);
  j.EndArray();
}

std::vector<PaneRow> CollectPanes(const ViewSources& src) {
  std::vector<PaneRow> rows;
  std::set<std::pair<std::string, std::string>> seen;
  auto fill_state = [&](PaneRow& r) {
    const state::Runtime* rt = src.core->ActiveRuntime(r.target, r.pane_id);
    if (!rt) return;
    if (auto t = src.topologies->find(r.target); t != src.topologies->end() && OfAnotherServer(*rt, t->second))
      return;  // the old server's pane of the same id
    r.agent = true;
    r.runtime_id = rt->runtime_id;
    r.agent_type = rt->agent_type;
    r.agent_version = rt->agent_version;
    r.runtime_pid = rt->pid;
    if (const state::PaneState* ps = src.core->FindPane(r.target, r.pane_id)) r.st = *ps;
  };
  for (const auto& [target, topo] : *src.topologies) {
    for (const PaneInfo& p : topo.panes) {
      PaneRow r;
      r.target = target;
      r.session_name = p.session_name;
      r.session_id = p.session_id;
      r.window_id = p.window_id;
      r.window_name = p.window_name;
      r.window_index = p.window_index;
      r.pane_id = p.pane_id;
      r.pane_index = p.pane_index;
      r.in_topology = true;
      r.title = p.title;
      r.cwd = p.cwd;
      r.command = p.current_command;
      r.pid = p.pid;
      fill_state(r);
      seen.insert({r.target, r.pane_id});
      rows.push_back(std::move(r));
    }
  }
  // Runtimes in panes no collector has reported (yet): a wrapper that
  // announced itself first, or a target without a collector.
  for (const state::PaneState& ps : src.core->AllPanes()) {
    if (seen.count({ps.target_id, ps.pane_id})) continue;
    PaneRow r;
    r.target = ps.target_id;
    r.pane_id = ps.pane_id;
    fill_state(r);
    if (!r.agent) continue;
    rows.push_back(std::move(r));
  }
  std::sort(rows.begin(), rows.end(), PaneOrder);
  if (!src.remote || src.remote->empty()) return rows;
  // Federated targets: the remote daemon's rows, as it sent them. Each
  // target's rows are one run of the order (it is the first key), so the
  // runs, already in order (RemoteMirror sorts them), are merged in by
  // target instead of sorting a thousand rows again at every read.
  bool merge = true;
  for (const auto& [target, remote_rows] : *src.remote)
    merge = merge && std::is_sorted(remote_rows.begin(), remote_rows.end(), PaneOrder);
  for (size_t i = 0; merge && i < rows.size(); ++i) merge = !src.remote->count(rows[i].target);
  std::vector<PaneRow> all;
  size_t total = rows.size();
  for (const auto& [target, remote_rows] : *src.remote) total += remote_rows.size();
  all.reserve(total);
  auto local = std::make_move_iterator(rows.begin());
  const auto local_end = std::make_move_iterator(rows.end());
  for (const auto& [target, remote_rows] : *src.remote) {
    while (merge && local != local_end && local->target < target) all.push_back(*local++);
    all.insert(all.end(), remote_rows.begin(), remote_rows.end());
  }
  all.insert(all.end(), local, local_end);
  if (!merge) std::sort(all.begin(), all.end(), PaneOrder);
  return all;
}

bool PaneOrder(const PaneRow& a, const PaneRow& b) {
  return std::tie(a.target, a.session_name, a.window_index, a.window_id, a.pane_index, a.pane_id) <
         std::tie(b.target, b.session_name, b.window_index, b.window_id, b.pane_index, b.pane_id);
}

bool TargetMatches(const std::string& target, const ViewFilter& f) {
  return f.targets.empty() || std::find(f.targets.begin(), f.targets.end(), target) != f.targets.end();
}

namespace {

bool LocationMatches(const PaneRow& r, const ViewFilter& f) {
  if (!TargetMatches(r.target, f)) return false;
  if (f.target_session &&
      (r.target != f.target_session->first || r.session_name != f.target_session->second))
    return false;
  if (!f.session.empty() && r.session_name != f.session) return false;
  return true;
}

bool AgentMatches(const PaneRow& r, const ViewFilter& f) {
  if (!r.agent) return false;
  if (f.state && r.st.signal.state != *f.state) return false;
  if (!f.agent.empty() && r.agent_type != f.agent) return false;
  if (f.needs_action && !core::NeedsAction(r.st.signal.state)) return false;
  return true;
}

}  // namespace

bool PaneMatches(const PaneRow& r, const ViewFilter& f) {
  if (!LocationMatches(r, f)) return false;
  bool agent_filters = f.state || !f.agent.empty() || f.needs_action;
  if (!r.agent) return f.all_panes && !agent_filters;
  return AgentMatches(r, f);
}

namespace {

void WriteStateCounts(JsonOut& j, const std::array<int64_t, core::kStateCount>& counts) {
  j.BeginObject();
  for (int i = 0; i < core::kStateCount; ++i) {
    j.Key(core::StateName(static_cast<core::State>(i))).Int(counts[static_cast<size_t>(i)]);
  }
  j.EndObject();
}

std::string PaneKey(const PaneRow& r) {
  return r.target + "\x1f" + r.session_name + "\x1f" + r.window_id + "\x1f" + r.pane_id;
}

/// A pane item in three pieces: all before `age_seconds`, the field (when
/// `now` is not 0), all after it.
PaneJsonParts RenderPaneParts(const PaneRow& r) {
  PaneJsonParts parts;
  parts.key = PaneKey(r);
  parts.identity = IdentityFromKey(Scope::kPanes, parts.key);
  JsonOut j;
  j.BeginObject();
  j.Key("identity").BeginObject();
  j.Key("target").Str(r.target).Key("session_name").Str(r.session_name);
  j.Key("window_id").Str(r.window_id).Key("pane_id").Str(r.pane_id);
  j.EndObject();
  if (r.in_topology && !r.window_id.empty()) {
    core::Ref ref;
    ref.kind = core::Ref::Kind::kPane;
    ref.target = r.target;
    ref.session = r.session_name;
    ref.window_id = r.window_id;
    ref.pane_id = r.pane_id;
    j.Key("ref").Str(core::FormatRef(ref));
  } else if (!r.runtime_id.empty()) {
    j.Key("ref").Str("runtime:" + r.runtime_id);
  } else {
    j.Key("ref").Null();
  }
  j.Key("session_id").Str(r.session_id).Key("window_index").Int(r.window_index);
  j.Key("window_name").Str(r.window_name).Key("pane_index").Int(r.pane_index);
  j.Key("agent").Bool(r.agent);
  const core::Signal& s = r.st.signal;
  bool has_state = r.agent;
  j.Key("state").Str(has_state ? core::StateName(s.state) : "unknown");
  j.Key("reason_code");
  if (!has_state) {
    j.Str("no_agent");
  } else if (s.reason_code.empty()) {
    j.Null();
  } else {
    j.Str(s.reason_code);
  }
  bool decided = has_state && r.st.has_source;
  j.Key("source");
  decided ? j.Str(core::SourceColumn(r.st.source)) : j.Null();
  j.Key("signal_source");
  decided ? j.Str(core::SourceName(r.st.source)) : j.Null();
  j.Key("confidence");
  decided ? j.Str(core::ConfidenceName(s.confidence)) : j.Null();
  j.Key("rule_id");
  decided && !s.rule_id.empty() ? j.Str(s.rule_id) : j.Null();
  j.Key("evidence");
  decided && !s.evidence.empty() ? j.Str(s.evidence) : j.Null();
  j.Key("waiting");
  if (decided && core::NeedsAction(s.state)) {
    WriteWaiting(j, s.detail);
  } else {
    j.Null();
  }
  j.Key("agent_type");
  r.agent && !r.agent_type.empty() ? j.Str(r.agent_type) : j.Null();
  j.Key("runtime_id");
  r.agent ? j.Str(r.runtime_id) : j.Null();
  j.Key("runtime_pid");
  r.runtime_pid ? j.Int(*r.runtime_pid) : j.Null();
  if (r.agent) {
    WriteVerification(j, r.agent_type, r.agent_version);
  } else {
    j.Key("agent_version").Null().Key("verified").Null().Key("verified_on").BeginArray().EndArray();
  }
  j.Key("state_version").Int(has_state ? r.st.state_version : 0);
  j.Key("updated_at").Time(has_state ? r.st.updated_at : 0);
  j.Key("last_seen_at").Time(has_state ? r.st.last_seen_at : 0);
  j.EndObject();
  parts.head = j.Take();
  parts.head.pop_back();  // the item goes on after it
  JsonOut t;
  t.BeginObject();
  t.Key("title").Str(r.title).Key("cwd").Str(r.cwd).Key("command").Str(r.command);
  t.Key("pane_pid").Int(r.pid);
  t.EndObject();
  parts.tail = t.Take();
  parts.tail[0] = ',';  // continues the head's object
  return parts;
}

/// `,"age_seconds":N` (or null) as of `now`; "" when `now` is 0 (watch).
std::string AgeField(const PaneRow& r, core::TimeNs now) {
  if (now == 0) return "";
  if (!r.agent || r.st.updated_at == 0) return ",\"age_seconds\":null";
  return ",\"age_seconds\":" + std::to_string(std::max<int64_t>(0, (now - r.st.updated_at) / core::kNsPerSec));
}

std::string PaneJson(const PaneJsonParts& parts, const PaneRow& r, core::TimeNs now) {
  return parts.head + AgeField(r, now) + parts.tail;
}

struct Rollup {
  std::string target, session_name, window_id, window_name;
  int window_index = 0;
  std::set<std::string> windows;
  std::set<std::string> targets;
  int64_t panes = 0, agent_panes = 0, matched = 0;
  std::array<int64_t, core::kStateCount> by_state{};
  std::map<std::string, int64_t> by_agent;
  std::optional<core::State> top;

  void Add(const PaneRow& r, const ViewFilter& f) {
    ++panes;
    windows.insert(r.target + "\x1f" + r.window_id);
    targets.insert(r.target);
    if (!r.agent) return;
    ++agent_panes;
    if (AgentMatches(r, f)) ++matched;
    core::State s = r.st.signal.state;
    ++by_state[static_cast<size_t>(s)];
    ++by_agent[r.agent_type.empty() ? "unknown" : r.agent_type];
    if (!top || core::StatePrecedence(s) > core::StatePrecedence(*top)) top = s;
  }

  void WriteCounts(JsonOut& j, bool agent_summary) const {
    j.Key("window_count").Int(static_cast<int64_t>(windows.size()));
    j.Key("pane_count").Int(panes).Key("agent_pane_count").Int(agent_panes);
    j.Key("top_state");
    top ? j.Str(core::StateName(*top)) : j.Null();
    j.Key("waiting_count")
        .Int(by_state[static_cast<size_t>(core::State::kWaitingApproval)] +
             by_state[static_cast<size_t>(core::State::kWaitingInput)]);
    j.Key("running_count").Int(by_state[static_cast<size_t>(core::State::kRunning)]);
    j.Key("by_state");
    WriteStateCounts(j, by_state);
    if (agent_summary) {
      j.Key("by_agent").BeginObject();
      for (const auto& [a, n] : by_agent) j.Key(a).Int(n);
      j.EndObject();
    }
  }
};

bool RollupSelected(const Rollup& r, const ViewFilter& f) {
  bool agent_filters = f.state || !f.agent.empty() || f.needs_action;
  if (agent_filters) return r.matched > 0;
  if (f.with_agent_status) return r.agent_panes > 0;
  return true;
}

}  // namespace

std::vector<Item> RenderItems(Scope scope, const std::vector<PaneRow>& rows, const ViewFilter& f,
                              core::TimeNs now) {
  std::vector<Item> items;
  if (scope == Scope::kPanes) {
    for (const PaneRow& r : rows) {
      if (!PaneMatches(r, f)) continue;
      if (r.json) {
        items.push_back({r.json->key, r.json->identity, PaneJson(*r.json, r, now)});
        continue;
      }
      PaneJsonParts parts = RenderPaneParts(r);
      std::string json = PaneJson(parts, r, now);
      items.push_back({std::move(parts.key), std::move(parts.identity), std::move(json)});
    }
    return items;
  }
  if (scope == Scope::kWindows) {
    std::map<std::tuple<std::string, std::string, int, std::string>, Rollup> windows;
    for (const PaneRow& r : rows) {
      if (!r.in_topology || !LocationMatches(r, f)) continue;
      Rollup& w = windows[{r.target, r.session_name, r.window_index, r.window_id}];
      w.target = r.target;
      w.session_name = r.session_name;
      w.window_id = r.window_id;
      w.window_name = r.window_name;
      w.window_index = r.window_index;
      w.Add(r, f);
    }
    for (const auto& [k, w] : windows) {
      if (!RollupSelected(w, f)) continue;
      JsonOut j;
      j.BeginObject();
      j.Key("identity").BeginObject();
      j.Key("target").Str(w.target).Key("session_name").Str(w.session_name);
      j.Key("window_id").Str(w.window_id).EndObject();
      j.Key("window_name").Str(w.window_name).Key("window_index").Int(w.window_index);
      w.WriteCounts(j, f.agent_summary);
      j.EndObject();
      std::string key = w.target + "\x1f" + w.session_name + "\x1f" + w.window_id;
      std::string identity = IdentityFromKey(scope, key);
      items.push_back({std::move(key), std::move(identity), j.Take()});
    }
    return items;
  }
  bool by_name = f.group_by == "session-name";
  std::map<std::pair<std::string, std::string>, Rollup> sessions;   // (target or "", name)
  std::map<std::pair<std::string, std::string>, Rollup> breakdown;  // (name, target)
  for (const PaneRow& r : rows) {
    if (!r.in_topology || !LocationMatches(r, f)) continue;
    Rollup& s = sessions[{by_name ? std::string() : r.target, r.session_name}];
    s.target = r.target;
    s.session_name = r.session_name;
    s.Add(r, f);
    if (by_name) breakdown[{r.session_name, r.target}].Add(r, f);
  }
  for (const auto& [k, s] : sessions) {
    if (!RollupSelected(s, f)) continue;
    JsonOut j;
    j.BeginObject();
    j.Key("identity").BeginObject();
    if (!by_name) j.Key("target").Str(s.target);
    j.Key("session_name").Str(s.session_name).EndObject();
    if (by_name) {
      j.Key("targets").BeginArray();
      for (const auto& t : s.targets) j.Str(t);
      j.EndArray();
      j.Key("per_target").BeginArray();
      for (const auto& t : s.targets) {
        const Rollup& b = breakdown[{s.session_name, t}];
        j.BeginObject().Key("target").Str(t);
        b.WriteCounts(j, f.agent_summary);
        j.EndObject();
      }
      j.EndArray();
    }
    s.WriteCounts(j, f.agent_summary);
    j.EndObject();
    std::string key = (by_name ? std::string("*") : s.target) + "\x1f" + s.session_name;
    std::string identity = IdentityFromKey(scope, key);
    items.push_back({std::move(key), std::move(identity), j.Take()});
  }
  return items;
}

std::shared_ptr<const PaneJsonParts> PaneJsonPartsOf(const PaneRow& r) {
  return std::make_shared<const PaneJsonParts>(RenderPaneParts(r));
}

void WriteItems(JsonOut& j, Scope scope, const std::vector<PaneRow>& rows, const ViewFilter& f, core::TimeNs now) {
  if (scope != Scope::kPanes) {
    for (const Item& it : RenderItems(scope, rows, f, now)) j.Raw(it.json);
    return;
  }
  for (const PaneRow& r : rows) {
    if (!PaneMatches(r, f)) continue;
    if (r.json) {
      j.RawPieces(r.json->head, AgeField(r, now), r.json->tail);
      continue;
    }
    const PaneJsonParts parts = RenderPaneParts(r);
    j.RawPieces(parts.head, AgeField(r, now), parts.tail);
  }
}

void WriteWaiting(JsonOut& j, const core::WaitingDetail& d) {
  j.BeginObject().Key("approval_type").Str(d.approval_type).Key("details").Str(d.details);
  j.Key("choices").BeginArray();
  for (const auto& c : d.choices) j.Str(c);
  j.EndArray().Key("multi_select").Bool(d.multi_select).Key("cursor_position").Int(d.cursor_position);
  j.EndObject();
}

void WriteSummary(JsonOut& j, const std::vector<PaneRow>& rows, const ViewFilter& f) {
  std::array<int64_t, core::kStateCount> by_state{};
  std::map<std::string, int64_t> by_agent, by_target;
  int64_t agents = 0, needs = 0;
  for (const PaneRow& r : rows) {
    if (!r.agent || !LocationMatches(r, f) || !AgentMatches(r, f)) continue;
    ++agents;
    core::State s = r.st.signal.state;
    ++by_state[static_cast<size_t>(s)];
    if (core::NeedsAction(s)) ++needs;
    ++by_agent[r.agent_type.empty() ? "unknown" : r.agent_type];
    ++by_target[r.target];
  }
  j.BeginObject();
  j.Key("agent_panes").Int(agents).Key("needs_action").Int(needs);
  j.Key("by_state");
  WriteStateCounts(j, by_state);
  j.Key("by_agent").BeginObject();
  for (const auto& [a, n] : by_agent) j.Key(a).Int(n);
  j.EndObject();
  j.Key("by_target").BeginObject();
  for (const auto& [t, n] : by_target) j.Key(t).Int(n);
  j.EndObject();
  j.EndObject();
}

void WritePartial(JsonOut& j, const TargetRegistry& targets, const ViewFilter& f) {
  std::vector<const TargetStatus*> requested;
  for (const auto& t : targets.all())
    if (TargetMatches(t.spec.name, f)) requested.push_back(&t);
  bool partial = false;
  for (const auto* t : requested) partial |= t->health == core::TargetHealth::kDown;
  j.Key("partial").Bool(partial);
  j.Key("requested_targets").BeginArray();
  for (const auto* t : requested) j.Str(t->spec.name);
  j.EndArray();
  j.Key("responded_targets").BeginArray();
  for (const auto* t : requested)
    if (t->health != core::TargetHealth::kDown) j.Str(t->spec.name);
  j.EndArray();
  j.Key("target_errors").BeginArray();
  for (const auto* t : requested) {
    if (t->health != core::TargetHealth::kDown) continue;
    j.BeginObject().Key("target").Str(t->spec.name).Key("code").Str("E_TARGET_UNREACHABLE");
    j.Key("message").Str(t->error.empty() ? "target is down" : t->error).EndObject();
  }
  j.EndArray();
}

}  // namespace agt::agg
