// When a notification fires: the decision, apart from the OS (docs/
// architecture.md, "notify"). It is fed every pane's state after each
// change the watch hub publishes, with the time as data, and answers which
// notices are due. Edge-triggered: a pane *entering* a configured state
// opens a pending notice; it becomes due after the dwell if the pane is
// still in that same state (a prompt answered within the dwell never
// notifies); a pane notified within the cooldown is not notified again.
// Whether the user is looking at the pane is asked at firing time by the
// caller (it needs tmux), which reports back with Sent() only what it sent.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "aggregator/notify/notice.h"

namespace agt::agg {

struct NotifyPolicyOptions {
  std::vector<core::State> states = {core::State::kWaitingApproval, core::State::kWaitingInput};
  core::TimeNs dwell = 2 * core::kNsPerSec;
  core::TimeNs cooldown = 30 * core::kNsPerSec;
  /// Wall clock: a state that began before this is not an entry (panes
  /// already waiting when the daemon starts, restored from the store or
  /// drained from the spool, are not notified again by a restart).
  core::TimeNs started_at = 0;
};

/// One pane as the policy sees it: its identity key, its state and when
/// that state began (so a pane that left and re-entered the same state
/// between two observations is a new entry), and the notice to send.
struct PaneObservation {
  std::string key;                 // Notice::Key()
  bool agent = false;              // an agent runs there (no agent: no state)
  core::State state = core::State::kUnknown;
  core::TimeNs state_since = 0;    // PaneState::updated_at (wall clock)
  Notice notice;
};

class NotifyPolicy {
 public:
  explicit NotifyPolicy(NotifyPolicyOptions options) : options_(std::move(options)) {}

  /// Every pane, after a change, at monotonic time `now`.
  void Observe(const std::vector<PaneObservation>& panes, core::TimeNs now);
  /// The earliest time a pending notice becomes due; none when nothing waits.
  std::optional<core::TimeNs> NextDue() const;
  /// The notices whose dwell has passed at `now`, removed from the pending
  /// set; those of panes still in their cooldown are dropped (counted in
  /// suppressed_by_cooldown()).
  std::vector<Notice> TakeDue(core::TimeNs now);
  /// The caller sent a notice for `key` at `now`: its cooldown starts.
  void Sent(const std::string& key, core::TimeNs now);

  size_t pending() const { return pending_.size(); }
  int64_t suppressed_by_cooldown() const { return suppressed_by_cooldown_; }

 private:
  struct Seen {
    bool agent = false;
    core::State state = core::State::kUnknown;
    core::TimeNs since = 0;
  };
  struct Pending {
    core::TimeNs due = 0;
    std::string key;
    Notice notice;
  };
  bool Wanted(core::State s) const;

  NotifyPolicyOptions options_;
  std::map<std::string, Seen> seen_;
  std::map<std::string, Pending> pending_;
  std::map<std::string, core::TimeNs> last_sent_;
  int64_t suppressed_by_cooldown_ = 0;
};

}  // namespace agt::agg
