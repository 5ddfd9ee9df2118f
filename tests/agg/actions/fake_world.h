// A fake ActionWorld for unit tests of ActionService: panes and targets the
// test sets, every local target's tmux a FakeExecutor (which records each
// argv and answers from a script), signals recorded and delivered only to
// pids the test declares alive, and sleeps that advance a FakeClock instead
// of waiting. tests/agg/actions/world_contract_test.cc runs the same
// expectations against this and the daemon's world (daemon_action_world.h).
#pragma once

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "aggregator/actions/action_service.h"
#include "libagtcore/base/clock.h"
#include "tests/base/fake_clock.h"
#include "tests/agg/targets/fake_executor.h"

namespace agt::agg::testing {

class FakeActionWorld final : public ActionWorld {
 public:
  explicit FakeActionWorld(core::FakeClock* clock = nullptr) : clock_(clock) {
    TargetStatus host;
    host.spec = TargetSpec{"host", "local", "", ""};
    targets.push_back(host);
  }

  std::vector<PaneRow> panes;
  std::vector<TargetStatus> targets;                // `host` (local) to begin with
  FakeExecutor tmux;                                // every local target's executor
  std::set<int64_t> live_pids;                      // Signal succeeds only for these
  std::vector<std::pair<int64_t, int>> signals;     // delivered (pid, signal)
  std::vector<core::TimeNs> sleeps;

  std::vector<PaneRow> Panes() const override { return panes; }
  const TargetStatus* FindTarget(const std::string& name) const override {
    for (const TargetStatus& t : targets)
      if (t.spec.name == name) return &t;
    return nullptr;
  }
  TargetExecutor* Executor(const TargetStatus& target) override {
    return target.spec.kind == "local" ? &tmux : nullptr;
  }
  core::Status Signal(int64_t pid, int sig) override {
    if (pid <= 1) return core::MakeError(core::Err::kPidUnavailable, "refusing to signal pid " + std::to_string(pid));
    if (live_pids.count(pid) == 0)
      return core::MakeError(core::Err::kIo, "kill " + std::to_string(pid) + ": No such process");
    signals.emplace_back(pid, sig);
    return core::Ok();
  }
  void Sleep(core::TimeNs d) override {
    sleeps.push_back(d);
    if (clock_ != nullptr) clock_->Advance(d);
  }

 private:
  core::FakeClock* clock_;
};

}  // namespace agt::agg::testing
