// ActivityAnalyzer and ScreenPipeline timing: running while output flows,
// idle once it stops, echo of typing is not work, never a waiting state.
#include "wrap/activity_analyzer.h"

#include <gtest/gtest.h>

#include "libagtcore/screen/screen_pipeline.h"

namespace agt::wrap {
namespace {

constexpr core::TimeNs kMs = core::kNsPerMs;

detect::Verdict Analyze(ActivityAnalyzer& a, core::TimeNs now, core::TimeNs out,
                    core::TimeNs in) {
  detect::AnalyzerInput i;
  i.now = now;
  i.last_output = out;
  i.last_input = in;
  return a.Analyze(i);
}

TEST(ActivityAnalyzer, NoOutputIsUnknown) {
  ActivityAnalyzer a;
  auto v = Analyze(a, 1000 * kMs, 0, 0);
  EXPECT_EQ(v.signal.state, core::State::kUnknown);
  EXPECT_EQ(v.signal.reason_code, "no_output");
  EXPECT_EQ(v.recheck_at, 0);
}

TEST(ActivityAnalyzer, RunningWhileOutputFlowsThenIdle) {
  ActivityAnalyzer a;
  auto v = Analyze(a, 1050 * kMs, 1000 * kMs, 0);
  EXPECT_EQ(v.signal.state, core::State::kRunning);
  EXPECT_EQ(v.signal.confidence, core::Confidence::kLow);
  EXPECT_EQ(v.recheck_at, 1200 * kMs);
  v = Analyze(a, 1200 * kMs, 1000 * kMs, 0);
  EXPECT_EQ(v.signal.state, core::State::kIdle);
  EXPECT_EQ(v.signal.reason_code, "output_quiet");
  EXPECT_EQ(v.recheck_at, 0);
}

TEST(ActivityAnalyzer, EchoOfInputIsNotWork) {
  ActivityAnalyzer a;
  // Output 100 ms after a keystroke: echo.
  auto v = Analyze(a, 1150 * kMs, 1100 * kMs, 1000 * kMs);
  EXPECT_EQ(v.signal.state, core::State::kIdle);
  // Output still flowing 400 ms after it: the agent works.
  v = Analyze(a, 1450 * kMs, 1400 * kMs, 1000 * kMs);
  EXPECT_EQ(v.signal.state, core::State::kRunning);
}

TEST(ActivityAnalyzer, NeverClaimsWaiting) {
  ActivityAnalyzer a;
  detect::Screen screen;
  screen.lines = {"Do you want to proceed?", "\xe2\x9d\xaf 1. Yes", "  2. No"};
  detect::StreamSignals sig;
  sig.notification = "Approval needed";
  for (core::TimeNs t = 0; t < 2000 * kMs; t += 50 * kMs) {
    detect::AnalyzerInput in;
    in.screen = &screen;
    in.signals = &sig;
    in.now = t + 1;
    in.last_output = 1;
    auto v = a.Analyze(in);
    EXPECT_FALSE(core::NeedsAction(v.signal.state));
  }
}

TEST(ScreenPipeline, AnalysesOnceAfterABurstAndRechecksForIdle) {
  screen::ScreenPipelineOptions o;
  o.rows = 5;
  o.cols = 20;
  screen::ScreenPipeline p(o, std::make_unique<ActivityAnalyzer>());
  EXPECT_EQ(p.next_analysis(), 0);
  p.OnOutput("a", 1000 * kMs);
  p.OnOutput("b", 1010 * kMs);
  EXPECT_EQ(p.next_analysis(), 1030 * kMs);
  auto s = p.Analyze(1030 * kMs);
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->state, core::State::kRunning);
  EXPECT_EQ(p.next_analysis(), 1210 * kMs);
  s = p.Analyze(1210 * kMs);
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->state, core::State::kIdle);
  EXPECT_EQ(p.next_analysis(), 0);  // quiet: nothing scheduled
  EXPECT_EQ(p.Snapshot().lines[0], "ab");
}

TEST(ScreenPipeline, EvidenceChangeAloneIsNotReported) {
  screen::ScreenPipelineOptions o;
  screen::ScreenPipeline p(o, std::make_unique<ActivityAnalyzer>());
  p.OnOutput("\x1b]0;\xe2\xa0\x82 working\x07", 1000 * kMs);
  auto s = p.Analyze(1030 * kMs);
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->evidence, "title: \xe2\xa0\x82 working");
  p.OnOutput("\x1b]0;\xe2\xa0\x90 working\x07", 1100 * kMs);
  EXPECT_FALSE(p.Analyze(1130 * kMs).has_value());
}

}  // namespace
}  // namespace agt::wrap

namespace agt::wrap {
namespace {

TEST(ScreenPipeline, FloodShowsTheNewestLinesAndKeepsEverySignal) {
  screen::ScreenPipelineOptions o;
  o.rows = 5;
  o.cols = 40;
  screen::ScreenPipeline p(o, std::make_unique<ActivityAnalyzer>());
  std::string chunk;
  for (int i = 0; i < 200; ++i) chunk += "line " + std::to_string(i) + "\r\n";
  int bels = 0;
  for (int rep = 0; rep < 200; ++rep) {  // ~300 KB in one analysis window
    p.OnOutput(chunk, 1000 * kMs);
    p.OnOutput("\a", 1000 * kMs);
    ++bels;
  }
  p.OnOutput("\x1b]0;flood done\x07last line\r\n", 1001 * kMs);
  ASSERT_TRUE(p.Analyze(1031 * kMs).has_value());
  detect::Screen s = p.Snapshot();
  EXPECT_EQ(s.lines[2], "line 199");
  EXPECT_EQ(s.lines[3], "last line");
  EXPECT_EQ(p.scanner().signals().bel_count, bels);
  EXPECT_EQ(p.scanner().signals().title, "flood done");
  // Back to normal: small output is drawn as it comes.
  p.OnOutput("after\r\n", 2000 * kMs);
  (void)p.Analyze(2030 * kMs);
  EXPECT_EQ(p.Snapshot().lines[3], "after");
}

// The flood's tail is kept in a ring: reads of any size, wrapping it at any
// offset, must leave the same screen as the whole flood in one read.
TEST(ScreenPipeline, FloodTailIsTheSameWhateverTheReadSizes) {
  screen::ScreenPipelineOptions o;
  o.rows = 5;
  o.cols = 40;
  o.flood_tail = 100;
  std::string flood;
  for (int i = 0; i < 1000; ++i) flood += "line " + std::to_string(i) + " \xe2\x9c\x93\r\n";
  flood += "partial";
  screen::ScreenPipeline whole(o, std::make_unique<ActivityAnalyzer>());
  whole.OnOutput(flood, 1000 * kMs);
  (void)whole.Analyze(1030 * kMs);
  const std::vector<std::string> want = whole.Snapshot().lines;
  EXPECT_EQ(want[4], "partial");
  for (size_t step : {1u, 7u, 99u, 100u, 101u, 250u}) {
    screen::ScreenPipeline p(o, std::make_unique<ActivityAnalyzer>());
    for (size_t i = 0; i < flood.size(); i += step)
      p.OnOutput(std::string_view(flood).substr(i, step), 1000 * kMs);
    (void)p.Analyze(1030 * kMs);
    SCOPED_TRACE("reads of " + std::to_string(step));
    EXPECT_EQ(p.Snapshot().lines, want);
  }
}

}  // namespace
}  // namespace agt::wrap
