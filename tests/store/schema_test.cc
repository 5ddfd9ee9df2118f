// The store's schema: every table, column and index of docs/spec.md §6 and
// docs/store.md exists, migrations are idempotent and refuse a newer
// database, and the database-level invariants (partial unique index,
// dedupe uniqueness, CHECKs) hold.
#include "state/store/schema.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "state/store/sqlite.h"
#include "state/store/store.h"
#include "tests/store/store_fixtures.h"

namespace agt::state {
namespace {

using storetest::TempDir;

std::set<std::string> Columns(sql::Db& db, const std::string& table) {
  std::set<std::string> out;
  auto st = db.Prepare("SELECT name FROM pragma_table_info(?1)");
  EXPECT_TRUE(st.ok());
  st->Bind(1, table);
  while (*st->Step()) out.insert(st->Text(0));
  return out;
}

std::string IndexSql(sql::Db& db, const std::string& name) {
  auto st = db.Prepare("SELECT sql FROM sqlite_master WHERE type = 'index' AND name = ?1");
  EXPECT_TRUE(st.ok());
  st->Bind(1, name);
  auto row = st->Step();
  return row.ok() && *row ? st->Text(0) : "";
}

// (columns of the index in order, unique, partial) via pragma index_list/xinfo.
struct IndexInfo {
  std::vector<std::string> columns;  // "name DESC" for descending
  bool unique = false;
  bool partial = false;
};

std::vector<IndexInfo> Indexes(sql::Db& db, const std::string& table) {
  std::vector<IndexInfo> out;
  std::vector<std::tuple<std::string, bool, bool>> list;
  {
    auto st = db.Prepare("SELECT name, \"unique\", partial FROM pragma_index_list(?1)");
    EXPECT_TRUE(st.ok());
    st->Bind(1, table);
    while (*st->Step()) list.emplace_back(st->Text(0), st->Int(1) != 0, st->Int(2) != 0);
  }
  for (const auto& [name, unique, partial] : list) {
    IndexInfo info{{}, unique, partial};
    auto st = db.Prepare("SELECT name, desc FROM pragma_index_xinfo(?1) WHERE key = 1 ORDER BY seqno");
    EXPECT_TRUE(st.ok());
    st->Bind(1, name);
    while (*st->Step()) info.columns.push_back(st->Text(0) + (st->Int(1) ? " DESC" : ""));
    out.push_back(info);
  }
  return out;
}

bool HasIndex(sql::Db& db, const std::string& table, std::vector<std::string> cols, bool unique,
              bool partial = false) {
  for (const auto& i : Indexes(db, table)) {
    if (i.columns == cols && i.unique == unique && i.partial == partial) return true;
  }
  return false;
}

class SchemaTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s = Store::Open(storetest::Opts(dir_.File("agtmux.db")));
    ASSERT_TRUE(s.ok()) << s.error().ToString();
    store_ = std::move(*s);
  }
  sql::Db& db() { return store_->db(); }

  TempDir dir_;
  std::unique_ptr<Store> store_;
};

TEST_F(SchemaTest, EveryDraftTableHasItsColumns) {
  const std::map<std::string, std::set<std::string>> want = {
      {"targets", {"target_id", "target_name", "kind", "connection_ref", "is_default",
                   "last_seen_at", "health", "updated_at"}},
      {"panes", {"target_id", "pane_id", "session_name", "window_id", "window_name", "updated_at"}},
      {"runtimes", {"runtime_id", "target_id", "pane_id", "tmux_server_boot_id", "pane_epoch",
                    "agent_type", "pid", "started_at", "ended_at"}},
      {"events", {"event_id", "runtime_id", "event_type", "source", "source_event_id",
                  "source_seq", "event_time", "ingested_at", "dedupe_key", "action_id",
                  "raw_payload"}},
      {"event_inbox", {"inbox_id", "target_id", "pane_id", "runtime_id", "event_type", "source",
                       "dedupe_key", "event_time", "ingested_at", "pid", "start_hint", "status",
                       "reason_code", "raw_payload"}},
      {"runtime_source_cursors", {"runtime_id", "source", "last_source_seq",
                                  "last_order_event_time", "last_order_ingested_at",
                                  "last_order_event_id"}},
      {"states", {"target_id", "pane_id", "runtime_id", "state", "reason_code", "confidence",
                  "state_version", "last_source_seq", "last_seen_at", "updated_at",
                  // agtmux's additions: the decisive evidence.
                  "source", "rule_id", "evidence", "detail_json"}},
      {"action_snapshots", {"snapshot_id", "action_id", "target_id", "pane_id", "runtime_id",
                            "state_version", "observed_at", "expires_at", "nonce"}},
      {"actions", {"action_id", "action_type", "request_ref", "target_id", "pane_id",
                   "runtime_id", "requested_at", "completed_at", "result_code", "error_code",
                   "metadata_json"}},
      {"adapters", {"adapter_name", "agent_type", "version", "capabilities", "enabled",
                    "updated_at"}},
      {"candidates", {"runtime_id", "source", "state", "reason_code", "confidence", "rule_id",
                      "evidence", "detail_json", "event_id", "key_source_seq", "key_event_time",
                      "key_ingested_at", "key_event_id", "seen_at", "stale"}},
  };
  for (const auto& [table, cols] : want) {
    auto have = Columns(db(), table);
    ASSERT_FALSE(have.empty()) << "missing table " << table;
    for (const auto& c : cols) EXPECT_TRUE(have.count(c)) << table << "." << c << " missing";
  }
}

