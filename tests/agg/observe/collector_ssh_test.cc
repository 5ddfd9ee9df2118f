// The ssh collector: its parsers and remote scripts (run here through a
// local shell), then the whole collector against a real sshd on 127.0.0.1
// and a private tmux server reached through it: topology, agent
// identification from the remote /proc snapshot, CAP state from a replayed
// Claude Code approval, an unreachable host reported down, and the control
// clients over ssh: a pane change scanned because of its %output, a killed
// client falling back to the timer and coming back.
#include "aggregator/observe/collector_ssh.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <fstream>

#include "aggregator/observe/pane_agent.h"
#include "libagtcore/detect/pattern_analyzer.h"
#include "libagtcore/os/file_reader.h"
#include "libagtcore/base/text.h"
#include "tests/agg/observe/fake_sink.h"
#include "tests/agg/observe/tmux_fixture.h"
#include "tests/agg/targets/sshd_fixture.h"

namespace agt::agg {
namespace {

using testing::FakeSink;
using testing::Loop;
using testing::PrivateTmux;
using testing::Sshd;
using testing::TempDir;

TEST(ParseSshTarget, FormsAndErrors) {
  auto a = ParseSshTarget("dev@vm1.example:2222");
  ASSERT_TRUE(a.ok()) << a.error().ToString();
  EXPECT_EQ(a->user, "dev");
  EXPECT_EQ(a->host, "vm1.example");
  EXPECT_EQ(a->port, 2222);
  auto b = ParseSshTarget("vm1");
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->user, "");
  EXPECT_EQ(b->port, 0);  // not given: ~/.ssh/config's Port, else 22
  auto v6 = ParseSshTarget("me@[::1]:2200");
  ASSERT_TRUE(v6.ok());
  EXPECT_EQ(v6->host, "::1");
  EXPECT_EQ(v6->port, 2200);
  for (const char* bad : {"", "@host", "dev@", "host:", "host:0", "host:99999", "host:22x", "[::1", "[::1]x",
                          "a host"}) {
    auto r = ParseSshTarget(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.error().code, core::Err::kTargetInvalid) << bad;
    EXPECT_NE(r.error().message.find(std::string("'") + bad + "'"), std::string::npos) << r.error().message;
  }
}

TEST(RemoteScripts, TheProcSnapshotReadsWhatIdentificationReads) {
  // Run through a local shell on a real pane: the snapshot must hold the
  // same files as /proc for the pane's process and for its terminal's
  // foreground process (found through stat's tpgid), and identification
  // on the snapshot must agree with identification on /proc.
  TempDir dir;
  PrivateTmux tmux(dir.path());
  tmux.Must({"new-session", "-d", "-s", "w", "sleep 60"});
  const int64_t pane_pid = std::stoll(tmux.Must({"display-message", "-p", "-t", "w", "#{pane_pid}"}));
  // Until it execs the command, the pane's process is tmux's fork ("tmux:
  // server"): wait for `sleep`, so the snapshot and the reads below see the
  // same program.
  core::RealFileReader real;
  const std::string pane_comm = "/proc/" + std::to_string(pane_pid) + "/comm";
  std::string comm;
  for (int i = 0; i < 500 && comm != "sleep\n"; ++i) {
    if (i > 0) usleep(10 * 1000);
    auto c = real.Read(pane_comm);
    comm = c.ok() ? *c : "";
  }
  ASSERT_EQ(comm, "sleep\n");
  LocalExecutor ex;
  auto r = ex.Run({"sh", "-c", ProcSnapshotScript({pane_pid, 999999999})}, {});
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->exit_code, 0) << r->err;
  auto files = ParseProcSnapshot(r->out);
  ASSERT_TRUE(files.ok()) << files.error().ToString();
  auto fg = ForegroundPgid(pane_pid, real);
  ASSERT_TRUE(fg.ok());
  const std::string base = "/proc/" + std::to_string(*fg);
  for (const char* f : {"/comm", "/cmdline"}) {
    ASSERT_EQ(files->count(base + f), 1u) << base + f;
    EXPECT_EQ(files->at(base + f), *real.Read(base + f)) << f;  // NULs and all
  }
  EXPECT_TRUE(files->count("/proc/stat"));
  EXPECT_FALSE(files->count("/proc/999999999/stat"));  // gone: simply absent
  core::MemoryFileReader snapshot;
  snapshot.files = *files;
  auto a = ForegroundProcess(pane_pid, real);
  auto b = ForegroundProcess(pane_pid, snapshot);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->pid, b->pid);
  EXPECT_EQ(a->comm, b->comm);
  EXPECT_EQ(a->argv, b->argv);
  EXPECT_EQ(a->started_at, b->started_at);
  EXPECT_FALSE(ParseProcSnapshot("==/proc/1/comm\nnot base64!\n").ok());
}

