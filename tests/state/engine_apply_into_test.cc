// ApplyInto reuses the caller's Effects (and the rows in it) from one call to
// the next. Nothing of an earlier event may leak into a later one: for a
// varied stream (runtimes started and replaced, pending binds that bind or
// park, duplicates, stale marks, health flaps, rejected events), every
// call must give exactly the Effects that Apply gives on a twin engine.
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "state/engine.h"
#include "tests/state/event_builder.h"

namespace agt::state {
namespace {

using namespace testing;  // NOLINT: the event builders

void ExpectSameEffects(const Effects& want, const Effects& got, size_t i) {
  SCOPED_TRACE("event " + std::to_string(i));
  EXPECT_EQ(got.disposition, want.disposition);
  EXPECT_EQ(got.error_code, want.error_code);
  EXPECT_EQ(got.error_message, want.error_message);
  EXPECT_EQ(got.stored_event, want.stored_event);
  EXPECT_EQ(got.inbox, want.inbox);
  EXPECT_EQ(got.runtimes, want.runtimes);
  EXPECT_EQ(got.cursors, want.cursors);
  EXPECT_EQ(got.states, want.states);
  EXPECT_EQ(got.target_health, want.target_health);
  EXPECT_EQ(got.candidates, want.candidates);
  EXPECT_EQ(got.bound_events, want.bound_events);
}

std::vector<Event> VariedStream() {
  std::vector<Event> out;
  std::mt19937 rng(3);
  const State kStates[] = {State::kRunning, State::kWaitingApproval, State::kWaitingInput,
                           State::kCompleted, State::kIdle, State::kError};
  int n = 0;
  double t = 1;
  auto key = [&] { return "k" + std::to_string(++n); };
  // A hook that arrives before its pane's runtime exists: parked, then bound.
  out.push_back(Ev(et::kStateChanged, Source::kHook, key()).Pane("host", "%3").Pid(300).At(T(t))
                    .Sig(State::kRunning));
  for (int p = 1; p <= 3; ++p) {
    out.push_back(WrapperStart("w" + std::to_string(p), "%" + std::to_string(p), 100 + p, T(t += 0.1)));
  }
  out.push_back(Observed(key(), "%3", 300, T(0.5), T(t += 0.1)));
  std::vector<std::string> runtimes = {"w1", "w2"};
  for (int i = 0; i < 400; ++i) {
    t += 0.25;
    const uint32_t r = rng() % 100;
    const std::string& rt = runtimes[rng() % runtimes.size()];
    if (r < 5 && !out.empty()) {
      out.push_back(out[rng() % out.size()]);  // a spool re-send
    } else if (r < 8) {
      out.push_back(Ev(et::kTargetHealthChanged, Source::kPoller, key()).Pane("host", "")
                        .Health(rng() % 2 ? "down" : "ok").At(T(t)));
    } else if (r < 10) {
      out.push_back(Ev(et::kStaleDetected, Source::kPoller, key()).Rt(rt).At(T(t)));
    } else if (r < 12) {
      Ev bad(et::kStateChanged, Source::kHook, "");  // rejected: no dedupe_key
      out.push_back(bad.Rt(rt).At(T(t)).Sig(State::kRunning));
    } else if (r < 14) {
      const std::string id = "w" + std::to_string(10 + i);  // %2's runtime replaced
      out.push_back(WrapperStart(id, "%2", 500 + i, T(t)));
      runtimes[1] = id;
    } else if (r < 30) {
      out.push_back(Ev(et::kStateChanged, Source::kHook, key()).Pane("host", "%3").Pid(300).At(T(t))
                        .Sig(kStates[rng() % 6]));
    } else if (r < 33) {
      out.push_back(Ev(et::kStateChanged, Source::kHook, key()).Pane("host", "%7").At(T(t))
                        .Sig(State::kRunning));  // never binds
    } else {
      const Source src = r % 2 ? Source::kWrapper : Source::kHook;
      Ev ev = StateEv(key(), src, rt, kStates[rng() % 6], T(t));
      if (src == Source::kWrapper) ev.Seq(i);
      out.push_back(ev);
    }
  }
  return out;
}

TEST(ApplyInto, GivesExactlyWhatApplyGivesWhileReusingOneEffects) {
  const std::vector<Event> stream = VariedStream();
  Engine by_value, into;
  Effects fx;
  size_t rows = 0;
  for (size_t i = 0; i < stream.size(); ++i) {
    const Event& e = stream[i];
    Effects want = by_value.Apply(e, e.ingested_at);
    into.ApplyInto(e, e.ingested_at, &fx);
    ExpectSameEffects(want, fx, i);
    rows += want.states.size() + want.candidates.size() + want.inbox.size();
  }
  EXPECT_GT(rows, stream.size());  // the stream did produce rows to reuse
  EXPECT_EQ(into.Snapshot(), by_value.Snapshot());
  Effects tick_want = by_value.Tick(T(10'000));
  EXPECT_FALSE(tick_want.inbox.empty());  // the %7 hooks expire
  EXPECT_EQ(into.Tick(T(10'000)).inbox, tick_want.inbox);
}

TEST(ApplyInto, ResetsAnEffectsItDidNotFill) {
  Engine engine;
  Effects fx;
  fx.error_code = "E_LEFTOVER";
  fx.states.push_back(PaneState{});
  fx.bound_events.push_back(Event{});
  fx.stored_event = Event{};
  engine.ApplyInto(WrapperStart("w1", "%1", 100, T(1)), T(1), &fx);
  EXPECT_EQ(fx.disposition, Disposition::kApplied);
  EXPECT_EQ(fx.error_code, "");
  EXPECT_TRUE(fx.bound_events.empty());
  ASSERT_EQ(fx.states.size(), 1u);
  EXPECT_EQ(fx.states[0].runtime_id, "w1");
  ASSERT_TRUE(fx.stored_event.has_value());
  EXPECT_EQ(fx.stored_event->event_id, "id-start-w1");
}

TEST(ApplyInto, LeavesNoRowOfTheCallBefore) {
  // ApplyInto overwrites the rows it finds in place and cuts off the rest: a
  // call that writes nothing (here a rejected event) must show nothing of
  // what the Effects held.
  Engine engine;
  Effects fx;
  fx.states.resize(3);
  fx.cursors.resize(2);
  fx.candidates.resize(2);
  fx.inbox.resize(2);
  fx.runtimes.resize(1);
  fx.target_health.emplace_back("host", TargetHealth::kDown);
  fx.bound_events.resize(1);
  fx.stored_event = Event{};
  Ev bad(et::kStateChanged, Source::kHook, "");  // rejected: no dedupe_key
  engine.ApplyInto(bad.Rt("w1").At(T(1)).Sig(State::kRunning), T(1), &fx);
  EXPECT_EQ(fx.disposition, Disposition::kRejected);
  EXPECT_FALSE(fx.error_message.empty());
  EXPECT_FALSE(fx.stored_event.has_value());
  EXPECT_TRUE(fx.states.empty());
  EXPECT_TRUE(fx.cursors.empty());
  EXPECT_TRUE(fx.candidates.empty());
  EXPECT_TRUE(fx.inbox.empty());
  EXPECT_TRUE(fx.runtimes.empty());
  EXPECT_TRUE(fx.target_health.empty());
  EXPECT_TRUE(fx.bound_events.empty());
}

}  // namespace
}  // namespace agt::state
