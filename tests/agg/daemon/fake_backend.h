// In-memory fakes of the daemon's two seams, EngineSeam and Persistence
// (aggregator/view/engine_seam.h, persistence.h), for fast unit tests of
// DaemonCore and the API without SQLite or the real engine. Each records
// what it was asked. tests/agg/daemon/backend_contract_test.cc runs the
// same expectations against these and the real implementations, so the
// fakes cannot drift from what they stand for.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "aggregator/ingest/persistence.h"
#include "aggregator/view/engine_seam.h"

namespace agt::agg::testing {

/// A small model of the engine: wrapper_started / runtime_observed (with
/// runtime facts) make a runtime active in its pane (unknown, reason
/// no_signal, until a signal comes); state_changed for an active runtime
/// sets its pane's state (for an unknown one: E_RUNTIME_STALE); a repeated (runtime or pane,
/// source, dedupe_key) is a duplicate; target_health_changed is reported.
/// Anything else is stored without effect. It records every call.
class FakeEngineSeam final : public EngineSeam {
 public:
  struct Applied {
    core::Event event;
    core::TimeNs now = 0;
  };
  std::vector<Applied> applied;                         // every ApplyInto, in order
  std::vector<core::TimeNs> ticks;                      // every Tick's `now`
  std::vector<state::EngineSnapshot> restored;          // every Restore
  state::Effects next_tick;                             // what the next Tick returns
  std::vector<state::Engine::Demotion> demotions;       // what DueDemotions answers

  void ApplyInto(const core::Event& e, core::TimeNs now, state::Effects* out) override;
  state::Effects Tick(core::TimeNs now) override;
  std::vector<state::Engine::Demotion> DueDemotions(core::TimeNs now) const override;
  std::vector<state::PaneState> AllPanes() const override;
  const state::PaneState* FindPane(const std::string& target_id, const std::string& pane_id) const override;
  const state::Runtime* FindRuntime(const std::string& runtime_id) const override;
  const state::Runtime* ActiveRuntime(const std::string& target_id, const std::string& pane_id) const override;
  std::vector<state::Candidate> Candidates(const std::string& runtime_id) const override;
  /// The pane's deciding source as the winner; no per-source verdicts.
  state::FusionResult Explain(const std::string& target_id, const std::string& pane_id,
                              core::TimeNs now) const override;
  void Restore(const state::EngineSnapshot& snapshot) override;
  const char* name() const override { return "fake-engine"; }

 private:
  using PaneKey = std::pair<std::string, std::string>;
  std::map<std::string, state::Runtime> runtimes_;
  std::map<PaneKey, state::PaneState> panes_;
  std::set<std::string> seen_;  // dedupe keys
};

/// What a FakePersistence has made "durable": shared by the fakes that
/// stand for one database file, so a second one (a restarted daemon)
/// restores what the first committed.
struct FakeDisk {
  std::vector<std::vector<Applied>> batches;  // every committed batch, in order
};

/// Persistence in memory. Commit fails (E_STORE, nothing kept) while
/// `fail_commits` > 0, counting it down; Restore rebuilds the engine from
/// the runtimes and pane states of the committed batches.
class FakePersistence final : public Persistence {
 public:
  explicit FakePersistence(std::shared_ptr<FakeDisk> disk = std::make_shared<FakeDisk>())
      : disk_(std::move(disk)) {}

  int fail_commits = 0;
  int commit_calls = 0;     // attempts, failed ones included
  int flushes = 0;
  int restores = 0;
  std::vector<std::pair<core::TimeNs, state::RetentionOptions>> retention_runs;
  const FakeDisk& disk() const { return *disk_; }

  core::Status Commit(const std::vector<Applied>& batch, core::TimeNs now) override;
  core::Result<core::TimeNs> Restore(EngineSeam& core) override;
  core::Status Flush() override;
  core::Result<state::RetentionReport> RunRetention(core::TimeNs now,
                                                    const state::RetentionOptions& options) override;
  const char* name() const override { return "fake-store"; }

 private:
  std::shared_ptr<FakeDisk> disk_;
};

}  // namespace agt::agg::testing
