// The store's schema (docs/spec.md §6; docs/store.md lists it) as a list of
// migrations. Version 1 is every table and index of the draft data model,
// plus what agtmux needs to rebuild the engine exactly at start-up: the
// winning source and evidence on `states`, per-source `candidates`, and the
// full envelope of stored and pending events. Times are INTEGER nanoseconds
// since the Unix epoch; enums are stored as their wire names and CHECKed.
//
// To change the schema, append a migration; never edit a shipped one.
#include "state/store/schema.h"

#include <string>
#include <vector>

namespace agt::state {
namespace {

constexpr std::string_view kV1 = R"sql(
CREATE TABLE targets (
  target_id      TEXT PRIMARY KEY,
  target_name    TEXT NOT NULL,
  kind           TEXT NOT NULL CHECK (kind IN ('local', 'ssh')),
  connection_ref TEXT,                 -- non-secret reference only (ssh host alias)
  is_default     INTEGER NOT NULL DEFAULT 0 CHECK (is_default IN (0, 1)),
  last_seen_at   INTEGER,
  health         TEXT NOT NULL DEFAULT 'ok' CHECK (health IN ('ok', 'degraded', 'down')),
  updated_at     INTEGER NOT NULL,
  -- agtmux: set when the engine decided `health` (target_health_changed);
  -- NULL while it is only the observer's default.
  health_updated_at INTEGER
);

CREATE TABLE panes (
  target_id    TEXT NOT NULL,
  pane_id      TEXT NOT NULL,
  session_name TEXT,
  window_id    TEXT,
  window_name  TEXT,
  updated_at   INTEGER NOT NULL,
  PRIMARY KEY (target_id, pane_id)
);

CREATE TABLE runtimes (
  runtime_id          TEXT PRIMARY KEY,
  target_id           TEXT NOT NULL,
  pane_id             TEXT NOT NULL,
  tmux_server_boot_id TEXT NOT NULL,
  pane_epoch          INTEGER NOT NULL,
  agent_type          TEXT NOT NULL,
  pid                 INTEGER,
  started_at          INTEGER NOT NULL,
  ended_at            INTEGER,
  owner               TEXT NOT NULL CHECK (owner IN ('hook', 'notify', 'wrapper', 'poller')),
  UNIQUE (target_id, tmux_server_boot_id, pane_id, pane_epoch)
);
CREATE UNIQUE INDEX runtimes_active_pane ON runtimes (target_id, pane_id)
  WHERE ended_at IS NULL;

CREATE TABLE actions (
  action_id     TEXT PRIMARY KEY,
  action_type   TEXT NOT NULL CHECK (action_type IN ('attach', 'send', 'respond', 'view-output', 'kill')),
  request_ref   TEXT NOT NULL CHECK (request_ref <> ''),
  target_id     TEXT NOT NULL,
  pane_id       TEXT NOT NULL,
  runtime_id    TEXT,
  requested_at  INTEGER NOT NULL,
  completed_at  INTEGER,
  result_code   TEXT NOT NULL DEFAULT '',
  error_code    TEXT,
  metadata_json TEXT NOT NULL DEFAULT '{}'
);
CREATE UNIQUE INDEX actions_request ON actions (action_type, request_ref);

CREATE TABLE action_snapshots (
  snapshot_id   TEXT PRIMARY KEY,
  action_id     TEXT REFERENCES actions (action_id),
  target_id     TEXT NOT NULL,
  pane_id       TEXT NOT NULL,
  runtime_id    TEXT,
  state_version INTEGER NOT NULL,
  observed_at   INTEGER NOT NULL,
  expires_at    INTEGER NOT NULL,
  nonce         TEXT NOT NULL
);

CREATE TABLE events (
  event_id        TEXT PRIMARY KEY,
  -- NULL only for target-scoped events (target_health_changed, a
  -- target-wide stale_detected), which carry target_id instead.
  runtime_id      TEXT REFERENCES runtimes (runtime_id),
  event_type      TEXT NOT NULL,
  source          TEXT NOT NULL CHECK (source IN ('hook', 'notify', 'wrapper', 'poller')),
  source_event_id TEXT,
  source_seq      INTEGER,
  event_time      INTEGER NOT NULL,
  ingested_at     INTEGER NOT NULL,
  dedupe_key      TEXT NOT NULL CHECK (dedupe_key <> ''),
  action_id       TEXT REFERENCES actions (action_id),
  raw_payload     TEXT,               -- redacted form only; cleared by retention
  -- agtmux: the rest of envelope v1, so the audit trail is the whole event.
  target_id       TEXT,
  pane_id         TEXT,
  pid             INTEGER,
  start_hint      INTEGER,
  signal_json     TEXT,
  runtime_json    TEXT,
  exit_json       TEXT,
  health          TEXT,
  UNIQUE (runtime_id, source, dedupe_key),
  CHECK (runtime_id IS NOT NULL OR target_id IS NOT NULL)
);
-- SQLite's UNIQUE lets NULLs repeat, so target-scoped events get their own.
CREATE UNIQUE INDEX events_target_dedupe ON events (target_id, source, dedupe_key)
  WHERE runtime_id IS NULL;
CREATE INDEX events_runtime_source_time ON events (runtime_id, source, ingested_at DESC);
CREATE INDEX events_ingested ON events (ingested_at DESC);
CREATE INDEX events_action ON events (action_id) WHERE action_id IS NOT NULL;

CREATE TABLE event_inbox (
  inbox_id        INTEGER PRIMARY KEY AUTOINCREMENT,
  target_id       TEXT NOT NULL,
  pane_id         TEXT NOT NULL,
  runtime_id      TEXT,
  event_type      TEXT NOT NULL,
  source          TEXT NOT NULL CHECK (source IN ('hook', 'notify', 'wrapper', 'poller')),
  dedupe_key      TEXT NOT NULL CHECK (dedupe_key <> ''),
  event_time      INTEGER NOT NULL,
  ingested_at     INTEGER NOT NULL,
  pid             INTEGER,
  start_hint      INTEGER,
  status          TEXT NOT NULL CHECK (status IN ('pending_bind', 'bound', 'dropped_unbound')),
  reason_code     TEXT,
  raw_payload     TEXT,
  -- agtmux: the rest of envelope v1, so a pending event can be re-bound
  -- after a restart.
  event_id        TEXT NOT NULL,
  source_event_id TEXT,
  source_seq      INTEGER,
  action_id       TEXT,
  signal_json     TEXT,
  runtime_json    TEXT,
  exit_json       TEXT,
  health          TEXT,
  UNIQUE (target_id, pane_id, source, dedupe_key)
);
CREATE INDEX event_inbox_status_time ON event_inbox (status, ingested_at);

CREATE TABLE runtime_source_cursors (
  runtime_id             TEXT NOT NULL REFERENCES runtimes (runtime_id),
  source                 TEXT NOT NULL CHECK (source IN ('hook', 'notify', 'wrapper', 'poller')),
  last_source_seq        INTEGER,
  last_order_event_time  INTEGER NOT NULL,  -- effective_event_time of the key
  last_order_ingested_at INTEGER NOT NULL,
  last_order_event_id    TEXT NOT NULL,
  PRIMARY KEY (runtime_id, source)
) WITHOUT ROWID;

CREATE TABLE states (
  target_id       TEXT NOT NULL,
  pane_id         TEXT NOT NULL,
  runtime_id      TEXT,
  state           TEXT NOT NULL CHECK (state IN ('running', 'waiting_input',
                    'waiting_approval', 'completed', 'idle', 'error', 'unknown')),
  reason_code     TEXT,
  confidence      TEXT NOT NULL CHECK (confidence IN ('high', 'medium', 'low')),
  state_version   INTEGER NOT NULL,
  last_source_seq INTEGER,
  last_seen_at    INTEGER NOT NULL,
  updated_at      INTEGER NOT NULL,
  -- agtmux: the decisive evidence (docs/spec.md §3).
  source          TEXT CHECK (source IN ('hook', 'notify', 'wrapper', 'poller')),
  rule_id         TEXT,
  evidence        TEXT,               -- redacted
  detail_json     TEXT,               -- WaitingDetail, redacted
  PRIMARY KEY (target_id, pane_id),
  CHECK (state <> 'unknown' OR reason_code IS NOT NULL)
);
CREATE INDEX states_updated ON states (updated_at DESC);
CREATE INDEX states_state_updated ON states (state, updated_at DESC);

-- agtmux: each source's latest opinion of a runtime, so the engine's
-- resolution inputs survive a restart (not only its output).
CREATE TABLE candidates (
  runtime_id       TEXT NOT NULL REFERENCES runtimes (runtime_id),
  source           TEXT NOT NULL CHECK (source IN ('hook', 'notify', 'wrapper', 'poller')),
  state            TEXT NOT NULL,
  reason_code      TEXT,
  confidence       TEXT NOT NULL,
  rule_id          TEXT,
  evidence         TEXT,              -- redacted
  detail_json      TEXT,              -- redacted
  event_id         TEXT NOT NULL,
  key_source_seq   INTEGER,
  key_event_time   INTEGER NOT NULL,
  key_ingested_at  INTEGER NOT NULL,
  key_event_id     TEXT NOT NULL,
  seen_at          INTEGER NOT NULL,
  stale            INTEGER NOT NULL DEFAULT 0 CHECK (stale IN (0, 1)),
  PRIMARY KEY (runtime_id, source)
) WITHOUT ROWID;

CREATE TABLE adapters (
  adapter_name TEXT PRIMARY KEY,
  agent_type   TEXT NOT NULL,
  version      TEXT NOT NULL,
  capabilities TEXT NOT NULL DEFAULT '{}',  -- JSON
  enabled      INTEGER NOT NULL DEFAULT 1 CHECK (enabled IN (0, 1)),
  updated_at   INTEGER NOT NULL
);
)sql";

// Version 2: the engine's books (state/engine.h RuntimeBook, TargetBook),
// so that LoadSnapshot restores them exactly rather than approximating
// them from the states. The store keeps them up to date from the events it
// writes (store_books.cc): every book field is a function of the stored
// events, and keeping it in a table survives retention deleting those
// events. Stale marks of both kinds share one table: owner is the
// runtime_id, or '@' || target_id for a target-wide mark.
constexpr std::string_view kV2 = R"sql(
CREATE TABLE runtime_books (
  runtime_id      TEXT PRIMARY KEY REFERENCES runtimes (runtime_id),
  max_ingested    INTEGER NOT NULL,   -- newest ingested_at, demotion_due excluded
  demoted_version INTEGER NOT NULL,   -- newest demotion_due guard version, -1 = none
  demoted_at      INTEGER NOT NULL    -- ingested_at of that demotion_due
);

CREATE TABLE target_books (
  target_id          TEXT PRIMARY KEY,
  max_ingested       INTEGER NOT NULL,  -- newest ingested_at of target-scoped events
  -- The target_health_changed that decided (NULL health: none yet), with
  -- its order key.
  health             TEXT CHECK (health IN ('ok', 'degraded', 'down')),
  health_source_seq  INTEGER,
  health_event_time  INTEGER,           -- effective event time
  health_ingested_at INTEGER,
  health_event_id    TEXT
);

CREATE TABLE stale_marks (
  owner          TEXT NOT NULL,         -- runtime_id, or '@' || target_id
  source         TEXT NOT NULL CHECK (source IN ('hook', 'notify', 'wrapper', 'poller')),
  effective_time INTEGER NOT NULL,
  ingested_at    INTEGER NOT NULL,
  PRIMARY KEY (owner, source)
) WITHOUT ROWID;
)sql";

