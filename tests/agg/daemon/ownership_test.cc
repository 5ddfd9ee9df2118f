// When the CAP poller may stay silent on a pane (aggregator/daemon/daemon_core.h
// FresherSourceOwns): the faults of issue 15 came from a poller silenced by
// hooks whose last word was a wait (the screen never saw the dialog go) or
// Codex's notify (a finished turn muted the screen through the next one).
#include <gtest/gtest.h>

#include "aggregator/daemon/daemon_core.h"

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

TEST(FresherSourceOwns, TheWrapperAlwaysReadsItsOwnScreen) {
  state::Runtime rt;
  rt.owner = Source::kWrapper;
  EXPECT_TRUE(FresherSourceOwns(rt, {}, kNow, kFresh));
}

TEST(FresherSourceOwns, HooksOwnWhileTheAgentWorksOrHasJustFinished) {
  for (State s : {State::kRunning, State::kCompleted}) {
    EXPECT_TRUE(FresherSourceOwns(Observed(), {Cand(Source::kHook, s, core::kNsPerSec)}, kNow, kFresh))
        << core::StateName(s);
    EXPECT_FALSE(FresherSourceOwns(Observed(), {Cand(Source::kHook, s, 61 * core::kNsPerSec)}, kNow, kFresh))
        << "an old opinion owns nothing";
  }
}

TEST(FresherSourceOwns, AHookWaitLeavesTheScreenToTheCapture) {
  // Fault 1, unwrapped: with the poller silent, nothing saw the approved
  // dialog go and waiting_approval lasted the whole 8 s tool run.
  for (State s : {State::kWaitingApproval, State::kWaitingInput, State::kError, State::kIdle,
                  State::kUnknown}) {
    EXPECT_FALSE(FresherSourceOwns(Observed(), {Cand(Source::kHook, s, core::kNsPerSec)}, kNow, kFresh))
        << core::StateName(s);
  }
}

TEST(FresherSourceOwns, CodexNotifyNeverOwns) {
  // agent-turn-complete is the only thing notify says: the next turn (and
  // its approvals) is only on screen.
  EXPECT_FALSE(FresherSourceOwns(Observed(), {Cand(Source::kNotify, State::kCompleted, core::kNsPerSec)},
                                 kNow, kFresh));
}

TEST(FresherSourceOwns, AStaleHookOwnsNothing) {
  state::Candidate c = Cand(Source::kHook, State::kRunning, core::kNsPerSec);
  c.stale = true;
  EXPECT_FALSE(FresherSourceOwns(Observed(), {c}, kNow, kFresh));
  EXPECT_FALSE(FresherSourceOwns(Observed(), {Cand(Source::kPoller, State::kRunning, 0)}, kNow, kFresh));
}

}  // namespace
}  // namespace agt::agg
