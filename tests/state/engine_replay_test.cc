// Replay (NFR-8): a recorded event stream applied in many shuffled orders
// must converge to what the in-order run gives: the same pane states, the
// same runtimes, cursors, candidates and dedupe memory (the whole
// Snapshot), the same stored events and the same inbox outcomes.
//
// The stream is what the store records for a realistic session: several
// panes on two targets, wrapped and unwrapped agents, runtimes replaced
// mid-stream, hooks (bound by runtime_id and by pane+pid), Codex notify,
// the poller, duplicates, out-of-order sequence numbers, events for ended
// runtimes, pending binds that resolve and one that never does, target
// health flapping, stale_detected, and demotion_due from the reconciler.
// Runtime creation events carry the pane_epoch the engine assigned when they
// were first ingested, as the store records them.
#include <algorithm>
#include <map>
#include <random>
#include <set>

#include <gtest/gtest.h>

#include "libagtcore/ids.h"
#include "state/engine.h"
#include "tests/state/event_builder.h"

namespace agt::state {
namespace {

using namespace testing;  // NOLINT: the event builders

class StreamBuilder {
 public:
  // Every event is ingested 50 ms after its source time unless told otherwise.
  void Add(Event e, double lag = 0.05) {
    if (e.ingested_at == e.event_time) e.ingested_at = e.event_time + static_cast<TimeNs>(lag * 1e9);
    events_.push_back(std::move(e));
  }
  std::vector<Event>& events() { return events_; }