// Version 3: the same CHECK constraints, written as OR chains. SQLite
// 3.40 evaluates `col IN ('a', 'b', ...)` in a CHECK by building an
// ephemeral b-tree of the list for every row written, which was a third of
// the CPU of a batched ingest; `(col = 'a' OR col = 'b' ...)` accepts and
// refuses exactly the same values (NULL included: both are NULL, which a
// CHECK accepts). The rows on disk do not change, so the table definitions
// are edited in place as SQLite documents for such changes (ALTER TABLE,
// "other kinds of table schema changes": writable_schema, then a schema
// reload); the CREATE/DROP that follows bumps the schema cookie so that
// other connections reload too. tests/store/schema_test.cc checks that no
// IN list is left and that every rewritten column still refuses a bad value.
struct InCheck {
  std::string_view column;
  std::vector<std::string_view> values;  // SQL literals as written in v1/v2
  std::string_view separator = ", ";     // between values, as written
};

std::string SqlQuote(std::string_view s) {
  std::string out = "'";
  for (char c : s) {
    out += c;
    if (c == '\'') out += '\'';
  }
  return out + "'";
}

std::string BuildV3() {
  const std::vector<std::string_view> sources = {"'hook'", "'notify'", "'wrapper'", "'poller'"};
  const std::vector<InCheck> checks = {
      {"kind", {"'local'", "'ssh'"}},
      {"is_default", {"0", "1"}},
      {"health", {"'ok'", "'degraded'", "'down'"}},
      {"owner", sources},
      {"action_type", {"'attach'", "'send'", "'respond'", "'view-output'", "'kill'"}},
      {"source", sources},
      {"status", {"'pending_bind'", "'bound'", "'dropped_unbound'"}},
      {"confidence", {"'high'", "'medium'", "'low'"}},
      {"stale", {"0", "1"}},
      {"enabled", {"0", "1"}},
  };
  std::string expr = "sql";
  auto replace = [&](const std::string& from, const std::string& to) {
    expr = "replace(" + expr + ", " + SqlQuote(from) + ", " + SqlQuote(to) + ")";
  };
  for (const InCheck& c : checks) {
    std::string from = std::string(c.column) + " IN (", to = "(";
    for (size_t i = 0; i < c.values.size(); ++i) {
      if (i) {
        from += c.separator;
        to += " OR ";
      }
      from += c.values[i];
      to += std::string(c.column) + " = " + std::string(c.values[i]);
    }
    replace(from + ")", to + ")");
  }
  // states.state's list is split over two lines in v1.
  replace("state IN ('running', 'waiting_input',\n                    'waiting_approval', "
          "'completed', 'idle', 'error', 'unknown')",
          "(state = 'running' OR state = 'waiting_input' OR state = 'waiting_approval' OR "
          "state = 'completed' OR state = 'idle' OR state = 'error' OR state = 'unknown')");
  return "PRAGMA writable_schema = ON;\n"
         "UPDATE sqlite_master SET sql = " + expr + " WHERE type = 'table';\n"
         "PRAGMA writable_schema = RESET;\n"
         "CREATE TABLE agtmux_schema_bump (x INTEGER);\n"
         "DROP TABLE agtmux_schema_bump;\n";
}