TEST(RemoteScripts, CapturesAreFramedPerPaneAndFailuresLeftOut) {
  TempDir dir;
  PrivateTmux tmux(dir.path());
  // The pane prints a line that looks like a frame for another pane: without
  // the scan's nonce it is just text.
  tmux.Must({"new-session", "-d", "-s", "w", "-x", "80", "-y", "10",
             "echo hello; echo '==agtmux-capture-guess %9 0'; sleep 60"});
  std::string pane = tmux.Must({"display-message", "-p", "-t", "w", "#{pane_id}"});
  Loop loop;
  ASSERT_TRUE(loop.RunUntil(
      [&] { return tmux.Run({"capture-pane", "-p", "-t", pane}).out.find("%9 0") != std::string::npos; }));
  LocalExecutor ex;
  auto r = ex.Run({"sh", "-c", CaptureScript({"tmux", "-S", tmux.socket()}, {pane, "%4242"}, "n0nce")}, {});
  ASSERT_TRUE(r.ok());
  auto caps = ParseCaptures(r->out, "n0nce");
  ASSERT_EQ(caps.size(), 1u) << r->out;
  ASSERT_EQ(caps.count(pane), 1u) << r->out;
  EXPECT_EQ(caps[pane].rfind("hello\n==agtmux-capture-guess %9 0\n", 0), 0u) << caps[pane];
  EXPECT_EQ(caps.count("%4242"), 0u);  // no such pane: absent, not empty
}

class SshCollectorTest : public ::testing::Test {
 protected:
  void SetUp() override { unsetenv("TMUX"); }
  void Start(SshOptions ssh, bool control = false, int control_retry_ms = 1500) {
    SshCollectorOptions o;
    if (control) {
      o.control = ssh;
      o.safety_interval = 3600 * core::kNsPerSec;  // no safety scan during a test
      o.control_retry = control_retry_ms * core::kNsPerMs;
    }
    o.target_id = "vm";
    o.socket_path = tmux.socket();
    o.scan_interval = 300 * core::kNsPerMs;
    o.poller.active_interval = 300 * core::kNsPerMs;
    collector = std::make_unique<SshCollector>(loop.get(), o, std::make_unique<SshExecutor>(std::move(ssh)), sink,
                                               core::SystemClock::Get(),
                                               [](std::string_view agent) { return detect::CreateAnalyzer(agent); });
    collector->Start();
  }
  void TearDown() override {
    if (collector) collector->Stop();
    // Let a scan in flight finish and free itself: a loop closed with its
    // work request still queued aborts in libuv.
    for (int i = 0; i < 600 && collector && collector->scan_pending(); ++i) loop.RunFor(50);
    loop.RunFor(50);
    collector.reset();
  }

  TempDir dir;
  Sshd sshd{dir.path()};
  PrivateTmux tmux{dir.path()};
  Loop loop;
  FakeSink sink;
  std::unique_ptr<SshCollector> collector;
};

