// A minimal stand-in for state::Engine, compiled only while the real engine
// library (state/) has no sources in the build. It keeps the daemon usable
// and testable end to end: runtimes from wrapper_started/runtime_observed,
// ended by wrapper_exited/runtime_ended; per-(runtime, source) dedupe and
// source_seq ordering; each source's latest signal as a candidate; the
// winner by precedence among candidates not marked stale. It does no
// freshness TTLs, no pending-bind inbox (unbound events are rejected with
// E_UNBOUND) and no demotions: those are the real engine's job.
#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <utility>

#include "aggregator/state_core.h"

namespace agt::agg {
namespace {

using state::Candidate;
using state::Disposition;
using state::Effects;
using state::PaneState;
using state::Runtime;

std::string Fnv64Hex(std::string_view s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  char buf[24];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

class MiniEngine final : public StateCore {
 public:
  state::Effects Apply(const core::Event& e, core::TimeNs now) override {
    Effects fx;
    bool starts = e.event_type == core::event_type::kWrapperStarted ||
                  e.event_type == core::event_type::kRuntimeObserved;
    bool ends = e.event_type == core::event_type::kWrapperExited ||
                e.event_type == core::event_type::kRuntimeEnded;
    std::string rid = e.runtime_id;
    if (starts && !e.pane_id.empty()) {
      const Runtime* cur = ActiveRuntime(e.target_id, e.pane_id);
      if (rid.empty() && cur && cur->owner == e.source) rid = cur->runtime_id;
      if (rid.empty()) {
        core::TimeNs started = e.runtime ? e.runtime->started_at : e.event_time;
        rid = "rt-" + Fnv64Hex(e.target_id + "\x1f" + e.pane_id + "\x1f" +
                               std::to_string(e.pid.value_or(0)) + "\x1f" + std::to_string(started));
      }
      if (cur && cur->runtime_id != rid) End(cur->runtime_id, now, &fx);
      if (!runtimes_.count(rid)) {
        Runtime r;
        r.runtime_id = rid;
        r.target_id = e.target_id;
        r.pane_id = e.pane_id;
        r.pid = e.pid;
        r.owner = e.source;
        if (e.runtime) {
          r.agent_type = e.runtime->agent_type;
          r.boot_id = e.runtime->boot_id;
          r.started_at = e.runtime->started_at;
        }
        if (r.started_at == 0) r.started_at = e.ingested_at;
        runtimes_[rid] = r;
        active_[{r.target_id, r.pane_id}] = rid;
        fx.runtimes.push_back(r);
        PaneState& ps = panes_[{r.target_id, r.pane_id}];
        ps.target_id = r.target_id;
        ps.pane_id = r.pane_id;
        ps.runtime_id = rid;
        ps.signal = core::Signal{};
        ps.signal.reason_code = "no_signal";
        ps.has_source = false;
        ps.state_version++;
        ps.updated_at = e.ingested_at;
        ps.last_seen_at = e.ingested_at;
        cands_.erase(rid);
        fx.states.push_back(ps);
      }
    } else if (rid.empty()) {
      if (const Runtime* r = ActiveRuntime(e.target_id, e.pane_id)) rid = r->runtime_id;
    }
    auto rit = runtimes_.find(rid);
    if (rid.empty() || rit == runtimes_.end()) {
      fx.disposition = Disposition::kRejected;
      fx.error_code = "E_UNBOUND";
      return fx;
    }
    std::string dk = rid + "\x1f" + std::string(core::SourceName(e.source)) + "\x1f" + e.dedupe_key;
    if (!dedupe_.insert(dk).second) {
      Effects dup;
      dup.disposition = Disposition::kDuplicate;
      dup.error_code = "E_DUPLICATE";
      return dup;
    }
    core::Event stored = e;
    stored.runtime_id = rid;
    fx.stored_event = stored;
    Runtime& rt = rit->second;
    if (rt.ended_at != 0 && !starts) {
      fx.disposition = Disposition::kStored;
      fx.error_code = "E_RUNTIME_STALE";
      return fx;
    }
    auto seq_key = std::make_pair(rid, e.source);
    if (e.source_seq) {
      auto it = last_seq_.find(seq_key);
      if (it != last_seq_.end() && *e.source_seq <= it->second) {
        fx.disposition = Disposition::kStored;
        fx.error_code = "E_OUT_OF_ORDER";
        return fx;
      }
      last_seq_[seq_key] = *e.source_seq;
    }
    fx.disposition = Disposition::kApplied;
    if (ends) {
      End(rid, now, &fx);
      return fx;
    }
    if (e.event_type == core::event_type::kStaleDetected) {
      for (auto& c : cands_[rid]) c.second.stale = true;
    } else if (e.signal) {
      Candidate c;
      c.source = e.source;
      c.signal = *e.signal;
      c.event_id = e.event_id;
      c.seen_at = e.ingested_at;
      c.key.source_seq = e.source_seq;
      c.key.effective_time = e.event_time;
      c.key.ingested_at = e.ingested_at;
      c.key.event_id = e.event_id;
      cands_[rid][e.source] = c;
      fx.candidates.emplace_back(c, rid);
    }
    Resolve(rt, e, &fx);
    return fx;
  }

  state::Effects Tick(core::TimeNs) override { return Effects{Disposition::kApplied}; }
  std::vector<state::Engine::Demotion> DueDemotions(core::TimeNs) const override { return {}; }

  std::vector<PaneState> AllPanes() const override {
    std::vector<PaneState> out;
    for (const auto& [k, v] : panes_) out.push_back(v);
    return out;
  }
  const PaneState* FindPane(const std::string& t, const std::string& p) const override {
    auto it = panes_.find({t, p});
    return it == panes_.end() ? nullptr : &it->second;
  }
  const Runtime* FindRuntime(const std::string& id) const override {
    auto it = runtimes_.find(id);
    return it == runtimes_.end() ? nullptr : &it->second;
  }
  const Runtime* ActiveRuntime(const std::string& t, const std::string& p) const override {
    auto it = active_.find({t, p});
    return it == active_.end() ? nullptr : FindRuntime(it->second);
  }
  std::vector<Candidate> Candidates(const std::string& rid) const override {
    std::vector<Candidate> out;
    auto it = cands_.find(rid);
    if (it != cands_.end())
      for (const auto& [s, c] : it->second) out.push_back(c);
    return out;
  }
  const char* name() const override { return "mini"; }

 private:
  void End(const std::string& rid, core::TimeNs now, Effects* fx) {
    Runtime& r = runtimes_[rid];
    if (r.ended_at != 0) return;
    r.ended_at = now;
    fx->runtimes.push_back(r);
    active_.erase({r.target_id, r.pane_id});
    auto pit = panes_.find({r.target_id, r.pane_id});
    if (pit != panes_.end() && pit->second.runtime_id == rid) {
      PaneState& ps = pit->second;
      ps.runtime_id.clear();
      ps.signal = core::Signal{};
      ps.signal.reason_code = "no_agent";
      ps.has_source = false;
      ps.state_version++;
      ps.updated_at = now;
      fx->states.push_back(ps);
    }
  }

  void Resolve(const Runtime& rt, const core::Event& e, Effects* fx) {
    PaneState& ps = panes_[{rt.target_id, rt.pane_id}];
    const Candidate* best = nullptr;
    for (const auto& [s, c] : cands_[rt.runtime_id]) {
      if (c.stale) continue;
      if (!best || core::StatePrecedence(c.signal.state) > core::StatePrecedence(best->signal.state))
        best = &c;
    }
    PaneState next = ps;
    next.last_seen_at = e.ingested_at;
    if (e.source_seq) next.last_source_seq = e.source_seq;
    if (best) {
      next.signal = best->signal;
      next.source = best->source;
      next.has_source = true;
    } else {
      next.signal = core::Signal{};
      next.signal.reason_code = "stale_signal";
      next.has_source = false;
    }
    if (next.signal.state != ps.signal.state) next.updated_at = e.ingested_at;
    if (next.signal != ps.signal || next.source != ps.source || next.has_source != ps.has_source)
      next.state_version++;
    ps = next;
    fx->states.push_back(ps);
  }

  std::map<std::string, Runtime> runtimes_;
  std::map<std::pair<std::string, std::string>, std::string> active_;
  std::map<std::pair<std::string, std::string>, PaneState> panes_;
  std::map<std::string, std::map<core::Source, Candidate>> cands_;
  std::map<std::pair<std::string, core::Source>, int64_t> last_seq_;
  std::set<std::string> dedupe_;
};

}  // namespace

std::unique_ptr<StateCore> CreateStateCore(const state::EngineOptions&) {
  return std::make_unique<MiniEngine>();
}

}  // namespace agt::agg
