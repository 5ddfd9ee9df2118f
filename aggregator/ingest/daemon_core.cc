// The daemon core (see daemon_core.h): one ingest path for every event, the
// topology each collector reported, and the fan-out after a change (watch
// deltas, tmux pane options). Collector events are queued and committed as
// one batch per loop turn, so a burst of poller verdicts costs one
// transaction rather than one each.
#include "aggregator/ingest/daemon_core.h"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "libagtcore/detect/pattern_analyzer.h"
#include "libagtcore/event_redact.h"
#include "libagtcore/ids.h"
#include "libagtcore/os/process.h"
#include "libagtcore/uv/handles.h"

namespace agt::agg {

std::string_view DispositionName(state::Disposition d) {
  switch (d) {
    case state::Disposition::kApplied: return "applied";
    case state::Disposition::kStored: return "stored";
    case state::Disposition::kPending: return "pending";
    case state::Disposition::kDuplicate: return "duplicate";
    case state::Disposition::kRejected: return "rejected";
    case state::Disposition::kIgnored: return "ignored";
    case state::Disposition::kDropped: return "dropped";
  }
  return "rejected";
}

DaemonCore::DaemonCore(uv_loop_t* loop, const core::Clock& clock, CoreOptions options)
    : loop_(loop),
      clock_(clock),
      options_(std::move(options)),
      drops_(options_.backend.state_dir.empty() ? "" : options_.backend.state_dir + "/dropped.json") {}

DaemonCore::~DaemonCore() {
  uv::CloseAndDelete(queue_timer_);
}

core::Result<std::unique_ptr<DaemonCore>> DaemonCore::Create(uv_loop_t* loop, const core::Clock& clock,
                                                             CoreOptions options) {
  auto backend = CreateBackend(options.backend);
  if (!backend) return backend.error();
  return Create(loop, clock, std::move(options), std::move(*backend));
}

core::Result<std::unique_ptr<DaemonCore>> DaemonCore::Create(uv_loop_t* loop, const core::Clock& clock,
                                                             CoreOptions options, Backend backend) {
  std::unique_ptr<DaemonCore> c(new DaemonCore(loop, clock, std::move(options)));
  c->backend_ = std::move(backend);
  auto last = c->backend_.persistence->Restore(*c->backend_.core);
  if (!last) return last.error();
  c->last_ingested_ = *last;
  if (auto r = core::Redactor::LoadBuiltin(); r.ok())
    c->redactor_ = std::make_unique<core::Redactor>(std::move(*r));
  auto targets = TargetRegistry::Load(c->options_.targets_file, c->options_.host_socket);
  if (!targets) return targets.error();
  c->targets_ = std::move(*targets);
  DaemonCore* raw = c.get();
  c->watch_ = std::make_unique<WatchHub>(
      loop, c->options_.stream_id, [raw] { return raw->Rows(); }, &c->targets_, clock,
      c->options_.watch);
  c->queue_timer_ = new uv_timer_t;
  uv_timer_init(loop, c->queue_timer_);
  c->queue_timer_->data = raw;
  return c;
}

// A wrapper or a hook knows its tmux server only by socket path ($TMUX) and
// reports itself as target "host". When that socket belongs to another
// registered local target (a second tmux server on this machine), the
// event belongs to that target, so that its pane joins the target's
// topology and a hook binds to the runtime in that pane.
void DaemonCore::AssignTarget(core::Event* e) const {
  bool outside = e->source == core::Source::kWrapper || e->source == core::Source::kHook ||
                 e->source == core::Source::kNotify;
  if (!outside || !e->runtime || e->runtime->tmux_socket.empty() || e->target_id != "host") return;
  const std::string& socket = e->runtime->tmux_socket;
  auto host = topologies_.find("host");
  if (host != topologies_.end() && host->second.socket_path == socket) return;
  for (const auto& [target_id, topology] : topologies_) {
    if (topology.socket_path == socket) {
      e->target_id = target_id;
      return;
    }
  }
  for (const TargetStatus& t : targets_.all()) {
    if (t.spec.kind == "local" && !t.spec.tmux_socket.empty() && t.spec.tmux_socket == socket) {
      e->target_id = t.spec.name;
      return;
    }
  }
}

core::Result<std::vector<IngestResult>> DaemonCore::Ingest(std::vector<core::Event> events) {
  // The engine fills the Effects left in batch_ by the previous call (their
  // rows and strings are reused); a nested call, if one ever happens, gets a
  // batch of its own.
  std::vector<Applied> nested;
  std::vector<Applied>& batch = ingesting_ ? nested : batch_;
  struct Guard {
    bool& flag;
    bool was;
    ~Guard() { flag = was; }
  } guard{ingesting_, ingesting_};
  ingesting_ = true;
  batch.resize(events.size());
  std::vector<IngestResult> results;
  results.reserve(events.size());
  core::TimeNs now = clock_.Now();
  for (size_t i = 0; i < events.size(); ++i) {
    Applied& a = batch[i];
    a.event = std::move(events[i]);
    core::Event& e = a.event;
    AssignTarget(&e);
    // Secrets never reach the engine, the store, the spool or the API
    // (docs/store.md, Redaction): this is the daemon's one redaction, and
    // the store trusts it. Without rules, payloads and evidence are dropped.
    core::RedactEvent(redactor_.get(), &e);
    // Strictly increasing ingested_at: the engine orders ties by it.
    e.ingested_at = std::max(now, last_ingested_ + 1);
    last_ingested_ = e.ingested_at;
    backend_.core->ApplyInto(e, e.ingested_at, &a.effects);
    results.push_back({e.event_id, a.effects.disposition, a.effects.error_code});
  }
  auto st = backend_.persistence->Commit(batch, now);
  NoteCommit(st);
  if (st) {
    events_ingested_ += static_cast<int64_t>(batch.size());
    AfterChange(batch);
  } else {
    // The engine applied what the store refused: it is rebuilt from the
    // store, so that it never shows (or acts on, or later commits effects
    // derived from) a state that was not persisted and not acknowledged.
    // If the store cannot even be read, the engine keeps what it has; a
    // restart puts them back in step.
    if (auto restored = backend_.persistence->Restore(*backend_.core); !restored)
      spdlog::error("a commit failed ({}) and the engine could not be rebuilt from the store: {}",
                    st.error().ToString(), restored.error().ToString());
  }
  // A large batch (a spool drained at once) is not kept in memory until the
  // next one; the usual batch of a few events is.
  constexpr size_t kKeptRows = 64;
  if (batch.size() > kKeptRows) batch.resize(kKeptRows);
  if (!st) return st.error();
  return results;
}

void DaemonCore::NoteCommit(const core::Status& st) {
  if (st) {
    if (!store_error_.empty()) spdlog::info("the store commits again (it failed with: {})", store_error_);
    store_error_.clear();
    return;
  }
  const std::string why = st.error().message;
  if (why != store_error_)
    spdlog::error("the store cannot commit: {}; events are refused (E_STORE) until it can", why);
  store_error_ = why;
}

void DaemonCore::AfterChange(const std::vector<Applied>& applied) {
  bool changed = false;
  for (const Applied& a : applied) {
    const state::Effects& fx = a.effects;
    for (const auto& [target, health] : fx.target_health) {
      if (TargetStatus* t = targets_.Find(target)) {
        t->health = health;
        // The collector's reason (refused, timed out, host key mismatch,
        // revoked, auth failed) is what /v1/targets and `agtmux target
        // list` show.
        t->error = health == state::TargetHealth::kOk ? "" : a.event.raw_payload;
        t->updated_at = a.event.ingested_at;
        changed = true;
      }
    }
    if (!fx.states.empty() || !fx.runtimes.empty()) changed = true;
    if (decorator_) {
      for (const state::PaneState& ps : fx.states) {
        if (ps.runtime_id.empty() || !ps.has_source) continue;
        decorator_->Decorate(ps.target_id, ps.pane_id, ps.signal.state, ps.source);
      }
    }
  }
  if (changed) watch_->MarkDirty();
}

void DaemonCore::OnTopology(const Topology& topology) {
  auto it = topologies_.find(topology.target_id);
  if (it != topologies_.end() && it->second.panes == topology.panes &&
      it->second.server_running == topology.server_running && it->second.boot_id == topology.boot_id)
    return;
  topologies_[topology.target_id] = topology;
  if (TargetStatus* t = targets_.Find(topology.target_id)) t->connected = true;
  watch_->MarkDirty();
}

void DaemonCore::OnRemotePanes(const std::string& target_id, const std::vector<PaneRow>& rows) {
  remote_[target_id] = rows;
  if (TargetStatus* t = targets_.Find(target_id)) t->connected = true;
  watch_->MarkDirty();
}

void DaemonCore::OnRemoteCaller(const std::string& target_id, RemoteCaller caller) {
  if (caller) remote_callers_[target_id] = std::move(caller);
  else remote_callers_.erase(target_id);
}

const RemoteCaller* DaemonCore::RemoteCallerFor(const std::string& target_id) const {
  auto it = remote_callers_.find(target_id);
  return it == remote_callers_.end() ? nullptr : &it->second;
}

void DaemonCore::OnEvent(core::Event event) {
  queued_.push_back(std::move(event));
  if (!uv_is_active(reinterpret_cast<uv_handle_t*>(queue_timer_))) {
    uv_timer_start(queue_timer_, [](uv_timer_t* t) { static_cast<DaemonCore*>(t->data)->FlushQueued(); },
                   0, 0);
  }
}

void DaemonCore::FlushQueued() {
  if (queued_.empty()) return;
  std::vector<core::Event> batch = std::move(queued_);
  queued_.clear();
  // A collector cannot retry; a failed commit is logged by the caller's
  // health (E_STORE surfaces in /v1/health) and the next scan re-reports.
  (void)Ingest(std::move(batch));
}

PaneOwner FresherOwner(const state::Runtime& rt, const std::vector<state::Candidate>& candidates,
                       core::TimeNs now, core::TimeNs fresh_owner) {
  if (rt.owner == core::Source::kWrapper) return PaneOwner::kWrapper;
  for (const state::Candidate& c : candidates) {
    if (c.source != core::Source::kHook || c.stale || now - c.seen_at > fresh_owner) continue;
    const bool lifecycle = c.signal.state == core::State::kRunning || c.signal.state == core::State::kCompleted;
    return lifecycle ? PaneOwner::kHooks : PaneOwner::kNone;
  }
  return PaneOwner::kNone;
}

PaneOwner DaemonCore::OwnerOf(const std::string& target_id, const std::string& pane_id) const {
  const state::Runtime* rt = backend_.core->ActiveRuntime(target_id, pane_id);
  if (!rt) return PaneOwner::kNone;
  if (auto t = topologies_.find(target_id); t != topologies_.end() && OfAnotherServer(*rt, t->second))
    return PaneOwner::kNone;  // the old server's runtime owns nothing in the new one
  return FresherOwner(*rt, backend_.core->Candidates(rt->runtime_id), clock_.Now(), options_.fresh_owner);
}

std::optional<core::Signal> DaemonCore::HookOpinion(const std::string& target_id,
                                                    const std::string& pane_id) const {
  const state::Runtime* rt = backend_.core->ActiveRuntime(target_id, pane_id);
  if (!rt) return std::nullopt;
  const core::TimeNs now = clock_.Now();
  const state::FusionResult fr = backend_.core->Explain(target_id, pane_id, now);
  std::optional<state::Candidate> best;
  for (const state::Candidate& c : backend_.core->Candidates(rt->runtime_id)) {
    if (state::IsScreen(c.source) || now - c.seen_at > options_.fresh_owner) continue;
    // Only an opinion fusion still believes: one a screen reading ended
    // (row 1, 1b) or a newer hook replaced is no disagreement.
    const state::FusionVerdict v = fr.verdict[static_cast<int>(c.source)];
    if (v != state::FusionVerdict::kWon && v != state::FusionVerdict::kOutranked) continue;
    if (fr.answered[static_cast<int>(c.source)]) continue;
    if (!best || best->seen_at < c.seen_at) best = c;
  }
  if (!best) return std::nullopt;
  return best->signal;
}

void DaemonCore::KeepScreen(detect::KeptScreen screen) {
  if (options_.screens_dir.empty() || !redactor_) return;  // never unredacted
  if (const state::Runtime* rt = backend_.core->ActiveRuntime(screen.target_id, screen.pane_id))
    screen.agent_version = rt->agent_version;
  if (const detect::PatternSet* set = detect::DefaultLibrary()->ForAgent(screen.agent_type))
    screen.pattern_set_version = set->version;
  auto kept = detect::KeepScreen(options_.screens_dir, std::move(screen), *redactor_);
  if (!kept.ok()) spdlog::warn("keeping a screen: {}", kept.error().ToString());
}

void DaemonCore::Tick() {
  FlushQueued();
  core::TimeNs now = clock_.Now();
  state::Effects fx = backend_.core->Tick(now);
  std::vector<Applied> batch;
  if (!fx.states.empty() || !fx.inbox.empty() || !fx.runtimes.empty()) {
    batch.push_back({core::Event{}, std::move(fx)});
    auto st = backend_.persistence->Commit(batch, now);
    NoteCommit(st);
    if (st) AfterChange(batch);
  }
  // Demotions go through the ingest path as events.
  std::vector<core::Event> demotions;
  for (const auto& d : backend_.core->DueDemotions(now)) {
    core::Event e;
    e.event_id = core::NewUlid(now);
    e.event_type = std::string(core::event_type::kDemotionDue);
    e.source = core::Source::kPoller;
    e.dedupe_key = "demotion:" + d.runtime_id + ":" + std::to_string(d.state_version);
    e.event_time = now;
    e.runtime_id = d.runtime_id;
    e.target_id = d.target_id;
    e.pane_id = d.pane_id;
    e.source_seq = d.state_version;  // the guarded state_version
    demotions.push_back(std::move(e));
  }
  if (!demotions.empty()) (void)Ingest(std::move(demotions));
  EndDeadWrappers(now);
}

// A wrapper killed with SIGKILL (or an OOM kill) never sends wrapper_exited,
// and its runtime would hold the pane with its last state for ever. The
// wrapper reports its agent's pid; the agent goes with the wrapper (its
// terminal hangs up). A wrapped runtime whose pid has been gone for
// dead_wrapper_grace without a wrapper_exited (which a wrapper that exits
// normally sends right after its agent) gets stale_detected and
// runtime_ended, once. Wrapper events come through this machine's socket,
// so the pid is this machine's.
void DaemonCore::EndDeadWrappers(core::TimeNs now) {
  const std::function<bool(int64_t)>& alive = options_.pid_alive;
  std::map<std::string, core::TimeNs> still_gone;
  std::vector<core::Event> ended;
  for (const state::PaneState& ps : backend_.core->AllPanes()) {
    if (ps.runtime_id.empty()) continue;
    const state::Runtime* rt = backend_.core->FindRuntime(ps.runtime_id);
    if (!rt || rt->ended_at != 0 || rt->owner != core::Source::kWrapper || !rt->pid || *rt->pid <= 1) continue;
    if (alive ? alive(*rt->pid) : core::ProcessAlive(*rt->pid)) continue;
    auto seen = gone_since_.find(rt->runtime_id);
    const core::TimeNs since = seen == gone_since_.end() ? now : seen->second;
    if (now - since < options_.dead_wrapper_grace) {
      still_gone[rt->runtime_id] = since;
      continue;
    }
    for (std::string_view type : {core::event_type::kStaleDetected, core::event_type::kRuntimeEnded}) {
      core::Event e;
      e.event_id = core::NewUlid(now);
      e.event_type = std::string(type);
      e.source = core::Source::kPoller;
      e.dedupe_key = "wrapper-gone:" + std::string(type) + ":" + rt->runtime_id;
      e.event_time = now;
      e.runtime_id = rt->runtime_id;
      e.target_id = rt->target_id;
      e.pane_id = rt->pane_id;
      e.pid = *rt->pid;
      e.raw_payload = "the wrapped agent (pid " + std::to_string(*rt->pid) + ") is gone and its wrapper sent no exit";
      ended.push_back(std::move(e));
    }
  }
  gone_since_ = std::move(still_gone);
  if (!ended.empty()) (void)Ingest(std::move(ended));
}

core::Status DaemonCore::Flush() {
  FlushQueued();
  return backend_.persistence->Flush();
}

void DaemonCore::RemoveTarget(const std::string& target_id) {
  topologies_.erase(target_id);
  remote_.erase(target_id);
  watch_->MarkDirty();
}

std::vector<PaneRow> DaemonCore::Rows() const { return CollectPanes(sources()); }

}  // namespace agt::agg