TEST_F(SshCollectorTest, ReplayedClaudeApprovalOverSshShowsAsCapState) {
  const std::string fx = testing::SourceDir() + "/../../fixtures/claude/2.1.197/shell_approved/snapshots.jsonl";
  const std::string replay = dir.path() + "/replay";
  std::filesystem::create_directories(replay);
  const int n = testing::PrepareReplay(fx, replay, "claude");
  ASSERT_GT(n, 3);
  const int approval = testing::FirstSnapshotWith(fx, "Do you want to proceed?");
  ASSERT_GE(approval, 0);
  tmux.Must({"new-session", "-d", "-s", "remote 開発🚀", "-x", "120", "-y", "40", replay + "/claude", replay,
             std::to_string(approval)});
  tmux.Must({"new-window", "-d", "-t", "remote 開発🚀"});  // a shell: not an agent
  Start(sshd.Options());

  ASSERT_TRUE(loop.RunUntil([&] {
    return !sink.topologies.empty() && sink.topologies.back().panes.size() == 2;
  }, 15000)) << "no topology over ssh";
  const Topology& t = sink.topologies.back();
  EXPECT_TRUE(t.server_running);
  EXPECT_EQ(t.target_id, "vm");
  EXPECT_FALSE(t.boot_id.empty());
  int agents = 0;
  for (const auto& p : t.panes) {
    EXPECT_EQ(p.session_name, "remote 開発🚀");
    if (!p.agent_type.empty()) {
      ++agents;
      EXPECT_EQ(p.agent_type, "claude");
      EXPECT_GT(p.agent_pid, 0);
    }
  }
  EXPECT_EQ(agents, 1);
  ASSERT_TRUE(loop.RunUntil([&] {
    for (const auto& e : sink.OfType("state_changed"))
      if (e.signal && e.signal->state == core::State::kWaitingApproval) return true;
    return false;
  }, 15000)) << "no waiting_approval over ssh";
  auto e = sink.OfType("state_changed").back();
  EXPECT_EQ(e.source, core::Source::kPoller);
  EXPECT_EQ(e.target_id, "vm");
  EXPECT_EQ(e.signal->detail.approval_type, "shell");
  ASSERT_EQ(sink.OfType("runtime_observed").size(), 1u);
  EXPECT_EQ(sink.OfType("runtime_observed")[0].runtime->agent_type, "claude");
  EXPECT_TRUE(sink.OfType("target_health_changed").empty());

  // The server goes away: the target is empty, its runtime ended.
  tmux.Kill();
  ASSERT_TRUE(loop.RunUntil([&] { return !sink.topologies.back().server_running; }, 15000));
  EXPECT_EQ(sink.OfType("runtime_ended").size(), 1u);
}

TEST_F(SshCollectorTest, AnUnreachableHostGoesDegradedThenDown) {
  SshOptions o = sshd.Options();
  o.port = testing::FreePort();  // nobody listens there
  o.retry_delays = {};
  Start(o);
  ASSERT_TRUE(loop.RunUntil([&] { return collector->scans() >= 5; }, 15000));
  // Degraded on the first failure, down on the third, then nothing new.
  auto health = sink.OfType("target_health_changed");
  ASSERT_EQ(health.size(), 2u);
  EXPECT_EQ(health[0].health, "degraded");
  EXPECT_EQ(health[1].health, "down");
  for (const auto& h : health) EXPECT_EQ(h.target_id, "vm");
  EXPECT_TRUE(sink.topologies.empty());
}

