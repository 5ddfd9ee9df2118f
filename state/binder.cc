// The matching half of binding. The engine owns the inbox (when to try, when
// to give up); this file only answers "which runtime, if exactly one".
#include "state/binder.h"

namespace agt::state {
namespace {

bool Matches(const Event& e, TimeNs t, const Runtime& rt, TimeNs window) {
  if (t < rt.started_at - window) return false;
  if (rt.ended_at != 0 && t >= rt.ended_at) return false;
  if (e.pid && rt.pid && *e.pid != *rt.pid) return false;
  if (e.start_hint) {
    TimeNs d = *e.start_hint - rt.started_at;
    if (d < 0) d = -d;
    if (d > window) return false;
  }
  return true;
}

}  // namespace

BindResult MatchRuntime(const Event& e, TimeNs t, const std::vector<const Runtime*>& pane_runtimes,
                        TimeNs bind_window) {
  BindResult r;
  for (const Runtime* rt : pane_runtimes) {
    if (!Matches(e, t, *rt, bind_window)) continue;
    if (r.runtime != nullptr) return BindResult{BindOutcome::kAmbiguous, nullptr};
    r.runtime = rt;
  }
  if (r.runtime != nullptr) r.outcome = BindOutcome::kBound;
  return r;
}

}  // namespace agt::state
