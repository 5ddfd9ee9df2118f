// The CAP poller's scheduling and change detection, with a fake analyzer,
// a fake sink and hand-moved time.
#include "aggregator/observe/poller.h"

#include <gtest/gtest.h>

#include "tests/agg/observe/fake_sink.h"

namespace agt::agg {
namespace {

using core::kNsPerSec;
using core::State;

/// Reads the state off the screen's last line ("state:running"); asks for a
/// recheck when the line says "settle".
class ScriptAnalyzer final : public detect::Analyzer {
 public:
  int* calls;
  bool captured;  // what AnalyzerInput::captured must say: a capture, or a byte screen
  explicit ScriptAnalyzer(int* c, bool cap = true) : calls(c), captured(cap) {}
  detect::Verdict Analyze(const detect::AnalyzerInput& in) override {
    ++*calls;
    detect::Verdict v;
    std::string last;
    for (const auto& l : in.screen->lines)
      if (!l.empty()) last = l;
    EXPECT_EQ(in.captured, captured);
    if (last == "settle") {
      v.signal.state = in.now >= in.last_output + kNsPerSec ? State::kWaitingApproval : State::kRunning;
      v.recheck_at = in.now >= in.last_output + kNsPerSec ? 0 : in.last_output + kNsPerSec;
    } else if (last == "nothing") {
      v.signal.state = State::kUnknown;
      v.signal.reason_code = "no_rule_matched";
    } else if (last.starts_with("state:")) {
      v.signal.state = *core::ParseState(last.substr(6));
      v.signal.rule_id = "r." + last.substr(6);
      v.signal.evidence = last;
    } else {
      v.signal.state = State::kUnknown;
      v.signal.reason_code = "unsupported_signal";
    }
    v.signal.confidence = core::Confidence::kHigh;
    return v;
  }
};

class PollerTest : public ::testing::Test {
 protected:
  testing::FakeSink sink;
  int calls = 0;
  TimeNs now = 1000 * kNsPerSec;
  // The scheduling rules below are shown without the burst settle; it has
  // its own test.
  static PollerOptions NoSettle() {
    PollerOptions o;
    o.burst_settle = 0;
    // The scheduling rules in whole seconds (the default is 200 ms; the
    // rules do not depend on it).
    o.active_interval = 2 * kNsPerSec;
    return o;
  }
  AnalyzerFactory Scripted() {
    return [this](std::string_view) { return std::make_unique<ScriptAnalyzer>(&calls); };
  }
  Poller poller{"host", "I", NoSettle(), Scripted(), sink};