// Version 4: runtimes.agent_version, and row 1's memory (state/fusion.h FusionMarks), per runtime:
// the newest screen report of a waiting state and the newest hook/notify
// report of anything else. Like the stale marks, maxima over the stored
// events, kept so that retention cannot change them.
constexpr std::string_view kV4 = R"sql(
CREATE TABLE fusion_marks (
  runtime_id     TEXT NOT NULL REFERENCES runtimes (runtime_id),
  kind           TEXT NOT NULL CHECK (kind = 'screen_wait' OR kind = 'hook_turn'),
  effective_time INTEGER NOT NULL,
  ingested_at    INTEGER NOT NULL,
  PRIMARY KEY (runtime_id, kind)
) WITHOUT ROWID;

-- The agent CLI's version, as the wrapper or the collector found it
-- (NULL: not known).
ALTER TABLE runtimes ADD COLUMN agent_version TEXT;
)sql";

// Version 5: the action service's audit events, in agtmux.db (an older
// agtmuxd kept them in the `events` table of its own actions.db). Not in
// `events`: those are the engine's input, and the store derives the
// engine's books from the events it writes.
constexpr std::string_view kV5 = R"sql(
CREATE TABLE action_events (
  event_id    TEXT PRIMARY KEY,
  action_id   TEXT NOT NULL REFERENCES actions (action_id),
  seq         INTEGER NOT NULL,
  event_type  TEXT NOT NULL,
  event_time  INTEGER NOT NULL,
  detail      TEXT,               -- redacted; cleared by retention like raw payloads
  UNIQUE (action_id, seq)
);
CREATE INDEX action_events_time ON action_events (event_time);
CREATE INDEX actions_requested ON actions (requested_at);
CREATE INDEX action_snapshots_observed ON action_snapshots (observed_at);
CREATE INDEX action_snapshots_action ON action_snapshots (action_id) WHERE action_id IS NOT NULL;
)sql";

