// Snapshot and Restore: the engine's whole memory as plain records, sorted so
// that two engines holding the same facts give equal snapshots (the replay
// tests compare them), and so that the daemon can rebuild the engine from
// the store at start without replaying every event.
#include <algorithm>
#include <tuple>

#include "state/engine.h"
#include "state/engine_impl.h"

namespace agt::state {

namespace {

constexpr char kSep = '\x1f';  // between owner, source and key in a dedupe row

}  // namespace

EngineSnapshot Engine::Snapshot() const {
  const Impl& m = *impl_;
  EngineSnapshot snap;
  for (const auto& [id, r] : m.runtimes) {
    snap.runtimes.push_back(r.rt);
    RuntimeBook book{id, r.max_ingested, r.demoted_version, r.demoted_at, {}, r.marks};
    for (int s = 0; s < core::kSourceCount; ++s) {
      const Slot& slot = r.slots[s];
      book.stale[s] = slot.stale;
      const Source src = static_cast<Source>(s);
      if (slot.has_candidate) {
        snap.cursors.push_back(Cursor{id, src, slot.candidate.key});
        Candidate c = slot.candidate;
        c.stale = m.IsMarkedStale(r, r.pane != nullptr ? r.pane->target : nullptr, src);
        snap.candidates.emplace_back(std::move(c), id);
      }
    }
    snap.runtime_books.push_back(std::move(book));
  }
  for (const auto& [id, t] : m.targets) {
    snap.target_books.push_back(t.book);
    if (t.book.has_health) snap.target_health.emplace_back(id, t.book.health);
  }
  snap.dedupe_keys.reserve(m.dedupe.size());
  m.dedupe.ForEach([&](std::string_view row) { snap.dedupe_keys.emplace_back(row); });
  snap.states = AllPanes();
  for (const auto& [key, entry] : m.pending) snap.pending.push_back(entry);

  std::sort(snap.runtimes.begin(), snap.runtimes.end(),
            [](const Runtime& a, const Runtime& b) { return a.runtime_id < b.runtime_id; });
  std::sort(snap.cursors.begin(), snap.cursors.end(), [](const Cursor& a, const Cursor& b) {
    return std::tie(a.runtime_id, a.source) < std::tie(b.runtime_id, b.source);
  });
  std::sort(snap.candidates.begin(), snap.candidates.end(), [](const auto& a, const auto& b) {
    return std::tie(a.second, a.first.source) < std::tie(b.second, b.first.source);
  });
  std::sort(snap.dedupe_keys.begin(), snap.dedupe_keys.end());
  std::sort(snap.runtime_books.begin(), snap.runtime_books.end(),
            [](const RuntimeBook& a, const RuntimeBook& b) { return a.runtime_id < b.runtime_id; });
  std::sort(snap.target_books.begin(), snap.target_books.end(),
            [](const TargetBook& a, const TargetBook& b) { return a.target_id < b.target_id; });
  std::sort(snap.target_health.begin(), snap.target_health.end());
  return snap;
}

void Engine::Restore(const EngineSnapshot& snap) {
  auto fresh = std::make_unique<Impl>(impl_->opt);
  Impl& m = *fresh;
  for (const Runtime& rt : snap.runtimes) {
    auto [it, inserted] = m.runtimes.try_emplace(rt.runtime_id);
    RuntimeRec& r = it->second;
    r.rt = rt;
    if (inserted) m.runtime_index.Insert(&r);
    r.dedupe_owner = m.dedupe.Intern(rt.runtime_id);
    if (!rt.pane_id.empty()) {
      r.pane = &m.PaneFor(rt.target_id, rt.pane_id);
      r.pane->history.push_back(&r);
    }
  }
  for (const RuntimeBook& b : snap.runtime_books) {
    auto it = m.runtimes.find(b.runtime_id);
    if (it == m.runtimes.end()) continue;
    RuntimeRec& r = it->second;
    r.max_ingested = b.max_ingested;
    r.demoted_version = b.demoted_version;
    r.demoted_at = b.demoted_at;
    r.marks = b.marks;
    for (int s = 0; s < core::kSourceCount; ++s) r.slots[s].stale = b.stale[s];
  }
  for (const auto& [c, id] : snap.candidates) {
    auto it = m.runtimes.find(id);
    if (it == m.runtimes.end()) continue;
    Slot& slot = it->second.slots[static_cast<int>(c.source)];
    slot.has_candidate = true;
    slot.candidate = c;
    slot.candidate.stale = false;  // derived from the stale marks
  }
  for (const std::string& row : snap.dedupe_keys) {
    const size_t a = row.find(kSep);
    const size_t b = a == std::string::npos ? a : row.find(kSep, a + 1);
    if (b == std::string::npos) continue;
    auto src = core::ParseSource(std::string_view(row).substr(a + 1, b - a - 1));
    if (!src) continue;
    std::string owner = row.substr(0, a);
    std::string_view key = std::string_view(row).substr(b + 1);
    if (!owner.empty() && owner[0] == '@') {
      m.dedupe.Insert(m.TargetFor(owner.substr(1)).dedupe_owner, *src, key);
    } else if (auto it = m.runtimes.find(owner); it != m.runtimes.end()) {
      m.dedupe.Insert(it->second.dedupe_owner, *src, key);
    }
  }
  for (const auto& [id, health] : snap.target_health) {
    TargetBook& b = m.TargetFor(id).book;
    b.has_health = true;
    b.health = health;
  }
  for (const TargetBook& b : snap.target_books) m.TargetFor(b.target_id).book = b;
  for (const PaneState& s : snap.states) {
    PaneRec& p = m.PaneFor(s.target_id, s.pane_id);
    p.state = s;
    p.has_state = true;
    // A store that kept no books still knows the active runtime's newest
    // input: it is the state's last_seen_at.
    if (auto it = m.runtimes.find(s.runtime_id); it != m.runtimes.end() && it->second.max_ingested == 0) {
      it->second.max_ingested = s.last_seen_at;
    }
  }
  for (auto& [key, p] : m.panes) {
    std::sort(p.history.begin(), p.history.end(), [](const RuntimeRec* a, const RuntimeRec* b) {
      return std::tie(a->rt.started_at, a->rt.runtime_id) < std::tie(b->rt.started_at, b->rt.runtime_id);
    });
    p.active = nullptr;
    p.max_ingested = 0;
    for (RuntimeRec* r : p.history) {
      p.max_ingested = std::max(p.max_ingested, r->max_ingested);
      if (r->rt.ended_at == 0) p.active = r;
    }
  }
  for (const InboxEntry& e : snap.pending) {
    if (e.status != InboxStatus::kPendingBind) continue;
    m.pending_keys.insert(PendingKey(e.event));
    m.pending.emplace(std::make_pair(e.event.ingested_at, e.event.event_id), e);
  }
  impl_ = std::move(fresh);
}

}  // namespace agt::state