  static std::vector<PolledPane> Panes(std::vector<std::string> ids, int64_t pid = 50) {
    std::vector<PolledPane> v;
    for (auto& id : ids) {
      PolledPane p;
      p.pane_id = id;
      p.agent_type = "claude";
      p.agent_pid = pid;
      p.rows = 5;
      p.cols = 20;
      v.push_back(p);
    }
    return v;
  }
  void Watch(std::vector<std::string> ids, int64_t pid = 50) { poller.SetPanes(Panes(ids, pid), now); }
  std::vector<State> States() {
    std::vector<State> r;
    for (auto& e : sink.OfType("state_changed")) r.push_back(e.signal->state);
    return r;
  }
};

TEST_F(PollerTest, NewPaneCapturedOnceThenOnlyWhenMarked) {
  Watch({"%1", "%2"});
  auto due = poller.TakeDueCaptures(now);
  EXPECT_EQ(due, (std::vector<std::string>{"%1", "%2"}));
  EXPECT_TRUE(poller.TakeDueCaptures(now).empty());  // in flight
  poller.OnCapture("%1", "hello\nstate:running\n\n", now);
  poller.OnCapture("%2", "state:idle", now);
  // Unchanged panes are never captured, however long we wait.
  for (int i = 0; i < 100; ++i) {
    now += kNsPerSec;
    poller.Tick(now);
    EXPECT_TRUE(poller.TakeDueCaptures(now).empty());
  }
  EXPECT_EQ(poller.captures(), 2);
  EXPECT_EQ(poller.NextDeadline(), 0);
  poller.MarkChanged("%2", now);
  EXPECT_EQ(poller.TakeDueCaptures(now), (std::vector<std::string>{"%2"}));
  EXPECT_EQ(poller.captures(), 3);
}

// A redraw arrives in pieces (clear, then the frame): the capture waits
// burst_settle after the first mark, and later marks do not push it back.
TEST_F(PollerTest, ARedrawIsCapturedAfterTheBurstSettles) {
  Poller p{"host", "I", PollerOptions{}, Scripted(), sink};
  p.SetPanes(Panes({"%1"}), now);
  ASSERT_EQ(p.TakeDueCaptures(now).size(), 1u);  // a new pane: at once
  p.OnCapture("%1", "state:idle", now);
  now += 10 * kNsPerSec;
  const TimeNs settle = PollerOptions{}.burst_settle;
  ASSERT_GT(settle, 0);
  p.MarkChanged("%1", now);
  EXPECT_EQ(p.NextDeadline(), now + settle);
  EXPECT_TRUE(p.TakeDueCaptures(now).empty());
  p.MarkChanged("%1", now + settle / 2);
  EXPECT_EQ(p.NextDeadline(), now + settle);
  EXPECT_TRUE(p.TakeDueCaptures(now + settle - 1).empty());
  ASSERT_EQ(p.TakeDueCaptures(now + settle).size(), 1u);
  // Within the interval, the interval still decides.
  p.OnCapture("%1", "state:waiting_input", now + settle);
  p.MarkChanged("%1", now + settle + 1);
  EXPECT_EQ(p.NextDeadline(), now + settle + PollerOptions{}.active_interval);
}

TEST_F(PollerTest, SendsOnlyChangedVerdicts) {
  Watch({"%1"});
  (void)poller.TakeDueCaptures(now);
  poller.OnCapture("%1", "state:running", now);
  for (int i = 0; i < 3; ++i) {
    now += 3 * kNsPerSec;
    poller.MarkChanged("%1", now);
    ASSERT_EQ(poller.TakeDueCaptures(now).size(), 1u);
    poller.OnCapture("%1", "x" + std::to_string(i) + "\nstate:running", now);
  }
  now += 3 * kNsPerSec;
  poller.MarkChanged("%1", now);
  ASSERT_EQ(poller.TakeDueCaptures(now).size(), 1u);
  poller.OnCapture("%1", "state:waiting_input", now);
  EXPECT_EQ(States(), (std::vector<State>{State::kRunning, State::kWaitingInput}));
  auto ev = sink.OfType("state_changed");
  EXPECT_EQ(ev[0].source, core::Source::kPoller);
  EXPECT_EQ(ev[0].target_id, "host");
  EXPECT_EQ(ev[0].pane_id, "%1");
  EXPECT_EQ(ev[0].pid, 50);
  EXPECT_EQ(ev[0].signal->rule_id, "r.running");
  EXPECT_NE(ev[0].dedupe_key, ev[1].dedupe_key);
  EXPECT_EQ(ev[1].event_time, now);
}

TEST_F(PollerTest, IdleBackoffDoublesAndResetsOnChange) {
  Watch({"%1"});
  (void)poller.TakeDueCaptures(now);
  poller.OnCapture("%1", "same", now);
  TimeNs last = now;
  // Marked but unchanged captures: spacing 2 s, 4, 8, 16, 30, 30.
  std::vector<TimeNs> expect = {2, 4, 8, 16, 30, 30};
  for (TimeNs gap : expect) {
    poller.MarkChanged("%1", now);
    EXPECT_EQ(poller.NextDeadline(), last + gap * kNsPerSec);
    now = last + gap * kNsPerSec - 1;
    EXPECT_TRUE(poller.TakeDueCaptures(now).empty());
    now += 1;
    ASSERT_EQ(poller.TakeDueCaptures(now).size(), 1u);
    poller.OnCapture("%1", "same", now);
    last = now;
  }
  poller.MarkChanged("%1", now);
  now += 30 * kNsPerSec;
  ASSERT_EQ(poller.TakeDueCaptures(now).size(), 1u);
  poller.OnCapture("%1", "different", now);
  poller.MarkChanged("%1", now);
  EXPECT_EQ(poller.NextDeadline(), now + 2 * kNsPerSec);
}

TEST_F(PollerTest, RecheckReanalysesWithoutCapturing) {
  Watch({"%1"});
  (void)poller.TakeDueCaptures(now);
  poller.OnCapture("%1", "settle", now);
  EXPECT_EQ(poller.NextDeadline(), now + kNsPerSec);
  now += kNsPerSec;
  poller.Tick(now);
  EXPECT_EQ(States(), (std::vector<State>{State::kRunning, State::kWaitingApproval}));
  EXPECT_EQ(poller.captures(), 1);
  EXPECT_EQ(poller.NextDeadline(), 0);
}

TEST_F(PollerTest, SilentWhileTheWrapperOwnsThePane) {
  const TimeNs again = NoSettle().owned_recheck;
  Watch({"%1"});
  sink.owner["host/%1"] = PaneOwner::kWrapper;
  EXPECT_TRUE(poller.TakeDueCaptures(now).empty());
  // Asked again after owned_recheck, not at every turn of the loop.
  EXPECT_EQ(poller.NextDeadline(), now + again);
  sink.owner.clear();
  EXPECT_TRUE(poller.TakeDueCaptures(now + again - 1).empty());
  now += again;
  ASSERT_EQ(poller.TakeDueCaptures(now).size(), 1u);
  poller.OnCapture("%1", "state:running", now);
  sink.owner["host/%1"] = PaneOwner::kWrapper;
  now += 3 * kNsPerSec;
  poller.MarkChanged("%1", now);
  EXPECT_TRUE(poller.TakeDueCaptures(now).empty());
  sink.owner.clear();
  now += again;
  ASSERT_EQ(poller.TakeDueCaptures(now).size(), 1u);
  poller.OnCapture("%1", "state:running", now);  // same verdict, but re-sent after ownership
  EXPECT_EQ(States(), (std::vector<State>{State::kRunning, State::kRunning}));
}

// Issue 14: a deadline that nothing acts on when it comes makes the
// collector's timer fire again at once, forever. A recheck that falls due
// while the pane's capture is in flight waits for the capture.
TEST_F(PollerTest, NoDeadlineThatNothingActsOn) {
  Watch({"%1"});
  (void)poller.TakeDueCaptures(now);
  poller.OnCapture("%1", "settle", now);
  ASSERT_EQ(poller.NextDeadline(), now + kNsPerSec);
  poller.MarkChanged("%1", now);
  now += 2 * kNsPerSec;
  ASSERT_EQ(poller.TakeDueCaptures(now).size(), 1u);  // in flight; its recheck is past
  EXPECT_EQ(poller.NextDeadline(), 0);
  poller.Tick(now);
  EXPECT_EQ(poller.NextDeadline(), 0);
  poller.CaptureFailed("%1");
  EXPECT_EQ(poller.NextDeadline(), now - kNsPerSec);  // the recheck, now that nothing is in flight
  poller.Tick(now);
  // The capture is tried again one interval after the failed one.
  EXPECT_EQ(poller.NextDeadline(), now + 2 * kNsPerSec);
}

// While the hooks own the lifecycle (their fresh running/completed), the
// poller still captures and reports what no hook reports: a dialog (Claude
// Code's auto-mode notice and No/Yes dialog), and after it every change up
// to a readable verdict that is no wait (the dialog went, and what
// followed). Work and rest it leaves to the hooks.
TEST_F(PollerTest, UnderTheHooksItReportsDialogsAndWhatEndsThem) {
  sink.owner["host/%1"] = PaneOwner::kHooks;
  Watch({"%1"});
  auto capture = [&](const char* text) {
    now += 3 * kNsPerSec;
    poller.MarkChanged("%1", now);
    ASSERT_EQ(poller.TakeDueCaptures(now).size(), 1u) << text;
    poller.OnCapture("%1", text, now);
  };
  capture("state:running");  // the hooks say so already
  capture("state:idle");     // a prompt between tool calls: the hooks' to say
  EXPECT_TRUE(States().empty());
  capture("state:waiting_approval");  // auto mode's notice
  capture("1\nstate:waiting_approval");  // its dialog: same verdict, not sent again
  capture("nothing");                    // a redraw no rule reads: the dialog may still be there
  capture("state:idle");                 // denied: the turn is over
  capture("state:running");              // the hooks' again
  capture("state:completed");
  EXPECT_EQ(States(), (std::vector<State>{State::kWaitingApproval, State::kUnknown, State::kIdle}));
  // When the hooks stop owning, the next verdict is sent even if unchanged.
  sink.owner.clear();
  capture("state:completed");
  EXPECT_EQ(States().back(), State::kCompleted);
  EXPECT_EQ(States().size(), 4u);
}

TEST_F(PollerTest, AScreenNoRuleReadsIsKeptOnceAfterThreeSeconds) {
  Watch({"%1"});
  ASSERT_EQ(poller.TakeDueCaptures(now).size(), 1u);
  poller.OnCapture("%1", "something new\nnothing", now);
  EXPECT_TRUE(sink.kept.empty());
  EXPECT_EQ(poller.NextDeadline(), now + 3 * kNsPerSec) << "a quiet unreadable screen is judged too";
  now += 3 * kNsPerSec;
  poller.Tick(now);
  ASSERT_EQ(sink.kept.size(), 1u);
  const detect::KeptScreen& k = sink.kept[0];
  EXPECT_EQ(k.reason, "no_rule_matched");
  EXPECT_EQ(k.mode, "CAP");
  EXPECT_EQ(k.agent_type, "claude");
  EXPECT_EQ(k.target_id, "host");
  EXPECT_EQ(k.pane_id, "%1");
  EXPECT_EQ(k.state, State::kUnknown);
  EXPECT_EQ(k.screen.lines, (std::vector<std::string>{"something new", "nothing"}));
  EXPECT_FALSE(k.hook_state.has_value());
  now += 10 * kNsPerSec;
  poller.Tick(now);
  poller.MarkChanged("%1", now);
  ASSERT_EQ(poller.TakeDueCaptures(now).size(), 1u);
  poller.OnCapture("%1", "still\nnothing", now);
  now += 5 * kNsPerSec;
  poller.Tick(now);
  EXPECT_EQ(sink.kept.size(), 1u) << "once per spell";
}

TEST_F(PollerTest, AScreenThatContradictsTheHooksForThreeSecondsIsKept) {
  core::Signal wait;
  wait.state = State::kWaitingApproval;
  wait.rule_id = "claude.PermissionRequest";
  sink.hook["host/%1"] = wait;
  Watch({"%1"});
  ASSERT_EQ(poller.TakeDueCaptures(now).size(), 1u);
  // The hooks say a dialog waits; the screen (a dialog no rule reads, a
  // spinner left on) says running.
  poller.OnCapture("%1", "state:running", now);
  now += 2 * kNsPerSec;
  poller.Tick(now);
  EXPECT_TRUE(sink.kept.empty());
  now += kNsPerSec;
  poller.Tick(now);
  ASSERT_EQ(sink.kept.size(), 1u);
  EXPECT_EQ(sink.kept[0].reason, "contradicts_hook");
  EXPECT_EQ(sink.kept[0].state, State::kRunning);
  ASSERT_TRUE(sink.kept[0].hook_state.has_value());
  EXPECT_EQ(*sink.kept[0].hook_state, State::kWaitingApproval);
  EXPECT_EQ(sink.kept[0].hook_rule_id, "claude.PermissionRequest");
}

TEST_F(PollerTest, AgreementOrAShortDisagreementKeepsNothing) {
  core::Signal running;
  running.state = State::kRunning;
  sink.hook["host/%1"] = running;
  Watch({"%1"});
  ASSERT_EQ(poller.TakeDueCaptures(now).size(), 1u);
  poller.OnCapture("%1", "state:running", now);      // agrees
  now += 10 * kNsPerSec;
  poller.Tick(now);
  poller.MarkChanged("%1", now);
  ASSERT_EQ(poller.TakeDueCaptures(now).size(), 1u);
  poller.OnCapture("%1", "state:idle", now);         // disagrees...
  now += kNsPerSec;
  sink.hook["host/%1"].state = State::kCompleted;    // ...until the hooks catch up
  now += 3 * kNsPerSec;
  poller.Tick(now);
  EXPECT_TRUE(sink.kept.empty());
}

TEST_F(PollerTest, NewAgentPidStartsOverAndGonePanesAreForgotten) {
  Watch({"%1"});
  (void)poller.TakeDueCaptures(now);
  poller.OnCapture("%1", "state:running", now);
  Watch({"%1"}, 77);
  EXPECT_EQ(poller.TakeDueCaptures(now).size(), 1u);
  poller.OnCapture("%1", "state:running", now);
  EXPECT_EQ(States().size(), 2u);
  Watch({});
  EXPECT_FALSE(poller.Watching("%1"));
  poller.OnCapture("%1", "state:idle", now);  // late reply: ignored
  EXPECT_EQ(States().size(), 2u);
}

// Byte screens (docs/observe.md): the seed capture starts the screen, the
// pane's bytes move it, and a capture only checks it, at check_interval.
class BytePollerTest : public PollerTest {
 protected:
  static PollerOptions Bytes() {
    PollerOptions o = NoSettle();
    o.byte_screens = true;
    return o;
  }
  Poller bytes{"host", "B", Bytes(),
               [this](std::string_view) { return std::make_unique<ScriptAnalyzer>(&calls, false); }, sink};
  static PaneSeed Seed(std::string text, int cursor_x = 0) {
    PaneSeed s;
    s.cursor_x = cursor_x;
    s.width = 40;
    s.height = 5;
    s.text = std::move(text);
    return s;
  }
  void Start() {
    bytes.SetPanes(Panes({"%1"}), now);
    bytes.SetBytePanes({"%1"}, now);
    auto due = bytes.TakeDueCaptures(now);
    ASSERT_EQ(due, std::vector<std::string>{"%1"});
    ASSERT_TRUE(bytes.WantsSeed("%1"));
    bytes.OnSeed("%1", Seed("state:idle"), now);
  }
  void Output(std::string_view b) {
    bytes.OnOutput("%1", b, now);
    now += 30 * core::kNsPerMs;  // the analysis delay
    bytes.Tick(now);
  }
};

TEST_F(BytePollerTest, BytesAreReadWithoutACaptureAndChecksAreSpaced) {
  Start();
  EXPECT_EQ(States(), (std::vector<State>{State::kIdle}));
  EXPECT_EQ(bytes.seeds(), 1);
  Output("\x1b[H\x1b[2Jstate:waiting_approval");
  EXPECT_EQ(States(), (std::vector<State>{State::kIdle, State::kWaitingApproval}));
  EXPECT_EQ(bytes.captures(), 1);  // the seed only
  EXPECT_TRUE(bytes.TakeDueCaptures(now).empty());
  // The check comes at check_interval; one that agrees doubles the interval.
  now += Bytes().check_interval;
  ASSERT_EQ(bytes.TakeDueCaptures(now).size(), 1u);
  bytes.OnSeed("%1", Seed("state:waiting_approval", 22), now);  // text and cursor agree
  EXPECT_EQ(bytes.resyncs(), 0);
  Output("x");
  now += Bytes().check_interval;
  EXPECT_TRUE(bytes.TakeDueCaptures(now).empty());
  now += Bytes().check_interval;
  ASSERT_EQ(bytes.TakeDueCaptures(now).size(), 1u);
  // A check that finds another screen replaces it, and its verdict counts.
  bytes.OnSeed("%1", Seed("state:running"), now);
  EXPECT_EQ(bytes.resyncs(), 1);
  EXPECT_EQ(States().back(), State::kRunning);
}

TEST_F(BytePollerTest, TheOwnersRulesHoldForBytes) {
  Start();
  // The hooks own the lifecycle: work read from the bytes is theirs to
  // report, a dialog is not.
  sink.owner["host/%1"] = PaneOwner::kHooks;
  Output("\x1b[H\x1b[2Jstate:running");
  EXPECT_EQ(States(), (std::vector<State>{State::kIdle}));
  Output("\x1b[H\x1b[2Jstate:waiting_approval");
  EXPECT_EQ(States().back(), State::kWaitingApproval);
  // The wrapper reads the pane itself: nothing is reported, the screen is
  // dropped, and seeded again once the wrapper is gone.
  sink.owner["host/%1"] = PaneOwner::kWrapper;
  const size_t n = States().size();
  Output("\x1b[H\x1b[2Jstate:idle");
  EXPECT_EQ(States().size(), n);
  EXPECT_FALSE(bytes.ByteFed("%1"));
  sink.owner.clear();
  now += Bytes().owned_recheck;
  ASSERT_EQ(bytes.TakeDueCaptures(now).size(), 1u);
  bytes.OnSeed("%1", Seed("state:idle"), now);
  EXPECT_EQ(States().back(), State::kIdle);
  EXPECT_EQ(bytes.seeds(), 2);
}

TEST_F(BytePollerTest, APaneWhoseBytesStopReachingUsIsCapturedAsBefore) {
  Start();
  bytes.SetBytePanes({}, now);
  EXPECT_FALSE(bytes.ByteFed("%1"));
  EXPECT_FALSE(bytes.WantsSeed("%1"));
  bytes.OnOutput("%1", "state:running", now);  // a mark only
  now += 2 * kNsPerSec;
  EXPECT_EQ(bytes.TakeDueCaptures(now).size(), 1u);
}

// tmux paused the pane again while the seed for its first pause was on
// its way: that seed was taken before the second loss, so another is due
// at once, not at the next check (the collector test that floods a pane
// waited a whole check_interval here).
TEST_F(BytePollerTest, ALossDuringASeedAsksForAnotherSeed) {
  Start();
  bytes.Resync("%1", now);
  ASSERT_EQ(bytes.TakeDueCaptures(now).size(), 1u);
  bytes.Resync("%1", now);  // the second pause, before the reply
  EXPECT_TRUE(bytes.TakeDueCaptures(now).empty()) << "one seed at a time";
  bytes.OnSeed("%1", Seed("state:running"), now);
  EXPECT_EQ(bytes.TakeDueCaptures(now).size(), 1u) << "the second loss was forgotten";
  bytes.OnSeed("%1", Seed("state:waiting_approval"), now);
  EXPECT_TRUE(bytes.TakeDueCaptures(now).empty());
  EXPECT_EQ(States().back(), State::kWaitingApproval);
}

// A forced seed that failed (the connection dropped it) is still forced.
TEST_F(BytePollerTest, AFailedResyncIsRetriedAtOnce) {
  Start();
  bytes.Resync("%1", now);
  ASSERT_EQ(bytes.TakeDueCaptures(now).size(), 1u);
  bytes.CaptureFailed("%1");
  EXPECT_EQ(bytes.TakeDueCaptures(now).size(), 1u);
}

TEST(VerdictChanged, EvidenceAloneDoesNotCount) {
  core::Signal a, b;
  a.state = b.state = State::kRunning;
  a.evidence = "12s";
  b.evidence = "13s";
  EXPECT_FALSE(VerdictChanged(a, b));
  b.detail.choices = {"Yes"};
  EXPECT_TRUE(VerdictChanged(a, b));
}

}  // namespace
}  // namespace agt::agg
