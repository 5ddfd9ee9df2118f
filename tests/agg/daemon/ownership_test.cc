// Who owns an unwrapped pane, and so what the CAP poller reports for it
// (aggregator/ingest/daemon_core.h FresherOwner, docs/observe.md): the
// faults of issue 15 came from a poller silenced by hooks whose last word
// was a wait (the screen never saw the dialog go), by Codex's notify (a
// finished turn muted the screen through the next one), and by hooks that
// said running while a dialog no hook reports (Claude Code's auto mode) was
// on screen.
#include <gtest/gtest.h>

#include "aggregator/ingest/daemon_core.h"

namespace agt::agg {
namespace {

using core::Source;
using core::State;

constexpr core::TimeNs kNow = 1'800'000'000LL * core::kNsPerSec;
constexpr core::TimeNs kFresh = 60 * core::kNsPerSec;

state::Candidate Cand(Source src, State s, core::TimeNs age) {
  state::Candidate c;
  c.source = src;
  c.signal.state = s;
  c.seen_at = kNow - age;
  return c;
}

state::Runtime Observed() {
  state::Runtime rt;
  rt.owner = Source::kPoller;
  return rt;
}

TEST(FresherOwner, TheWrapperAlwaysReadsItsOwnScreen) {
  state::Runtime rt;
  rt.owner = Source::kWrapper;
  EXPECT_EQ(FresherOwner(rt, {}, kNow, kFresh), PaneOwner::kWrapper);
  EXPECT_EQ(FresherOwner(rt, {Cand(Source::kHook, State::kRunning, core::kNsPerSec)}, kNow, kFresh),
            PaneOwner::kWrapper);
}

TEST(FresherOwner, HooksOwnTheLifecycleWhileTheAgentWorksOrHasJustFinished) {
  // Owned, not silenced: the poller still reports the dialogs no hook
  // reports (auto mode's notice and its No/Yes dialog), and what ends them.
  for (State s : {State::kRunning, State::kCompleted}) {
    EXPECT_EQ(FresherOwner(Observed(), {Cand(Source::kHook, s, core::kNsPerSec)}, kNow, kFresh),
              PaneOwner::kHooks)
        << core::StateName(s);
    EXPECT_EQ(FresherOwner(Observed(), {Cand(Source::kHook, s, 61 * core::kNsPerSec)}, kNow, kFresh),
              PaneOwner::kNone)
        << "an old opinion owns nothing";
  }
}

TEST(FresherOwner, AHookWaitLeavesTheScreenToTheCapture) {
  // Fault 1, unwrapped: with the poller silent, nothing saw the approved
  // dialog go and waiting_approval lasted the whole 8 s tool run.
  for (State s : {State::kWaitingApproval, State::kWaitingInput, State::kError, State::kIdle,
                  State::kUnknown}) {
    EXPECT_EQ(FresherOwner(Observed(), {Cand(Source::kHook, s, core::kNsPerSec)}, kNow, kFresh),
              PaneOwner::kNone)
        << core::StateName(s);
  }
}

TEST(FresherOwner, CodexNotifyNeverOwns) {
  // agent-turn-complete is the only thing notify says: the next turn (and
  // its approvals) is only on screen.
  EXPECT_EQ(FresherOwner(Observed(), {Cand(Source::kNotify, State::kCompleted, core::kNsPerSec)}, kNow,
                         kFresh),
            PaneOwner::kNone);
}

TEST(FresherOwner, AStaleHookOwnsNothing) {
  state::Candidate c = Cand(Source::kHook, State::kRunning, core::kNsPerSec);
  c.stale = true;
  EXPECT_EQ(FresherOwner(Observed(), {c}, kNow, kFresh), PaneOwner::kNone);
  EXPECT_EQ(FresherOwner(Observed(), {Cand(Source::kPoller, State::kRunning, 0)}, kNow, kFresh),
            PaneOwner::kNone);
}

}  // namespace
}  // namespace agt::agg
