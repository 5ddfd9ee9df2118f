// The fake engine and persistence (see fake_backend.h).
#include "tests/agg/daemon/fake_backend.h"

#include <algorithm>

namespace agt::agg::testing {

namespace et = core::event_type;

void FakeEngineSeam::ApplyInto(const core::Event& e, core::TimeNs now, state::Effects* out) {
  applied.push_back({e, now});
  *out = state::Effects{};
  if (e.dedupe_key.empty() || e.event_id.empty() || e.event_type.empty()) {
    out->disposition = state::Disposition::kRejected;
    out->error_code = "E_PAYLOAD_INVALID";
    out->error_message = "dedupe_key, event_id and event_type are required";
    return;
  }
  const std::string scope = e.runtime_id.empty() ? "@" + e.target_id + "/" + e.pane_id : e.runtime_id;
  if (!seen_.insert(scope + "\x1f" + std::string(core::SourceName(e.source)) + "\x1f" + e.dedupe_key).second) {
    out->disposition = state::Disposition::kDuplicate;
    out->error_code = "E_DUPLICATE";
    return;
  }
  out->disposition = state::Disposition::kStored;
  out->stored_event = e;
  if ((e.event_type == et::kWrapperStarted || e.event_type == et::kRuntimeObserved) && e.runtime) {
    state::Runtime rt;
    rt.runtime_id = e.runtime_id.empty() ? "rt:" + e.target_id + "/" + e.pane_id : e.runtime_id;
    rt.target_id = e.target_id;
    rt.pane_id = e.pane_id;
    rt.boot_id = e.runtime->boot_id;
    rt.agent_type = e.runtime->agent_type;
    rt.pid = e.pid;
    rt.started_at = e.runtime->started_at;
    rt.owner = e.source;
    runtimes_[rt.runtime_id] = rt;
    out->runtimes.push_back(rt);
    // As the engine does: the pane shows the new runtime, with no signal yet.
    state::PaneState& ps = panes_[{rt.target_id, rt.pane_id}];
    ps = state::PaneState{};
    ps.target_id = rt.target_id;
    ps.pane_id = rt.pane_id;
    ps.runtime_id = rt.runtime_id;
    ps.signal.state = core::State::kUnknown;
    ps.signal.reason_code = "no_signal";
    ps.state_version = e.ingested_at;
    ps.last_seen_at = ps.updated_at = e.ingested_at;
    out->states.push_back(ps);
    out->disposition = state::Disposition::kApplied;
  } else if (e.event_type == et::kStateChanged && e.signal) {
    const state::Runtime* rt = FindRuntime(e.runtime_id);
    if (rt == nullptr || rt->ended_at != 0) {
      *out = state::Effects{};
      out->disposition = state::Disposition::kRejected;
      out->error_code = "E_RUNTIME_STALE";
      return;
    }
    state::PaneState& ps = panes_[{rt->target_id, rt->pane_id}];
    const bool changed = ps.signal.state != e.signal->state || ps.runtime_id != rt->runtime_id;
    ps.target_id = rt->target_id;
    ps.pane_id = rt->pane_id;
    ps.runtime_id = rt->runtime_id;
    ps.signal = *e.signal;
    ps.source = e.source;
    ps.has_source = true;
    ps.state_version = e.ingested_at;
    ps.last_seen_at = e.ingested_at;
    if (changed) ps.updated_at = e.ingested_at;
    out->states.push_back(ps);
    out->disposition = state::Disposition::kApplied;
  } else if (e.event_type == et::kTargetHealthChanged) {
    if (auto h = core::ParseTargetHealth(e.health)) {
      out->target_health.emplace_back(e.target_id, *h);
      out->disposition = state::Disposition::kApplied;
    }
  }
}

state::Effects FakeEngineSeam::Tick(core::TimeNs now) {
  ticks.push_back(now);
  return std::exchange(next_tick, state::Effects{});
}

std::vector<state::Engine::Demotion> FakeEngineSeam::DueDemotions(core::TimeNs) const { return demotions; }

std::vector<state::PaneState> FakeEngineSeam::AllPanes() const {
  std::vector<state::PaneState> out;
  for (const auto& [key, ps] : panes_) out.push_back(ps);
  return out;
}

const state::PaneState* FakeEngineSeam::FindPane(const std::string& target_id, const std::string& pane_id) const {
  auto it = panes_.find({target_id, pane_id});
  return it == panes_.end() ? nullptr : &it->second;
}

const state::Runtime* FakeEngineSeam::FindRuntime(const std::string& runtime_id) const {
  auto it = runtimes_.find(runtime_id);
  return it == runtimes_.end() ? nullptr : &it->second;
}

const state::Runtime* FakeEngineSeam::ActiveRuntime(const std::string& target_id, const std::string& pane_id) const {
  for (const auto& [id, rt] : runtimes_)
    if (rt.target_id == target_id && rt.pane_id == pane_id && rt.ended_at == 0) return &rt;
  return nullptr;
}

std::vector<state::Candidate> FakeEngineSeam::Candidates(const std::string&) const { return {}; }

state::FusionResult FakeEngineSeam::Explain(const std::string& target_id, const std::string& pane_id,
                                           core::TimeNs) const {
  state::FusionResult r;
  if (const state::PaneState* ps = FindPane(target_id, pane_id); ps && ps->has_source) {
    r.has_winner = r.any_present = true;
    r.winner = ps->source;
  }
  return r;
}

void FakeEngineSeam::Restore(const state::EngineSnapshot& snapshot) {
  restored.push_back(snapshot);
  runtimes_.clear();
  panes_.clear();
  seen_.clear();
  for (const state::Runtime& rt : snapshot.runtimes) runtimes_[rt.runtime_id] = rt;
  for (const state::PaneState& ps : snapshot.states) panes_[{ps.target_id, ps.pane_id}] = ps;
  seen_.insert(snapshot.dedupe_keys.begin(), snapshot.dedupe_keys.end());
}

core::Status FakePersistence::Commit(const std::vector<Applied>& batch, core::TimeNs) {
  ++commit_calls;
  if (fail_commits > 0) {
    --fail_commits;
    return core::MakeError(core::Err::kStore, "fake store: disk full");
  }
  disk_->batches.push_back(batch);
  return core::Ok();
}

core::Result<core::TimeNs> FakePersistence::Restore(EngineSeam& core) {
  ++restores;
  std::map<std::string, state::Runtime> runtimes;
  std::map<std::pair<std::string, std::string>, state::PaneState> states;
  core::TimeNs newest = 0;
  for (const auto& batch : disk_->batches) {
    for (const Applied& a : batch) {
      newest = std::max(newest, a.event.ingested_at);
      for (const state::Runtime& rt : a.effects.runtimes) runtimes[rt.runtime_id] = rt;
      for (const state::PaneState& ps : a.effects.states) states[{ps.target_id, ps.pane_id}] = ps;
    }
  }
  state::EngineSnapshot snap;
  for (auto& [id, rt] : runtimes) snap.runtimes.push_back(rt);
  for (auto& [key, ps] : states) snap.states.push_back(ps);
  core.Restore(snap);
  return newest;
}

core::Status FakePersistence::Flush() {
  ++flushes;
  return core::Ok();
}

core::Result<state::RetentionReport> FakePersistence::RunRetention(core::TimeNs now,
                                                                   const state::RetentionOptions& options) {
  retention_runs.emplace_back(now, options);
  return state::RetentionReport{};
}

}  // namespace agt::agg::testing
