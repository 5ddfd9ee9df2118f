// The daemon's core: the engine and its persistence, the targets and their
// topologies, and the one ingest path every event takes (the API's
// POST /v1/events, the spool drain, and the collectors through
// CollectorSink). Ingest stamps ingested_at (strictly increasing), applies
// through the engine, makes the result durable, and only then returns, so
// an acknowledged event survives kill -9. After each change it tells the
// watch hub and updates the tmux user options of the panes that changed.
#pragma once

#include <uv.h>

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "aggregator/ingest/drop_counter.h"
#include "aggregator/ingest/persistence.h"
#include "aggregator/view/views.h"
#include "aggregator/view/watch_hub.h"
#include "aggregator/observe/collector.h"
#include "aggregator/targets/target_registry.h"
#include "libagtcore/base/clock.h"
#include "libagtcore/redact.h"

namespace agt::agg {

/// Shows a pane's state in tmux (@agtmux_state / @agtmux_source). A
/// target's collector implements it (the local one sets the options).
class PaneDecorator {
 public:
  virtual ~PaneDecorator() = default;
  virtual void Decorate(const std::string& target_id, const std::string& pane_id, core::State state,
                        core::Source source) = 0;
};

/// What one event's ingest did, as POST /v1/events reports it.
struct IngestResult {
  std::string event_id;
  state::Disposition disposition = state::Disposition::kRejected;
  std::string error_code;
};
std::string_view DispositionName(state::Disposition d);

struct CoreOptions {
  BackendOptions backend;
  std::string targets_file;   // <state_dir>/targets.json
  std::string host_socket;    // the `host` target's tmux socket
  std::string stream_id;      // watch stream id (a new ULID per run)
  WatchOptions watch;
  core::TimeNs fresh_owner = 60 * core::kNsPerSec;  // PTY/HOOK ownership freshness
  std::string screens_dir;    // <state_dir>/screens: kept screens ("" = keep none)
  /// Whether a pid on this machine is alive (core::ProcessAlive; tests fake it).
  std::function<bool(int64_t)> pid_alive;
  /// How long a wrapped runtime's agent must be gone, with no wrapper_exited,
  /// before the runtime is ended (EndDeadWrappers).
  core::TimeNs dead_wrapper_grace = 2 * core::kNsPerSec;
};

/// Who reads this runtime's pane fresher than a capture, and so what the
/// CAP poller reports for it (docs/observe.md, "Who owns a pane"): the
/// wrapper always (it reads the screen itself: the poller is silent); the
/// agent's hooks (source hook) while their fresh opinion is running or
/// completed, since they report the lifecycle (the next tool, the turn's
/// end): the poller then reports only dialogs, which some the hooks never
/// report (Claude Code's auto-mode notice and No/Yes dialog), and what ends
/// them. Nobody while the hooks report a wait (only the screen sees the
/// dialog go, and has its options), an error, idle (a start-up dialog or
/// question is only on screen) or unknown; nor Codex's notify, which
/// reports a turn's end and not the next turn's start. `candidates` are the
/// runtime's (Engine::Candidates).
PaneOwner FresherOwner(const state::Runtime& rt, const std::vector<state::Candidate>& candidates,
                       core::TimeNs now, core::TimeNs fresh_owner);

class DaemonCore final : public CollectorSink {
 public:
  /// The daemon's core over the engine and the SQLite store in
  /// options.backend.state_dir.
  static core::Result<std::unique_ptr<DaemonCore>> Create(uv_loop_t* loop, const core::Clock& clock,
                                                          CoreOptions options);
  /// The same over a given engine and persistence (tests pass fakes:
  /// tests/agg/daemon/fake_backend.h); options.backend is not used.
  static core::Result<std::unique_ptr<DaemonCore>> Create(uv_loop_t* loop, const core::Clock& clock,
                                                          CoreOptions options, Backend backend);
  ~DaemonCore() override;

