// Tests for the engine's event path: validation, dedupe, ordering, the
// runtime guard, freshness, target health, demotion and the unknown rule.
#include "state/engine.h"

#include <gtest/gtest.h>

#include "libagtcore/base/result.h"
#include "tests/state/event_builder.h"

namespace agt::state {
namespace {

using namespace testing;  // NOLINT: the event builders

class EngineTest : public ::testing::Test {
 protected:
  Effects Apply(const Event& e) { return engine_.Apply(e, e.ingested_at); }
  const PaneState& Pane(const std::string& pane = "%1") {
    const PaneState* p = engine_.FindPane("host", pane);
    AGT_CHECK(p != nullptr);
    return *p;
  }
  void StartW1() { ASSERT_EQ(Apply(WrapperStart("w1", "%1", 100, T(0))).disposition, Disposition::kApplied); }

  EngineOptions opts_;
  Engine engine_{opts_};
};

TEST_F(EngineTest, RejectsInvalidEventsNamingTheField) {
  Event no_key = StateEv("x", Source::kHook, "w1", State::kRunning, T(1));
  no_key.dedupe_key.clear();
  Effects fx = Apply(no_key);
  EXPECT_EQ(fx.disposition, Disposition::kRejected);
  EXPECT_EQ(fx.error_code, "E_PAYLOAD_INVALID");
  EXPECT_NE(fx.error_message.find("dedupe_key"), std::string::npos);

  Event no_ingest = StateEv("y", Source::kHook, "w1", State::kRunning, T(1));
  no_ingest.ingested_at = 0;
  EXPECT_NE(engine_.Apply(no_ingest, T(1)).error_message.find("ingested_at"), std::string::npos);

  Event bad_unknown = StateEv("z", Source::kPoller, "w1", State::kUnknown, T(1));
  fx = Apply(bad_unknown);
  EXPECT_EQ(fx.disposition, Disposition::kRejected);
  EXPECT_NE(fx.error_message.find("signal.reason_code"), std::string::npos);

  fx = Apply(Ev(et::kTargetHealthChanged, Source::kPoller, "h").Pane("host", "").Health("sideways").At(T(1)));
  EXPECT_NE(fx.error_message.find("health"), std::string::npos);

  fx = Apply(Ev(et::kDemotionDue, Source::kPoller, "d").Rt("w1").At(T(1)));
  EXPECT_NE(fx.error_message.find("source_seq"), std::string::npos);

  fx = Apply(Ev(et::kStateChanged, Source::kHook, "nobind").Sig(State::kRunning).At(T(1)));
  EXPECT_NE(fx.error_message.find("runtime_id"), std::string::npos);
  EXPECT_TRUE(engine_.AllPanes().empty());
}

TEST_F(EngineTest, DuplicateChangesNothing) {
  StartW1();
  Event e = StateEv("s1", Source::kWrapper, "w1", State::kRunning, T(1));
  EXPECT_EQ(Apply(e).disposition, Disposition::kApplied);
  PaneState before = Pane();
  Event again = StateEv("s1", Source::kWrapper, "w1", State::kWaitingInput, T(2));
  Effects fx = Apply(again);
  EXPECT_EQ(fx.disposition, Disposition::kDuplicate);
  EXPECT_FALSE(fx.stored_event);
  EXPECT_TRUE(fx.states.empty());
  EXPECT_TRUE(fx.cursors.empty());
  EXPECT_EQ(Pane(), before);
  // The same key from another source is not a duplicate.
  EXPECT_EQ(Apply(StateEv("s1", Source::kHook, "w1", State::kRunning, T(3))).disposition,
            Disposition::kApplied);
}

TEST_F(EngineTest, OlderBySequenceIsStoredButNotApplied) {
  StartW1();
  EXPECT_EQ(Apply(Ev(et::kStateChanged, Source::kWrapper, "a").Rt("w1").Seq(5).At(T(1)).Sig(State::kWaitingInput))
                .disposition,
            Disposition::kApplied);
  // Later by time, earlier by sequence: the sequence decides.
  Effects fx = Apply(Ev(et::kStateChanged, Source::kWrapper, "b").Rt("w1").Seq(3).At(T(2)).Sig(State::kRunning));
  EXPECT_EQ(fx.disposition, Disposition::kStored);
  EXPECT_EQ(fx.error_code, "E_OUT_OF_ORDER");
  ASSERT_TRUE(fx.stored_event);
  EXPECT_TRUE(fx.cursors.empty());
  EXPECT_EQ(Pane().signal.state, State::kWaitingInput);
  EXPECT_EQ(Pane().last_source_seq, 5);
}

TEST_F(EngineTest, OlderByTimeIsStoredButNotApplied) {
  StartW1();
  Apply(StateEv("a", Source::kHook, "w1", State::kCompleted, T(10)));
  Effects fx = Apply(StateEv("b", Source::kHook, "w1", State::kRunning, T(5)).Ingested(T(11)));
  EXPECT_EQ(fx.disposition, Disposition::kStored);
  EXPECT_EQ(fx.error_code, "E_OUT_OF_ORDER");
  EXPECT_EQ(Pane().signal.state, State::kCompleted);
  EXPECT_EQ(engine_.Candidates("w1").at(0).event_id, "id-a");
}

TEST_F(EngineTest, ClockSkewBeyondTheBudgetFallsBackToIngestedAt) {
  StartW1();
  // Claims a time 60 s in the future; within budget it would win forever.
  Apply(StateEv("fast", Source::kHook, "w1", State::kWaitingApproval, T(60)).Ingested(T(1)));
  Effects fx = Apply(StateEv("honest", Source::kHook, "w1", State::kRunning, T(2)));
  EXPECT_EQ(fx.disposition, Disposition::kApplied);
  EXPECT_EQ(Pane().signal.state, State::kRunning);
  // Within the budget the source's own time counts: 9 s ahead still wins over 8 s.
  Apply(StateEv("ahead", Source::kHook, "w1", State::kWaitingInput, T(12)).Ingested(T(3)));
  fx = Apply(StateEv("behind", Source::kHook, "w1", State::kCompleted, T(11)).Ingested(T(4)));
  EXPECT_EQ(fx.error_code, "E_OUT_OF_ORDER");
  EXPECT_EQ(Pane().signal.state, State::kWaitingInput);
}

TEST_F(EngineTest, EventsForAnEndedRuntimeAreStoredWithRuntimeStale) {
  StartW1();
  Apply(StateEv("a", Source::kWrapper, "w1", State::kRunning, T(1)));
  Apply(Ev(et::kWrapperExited, Source::kWrapper, "exit").Rt("w1").At(T(2)));
  EXPECT_EQ(Pane().signal.reason_code, "no_agent");
  Effects fx = Apply(StateEv("late", Source::kHook, "w1", State::kWaitingApproval, T(3)));
  EXPECT_EQ(fx.disposition, Disposition::kStored);
  EXPECT_EQ(fx.error_code, "E_RUNTIME_STALE");
  ASSERT_TRUE(fx.stored_event);
  EXPECT_EQ(Pane().signal.state, State::kUnknown);
  EXPECT_EQ(Pane().signal.reason_code, "no_agent");
  EXPECT_TRUE(Pane().runtime_id.empty());
}

TEST_F(EngineTest, UnknownRuntimeWaitsInTheInboxForItsStart) {
  Effects fx = Apply(StateEv("early", Source::kWrapper, "w1", State::kRunning, T(1)));
  EXPECT_EQ(fx.disposition, Disposition::kPending);
  ASSERT_EQ(fx.inbox.size(), 1u);
  EXPECT_EQ(fx.inbox[0].status, InboxStatus::kPendingBind);
  EXPECT_FALSE(fx.stored_event);
  // A spooled duplicate of the waiting event is a duplicate.
  EXPECT_EQ(Apply(StateEv("early", Source::kWrapper, "w1", State::kRunning, T(1))).disposition,
            Disposition::kDuplicate);

  fx = Apply(WrapperStart("w1", "%1", 100, T(0)).Ingested(T(2)));
  EXPECT_EQ(fx.disposition, Disposition::kApplied);
  ASSERT_EQ(fx.bound_events.size(), 1u);
  EXPECT_EQ(fx.bound_events[0].runtime_id, "w1");
  ASSERT_EQ(fx.inbox.size(), 1u);
  EXPECT_EQ(fx.inbox[0].status, InboxStatus::kBound);
  EXPECT_EQ(Pane().signal.state, State::kRunning);
}

TEST_F(EngineTest, UnknownRuntimeThatNeverStartsExpires) {
  Apply(StateEv("orphan", Source::kWrapper, "ghost", State::kRunning, T(1)));
  EXPECT_TRUE(engine_.Tick(T(10)).inbox.empty());  // 9 s < pending_bind_ttl
  Effects fx = engine_.Tick(T(11));
  ASSERT_EQ(fx.inbox.size(), 1u);
  EXPECT_EQ(fx.inbox[0].status, InboxStatus::kDroppedUnbound);
  EXPECT_EQ(fx.inbox[0].reason_code, "bind_ttl_expired");
  EXPECT_TRUE(engine_.Snapshot().pending.empty());
}

TEST_F(EngineTest, UnknownAlwaysCarriesAReason) {
  StartW1();
  EXPECT_EQ(Pane().signal.state, State::kUnknown);
  EXPECT_EQ(Pane().signal.reason_code, "no_signal");
  EXPECT_FALSE(Pane().has_source);
  Apply(StateEv("u", Source::kPoller, "w1", State::kUnknown, T(1)).Sig(State::kUnknown, Confidence::kLow, "r",
                                                                      "unsupported_signal"));
  EXPECT_EQ(Pane().signal.reason_code, "unsupported_signal");
  EXPECT_TRUE(Pane().has_source);
  for (const PaneState& p : engine_.AllPanes()) {
    if (p.signal.state == State::kUnknown) {
      EXPECT_FALSE(p.signal.reason_code.empty());
    }
  }
}

TEST_F(EngineTest, PaneStateKeepsTheDecisiveEvidence) {
  StartW1();
  Event e = StateEv("a", Source::kWrapper, "w1", State::kWaitingApproval, T(1));
  e.signal->rule_id = "claude.permission_dialog";
  e.signal->evidence = "Do you want to proceed?";
  e.signal->detail.approval_type = "shell";
  e.signal->detail.choices = {"Yes", "No"};
  Apply(e);
  const PaneState& p = Pane();
  EXPECT_EQ(p.source, Source::kWrapper);
  EXPECT_TRUE(p.has_source);
  EXPECT_EQ(p.signal.rule_id, "claude.permission_dialog");
  EXPECT_EQ(p.signal.confidence, Confidence::kHigh);
  EXPECT_EQ(p.signal.evidence, "Do you want to proceed?");
  EXPECT_EQ(p.signal.detail.choices.size(), 2u);
  EXPECT_EQ(p.updated_at, T(1));
  EXPECT_EQ(p.runtime_id, "w1");
}

TEST_F(EngineTest, TargetDownShortCircuitsToUnknownAndOkRestores) {
  StartW1();
  Apply(StateEv("a", Source::kWrapper, "w1", State::kRunning, T(1)));
  Effects fx = Apply(Ev(et::kTargetHealthChanged, Source::kPoller, "down").Pane("host", "").Health("down").At(T(2)));
  EXPECT_EQ(fx.disposition, Disposition::kApplied);
  ASSERT_EQ(fx.target_health.size(), 1u);
  EXPECT_EQ(fx.target_health[0].second, TargetHealth::kDown);
  ASSERT_EQ(fx.states.size(), 1u);
  EXPECT_EQ(Pane().signal.state, State::kUnknown);
  EXPECT_EQ(Pane().signal.reason_code, "target_unreachable");
  EXPECT_EQ(Pane().signal.confidence, Confidence::kLow);
  // Signals keep arriving while down: remembered, not shown.
  Apply(StateEv("b", Source::kWrapper, "w1", State::kWaitingInput, T(3)));
  EXPECT_EQ(Pane().signal.reason_code, "target_unreachable");
  Apply(Ev(et::kTargetHealthChanged, Source::kPoller, "up").Pane("host", "").Health("ok").At(T(4)));
  EXPECT_EQ(Pane().signal.state, State::kWaitingInput);
  // An older "down" arriving late does not undo the newer "ok".
  fx = Apply(Ev(et::kTargetHealthChanged, Source::kPoller, "down-old").Pane("host", "").Health("down").At(T(3.5))
                 .Ingested(T(5)));
  EXPECT_EQ(fx.disposition, Disposition::kStored);
  EXPECT_EQ(Pane().signal.state, State::kWaitingInput);
}

TEST_F(EngineTest, StaleDetectedFromThePollerMarksEverySource) {
  StartW1();
  Apply(StateEv("a", Source::kWrapper, "w1", State::kRunning, T(1)));
  Apply(StateEv("b", Source::kHook, "w1", State::kRunning, T(2)));
  Effects fx = Apply(Ev(et::kStaleDetected, Source::kPoller, "stale").Rt("w1").At(T(3)));
  EXPECT_EQ(fx.disposition, Disposition::kApplied);
  EXPECT_EQ(Pane().signal.reason_code, "stale_signal");
  EXPECT_EQ(fx.candidates.size(), 2u);  // the store sees both flags change
  for (const auto& [c, id] : fx.candidates) EXPECT_TRUE(c.stale);
  for (const Candidate& c : engine_.Candidates("w1")) EXPECT_TRUE(c.stale);
  // A newer signal is fresh again.
  Apply(StateEv("c", Source::kHook, "w1", State::kCompleted, T(4)));
  EXPECT_EQ(Pane().signal.state, State::kCompleted);
  EXPECT_EQ(Pane().source, Source::kHook);
}

TEST_F(EngineTest, StaleDetectedFromASourceMarksOnlyThatSource) {
  StartW1();
  Apply(StateEv("a", Source::kWrapper, "w1", State::kIdle, T(1)));
  Apply(StateEv("b", Source::kHook, "w1", State::kWaitingApproval, T(2)));
  EXPECT_EQ(Pane().signal.state, State::kWaitingApproval);
  Apply(Ev(et::kStaleDetected, Source::kHook, "stale").Rt("w1").At(T(3)));
  EXPECT_EQ(Pane().signal.state, State::kIdle);
  EXPECT_EQ(Pane().source, Source::kWrapper);
}

TEST_F(EngineTest, TargetWideStaleDetected) {
  StartW1();
  Apply(StateEv("a", Source::kPoller, "w1", State::kRunning, T(1)));
  Effects fx = Apply(Ev(et::kStaleDetected, Source::kPoller, "stale").Pane("host", "").At(T(2)));
  EXPECT_EQ(fx.disposition, Disposition::kApplied);
  EXPECT_EQ(Pane().signal.reason_code, "stale_signal");
}

TEST(EngineTtl, CandidatesOlderThanTheirSourceTtlAreStale) {
  EngineOptions o;
  o.signal_ttl[static_cast<int>(Source::kPoller)] = 30 * core::kNsPerSec;
  Engine engine(o);
  engine.Apply(WrapperStart("w1", "%1", 100, T(0)), T(0));
  engine.Apply(StateEv("a", Source::kPoller, "w1", State::kRunning, T(1)), T(1));
  EXPECT_EQ(engine.FindPane("host", "%1")->signal.state, State::kRunning);
  engine.Apply(StateEv("b", Source::kHook, "w1", State::kRunning, T(40)).Sig(State::kUnknown, Confidence::kLow, "r",
                                                                            "x"),
               T(40));
  // The hook (no TTL) is the only fresh candidate now.
  EXPECT_EQ(engine.FindPane("host", "%1")->source, Source::kHook);
  EXPECT_EQ(engine.Explain("host", "%1", T(40)).verdict[static_cast<int>(Source::kPoller)], FusionVerdict::kStale);
}

TEST_F(EngineTest, HookStopMeansCompletedOverARunningScreen) {
  StartW1();
  Apply(StateEv("a", Source::kWrapper, "w1", State::kRunning, T(1)));
  Apply(StateEv("stop", Source::kHook, "w1", State::kCompleted, T(2)));
  EXPECT_EQ(Pane().signal.state, State::kCompleted);
  EXPECT_EQ(Pane().source, Source::kHook);
}

TEST_F(EngineTest, ScreenApprovalWinsOverALaggingHookThenClearsOnTheNextToolEvent) {
  StartW1();
  Apply(StateEv("pre", Source::kHook, "w1", State::kRunning, T(1)));
  Apply(StateEv("dlg", Source::kWrapper, "w1", State::kWaitingApproval, T(2)));
  Apply(StateEv("lag", Source::kHook, "w1", State::kRunning, T(2.5)));  // hook lags the dialog
  EXPECT_EQ(Pane().signal.state, State::kWaitingApproval);
  EXPECT_EQ(Pane().source, Source::kWrapper);
  Apply(StateEv("gone", Source::kWrapper, "w1", State::kRunning, T(3)));  // the dialog went away
  EXPECT_EQ(Pane().signal.state, State::kRunning);
}

TEST_F(EngineTest, HookApprovalClearedByTheNextToolEvent) {
  StartW1();
  Apply(StateEv("perm", Source::kHook, "w1", State::kWaitingApproval, T(1)));
  EXPECT_EQ(Pane().signal.state, State::kWaitingApproval);
  Apply(StateEv("post", Source::kHook, "w1", State::kRunning, T(2)));  // PostToolUse: approval granted
  EXPECT_EQ(Pane().signal.state, State::kRunning);
}

TEST_F(EngineTest, AHookWaitIsShownWithTheOptionsTheScreenReads) {
  // A hook's wait carries no options; when it wins while the screen reads a
  // dialog too, the pane shows the hook's state with the screen's detail
  // (docs/precedence.md row 5), which is what `agtmux respond` checks.
  StartW1();
  Event screen = StateEv("q", Source::kWrapper, "w1", State::kWaitingInput, T(1));
  screen.signal->rule_id = "gemini.question";
  screen.signal->detail.approval_type = "user_question";
  screen.signal->detail.details = "Which test framework should I use?";
  screen.signal->detail.choices = {"pytest", "unittest", "doctest"};
  screen.signal->detail.cursor_position = 2;
  Apply(screen);
  Event hook = StateEv("n", Source::kHook, "w1", State::kWaitingApproval, T(2));
  hook.signal->rule_id = "gemini.Notification.ToolPermission";
  hook.signal->detail.approval_type = "tool";
  hook.signal->detail.details = "Tool requires confirmation";
  Apply(hook);
  EXPECT_EQ(Pane().signal.state, State::kWaitingApproval);
  EXPECT_EQ(Pane().source, Source::kHook);
  EXPECT_EQ(Pane().signal.rule_id, "gemini.Notification.ToolPermission");
  EXPECT_EQ(Pane().signal.detail, screen.signal->detail);
  // The screen reads the dialog gone (row 1b): nothing of it is lent.
  Apply(StateEv("r", Source::kWrapper, "w1", State::kUnknown, T(3), Confidence::kLow)
            .Sig(State::kUnknown, Confidence::kLow, "", "no_rule_matched"));
  EXPECT_EQ(Pane().signal.state, State::kRunning);
  EXPECT_TRUE(Pane().signal.detail.empty());
}

class DemotionTest : public EngineTest {
 protected:
  void SetUp() override {
    StartW1();
    Apply(StateEv("run", Source::kHook, "w1", State::kRunning, T(1)));
    Apply(StateEv("stop", Source::kHook, "w1", State::kCompleted, T(2)));
  }
  Event Demote(int64_t version, double at, std::string key = "dem") {
    return Ev(et::kDemotionDue, Source::kPoller, std::move(key)).Rt("w1").Seq(version).At(T(at));
  }
};

TEST_F(DemotionTest, DueAfterTheThresholdTimedByIngestedAt) {
  EXPECT_TRUE(engine_.DueDemotions(T(121.9)).empty());
  auto due = engine_.DueDemotions(T(122));
  ASSERT_EQ(due.size(), 1u);
  EXPECT_EQ(due[0].pane_id, "%1");
  EXPECT_EQ(due[0].runtime_id, "w1");
  EXPECT_EQ(due[0].state_version, Pane().state_version);
}

TEST_F(DemotionTest, MatchingVersionDemotesToIdle) {
  int64_t v = engine_.DueDemotions(T(130)).at(0).state_version;
  Effects fx = Apply(Demote(v, 130));
  EXPECT_EQ(fx.disposition, Disposition::kApplied);
  EXPECT_EQ(Pane().signal.state, State::kIdle);
  EXPECT_EQ(Pane().signal.rule_id, "demotion");
  EXPECT_EQ(Pane().state_version, v);  // the guard version does not move
  EXPECT_TRUE(engine_.DueDemotions(T(400)).empty());
}

TEST_F(DemotionTest, StaleVersionDoesNothing) {
  int64_t v = engine_.DueDemotions(T(130)).at(0).state_version;
  Apply(StateEv("again", Source::kHook, "w1", State::kCompleted, T(125)));  // a newer input
  Apply(Demote(v, 130));
  EXPECT_EQ(Pane().signal.state, State::kCompleted);
  EXPECT_NE(Pane().state_version, v);
}

TEST_F(DemotionTest, NewInputAfterDemotionUndoesIt) {
  Apply(Demote(engine_.DueDemotions(T(130)).at(0).state_version, 130));
  Apply(StateEv("prompt", Source::kHook, "w1", State::kRunning, T(140)));
  EXPECT_EQ(Pane().signal.state, State::kRunning);
}

TEST_F(DemotionTest, DemotionArrivingBeforeTheLastInputStillConverges) {
  // The guard is a fact, not a race: a replay in which the demotion comes
  // before an event it already accounted for ends the same way.
  Engine other;
  other.Apply(WrapperStart("w1", "%1", 100, T(0)), T(0));
  other.Apply(StateEv("run", Source::kHook, "w1", State::kRunning, T(1)), T(1));
  int64_t v = engine_.DueDemotions(T(130)).at(0).state_version;
  other.Apply(Demote(v, 130), T(130));
  EXPECT_EQ(other.FindPane("host", "%1")->signal.state, State::kRunning);
  other.Apply(StateEv("stop", Source::kHook, "w1", State::kCompleted, T(2)), T(131));
  Apply(Demote(v, 130));
  EXPECT_EQ(*other.FindPane("host", "%1"), Pane());
  EXPECT_EQ(Pane().signal.state, State::kIdle);
}

}  // namespace
}  // namespace agt::state