TEST_F(SchemaTest, PrimaryKeysAreTheDraftOnes) {
  auto pk = [&](const std::string& table) {
    std::vector<std::string> out;
    auto st = db().Prepare("SELECT name FROM pragma_table_info(?1) WHERE pk > 0 ORDER BY pk");
    EXPECT_TRUE(st.ok());
    st->Bind(1, table);
    while (*st->Step()) out.push_back(st->Text(0));
    return out;
  };
  EXPECT_EQ(pk("targets"), (std::vector<std::string>{"target_id"}));
  EXPECT_EQ(pk("panes"), (std::vector<std::string>{"target_id", "pane_id"}));
  EXPECT_EQ(pk("runtimes"), (std::vector<std::string>{"runtime_id"}));
  EXPECT_EQ(pk("events"), (std::vector<std::string>{"event_id"}));
  EXPECT_EQ(pk("event_inbox"), (std::vector<std::string>{"inbox_id"}));
  EXPECT_EQ(pk("runtime_source_cursors"), (std::vector<std::string>{"runtime_id", "source"}));
  EXPECT_EQ(pk("states"), (std::vector<std::string>{"target_id", "pane_id"}));
  EXPECT_EQ(pk("action_snapshots"), (std::vector<std::string>{"snapshot_id"}));
  EXPECT_EQ(pk("actions"), (std::vector<std::string>{"action_id"}));
  EXPECT_EQ(pk("adapters"), (std::vector<std::string>{"adapter_name"}));
}

TEST_F(SchemaTest, RequiredBaselineIndexesExist) {
  EXPECT_TRUE(HasIndex(db(), "runtimes", {"target_id", "pane_id"}, true, true));
  EXPECT_NE(IndexSql(db(), "runtimes_active_pane").find("WHERE ended_at IS NULL"),
            std::string::npos);
  EXPECT_TRUE(HasIndex(db(), "runtimes",
                       {"target_id", "tmux_server_boot_id", "pane_id", "pane_epoch"}, true));
  EXPECT_TRUE(HasIndex(db(), "actions", {"action_type", "request_ref"}, true));
  EXPECT_TRUE(HasIndex(db(), "events", {"runtime_id", "source", "ingested_at DESC"}, false));
  EXPECT_TRUE(HasIndex(db(), "events", {"ingested_at DESC"}, false));
  EXPECT_TRUE(HasIndex(db(), "events", {"runtime_id", "source", "dedupe_key"}, true));
  EXPECT_TRUE(HasIndex(db(), "event_inbox", {"status", "ingested_at"}, false));
  EXPECT_TRUE(HasIndex(db(), "event_inbox", {"target_id", "pane_id", "source", "dedupe_key"}, true));
  EXPECT_TRUE(HasIndex(db(), "states", {"updated_at DESC"}, false));
  EXPECT_TRUE(HasIndex(db(), "states", {"state", "updated_at DESC"}, false));
}

TEST_F(SchemaTest, PragmasAreSet) {
  EXPECT_EQ(*db().QueryText("PRAGMA journal_mode"), "wal");
  EXPECT_EQ(*db().QueryInt("PRAGMA foreign_keys"), 1);
  EXPECT_EQ(*db().QueryInt("PRAGMA synchronous"), 2);  // FULL
  EXPECT_EQ(*db().QueryInt("PRAGMA busy_timeout"), 5000);
  EXPECT_EQ(*db().QueryInt("PRAGMA wal_autocheckpoint"), 4000);
  EXPECT_EQ(*db().QueryInt("PRAGMA user_version"), LatestSchemaVersion());
  EXPECT_EQ(*store_->IntegrityCheck(), "ok");
}

