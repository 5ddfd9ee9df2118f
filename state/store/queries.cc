// The store's read side: the snapshot the engine is rebuilt from at daemon
// start, and the queries the API serves (pane list with topology, runtime
// lookup, the audit trail of a runtime or an action). Every row read back
// is validated (enum names, JSON columns), so a damaged row is an E_STORE
// error naming it, not a wrong state.
#include <algorithm>
#include <tuple>

#include "state/store/event_row.h"
#include "state/store/row_codec.h"
#include "state/store/sqlite.h"
#include "state/store/store.h"

namespace agt::state {

using core::Err;
using core::MakeError;
using core::Result;
using core::Status;

namespace {

constexpr const char* kRuntimeColumns =
    "runtime_id, target_id, pane_id, tmux_server_boot_id, pane_epoch, agent_type, pid, "
    "started_at, ended_at, owner, agent_version";

core::Error BadRow(std::string_view table, std::string_view key, std::string_view column,
                   std::string_view value) {
  return MakeError(Err::kStore, std::string(table) + " row " + std::string(key) + ": bad " +
                                    std::string(column) + " `" + std::string(value) + "`");
}

Result<Runtime> ReadRuntime(const sql::Stmt& st, int c) {
  Runtime r;
  r.runtime_id = st.Text(c);
  r.target_id = st.Text(c + 1);
  r.pane_id = st.Text(c + 2);
  r.boot_id = st.Text(c + 3);
  r.pane_epoch = st.Int(c + 4);
  r.agent_type = st.Text(c + 5);
  r.pid = st.OptInt(c + 6);
  r.started_at = st.Int(c + 7);
  r.ended_at = st.IsNull(c + 8) ? 0 : st.Int(c + 8);
  auto owner = core::ParseSource(st.Text(c + 9));
  if (!owner) return BadRow("runtimes", r.runtime_id, "owner", st.Text(c + 9));
  r.owner = *owner;
  if (!st.IsNull(c + 10)) r.agent_version = st.Text(c + 10);
  return r;
}

constexpr const char* kStateColumns =
    "s.target_id, s.pane_id, s.runtime_id, s.state, s.reason_code, s.confidence, "
    "s.state_version, s.last_source_seq, s.last_seen_at, s.updated_at, s.source, s.rule_id, "
    "s.evidence, s.detail_json";

Result<PaneState> ReadPaneState(const sql::Stmt& st, int c) {
  PaneState s;
  s.target_id = st.Text(c);
  s.pane_id = st.Text(c + 1);
  s.runtime_id = st.Text(c + 2);
  std::string key = s.target_id + "/" + s.pane_id;
  auto state = core::ParseState(st.Text(c + 3));
  if (!state) return BadRow("states", key, "state", st.Text(c + 3));
  s.signal.state = *state;
  s.signal.reason_code = st.Text(c + 4);
  auto conf = core::ParseConfidence(st.Text(c + 5));
  if (!conf) return BadRow("states", key, "confidence", st.Text(c + 5));
  s.signal.confidence = *conf;
  s.state_version = st.Int(c + 6);
  s.last_source_seq = st.OptInt(c + 7);
  s.last_seen_at = st.Int(c + 8);
  s.updated_at = st.Int(c + 9);
  if (!st.IsNull(c + 10)) {
    auto src = core::ParseSource(st.Text(c + 10));
    if (!src) return BadRow("states", key, "source", st.Text(c + 10));
    s.source = *src;
    s.has_source = true;
  }
  s.signal.rule_id = st.Text(c + 11);
  s.signal.evidence = st.Text(c + 12);
  auto detail = DecodeDetail(st.Text(c + 13));
  if (!detail.ok()) return MakeError(Err::kStore, "states row " + key + ": " + detail.error().message);
  s.signal.detail = std::move(*detail);
  return s;
}

Result<std::pair<Candidate, std::string>> ReadCandidate(const sql::Stmt& st) {
  Candidate c;
  std::string runtime_id = st.Text(0);
  std::string key = runtime_id + "/" + st.Text(1);
  auto src = core::ParseSource(st.Text(1));
  if (!src) return BadRow("candidates", key, "source", st.Text(1));
  c.source = *src;
  auto state = core::ParseState(st.Text(2));
  if (!state) return BadRow("candidates", key, "state", st.Text(2));
  c.signal.state = *state;
  c.signal.reason_code = st.Text(3);
  auto conf = core::ParseConfidence(st.Text(4));
  if (!conf) return BadRow("candidates", key, "confidence", st.Text(4));
  c.signal.confidence = *conf;
  c.signal.rule_id = st.Text(5);
  c.signal.evidence = st.Text(6);
  auto detail = DecodeDetail(st.Text(7));
  if (!detail.ok()) return MakeError(Err::kStore, "candidates row " + key + ": " + detail.error().message);
  c.signal.detail = std::move(*detail);
  c.event_id = st.Text(8);
  c.key.source_seq = st.OptInt(9);
  c.key.effective_time = st.Int(10);
  c.key.ingested_at = st.Int(11);
  c.key.event_id = st.Text(12);
  c.seen_at = st.Int(13);
  c.stale = st.Int(14) != 0;
  return std::make_pair(std::move(c), std::move(runtime_id));
}

Result<InboxEntry> ReadInbox(const sql::Stmt& st) {
  auto e = internal::ReadEventColumns(st, 0);
  if (!e.ok()) return e.error();
  InboxEntry entry;
  entry.event = std::move(*e);
  auto status = ParseInboxStatus(st.Text(internal::kEventColumnCount));
  if (!status) {
    return BadRow("event_inbox", entry.event.event_id, "status",
                  st.Text(internal::kEventColumnCount));
  }
  entry.status = *status;
  entry.reason_code = st.Text(internal::kEventColumnCount + 1);
  return entry;
}

// Runs `st` to completion, appending `read(st)` for each row to `out`.
template <typename T, typename Read>
Status Collect(Result<sql::Stmt>& st, std::vector<T>* out, Read read) {
  if (!st.ok()) return st.error();
  for (;;) {
    auto row = st->Step();
    if (!row.ok()) return row.error();
    if (!*row) return core::Ok();
    auto v = read(*st);
    if (!v.ok()) return v.error();
    out->push_back(std::move(*v));
  }
}

}  // namespace

Result<EngineSnapshot> Store::LoadSnapshot() {
  EngineSnapshot snap;
  {
    auto st = db_->Prepare(std::string("SELECT ") + kRuntimeColumns +
                           " FROM runtimes ORDER BY runtime_id");
    if (auto s = Collect(st, &snap.runtimes, [](const sql::Stmt& s) { return ReadRuntime(s, 0); });
        !s.ok()) {
      return s.error();
    }
  }
  {
    auto st = db_->Prepare(
        "SELECT runtime_id, source, last_source_seq, last_order_event_time, "
        "last_order_ingested_at, last_order_event_id FROM runtime_source_cursors "
        "ORDER BY runtime_id, source");
    auto read = [](const sql::Stmt& s) -> Result<Cursor> {
      Cursor c;
      c.runtime_id = s.Text(0);
      auto src = core::ParseSource(s.Text(1));
      if (!src) return BadRow("runtime_source_cursors", c.runtime_id, "source", s.Text(1));
      c.source = *src;
      c.last.source_seq = s.OptInt(2);
      c.last.effective_time = s.Int(3);
      c.last.ingested_at = s.Int(4);
      c.last.event_id = s.Text(5);
      return c;
    };
    if (auto s = Collect(st, &snap.cursors, read); !s.ok()) return s.error();
  }
  {
    auto st = db_->Prepare(std::string("SELECT ") + kStateColumns +
                           " FROM states s ORDER BY s.target_id, s.pane_id");
    if (auto s = Collect(st, &snap.states, [](const sql::Stmt& s) { return ReadPaneState(s, 0); });
        !s.ok()) {
      return s.error();
    }
  }
  {
    auto st = db_->Prepare(std::string("SELECT ") + internal::kEventColumns +
                           ", status, reason_code FROM event_inbox WHERE status = 'pending_bind' "
                           "ORDER BY ingested_at, event_id");
    if (auto s = Collect(st, &snap.pending, ReadInbox); !s.ok()) return s.error();
  }
  {
    auto st = db_->Prepare(
        "SELECT target_id, health FROM targets WHERE health_updated_at IS NOT NULL "
        "ORDER BY target_id");
    auto read = [](const sql::Stmt& s) -> Result<std::pair<std::string, TargetHealth>> {
      auto h = ParseTargetHealth(s.Text(1));
      if (!h) return BadRow("targets", s.Text(0), "health", s.Text(1));
      return std::make_pair(s.Text(0), *h);
    };
    if (auto s = Collect(st, &snap.target_health, read); !s.ok()) return s.error();
  }
  {
    auto st = db_->Prepare(
        "SELECT runtime_id, source, state, reason_code, confidence, rule_id, evidence, "
        "detail_json, event_id, key_source_seq, key_event_time, key_ingested_at, key_event_id, "
        "seen_at, stale FROM candidates ORDER BY runtime_id, source");
    if (auto s = Collect(st, &snap.candidates, ReadCandidate); !s.ok()) return s.error();
  }
  {
    // Target-scoped events are keyed "@target_id", as the engine does.
    auto st = db_->Prepare(
        "SELECT coalesce(runtime_id, '@' || target_id), source, dedupe_key FROM events");
    auto read = [](const sql::Stmt& s) -> Result<std::string> {
      return s.Text(0) + '\x1f' + s.Text(1) + '\x1f' + s.Text(2);
    };
    if (auto s = Collect(st, &snap.dedupe_keys, read); !s.ok()) return s.error();
    std::sort(snap.dedupe_keys.begin(), snap.dedupe_keys.end());
  }
  // Engine::Snapshot orders cursors and candidates by the Source enum, not
  // by its wire name.
  std::sort(snap.cursors.begin(), snap.cursors.end(), [](const Cursor& a, const Cursor& b) {
    return std::tie(a.runtime_id, a.source) < std::tie(b.runtime_id, b.source);
  });
  std::sort(snap.candidates.begin(), snap.candidates.end(), [](const auto& a, const auto& b) {
    return std::tie(a.second, a.first.source) < std::tie(b.second, b.first.source);
  });
  if (auto s = LoadBooks(&snap); !s.ok()) return s.error();
  return snap;
}

Result<std::vector<PaneStateView>> Store::ListPaneStates() {
  auto st = db_->Prepare(
      std::string("SELECT ") + kStateColumns +
      ", p.pane_id IS NOT NULL, p.session_name, p.window_id, p.window_name, p.updated_at, "
      "t.target_name, t.health, r.runtime_id IS NOT NULL, r.runtime_id, r.target_id, "
      "r.pane_id, r.tmux_server_boot_id, r.pane_epoch, r.agent_type, r.pid, r.started_at, "
      "r.ended_at, r.owner, r.agent_version FROM states s "
      "LEFT JOIN panes p ON p.target_id = s.target_id AND p.pane_id = s.pane_id "
      "LEFT JOIN targets t ON t.target_id = s.target_id "
      "LEFT JOIN runtimes r ON r.runtime_id = s.runtime_id "
      "ORDER BY s.target_id, s.pane_id");
  std::vector<PaneStateView> out;
  auto read = [](const sql::Stmt& s) -> Result<PaneStateView> {
    PaneStateView v;
    auto ps = ReadPaneState(s, 0);
    if (!ps.ok()) return ps.error();
    v.state = std::move(*ps);
    if (s.Int(14) != 0) {
      v.pane = PaneRow{v.state.target_id, v.state.pane_id, s.Text(15), s.Text(16), s.Text(17),
                       s.Int(18)};
    }
    v.target_name = s.Text(19);
    if (!s.IsNull(20)) {
      auto h = ParseTargetHealth(s.Text(20));
      if (!h) return BadRow("targets", v.state.target_id, "health", s.Text(20));
      v.health = *h;
    }
    if (s.Int(21) != 0) {
      auto r = ReadRuntime(s, 22);
      if (!r.ok()) return r.error();
      v.runtime = std::move(*r);
    }
    return v;
  };
  if (auto s = Collect(st, &out, read); !s.ok()) return s.error();
  return out;
}

Result<PaneState> Store::FindPaneState(const std::string& target_id, const std::string& pane_id) {
  auto st = db_->Prepare(std::string("SELECT ") + kStateColumns +
                         " FROM states s WHERE s.target_id = ?1 AND s.pane_id = ?2");
  if (!st.ok()) return st.error();
  st->Bind(1, target_id).Bind(2, pane_id);
  auto row = st->Step();
  if (!row.ok()) return row.error();
  if (!*row) return MakeError(Err::kNotFound, "no state for pane " + target_id + "/" + pane_id);
  return ReadPaneState(*st, 0);
}

Result<Runtime> Store::FindRuntime(const std::string& runtime_id) {
  auto st = db_->Prepare(std::string("SELECT ") + kRuntimeColumns +
                         " FROM runtimes WHERE runtime_id = ?1");
  if (!st.ok()) return st.error();
  st->Bind(1, runtime_id);
  auto row = st->Step();
  if (!row.ok()) return row.error();
  if (!*row) return MakeError(Err::kNotFound, "no runtime " + runtime_id);
  return ReadRuntime(*st, 0);
}

Result<std::vector<core::Event>> Store::EventsForRuntime(const std::string& runtime_id, int limit) {
  auto st = db_->Prepare(std::string("SELECT ") + internal::kEventColumns +
                         " FROM events WHERE runtime_id = ?1 ORDER BY ingested_at, event_id "
                         "LIMIT ?2");
  if (st.ok()) st->Bind(1, runtime_id).Bind(2, limit > 0 ? int64_t{limit} : int64_t{-1});
  std::vector<core::Event> out;
  auto read = [](const sql::Stmt& s) { return internal::ReadEventColumns(s, 0); };
  if (auto s = Collect(st, &out, read); !s.ok()) return s.error();
  return out;
}

Result<std::vector<core::Event>> Store::EventsForAction(const std::string& action_id) {
  auto st = db_->Prepare(std::string("SELECT ") + internal::kEventColumns +
                         " FROM events WHERE action_id = ?1 ORDER BY ingested_at, event_id");
  if (st.ok()) st->Bind(1, action_id);
  std::vector<core::Event> out;
  auto read = [](const sql::Stmt& s) { return internal::ReadEventColumns(s, 0); };
  if (auto s = Collect(st, &out, read); !s.ok()) return s.error();
  return out;
}

Result<std::vector<InboxEntry>> Store::InboxForPane(const std::string& target_id,
                                                    const std::string& pane_id) {
  auto st = db_->Prepare(std::string("SELECT ") + internal::kEventColumns +
                         ", status, reason_code FROM event_inbox WHERE target_id = ?1 AND "
                         "pane_id = ?2 ORDER BY ingested_at, event_id");
  if (st.ok()) st->Bind(1, target_id).Bind(2, pane_id);
  std::vector<InboxEntry> out;
  if (auto s = Collect(st, &out, ReadInbox); !s.ok()) return s.error();
  return out;
}

}  // namespace agt::state
