// The state engine's event path: validation, dedupe, the per-(runtime,
// source) cursor, the runtime guard, and what each event type changes. Every
// fact the engine keeps is a maximum or minimum over the events received (the
// newest candidate per source, the newest stale mark, the earliest end of a
// runtime, ...), never "whatever arrived last": that is what makes a shuffled
// replay converge to the same state (NFR-8). Lifecycle and binding live in
// engine_lifecycle.cc, resolution and views in engine_resolve.cc.
#include "state/engine.h"

#include <algorithm>

#include "libagtcore/base/result.h"
#include "state/engine_impl.h"
#include "state/field_copy.h"

namespace agt::state {

namespace et = core::event_type;

namespace {

constexpr int Idx(Source s) { return static_cast<int>(s); }

// The first problem with `e`, or "" when it can enter the engine.
std::string Validate(const Event& e) {
  if (e.event_id.empty()) return "event_id: missing";
  if (e.dedupe_key.empty()) return "dedupe_key: missing (every event needs one)";
  if (e.ingested_at <= 0) return "ingested_at: not set (the daemon stamps it at ingest)";
  if (e.signal && e.signal->state == State::kUnknown && e.signal->reason_code.empty()) {
    return "signal.reason_code: required when signal.state is unknown";
  }
  const std::string& t = e.event_type;
  if (t == et::kWrapperStarted) {
    if (e.runtime_id.empty()) return "runtime_id: wrapper_started must carry the runtime_id the wrapper chose";
    if (!e.runtime) return "runtime: wrapper_started must carry the runtime facts";
    return "";
  }
  if (t == et::kRuntimeObserved) {
    if (e.target_id.empty() || e.pane_id.empty()) {
      return "target_id/pane_id: runtime_observed must name the pane it saw";
    }
    if (!e.runtime) return "runtime: runtime_observed must carry the runtime facts";
    return "";
  }
  if (t == et::kTargetHealthChanged) {
    if (e.target_id.empty()) return "target_id: target_health_changed must name its target";
    if (!core::ParseTargetHealth(e.health)) {
      return "health: must be ok, degraded or down, got \"" + e.health + "\"";
    }
    return "";
  }
  if (t == et::kDemotionDue) {
    if (e.runtime_id.empty()) return "runtime_id: demotion_due must name the runtime DueDemotions reported";
    if (!e.source_seq) return "source_seq: demotion_due carries the guarded state_version there";
    return "";
  }
  if (t == et::kStaleDetected && e.runtime_id.empty() && e.pane_id.empty()) {
    if (e.target_id.empty()) return "target_id: stale_detected needs a runtime_id or a target_id";
    return "";
  }
  if (e.runtime_id.empty() && (e.target_id.empty() || e.pane_id.empty())) {
    return "runtime_id: missing, and so is the target_id+pane_id to bind it by";
  }
  return "";
}

std::string_view ErrCode(core::Err code) { return core::ErrName(code); }

}  // namespace

std::string PaneKey(const std::string& target_id, const std::string& pane_id) {
  std::string k;
  k.reserve(target_id.size() + pane_id.size() + 1);
  k.append(target_id).push_back('\x1f');
  k.append(pane_id);
  return k;
}

void BuildPendingKey(const Event& e, std::string* out) {
  std::string& k = *out;
  if (e.runtime_id.empty()) {
    k.assign(e.target_id).push_back('\x1f');
    k.append(e.pane_id);
  } else {
    k.assign(e.runtime_id);
  }
  k.push_back('\x1f');
  k.append(core::SourceName(e.source)).push_back('\x1f');
  k.append(e.dedupe_key);
}

std::string PendingKey(const Event& e) {
  std::string k;
  BuildPendingKey(e, &k);
  return k;
}

std::string_view Engine::Impl::ScratchPaneKey(const std::string& target_id,
                                              const std::string& pane_id) {
  scratch_pane_key.assign(target_id).push_back('\x1f');
  scratch_pane_key.append(pane_id);
  return scratch_pane_key;
}

RuntimeRec* RuntimeIndex::Find(std::string_view runtime_id, uint64_t h) const {
  const size_t mask = slots_.size() - 1;
  for (size_t i = h & mask;; i = (i + 1) & mask) {
    const Slot& slot = slots_[i];
    if (slot.rec == nullptr) return nullptr;
    if (slot.hash == h && slot.rec->rt.runtime_id == runtime_id) return slot.rec;
  }
}

void RuntimeIndex::Insert(RuntimeRec* r) {
  if (2 * (size_ + 1) > slots_.size()) Grow();
  const uint64_t h = HashBytes(r->rt.runtime_id);
  const size_t mask = slots_.size() - 1;
  size_t i = h & mask;
  while (slots_[i].rec != nullptr) {
    AGT_CHECK(slots_[i].rec != r);
    i = (i + 1) & mask;
  }
  slots_[i] = Slot{h, r};
  ++size_;
}

void RuntimeIndex::Grow() {
  std::vector<Slot> bigger(slots_.size() * 2);
  const size_t mask = bigger.size() - 1;
  for (const Slot& s : slots_) {
    if (s.rec == nullptr) continue;
    size_t i = s.hash & mask;
    while (bigger[i].rec != nullptr) i = (i + 1) & mask;
    bigger[i] = s;
  }
  slots_.swap(bigger);
}

void UpsertRuntime(Effects& fx, const Runtime& rt) {
  for (Runtime& r : fx.runtimes) {
    if (r.runtime_id == rt.runtime_id) {
      r = rt;
      return;
    }
  }
  fx.runtimes.push_back(rt);
}

namespace {

// The next row of `rows` for this call: a row left there by the caller's
// previous call when there is one (overwritten in place, its strings keep
// their capacity; the caller assigns every field), else a new one. `live`
// counts the rows this call has taken.
template <typename Row>
Row& PushRow(std::vector<Row>& rows, size_t& live) {
  if (live == rows.size()) rows.emplace_back();
  return rows[live++];
}

// True when PushRow would make a new row: the caller then builds it by
// copy-construction instead (in a fresh Effects, what Apply passes, every
// row is new, and filling a default row cost a second pass over it).
template <typename Row>
bool NoRowLeft(const std::vector<Row>& rows, size_t live) {
  return live == rows.size();
}

}  // namespace

void RowPool::Start(Effects& fx) {
  states = cursors = candidates = inbox = 0;
  fx.disposition = Disposition::kRejected;
  fx.error_code.clear();
  fx.error_message.clear();
  fx.runtimes.clear();
  fx.target_health.clear();
  fx.bound_events.clear();
}

void RowPool::Finish(Effects& fx) {
  // Rows of the previous call that this one did not overwrite.
  fx.states.resize(states);
  fx.cursors.resize(cursors);
  fx.candidates.resize(candidates);
  fx.inbox.resize(inbox);
}

void AppendState(Effects& fx, const PaneState& s, RowPool& pool) {
  if (NoRowLeft(fx.states, pool.states)) {
    fx.states.push_back(s);
    ++pool.states;
    return;
  }
  CopyPaneState(PushRow(fx.states, pool.states), s);
}

void UpsertCursor(Effects& fx, const std::string& runtime_id, Source s, const OrderKey& k,
                  RowPool& pool) {
  for (size_t i = 0; i < pool.cursors; ++i) {
    Cursor& c = fx.cursors[i];
    if (c.runtime_id == runtime_id && c.source == s) {
      CopyOrderKey(c.last, k);
      return;
    }
  }
  if (NoRowLeft(fx.cursors, pool.cursors)) {
    fx.cursors.push_back(Cursor{runtime_id, s, k});
    ++pool.cursors;
    return;
  }
  Cursor& c = PushRow(fx.cursors, pool.cursors);
  c.runtime_id = runtime_id;
  c.source = s;
  CopyOrderKey(c.last, k);
}

void UpsertCandidate(Effects& fx, const std::string& runtime_id, const Candidate& c, RowPool& pool) {
  for (size_t i = 0; i < pool.candidates; ++i) {
    auto& [cand, id] = fx.candidates[i];
    if (id == runtime_id && cand.source == c.source) {
      CopyCandidate(cand, c);
      return;
    }
  }
  if (NoRowLeft(fx.candidates, pool.candidates)) {
    fx.candidates.emplace_back(c, runtime_id);
    ++pool.candidates;
    return;
  }
  auto& row = PushRow(fx.candidates, pool.candidates);
  CopyCandidate(row.first, c);
  row.second = runtime_id;
}

InboxEntry& UpsertInbox(Effects& fx, const Event& event, InboxStatus status,
                        std::string_view reason, RowPool& pool) {
  InboxEntry* row = nullptr;
  for (size_t i = 0; i < pool.inbox; ++i) {
    if (fx.inbox[i].event.event_id == event.event_id) {
      row = &fx.inbox[i];
      break;
    }
  }
  if (row == nullptr && NoRowLeft(fx.inbox, pool.inbox)) {
    ++pool.inbox;
    return fx.inbox.emplace_back(InboxEntry{event, status, std::string(reason)});
  }
  if (row == nullptr) row = &PushRow(fx.inbox, pool.inbox);
  CopyEvent(row->event, event);
  row->status = status;
  row->reason_code = reason;
  return *row;
}

void Engine::Impl::StoreEvent(Effects& fx, const Event& e) {
  if (!fx.stored_event && pool.event) {
    fx.stored_event = std::move(pool.event);
    pool.event.reset();
  }
  if (fx.stored_event) {
    CopyEvent(*fx.stored_event, e);  // into the recycled event's strings
  } else {
    fx.stored_event.emplace(e);
  }
  event_stored = true;
}

void Engine::Impl::ApplyInto(const Event& e, TimeNs now, Effects& fx) {
  ++fx_gen;
  pool.Start(fx);
  event_stored = false;
  Dispatch(e, now, fx);
  pool.Finish(fx);
  // The previous call's stored_event stays in fx for StoreEvent to assign
  // into (moving an event of ~20 strings out and back cost more than the
  // copy); a call that stored nothing must not report it.
  if (!event_stored && fx.stored_event) {
    pool.event = std::move(fx.stored_event);
    fx.stored_event.reset();
  }
}

void Engine::Impl::Dispatch(const Event& e, TimeNs now, Effects& fx) {
  // Most events name their runtime, and each has a new dedupe key: the slot
  // of its dedupe row is a cache miss nearly every time. Its hash needs only
  // the event (the owner's part is the hash of the runtime_id, which the
  // runtime lookup below needs too), so the slot is fetched now, while the
  // event is checked and its runtime's record is read.
  uint64_t runtime_hash = 0;
  uint64_t dedupe_hash = 0;
  if (!e.runtime_id.empty()) {
    runtime_hash = DedupeSet::OwnerHash(e.runtime_id);
    dedupe_hash = DedupeSet::RowHash(runtime_hash, e.source, e.dedupe_key);
    dedupe.Prefetch(dedupe_hash);
  }
  if (std::string problem = Validate(e); !problem.empty()) {
    fx.disposition = Disposition::kRejected;
    fx.error_code = ErrCode(core::Err::kPayloadInvalid);
    fx.error_message = std::move(problem);
    return;
  }
  const std::string& type = e.event_type;
  if (type == et::kWrapperStarted || type == et::kRuntimeObserved) {
    fx.disposition = StartRuntime(e, now, fx);
    return;
  }
  if (type == et::kTargetHealthChanged ||
      (type == et::kStaleDetected && e.runtime_id.empty() && e.pane_id.empty())) {
    fx.disposition = ApplyTargetScoped(e, now, fx);
    return;
  }
  if (e.runtime_id.empty()) {
    fx.disposition = BindOrPark(e, now, fx);
    return;
  }
  RuntimeRec* r = runtime_index.Find(e.runtime_id, runtime_hash);
  if (r == nullptr) {
    // Not known yet: its wrapper_started may still be in a spool. It waits
    // in the inbox like an unbound event (see docs/precedence.md).
    fx.disposition = BindOrPark(e, now, fx);
    return;
  }
  fx.disposition = ApplyToRuntime(e, *r, dedupe_hash, now, fx, &fx.error_code);
  if (fx.disposition != Disposition::kDuplicate) StoreEvent(fx, e);
}

Disposition Engine::Impl::ApplyToRuntime(const Event& e, RuntimeRec& r, uint64_t dedupe_hash,
                                         TimeNs now, Effects& fx, std::string* error_code) {
  const int src = Idx(e.source);
  Slot& slot = r.slots[src];
  // The dedupe row's table slot (Dispatch may have asked for it already) and
  // the pane that Resolve reads next are fetched while the order of the
  // event is decided.
  dedupe.Prefetch(dedupe_hash);
  if (r.pane != nullptr) __builtin_prefetch(&r.pane->state);
  const TimeNs effective = EffectiveTime(e, opt.skew_budget);
  const bool newer_signal =
      e.signal && (!slot.has_candidate || CompareInStream(e, effective, slot.candidate.key) > 0);
  if (!dedupe.Insert(dedupe_hash, r.dedupe_owner, e.source, e.dedupe_key)) {
    return Disposition::kDuplicate;
  }

  const std::string& type = e.event_type;
  const bool ended_before = r.rt.ended_at != 0;
  const bool demotion = type == et::kDemotionDue;
  // demotion_due does not count towards state_version: it is guarded by it.
  if (!demotion && e.ingested_at > r.max_ingested) {
    r.max_ingested = e.ingested_at;
    if (r.pane != nullptr) r.pane->max_ingested = std::max(r.pane->max_ingested, e.ingested_at);
  }

  Outcome o;
  o.changed = RecordFusionMarks(r.marks, e, effective);
  if (type == et::kWrapperExited || type == et::kRuntimeEnded) {
    o.changed |= EndRuntime(r, std::max(effective, r.rt.started_at), fx);
  } else if (type == et::kStaleDetected) {
    // From the poller (the reconciler) it marks every source; from a source
    // it marks that source's own opinion.
    const TimeMark mark{effective, e.ingested_at};
    const TargetRec* t = r.pane != nullptr ? r.pane->target : nullptr;
    for (int s = 0; s < core::kSourceCount; ++s) {
      if (e.source != Source::kPoller && s != src) continue;
      if (r.slots[s].stale < mark) {
        r.slots[s].stale = mark;
        o.changed = true;
        if (r.slots[s].has_candidate) {  // the store's row shows the new stale flag
          Candidate c = r.slots[s].candidate;
          c.stale = IsMarkedStale(r, t, static_cast<Source>(s));
          UpsertCandidate(fx, r.rt.runtime_id, c, pool);
        }
      }
    }
  } else if (demotion) {
    const int64_t v = *e.source_seq;
    if (v > r.demoted_version || (v == r.demoted_version && e.ingested_at > r.demoted_at)) {
      r.demoted_version = v;
      r.demoted_at = e.ingested_at;
      o.changed = true;
    }
  } else if (e.signal) {
    // The candidate is the (runtime, source) cursor: only a newer event
    // replaces it. Lifecycle events carry no signal and leave it alone, so
    // they can never starve a late signal of the same source.
    if (newer_signal) {
      slot.has_candidate = true;
      Candidate& c = slot.candidate;
      c.source = e.source;
      CopyField(c.signal, *e.signal);
      c.event_id = e.event_id;
      AssignOrderKey(e, opt.skew_budget, &c.key);
      c.seen_at = e.ingested_at;
      c.stale = false;  // kept false inside; derived from the marks for views
      UpsertCursor(fx, r.rt.runtime_id, e.source, c.key, pool);
      if (IsMarkedStale(r, r.pane != nullptr ? r.pane->target : nullptr, e.source)) {
        Candidate row = c;  // it arrived already older than a stale mark
        row.stale = true;
        UpsertCandidate(fx, r.rt.runtime_id, row, pool);
      } else {
        UpsertCandidate(fx, r.rt.runtime_id, c, pool);
      }
      o.changed = true;
    } else {
      o.out_of_order = true;
    }
  }

  if (r.pane != nullptr) Resolve(*r.pane, now, fx);
  if (ended_before) {
    *error_code = ErrCode(core::Err::kRuntimeStale);
    return Disposition::kStored;
  }
  if (o.out_of_order) {
    *error_code = ErrCode(core::Err::kOutOfOrder);
    return Disposition::kStored;
  }
  return Disposition::kApplied;
}

Disposition Engine::Impl::ApplyTargetScoped(const Event& e, TimeNs now, Effects& fx) {
  TargetRec& t = TargetFor(e.target_id);
  if (!dedupe.Insert(t.dedupe_owner, e.source, e.dedupe_key)) return Disposition::kDuplicate;
  StoreEvent(fx, e);
  t.book.max_ingested = std::max(t.book.max_ingested, e.ingested_at);

  const OrderKey key = MakeOrderKey(e, opt.skew_budget);
  bool out_of_order = false;
  if (e.event_type == et::kTargetHealthChanged) {
    if (!t.book.has_health || CompareInStream(key, t.book.health_key) > 0) {
      t.book.has_health = true;
      t.book.health_key = key;
      t.book.health = core::ParseTargetHealth(e.health).value_or(TargetHealth::kOk);
      fx.target_health.emplace_back(t.book.target_id, t.book.health);
    } else {
      out_of_order = true;
    }
  } else {  // target-wide stale_detected
    const TimeMark mark = MarkOf(key);
    for (int s = 0; s < core::kSourceCount; ++s) {
      if (e.source != Source::kPoller && s != Idx(e.source)) continue;
      t.book.stale[s] = std::max(t.book.stale[s], mark);
    }
  }
  // Every pane of the target may get a row: one allocation for all of them.
  fx.states.reserve(pool.states + t.panes.size());
  for (PaneRec* p : t.panes) Resolve(*p, now, fx);
  if (out_of_order) {
    fx.error_code = ErrCode(core::Err::kOutOfOrder);
    return Disposition::kStored;
  }
  return Disposition::kApplied;
}

Engine::Engine(EngineOptions options) : impl_(std::make_unique<Impl>(std::move(options))) {}
Engine::~Engine() = default;

Effects Engine::Apply(const Event& e, TimeNs now) {
  Effects fx;
  impl_->ApplyInto(e, now, fx);
  return fx;
}

void Engine::ApplyInto(const Event& e, TimeNs now, Effects* out) {
  impl_->ApplyInto(e, now, *out);
}

Effects Engine::Tick(TimeNs now) { return impl_->Tick(now); }

}  // namespace agt::state