 private:
  std::vector<Event> events_;
};

std::string ObservedId(const std::string& target, const std::string& pane, int64_t epoch, TimeNs started) {
  return core::DeriveRuntimeId(target, "boot-A", pane, epoch, "claude", started);
}

std::vector<Event> RecordedStream() {
  StreamBuilder s;
  // Pane %1: a wrapped Claude, replaced by a second wrapped run at t=41.
  s.Add(WrapperStart("w1", "%1", 100, T(0), 0));
  int64_t seq = 0;
  auto wrap = [&](const std::string& rt, double t, State st, Confidence c = Confidence::kHigh) {
    ++seq;
    s.Add(Ev(et::kStateChanged, Source::kWrapper, rt + "-seq" + std::to_string(seq)).Rt(rt).Seq(seq).At(T(t))
              .Sig(st, c));
  };
  auto hook = [&](const std::string& key, const std::string& rt, double t, State st) {
    s.Add(StateEv(key, Source::kHook, rt, st, T(t)));
  };
  hook("w1-prompt", "w1", 1, State::kRunning);
  wrap("w1", 1.2, State::kRunning);
  hook("w1-pre1", "w1", 3, State::kRunning);
  wrap("w1", 5, State::kWaitingApproval);
  hook("w1-perm", "w1", 5.3, State::kWaitingApproval);
  hook("w1-lag", "w1", 5.6, State::kRunning);  // hooks lag the dialog
  wrap("w1", 9, State::kRunning);
  hook("w1-post", "w1", 9.2, State::kRunning);
  // Sequence 7 reaches the daemon before sequence 6.
  s.Add(Ev(et::kStateChanged, Source::kWrapper, "w1-seq7").Rt("w1").Seq(7).EventTime(T(12)).Ingested(T(12.5))
            .Sig(State::kWaitingInput));
  s.Add(Ev(et::kStateChanged, Source::kWrapper, "w1-seq6").Rt("w1").Seq(6).EventTime(T(11)).Ingested(T(12.6))
            .Sig(State::kRunning));
  seq = 7;
  hook("w1-stop", "w1", 20, State::kCompleted);
  s.Add(Ev(et::kWrapperExited, Source::kWrapper, "w1-exit").Rt("w1").At(T(40)));
  // Late wrapper events for w1: one from before its exit, one after.
  s.Add(Ev(et::kStateChanged, Source::kWrapper, "w1-late1").Rt("w1").Seq(8).EventTime(T(39.5)).Ingested(T(45))
            .Sig(State::kIdle));
  s.Add(Ev(et::kStateChanged, Source::kWrapper, "w1-late2").Rt("w1").Seq(9).EventTime(T(41.5)).Ingested(T(46))
            .Sig(State::kRunning));
  s.Add(WrapperStart("w2", "%1", 101, T(41), 1));
  seq = 0;
  wrap("w2", 42, State::kRunning);
  hook("w2-prompt", "w2", 42.1, State::kRunning);
  wrap("w2", 60, State::kWaitingInput);
  // The reconciler finds w2's sources silent, then the wrapper speaks again.
  s.Add(Ev(et::kStaleDetected, Source::kPoller, "w2-stale").Rt("w2").At(T(90)));
  wrap("w2", 95, State::kRunning);
  // A clock 30 s fast: its own time is ignored beyond the skew budget.
  s.Add(Ev(et::kStateChanged, Source::kHook, "w2-skewed").Rt("w2").EventTime(T(126)).Ingested(T(96))
            .Sig(State::kWaitingApproval));
  wrap("w2", 97, State::kWaitingApproval);

  // Pane %2: an unwrapped Claude seen by a collector; hooks bind by pid.
  const std::string o1 = ObservedId("host", "%2", 0, T(1));
  s.Add(Observed("obs-200", "%2", 200, T(1), T(2), "boot-A", 0));
  s.Add(StateEv("cap-1", Source::kPoller, o1, State::kIdle, T(2.5), Confidence::kMedium));
  s.Add(Ev(et::kStateChanged, Source::kHook, "p2-prompt").Pane("host", "%2").Pid(200).At(T(3)).Sig(State::kRunning));
  s.Add(StateEv("cap-2", Source::kPoller, o1, State::kRunning, T(4)));
  s.Add(Ev(et::kStateChanged, Source::kHook, "p2-perm").Pane("host", "%2").Pid(200).At(T(6))
            .Sig(State::kWaitingApproval));
  s.Add(StateEv("cap-3", Source::kPoller, o1, State::kWaitingApproval, T(6.5)));
  s.Add(Ev(et::kStateChanged, Source::kHook, "p2-stop").Pane("host", "%2").Pid(200).At(T(30)).Sig(State::kCompleted));
  // The process changes (pid 201): a new runtime, epoch 1.
  const std::string o2 = ObservedId("host", "%2", 1, T(49.5));
  s.Add(Observed("obs-201", "%2", 201, T(49.5), T(50), "boot-A", 1));
  s.Add(Ev(et::kStateChanged, Source::kHook, "p2b-prompt").Pane("host", "%2").Pid(201).At(T(51))
            .Sig(State::kRunning));
  s.Add(StateEv("cap-4", Source::kPoller, o2, State::kRunning, T(52)));
  // A late hook of the first process, delivered after the change.
  s.Add(Ev(et::kStateChanged, Source::kHook, "p2-late").Pane("host", "%2").Pid(200).EventTime(T(45))
            .Ingested(T(53)).Sig(State::kIdle));
  s.Add(StateEv("cap-5", Source::kPoller, o2, State::kWaitingInput, T(70)));

  // Pane %3: Codex with notify; its first hook arrives before the collector
  // has seen the process (pending bind, resolved when it appears).
  const std::string o3 = ObservedId("host", "%3", 0, T(3));
  s.Add(Ev(et::kStateChanged, Source::kHook, "p3-prompt").Pane("host", "%3").Pid(300).At(T(3.2))
            .Sig(State::kRunning));
  s.Add(Observed("obs-300", "%3", 300, T(3), T(4), "boot-A", 0));
  s.Add(StateEv("cap-p3-1", Source::kPoller, o3, State::kRunning, T(5)));
  s.Add(Ev(et::kStateChanged, Source::kNotify, "p3-turn1").Pane("host", "%3").Pid(300).At(T(100))
            .Sig(State::kCompleted));
  s.Add(StateEv("cap-p3-2", Source::kPoller, o3, State::kIdle, T(99), Confidence::kMedium));

  // Pane %4 on target vm1, which flaps and ends down.
  const std::string o4 = core::DeriveRuntimeId("vm1", "boot-A", "%4", 0, "claude", T(1));
  s.Add(Observed("obs-vm1", "%4", 400, T(1), T(2), "boot-A", 0, "vm1"));
  s.Add(StateEv("cap-vm1-1", Source::kPoller, o4, State::kRunning, T(10)));
  s.Add(Ev(et::kTargetHealthChanged, Source::kPoller, "vm1-down1").Pane("vm1", "").Health("down").At(T(60)));
  s.Add(Ev(et::kTargetHealthChanged, Source::kPoller, "vm1-ok").Pane("vm1", "").Health("ok").At(T(70)));
  s.Add(Ev(et::kTargetHealthChanged, Source::kPoller, "vm1-down2").Pane("vm1", "").Health("down").At(T(80)));

  // Pane %5: a wrapped Claude in auto mode (docs/precedence.md row 1c): a
  // dialog no hook reports after PreToolUse, denied; the prompt is back and
  // no hook follows. And a hook wait shown with the screen's options (row 5).
  s.Add(WrapperStart("w5", "%5", 500, T(0), 0));
  seq = 0;
  hook("w5-prompt", "w5", 1, State::kRunning);
  wrap("w5", 1.1, State::kRunning);
  hook("w5-pre", "w5", 2, State::kRunning);
  wrap("w5", 2.3, State::kWaitingApproval);
  wrap("w5", 4.5, State::kWaitingApproval, Confidence::kMedium);
  wrap("w5", 6, State::kIdle, Confidence::kMedium);
  // Pane %6: the wrapper reads a question, the hooks call it an approval.
  s.Add(WrapperStart("w6", "%6", 600, T(0), 0));
  {
    Event q = Ev(et::kStateChanged, Source::kWrapper, "w6-q").Rt("w6").Seq(1).At(T(3)).Sig(State::kWaitingInput);
    q.signal->detail.choices = {"pytest", "unittest", "doctest"};
    q.signal->detail.cursor_position = 2;
    s.Add(q);
  }
  hook("w6-perm", "w6", 3.2, State::kWaitingApproval);

  // Pane %9: a hook from a pane no runtime ever appears in.
  s.Add(Ev(et::kStateChanged, Source::kHook, "p9").Pane("host", "%9").At(T(8)).Sig(State::kRunning));

  // Demotions the reconciler sent after an in-order run of the above.
  std::vector<Event>& ev = s.events();
  Engine probe;
  for (const Event& e : ev) probe.Apply(e, e.ingested_at);
  int n = 0;
  for (const Engine::Demotion& d : probe.DueDemotions(T(300))) {
    s.Add(Ev(et::kDemotionDue, Source::kPoller, "dem-" + std::to_string(n++)).Rt(d.runtime_id).Seq(d.state_version)
              .At(T(300)));
  }
  // Exact copies, as a spool re-sends them.
  std::mt19937 rng(7);
  std::vector<Event> dups;
  for (int i = 0; i < 12; ++i) dups.push_back(ev[rng() % ev.size()]);
  ev.insert(ev.end(), dups.begin(), dups.end());
  std::stable_sort(ev.begin(), ev.end(),
                   [](const Event& a, const Event& b) { return a.ingested_at < b.ingested_at; });
  return ev;
}

struct Outcome {
  EngineSnapshot snapshot;
  std::vector<PaneState> panes;
  std::map<std::string, Event> stored;  // by event_id
  std::map<std::string, std::pair<InboxStatus, std::string>> inbox;
  bool operator==(const Outcome&) const = default;
};

Outcome RunStream(const std::vector<Event>& events) {
  Engine engine;
  Outcome o;
  // Events that name their runtime pass through the inbox only when they
  // arrive before it; the outcome that must converge is that of the events
  // that need binding.
  std::set<std::string> unbound;
  for (const Event& e : events) {
    if (e.runtime_id.empty()) unbound.insert(e.event_id);
  }
  auto collect = [&](const Effects& fx) {
    if (fx.stored_event) o.stored[fx.stored_event->event_id] = *fx.stored_event;
    for (const Event& e : fx.bound_events) o.stored[e.event_id] = e;
    for (const InboxEntry& i : fx.inbox) {
      if (unbound.contains(i.event.event_id)) o.inbox[i.event.event_id] = {i.status, i.reason_code};
    }
  };
  for (const Event& e : events) collect(engine.Apply(e, e.ingested_at));
  collect(engine.Tick(T(1000)));
  o.snapshot = engine.Snapshot();
  o.panes = engine.AllPanes();
  return o;
}

TEST(Replay, InOrderRunShowsTheExpectedStates) {
  Outcome o = RunStream(RecordedStream());
  std::map<std::string, PaneState> by_pane;
  for (const PaneState& p : o.panes) by_pane[p.target_id + "/" + p.pane_id] = p;
  ASSERT_EQ(by_pane.size(), 6u);  // %1 %2 %3 %5 %6 vm1/%4; %9 never had a runtime, so no pane
  // %1: the screen's approval (seq 4) wins over the fast-clocked hook.
  EXPECT_EQ(by_pane["host/%1"].runtime_id, "w2");
  EXPECT_EQ(by_pane["host/%1"].signal.state, State::kWaitingApproval);
  EXPECT_EQ(by_pane["host/%1"].source, Source::kWrapper);
  // %2: the poller's waiting_input is the newest screen opinion.
  EXPECT_EQ(by_pane["host/%2"].signal.state, State::kWaitingInput);
  // %3: notify completed, then demoted by the reconciler.
  EXPECT_EQ(by_pane["host/%3"].signal.state, State::kIdle);
  EXPECT_EQ(by_pane["host/%3"].signal.rule_id, "demotion");
  EXPECT_EQ(by_pane["vm1/%4"].signal.reason_code, "target_unreachable");
  // %5: the screen saw the dialog and the turn end after the hooks' running.
  EXPECT_EQ(by_pane["host/%5"].signal.state, State::kIdle);
  EXPECT_EQ(by_pane["host/%5"].source, Source::kWrapper);
  // %6: the hooks' state, the screen's options.
  EXPECT_EQ(by_pane["host/%6"].signal.state, State::kWaitingApproval);
  EXPECT_EQ(by_pane["host/%6"].source, Source::kHook);
  EXPECT_EQ(by_pane["host/%6"].signal.detail.choices, (std::vector<std::string>{"pytest", "unittest", "doctest"}));
  EXPECT_EQ(o.inbox.at("id-p9").second, "bind_no_candidate");
  EXPECT_EQ(o.inbox.at("id-p3-prompt").first, InboxStatus::kBound);
  EXPECT_EQ(o.stored.at("id-p2-late").runtime_id, ObservedId("host", "%2", 0, T(1)));
  EXPECT_TRUE(o.snapshot.pending.empty());
  for (const Runtime& r : o.snapshot.runtimes) {
    if (r.runtime_id == "w1") {
      EXPECT_EQ(r.ended_at, T(40));
    }
  }
}

TEST(Replay, ShuffledOrdersConvergeToTheInOrderResult) {
  const std::vector<Event> stream = RecordedStream();
  const Outcome want = RunStream(stream);
  std::random_device rd;
  const uint32_t base_seed = rd();
  for (int i = 0; i < 200; ++i) {
    const uint32_t seed = base_seed + static_cast<uint32_t>(i);
    SCOPED_TRACE("shuffle seed " + std::to_string(seed));
    std::vector<Event> shuffled = stream;
    std::mt19937 rng(seed);
    std::shuffle(shuffled.begin(), shuffled.end(), rng);
    Outcome got = RunStream(shuffled);
    ASSERT_EQ(got.panes, want.panes);
    ASSERT_EQ(got.snapshot.runtimes, want.snapshot.runtimes);
    ASSERT_EQ(got.snapshot.cursors, want.snapshot.cursors);
    ASSERT_EQ(got.snapshot.candidates, want.snapshot.candidates);
    ASSERT_EQ(got.snapshot, want.snapshot);
    ASSERT_EQ(got.stored, want.stored);
    ASSERT_EQ(got.inbox, want.inbox);
  }
}

TEST(Replay, StoredEventsOfALiveRunReplayToTheSameState) {
  // Live ingestion leaves pane_epoch to the engine (-1); the stored rows
  // carry the epoch it chose, and replaying them reproduces the run.
  std::vector<Event> live = RecordedStream();
  for (Event& e : live) {
    if (e.runtime) e.runtime->pane_epoch = -1;
  }
  Outcome first = RunStream(live);
  std::vector<Event> rows;
  for (const auto& [id, e] : first.stored) rows.push_back(e);
  std::mt19937 rng(11);
  std::shuffle(rows.begin(), rows.end(), rng);
  Engine replayed;
  for (const Event& e : rows) replayed.Apply(e, e.ingested_at);
  EXPECT_EQ(replayed.AllPanes(), first.panes);
  EXPECT_EQ(replayed.Snapshot().runtimes, first.snapshot.runtimes);
}

}  // namespace
}  // namespace agt::state
