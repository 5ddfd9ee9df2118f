// Retention (docs/spec.md §6): raw payloads are kept 7 days and
// event metadata 14 days, both configurable. The actions' audit follows the
// same ages: audit details are payloads, actions with their snapshots and
// audit events are metadata. The work is done in
// transactions of a bounded number of rows, each a short write lock, so a
// large backlog never stalls ingest on the same writer connection; the
// daemon can also cap the batches per call and come back later.
#include "state/store/sqlite.h"
#include "state/store/store.h"

namespace agt::state {

using core::Result;
using core::Status;

namespace {

// One bounded step: runs `sql` (which takes ?1 = cutoff, ?2 = limit) in its
// own transaction and returns the rows it changed.
Result<int64_t> Step(sql::Db& db, const char* sql, TimeNs cutoff, int limit) {
  auto tx = sql::Transaction::Begin(db);
  if (!tx.ok()) return tx.error();
  auto st = db.Prepare(sql);
  if (!st.ok()) return st.error();
  st->Bind(1, cutoff).Bind(2, int64_t{limit});
  if (auto r = st->Run(); !r.ok()) return r.error();
  int64_t n = db.Changes();
  if (auto c = tx->Commit(); !c.ok()) return c.error();
  return n;
}

// Ages are measured on ingested_at: the daemon's own clock, never a
// source's (which may be skewed or forged).
constexpr const char* kClearEventPayloads =
    "UPDATE events SET raw_payload = NULL WHERE rowid IN (SELECT rowid FROM events "
    "WHERE ingested_at < ?1 AND raw_payload IS NOT NULL LIMIT ?2)";
constexpr const char* kClearInboxPayloads =
    "UPDATE event_inbox SET raw_payload = NULL WHERE inbox_id IN (SELECT inbox_id FROM "
    "event_inbox WHERE ingested_at < ?1 AND raw_payload IS NOT NULL LIMIT ?2)";
constexpr const char* kDeleteEvents =
    "DELETE FROM events WHERE rowid IN (SELECT rowid FROM events WHERE ingested_at < ?1 "
    "LIMIT ?2)";
// Pending rows are the engine's live input (it expires them itself).
constexpr const char* kDeleteInbox =
    "DELETE FROM event_inbox WHERE inbox_id IN (SELECT inbox_id FROM event_inbox "
    "WHERE status IN ('bound', 'dropped_unbound') AND ingested_at < ?1 LIMIT ?2)";

// An action goes once nothing refers to it any more: its audit events and
// its snapshot go first (same age), then the action row.
constexpr const char* kClearActionDetails =
    "UPDATE action_events SET detail = NULL WHERE rowid IN (SELECT rowid FROM action_events "
    "WHERE event_time < ?1 AND detail IS NOT NULL LIMIT ?2)";
constexpr const char* kDeleteActionEvents =
    "DELETE FROM action_events WHERE rowid IN (SELECT rowid FROM action_events WHERE "
    "event_time < ?1 LIMIT ?2)";
constexpr const char* kDeleteActionSnapshots =
    "DELETE FROM action_snapshots WHERE rowid IN (SELECT rowid FROM action_snapshots WHERE "
    "observed_at < ?1 LIMIT ?2)";
constexpr const char* kDeleteActions =
    "DELETE FROM actions WHERE rowid IN (SELECT rowid FROM actions a WHERE requested_at < ?1 "
    "AND NOT EXISTS (SELECT 1 FROM action_events e WHERE e.action_id = a.action_id) "
    "AND NOT EXISTS (SELECT 1 FROM action_snapshots s WHERE s.action_id = a.action_id) "
    "AND NOT EXISTS (SELECT 1 FROM events v WHERE v.action_id = a.action_id) LIMIT ?2)";

}  // namespace

Result<RetentionReport> Store::RunRetention(TimeNs now, const RetentionOptions& options) {
  if (auto st = RequireWriter(); !st.ok()) return st.error();
  RetentionReport report;
  const int limit = options.batch_rows > 0 ? options.batch_rows : 1000;
  int batches = 0;
  struct Job {
    const char* sql;
    TimeNs cutoff;
    int64_t* counter;
  };
  const Job jobs[] = {
      {kDeleteEvents, now - options.metadata_age, &report.events_deleted},
      {kDeleteInbox, now - options.metadata_age, &report.inbox_deleted},
      {kClearEventPayloads, now - options.payload_age, &report.payloads_cleared},
      {kClearInboxPayloads, now - options.payload_age, &report.payloads_cleared},
      {kDeleteActionEvents, now - options.metadata_age, nullptr},
      {kDeleteActionSnapshots, now - options.metadata_age, nullptr},
      {kDeleteActions, now - options.metadata_age, &report.actions_deleted},
      {kClearActionDetails, now - options.payload_age, &report.payloads_cleared},
  };
  for (const Job& job : jobs) {
    for (;;) {
      if (options.max_batches > 0 && batches >= options.max_batches) {
        report.done = false;
        return report;
      }
      auto n = Step(*db_, job.sql, job.cutoff, limit);
      if (!n.ok()) return n.error();
      if (*n > 0) ++batches;  // an empty probe costs an index seek, not a budget slot
      if (job.counter) *job.counter += *n;
      if (*n < limit) break;
    }
  }
  return report;
}

}  // namespace agt::state
