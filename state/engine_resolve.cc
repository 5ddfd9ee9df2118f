// Resolution: from the facts the engine holds about a pane to the one
// PaneState the user sees, in the order of spec §4: runtime guard (is there
// an active runtime), target health, freshness (stale marks and TTLs), then
// fusion (state/fusion.h) among the fresh candidates, then the completed ->
// idle demotion guard. Also the read-only views of the engine.
#include <algorithm>
#include <tuple>

#include "libagtcore/result.h"
#include "state/engine.h"
#include "state/engine_impl.h"

namespace agt::state {

namespace {

constexpr int Idx(Source s) { return static_cast<int>(s); }

void MakeUnknown(PaneState& s, std::string_view reason, TimeNs updated_at) {
  s.signal = Signal{};
  s.signal.state = State::kUnknown;
  s.signal.reason_code = reason;
  s.signal.confidence = Confidence::kLow;
  s.signal.rule_id = "engine.";
  s.signal.rule_id.append(reason);
  s.has_source = false;
  s.source = Source::kPoller;
  s.updated_at = updated_at;
}

bool PaneLess(const PaneState& a, const PaneState& b) {
  return std::tie(a.target_id, a.pane_id) < std::tie(b.target_id, b.pane_id);
}

}  // namespace

bool Engine::Impl::IsMarkedStale(const RuntimeRec& r, const TargetRec* t, Source s) const {
  const Slot& slot = r.slots[Idx(s)];
  TimeMark mark = slot.stale;
  if (t != nullptr) mark = std::max(mark, t->book.stale[Idx(s)]);
  return slot.has_candidate && !mark.empty() && MarkOf(slot.candidate.key) < mark;
}

FusionResult Engine::Impl::FuseRuntime(const RuntimeRec& r, const TargetRec* t, TimeNs now) const {
  std::array<const Candidate*, core::kSourceCount> present{};
  std::array<bool, core::kSourceCount> fresh{};
  for (int s = 0; s < core::kSourceCount; ++s) {
    const Slot& slot = r.slots[s];
    if (!slot.has_candidate) continue;
    present[s] = &slot.candidate;
    const TimeNs ttl = opt.signal_ttl[s];
    const bool aged = ttl > 0 && now - slot.candidate.seen_at > ttl;
    fresh[s] = !aged && !IsMarkedStale(r, t, static_cast<Source>(s));
  }
  return Fuse(present, fresh);
}

void Engine::Impl::Resolve(PaneRec& p, TimeNs now, Effects& fx) {
  // Built in a reused buffer: assigning strings into existing capacity does
  // not allocate, which keeps Apply near a million events per second.
  PaneState& s = scratch_state;
  s.target_id = p.target_id;
  s.pane_id = p.pane_id;
  s.runtime_id.clear();
  s.last_source_seq.reset();
  s.last_seen_at = 0;
  const TargetBook& tb = p.target->book;
  // state_version: the newest ingested_at among the inputs of this
  // resolution (the active runtime's events, or the pane's when none is
  // active, and its target's health and stale events). A maximum over a set,
  // so it does not depend on arrival order.
  const TimeNs base = p.active != nullptr ? p.active->max_ingested : p.max_ingested;
  s.state_version = std::max(base, tb.max_ingested);

  if (p.active == nullptr) {
    MakeUnknown(s, "no_agent", s.state_version);
  } else {
    const RuntimeRec& r = *p.active;
    s.runtime_id = r.rt.runtime_id;
    s.last_seen_at = r.max_ingested;
    if (tb.has_health && tb.health == TargetHealth::kDown) {
      MakeUnknown(s, "target_unreachable", tb.health_key.ingested_at);
    } else {
      FusionResult fr = FuseRuntime(r, p.target, now);
      if (!fr.any_present) {
        MakeUnknown(s, "no_signal", s.state_version);
      } else if (!fr.has_winner) {
        MakeUnknown(s, "stale_signal", s.state_version);
      } else {
        const Candidate& c = r.slots[Idx(fr.winner)].candidate;
        s.signal = c.signal;
        s.source = fr.winner;
        s.has_source = true;
        s.last_source_seq = c.key.source_seq;
        s.updated_at = c.seen_at;
        // The version guard: demoted only while nothing newer has arrived
        // since DueDemotions reported this version.
        if (s.signal.state == State::kCompleted && r.demoted_version == s.state_version) {
          s.signal.state = State::kIdle;
          s.signal.rule_id = "demotion";
          s.updated_at = r.demoted_at;
        }
      }
    }
  }
  AGT_CHECK(s.signal.state != State::kUnknown || !s.signal.reason_code.empty());
  if (!p.has_state || !(p.state == s)) {
    std::swap(p.state, s);
    p.has_state = true;
    if (p.fx_gen == fx_gen) {
      fx.states[p.fx_row] = p.state;
    } else {
      p.fx_gen = fx_gen;
      p.fx_row = fx.states.size();
      AppendState(fx, p.state, pool);
    }
  }
}

std::vector<Engine::Demotion> Engine::DueDemotions(TimeNs now) const {
  std::vector<Demotion> out;
  for (const auto& [key, p] : impl_->panes) {
    if (!p.has_state || p.active == nullptr || p.state.signal.state != State::kCompleted) continue;
    if (now - p.state.updated_at < impl_->opt.completed_to_idle) continue;
    out.push_back(Demotion{p.target_id, p.pane_id, p.state.runtime_id, p.state.state_version});
  }
  std::sort(out.begin(), out.end(), [](const Demotion& a, const Demotion& b) {
    return std::tie(a.target_id, a.pane_id) < std::tie(b.target_id, b.pane_id);
  });
  return out;
}

const PaneState* Engine::FindPane(const std::string& target_id, const std::string& pane_id) const {
  auto it = impl_->panes.find(PaneKey(target_id, pane_id));
  return it != impl_->panes.end() && it->second.has_state ? &it->second.state : nullptr;
}

const Runtime* Engine::FindRuntime(const std::string& runtime_id) const {
  auto it = impl_->runtimes.find(runtime_id);
  return it != impl_->runtimes.end() ? &it->second.rt : nullptr;
}

const Runtime* Engine::ActiveRuntime(const std::string& target_id, const std::string& pane_id) const {
  auto it = impl_->panes.find(PaneKey(target_id, pane_id));
  if (it == impl_->panes.end() || it->second.active == nullptr) return nullptr;
  return &it->second.active->rt;
}

std::vector<Candidate> Engine::Candidates(const std::string& runtime_id) const {
  std::vector<Candidate> out;
  auto it = impl_->runtimes.find(runtime_id);
  if (it == impl_->runtimes.end()) return out;
  const RuntimeRec& r = it->second;
  const TargetRec* t = r.pane != nullptr ? r.pane->target : nullptr;
  for (int s = 0; s < core::kSourceCount; ++s) {
    if (!r.slots[s].has_candidate) continue;
    Candidate c = r.slots[s].candidate;
    c.stale = impl_->IsMarkedStale(r, t, static_cast<Source>(s));
    out.push_back(std::move(c));
  }
  return out;
}

std::vector<PaneState> Engine::AllPanes() const {
  std::vector<PaneState> out;
  out.reserve(impl_->panes.size());
  for (const auto& [key, p] : impl_->panes) {
    if (p.has_state) out.push_back(p.state);
  }
  std::sort(out.begin(), out.end(), PaneLess);
  return out;
}

FusionResult Engine::Explain(const std::string& target_id, const std::string& pane_id,
                             TimeNs now) const {
  auto it = impl_->panes.find(PaneKey(target_id, pane_id));
  if (it == impl_->panes.end() || it->second.active == nullptr) return FusionResult{};
  return impl_->FuseRuntime(*it->second.active, it->second.target, now);
}

}  // namespace agt::state
