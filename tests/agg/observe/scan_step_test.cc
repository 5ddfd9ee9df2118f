// The collectors' shared step (ScanStep) with a fake sink, canned /proc
// files and hand-moved time: what one read of the panes reports, what it
// leaves alone, a server that stops, the activity marks, and where the
// collectors' hooks run.
#include "aggregator/observe/scan_step.h"

#include <gtest/gtest.h>

#include "tests/agg/observe/fake_sink.h"

namespace agt::agg {
namespace {

using core::kNsPerSec;
using testing::FakeSink;

PaneRecord Record(std::string pane_id, int64_t pid, std::string command, TimeNs activity_at = 0) {
  PaneRecord r;
  r.server_pid = 42;
  r.info.session_id = "$1";
  r.info.session_name = "work";
  r.info.window_id = "@1";
  r.info.pane_id = std::move(pane_id);
  r.info.pid = pid;
  r.info.current_command = std::move(command);
  r.info.width = 80;
  r.info.height = 24;
  r.info.activity_at = activity_at;
  return r;
}

/// Says "running" for any screen.
class RunningAnalyzer final : public detect::Analyzer {
 public:
  detect::Verdict Analyze(const detect::AnalyzerInput&) override {
    detect::Verdict v;
    v.signal.state = core::State::kRunning;
    v.signal.rule_id = "test.running";
    v.signal.confidence = core::Confidence::kHigh;
    return v;
  }
};

class ScanStepTest : public ::testing::Test {
 protected:
  FakeSink sink;
  core::MemoryFileReader files;  // no /proc entries: agents are known by their command
  TimeNs now = 1000 * kNsPerSec;
  ScanStep step{"host", "/tmp/agtmux-test.sock", "I1", Options(),
                [](std::string_view) { return std::make_unique<RunningAnalyzer>(); }, sink};