TEST_F(SchemaTest, NormalDurabilityIsSynchronousNormal) {
  auto s = Store::Open(storetest::Opts(dir_.File("normal.db"), Durability::kNormal));
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(*(*s)->db().QueryInt("PRAGMA synchronous"), 1);
}

TEST_F(SchemaTest, ReopenIsIdempotent) {
  auto schema_before = db().QueryText("SELECT group_concat(sql, ';') FROM sqlite_master");
  ASSERT_TRUE(schema_before.ok());
  store_.reset();
  for (int i = 0; i < 3; ++i) {
    auto s = Store::Open(storetest::Opts(dir_.File("agtmux.db")));
    ASSERT_TRUE(s.ok()) << s.error().ToString();
    EXPECT_EQ(*(*s)->db().QueryText("SELECT group_concat(sql, ';') FROM sqlite_master"),
              *schema_before);
    EXPECT_EQ(*(*s)->db().QueryInt("PRAGMA user_version"), LatestSchemaVersion());
  }
}

TEST_F(SchemaTest, MigrationsApplyInOrderAndOnlyOnce) {
  auto d = sql::Db::Open(dir_.File("m.db"), {});
  ASSERT_TRUE(d.ok());
  const Migration steps[] = {
      {1, "CREATE TABLE a (x INTEGER)"},
      {2, "ALTER TABLE a ADD COLUMN y TEXT"},
  };
  ASSERT_TRUE(ApplyMigrations(**d, std::span(steps, 1)).ok());
  EXPECT_EQ(*(*d)->QueryInt("PRAGMA user_version"), 1);
  ASSERT_TRUE(ApplyMigrations(**d, steps).ok());
  EXPECT_EQ(*(*d)->QueryInt("PRAGMA user_version"), 2);
  // Re-running would fail ("duplicate column y") if step 2 ran again.
  auto again = ApplyMigrations(**d, steps);
  EXPECT_TRUE(again.ok()) << again.error().ToString();
}

TEST_F(SchemaTest, FailedMigrationRollsBackToTheLastVersion) {
  auto d = sql::Db::Open(dir_.File("m.db"), {});
  ASSERT_TRUE(d.ok());
  const Migration steps[] = {
      {1, "CREATE TABLE a (x INTEGER)"},
      {2, "CREATE TABLE b (y INTEGER); CREATE TABLE a (z INTEGER)"},  // second part fails
  };
  auto st = ApplyMigrations(**d, steps);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().code, core::Err::kStore);
  EXPECT_NE(st.error().message.find("migration 2"), std::string::npos) << st.error().message;
  EXPECT_EQ(*(*d)->QueryInt("PRAGMA user_version"), 1);
  EXPECT_EQ(*(*d)->QueryInt("SELECT count(*) FROM sqlite_master WHERE name = 'b'"), 0);
}

TEST_F(SchemaTest, NewerSchemaIsAClearError) {
  ASSERT_TRUE(db().Exec("PRAGMA user_version = 99").ok());
  store_.reset();
  auto s = Store::Open(storetest::Opts(dir_.File("agtmux.db")));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code, core::Err::kStore);
  EXPECT_NE(s.error().message.find("schema version 99 is newer"), std::string::npos)
      << s.error().message;
}

TEST_F(SchemaTest, ReaderNeedsAMigratedDatabase) {
  auto fresh = sql::Db::Open(dir_.File("empty.db"), {});
  ASSERT_TRUE(fresh.ok());
  fresh->reset();
  auto r = Store::Open(storetest::ReaderOpts(dir_.File("empty.db")));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("schema version 0"), std::string::npos) << r.error().message;

  auto reader = Store::Open(storetest::ReaderOpts(dir_.File("agtmux.db")));
  ASSERT_TRUE(reader.ok()) << reader.error().ToString();
  auto st = (*reader)->UpsertPane({"host", "%1", "s", "@1", "w", storetest::kT0});
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find("read-only"), std::string::npos);
}