TEST_F(SshCollectorTest, AControlNotificationStartsTheScanThatReportsAPaneChange) {
  const std::string fx = testing::SourceDir() + "/../../fixtures/claude/2.1.197/shell_approved/snapshots.jsonl";
  const std::string d = dir.path() + "/replay";
  std::filesystem::create_directories(d);
  const int approval = testing::FirstSnapshotWith(fx, "Do you want to proceed?");
  ASSERT_GT(testing::PrepareReplay(fx, d, "claude"), approval);
  ASSERT_GT(approval, 0);
  const std::string pane = tmux.Must({"new-session", "-d", "-s", "agents", "-x", "120", "-y", "40", "-P", "-F",
                                      "#{pane_id}", d + "/claude", d, "0"});
  tmux.Must({"new-session", "-d", "-s", "other", "sh"});
  Start(sshd.Options(), /*control=*/true);
  ASSERT_TRUE(loop.RunUntil([&] { return collector->feed_up() && collector->notified_scans() >= 1; }, 15000))
      << "the control clients did not attach over ssh";
  ASSERT_TRUE(loop.RunUntil([&] { return collector->topology().panes.size() == 2; }, 15000));
  loop.RunFor(500);  // whatever the start asked for is done
  ASSERT_TRUE(collector->feed_up());

  auto approval_seen = [&](size_t from) {
    for (size_t i = from; i < sink.events.size(); ++i) {
      const auto& e = sink.events[i];
      if (e.event_type == "state_changed" && e.pane_id == pane && e.signal &&
          e.signal->state == core::State::kWaitingApproval)
        return true;
    }
    return false;
  };
  const int64_t timer_scans = collector->scans() - collector->notified_scans();
  const int64_t notified = collector->notified_scans();
  const size_t from = sink.events.size();
  ASSERT_FALSE(approval_seen(0));
  testing::ShowScreen(d, approval);
  // The timer waits an hour: only a scan a notification started can see it.
  ASSERT_TRUE(loop.RunUntil([&] { return approval_seen(from); }, 15000)) << "no waiting_approval";
  EXPECT_GT(collector->notified_scans(), notified);
  EXPECT_EQ(collector->scans() - collector->notified_scans(), timer_scans) << "a timer scan ran";
  EXPECT_TRUE(collector->feed_up());
}

TEST_F(SshCollectorTest, AKilledControlClientFallsBackToTheTimerAndComesBack) {
  tmux.Must({"new-session", "-d", "-s", "w", "sleep 600"});
  // The feed retries after 5 s: long enough for the timer's scans to be seen
  // while it is down. With 1.5 s, a scan over ssh that a loaded machine
  // made last longer than the gap (3 CI runs on 2026-11-29) left no room
  // for a timer scan before the feed was back.
  Start(sshd.Options(), /*control=*/true, /*control_retry_ms=*/5000);
  ASSERT_TRUE(loop.RunUntil([&] { return collector->feed_up() && collector->scans() >= 1; }, 15000));
  loop.RunFor(300);
  const int64_t timer_scans = collector->scans() - collector->notified_scans();

  // Kill the remote `tmux -C` client (the only client of this server).
  // list-clients shows a client once it is attached, which on a loaded
  // machine can be a little after the feed reported itself up.
  std::string clients;
  std::vector<pid_t> control;
  for (int i = 0; i < 100 && control.empty(); ++i) {
    if (i > 0) loop.RunFor(50);
    clients = tmux.Must({"list-clients", "-F", "#{client_pid} #{client_control_mode}"});
    for (std::string_view line : core::SplitLines(clients))
      if (line.size() >= 3 && line.substr(line.size() - 2) == " 1") control.push_back(pid_t(std::stol(std::string(line))));
  }
  ASSERT_EQ(control.size(), 1u) << clients;
  ASSERT_EQ(kill(control[0], SIGKILL), 0);
  ASSERT_TRUE(loop.RunUntil([&] { return !collector->feed_up(); }, 15000)) << "the feed did not notice";
  // Down: the timer scans again (every 300 ms here) until the feed is back.
  ASSERT_TRUE(loop.RunUntil([&] { return collector->scans() - collector->notified_scans() > timer_scans; }, 15000));
  const int64_t before = collector->notified_scans();
  ASSERT_TRUE(loop.RunUntil([&] { return collector->feed_up(); }, 15000)) << "the feed did not come back";
  // Its attach starts a scan.
  ASSERT_TRUE(loop.RunUntil([&] { return collector->notified_scans() > before; }, 15000));
  loop.RunFor(300);

  // Back up: a new window reaches the topology through a notification.
  const int64_t notified = collector->notified_scans();
  tmux.Must({"new-window", "-d", "-t", "w", "sleep 600"});
  ASSERT_TRUE(loop.RunUntil([&] { return collector->topology().panes.size() == 2; }, 15000));
  EXPECT_GT(collector->notified_scans(), notified);
}

}  // namespace
}  // namespace agt::agg
