// The store's write path and start-up: opening the database with the
// pragmas agtmux relies on, committing an Apply's Effects in one
// transaction, and loading the engine snapshot back. Queries live in
// queries.cc, topology and actions in topology.cc, retention in
// retention.cc.
//
// Durability: WAL with synchronous=FULL by default, so an event whose
// ingest was acknowledged (Commit returned) is on disk even after power
// loss; kill -9 of the daemon can lose only unacknowledged work.
#include "state/store/store.h"

#include <algorithm>
#include <unordered_map>

#include "state/store/event_row.h"
#include "state/store/row_codec.h"
#include "state/store/schema.h"
#include "state/store/sqlite.h"

namespace agt::state {

using core::Err;
using core::MakeError;
using core::Result;
using core::Status;

std::string_view InboxStatusName(InboxStatus s) {
  switch (s) {
    case InboxStatus::kPendingBind: return "pending_bind";
    case InboxStatus::kBound: return "bound";
    case InboxStatus::kDroppedUnbound: return "dropped_unbound";
  }
  return "pending_bind";
}

std::optional<InboxStatus> ParseInboxStatus(std::string_view name) {
  if (name == "pending_bind") return InboxStatus::kPendingBind;
  if (name == "bound") return InboxStatus::kBound;
  if (name == "dropped_unbound") return InboxStatus::kDroppedUnbound;
  return std::nullopt;
}

Result<std::unique_ptr<Store>> Store::Open(StoreOptions options) {
  if (options.path.empty()) return MakeError(Err::kStore, "store path is empty");
  auto db = sql::Db::Open(options.path, {.read_only = options.read_only, .create = true});
  if (!db.ok()) return db.error();
  sql::Db& d = **db;
  std::string pragmas = "PRAGMA busy_timeout = " + std::to_string(options.busy_timeout_ms) +
                        "; PRAGMA foreign_keys = ON;";
  if (auto st = d.Exec(pragmas); !st.ok()) return st.error();
  if (options.read_only) {
    auto v = d.QueryInt("PRAGMA user_version");
    if (!v.ok()) return v.error();
    if (*v != LatestSchemaVersion()) {
      return MakeError(Err::kStore, options.path + ": schema version " + std::to_string(*v) +
                                        ", expected " + std::to_string(LatestSchemaVersion()) +
                                        " (is agtmuxd running and up to date?)");
    }
    if (auto st = d.Exec("PRAGMA query_only = ON"); !st.ok()) return st.error();
  } else {
    auto mode = d.QueryText("PRAGMA journal_mode = WAL");
    if (!mode.ok()) return mode.error();
    if (*mode != "wal" && *mode != "memory") {
      return MakeError(Err::kStore, options.path + ": cannot enable WAL (journal_mode " +
                                        *mode + ")");
    }
    const char* sync = options.durability == Durability::kFull ? "PRAGMA synchronous = FULL"
                                                                : "PRAGMA synchronous = NORMAL";
    if (auto st = d.Exec(sync); !st.ok()) return st.error();
    if (auto st = d.Exec("PRAGMA wal_autocheckpoint = " + std::to_string(options.wal_autocheckpoint_pages));
        !st.ok()) {
      return st.error();
    }
    if (auto st = ApplyMigrations(d); !st.ok()) {
      return MakeError(Err::kStore, options.path + ": " + st.error().message);
    }
  }
  return std::unique_ptr<Store>(new Store(std::move(options), std::move(*db)));
}

Store::Store(StoreOptions options, std::unique_ptr<sql::Db> db)
    : options_(std::move(options)), db_(std::move(db)) {
  if (!options_.redact) options_.redact = FallbackRedact;
}

Store::~Store() = default;

Status Store::RequireWriter() const {
  if (options_.read_only) {
    return MakeError(Err::kStore, options_.path + ": write on a read-only store connection");
  }
  return core::Ok();
}

std::string Store::Redact(std::string_view text) const {
  if (text.empty()) return {};
  return options_.redact(text);
}

std::string Store::EventText(std::string_view text) const {
  return options_.events_redacted ? std::string(text) : Redact(text);
}

std::string Store::EventDetailJson(const core::WaitingDetail& d) const {
  if (options_.events_redacted) return EncodeDetail(d);
  core::WaitingDetail out = d;
  out.details = Redact(d.details);
  for (auto& c : out.choices) c = Redact(c);
  return EncodeDetail(out);
}

bool Store::Empty(const Effects& fx) {
  return !fx.stored_event && fx.bound_events.empty() && fx.inbox.empty() &&
         fx.runtimes.empty() && fx.cursors.empty() && fx.states.empty() &&
         fx.target_health.empty() && fx.candidates.empty();
}

Status Store::Commit(const Effects& fx, TimeNs now) {
  return CommitBatch(std::span<const Effects>(&fx, 1), now);
}

Status Store::CommitBatch(std::span<const Effects> batch, TimeNs now) {
  std::vector<const Effects*> ptrs;
  ptrs.reserve(batch.size());
  for (const Effects& fx : batch) ptrs.push_back(&fx);
  return CommitBatch(std::span<const Effects* const>(ptrs), now);
}

Status Store::CommitBatch(std::span<const Effects* const> batch, TimeNs now) {
  if (std::all_of(batch.begin(), batch.end(), [](const Effects* f) { return Empty(*f); })) {
    return core::Ok();  // nothing changed: no transaction, no WAL frame
  }
  if (auto st = RequireWriter(); !st.ok()) return st;
  auto tx = sql::Transaction::Begin(*db_);
  if (!tx.ok()) return tx.error();
  if (auto st = WriteBatch(batch, now); !st.ok()) return st;  // ~Transaction rolls back
  return tx->Commit();
}

namespace {

// The newest value per key, in first-seen key order. Keyed rows of a batch
// (states, cursors, candidates, runtimes, inbox, health) are upserts whose
// last write wins inside the one transaction, so writing only the newest
// gives the same rows with far fewer b-tree updates: a batch of 256 events
// on 16 panes writes at most 16 state rows instead of 256.
template <typename T>
class Latest {
 public:
  void Put(std::string key, const T* value) {
    auto [it, inserted] = index_.try_emplace(std::move(key), values_.size());
    if (inserted) {
      values_.push_back(value);
    } else {
      values_[it->second] = value;
    }
  }
  const std::vector<const T*>& values() const { return values_; }

