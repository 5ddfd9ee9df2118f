// The read model of the API: what /v1/panes, /v1/windows, /v1/sessions and
// /v1/watch show. A pane row joins the collectors' topology (session, window,
// title, cwd, command) with the engine's resolved state and runtime; windows
// and sessions roll those rows up. Filters are the view filters of docs/spec.md
// §11, parsed from query parameters; every item carries its scope's `identity`.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "aggregator/view/engine_seam.h"
#include "aggregator/http/json_writer.h"
#include "aggregator/observe/collector.h"
#include "aggregator/targets/target_registry.h"
#include "libagtcore/base/result.h"

namespace agt::agg {

enum class Scope { kPanes, kWindows, kSessions };
std::string_view ScopeName(Scope s);
std::optional<Scope> ParseScope(std::string_view s);

struct ViewFilter {
  std::vector<std::string> targets;  // empty: every target (--all-targets)
  std::optional<std::pair<std::string, std::string>> target_session;  // (target, session)
  std::string session;
  std::optional<core::State> state;
  std::string agent;
  bool needs_action = false;
  bool all_panes = false;          // include panes without an agent runtime
  bool with_agent_status = false;  // windows: only those with agent panes
  bool agent_summary = false;      // sessions: per-agent counts
  std::string group_by = "target-session";  // sessions: or "session-name"
};

/// Parses target, all_targets, target_session, session, state, agent,
/// needs_action, all, with_agent_status, agent_summary, group_by.
/// E_REQUEST_INVALID naming the parameter.
core::Result<ViewFilter> ParseViewFilter(const std::map<std::string, std::string>& query);
void WriteFilters(JsonOut& j, const ViewFilter& f);

/// A pane item's JSON rendered once (PaneJsonPartsOf), for rows that change
/// only by being replaced (a federated target's mirror rows): the text
/// before `age_seconds`, the one field computed per read, and after it.
struct PaneJsonParts {
  std::string key;       // Item::key
  std::string identity;  // Item::identity
  std::string head;      // `{"identity":...,"last_seen_at":...` (no closing brace)
  std::string tail;      // `,"title":...}`
};

/// One pane as the API shows it.
struct PaneRow {
  std::string target, session_name, session_id, window_id, window_name, pane_id;
  int window_index = 0, pane_index = 0;
  bool in_topology = false;
  std::string title, cwd, command;
  int64_t pid = 0;
  bool agent = false;             // an active runtime
  std::string runtime_id, agent_type;
  std::string agent_version;      // "" = not known
  std::optional<int64_t> runtime_pid;
  state::PaneState st;            // valid when agent
  /// This row rendered, set by an owner that never changes the row in
  /// place (RemoteMirror); null: rendered at every read.
  std::shared_ptr<const PaneJsonParts> json;
};

/// The view's order of rows: target, session, window index, window id,
/// pane index, pane id.
bool PaneOrder(const PaneRow& a, const PaneRow& b);

/// `r` rendered for PaneRow::json.
std::shared_ptr<const PaneJsonParts> PaneJsonPartsOf(const PaneRow& r);

/// Everything the views need, owned by the daemon core.
struct ViewSources {
  const std::map<std::string, Topology>* topologies;
  const EngineSeam* core;
  const TargetRegistry* targets;
  /// Federated targets' panes (RemoteMirror rows), shown as they are.
  const std::map<std::string, std::vector<PaneRow>>* remote = nullptr;
};

/// True when `rt` ran in an earlier instance of its target's tmux server:
/// the topology's boot id is known and differs (spec: pane identity includes
/// the server's boot id, so a new server's %0 is not the old %0).
bool OfAnotherServer(const state::Runtime& rt, const Topology& topology);

/// "agent_version", "verified", "verified_on" of a pane item and of
/// /v1/explain (docs/api.md): whether the agent's version is one its
/// pattern set was verified on. Says so; never changes the state.
void WriteVerification(JsonOut& j, const std::string& agent_type, const std::string& agent_version);

/// Every pane known (topology panes plus runtime-only panes), sorted by
/// target, session, window index, pane index.
std::vector<PaneRow> CollectPanes(const ViewSources& src);
bool PaneMatches(const PaneRow& r, const ViewFilter& f);
/// Targets that match the filter's target list.
bool TargetMatches(const std::string& target, const ViewFilter& f);

/// A rendered item: identity key (for watch diffs) and its JSON object.
struct Item {
  std::string key;       // identity fields joined by 0x1f
  std::string identity;  // the identity object, JSON
  std::string json;      // the whole item, JSON
};

/// The identity JSON of a key of `scope` (the inverse of Item::key).
std::string IdentityFromKey(Scope scope, std::string_view key);

/// The items of a scope, filtered. `now` = 0 leaves `age` out (watch,
/// where an ever-changing age would make every item differ).
std::vector<Item> RenderItems(Scope scope, const std::vector<PaneRow>& rows, const ViewFilter& f,
                              core::TimeNs now);
/// The same items' JSON written into the array `j` is in (the read
/// endpoints, which need no keys).
void WriteItems(JsonOut& j, Scope scope, const std::vector<PaneRow>& rows, const ViewFilter& f, core::TimeNs now);
/// {"agent_panes","needs_action","by_state":{...},"by_agent":{...},"by_target":{...}}
/// over the agent panes the filter matches.
void WriteSummary(JsonOut& j, const std::vector<PaneRow>& rows, const ViewFilter& f);
/// {"approval_type","details","choices":[...],"multi_select","cursor_position"}:
/// what a waiting pane waits on (pane items, action snapshots).
void WriteWaiting(JsonOut& j, const core::WaitingDetail& d);
/// partial, requested_targets, responded_targets, target_errors.
void WritePartial(JsonOut& j, const TargetRegistry& targets, const ViewFilter& f);

}  // namespace agt::agg