const std::vector<Migration>& AllMigrations() {
  static const std::string v3 = BuildV3();
  static const std::vector<Migration> all = {
      {1, kV1},
      {2, kV2},
      {3, v3},
      {4, kV4},
      {5, kV5},
  };
  return all;
}

}  // namespace

std::span<const Migration> Migrations() { return AllMigrations(); }

int LatestSchemaVersion() { return AllMigrations().back().version; }

core::Status ApplyMigrations(sql::Db& db) { return ApplyMigrations(db, Migrations()); }

core::Status ApplyMigrations(sql::Db& db, std::span<const Migration> migrations) {
  auto current = db.QueryInt("PRAGMA user_version");
  if (!current.ok()) return current.error();
  int latest = migrations.empty() ? 0 : migrations.back().version;
  if (*current > latest) {
    return core::MakeError(
        core::Err::kStore,
        "database schema version " + std::to_string(*current) +
            " is newer than this agtmuxd knows (" + std::to_string(latest) +
            "); upgrade agtmux or use a different state directory");
  }
  for (const Migration& m : migrations) {
    if (m.version <= *current) continue;
    auto tx = sql::Transaction::Begin(db);
    if (!tx.ok()) return tx.error();
    // Re-read inside the write lock: another process may have migrated
    // between our read and BEGIN IMMEDIATE.
    auto now = db.QueryInt("PRAGMA user_version");
    if (!now.ok()) return now.error();
    if (*now >= m.version) continue;
    if (auto st = db.Exec(m.sql); !st.ok()) {
      return core::MakeError(core::Err::kStore, "migration " + std::to_string(m.version) +
                                                    ": " + st.error().message);
    }
    if (auto st = db.Exec("PRAGMA user_version = " + std::to_string(m.version)); !st.ok()) {
      return st.error();
    }
    if (auto st = tx->Commit(); !st.ok()) return st.error();
  }
  return core::Ok();
}

}  // namespace agt::state
