// The engine's books in the store (state/engine.h RuntimeBook, TargetBook):
// the newest ingested_at per runtime and per target, the demotion guard,
// the stale marks and the target health key. Effects does not list them,
// but every field is a function of the events the engine stored, so the
// store derives them from the events it writes, with the engine's own rules
// (state/order.h), and keeps them in tables (schema version 2) rather than
// recomputing them from `events` at start-up: retention deletes old events,
// and a changed skew budget would change a recomputation, not the engine's
// memory. LoadBooks turns the tables back into the snapshot's books, equal
// to Engine::Snapshot() (tests/store/snapshot_test.cc).
//
// Runtime books and stale marks are maxima, so a batch is folded in memory
// first and merged into the row with max() in SQL. The target health key is
// compared with CompareInStream, which is not a plain maximum, so a
// target's book is read, folded event by event in arrival order (as the
// engine does) and written back.
#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

#include "state/fusion.h"
#include "state/order.h"
#include "state/store/sqlite.h"
#include "state/store/store.h"

namespace agt::state {

using core::Err;
using core::MakeError;
using core::Result;
using core::Status;

namespace et = core::event_type;

namespace {

constexpr int Idx(Source s) { return static_cast<int>(s); }

struct RtFold {
  TimeNs max_ingested = 0;
  int64_t demoted_version = -1;
  TimeNs demoted_at = 0;
  FusionMarks marks;
};

// The kinds of fusion_marks rows, with the field each one holds.
constexpr std::pair<std::string_view, TimeMark FusionMarks::*> kMarkKinds[] = {
    {"screen_wait", &FusionMarks::screen_wait},
    {"hook_turn", &FusionMarks::hook_turn},
};

// The sources a stale_detected marks: every source when the poller (the
// reconciler) sends it, else the sender's own.
template <typename F>
void ForMarkedSources(Source from, F f) {
  for (int s = 0; s < core::kSourceCount; ++s) {
    if (from != Source::kPoller && s != Idx(from)) continue;
    f(s);
  }
}

}  // namespace

Status Store::WriteBooks(std::span<const Effects* const> batch) {
  std::map<std::string, RtFold> runtimes;
  std::map<std::pair<std::string, int>, TimeMark> marks;  // (owner, source)
  std::map<std::string, std::vector<const core::Event*>> targets;  // target-scoped, in order
  auto fold = [&](const core::Event& e) {
    const bool stale = e.event_type == et::kStaleDetected;
    if (e.runtime_id.empty()) {  // target-scoped: health or a target-wide stale mark
      targets[e.target_id].push_back(&e);
      if (stale) {
        const TimeMark m{EffectiveTime(e, options_.skew_budget), e.ingested_at};
        ForMarkedSources(e.source, [&](int s) {
          TimeMark& have = marks[{"@" + e.target_id, s}];
          have = std::max(have, m);
        });
      }
      return;
    }
    RtFold& r = runtimes[e.runtime_id];
    RecordFusionMarks(r.marks, e, EffectiveTime(e, options_.skew_budget));
    if (e.event_type == et::kDemotionDue) {
      const int64_t v = e.source_seq.value_or(-1);
      if (std::pair(v, e.ingested_at) > std::pair(r.demoted_version, r.demoted_at)) {
        r.demoted_version = v;
        r.demoted_at = e.ingested_at;
      }
      return;
    }
    r.max_ingested = std::max(r.max_ingested, e.ingested_at);
    if (stale) {
      const TimeMark m{EffectiveTime(e, options_.skew_budget), e.ingested_at};
      ForMarkedSources(e.source, [&](int s) {
        TimeMark& have = marks[{e.runtime_id, s}];
        have = std::max(have, m);
      });
    }
  };
  for (const Effects* fx : batch) {
    if (fx->stored_event) fold(*fx->stored_event);
    for (const core::Event& e : fx->bound_events) fold(e);
  }

  // A cached statement is reset (and can be bound again) when its Stmt goes
  // out of scope, hence one Prepare per row.
  for (const auto& [id, r] : runtimes) {
    auto st = db_->Prepare(
        "INSERT INTO runtime_books (runtime_id, max_ingested, demoted_version, demoted_at) "
        "VALUES (?1, ?2, ?3, ?4) ON CONFLICT (runtime_id) DO UPDATE SET "
        "max_ingested = max(max_ingested, excluded.max_ingested), "
        "demoted_version = CASE WHEN (excluded.demoted_version, excluded.demoted_at) > "
        "(demoted_version, demoted_at) THEN excluded.demoted_version ELSE demoted_version END, "
        "demoted_at = CASE WHEN (excluded.demoted_version, excluded.demoted_at) > "
        "(demoted_version, demoted_at) THEN excluded.demoted_at ELSE demoted_at END");
    if (!st.ok()) return st.error();
    st->Bind(1, id).Bind(2, r.max_ingested).Bind(3, r.demoted_version).Bind(4, r.demoted_at);
    if (auto res = st->Run(); !res.ok()) {
      return MakeError(Err::kStore, "runtime book " + id + ": " + res.error().message);
    }
    for (const auto& [kind, field] : kMarkKinds) {
      const TimeMark& m = r.marks.*field;
      if (m.empty()) continue;
      auto mk = db_->Prepare(
          "INSERT INTO fusion_marks (runtime_id, kind, effective_time, ingested_at) "
          "VALUES (?1, ?2, ?3, ?4) ON CONFLICT (runtime_id, kind) DO UPDATE SET "
          "effective_time = CASE WHEN (excluded.effective_time, excluded.ingested_at) > "
          "(effective_time, ingested_at) THEN excluded.effective_time ELSE effective_time END, "
          "ingested_at = CASE WHEN (excluded.effective_time, excluded.ingested_at) > "
          "(effective_time, ingested_at) THEN excluded.ingested_at ELSE ingested_at END");
      if (!mk.ok()) return mk.error();
      mk->Bind(1, id).Bind(2, kind).Bind(3, m.effective_time).Bind(4, m.ingested_at);
      if (auto res = mk->Run(); !res.ok()) {
        return MakeError(Err::kStore, "fusion mark " + id + ": " + res.error().message);
      }
    }
  }
  for (const auto& [key, m] : marks) {
    auto st = db_->Prepare(
        "INSERT INTO stale_marks (owner, source, effective_time, ingested_at) "
        "VALUES (?1, ?2, ?3, ?4) ON CONFLICT (owner, source) DO UPDATE SET "
        "effective_time = CASE WHEN (excluded.effective_time, excluded.ingested_at) > "
        "(effective_time, ingested_at) THEN excluded.effective_time ELSE effective_time END, "
        "ingested_at = CASE WHEN (excluded.effective_time, excluded.ingested_at) > "
        "(effective_time, ingested_at) THEN excluded.ingested_at ELSE ingested_at END");
    if (!st.ok()) return st.error();
    st->Bind(1, key.first).Bind(2, core::SourceName(static_cast<Source>(key.second)))
        .Bind(3, m.effective_time).Bind(4, m.ingested_at);
    if (auto res = st->Run(); !res.ok()) {
      return MakeError(Err::kStore, "stale mark " + key.first + ": " + res.error().message);
    }
  }
  for (const auto& [target_id, events] : targets) {
    TargetBook b;
    {
      auto st = db_->Prepare(
          "SELECT max_ingested, health, health_source_seq, health_event_time, "
          "health_ingested_at, health_event_id FROM target_books WHERE target_id = ?1");
      if (!st.ok()) return st.error();
      st->Bind(1, target_id);
      auto row = st->Step();
      if (!row.ok()) return row.error();
      if (*row) {
        b.max_ingested = st->Int(0);
        if (!st->IsNull(1)) {
          auto h = ParseTargetHealth(st->Text(1));
          if (!h) return MakeError(Err::kStore, "target_books row " + target_id + ": bad health");
          b.has_health = true;
          b.health = *h;
          b.health_key = OrderKey{st->OptInt(2), st->Int(3), st->Int(4), st->Text(5)};
        }
      }
    }
    for (const core::Event* e : events) {
      b.max_ingested = std::max(b.max_ingested, e->ingested_at);
      if (e->event_type != et::kTargetHealthChanged) continue;
      const OrderKey key = MakeOrderKey(*e, options_.skew_budget);
      if (!b.has_health || CompareInStream(key, b.health_key) > 0) {
        b.has_health = true;
        b.health_key = key;
        b.health = ParseTargetHealth(e->health).value_or(TargetHealth::kOk);
      }
    }
    auto st = db_->Prepare(
        "INSERT INTO target_books (target_id, max_ingested, health, health_source_seq, "
        "health_event_time, health_ingested_at, health_event_id) VALUES (?1, ?2, ?3, ?4, ?5, "
        "?6, ?7) ON CONFLICT (target_id) DO UPDATE SET max_ingested = excluded.max_ingested, "
        "health = excluded.health, health_source_seq = excluded.health_source_seq, "
        "health_event_time = excluded.health_event_time, "
        "health_ingested_at = excluded.health_ingested_at, "
        "health_event_id = excluded.health_event_id");
    if (!st.ok()) return st.error();
    st->Bind(1, target_id).Bind(2, b.max_ingested);
    if (b.has_health) {
      st->Bind(3, TargetHealthName(b.health)).BindOpt(4, b.health_key.source_seq)
          .Bind(5, b.health_key.effective_time).Bind(6, b.health_key.ingested_at)
          .Bind(7, b.health_key.event_id);
    } else {
      for (int i = 3; i <= 7; ++i) st->BindNull(i);
    }
    if (auto res = st->Run(); !res.ok()) {
      return MakeError(Err::kStore, "target book " + target_id + ": " + res.error().message);
    }
  }
  return core::Ok();
}

Status Store::LoadBooks(EngineSnapshot* snap) {
  // Every runtime has a book, every target the engine knows (a pane's, or
  // one with target-scoped events) has one; absent rows are empty books.
  std::map<std::string, RuntimeBook> rbooks;
  for (const Runtime& r : snap->runtimes) {
    RuntimeBook& b = rbooks[r.runtime_id];
    b.runtime_id = r.runtime_id;
  }
  std::map<std::string, TargetBook> tbooks;
  auto target = [&](const std::string& id) -> TargetBook& {
    TargetBook& b = tbooks[id];
    b.target_id = id;
    return b;
  };
  for (const Runtime& r : snap->runtimes) {
    if (!r.pane_id.empty()) target(r.target_id);
  }
  for (const PaneState& s : snap->states) target(s.target_id);
  {
    auto st = db_->Prepare(
        "SELECT runtime_id, max_ingested, demoted_version, demoted_at FROM runtime_books");
    if (!st.ok()) return st.error();
    for (;;) {
      auto row = st->Step();
      if (!row.ok()) return row.error();
      if (!*row) break;
      auto it = rbooks.find(st->Text(0));
      if (it == rbooks.end()) {
        return MakeError(Err::kStore, "runtime_books row " + st->Text(0) + ": no such runtime");
      }
      it->second.max_ingested = st->Int(1);
      it->second.demoted_version = st->Int(2);
      it->second.demoted_at = st->Int(3);
    }
  }
  {
    auto st = db_->Prepare(
        "SELECT target_id, max_ingested, health, health_source_seq, health_event_time, "
        "health_ingested_at, health_event_id FROM target_books");
    if (!st.ok()) return st.error();
    for (;;) {
      auto row = st->Step();
      if (!row.ok()) return row.error();
      if (!*row) break;
      TargetBook& b = target(st->Text(0));
      b.max_ingested = st->Int(1);
      if (!st->IsNull(2)) {
        auto h = ParseTargetHealth(st->Text(2));
        if (!h) return MakeError(Err::kStore, "target_books row " + b.target_id + ": bad health");
        b.has_health = true;
        b.health = *h;
        b.health_key = OrderKey{st->OptInt(3), st->Int(4), st->Int(5), st->Text(6)};
      }
    }
  }
  {
    auto st = db_->Prepare("SELECT owner, source, effective_time, ingested_at FROM stale_marks");
    if (!st.ok()) return st.error();
    for (;;) {
      auto row = st->Step();
      if (!row.ok()) return row.error();
      if (!*row) break;
      const std::string owner = st->Text(0);
      auto src = core::ParseSource(st->Text(1));
      if (!src) return MakeError(Err::kStore, "stale_marks row " + owner + ": bad source");
      const TimeMark m{st->Int(2), st->Int(3)};
      if (!owner.empty() && owner[0] == '@') {
        target(owner.substr(1)).stale[Idx(*src)] = m;
      } else if (auto it = rbooks.find(owner); it != rbooks.end()) {
        it->second.stale[Idx(*src)] = m;
      } else {
        return MakeError(Err::kStore, "stale_marks row " + owner + ": no such runtime");
      }
    }
  }
  {
    auto st = db_->Prepare("SELECT runtime_id, kind, effective_time, ingested_at FROM fusion_marks");
    if (!st.ok()) return st.error();
    for (;;) {
      auto row = st->Step();
      if (!row.ok()) return row.error();
      if (!*row) break;
      const std::string id = st->Text(0);
      auto it = rbooks.find(id);
      if (it == rbooks.end()) return MakeError(Err::kStore, "fusion_marks row " + id + ": no such runtime");
      const std::string kind = st->Text(1);
      bool known = false;
      for (const auto& [name, field] : kMarkKinds) {
        if (kind != name) continue;
        it->second.marks.*field = TimeMark{st->Int(2), st->Int(3)};
        known = true;
      }
      if (!known) return MakeError(Err::kStore, "fusion_marks row " + id + ": bad kind " + kind);
    }
  }
  // A candidate's stale flag is derived from the marks, as the engine's
  // Snapshot derives it (the candidates.stale column is not updated by a
  // target-wide stale_detected, which changes no candidate row).
  std::unordered_map<std::string, const Runtime*> by_id;
  for (const Runtime& r : snap->runtimes) by_id[r.runtime_id] = &r;
  for (auto& [c, id] : snap->candidates) {
    TimeMark mark;
    if (auto rb = rbooks.find(id); rb != rbooks.end()) mark = rb->second.stale[Idx(c.source)];
    if (auto it = by_id.find(id); it != by_id.end() && !it->second->pane_id.empty()) {
      if (auto t = tbooks.find(it->second->target_id); t != tbooks.end()) {
        mark = std::max(mark, t->second.stale[Idx(c.source)]);
      }
    }
    c.stale = !mark.empty() && MarkOf(c.key) < mark;
  }
  snap->runtime_books.clear();
  for (auto& [id, b] : rbooks) snap->runtime_books.push_back(std::move(b));
  snap->target_books.clear();
  for (auto& [id, b] : tbooks) snap->target_books.push_back(std::move(b));
  return core::Ok();
}

}  // namespace agt::state
