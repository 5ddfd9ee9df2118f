// A generated, realistic event stream for the store's crash, replay and
// benchmark programs: several wrapped agents on one target, wrapper screen
// states with sequence numbers, Claude hooks with JSON payloads, poller
// opinions, resent duplicates, a runtime replaced mid-stream and target
// health changes. Deterministic in its seed; times are fixed in the events
// (ingested_at included), so the same stream gives the same store.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "libagtcore/event.h"

namespace agt::state::storetest {

struct StreamOptions {
  uint32_t seed = 1;
  int panes = 4;
  int events = 400;            // besides the runtime starts
  bool restart = true;         // replace pane 0's runtime half-way
  int start_offset_panes = 0;  // pane numbering offset (for distinct streams)
  bool resend_new_id = true;   // a resend gets a new event_id (else an exact copy)
  bool pane_bound_hooks = false;  // some hooks carry target+pane+pid, no runtime_id
  /// stale_detected (runtime-scoped from the poller and from a source,
  /// target-wide) and demotion_due events: what the engine's books hold.
  bool books = false;
  core::TimeNs t0 = 1'780'000'000LL * core::kNsPerSec;
};

inline std::vector<core::Event> GenerateStream(const StreamOptions& o) {
  namespace et = core::event_type;
  std::mt19937 rng(o.seed);
  std::vector<core::Event> out;
  int n = 0;
  auto base = [&](std::string_view type, core::Source src, core::TimeNs t) {
    core::Event e;
    e.event_id = "ev-" + std::to_string(o.seed) + "-" + std::to_string(n++);
    e.event_type = type;
    e.source = src;
    e.event_time = t;
    e.ingested_at = t + 5 * core::kNsPerMs;
    e.target_id = "host";
    return e;
  };
  std::vector<std::string> rt(static_cast<size_t>(o.panes));
  std::vector<int64_t> seq(static_cast<size_t>(o.panes), 0);
  auto pane_name = [&](int p) { return "%" + std::to_string(p + o.start_offset_panes); };
  auto start = [&](int p, int64_t epoch, core::TimeNs t) {
    rt[static_cast<size_t>(p)] = "rt-" + std::to_string(o.seed) + "-p" + std::to_string(p) + "-e" +
                                 std::to_string(epoch);
    seq[static_cast<size_t>(p)] = 0;
    core::Event e = base(et::kWrapperStarted, core::Source::kWrapper, t);
    e.runtime_id = rt[static_cast<size_t>(p)];
    e.dedupe_key = "start-" + e.runtime_id;
    e.pane_id = pane_name(p);
    e.pid = 1000 + p + epoch * 100;
    e.runtime = core::RuntimeInfo{"claude", "/home/dev/src/app", "3f2a9c", "/tmp/tmux-1000/default",
                                  "boot-A", t, epoch, p % 2 == 0 ? "2.1.197" : ""};
    out.push_back(e);
  };
  core::TimeNs t = o.t0;
  for (int p = 0; p < o.panes; ++p) start(p, 0, t);
  const core::State states[] = {core::State::kRunning, core::State::kWaitingApproval,
                                core::State::kWaitingInput, core::State::kCompleted,
                                core::State::kIdle};
  auto signal = [&](core::State s, std::string rule) {
    core::Signal sig;
    sig.state = s;
    sig.confidence = core::Confidence::kHigh;
    sig.rule_id = std::move(rule);
    sig.evidence = s == core::State::kRunning ? "* Cogitating... (12s · esc to interrupt)"
                                              : "Do you want to proceed?";
    if (s == core::State::kWaitingApproval) {
      sig.detail = core::WaitingDetail{"shell", "Bash command: npm test -- --watch=false",
                                       {"Yes", "Yes, and don't ask again", "No"}, false, 1};
    }
    return sig;
  };
  for (int i = 0; i < o.events; ++i) {
    t += 20 * core::kNsPerMs;
    if (o.restart && i == o.events / 2) {
      core::Event exit = base(et::kWrapperExited, core::Source::kWrapper, t);
      exit.runtime_id = rt[0];
      exit.pane_id = pane_name(0);
      exit.dedupe_key = "exit-" + rt[0];
      exit.exit = core::ExitInfo{0, 0};
      out.push_back(exit);
      t += core::kNsPerMs;
      start(0, 1, t);
      continue;
    }
    if (i == o.events / 3 || i == (2 * o.events) / 3) {
      core::Event h = base(et::kTargetHealthChanged, core::Source::kPoller, t);
      h.health = i == o.events / 3 ? "degraded" : "ok";
      h.dedupe_key = "health-" + std::to_string(o.seed) + "-" + std::to_string(i);
      out.push_back(h);
      continue;
    }
    if (o.books && i % 9 == 4) {
      // Which kind of book event comes from i, not from rng: streams
      // without them draw the same random numbers as before.
      const int p = (i / 9) % o.panes;
      const int k = (i / 9) % 4;
      core::Event e;
      if (k == 0) {  // the reconciler: marks every source of the runtime
        e = base(et::kStaleDetected, core::Source::kPoller, t);
        e.runtime_id = rt[static_cast<size_t>(p)];
        e.pane_id = pane_name(p);
      } else if (k == 1) {  // a hook saying its own opinion is stale, clock skewed
        e = base(et::kStaleDetected, core::Source::kHook, t - 30 * core::kNsPerSec);
        e.runtime_id = rt[static_cast<size_t>(p)];
        e.pane_id = pane_name(p);
      } else if (k == 2) {  // target-wide
        e = base(et::kStaleDetected, core::Source::kPoller, t);
      } else {  // a demotion guarded on some state_version
        e = base(et::kDemotionDue, core::Source::kPoller, t);
        e.runtime_id = rt[static_cast<size_t>(p)];
        e.pane_id = pane_name(p);
        e.source_seq = i % 7;
      }
      e.dedupe_key = "book-" + std::to_string(o.seed) + "-" + std::to_string(i);
      out.push_back(e);
      continue;
    }
    const int p = static_cast<int>(rng() % static_cast<uint32_t>(o.panes));
    const uint32_t kind = rng() % 10;
    const core::State st = states[rng() % 5];
    if (kind == 9 && out.size() > static_cast<size_t>(o.panes)) {
      // A resend: same source identity (dedupe_key), new envelope id.
      core::Event dup = out[static_cast<size_t>(o.panes) + rng() % (out.size() - static_cast<size_t>(o.panes))];
      if (o.resend_new_id) dup.event_id = "ev-" + std::to_string(o.seed) + "-" + std::to_string(n++);
      out.push_back(dup);
      continue;
    }
    core::Event e;
    if (kind <= 4) {
      e = base(et::kStateChanged, core::Source::kWrapper, t);
      e.source_seq = ++seq[static_cast<size_t>(p)];
      e.dedupe_key = rt[static_cast<size_t>(p)] + "-seq-" + std::to_string(*e.source_seq);
      e.signal = signal(st, "claude.screen." + std::string(core::StateName(st)));
    } else if (kind <= 7) {
      e = base(et::kStateChanged, core::Source::kHook, t);
      e.source_event_id = "toolu_" + std::to_string(rng());
      e.dedupe_key = "hook-" + std::to_string(o.seed) + "-" + std::to_string(i);
      e.signal = signal(st, "claude.hook.PreToolUse");
      e.raw_payload = R"({"session_id":"6f1c2a7e-33b1-4c8e-9a57-)" + std::to_string(p) +
                      R"(","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"npm test -- --watch=false","description":"Run the test suite"},"cwd":"/home/dev/src/app"})";
    } else {
      e = base(et::kStateChanged, core::Source::kPoller, t);
      e.dedupe_key = "cap-" + std::to_string(o.seed) + "-" + std::to_string(i);
      core::Signal sig = signal(st, "claude.cap." + std::string(core::StateName(st)));
      sig.confidence = core::Confidence::kMedium;
      e.signal = sig;
    }
    e.runtime_id = rt[static_cast<size_t>(p)];
    e.pane_id = pane_name(p);
    if (o.pane_bound_hooks && e.source == core::Source::kHook && p != 0 && rng() % 2 == 0) {
      // A hook that only knows its pane and process: the engine binds it.
      e.runtime_id.clear();
      e.pid = 1000 + p;
    }
    out.push_back(e);
  }
  return out;
}

}  // namespace agt::state::storetest