  /// The ingest path: stamp, apply, commit, notify. E_STORE when the batch
  /// could not be made durable (nothing is acknowledged then).
  core::Result<std::vector<IngestResult>> Ingest(std::vector<core::Event> events);

  // CollectorSink (called on the loop thread by collectors).
  void OnTopology(const Topology& topology) override;
  void OnEvent(core::Event event) override;
  PaneOwner OwnerOf(const std::string& target_id, const std::string& pane_id) const override;
  std::optional<core::Signal> HookOpinion(const std::string& target_id,
                                          const std::string& pane_id) const override;
  void KeepScreen(detect::KeptScreen screen) override;
  void OnRemotePanes(const std::string& target_id, const std::vector<PaneRow>& rows) override;
  void OnRemoteCaller(const std::string& target_id, RemoteCaller caller) override;
  /// The federated target's agtmuxd, or null when `target_id` is not federated.
  const RemoteCaller* RemoteCallerFor(const std::string& target_id) const;

  /// Time-driven engine work (pending-bind expiry, demotions, runtimes of
  /// wrappers that died without a word); the daemon calls it every second.
  void Tick();
  /// Commits collector events queued since the last loop turn.
  void FlushQueued();
  core::Status Flush();
  void RemoveTarget(const std::string& target_id);

  std::vector<PaneRow> Rows() const;
  ViewSources sources() const { return {&topologies_, backend_.core.get(), &targets_, &remote_}; }
  TargetRegistry& targets() { return targets_; }
  const EngineSeam& state() const { return *backend_.core; }
  /// The loop this core runs on (the action service hands work back to it).
  uv_loop_t* loop() const { return loop_; }
  const Persistence& persistence() const { return *backend_.persistence; }
  Persistence& persistence_mut() { return *backend_.persistence; }
  WatchHub& watch() { return *watch_; }
  const std::map<std::string, Topology>& topologies() const { return topologies_; }
  void set_decorator(PaneDecorator* d) { decorator_ = d; }
  int64_t events_ingested() const { return events_ingested_; }
  /// Why the last commit failed ("" when it succeeded): a full disk, a
  /// broken database. /v1/health shows it while it lasts.
  const std::string& store_error() const { return store_error_; }
  /// Events lost on the way (spool lines, producers' reports), by reason.
  DropCounter& drops() { return drops_; }

 private:
  void AssignTarget(core::Event* e) const;
  DaemonCore(uv_loop_t* loop, const core::Clock& clock, CoreOptions options);
  void AfterChange(const std::vector<Applied>& applied);
  void EndDeadWrappers(core::TimeNs now);
  /// Records a commit's outcome; logs when the store starts failing and
  /// when it works again (not every failed commit).
  void NoteCommit(const core::Status& st);

  uv_loop_t* loop_;
  const core::Clock& clock_;
  CoreOptions options_;
  Backend backend_;
  TargetRegistry targets_;
  std::map<std::string, Topology> topologies_;
  std::map<std::string, std::vector<PaneRow>> remote_;  // federated targets' rows
  std::map<std::string, RemoteCaller> remote_callers_;
  std::unique_ptr<WatchHub> watch_;
  PaneDecorator* decorator_ = nullptr;
  core::TimeNs last_ingested_ = 0;
  int64_t events_ingested_ = 0;
  std::string store_error_;
  DropCounter drops_;
  std::vector<core::Event> queued_;
  // Ingest's batch, kept from one call to the next so that the engine
  // overwrites each Effects' rows in place (ApplyInto) instead of building
  // every row and string anew; `ingesting` guards against a nested call.
  std::vector<Applied> batch_;
  bool ingesting_ = false;
  uv_timer_t* queue_timer_ = nullptr;
  std::unique_ptr<core::Redactor> redactor_;  // null: the rules failed to load
  std::map<std::string, core::TimeNs> gone_since_;  // wrapped runtime -> when its pid was first seen gone
};

}  // namespace agt::agg