  static PollerOptions Options() {
    PollerOptions o;
    o.burst_settle = 0;  // a marked pane is due at once (its own rule, tested in poller_test)
    return o;
  }
  std::vector<std::string> Events() const {
    std::vector<std::string> r;
    for (const auto& e : sink.events) r.push_back(e.event_type + " " + e.pane_id);
    return r;
  }
};

TEST_F(ScanStepTest, AReadPublishesTheTopologyStartsRuntimesAndGivesThePollerTheAgentPanes) {
  step.Apply({Record("%1", 100, "claude"), Record("%2", 200, "bash")}, files, now);

  ASSERT_EQ(sink.topologies.size(), 1u);
  const Topology& t = sink.topologies[0];
  EXPECT_EQ(t.target_id, "host");
  EXPECT_EQ(t.socket_path, "/tmp/agtmux-test.sock");
  EXPECT_TRUE(t.server_running);
  EXPECT_FALSE(t.boot_id.empty());
  ASSERT_EQ(t.panes.size(), 2u);
  EXPECT_EQ(t.panes[0].agent_type, "claude");
  EXPECT_EQ(t.panes[0].target_id, "host");
  EXPECT_EQ(t.panes[1].agent_type, "");
  EXPECT_EQ(step.topology(), t);
  EXPECT_TRUE(step.published());

  ASSERT_EQ(Events(), (std::vector<std::string>{"runtime_observed %1"}));
  EXPECT_EQ(sink.events[0].target_id, "host");
  EXPECT_EQ(sink.events[0].event_time, now);
  EXPECT_TRUE(step.poller().Watching("%1"));
  EXPECT_FALSE(step.poller().Watching("%2"));
  // A new agent pane is captured once at the start.
  EXPECT_EQ(step.poller().TakeDueCaptures(now), (std::vector<std::string>{"%1"}));
}

TEST_F(ScanStepTest, TheSameReadAgainPublishesNothingAndSendsNoEvent) {
  step.Apply({Record("%1", 100, "claude")}, files, now);
  step.Apply({Record("%1", 100, "claude")}, files, now + kNsPerSec);
  EXPECT_EQ(sink.topologies.size(), 1u);
  EXPECT_EQ(sink.events.size(), 1u);
}

TEST_F(ScanStepTest, APaneThatGoesEndsItsRuntimeLeavesThePollerAndIsPublished) {
  step.Apply({Record("%1", 100, "claude"), Record("%2", 200, "bash")}, files, now);
  step.Apply({Record("%2", 200, "bash")}, files, now + kNsPerSec);
  EXPECT_EQ(Events(), (std::vector<std::string>{"runtime_observed %1", "runtime_ended %1"}));
  EXPECT_FALSE(step.poller().Watching("%1"));
  ASSERT_EQ(sink.topologies.size(), 2u);
  EXPECT_EQ(sink.topologies[1].panes.size(), 1u);
}

TEST_F(ScanStepTest, AWrappedPaneIsPublishedButNeitherObservedNorPolled) {
  // The pane's foreground process is `agtmux wrap claude`: the wrapper
  // announces the runtime and reads the screen itself.
  files.files["/proc/300/stat"] = "300 (bash) S 1 300 300 34816 301 4194304 0 0 0 0 0 0 0 0 20 0 1 0 5000 0 0";
  files.files["/proc/301/stat"] = "301 (agtmux) S 300 301 300 34816 301 4194304 0 0 0 0 0 0 0 0 20 0 1 0 7000 0 0";
  files.files["/proc/301/comm"] = "agtmux\n";
  files.files["/proc/301/cmdline"] = std::string("agtmux\0wrap\0claude\0", 20);
  step.Apply({Record("%3", 300, "agtmux")}, files, now);
  ASSERT_EQ(sink.topologies.size(), 1u);
  ASSERT_EQ(sink.topologies[0].panes.size(), 1u);
  EXPECT_EQ(sink.topologies[0].panes[0].agent_type, "claude");
  EXPECT_TRUE(sink.events.empty());
  EXPECT_FALSE(step.poller().Watching("%3"));
}

TEST_F(ScanStepTest, AServerThatStopsEndsItsRuntimesEmptiesThePollerAndIsPublishedOnce) {
  step.Apply({Record("%1", 100, "claude")}, files, now);
  step.ApplyServerDown(now + kNsPerSec);
  step.ApplyServerDown(now + 2 * kNsPerSec);

  EXPECT_EQ(Events(), (std::vector<std::string>{"runtime_observed %1", "runtime_ended %1"}));
  EXPECT_FALSE(step.poller().Watching("%1"));
  ASSERT_EQ(sink.topologies.size(), 2u);
  const Topology& down = sink.topologies[1];
  EXPECT_FALSE(down.server_running);
  EXPECT_TRUE(down.panes.empty());
  EXPECT_TRUE(down.boot_id.empty());
  EXPECT_EQ(down.target_id, "host");
  EXPECT_EQ(down.socket_path, "/tmp/agtmux-test.sock");

  // What was learned about the old server is forgotten: the same pane on
  // the next server is a new runtime.
  step.Apply({Record("%1", 100, "claude")}, files, now + 3 * kNsPerSec);
  EXPECT_EQ(Events(),
            (std::vector<std::string>{"runtime_observed %1", "runtime_ended %1", "runtime_observed %1"}));
  EXPECT_TRUE(step.poller().Watching("%1"));
}

TEST_F(ScanStepTest, AServerBackUnderTheSamePidHasItsBootIdReadAgain) {
  // The first server's /proc entry could not be read: its boot id is the
  // pid alone. The next server has the same pid, and now its start time.
  step.Apply({Record("%1", 100, "claude")}, files, now);
  ASSERT_EQ(sink.topologies.size(), 1u);
  EXPECT_EQ(sink.topologies[0].boot_id, "42-0");
  step.ApplyServerDown(now + kNsPerSec);
  files.files["/proc/42/stat"] = "42 (tmux: server) S 1 42 42 0 -1 4194560 0 0 0 0 0 0 0 0 20 0 1 0 7000 0 0";
  step.Apply({Record("%1", 100, "claude")}, files, now + 2 * kNsPerSec);
  ASSERT_EQ(sink.topologies.size(), 3u);
  EXPECT_EQ(sink.topologies[2].boot_id, "42-7000");
  ASSERT_EQ(sink.events.size(), 3u);
  ASSERT_TRUE(sink.events[2].runtime.has_value());
  EXPECT_EQ(sink.events[2].runtime->boot_id, "42-7000");
}

TEST_F(ScanStepTest, AServerDownBeforeAnyReadIsPublished) {
  step.ApplyServerDown(now);
  ASSERT_EQ(sink.topologies.size(), 1u);
  EXPECT_FALSE(sink.topologies[0].server_running);
  EXPECT_TRUE(step.published());
  EXPECT_TRUE(sink.events.empty());
}

TEST_F(ScanStepTest, WindowActivityMarksAWatchedPaneForCaptureUnlessItIsHeard) {
  const TimeNs activity = 500 * kNsPerSec;
  step.Apply({Record("%1", 100, "claude", activity)}, files, now);
  ASSERT_EQ(step.poller().TakeDueCaptures(now), (std::vector<std::string>{"%1"}));
  step.poller().OnCapture("%1", "screen", now);

  // Activity unchanged and older than the capture: nothing to capture.
  step.Apply({Record("%1", 100, "claude", activity)}, files, now + kNsPerSec);
  EXPECT_TRUE(step.poller().TakeDueCaptures(now + 2 * kNsPerSec).empty());

  // Activity advanced, but the collector hears the pane's every change.
  ScanStep::Hooks heard;
  heard.heard = [](const PaneScanner::Result&) { return std::set<std::string>{"%1"}; };
  step.Apply({Record("%1", 100, "claude", now + 2 * kNsPerSec)}, files, now + 3 * kNsPerSec, heard);
  EXPECT_TRUE(step.poller().TakeDueCaptures(now + 4 * kNsPerSec).empty());

  // Activity advanced and nobody heard it: the pane is captured.
  step.Apply({Record("%1", 100, "claude", now + 5 * kNsPerSec)}, files, now + 6 * kNsPerSec);
  EXPECT_EQ(step.poller().TakeDueCaptures(now + 7 * kNsPerSec), (std::vector<std::string>{"%1"}));
}

TEST_F(ScanStepTest, TheHooksRunAfterThePollerHasThePanesAndBeforeThePublish) {
  std::vector<std::string> seen;
  ScanStep::Hooks hooks;
  hooks.heard = [&](const PaneScanner::Result& scan) {
    seen.push_back("heard: " + std::to_string(scan.polled.size()) + " polled, watching " +
                   (step.poller().Watching("%1") ? "yes" : "no") + ", " +
                   std::to_string(sink.topologies.size()) + " published");
    return std::set<std::string>();
  };
  hooks.before_publish = [&] {
    // As the ssh collector does: a capture handed over here is analysed
    // with the scan's panes, and its verdict goes out before the topology.
    seen.push_back("before_publish: marked " +
                   std::string(step.poller().NextDeadline() != 0 ? "yes" : "no") + ", " +
                   std::to_string(sink.topologies.size()) + " published");
    step.poller().OnCapture("%1", "screen", now);
  };
  step.Apply({Record("%1", 100, "claude")}, files, now, hooks);
  EXPECT_EQ(seen, (std::vector<std::string>{"heard: 1 polled, watching yes, 0 published",
                                            "before_publish: marked yes, 0 published"}));
  EXPECT_EQ(sink.calls, (std::vector<std::string>{"runtime_observed", "state_changed", "topology"}));

  // The server-down path runs before_publish too, after the poller emptied.
  seen.clear();
  ScanStep::Hooks down;
  down.before_publish = [&] {
    seen.push_back(std::string("before_publish: watching ") + (step.poller().Watching("%1") ? "yes" : "no") +
                   ", " + std::to_string(sink.topologies.size()) + " published");
  };
  step.ApplyServerDown(now + kNsPerSec, down);
  EXPECT_EQ(seen, (std::vector<std::string>{"before_publish: watching no, 1 published"}));
  EXPECT_EQ(sink.calls.back(), "topology");
}

}  // namespace
}  // namespace agt::agg
