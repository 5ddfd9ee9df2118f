// The SQLite store (docs/spec.md §6): the engine's records, the audit trail of
// events, the collectors' topology, and the actions audit rows, in one WAL
// database written by one connection (the daemon's loop thread).
//
// The store writes exactly what an Apply reported as changed (Effects), in
// one transaction, and nothing at all for an Effects that changed nothing,
// so a poll tick that decides nothing new never touches the disk. Every
// payload, evidence line and waiting detail passes through the redactor
// before it is bound to a statement.
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "libagtcore/base/result.h"
#include "state/engine.h"
#include "state/model.h"
#include "state/store/records.h"
#include "state/store/redact_fallback.h"

namespace agt::state {

namespace sql {
class Db;
}

/// How hard a commit waits for the disk (see docs/store.md).
enum class Durability : uint8_t {
  /// synchronous=FULL: an acknowledged commit survives power loss. Default.
  kFull,
  /// synchronous=NORMAL: survives a crash (kill -9) of agtmuxd, but the last
  /// commits may roll back on power loss. For tests and benchmarks.
  kNormal,
};

struct StoreOptions {
  std::string path;                     // the database file (":memory:" for tests)
  bool read_only = false;               // a reader connection: queries only
  Durability durability = Durability::kFull;
  int busy_timeout_ms = 5000;
  /// WAL pages after which a commit checkpoints (SQLite's default is 1000,
  /// 4 MB). Each checkpoint copies the WAL's pages into the database and
  /// syncs it; at 4000 (16 MB) a batched ingest checkpoints a quarter as
  /// often and spends far less time in it (docs/store.md, Benchmarks).
  int wal_autocheckpoint_pages = 4000;
  /// Applied to raw_payload, evidence, waiting details and action metadata
  /// before they reach SQLite. Empty: FallbackRedact.
  Redactor redact;
  /// True when the caller redacted every event before the engine saw it
  /// (core::RedactEvent; agtmuxd does it once, at ingest): the store then
  /// writes event texts, evidence, details and choices as given, and
  /// applies `redact` only to action metadata (docs/store.md, Redaction).
  bool events_redacted = false;
  /// The engine's EngineOptions::skew_budget: the store derives the stale
  /// marks and the target health key (the engine's books) with it.
  TimeNs skew_budget = EngineOptions{}.skew_budget;
};

struct RetentionOptions {
  TimeNs payload_age = 7 * 24 * 3600 * core::kNsPerSec;    // raw_payload cleared
  TimeNs metadata_age = 14 * 24 * 3600 * core::kNsPerSec;  // event rows deleted
  int batch_rows = 1000;   // rows per transaction
  int max_batches = 0;     // per call; 0 = until done
};

struct RetentionReport {
  int64_t payloads_cleared = 0;   // events + inbox rows whose raw_payload was cleared
  int64_t events_deleted = 0;
  int64_t inbox_deleted = 0;      // bound / dropped_unbound rows
  int64_t actions_deleted = 0;    // actions, with their snapshots and audit events
  bool done = true;               // false when max_batches stopped it early
};

class Store {
 public:
  /// Opens or creates the database, sets WAL + pragmas and (writer only)
  /// applies migrations. A reader on a database that is not yet created or
  /// migrated fails with E_STORE.
  static core::Result<std::unique_ptr<Store>> Open(StoreOptions options);
  ~Store();
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  // --- the engine's side -------------------------------------------------

  /// Persists one Apply's changes in one transaction. An Effects that
  /// changed nothing returns at once without opening a transaction. `now`
  /// stamps targets.updated_at for health changes.
  core::Status Commit(const Effects& fx, TimeNs now);
  /// Many Effects in one transaction (batched ingest); all or nothing.
  core::Status CommitBatch(std::span<const Effects> batch, TimeNs now);
  /// The same over Effects that are not contiguous (the daemon's batch
  /// holds each beside its event).
  core::Status CommitBatch(std::span<const Effects* const> batch, TimeNs now);
  /// The newest ingested_at the store has seen (events, inbox, books); 0
  /// when empty. The daemon stamps new events after it.
  core::Result<TimeNs> NewestIngestedAt();
  /// True when `fx` would write nothing.
  static bool Empty(const Effects& fx);

  /// Everything the engine needs to resume: all runtimes, cursors, states,
  /// candidates, pending inbox entries, target health, the dedupe keys of
  /// stored events ("runtime_id\x1fsource\x1fdedupe_key", source by wire
  /// name; "@target_id" in place of the runtime for target-scoped events)
  /// and the engine's runtime and target books: equal to Engine::Snapshot()
  /// of the engine whose Effects were committed.
  core::Result<EngineSnapshot> LoadSnapshot();

  // --- queries --------------------------------------------------------------

