// Runtimes and the inbox: how runtimes begin and end on a pane, how pane_epoch
// is assigned, and how events without a known runtime wait, bind or are
// dropped. A runtime's end is the EARLIEST end the engine has evidence for
// (its own exit, or the start of the next runtime on its pane), so the same
// set of lifecycle events gives the same lifetimes in any order.
#include <algorithm>
#include <tuple>

#include "libagtcore/ids.h"
#include "libagtcore/base/result.h"
#include "state/binder.h"
#include "state/engine.h"
#include "state/engine_impl.h"

namespace agt::state {

namespace et = core::event_type;

namespace {

bool StartsBefore(const RuntimeRec* a, const RuntimeRec* b) {
  return std::tie(a->rt.started_at, a->rt.runtime_id) < std::tie(b->rt.started_at, b->rt.runtime_id);
}

}  // namespace

PaneRec& Engine::Impl::PaneFor(const std::string& target_id, const std::string& pane_id) {
  auto [it, inserted] = panes.try_emplace(PaneKey(target_id, pane_id));
  PaneRec& p = it->second;
  if (inserted) {
    p.target_id = target_id;
    p.pane_id = pane_id;
    p.target = &TargetFor(target_id);
    p.target->panes.push_back(&p);
  }
  return p;
}

TargetRec& Engine::Impl::TargetFor(const std::string& target_id) {
  auto [it, inserted] = targets.try_emplace(target_id);
  if (inserted) {
    it->second.book.target_id = target_id;
    it->second.dedupe_owner = dedupe.Intern("@" + target_id);
  }
  return it->second;
}

const std::vector<const Runtime*>& Engine::Impl::PaneRuntimes(const PaneRec& p) {
  scratch_runtimes.clear();
  for (const RuntimeRec* r : p.history) scratch_runtimes.push_back(&r->rt);
  return scratch_runtimes;
}

RuntimeRec& Engine::Impl::RecordOf(const PaneRec& p, const Runtime* rt) {
  for (RuntimeRec* r : p.history) {
    if (&r->rt == rt) return *r;
  }
  core::CheckFailed("the runtime is in its pane's history", __FILE__, __LINE__);
}

Disposition Engine::Impl::StartRuntime(const Event& e, TimeNs now, Effects& fx) {
  const core::RuntimeInfo& info = *e.runtime;
  const bool observed = e.event_type == et::kRuntimeObserved;
  const TimeNs started = info.started_at > 0 ? info.started_at : EffectiveTime(e, opt.skew_budget);
  PaneRec* pane = e.pane_id.empty() ? nullptr : &PaneFor(e.target_id, e.pane_id);

  if (observed && pane->active != nullptr) {
    const Runtime& cur = pane->active->rt;
    // The same process seen again, or a pane the wrapper reports on itself
    // (in the same tmux server: a new server's pane of the same id is
    // another pane).
    const bool same_server = cur.boot_id.empty() || cur.boot_id == info.boot_id;
    if ((cur.pid == e.pid && cur.boot_id == info.boot_id) || (cur.owner == Source::kWrapper && same_server)) {
      return Disposition::kIgnored;
    }
  }

  int64_t epoch = info.pane_epoch;
  if (epoch < 0) {
    // A new runtime on the same pane instance (target, boot, pane) gets the
    // next epoch; a new tmux server (boot_id) starts again at 0.
    epoch = 0;
    if (pane != nullptr) {
      for (const RuntimeRec* h : pane->history) {
        if (h->rt.boot_id == info.boot_id) epoch = std::max(epoch, h->rt.pane_epoch + 1);
      }
    }
  }
  std::string id = e.runtime_id;
  if (observed) {
    id = core::DeriveRuntimeId(e.target_id, info.boot_id, e.pane_id, epoch, info.agent_type, started);
    if (!e.runtime_id.empty() && e.runtime_id != id) {
      fx.error_code = core::ErrName(core::Err::kPayloadInvalid);
      fx.error_message = "runtime_id: does not match the id derived from the observed runtime";
      return Disposition::kRejected;
    }
  }

  auto [it, inserted] = runtimes.try_emplace(id);
  RuntimeRec& r = it->second;
  Slot& slot = r.slots[static_cast<int>(e.source)];
  if (!inserted) {
    if (dedupe.Contains(r.dedupe_owner, e.source, e.dedupe_key)) return Disposition::kDuplicate;
    if (observed) return Disposition::kIgnored;
    // A wrapper announcing a runtime it already announced: kept for the
    // audit trail, changes nothing.
    dedupe.Insert(r.dedupe_owner, e.source, e.dedupe_key);
    r.max_ingested = std::max(r.max_ingested, e.ingested_at);
    RecordFusionMarks(r.marks, e, EffectiveTime(e, opt.skew_budget));
    if (r.pane != nullptr) {
      r.pane->max_ingested = std::max(r.pane->max_ingested, e.ingested_at);
      Resolve(*r.pane, now, fx);
    }
    StoreEvent(fx, e);
    return Disposition::kStored;
  }

  r.rt.runtime_id = id;
  runtime_index.Insert(&r);
  r.rt.target_id = e.target_id;
  r.rt.pane_id = e.pane_id;
  r.rt.boot_id = info.boot_id;
  r.rt.pane_epoch = epoch;
  r.rt.agent_type = info.agent_type;
  r.rt.agent_version = info.agent_version;
  r.rt.pid = e.pid;
  r.rt.started_at = started;
  r.rt.owner = e.source;
  r.max_ingested = e.ingested_at;
  r.dedupe_owner = dedupe.Intern(id);
  dedupe.Insert(r.dedupe_owner, e.source, e.dedupe_key);
  RecordFusionMarks(r.marks, e, EffectiveTime(e, opt.skew_budget));
  if (e.signal) {
    slot.has_candidate = true;
    slot.candidate = Candidate{e.source, *e.signal, e.event_id, MakeOrderKey(e, opt.skew_budget),
                               e.ingested_at, false};
    UpsertCursor(fx, id, e.source, slot.candidate.key, pool);
    UpsertCandidate(fx, id, slot.candidate, pool);
  }

  if (pane != nullptr) {
    r.pane = pane;
    pane->max_ingested = std::max(pane->max_ingested, e.ingested_at);
    auto& h = pane->history;
    auto pos = h.insert(std::upper_bound(h.begin(), h.end(), &r, StartsBefore), &r);
    // Every earlier runtime of the pane ended at the latest when this one
    // started; this one ends at the latest when the next one started.
    for (auto p = h.begin(); p != pos; ++p) {
      Runtime& prev = (*p)->rt;
      if (prev.ended_at == 0 || prev.ended_at > started) {
        prev.ended_at = std::max(started, prev.started_at);
        UpsertRuntime(fx, prev);
      }
    }
    if (pos + 1 != h.end()) r.rt.ended_at = (*(pos + 1))->rt.started_at;
    pane->active = h.back()->rt.ended_at == 0 ? h.back() : nullptr;
  }
  UpsertRuntime(fx, r.rt);

  StoreEvent(fx, e);
  fx.stored_event->runtime_id = id;
  fx.stored_event->runtime->pane_epoch = epoch;

  RetryPending(r, now, fx);
  if (pane != nullptr) Resolve(*pane, now, fx);
  return r.rt.ended_at != 0 ? Disposition::kStored : Disposition::kApplied;
}

bool Engine::Impl::EndRuntime(RuntimeRec& r, TimeNs end, Effects& fx) {
  if (r.rt.ended_at != 0 && r.rt.ended_at <= end) return false;
  r.rt.ended_at = end;
  UpsertRuntime(fx, r.rt);
  if (r.pane != nullptr && r.pane->active == &r) r.pane->active = nullptr;
  return true;
}

Disposition Engine::Impl::BindOrPark(const Event& e, TimeNs now, Effects& fx) {
  // Most events that come here bind at once: their pending key and pane key
  // are built in reused buffers and looked up by view, and become strings of
  // their own only when the event is parked. With nothing parked (the usual
  // case) there is nothing to be a duplicate of, and the key waits.
  bool key_built = false;
  if (!pending_keys.empty()) {
    BuildPendingKey(e, &scratch_pending_key);
    key_built = true;
    if (pending_keys.contains(std::string_view(scratch_pending_key))) return Disposition::kDuplicate;
  }

  if (e.runtime_id.empty()) {
    auto pit = panes.find(ScratchPaneKey(e.target_id, e.pane_id));
    if (pit != panes.end()) {
      PaneRec& pane = pit->second;
      BindResult br = MatchRuntime(e, EffectiveTime(e, opt.skew_budget), PaneRuntimes(pane),
                                   opt.bind_window);
      if (br.outcome == BindOutcome::kAmbiguous) {
        UpsertInbox(fx, e, InboxStatus::kDroppedUnbound, "bind_ambiguous", pool);
        fx.error_code = core::ErrName(core::Err::kUnbound);
        fx.error_message = "bind_ambiguous: more than one runtime of pane " + e.pane_id +
                           " matches; give pid or start_hint";
        return Disposition::kDropped;
      }
      if (br.outcome == BindOutcome::kBound) {
        RuntimeRec& r = RecordOf(pane, br.runtime);
        // ApplyToRuntime does not read e.runtime_id: only the copies that
        // leave the engine carry the runtime it was bound to.
        Disposition d = ApplyToRuntime(e, r, dedupe.RowHash(r.dedupe_owner, e.source, e.dedupe_key),
                                       now, fx, &fx.error_code);
        if (d == Disposition::kDuplicate) return d;
        StoreEvent(fx, e);
        fx.stored_event->runtime_id = r.rt.runtime_id;
        UpsertInbox(fx, *fx.stored_event, InboxStatus::kBound, "", pool);
        return d;
      }
    }
  }
  auto [it, inserted] = pending.try_emplace({e.ingested_at, e.event_id},
                                            InboxEntry{e, InboxStatus::kPendingBind, ""});
  if (!inserted) return Disposition::kDuplicate;
  if (!key_built) BuildPendingKey(e, &scratch_pending_key);
  pending_keys.emplace(scratch_pending_key);
  UpsertInbox(fx, e, InboxStatus::kPendingBind, "", pool);
  return Disposition::kPending;
}

void Engine::Impl::RetryPending(const RuntimeRec& created, TimeNs now, Effects& fx) {
  for (auto it = pending.begin(); it != pending.end();) {
    const Event& pe = it->second.event;
    const bool by_id = !pe.runtime_id.empty();
    const bool concerns = by_id ? pe.runtime_id == created.rt.runtime_id
                                : pe.target_id == created.rt.target_id && pe.pane_id == created.rt.pane_id;
    if (!concerns || (!by_id && created.pane == nullptr)) {
      ++it;
      continue;
    }
    RuntimeRec* into = nullptr;
    if (by_id) {
      into = &runtimes.at(pe.runtime_id);
    } else {
      BindResult br = MatchRuntime(pe, EffectiveTime(pe, opt.skew_budget), PaneRuntimes(*created.pane),
                                   opt.bind_window);
      if (br.outcome == BindOutcome::kNoMatch) {
        ++it;
        continue;
      }
      if (br.outcome == BindOutcome::kAmbiguous) {
        UpsertInbox(fx, pe, InboxStatus::kDroppedUnbound, "bind_ambiguous", pool);
        pending_keys.erase(PendingKey(pe));
        it = pending.erase(it);
        continue;
      }
      into = &RecordOf(*created.pane, br.runtime);
    }
    pending_keys.erase(PendingKey(pe));
    std::string ignored;
    InboxEntry& row = UpsertInbox(fx, pe, InboxStatus::kBound, "", pool);
    row.event.runtime_id = into->rt.runtime_id;
    const uint64_t dedupe_hash = dedupe.RowHash(into->dedupe_owner, pe.source, pe.dedupe_key);
    if (ApplyToRuntime(pe, *into, dedupe_hash, now, fx, &ignored) == Disposition::kDuplicate) {
      row.status = InboxStatus::kDroppedUnbound;
      row.reason_code = "duplicate";
    } else {
      fx.bound_events.push_back(row.event);
    }
    it = pending.erase(it);
  }
}

Effects Engine::Impl::Tick(TimeNs now) {
  ++fx_gen;
  Effects fx;
  pool.Start(fx);
  fx.disposition = Disposition::kApplied;
  while (!pending.empty()) {
    auto it = pending.begin();
    if (it->first.first + opt.pending_bind_ttl > now) break;  // ordered by ingested_at
    InboxEntry entry = std::move(it->second);
    pending_keys.erase(PendingKey(entry.event));
    pending.erase(it);
    // bind_no_candidate: the pane never had a runtime (nothing observed or
    // wrapped there); bind_ttl_expired: runtimes exist but none matched, or
    // the named runtime never appeared, within the TTL.
    entry.reason_code = "bind_ttl_expired";
    if (entry.event.runtime_id.empty() &&
        !panes.contains(PaneKey(entry.event.target_id, entry.event.pane_id))) {
      entry.reason_code = "bind_no_candidate";
    } else if (entry.event.runtime_id.empty()) {
      const PaneRec& p = panes.at(PaneKey(entry.event.target_id, entry.event.pane_id));
      if (p.history.empty()) entry.reason_code = "bind_no_candidate";
    }
    UpsertInbox(fx, entry.event, InboxStatus::kDroppedUnbound, entry.reason_code, pool);
  }
  pool.Finish(fx);
  return fx;
}

}  // namespace agt::state
