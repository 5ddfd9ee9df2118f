// Tests for state/fusion.h: one test per row of docs/precedence.md, plus
// freshness and the tie-break.
#include "state/fusion.h"

#include <gtest/gtest.h>

#include "tests/state/event_builder.h"

namespace agt::state {
namespace {

using testing::T;

Candidate Cand(Source src, State s, double t, Confidence c = Confidence::kHigh) {
  Candidate k;
  k.source = src;
  k.signal.state = s;
  k.signal.confidence = c;
  if (s == State::kUnknown) k.signal.reason_code = "unsupported_signal";
  k.event_id = std::string(core::SourceName(src)) + std::to_string(t);
  k.key = OrderKey{std::nullopt, T(t), T(t), k.event_id};
  k.seen_at = T(t);
  return k;
}

struct Set {
  std::array<Candidate, core::kSourceCount> store;
  std::array<const Candidate*, core::kSourceCount> present{};
  std::array<bool, core::kSourceCount> fresh{};
  FusionMarks marks;
  /// The screen reported a wait at `t`.
  Set& ScreenWait(double t) {
    marks.screen_wait = TimeMark{T(t), T(t)};
    return *this;
  }
  /// A hook/notify reported something other than a wait at `t`.
  Set& HookTurn(double t) {
    marks.hook_turn = TimeMark{T(t), T(t)};
    return *this;
  }
  Set& Add(const Candidate& c, bool is_fresh = true) {
    int i = static_cast<int>(c.source);
    store[i] = c;
    present[i] = &store[i];
    fresh[i] = is_fresh;
    return *this;
  }
  FusionResult Run() const { return Fuse(present, fresh, marks); }
};

constexpr int I(Source s) { return static_cast<int>(s); }

TEST(Fusion, Row1ScreenClearsAHookApprovalWhoseDialogItSawGo) {
  // PreToolUse @0.5, PermissionRequest @1, the screen shows the dialog @1.2
  // and the running turn @2 (approved).
  Set s;
  s.HookTurn(0.5).ScreenWait(1.2);
  s.Add(Cand(Source::kHook, State::kWaitingApproval, 1)).Add(Cand(Source::kWrapper, State::kRunning, 2));
  FusionResult r = s.Run();
  ASSERT_TRUE(r.has_winner);
  EXPECT_EQ(r.winner, Source::kWrapper);
  EXPECT_EQ(r.verdict[I(Source::kHook)], FusionVerdict::kSuperseded);
  EXPECT_EQ(r.rule[I(Source::kHook)], fusion_rule::kHookWaitingClearedByScreen);
}

TEST(Fusion, Row1TheScreenMaySeeTheDialogBeforeTheHookFires) {
  Set s;
  s.HookTurn(0.5).ScreenWait(0.9);
  s.Add(Cand(Source::kHook, State::kWaitingInput, 1)).Add(Cand(Source::kPoller, State::kIdle, 2, Confidence::kMedium));
  EXPECT_EQ(s.Run().winner, Source::kPoller);
}

TEST(Fusion, Row1AScreenThatNeverSawTheDialogDoesNotEndTheHookWaitByRunning) {
  // A dialog the screen cannot read (a new agent release) leaves the
  // running indicator (a spinner title) in place: the hook's wait stands.
  for (bool earlier_dialog : {false, true}) {
    Set s;
    s.HookTurn(0.5);
    if (earlier_dialog) s.ScreenWait(0.2);  // an earlier dialog of the turn, before the hook's last report
    s.Add(Cand(Source::kHook, State::kWaitingApproval, 1)).Add(Cand(Source::kWrapper, State::kRunning, 2));
    FusionResult r = s.Run();
    EXPECT_EQ(r.winner, Source::kHook) << earlier_dialog;
    EXPECT_EQ(r.verdict[I(Source::kWrapper)], FusionVerdict::kOutranked);
  }
}

TEST(Fusion, Row1AScreenTurnEndWithHighConfidenceEndsAHookWaitItNeverSaw) {
  // The dialog was answered (Esc) before a capture could see it: the
  // screen reads the turn interrupted.
  Set s;
  s.HookTurn(0.5);
  s.Add(Cand(Source::kHook, State::kWaitingApproval, 1)).Add(Cand(Source::kPoller, State::kIdle, 2));
  EXPECT_EQ(s.Run().winner, Source::kPoller);
  Set medium;
  medium.HookTurn(0.5);
  medium.Add(Cand(Source::kHook, State::kWaitingApproval, 1))
      .Add(Cand(Source::kPoller, State::kIdle, 2, Confidence::kMedium));
  EXPECT_EQ(medium.Run().winner, Source::kHook);
}

TEST(Fusion, Row1AnUnknownScreenNeverEndsAHookWaitItDidNotSee) {
  Set s;
  s.HookTurn(0.5);
  s.Add(Cand(Source::kHook, State::kWaitingApproval, 1))
      .Add(Cand(Source::kWrapper, State::kUnknown, 2, Confidence::kLow));
  FusionResult r = s.Run();
  EXPECT_EQ(r.winner, Source::kHook);
  EXPECT_FALSE(r.answered[I(Source::kHook)]);
}

TEST(Fusion, Row1bAfterTheDialogWentAnUnknownScreenLeavesTheHookTurnRunning) {
  // Claude 2.1.330 approved: the screen read the dialog, then no rule
  // matches the working screen. The hook's wait is answered, the turn goes on.
  Set s;
  s.HookTurn(0.5).ScreenWait(1.2);
  s.Add(Cand(Source::kHook, State::kWaitingApproval, 1))
      .Add(Cand(Source::kWrapper, State::kUnknown, 3, Confidence::kLow));
  FusionResult r = s.Run();
  ASSERT_TRUE(r.has_winner);
  EXPECT_EQ(r.winner, Source::kHook);
  EXPECT_TRUE(r.answered[I(Source::kHook)]);
  EXPECT_EQ(r.rule[I(Source::kHook)], fusion_rule::kAnsweredWait);
  EXPECT_EQ(r.verdict[I(Source::kWrapper)], FusionVerdict::kOutranked);
  EXPECT_EQ(FusedState(*s.present[I(Source::kHook)], true), State::kRunning);
}

TEST(Fusion, Row1bAnsweredRunningLosesToAReadableScreenOfTheOtherKind) {
  // Wrapper unknown after the dialog, but the poller (newer) reads the turn
  // interrupted: the hook's wait is superseded, not resumed as running.
  Set s;
  s.HookTurn(0.5).ScreenWait(1.2);
  s.Add(Cand(Source::kHook, State::kWaitingApproval, 1))
      .Add(Cand(Source::kWrapper, State::kUnknown, 2, Confidence::kLow))
      .Add(Cand(Source::kPoller, State::kIdle, 3));
  FusionResult r = s.Run();
  EXPECT_EQ(r.winner, Source::kPoller);
  EXPECT_FALSE(r.answered[I(Source::kHook)]);
  EXPECT_EQ(r.rule[I(Source::kHook)], fusion_rule::kHookWaitingClearedByScreen);
}

TEST(Fusion, Row1AStaleScreenNeverEndsAFreshHookWait) {
  Set s;
  s.HookTurn(0.5).ScreenWait(1.2);
  s.Add(Cand(Source::kHook, State::kWaitingApproval, 1))
      .Add(Cand(Source::kPoller, State::kIdle, 2), /*fresh=*/false);
  FusionResult r = s.Run();
  EXPECT_EQ(r.winner, Source::kHook);
  EXPECT_FALSE(r.answered[I(Source::kHook)]);
  Set unknown;
  unknown.HookTurn(0.5).ScreenWait(1.2);
  unknown.Add(Cand(Source::kHook, State::kWaitingApproval, 1))
      .Add(Cand(Source::kWrapper, State::kUnknown, 2, Confidence::kLow), /*fresh=*/false);
  FusionResult u = unknown.Run();
  EXPECT_EQ(u.winner, Source::kHook);
  EXPECT_FALSE(u.answered[I(Source::kHook)]) << "a stale screen cannot say the dialog went";
}

TEST(Fusion, Row1cAScreenThatSawADialogAfterTheHooksRunningEndsItWithTheTurn) {
  // Claude Code's auto mode: PreToolUse @0.5 (running), a dialog no hook
  // reports @1.2 (the screen's wait), denied: the prompt is back @2 (idle,
  // medium: the prompt rule) and no hook fires until SessionEnd.
  for (State end : {State::kIdle, State::kCompleted, State::kError}) {
    for (Confidence c : {Confidence::kHigh, Confidence::kMedium}) {
      Set s;
      s.HookTurn(0.5).ScreenWait(1.2);
      s.Add(Cand(Source::kHook, State::kRunning, 0.5)).Add(Cand(Source::kWrapper, end, 2, c));
      FusionResult r = s.Run();
      ASSERT_TRUE(r.has_winner);
      EXPECT_EQ(r.winner, Source::kWrapper) << core::StateName(end);
      EXPECT_EQ(r.verdict[I(Source::kHook)], FusionVerdict::kSuperseded);
      EXPECT_EQ(r.rule[I(Source::kHook)], fusion_rule::kScreenSawTurnEnd);
    }
  }
}

TEST(Fusion, Row1cNeedsADialogAfterTheHooksLastReport) {
  // No dialog: a screen idle between tool calls does not end the hooks' turn.
  Set none;
  none.HookTurn(0.5);
  none.Add(Cand(Source::kHook, State::kRunning, 0.5)).Add(Cand(Source::kPoller, State::kIdle, 2));
  EXPECT_EQ(none.Run().winner, Source::kHook);
  // A dialog before the hooks' last report (approved; PostToolUse followed)
  // says nothing about the turn since.
  Set earlier;
  earlier.ScreenWait(0.3).HookTurn(0.5);
  earlier.Add(Cand(Source::kHook, State::kRunning, 0.5)).Add(Cand(Source::kPoller, State::kIdle, 2));
  EXPECT_EQ(earlier.Run().winner, Source::kHook);
  // The screen's reading must come after the dialog: its idle before it is old.
  Set before;
  before.HookTurn(0.5).ScreenWait(1.2);
  before.Add(Cand(Source::kHook, State::kRunning, 0.5)).Add(Cand(Source::kPoller, State::kIdle, 1));
  EXPECT_EQ(before.Run().winner, Source::kHook);
}

TEST(Fusion, Row1cEndsOnlyARunningTurnAndOnlyWithATurnEnd) {
  // After the dialog the screen reads work again (approved) or nothing it
  // knows: the hooks' running stands (equal state, or unknown ranks last).
  for (State after : {State::kRunning, State::kUnknown}) {
    Set s;
    s.HookTurn(0.5).ScreenWait(1.2);
    s.Add(Cand(Source::kHook, State::kRunning, 0.5))
        .Add(Cand(Source::kWrapper, after, 2, after == State::kUnknown ? Confidence::kLow : Confidence::kHigh));
    FusionResult r = s.Run();
    EXPECT_EQ(r.winner, Source::kHook) << core::StateName(after);
    EXPECT_NE(r.verdict[I(Source::kHook)], FusionVerdict::kSuperseded);
  }
  // A hook that said the turn ended is not a lagging running.
  Set done;
  done.HookTurn(0.5).ScreenWait(1.2);
  done.Add(Cand(Source::kHook, State::kCompleted, 0.5)).Add(Cand(Source::kWrapper, State::kIdle, 2));
  EXPECT_EQ(done.Run().winner, Source::kHook);
}

TEST(Fusion, Row1cAStaleScreenEndsNothing) {
  Set s;
  s.HookTurn(0.5).ScreenWait(1.2);
  s.Add(Cand(Source::kHook, State::kRunning, 0.5)).Add(Cand(Source::kPoller, State::kIdle, 2), /*fresh=*/false);
  EXPECT_EQ(s.Run().winner, Source::kHook);
}

TEST(Fusion, Row1AlsoClearsAHookError) {
  Set s;
  s.Add(Cand(Source::kHook, State::kError, 1)).Add(Cand(Source::kPoller, State::kIdle, 2));
  EXPECT_EQ(s.Run().winner, Source::kPoller);
}

TEST(Fusion, Row1AnUnknownScreenDoesNotClearAHookError) {
  Set s;
  s.Add(Cand(Source::kHook, State::kError, 1))
      .Add(Cand(Source::kPoller, State::kUnknown, 2, Confidence::kLow));
  EXPECT_EQ(s.Run().winner, Source::kHook);
}

TEST(Fusion, AnUnknownScreenNeverOutranksAFreshHookState) {
  for (State st : {State::kRunning, State::kCompleted, State::kIdle, State::kError,
                   State::kWaitingApproval, State::kWaitingInput}) {
    Set s;
    s.HookTurn(0.5);
    s.Add(Cand(Source::kHook, st, 1)).Add(Cand(Source::kWrapper, State::kUnknown, 2, Confidence::kLow));
    EXPECT_EQ(s.Run().winner, Source::kHook) << core::StateName(st);
  }
}

TEST(Fusion, Row1NeedsTheScreenToBeNewer) {
  Set s;
  s.ScreenWait(0.5);
  s.Add(Cand(Source::kHook, State::kWaitingApproval, 2)).Add(Cand(Source::kWrapper, State::kRunning, 1));
  FusionResult r = s.Run();
  EXPECT_EQ(r.winner, Source::kHook);
  EXPECT_EQ(r.verdict[I(Source::kHook)], FusionVerdict::kWon);
  // The older screen running is itself superseded by the newer hook (row 2).
  EXPECT_EQ(r.rule[I(Source::kWrapper)], fusion_rule::kHookBeatsScreen);
}

TEST(Fusion, Row2HookStopBeatsAnOlderScreenRunning) {
  Set s;
  s.Add(Cand(Source::kWrapper, State::kRunning, 1)).Add(Cand(Source::kHook, State::kCompleted, 2));
  FusionResult r = s.Run();
  EXPECT_EQ(r.winner, Source::kHook);
  EXPECT_EQ(r.rule[I(Source::kWrapper)], fusion_rule::kHookBeatsScreen);
}

TEST(Fusion, Row2NotifyCompletedBeatsAnOlderPollerUnknown) {
  Set s;
  s.Add(Cand(Source::kPoller, State::kUnknown, 1)).Add(Cand(Source::kNotify, State::kCompleted, 2));
  EXPECT_EQ(s.Run().winner, Source::kNotify);
}

// Row 2a: a hook's session end (SessionEnd: unknown) does not remove the
// wrapper's reading: the wrapper sees its agent exit itself, when it exits
// (Gemini fires SessionEnd 0.1 s before it does). It does remove the
// poller's, which notices the exit only at the collector's next scan.
TEST(Fusion, Row2aAHookSessionEndLeavesTheWrapperReading) {
  Set s;
  s.Add(Cand(Source::kWrapper, State::kCompleted, 1)).Add(Cand(Source::kHook, State::kUnknown, 2, Confidence::kLow));
  FusionResult r = s.Run();
  EXPECT_EQ(r.winner, Source::kWrapper);
  EXPECT_NE(r.verdict[I(Source::kWrapper)], FusionVerdict::kSuperseded);
}

TEST(Fusion, Row2aAHookSessionEndSupersedesThePollerReading) {
  Set s;
  s.Add(Cand(Source::kPoller, State::kCompleted, 1)).Add(Cand(Source::kHook, State::kUnknown, 2, Confidence::kLow));
  FusionResult r = s.Run();
  EXPECT_EQ(r.winner, Source::kHook);
  EXPECT_EQ(r.rule[I(Source::kPoller)], fusion_rule::kHookBeatsScreen);
}

TEST(Fusion, Row3HighConfidenceScreenApprovalSurvivesALaggingHookRunning) {
  Set s;
  s.Add(Cand(Source::kWrapper, State::kWaitingApproval, 1)).Add(Cand(Source::kHook, State::kRunning, 2));
  FusionResult r = s.Run();
  EXPECT_EQ(r.winner, Source::kWrapper);
  EXPECT_EQ(r.verdict[I(Source::kWrapper)], FusionVerdict::kWon);
}

TEST(Fusion, Row3OnlyForHighConfidence) {
  Set s;
  s.Add(Cand(Source::kPoller, State::kWaitingInput, 1, Confidence::kMedium))
      .Add(Cand(Source::kHook, State::kRunning, 2));
  EXPECT_EQ(s.Run().winner, Source::kHook);
}

TEST(Fusion, Row3TurnEndClearsTheScreenWait) {
  for (State end : {State::kCompleted, State::kIdle, State::kError}) {
    Set s;
    s.Add(Cand(Source::kPoller, State::kWaitingInput, 1)).Add(Cand(Source::kHook, end, 2));
    FusionResult r = s.Run();
    EXPECT_EQ(r.winner, Source::kHook) << core::StateName(end);
    EXPECT_EQ(r.rule[I(Source::kPoller)], fusion_rule::kTurnEndClearsScreenWait);
  }
}

TEST(Fusion, Row4NewerScreenSourceWins) {
  Set s;
  s.Add(Cand(Source::kWrapper, State::kRunning, 1)).Add(Cand(Source::kPoller, State::kIdle, 2));
  FusionResult r = s.Run();
  EXPECT_EQ(r.winner, Source::kPoller);  // precedence alone would pick running
  EXPECT_EQ(r.rule[I(Source::kWrapper)], fusion_rule::kNewerScreenWins);
}

TEST(Fusion, Row4bNewerHookSourceWins) {
  Set s;
  s.Add(Cand(Source::kHook, State::kRunning, 1)).Add(Cand(Source::kNotify, State::kCompleted, 2));
  EXPECT_EQ(s.Run().winner, Source::kNotify);
}

TEST(Fusion, Row5PrecedenceAmongTheRest) {
  Set s;
  s.Add(Cand(Source::kHook, State::kRunning, 1)).Add(Cand(Source::kWrapper, State::kWaitingInput, 2));
  EXPECT_EQ(s.Run().winner, Source::kWrapper);
  Set t;  // no row applies (older hook running, newer screen error): error outranks
  t.Add(Cand(Source::kHook, State::kRunning, 1)).Add(Cand(Source::kPoller, State::kError, 2));
  FusionResult r = t.Run();
  EXPECT_EQ(r.winner, Source::kPoller);
  EXPECT_EQ(r.verdict[I(Source::kHook)], FusionVerdict::kOutranked);
}

TEST(Fusion, ATiedLifecycleStateGoesToTheHookWhateverItsAge) {
  // Running, completed, idle, error: the hook knows, the screen infers.
  for (State st : {State::kRunning, State::kCompleted, State::kIdle, State::kError}) {
    Set older_hook;
    older_hook.Add(Cand(Source::kHook, st, 1)).Add(Cand(Source::kWrapper, st, 3));
    FusionResult r = older_hook.Run();
    EXPECT_EQ(r.winner, Source::kHook) << core::StateName(st);
    EXPECT_EQ(r.verdict[I(Source::kWrapper)], FusionVerdict::kOutranked);
    Set newer_hook;
    newer_hook.Add(Cand(Source::kNotify, st, 3)).Add(Cand(Source::kPoller, st, 1));
    EXPECT_EQ(newer_hook.Run().winner, Source::kNotify) << core::StateName(st);
  }
}

TEST(Fusion, ATiedWaitGoesToTheScreenThatShowsTheOptions) {
  for (State st : {State::kWaitingApproval, State::kWaitingInput}) {
    Set s;
    s.Add(Cand(Source::kHook, st, 3)).Add(Cand(Source::kWrapper, st, 1));
    EXPECT_EQ(s.Run().winner, Source::kWrapper) << core::StateName(st);
  }
}

TEST(Fusion, AHookWaitThatWinsShowsTheScreensDetail) {
  // The hooks' wait outranks the screen's (a question the hooks call an
  // approval), or a newer hook wait superseded a medium-confidence screen
  // wait (row 2): the state is the hook's, the options are the screen's.
  Set outranks;
  outranks.Add(Cand(Source::kPoller, State::kWaitingInput, 1)).Add(Cand(Source::kHook, State::kWaitingApproval, 2));
  FusionResult a = outranks.Run();
  EXPECT_EQ(a.winner, Source::kHook);
  EXPECT_TRUE(a.detail_from_screen);
  EXPECT_EQ(a.detail_source, Source::kPoller);
  Set superseded;
  superseded.Add(Cand(Source::kWrapper, State::kWaitingApproval, 1, Confidence::kMedium))
      .Add(Cand(Source::kHook, State::kWaitingApproval, 2));
  FusionResult b = superseded.Run();
  EXPECT_EQ(b.winner, Source::kHook);
  EXPECT_TRUE(b.detail_from_screen);
  EXPECT_EQ(b.detail_source, Source::kWrapper);
  // The newest screen reading decides: an older wrapper wait under a newer
  // poller running is a dialog that went.
  Set went;
  went.Add(Cand(Source::kWrapper, State::kWaitingApproval, 1, Confidence::kMedium))
      .Add(Cand(Source::kPoller, State::kUnknown, 1.5, Confidence::kLow))
      .Add(Cand(Source::kHook, State::kWaitingApproval, 2));
  EXPECT_FALSE(went.Run().detail_from_screen);
  // A stale screen wait lends nothing; a screen winner needs no loan.
  Set stale;
  stale.Add(Cand(Source::kPoller, State::kWaitingInput, 1), false).Add(Cand(Source::kHook, State::kWaitingApproval, 2));
  EXPECT_FALSE(stale.Run().detail_from_screen);
  Set tie;
  tie.Add(Cand(Source::kHook, State::kWaitingApproval, 3)).Add(Cand(Source::kWrapper, State::kWaitingApproval, 1));
  FusionResult t = tie.Run();
  EXPECT_EQ(t.winner, Source::kWrapper);
  EXPECT_FALSE(t.detail_from_screen);
}

TEST(Fusion, ATieWithinOneKindGoesToTheNewerByRows4And4b) {
  // Row 5 never sees two candidates of one kind: rows 4 and 4b leave one.
  Set screens;
  screens.Add(Cand(Source::kWrapper, State::kRunning, 3)).Add(Cand(Source::kPoller, State::kRunning, 1));
  FusionResult a = screens.Run();
  EXPECT_EQ(a.winner, Source::kWrapper);
  EXPECT_EQ(a.verdict[I(Source::kPoller)], FusionVerdict::kSuperseded);
  Set hooks;
  hooks.Add(Cand(Source::kHook, State::kCompleted, 1)).Add(Cand(Source::kNotify, State::kCompleted, 3));
  FusionResult b = hooks.Run();
  EXPECT_EQ(b.winner, Source::kNotify);  // newer, though hook comes first in source order
  EXPECT_EQ(b.verdict[I(Source::kHook)], FusionVerdict::kSuperseded);
}

TEST(Fusion, StaleCandidatesTakeNoPart) {
  Set s;
  s.Add(Cand(Source::kHook, State::kError, 1), /*fresh=*/false).Add(Cand(Source::kWrapper, State::kIdle, 0.5));
  FusionResult r = s.Run();
  EXPECT_EQ(r.winner, Source::kWrapper);
  EXPECT_EQ(r.verdict[I(Source::kHook)], FusionVerdict::kStale);
}

TEST(Fusion, AllStaleOrNoneGivesNoWinner) {
  Set none;
  FusionResult r = none.Run();
  EXPECT_FALSE(r.has_winner);
  EXPECT_FALSE(r.any_present);
  Set stale;
  stale.Add(Cand(Source::kPoller, State::kRunning, 1), false);
  r = stale.Run();
  EXPECT_FALSE(r.has_winner);
  EXPECT_TRUE(r.any_present);
}

}  // namespace
}  // namespace agt::state