  /// Every pane state with its topology and runtime, ordered by target, pane.
  core::Result<std::vector<PaneStateView>> ListPaneStates();
  /// E_NOT_FOUND when absent.
  core::Result<PaneState> FindPaneState(const std::string& target_id, const std::string& pane_id);
  core::Result<Runtime> FindRuntime(const std::string& runtime_id);
  /// The runtime's events, oldest first (by ingested_at, then event_id);
  /// `limit` 0 = all.
  core::Result<std::vector<core::Event>> EventsForRuntime(const std::string& runtime_id,
                                                          int limit = 0);
  core::Result<std::vector<core::Event>> EventsForAction(const std::string& action_id);
  /// All inbox rows for a pane (any status), oldest first.
  core::Result<std::vector<InboxEntry>> InboxForPane(const std::string& target_id,
                                                     const std::string& pane_id);

  // --- topology (the collectors) --------------------------------------------

  core::Status UpsertTarget(const TargetRow& t);
  core::Result<TargetRow> FindTarget(const std::string& target_id);
  core::Result<std::vector<TargetRow>> ListTargets();
  core::Status UpsertPane(const PaneRow& p);
  core::Status DeletePane(const std::string& target_id, const std::string& pane_id);
  core::Result<std::vector<PaneRow>> ListPanes(const std::string& target_id);

  // --- actions (simple CRUD) -----------------------------------------------

  /// E_IDEMPOTENCY_CONFLICT when (action_type, request_ref) already exists.
  core::Status InsertAction(const ActionRow& a);
  /// Sets completed_at, result_code, error_code and metadata_json.
  core::Status UpdateAction(const ActionRow& a);
  core::Result<ActionRow> FindAction(const std::string& action_id);
  /// E_NOT_FOUND when absent.
  core::Result<ActionRow> FindActionByRequest(const std::string& action_type,
                                              const std::string& request_ref);
  core::Status InsertActionSnapshot(const ActionSnapshotRow& s);
  core::Result<ActionSnapshotRow> FindActionSnapshot(const std::string& snapshot_id);
  /// An action's audit event (its detail redacted like action metadata).
  core::Status InsertActionEvent(const ActionEventRow& e);
  /// The action's audit events, in order.
  core::Result<std::vector<ActionEventRow>> ActionEvents(const std::string& action_id);
  /// Copies the actions, snapshots and audit events of an action store of
  /// an older agtmuxd (its own file, <state_dir>/actions.db) into this one,
  /// in one transaction; rows already here are kept. Returns the number of
  /// actions copied. The old file is only read.
  core::Result<int64_t> ImportActionStore(const std::string& path);

  core::Status UpsertAdapter(const AdapterRow& a);
  core::Result<std::vector<AdapterRow>> ListAdapters();

  // --- maintenance ------------------------------------------------------------

  /// Clears raw_payload older than payload_age and deletes events (and
  /// bound/dropped inbox rows) older than metadata_age, measured on
  /// ingested_at against `now`, in transactions of batch_rows rows.
  core::Result<RetentionReport> RunRetention(TimeNs now, const RetentionOptions& options = {});
  /// PRAGMA integrity_check's first line ("ok" when healthy).
  core::Result<std::string> IntegrityCheck();
  /// PRAGMA wal_checkpoint(TRUNCATE).
  core::Status Checkpoint();

  /// The underlying connection, for tests and tools.
  sql::Db& db() { return *db_; }

 private:
  Store(StoreOptions options, std::unique_ptr<sql::Db> db);
  core::Status WriteBatch(std::span<const Effects* const> batch, TimeNs now);
  core::Status WriteEvent(const core::Event& e);
  core::Status WriteInbox(const InboxEntry& entry);
  core::Status WriteRuntime(const Runtime& r);
  core::Status WriteCursor(const Cursor& c);
  core::Status WriteState(const PaneState& s);
  core::Status WriteCandidate(const Candidate& c, const std::string& runtime_id);
  core::Status WriteHealth(const std::string& target_id, TargetHealth h, TimeNs now);
  // books.cc: the engine's RuntimeBook / TargetBook rows.
  core::Status WriteBooks(std::span<const Effects* const> batch);
  core::Status LoadBooks(EngineSnapshot* snap);
  core::Status RequireWriter() const;
  std::string Redact(std::string_view text) const;
  /// An event's text, evidence or waiting detail as stored: as given when
  /// options_.events_redacted, else redacted.
  std::string EventText(std::string_view text) const;
  std::string EventDetailJson(const core::WaitingDetail& d) const;

  StoreOptions options_;
  std::unique_ptr<sql::Db> db_;
};

/// Target health names: core::TargetHealthName / core::ParseTargetHealth.
using core::ParseTargetHealth;
using core::TargetHealthName;
/// "pending_bind" | "bound" | "dropped_unbound".
std::string_view InboxStatusName(InboxStatus s);
std::optional<InboxStatus> ParseInboxStatus(std::string_view name);

}  // namespace agt::state