 private:
  std::unordered_map<std::string, size_t> index_;
  std::vector<const T*> values_;
};

std::string Key(std::string_view a, std::string_view b) {
  std::string k;
  k.reserve(a.size() + b.size() + 1);
  k.append(a).push_back('\x1f');
  k.append(b);
  return k;
}

}  // namespace

Status Store::WriteBatch(std::span<const Effects* const> batch, TimeNs now) {
  Latest<Runtime> runtimes;
  Latest<InboxEntry> inbox;
  Latest<Cursor> cursors;
  Latest<std::pair<Candidate, std::string>> candidates;
  Latest<PaneState> states;
  Latest<std::pair<std::string, TargetHealth>> health;
  for (const Effects* f : batch) {
    const Effects& fx = *f;
    for (const Runtime& r : fx.runtimes) runtimes.Put(r.runtime_id, &r);
    for (const InboxEntry& e : fx.inbox) {
      inbox.Put(Key(Key(e.event.target_id, e.event.pane_id),
                    Key(core::SourceName(e.event.source), e.event.dedupe_key)),
                &e);
    }
    for (const Cursor& c : fx.cursors) cursors.Put(Key(c.runtime_id, core::SourceName(c.source)), &c);
    for (const auto& c : fx.candidates) {
      candidates.Put(Key(c.second, core::SourceName(c.first.source)), &c);
    }
    for (const PaneState& st : fx.states) states.Put(Key(st.target_id, st.pane_id), &st);
    for (const auto& h : fx.target_health) health.Put(h.first, &h);
  }
  // Ended runtimes first: a pane's old runtime must leave the partial unique
  // index (ended_at IS NULL) before its successor enters it. Runtimes before
  // everything else, which refers to them by foreign key.
  for (bool ended : {true, false}) {
    for (const Runtime* r : runtimes.values()) {
      if ((r->ended_at != 0) != ended) continue;
      if (auto st = WriteRuntime(*r); !st.ok()) return st;
    }
  }
  // Events are never upserts: every one is a new row.
  for (const Effects* fx : batch) {
    if (fx->stored_event) {
      if (auto st = WriteEvent(*fx->stored_event); !st.ok()) return st;
    }
    for (const core::Event& e : fx->bound_events) {
      if (auto st = WriteEvent(e); !st.ok()) return st;
    }
  }
  if (auto st = WriteBooks(batch); !st.ok()) return st;
  for (const InboxEntry* e : inbox.values()) {
    if (auto st = WriteInbox(*e); !st.ok()) return st;
  }
  for (const Cursor* c : cursors.values()) {
    if (auto st = WriteCursor(*c); !st.ok()) return st;
  }
  for (const auto* c : candidates.values()) {
    if (auto st = WriteCandidate(c->first, c->second); !st.ok()) return st;
  }
  for (const PaneState* s : states.values()) {
    if (auto st = WriteState(*s); !st.ok()) return st;
  }
  for (const auto* h : health.values()) {
    if (auto st = WriteHealth(h->first, h->second, now); !st.ok()) return st;
  }
  return core::Ok();
}

namespace {

// The event as it may be stored: `e` itself when redaction changes
// nothing (the common case, and no copy of the whole envelope), else a
// copy in `*scratch` with its secret-bearing texts (core::ForEachSecretText)
// redacted.
const core::Event& Redacted(const core::Event& e, const Redactor& redact,
                            std::optional<core::Event>* scratch) {
  std::vector<std::string> texts;
  bool changed = false;
  core::ForEachSecretText(e, [&](const std::string& text) {
    texts.push_back(text.empty() ? text : redact(text));
    changed |= texts.back() != text;
  });
  if (!changed) return e;
  core::Event& out = scratch->emplace(e);
  size_t i = 0;
  core::ForEachSecretText(out, [&](std::string& text) { text = std::move(texts[i++]); });
  return out;
}

std::string InsertEventSql() {
  return std::string("INSERT INTO events (") + internal::kEventColumns +
         ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, "
         "?17, ?18, ?19)";
}

std::string UpsertInboxSql() {
  return std::string("INSERT INTO event_inbox (") + internal::kEventColumns +
         ", status, reason_code) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, "
         "?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21) "
         "ON CONFLICT (target_id, pane_id, source, dedupe_key) DO UPDATE SET "
         "runtime_id = excluded.runtime_id, status = excluded.status, "
         "reason_code = excluded.reason_code";
}

}  // namespace

Status Store::WriteEvent(const core::Event& e) {
  static const std::string kSql = InsertEventSql();
  if (e.runtime_id.empty() && e.target_id.empty()) {
    return MakeError(Err::kStore, "event " + e.event_id + " has neither runtime_id nor target_id");
  }
  auto st = db_->Prepare(kSql);
  if (!st.ok()) return st.error();
  std::optional<core::Event> scratch;  // bound without copying: outlives Run
  internal::BindEventColumns(*st, options_.events_redacted ? e : Redacted(e, options_.redact, &scratch));
  if (auto r = st->Run(); !r.ok()) {
    return MakeError(Err::kStore, "insert event " + e.event_id + ": " + r.error().message);
  }
  return core::Ok();
}

Status Store::WriteInbox(const InboxEntry& entry) {
  static const std::string kSql = UpsertInboxSql();
  auto st = db_->Prepare(kSql);
  if (!st.ok()) return st.error();
  std::optional<core::Event> scratch;  // bound without copying: outlives Run
  internal::BindEventColumns(*st, options_.events_redacted ? entry.event
                                                                 : Redacted(entry.event, options_.redact, &scratch));
  // The inbox is keyed by pane: target/pane are "" rather than NULL when an
  // event parked for an unknown runtime did not name its pane.
  st->Bind(12, entry.event.target_id).Bind(13, entry.event.pane_id);
  st->Bind(20, InboxStatusName(entry.status)).BindOptText(21, entry.reason_code);
  if (auto r = st->Run(); !r.ok()) {
    return MakeError(Err::kStore, "inbox event " + entry.event.event_id + ": " + r.error().message);
  }
  return core::Ok();
}

Status Store::WriteRuntime(const Runtime& r) {
  auto st = db_->Prepare(
      "INSERT INTO runtimes (runtime_id, target_id, pane_id, tmux_server_boot_id, pane_epoch, "
      "agent_type, pid, started_at, ended_at, owner, agent_version) VALUES (?1, ?2, ?3, ?4, "
      "?5, ?6, ?7, ?8, ?9, ?10, ?11) ON CONFLICT (runtime_id) DO UPDATE SET "
      "agent_type = excluded.agent_type, pid = excluded.pid, ended_at = excluded.ended_at, "
      "owner = excluded.owner, agent_version = excluded.agent_version");
  if (!st.ok()) return st.error();
  st->Bind(1, r.runtime_id).Bind(2, r.target_id).Bind(3, r.pane_id).Bind(4, r.boot_id)
      .Bind(5, r.pane_epoch).Bind(6, r.agent_type).BindOpt(7, r.pid).Bind(8, r.started_at)
      .Bind(10, core::SourceName(r.owner));
  if (r.ended_at != 0) st->Bind(9, r.ended_at); else st->BindNull(9);
  if (!r.agent_version.empty()) st->Bind(11, r.agent_version); else st->BindNull(11);
  if (auto res = st->Run(); !res.ok()) {
    return MakeError(Err::kStore, "runtime " + r.runtime_id + ": " + res.error().message);
  }
  return core::Ok();
}

Status Store::WriteCursor(const Cursor& c) {
  auto st = db_->Prepare(
      "INSERT INTO runtime_source_cursors (runtime_id, source, last_source_seq, "
      "last_order_event_time, last_order_ingested_at, last_order_event_id) VALUES (?1, ?2, ?3, "
      "?4, ?5, ?6) ON CONFLICT (runtime_id, source) DO UPDATE SET "
      "last_source_seq = excluded.last_source_seq, "
      "last_order_event_time = excluded.last_order_event_time, "
      "last_order_ingested_at = excluded.last_order_ingested_at, "
      "last_order_event_id = excluded.last_order_event_id");
  if (!st.ok()) return st.error();
  st->Bind(1, c.runtime_id).Bind(2, core::SourceName(c.source)).BindOpt(3, c.last.source_seq)
      .Bind(4, c.last.effective_time).Bind(5, c.last.ingested_at).Bind(6, c.last.event_id);
  if (auto res = st->Run(); !res.ok()) {
    return MakeError(Err::kStore, "cursor " + c.runtime_id + "/" +
                                      std::string(core::SourceName(c.source)) + ": " +
                                      res.error().message);
  }
  return core::Ok();
}

Status Store::WriteCandidate(const Candidate& c, const std::string& runtime_id) {
  auto st = db_->Prepare(
      "INSERT INTO candidates (runtime_id, source, state, reason_code, confidence, rule_id, "
      "evidence, detail_json, event_id, key_source_seq, key_event_time, key_ingested_at, "
      "key_event_id, seen_at, stale) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, "
      "?12, ?13, ?14, ?15) ON CONFLICT (runtime_id, source) DO UPDATE SET "
      "state = excluded.state, reason_code = excluded.reason_code, "
      "confidence = excluded.confidence, rule_id = excluded.rule_id, "
      "evidence = excluded.evidence, detail_json = excluded.detail_json, "
      "event_id = excluded.event_id, key_source_seq = excluded.key_source_seq, "
      "key_event_time = excluded.key_event_time, key_ingested_at = excluded.key_ingested_at, "
      "key_event_id = excluded.key_event_id, seen_at = excluded.seen_at, "
      "stale = excluded.stale");
  if (!st.ok()) return st.error();
  st->Bind(1, runtime_id).Bind(2, core::SourceName(c.source))
      .Bind(3, core::StateName(c.signal.state)).BindOptText(4, c.signal.reason_code)
      .Bind(5, core::ConfidenceName(c.signal.confidence)).BindOptText(6, c.signal.rule_id)
      .BindOptText(7, EventText(c.signal.evidence))
      .BindOptText(8, EventDetailJson(c.signal.detail))
      .Bind(9, c.event_id).BindOpt(10, c.key.source_seq).Bind(11, c.key.effective_time)
      .Bind(12, c.key.ingested_at).Bind(13, c.key.event_id).Bind(14, c.seen_at)
      .Bind(15, int64_t{c.stale ? 1 : 0});
  if (auto res = st->Run(); !res.ok()) {
    return MakeError(Err::kStore, "candidate " + runtime_id + "/" +
                                      std::string(core::SourceName(c.source)) + ": " +
                                      res.error().message);
  }
  return core::Ok();
}

Status Store::WriteState(const PaneState& s) {
  auto st = db_->Prepare(
      "INSERT INTO states (target_id, pane_id, runtime_id, state, reason_code, confidence, "
      "state_version, last_source_seq, last_seen_at, updated_at, source, rule_id, evidence, "
      "detail_json) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14) "
      "ON CONFLICT (target_id, pane_id) DO UPDATE SET runtime_id = excluded.runtime_id, "
      "state = excluded.state, reason_code = excluded.reason_code, "
      "confidence = excluded.confidence, state_version = excluded.state_version, "
      "last_source_seq = excluded.last_source_seq, last_seen_at = excluded.last_seen_at, "
      "updated_at = excluded.updated_at, source = excluded.source, rule_id = excluded.rule_id, "
      "evidence = excluded.evidence, detail_json = excluded.detail_json");
  if (!st.ok()) return st.error();
  st->Bind(1, s.target_id).Bind(2, s.pane_id).BindOptText(3, s.runtime_id)
      .Bind(4, core::StateName(s.signal.state)).BindOptText(5, s.signal.reason_code)
      .Bind(6, core::ConfidenceName(s.signal.confidence)).Bind(7, s.state_version)
      .BindOpt(8, s.last_source_seq).Bind(9, s.last_seen_at).Bind(10, s.updated_at)
      .BindOptText(12, s.signal.rule_id).BindOptText(13, EventText(s.signal.evidence))
      .BindOptText(14, EventDetailJson(s.signal.detail));
  if (s.has_source) st->Bind(11, core::SourceName(s.source)); else st->BindNull(11);
  if (auto res = st->Run(); !res.ok()) {
    return MakeError(Err::kStore, "state " + s.target_id + "/" + s.pane_id + " (" +
                                      std::string(core::StateName(s.signal.state)) + "): " +
                                      res.error().message);
  }
  return core::Ok();
}

Status Store::WriteHealth(const std::string& target_id, TargetHealth h, TimeNs now) {
  // The collectors may not have written the targets row yet: create a
  // placeholder (name = id, kind local) that UpsertTarget completes.
  auto st = db_->Prepare(
      "INSERT INTO targets (target_id, target_name, kind, health, health_updated_at, "
      "updated_at) VALUES (?1, ?1, 'local', ?2, ?3, ?3) ON CONFLICT (target_id) DO UPDATE SET "
      "health = excluded.health, health_updated_at = excluded.health_updated_at, "
      "updated_at = excluded.updated_at");
  if (!st.ok()) return st.error();
  st->Bind(1, target_id).Bind(2, TargetHealthName(h)).Bind(3, now);
  if (auto res = st->Run(); !res.ok()) {
    return MakeError(Err::kStore, "target health " + target_id + ": " + res.error().message);
  }
  return core::Ok();
}

Result<TimeNs> Store::NewestIngestedAt() {
  return db_->QueryInt(
      "SELECT max(coalesce((SELECT max(ingested_at) FROM events), 0), "
      "coalesce((SELECT max(ingested_at) FROM event_inbox), 0), "
      "coalesce((SELECT max(max(max_ingested, demoted_at)) FROM runtime_books), 0), "
      "coalesce((SELECT max(max_ingested) FROM target_books), 0))");
}

Result<std::string> Store::IntegrityCheck() { return db_->QueryText("PRAGMA integrity_check"); }

Status Store::Checkpoint() {
  if (auto st = RequireWriter(); !st.ok()) return st;
  return db_->Exec("PRAGMA wal_checkpoint(TRUNCATE)");
}

}  // namespace agt::state
