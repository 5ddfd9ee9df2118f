// Binding (docs/spec.md §5): which runtime an event without runtime_id belongs to.
// Hooks in unwrapped panes know their tmux pane (and maybe the agent's pid)
// but not the runtime agtmux assigned; this file decides, from the runtimes
// known on that pane, whether exactly one can have sent the event.
#pragma once

#include <vector>

#include "state/model.h"

namespace agt::state {

enum class BindOutcome : uint8_t { kBound, kNoMatch, kAmbiguous };

struct BindResult {
  BindOutcome outcome = BindOutcome::kNoMatch;
  const Runtime* runtime = nullptr;  // set when kBound
};

/// Matches `e` (effective time `t`) against the runtimes ever seen on its
/// (target_id, pane_id). A runtime matches when
///   - it was active at t: started_at - bind_window <= t and (ended_at == 0
///     or t < ended_at); for a live event this is the pane's active runtime,
///     and a late (spooled) event still finds the runtime it was fired in;
///   - the event's pid, if given, equals the runtime's pid (a runtime whose
///     pid is unknown does not contradict it);
///   - the event's start_hint, if given, is within bind_window of started_at.
/// One match binds; two or more are ambiguous (a hook fired within
/// bind_window of a runtime change, without a pid to tell them apart).
BindResult MatchRuntime(const Event& e, TimeNs t, const std::vector<const Runtime*>& pane_runtimes,
                        TimeNs bind_window);

}  // namespace agt::state
