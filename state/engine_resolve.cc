// Resolution: from the facts the engine holds about a pane to the one
// PaneState the user sees, in the order of docs/spec.md §4: runtime guard (is there
// an active runtime), target health, freshness (stale marks and TTLs), then
// fusion (state/fusion.h) among the fresh candidates, then the completed ->
// idle demotion guard. Also the read-only views of the engine.
#include <algorithm>
#include <tuple>

#include "libagtcore/base/result.h"
#include "state/engine.h"
#include "state/engine_impl.h"
#include "state/field_copy.h"

namespace agt::state {

namespace {

constexpr int Idx(Source s) { return static_cast<int>(s); }

// The signal of an unknown state, for each reason the engine gives.
Signal UnknownSignal(std::string_view reason) {
  Signal s;
  s.state = State::kUnknown;
  s.reason_code = reason;
  s.confidence = Confidence::kLow;
  s.rule_id = "engine.";
  s.rule_id.append(reason);
  return s;
}
const Signal& NoAgent() {
  static const Signal s = UnknownSignal("no_agent");
  return s;
}
const Signal& TargetUnreachable() {
  static const Signal s = UnknownSignal("target_unreachable");
  return s;
}
const Signal& NoSignal() {
  static const Signal s = UnknownSignal("no_signal");
  return s;
}
const Signal& StaleSignal() {
  static const Signal s = UnknownSignal("stale_signal");
  return s;
}

// dst = src, reporting whether dst changed. Comparing first leaves an equal
// field untouched, so a pane whose state did not change costs compares only.
template <typename T>
bool Update(T& dst, const T& src) {
  if (dst == src) return false;
  dst = src;
  return true;
}

// The same field by field for a Signal (every field of core::Signal): a
// signal that changed only its state (the common case: a pane going from
// running to waiting under the same rule and evidence) costs compares and
// one byte, not a copy of every string.
bool UpdateSignal(Signal& dst, const Signal& src) {
  bool changed = Update(dst.state, src.state);
  changed |= Update(dst.reason_code, src.reason_code);
  changed |= Update(dst.confidence, src.confidence);
  changed |= Update(dst.rule_id, src.rule_id);
  changed |= Update(dst.evidence, src.evidence);
  changed |= Update(dst.detail, src.detail);
  return changed;
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
  return Fuse(present, fresh, r.marks);
}

void Engine::Impl::Resolve(PaneRec& p, TimeNs now, Effects& fx) {
  // Written field by field into the pane's own state: a field that did not
  // change is only compared, and nothing is built in a scratch copy first
  // (building, comparing and swapping a whole PaneState per event was a
  // quarter of Resolve). Every field of PaneState is decided below.
  PaneState& st = p.state;
  bool changed = false;
  if (!p.has_state) {  // once set (here or by Restore), the pane's ids stay
    st.target_id = p.target_id;
    st.pane_id = p.pane_id;
    changed = true;
  }

  const TargetBook& tb = p.target->book;
  // state_version: the newest ingested_at among the inputs of this
  // resolution (the active runtime's events, or the pane's when none is
  // active, and its target's health and stale events). A maximum over a set,
  // so it does not depend on arrival order.
  const TimeNs base = p.active != nullptr ? p.active->max_ingested : p.max_ingested;
  const TimeNs version = std::max(base, tb.max_ingested);
  changed |= Update(st.state_version, version);

  // The rest of the row: an unknown state (with its reason) unless a
  // candidate wins.
  const Signal* signal = nullptr;
  std::optional<int64_t> last_source_seq;
  TimeNs updated_at = version;
  Source source = Source::kPoller;
  bool has_source = false;
  if (p.active == nullptr) {
    signal = &NoAgent();
    changed |= !st.runtime_id.empty();
    st.runtime_id.clear();
    p.shown_runtime = nullptr;
    changed |= Update(st.last_seen_at, TimeNs{0});
  } else {
    const RuntimeRec& r = *p.active;
    if (p.shown_runtime != &r) {
      changed |= Update(st.runtime_id, r.rt.runtime_id);
      p.shown_runtime = &r;
    }
    changed |= Update(st.last_seen_at, r.max_ingested);
    if (tb.has_health && tb.health == TargetHealth::kDown) {
      signal = &TargetUnreachable();
      updated_at = tb.health_key.ingested_at;
    } else {
      FusionResult fr = FuseRuntime(r, p.target, now);
      if (!fr.any_present) {
        signal = &NoSignal();
      } else if (!fr.has_winner) {
        signal = &StaleSignal();
      } else {
        const Candidate& c = r.slots[Idx(fr.winner)].candidate;
        signal = &c.signal;
        if (fr.answered[Idx(fr.winner)]) {
          // Row 1b: the screen saw the dialog go and cannot read what
          // followed; the hook's turn goes on.
          answered_signal.state = State::kRunning;
          answered_signal.reason_code.clear();
          answered_signal.confidence = Confidence::kMedium;
          answered_signal.rule_id = fusion_rule::kAnsweredWait;
          answered_signal.evidence = "answered: " + c.signal.evidence;
          answered_signal.detail = {};
          signal = &answered_signal;
        } else if (fr.detail_from_screen) {
          // Row 5: the hook's wait, with the options the screen reads.
          lent_signal = c.signal;
          lent_signal.detail = r.slots[Idx(fr.detail_source)].candidate.signal.detail;
          signal = &lent_signal;
        }
        source = fr.winner;
        has_source = true;
        last_source_seq = c.key.source_seq;
        updated_at = c.seen_at;
        // The version guard: demoted only while nothing newer has arrived
        // since DueDemotions reported this version.
        if (c.signal.state == State::kCompleted && r.demoted_version == version) {
          demoted_signal = c.signal;
          demoted_signal.state = State::kIdle;
          demoted_signal.rule_id = "demotion";
          signal = &demoted_signal;
          updated_at = r.demoted_at;
        }
      }
    }
  }
  changed |= UpdateSignal(st.signal, *signal);
  changed |= Update(st.source, source);
  changed |= Update(st.has_source, has_source);
  changed |= Update(st.last_source_seq, last_source_seq);
  changed |= Update(st.updated_at, updated_at);
  AGT_CHECK(st.signal.state != State::kUnknown || !st.signal.reason_code.empty());
  if (!changed) return;
  p.has_state = true;
  if (p.fx_gen == fx_gen) {
    CopyPaneState(fx.states[p.fx_row], st);
  } else {
    p.fx_gen = fx_gen;
    p.fx_row = pool.states;  // the row AppendState fills
    AppendState(fx, st, pool);
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
