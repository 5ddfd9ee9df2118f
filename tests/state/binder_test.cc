// Tests for state/binder.h: which runtime an unbound event matches.
#include "state/binder.h"

#include <gtest/gtest.h>

#include "tests/state/event_builder.h"

namespace agt::state {
namespace {

using testing::Ev;
using testing::T;

constexpr TimeNs kWindow = 5 * core::kNsPerSec;

Runtime Rt(std::string id, int64_t pid, double start, double end = 0) {
  Runtime r;
  r.runtime_id = std::move(id);
  r.target_id = "host";
  r.pane_id = "%1";
  r.pid = pid;
  r.started_at = T(start);
  r.ended_at = end == 0 ? 0 : T(end);
  return r;
}

Event Hook() { return Ev("state_changed", Source::kHook, "h").Pane("host", "%1"); }

TEST(Binder, BindsTheRuntimeActiveAtTheEventTime) {
  Runtime a = Rt("a", 1, 0, 100), b = Rt("b", 2, 100);
  BindResult r = MatchRuntime(Hook(), T(50), {&a, &b}, kWindow);
  ASSERT_EQ(r.outcome, BindOutcome::kBound);
  EXPECT_EQ(r.runtime->runtime_id, "a");
  r = MatchRuntime(Hook(), T(200), {&a, &b}, kWindow);
  ASSERT_EQ(r.outcome, BindOutcome::kBound);
  EXPECT_EQ(r.runtime->runtime_id, "b");
}

TEST(Binder, NoRuntimeAtThatTimeIsNoMatch) {
  Runtime a = Rt("a", 1, 100);
  EXPECT_EQ(MatchRuntime(Hook(), T(50), {&a}, kWindow).outcome, BindOutcome::kNoMatch);
  EXPECT_EQ(MatchRuntime(Hook(), T(50), {}, kWindow).outcome, BindOutcome::kNoMatch);
}

TEST(Binder, AHookJustBeforeARuntimeChangeIsAmbiguousWithoutPid) {
  Runtime a = Rt("a", 1, 0, 100), b = Rt("b", 2, 100);
  EXPECT_EQ(MatchRuntime(Hook(), T(97), {&a, &b}, kWindow).outcome, BindOutcome::kAmbiguous);
  Event with_pid = Hook();
  with_pid.pid = 1;
  BindResult r = MatchRuntime(with_pid, T(97), {&a, &b}, kWindow);
  ASSERT_EQ(r.outcome, BindOutcome::kBound);
  EXPECT_EQ(r.runtime->runtime_id, "a");
}

TEST(Binder, PidMustMatchWhenBothAreKnown) {
  Runtime a = Rt("a", 1, 0);
  Event e = Hook();
  e.pid = 9;
  EXPECT_EQ(MatchRuntime(e, T(50), {&a}, kWindow).outcome, BindOutcome::kNoMatch);
  a.pid.reset();  // an unknown pid does not contradict
  EXPECT_EQ(MatchRuntime(e, T(50), {&a}, kWindow).outcome, BindOutcome::kBound);
}

TEST(Binder, StartHintMustBeWithinTheWindow) {
  Runtime a = Rt("a", 1, 10);
  Event e = Hook();
  e.start_hint = T(14.9);
  EXPECT_EQ(MatchRuntime(e, T(50), {&a}, kWindow).outcome, BindOutcome::kBound);
  e.start_hint = T(15.1);
  EXPECT_EQ(MatchRuntime(e, T(50), {&a}, kWindow).outcome, BindOutcome::kNoMatch);
}

}  // namespace
}  // namespace agt::state
