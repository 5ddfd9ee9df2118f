// The state engine: a pure, deterministic function of the events it is fed
// (docs/spec.md §4, §5). No clock, no I/O: `now` is an argument, and the same
// multiset of events (with their ingested_at) gives the same final states
// whatever order they arrive in (NFR-8).
//
// Resolution order for each event: dedupe -> order check against the
// per-(runtime, source) cursor -> runtime guard -> freshness/TTL ->
// supersession between sources -> precedence among the fresh candidates.
#pragma once

#include <array>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "state/fusion.h"
#include "state/model.h"
#include "state/order.h"

namespace agt::state {

struct EngineOptions {
  TimeNs skew_budget = 10 * core::kNsPerSec;         // effective_event_time
  TimeNs completed_to_idle = 120 * core::kNsPerSec;  // demotion_due threshold
  TimeNs bind_window = 5 * core::kNsPerSec;          // start_hint tolerance
  TimeNs pending_bind_ttl = 10 * core::kNsPerSec;    // inbox -> bind_ttl_expired
  /// Per-source signal TTL (0 = no age limit; liveness is then the
  /// reconciler's job through stale_detected). Indexed by Source.
  std::array<TimeNs, core::kSourceCount> signal_ttl = {0, 0, 0, 0};
};

/// The engine's bookkeeping for one runtime beyond its row and candidates:
/// what the state_version, the stale marks and the demotion guard derive from.
struct RuntimeBook {
  std::string runtime_id;
  TimeNs max_ingested = 0;       // newest ingested_at of its events (demotion_due excluded)
  int64_t demoted_version = -1;  // newest guard version of a demotion_due, -1 = none
  TimeNs demoted_at = 0;         // ingested_at of that demotion_due
  std::array<TimeMark, core::kSourceCount> stale{};  // newest stale_detected per source
  FusionMarks marks;             // row 1's memory (state/fusion.h)
  bool operator==(const RuntimeBook&) const = default;
};

/// The same for one target: its health and the marks that apply to all of
/// its panes.
struct TargetBook {
  std::string target_id;
  bool has_health = false;
  TargetHealth health = TargetHealth::kOk;
  OrderKey health_key;           // the health event that decided
  TimeNs max_ingested = 0;       // newest ingested_at of its target-scoped events
  std::array<TimeMark, core::kSourceCount> stale{};
  bool operator==(const TargetBook&) const = default;
};

/// Everything the engine holds; the store can rebuild it at start-up.
struct EngineSnapshot {
  std::vector<Runtime> runtimes;
  std::vector<Cursor> cursors;
  std::vector<PaneState> states;
  std::vector<InboxEntry> pending;       // only kPendingBind entries
  std::vector<std::pair<std::string, TargetHealth>> target_health;
  std::vector<std::pair<Candidate, std::string>> candidates;  // (candidate, runtime_id)
  std::vector<std::string> dedupe_keys;  // "runtime\x1fsource\x1fkey" of stored events
                                         // ("@target" in place of runtime for target-scoped ones)
  std::vector<RuntimeBook> runtime_books;
  std::vector<TargetBook> target_books;
  bool operator==(const EngineSnapshot&) const = default;
};

class Engine {
 public:
  explicit Engine(EngineOptions options = {});
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  /// Applies one event; `e.ingested_at` must be set (the daemon stamps it).
  /// `now` is the daemon's time for this loop iteration.
  /// A thin wrapper over ApplyInto with a fresh Effects.
  Effects Apply(const Event& e, TimeNs now);

  /// The same as Apply, into a caller-owned Effects that is reset first
  /// (whatever it held is discarded). A caller that passes the same Effects on
  /// every call lets the engine reuse its rows and their string capacity, so
  /// the steady state does not allocate per event.
  void ApplyInto(const Event& e, TimeNs now, Effects* out);

  /// Time-driven work that is not an event: expires pending binds older than
  /// the TTL (bind_ttl_expired). Demotion and staleness are NOT done here:
  /// the reconciler asks `DueDemotions` and sends demotion_due events.
  Effects Tick(TimeNs now);

  /// Panes whose state is `completed` for longer than completed_to_idle, with
  /// the state_version the demotion must guard on.
  struct Demotion {
    std::string target_id, pane_id, runtime_id;
    int64_t state_version;
  };
  std::vector<Demotion> DueDemotions(TimeNs now) const;

  const PaneState* FindPane(const std::string& target_id, const std::string& pane_id) const;
  const Runtime* FindRuntime(const std::string& runtime_id) const;
  const Runtime* ActiveRuntime(const std::string& target_id, const std::string& pane_id) const;
  /// Every source's latest opinion for a runtime (for `agtmux explain`).
  std::vector<Candidate> Candidates(const std::string& runtime_id) const;
  std::vector<PaneState> AllPanes() const;  // sorted by (target_id, pane_id)
  /// How fusion judged each source of a pane's active runtime at `now`
  /// (for `agtmux explain`); has_winner false when nothing decided.
  FusionResult Explain(const std::string& target_id, const std::string& pane_id, TimeNs now) const;

  EngineSnapshot Snapshot() const;
  void Restore(const EngineSnapshot& snapshot);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace agt::state
