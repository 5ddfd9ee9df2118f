// The action service's audit events (`action_events`, schema version 5) and
// the one-time import of an older agtmuxd's separate action store
// (actions.db): its `actions`, `action_snapshots` and the audit events it
// kept in its own `events` table (docs/store.md, Actions).
#include "state/store/sqlite.h"
#include "state/store/store.h"

namespace agt::state {

using core::Err;
using core::MakeError;
using core::Result;
using core::Status;

Status Store::InsertActionEvent(const ActionEventRow& e) {
  if (auto st = RequireWriter(); !st.ok()) return st;
  auto st = db_->Prepare(
      "INSERT INTO action_events (event_id, action_id, seq, event_type, event_time, detail) "
      "VALUES (?1, ?2, ?3, ?4, ?5, ?6)");
  if (!st.ok()) return st.error();
  st->Bind(1, e.event_id).Bind(2, e.action_id).Bind(3, e.seq).Bind(4, e.event_type)
      .Bind(5, e.event_time).BindOptText(6, Redact(e.detail));
  if (auto r = st->Run(); !r.ok())
    return MakeError(r.error().code, "action event " + e.event_id + ": " + r.error().message);
  return core::Ok();
}

Result<std::vector<ActionEventRow>> Store::ActionEvents(const std::string& action_id) {
  auto st = db_->Prepare(
      "SELECT event_id, action_id, seq, event_type, event_time, detail FROM action_events "
      "WHERE action_id = ?1 ORDER BY seq");
  if (!st.ok()) return st.error();
  st->Bind(1, action_id);
  std::vector<ActionEventRow> out;
  for (;;) {
    auto row = st->Step();
    if (!row.ok()) return row.error();
    if (!*row) return out;
    out.push_back(ActionEventRow{st->Text(0), st->Text(1), st->Int(2), st->Text(3), st->Int(4), st->Text(5)});
  }
}

namespace {

// The old store's audit events were `events` rows with an action_id; their
// order within an action was ingested_at, then event_id.
constexpr const char* kImport[] = {
    "INSERT OR IGNORE INTO main.actions (action_id, action_type, request_ref, target_id, pane_id, "
    "runtime_id, requested_at, completed_at, result_code, error_code, metadata_json) "
    "SELECT action_id, action_type, request_ref, target_id, pane_id, runtime_id, requested_at, "
    "completed_at, result_code, error_code, metadata_json FROM old.actions",
    "INSERT OR IGNORE INTO main.action_snapshots (snapshot_id, action_id, target_id, pane_id, "
    "runtime_id, state_version, observed_at, expires_at, nonce) "
    "SELECT snapshot_id, action_id, target_id, pane_id, runtime_id, state_version, observed_at, "
    "expires_at, nonce FROM old.action_snapshots "
    "WHERE action_id IS NULL OR action_id IN (SELECT action_id FROM main.actions)",
    "INSERT OR IGNORE INTO main.action_events (event_id, action_id, seq, event_type, event_time, "
    "detail) SELECT event_id, action_id, ROW_NUMBER() OVER (PARTITION BY action_id ORDER BY "
    "ingested_at, event_id) - 1, event_type, event_time, raw_payload FROM old.events "
    "WHERE action_id IN (SELECT action_id FROM main.actions)",
};

}  // namespace

Result<int64_t> Store::ImportActionStore(const std::string& path) {
  if (auto st = RequireWriter(); !st.ok()) return st.error();
  auto attach = db_->Prepare("ATTACH DATABASE ?1 AS old");
  if (!attach.ok()) return attach.error();
  attach->Bind(1, path);
  if (auto r = attach->Run(); !r.ok())
    return MakeError(Err::kStore, "cannot open " + path + ": " + r.error().message);
  auto import = [&]() -> Result<int64_t> {
    auto before = db_->QueryInt("SELECT count(*) FROM main.actions");
    if (!before.ok()) return before.error();
    auto tx = sql::Transaction::Begin(*db_);
    if (!tx.ok()) return tx.error();
    for (const char* sql : kImport)
      if (auto st = db_->Exec(sql); !st.ok())
        return MakeError(Err::kStore, "importing " + path + ": " + st.error().message);
    if (auto c = tx->Commit(); !c.ok()) return c.error();
    auto after = db_->QueryInt("SELECT count(*) FROM main.actions");
    if (!after.ok()) return after.error();
    return *after - *before;
  };
  Result<int64_t> n = import();
  (void)db_->Exec("DETACH DATABASE old");
  return n;
}

}  // namespace agt::state