TEST_F(SchemaTest, PartialUniqueIndexAllowsOneActiveRuntimePerPane) {
  auto insert = [&](const std::string& id, int epoch, const char* ended) {
    return db().Exec("INSERT INTO runtimes (runtime_id, target_id, pane_id, tmux_server_boot_id, "
                     "pane_epoch, agent_type, started_at, ended_at, owner) VALUES ('" + id +
                     "', 'host', '%1', 'b', " + std::to_string(epoch) + ", 'claude', 1, " +
                     ended + ", 'wrapper')");
  };
  ASSERT_TRUE(insert("r1", 0, "NULL").ok());
  auto second = insert("r2", 1, "NULL");
  ASSERT_FALSE(second.ok());
  EXPECT_NE(second.error().message.find("UNIQUE"), std::string::npos) << second.error().message;
  // Ended runtimes do not count.
  EXPECT_TRUE(insert("r3", 2, "5").ok());
  EXPECT_TRUE(insert("r4", 3, "6").ok());
  ASSERT_TRUE(db().Exec("UPDATE runtimes SET ended_at = 7 WHERE runtime_id = 'r1'").ok());
  EXPECT_TRUE(insert("r2", 1, "NULL").ok());
  // Same (target, boot, pane, epoch) twice is refused even when ended.
  EXPECT_FALSE(insert("r5", 3, "8").ok());
}

TEST_F(SchemaTest, ChecksRejectBadEnumsAndUnknownWithoutReason) {
  EXPECT_FALSE(db().Exec("INSERT INTO states (target_id, pane_id, state, confidence, "
                         "state_version, last_seen_at, updated_at) VALUES "
                         "('h', '%1', 'unknown', 'low', 1, 1, 1)").ok());
  EXPECT_FALSE(db().Exec("INSERT INTO states (target_id, pane_id, state, confidence, "
                         "state_version, last_seen_at, updated_at) VALUES "
                         "('h', '%1', 'busy', 'low', 1, 1, 1)").ok());
  EXPECT_FALSE(db().Exec("INSERT INTO targets (target_id, target_name, kind, updated_at) "
                         "VALUES ('t', 't', 'ftp', 1)").ok());
  EXPECT_TRUE(db().Exec("INSERT INTO states (target_id, pane_id, state, reason_code, confidence, "
                        "state_version, last_seen_at, updated_at) VALUES "
                        "('h', '%1', 'unknown', 'no_agent', 'low', 1, 1, 1)").ok());
}

