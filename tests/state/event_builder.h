// Test helper: builds engine events in one line. Times are seconds after a
// fixed epoch (T(n)); event_time and ingested_at are equal unless a test
// sets them apart.
#pragma once

#include <string>
#include <utility>

#include "libagtcore/event.h"
#include "state/model.h"

namespace agt::state::testing {

inline constexpr core::TimeNs kT0 = 1'700'000'000LL * core::kNsPerSec;
inline constexpr core::TimeNs T(double sec) {
  return kT0 + static_cast<core::TimeNs>(sec * static_cast<double>(core::kNsPerSec));
}

class Ev {
 public:
  Ev(std::string_view type, Source src, std::string dedupe) {
    e_.event_type = type;
    e_.source = src;
    e_.event_id = "id-" + dedupe;
    e_.dedupe_key = std::move(dedupe);
    e_.event_time = e_.ingested_at = T(0);
  }
  Ev& At(core::TimeNs t) { e_.event_time = e_.ingested_at = t; return *this; }
  Ev& EventTime(core::TimeNs t) { e_.event_time = t; return *this; }
  Ev& Ingested(core::TimeNs t) { e_.ingested_at = t; return *this; }
  Ev& Id(std::string id) { e_.event_id = std::move(id); return *this; }
  Ev& Rt(std::string id) { e_.runtime_id = std::move(id); return *this; }
  Ev& Pane(std::string target, std::string pane) {
    e_.target_id = std::move(target);
    e_.pane_id = std::move(pane);
    return *this;
  }
  Ev& Pid(int64_t pid) { e_.pid = pid; return *this; }
  Ev& Seq(int64_t seq) { e_.source_seq = seq; return *this; }
  Ev& StartHint(core::TimeNs t) { e_.start_hint = t; return *this; }
  Ev& Health(std::string h) { e_.health = std::move(h); return *this; }
  Ev& Sig(State s, Confidence c = Confidence::kHigh, std::string rule = "rule",
          std::string reason = "") {
    Signal sig;
    sig.state = s;
    sig.confidence = c;
    sig.rule_id = std::move(rule);
    sig.reason_code = std::move(reason);
    sig.evidence = "evidence";
    e_.signal = std::move(sig);
    return *this;
  }
  Ev& Info(std::string agent, std::string boot, core::TimeNs started, int64_t epoch = -1) {
    core::RuntimeInfo info;
    info.agent_type = std::move(agent);
    info.boot_id = std::move(boot);
    info.started_at = started;
    info.pane_epoch = epoch;
    e_.runtime = std::move(info);
    return *this;
  }
  operator Event() const { return e_; }  // NOLINT: implicit by design
  const Event& get() const { return e_; }

 private:
  Event e_;
};

namespace et = core::event_type;

/// wrapper_started for runtime `id` on host/`pane` with `pid`, at `t`.
inline Ev WrapperStart(std::string id, std::string pane, int64_t pid, core::TimeNs t,
                       int64_t epoch = -1) {
  Ev ev(et::kWrapperStarted, Source::kWrapper, "start-" + id);
  ev.Rt(std::move(id)).Pane("host", std::move(pane)).Pid(pid).At(t).Info("claude", "boot-A", t, epoch);
  return ev;
}

/// runtime_observed by the poller for host/`pane` with `pid`, process started at `started`.
inline Ev Observed(std::string dedupe, std::string pane, int64_t pid, core::TimeNs started,
                   core::TimeNs t, std::string boot = "boot-A", int64_t epoch = -1,
                   std::string target = "host") {
  Ev ev(et::kRuntimeObserved, Source::kPoller, std::move(dedupe));
  ev.Pane(std::move(target), std::move(pane)).Pid(pid).At(t).Info("claude", std::move(boot), started, epoch);
  return ev;
}

/// state_changed from `src` for runtime `id`.
inline Ev StateEv(std::string dedupe, Source src, std::string id, State s, core::TimeNs t,
                  Confidence c = Confidence::kHigh) {
  Ev ev(et::kStateChanged, src, std::move(dedupe));
  ev.Rt(std::move(id)).At(t).Sig(s, c);
  return ev;
}

}  // namespace agt::state::testing
