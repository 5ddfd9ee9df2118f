// Tests for runtime lifecycle, pane_epoch, binding through the inbox, and
// Snapshot/Restore.
#include <gtest/gtest.h>

#include "libagtcore/ids.h"
#include "state/engine.h"
#include "tests/state/event_builder.h"

namespace agt::state {
namespace {

using namespace testing;  // NOLINT: the event builders

class LifecycleTest : public ::testing::Test {
 protected:
  Effects Apply(const Event& e) { return engine_.Apply(e, e.ingested_at); }
  int ActiveCount(const std::string& pane) {
    int n = 0;
    for (const Runtime& r : engine_.Snapshot().runtimes) n += r.pane_id == pane && r.ended_at == 0;
    return n;
  }
  Engine engine_;
};

TEST_F(LifecycleTest, WrapperStartCreatesTheRuntimeAndPane) {
  Effects fx = Apply(WrapperStart("w1", "%1", 100, T(0)));
  EXPECT_EQ(fx.disposition, Disposition::kApplied);
  ASSERT_EQ(fx.runtimes.size(), 1u);
  EXPECT_EQ(fx.runtimes[0].pane_epoch, 0);
  EXPECT_EQ(fx.runtimes[0].owner, Source::kWrapper);
  ASSERT_TRUE(fx.stored_event);
  EXPECT_EQ(fx.stored_event->runtime->pane_epoch, 0);  // recorded as assigned
  EXPECT_EQ(engine_.ActiveRuntime("host", "%1")->runtime_id, "w1");
  EXPECT_EQ(engine_.FindPane("host", "%1")->signal.reason_code, "no_signal");
}

TEST_F(LifecycleTest, TheRuntimeKeepsTheAgentVersionItWasAnnouncedWith) {
  Event w = WrapperStart("w1", "%1", 100, T(0));
  w.runtime->agent_version = "2.1.330";
  Effects fx = Apply(w);
  ASSERT_EQ(fx.runtimes.size(), 1u);
  EXPECT_EQ(fx.runtimes[0].agent_version, "2.1.330");
  EXPECT_EQ(engine_.FindRuntime("w1")->agent_version, "2.1.330");
  Event o = Observed("o1", "%2", 200, T(0), T(1));
  o.runtime->agent_version = "0.61.0";
  Apply(o);
  const Runtime* observed = engine_.ActiveRuntime("host", "%2");
  ASSERT_NE(observed, nullptr);
  EXPECT_EQ(observed->agent_version, "0.61.0");
  Apply(Observed("o2", "%3", 300, T(0), T(1)));
  EXPECT_EQ(engine_.ActiveRuntime("host", "%3")->agent_version, "") << "not known";
}

TEST_F(LifecycleTest, ANewRuntimeEndsThePreviousAndBumpsTheEpoch) {
  Apply(WrapperStart("w1", "%1", 100, T(0)));
  Effects fx = Apply(WrapperStart("w2", "%1", 101, T(10)));
  ASSERT_EQ(fx.runtimes.size(), 2u);
  EXPECT_EQ(engine_.FindRuntime("w1")->ended_at, T(10));
  EXPECT_EQ(engine_.FindRuntime("w2")->pane_epoch, 1);
  EXPECT_EQ(engine_.ActiveRuntime("host", "%1")->runtime_id, "w2");
  EXPECT_EQ(ActiveCount("%1"), 1);
}

TEST_F(LifecycleTest, ObservedRuntimeIdIsDerived) {
  Effects fx = Apply(Observed("o1", "%2", 200, T(-5), T(0)));
  ASSERT_EQ(fx.disposition, Disposition::kApplied);
  std::string id = core::DeriveRuntimeId("host", "boot-A", "%2", 0, "claude", T(-5));
  EXPECT_EQ(fx.runtimes.at(0).runtime_id, id);
  EXPECT_EQ(fx.stored_event->runtime_id, id);
  EXPECT_EQ(fx.runtimes.at(0).owner, Source::kPoller);
}

TEST_F(LifecycleTest, ObservingTheSameProcessAgainIsANoOp) {
  Apply(Observed("o1", "%2", 200, T(-5), T(0)));
  Effects fx = Apply(Observed("o2", "%2", 200, T(-5), T(2)));
  EXPECT_EQ(fx.disposition, Disposition::kIgnored);
  EXPECT_FALSE(fx.stored_event);
  EXPECT_TRUE(fx.runtimes.empty());
  EXPECT_TRUE(fx.states.empty());
}

TEST_F(LifecycleTest, PidChangeIsANewRuntimeWithTheNextEpoch) {
  Apply(Observed("o1", "%2", 200, T(-5), T(0)));
  Effects fx = Apply(Observed("o2", "%2", 201, T(8), T(9)));
  EXPECT_EQ(fx.disposition, Disposition::kApplied);
  const Runtime* now = engine_.ActiveRuntime("host", "%2");
  ASSERT_NE(now, nullptr);
  EXPECT_EQ(now->pid, 201);
  EXPECT_EQ(now->pane_epoch, 1);
  EXPECT_EQ(ActiveCount("%2"), 1);
}

TEST_F(LifecycleTest, RecreatedPaneGetsANewEpoch) {
  Apply(Observed("o1", "%2", 200, T(-5), T(0)));
  std::string first = engine_.ActiveRuntime("host", "%2")->runtime_id;
  Apply(Ev(et::kRuntimeEnded, Source::kPoller, "gone").Rt(first).At(T(3)));
  EXPECT_EQ(engine_.FindPane("host", "%2")->signal.reason_code, "no_agent");
  // Same pane id, same pid by chance, but the pane was re-created.
  Effects fx = Apply(Observed("o3", "%2", 200, T(5), T(6)));
  EXPECT_EQ(fx.disposition, Disposition::kApplied);
  EXPECT_EQ(engine_.ActiveRuntime("host", "%2")->pane_epoch, 1);
  EXPECT_NE(engine_.ActiveRuntime("host", "%2")->runtime_id, first);
}

TEST_F(LifecycleTest, NewTmuxServerStartsTheEpochAgain) {
  Apply(Observed("o1", "%2", 200, T(-5), T(0)));
  Apply(Observed("o2", "%2", 201, T(1), T(2)));
  Effects fx = Apply(Observed("o3", "%2", 201, T(30), T(31), "boot-B"));
  EXPECT_EQ(fx.disposition, Disposition::kApplied);
  const Runtime* rt = engine_.ActiveRuntime("host", "%2");
  EXPECT_EQ(rt->boot_id, "boot-B");
  EXPECT_EQ(rt->pane_epoch, 0);
  EXPECT_EQ(ActiveCount("%2"), 1);
}

TEST_F(LifecycleTest, CollectorDoesNotReplaceAWrappedRuntime) {
  Apply(WrapperStart("w1", "%1", 100, T(0)));
  EXPECT_EQ(Apply(Observed("o1", "%1", 99, T(0), T(1))).disposition, Disposition::kIgnored);
  EXPECT_EQ(engine_.ActiveRuntime("host", "%1")->runtime_id, "w1");
}

// Issue 15 item 7: a new tmux server reuses pane ids. An agent the
// collector sees in the new server's %1 is not the old server's wrapped %1.
TEST_F(LifecycleTest, AWrappedRuntimeOfAnEarlierServerDoesNotHoldThePane) {
  Apply(WrapperStart("w1", "%1", 100, T(0)));
  Effects fx = Apply(Observed("o1", "%1", 99, T(5), T(6), "boot-B"));
  EXPECT_EQ(fx.disposition, Disposition::kApplied);
  const Runtime* rt = engine_.ActiveRuntime("host", "%1");
  ASSERT_NE(rt, nullptr);
  EXPECT_NE(rt->runtime_id, "w1");
  EXPECT_EQ(rt->boot_id, "boot-B");
  EXPECT_EQ(ActiveCount("%1"), 1);
}

TEST_F(LifecycleTest, ExitEndsTheRuntime) {
  Apply(WrapperStart("w1", "%1", 100, T(0)));
  Effects fx = Apply(Ev(et::kWrapperExited, Source::kWrapper, "x").Rt("w1").At(T(4)));
  EXPECT_EQ(fx.disposition, Disposition::kApplied);
  EXPECT_EQ(engine_.FindRuntime("w1")->ended_at, T(4));
  EXPECT_EQ(engine_.ActiveRuntime("host", "%1"), nullptr);
  EXPECT_EQ(ActiveCount("%1"), 0);
}

TEST_F(LifecycleTest, AnOlderStartArrivingLateIsBornEnded) {
  Apply(WrapperStart("w2", "%1", 101, T(10), 1));
  Effects fx = Apply(WrapperStart("w1", "%1", 100, T(0), 0).Ingested(T(11)));
  EXPECT_EQ(fx.disposition, Disposition::kStored);
  EXPECT_EQ(engine_.FindRuntime("w1")->ended_at, T(10));
  EXPECT_EQ(engine_.ActiveRuntime("host", "%1")->runtime_id, "w2");
  // Its exit, arriving later still, moves the end earlier (earliest end wins).
  Apply(Ev(et::kWrapperExited, Source::kWrapper, "x1").Rt("w1").At(T(7)).Ingested(T(12)));
  EXPECT_EQ(engine_.FindRuntime("w1")->ended_at, T(7));
  EXPECT_EQ(ActiveCount("%1"), 1);
}

TEST_F(LifecycleTest, UnboundHookBindsToTheOnlyMatchingRuntime) {
  Apply(Observed("o1", "%2", 200, T(-5), T(0)));
  Effects fx = Apply(Ev(et::kStateChanged, Source::kHook, "h1").Pane("host", "%2").Pid(200).At(T(1))
                         .Sig(State::kWaitingApproval));
  EXPECT_EQ(fx.disposition, Disposition::kApplied);
  ASSERT_EQ(fx.inbox.size(), 1u);
  EXPECT_EQ(fx.inbox[0].status, InboxStatus::kBound);
  ASSERT_TRUE(fx.stored_event);
  EXPECT_EQ(fx.stored_event->runtime_id, engine_.ActiveRuntime("host", "%2")->runtime_id);
  EXPECT_EQ(engine_.FindPane("host", "%2")->signal.state, State::kWaitingApproval);
}

TEST_F(LifecycleTest, BindingByPidPicksTheRightRuntimeOfAPane) {
  Apply(Observed("o1", "%2", 200, T(-5), T(0)));
  std::string first = engine_.ActiveRuntime("host", "%2")->runtime_id;
  Apply(Observed("o2", "%2", 201, T(20), T(21)));
  // A late hook from the first process: bound to it, stored, not shown.
  Effects fx = Apply(Ev(et::kStateChanged, Source::kHook, "late").Pane("host", "%2").Pid(200).EventTime(T(15))
                         .Ingested(T(22)).Sig(State::kCompleted));
  EXPECT_EQ(fx.disposition, Disposition::kStored);
  EXPECT_EQ(fx.error_code, "E_RUNTIME_STALE");
  EXPECT_EQ(fx.stored_event->runtime_id, first);
  EXPECT_EQ(engine_.FindPane("host", "%2")->signal.reason_code, "no_signal");
}

TEST_F(LifecycleTest, HookNearARuntimeChangeWithoutPidIsAmbiguous) {
  Apply(Observed("o1", "%2", 200, T(-5), T(0)));
  Apply(Observed("o2", "%2", 201, T(20), T(21)));
  Effects fx = Apply(Ev(et::kStateChanged, Source::kHook, "amb").Pane("host", "%2").EventTime(T(17))
                         .Ingested(T(22)).Sig(State::kCompleted));
  EXPECT_EQ(fx.disposition, Disposition::kDropped);
  EXPECT_EQ(fx.error_code, "E_UNBOUND");
  ASSERT_EQ(fx.inbox.size(), 1u);
  EXPECT_EQ(fx.inbox[0].status, InboxStatus::kDroppedUnbound);
  EXPECT_EQ(fx.inbox[0].reason_code, "bind_ambiguous");
  EXPECT_FALSE(fx.stored_event);
}

TEST_F(LifecycleTest, PendingHookBindsWhenItsRuntimeAppears) {
  // The hook fires 1 s after the process started; the collector notices 2 s later.
  Effects fx = Apply(Ev(et::kStateChanged, Source::kHook, "h1").Pane("host", "%3").Pid(300).At(T(1))
                         .Sig(State::kRunning));
  EXPECT_EQ(fx.disposition, Disposition::kPending);
  fx = Apply(Observed("o1", "%3", 300, T(0), T(3)));
  ASSERT_EQ(fx.bound_events.size(), 1u);
  EXPECT_EQ(fx.bound_events[0].event_id, "id-h1");
  EXPECT_EQ(engine_.FindPane("host", "%3")->signal.state, State::kRunning);
  EXPECT_TRUE(engine_.Tick(T(100)).inbox.empty());
}

TEST_F(LifecycleTest, PendingWithNoRuntimeEverExpiresAsNoCandidate) {
  Apply(Ev(et::kStateChanged, Source::kHook, "h1").Pane("host", "%9").At(T(1)).Sig(State::kRunning));
  Effects fx = engine_.Tick(T(11));
  ASSERT_EQ(fx.inbox.size(), 1u);
  EXPECT_EQ(fx.inbox[0].reason_code, "bind_no_candidate");
  EXPECT_EQ(fx.inbox[0].status, InboxStatus::kDroppedUnbound);
}

TEST_F(LifecycleTest, PendingThatNeverMatchesExpiresAsTtlExpired) {
  Apply(Observed("o1", "%2", 200, T(-5), T(0)));
  EXPECT_EQ(Apply(Ev(et::kStateChanged, Source::kHook, "h1").Pane("host", "%2").Pid(999).At(T(1))
                      .Sig(State::kRunning))
                .disposition,
            Disposition::kPending);
  Effects fx = engine_.Tick(T(11));
  ASSERT_EQ(fx.inbox.size(), 1u);
  EXPECT_EQ(fx.inbox[0].reason_code, "bind_ttl_expired");
}

TEST_F(LifecycleTest, StartHintOutsideTheWindowDoesNotBind) {
  Apply(Observed("o1", "%2", 200, T(0), T(0)));
  Effects fx = Apply(Ev(et::kStateChanged, Source::kHook, "h").Pane("host", "%2").StartHint(T(6)).At(T(7))
                         .Sig(State::kRunning));
  EXPECT_EQ(fx.disposition, Disposition::kPending);
  fx = Apply(Ev(et::kStateChanged, Source::kHook, "h2").Pane("host", "%2").StartHint(T(4)).At(T(7))
                 .Sig(State::kRunning));
  EXPECT_EQ(fx.disposition, Disposition::kApplied);
}

TEST_F(LifecycleTest, SnapshotRestoreRebuildsTheSameEngine) {
  Apply(WrapperStart("w1", "%1", 100, T(0)));
  Apply(StateEv("a", Source::kWrapper, "w1", State::kRunning, T(1)));
  Apply(StateEv("b", Source::kHook, "w1", State::kCompleted, T(2)));
  Apply(Observed("o1", "%2", 200, T(-5), T(0)));
  Apply(Ev(et::kStateChanged, Source::kHook, "p").Pane("host", "%7").At(T(3)).Sig(State::kRunning));
  Apply(Ev(et::kStaleDetected, Source::kHook, "st").Rt("w1").At(T(2.5)));
  Apply(Ev(et::kTargetHealthChanged, Source::kPoller, "hl").Pane("host", "").Health("degraded").At(T(4)));
  EngineSnapshot snap = engine_.Snapshot();
  EXPECT_EQ(snap.pending.size(), 1u);
  EXPECT_EQ(snap.target_health.size(), 1u);

  Engine copy;
  copy.Restore(snap);
  EXPECT_EQ(copy.Snapshot(), snap);
  // Both keep behaving the same: dedupe survives, new events resolve alike.
  Event dup = StateEv("a", Source::kWrapper, "w1", State::kIdle, T(5));
  EXPECT_EQ(copy.Apply(dup, T(5)).disposition, Disposition::kDuplicate);
  Event next = StateEv("c", Source::kWrapper, "w1", State::kWaitingInput, T(6));
  Effects fa = engine_.Apply(next, T(6));
  Effects fb = copy.Apply(next, T(6));
  EXPECT_EQ(fa.states, fb.states);
  EXPECT_EQ(copy.Snapshot(), engine_.Snapshot());
}

}  // namespace
}  // namespace agt::state