// Version 3 rewrote every `col IN (...)` CHECK as an OR chain (cheaper
// per row in SQLite 3.40). None may be left; the connection that migrated
// must already use the new definitions (no ephemeral table when a row is
// written); and every rewritten column must still refuse a bad value.
TEST_F(SchemaTest, ChecksAreOrChainsAndStillRefuseBadValues) {
  EXPECT_EQ(*db().QueryInt("SELECT count(*) FROM sqlite_master WHERE sql LIKE '% IN (%'"), 0);
  EXPECT_EQ(*db().QueryText("PRAGMA integrity_check"), "ok");
  auto plan = db().Prepare(
      "EXPLAIN INSERT INTO states (target_id, pane_id, state, confidence, state_version, "
      "last_seen_at, updated_at, source) VALUES ('h', '%1', 'idle', 'low', 1, 1, 1, 'hook')");
  ASSERT_TRUE(plan.ok());
  int ephemeral = 0;
  while (*plan->Step()) ephemeral += plan->Text(1) == "OpenEphemeral" ? 1 : 0;
  EXPECT_EQ(ephemeral, 0);
  ASSERT_TRUE(db().Exec("INSERT INTO runtimes (runtime_id, target_id, pane_id, tmux_server_boot_id, "
                        "pane_epoch, agent_type, started_at, owner) VALUES ('r', 'h', '%1', 'b', 0, "
                        "'claude', 1, 'wrapper')").ok());
  const std::vector<std::string> bad = {
      "INSERT INTO targets (target_id, target_name, kind, updated_at) VALUES ('t', 't', 'ftp', 1)",
      "INSERT INTO targets (target_id, target_name, kind, is_default, updated_at) VALUES ('t', 't', 'local', 2, 1)",
      "INSERT INTO targets (target_id, target_name, kind, health, updated_at) VALUES ('t', 't', 'local', 'meh', 1)",
      "INSERT INTO runtimes (runtime_id, target_id, pane_id, tmux_server_boot_id, pane_epoch, agent_type, "
      "started_at, owner) VALUES ('r2', 'h', '%2', 'b', 0, 'claude', 1, 'ghost')",
      "INSERT INTO actions (action_id, action_type, request_ref, target_id, pane_id, requested_at, "
      "result_code) VALUES ('a', 'delete', 'x', 'h', '%1', 1, 'ok')",
      "INSERT INTO events (event_id, runtime_id, event_type, source, event_time, ingested_at, dedupe_key) "
      "VALUES ('e', 'r', 'state_changed', 'ghost', 1, 1, 'k')",
      "INSERT INTO event_inbox (target_id, pane_id, event_type, source, dedupe_key, event_time, "
      "ingested_at, status, event_id) VALUES ('h', '%1', 'x', 'hook', 'k', 1, 1, 'lost', 'e')",
      "INSERT INTO states (target_id, pane_id, state, confidence, state_version, last_seen_at, updated_at) "
      "VALUES ('h', '%1', 'busy', 'low', 1, 1, 1)",
      "INSERT INTO states (target_id, pane_id, state, confidence, state_version, last_seen_at, updated_at) "
      "VALUES ('h', '%1', 'idle', 'certain', 1, 1, 1)",
      "INSERT INTO states (target_id, pane_id, state, confidence, state_version, last_seen_at, updated_at, "
      "source) VALUES ('h', '%1', 'idle', 'low', 1, 1, 1, 'ghost')",
      "INSERT INTO candidates (runtime_id, source, state, confidence, event_id, key_event_time, "
      "key_ingested_at, key_event_id, seen_at, stale) VALUES ('r', 'hook', 'idle', 'low', 'e', 1, 1, 'e', 1, 2)",
      "INSERT INTO runtime_source_cursors (runtime_id, source, last_order_event_time, "
      "last_order_ingested_at, last_order_event_id) VALUES ('r', 'ghost', 1, 1, 'e')",
      "INSERT INTO adapters (adapter_name, agent_type, version, enabled, updated_at) VALUES ('a', 'c', '1', 3, 1)",
      "INSERT INTO stale_marks (owner, source, effective_time, ingested_at) VALUES ('r', 'ghost', 1, 1)",
      "INSERT INTO target_books (target_id, max_ingested, health) VALUES ('t', 1, 'meh')",
  };
  for (const std::string& q : bad) {
    auto st = db().Exec(q);
    ASSERT_FALSE(st.ok()) << q;
    EXPECT_NE(st.error().message.find("CHECK"), std::string::npos) << q << ": " << st.error().message;
  }
  // NULL passes a CHECK in both forms (states.source is nullable).
  EXPECT_TRUE(db().Exec("INSERT INTO states (target_id, pane_id, state, confidence, state_version, "
                        "last_seen_at, updated_at, source) VALUES ('h', '%1', 'idle', 'low', 1, 1, 1, NULL)")
                  .ok());
}

// A version 2 database with rows is upgraded in place; the rows stay.
TEST_F(SchemaTest, VersionTwoDatabaseUpgradesWithItsRows) {
  const std::string path = dir_.File("v2.db");
  {
    auto d = sql::Db::Open(path, {});
    ASSERT_TRUE(d.ok());
    ASSERT_TRUE((*d)->Exec("PRAGMA journal_mode = WAL").ok());
    ASSERT_TRUE(ApplyMigrations(**d, Migrations().first(2)).ok());
    ASSERT_EQ(*(*d)->QueryInt("PRAGMA user_version"), 2);
    ASSERT_TRUE((*d)->Exec("INSERT INTO targets (target_id, target_name, kind, updated_at) VALUES "
                           "('t', 't', 'local', 1)").ok());
  }
  auto s = Store::Open(storetest::Opts(path));
  ASSERT_TRUE(s.ok()) << s.error().ToString();
  EXPECT_EQ(*(*s)->db().QueryInt("PRAGMA user_version"), LatestSchemaVersion());
  EXPECT_EQ(*(*s)->db().QueryText("PRAGMA integrity_check"), "ok");
  EXPECT_EQ(*(*s)->db().QueryInt("SELECT count(*) FROM targets WHERE target_id = 't'"), 1);
  EXPECT_EQ(*(*s)->db().QueryInt("SELECT count(*) FROM sqlite_master WHERE sql LIKE '% IN (%'"), 0);
  EXPECT_FALSE((*s)->db().Exec("INSERT INTO targets (target_id, target_name, kind, updated_at) VALUES "
                               "('u', 'u', 'ftp', 1)").ok());
}

}  // namespace
}  // namespace agt::state
