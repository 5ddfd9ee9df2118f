// Rows other parts of the daemon own and the store only keeps: the
// collectors' topology (targets, panes), the actions issue's audit rows
// (actions, action_snapshots) and adapters. Plain CRUD; the only rules here
// are docs/spec.md §6's: connection_ref is a non-secret reference, action metadata
// is redacted, and (action_type, request_ref) is an idempotency key.
#include "state/store/sqlite.h"
#include "state/store/store.h"

namespace agt::state {

using core::Err;
using core::MakeError;
using core::Result;
using core::Status;

namespace {

Status Wrap(Status st, std::string what) {
  if (st.ok()) return st;
  return MakeError(st.error().code, what + ": " + st.error().message);
}

TargetRow ReadTarget(const sql::Stmt& s) {
  TargetRow t;
  t.target_id = s.Text(0);
  t.target_name = s.Text(1);
  t.kind = s.Text(2);
  t.connection_ref = s.Text(3);
  t.is_default = s.Int(4) != 0;
  t.last_seen_at = s.OptInt(5);
  t.updated_at = s.Int(6);
  return t;
}

constexpr const char* kTargetSelect =
    "SELECT target_id, target_name, kind, connection_ref, is_default, last_seen_at, updated_at "
    "FROM targets";

ActionRow ReadAction(const sql::Stmt& s) {
  ActionRow a;
  a.action_id = s.Text(0);
  a.action_type = s.Text(1);
  a.request_ref = s.Text(2);
  a.target_id = s.Text(3);
  a.pane_id = s.Text(4);
  a.runtime_id = s.Text(5);
  a.requested_at = s.Int(6);
  a.completed_at = s.OptInt(7);
  a.result_code = s.Text(8);
  a.error_code = s.Text(9);
  a.metadata_json = s.Text(10);
  return a;
}

constexpr const char* kActionSelect =
    "SELECT action_id, action_type, request_ref, target_id, pane_id, runtime_id, requested_at, "
    "completed_at, result_code, error_code, metadata_json FROM actions";

}  // namespace

Status Store::UpsertTarget(const TargetRow& t) {
  if (auto st = RequireWriter(); !st.ok()) return st;
  if (t.target_id.empty()) return MakeError(Err::kTargetInvalid, "target_id is empty");
  if (t.kind != "local" && t.kind != "ssh") {
    return MakeError(Err::kTargetInvalid,
                     "target " + t.target_id + ": kind `" + t.kind + "` is not local or ssh");
  }
  auto st = db_->Prepare(
      "INSERT INTO targets (target_id, target_name, kind, connection_ref, is_default, "
      "last_seen_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) ON CONFLICT (target_id) "
      "DO UPDATE SET target_name = excluded.target_name, kind = excluded.kind, "
      "connection_ref = excluded.connection_ref, is_default = excluded.is_default, "
      "last_seen_at = excluded.last_seen_at, updated_at = excluded.updated_at");
  if (!st.ok()) return st.error();
  st->Bind(1, t.target_id).Bind(2, t.target_name.empty() ? t.target_id : t.target_name)
      .Bind(3, t.kind).BindOptText(4, t.connection_ref).Bind(5, int64_t{t.is_default ? 1 : 0})
      .BindOpt(6, t.last_seen_at).Bind(7, t.updated_at);
  return Wrap(st->Run(), "target " + t.target_id);
}

Result<TargetRow> Store::FindTarget(const std::string& target_id) {
  auto st = db_->Prepare(std::string(kTargetSelect) + " WHERE target_id = ?1");
  if (!st.ok()) return st.error();
  st->Bind(1, target_id);
  auto row = st->Step();
  if (!row.ok()) return row.error();
  if (!*row) return MakeError(Err::kNotFound, "no target " + target_id);
  return ReadTarget(*st);
}

Result<std::vector<TargetRow>> Store::ListTargets() {
  auto st = db_->Prepare(std::string(kTargetSelect) + " ORDER BY target_id");
  if (!st.ok()) return st.error();
  std::vector<TargetRow> out;
  for (;;) {
    auto row = st->Step();
    if (!row.ok()) return row.error();
    if (!*row) return out;
    out.push_back(ReadTarget(*st));
  }
}

Status Store::UpsertPane(const PaneRow& p) {
  if (auto st = RequireWriter(); !st.ok()) return st;
  auto st = db_->Prepare(
      "INSERT INTO panes (target_id, pane_id, session_name, window_id, window_name, updated_at) "
      "VALUES (?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT (target_id, pane_id) DO UPDATE SET "
      "session_name = excluded.session_name, window_id = excluded.window_id, "
      "window_name = excluded.window_name, updated_at = excluded.updated_at");
  if (!st.ok()) return st.error();
  st->Bind(1, p.target_id).Bind(2, p.pane_id).Bind(3, p.session_name).Bind(4, p.window_id)
      .Bind(5, p.window_name).Bind(6, p.updated_at);
  return Wrap(st->Run(), "pane " + p.target_id + "/" + p.pane_id);
}

Status Store::DeletePane(const std::string& target_id, const std::string& pane_id) {
  if (auto st = RequireWriter(); !st.ok()) return st;
  auto st = db_->Prepare("DELETE FROM panes WHERE target_id = ?1 AND pane_id = ?2");
  if (!st.ok()) return st.error();
  st->Bind(1, target_id).Bind(2, pane_id);
  return Wrap(st->Run(), "delete pane " + target_id + "/" + pane_id);
}

Result<std::vector<PaneRow>> Store::ListPanes(const std::string& target_id) {
  auto st = db_->Prepare(
      "SELECT target_id, pane_id, session_name, window_id, window_name, updated_at FROM panes "
      "WHERE target_id = ?1 ORDER BY pane_id");
  if (!st.ok()) return st.error();
  st->Bind(1, target_id);
  std::vector<PaneRow> out;
  for (;;) {
    auto row = st->Step();
    if (!row.ok()) return row.error();
    if (!*row) return out;
    out.push_back(PaneRow{st->Text(0), st->Text(1), st->Text(2), st->Text(3), st->Text(4),
                          st->Int(5)});
  }
}

Status Store::InsertAction(const ActionRow& a) {
  if (auto st = RequireWriter(); !st.ok()) return st;
  auto existing = FindActionByRequest(a.action_type, a.request_ref);
  if (existing.ok()) {
    return MakeError(Err::kIdempotencyConflict,
                     "action " + a.action_type + " with request_ref " + a.request_ref +
                         " already exists as " + existing->action_id);
  }
  if (existing.error().code != Err::kNotFound) return existing.error();
  auto st = db_->Prepare(
      "INSERT INTO actions (action_id, action_type, request_ref, target_id, pane_id, runtime_id, "
      "requested_at, completed_at, result_code, error_code, metadata_json) VALUES (?1, ?2, ?3, "
      "?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)");
  if (!st.ok()) return st.error();
  st->Bind(1, a.action_id).Bind(2, a.action_type).Bind(3, a.request_ref).Bind(4, a.target_id)
      .Bind(5, a.pane_id).BindOptText(6, a.runtime_id).Bind(7, a.requested_at)
      .BindOpt(8, a.completed_at).Bind(9, a.result_code).BindOptText(10, a.error_code)
      .Bind(11, a.metadata_json.empty() ? std::string("{}") : Redact(a.metadata_json));
  return Wrap(st->Run(), "action " + a.action_id);
}

Status Store::UpdateAction(const ActionRow& a) {
  if (auto st = RequireWriter(); !st.ok()) return st;
  auto st = db_->Prepare(
      "UPDATE actions SET completed_at = ?2, result_code = ?3, error_code = ?4, "
      "metadata_json = ?5 WHERE action_id = ?1");
  if (!st.ok()) return st.error();
  st->Bind(1, a.action_id).BindOpt(2, a.completed_at).Bind(3, a.result_code)
      .BindOptText(4, a.error_code)
      .Bind(5, a.metadata_json.empty() ? std::string("{}") : Redact(a.metadata_json));
  if (auto r = st->Run(); !r.ok()) return Wrap(r, "action " + a.action_id);
  if (db_->Changes() == 0) return MakeError(Err::kNotFound, "no action " + a.action_id);
  return core::Ok();
}

Result<ActionRow> Store::FindAction(const std::string& action_id) {
  auto st = db_->Prepare(std::string(kActionSelect) + " WHERE action_id = ?1");
  if (!st.ok()) return st.error();
  st->Bind(1, action_id);
  auto row = st->Step();
  if (!row.ok()) return row.error();
  if (!*row) return MakeError(Err::kNotFound, "no action " + action_id);
  return ReadAction(*st);
}

Result<ActionRow> Store::FindActionByRequest(const std::string& action_type,
                                             const std::string& request_ref) {
  auto st = db_->Prepare(std::string(kActionSelect) +
                         " WHERE action_type = ?1 AND request_ref = ?2");
  if (!st.ok()) return st.error();
  st->Bind(1, action_type).Bind(2, request_ref);
  auto row = st->Step();
  if (!row.ok()) return row.error();
  if (!*row) {
    return MakeError(Err::kNotFound, "no " + action_type + " action with request_ref " + request_ref);
  }
  return ReadAction(*st);
}

Status Store::InsertActionSnapshot(const ActionSnapshotRow& s) {
  if (auto st = RequireWriter(); !st.ok()) return st;
  auto st = db_->Prepare(
      "INSERT INTO action_snapshots (snapshot_id, action_id, target_id, pane_id, runtime_id, "
      "state_version, observed_at, expires_at, nonce) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)");
  if (!st.ok()) return st.error();
  st->Bind(1, s.snapshot_id).BindOptText(2, s.action_id).Bind(3, s.target_id).Bind(4, s.pane_id)
      .BindOptText(5, s.runtime_id).Bind(6, s.state_version).Bind(7, s.observed_at)
      .Bind(8, s.expires_at).Bind(9, s.nonce);
  return Wrap(st->Run(), "action snapshot " + s.snapshot_id);
}

Result<ActionSnapshotRow> Store::FindActionSnapshot(const std::string& snapshot_id) {
  auto st = db_->Prepare(
      "SELECT snapshot_id, action_id, target_id, pane_id, runtime_id, state_version, "
      "observed_at, expires_at, nonce FROM action_snapshots WHERE snapshot_id = ?1");
  if (!st.ok()) return st.error();
  st->Bind(1, snapshot_id);
  auto row = st->Step();
  if (!row.ok()) return row.error();
  if (!*row) return MakeError(Err::kNotFound, "no action snapshot " + snapshot_id);
  return ActionSnapshotRow{st->Text(0), st->Text(1), st->Text(2), st->Text(3), st->Text(4),
                           st->Int(5),  st->Int(6),  st->Int(7),  st->Text(8)};
}

Status Store::UpsertAdapter(const AdapterRow& a) {
  if (auto st = RequireWriter(); !st.ok()) return st;
  auto st = db_->Prepare(
      "INSERT INTO adapters (adapter_name, agent_type, version, capabilities, enabled, "
      "updated_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT (adapter_name) DO UPDATE SET "
      "agent_type = excluded.agent_type, version = excluded.version, "
      "capabilities = excluded.capabilities, enabled = excluded.enabled, "
      "updated_at = excluded.updated_at");
  if (!st.ok()) return st.error();
  st->Bind(1, a.adapter_name).Bind(2, a.agent_type).Bind(3, a.version).Bind(4, a.capabilities)
      .Bind(5, int64_t{a.enabled ? 1 : 0}).Bind(6, a.updated_at);
  return Wrap(st->Run(), "adapter " + a.adapter_name);
}

Result<std::vector<AdapterRow>> Store::ListAdapters() {
  auto st = db_->Prepare(
      "SELECT adapter_name, agent_type, version, capabilities, enabled, updated_at FROM adapters "
      "ORDER BY adapter_name");
  if (!st.ok()) return st.error();
  std::vector<AdapterRow> out;
  for (;;) {
    auto row = st->Step();
    if (!row.ok()) return row.error();
    if (!*row) return out;
    out.push_back(AdapterRow{st->Text(0), st->Text(1), st->Text(2), st->Text(3), st->Int(4) != 0,
                             st->Int(5)});
  }
}

}  // namespace agt::state
