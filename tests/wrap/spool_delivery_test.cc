// The wrapper's events reach the daemon exactly once and in order even when
// the daemon is not there yet: the real `agtmux wrap` runs a command with no
// listener on the socket; a stand-in listener (enough HTTP to accept
// POST /v1/events and record the bodies) starts late. A second test leaves
// the daemon away for good: every event waits in the spool, in order.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <mutex>
#include <thread>

#include "libagtcore/event_codec.h"
#include "libagtcore/net/spool.h"
#include "tests/wrap/stand_in_daemon.h"
#include "tests/wrap/test_support.h"

namespace agt::wrap {
namespace {

using testing::AgtmuxBin;
using testing::TempDir;
using testing::StandInDaemon;
using testing::WaitFor;

std::vector<std::string> Env(const TempDir& dir) {
  return {"HOME=" + dir.path(), "AGTMUX_SOCKET=" + dir.path() + "/agtmuxd.sock",
          "AGTMUX_STATE_DIR=" + dir.path() + "/state",
          "AGTMUX_CONFIG_DIR=" + dir.path() + "/config", "XDG_RUNTIME_DIR=" + dir.path()};
}

/// Checks the wrapper's event stream: one runtime, source_seq 1..n each once
/// and in order, started first, exited last with `code`.
void ExpectCompleteStream(const std::vector<core::Event>& events, int code) {
  ASSERT_GE(events.size(), 3u);
  EXPECT_EQ(events.front().event_type, "wrapper_started");
  EXPECT_EQ(events.back().event_type, "wrapper_exited");
  ASSERT_TRUE(events.back().exit.has_value());
  EXPECT_EQ(events.back().exit->code, code);
  int states = 0;
  for (size_t i = 0; i < events.size(); ++i) {
    const core::Event& e = events[i];
    EXPECT_EQ(e.source, core::Source::kWrapper);
    ASSERT_TRUE(e.source_seq.has_value());
    EXPECT_EQ(*e.source_seq, static_cast<int64_t>(i + 1)) << "event " << i << " out of order";
    EXPECT_EQ(e.runtime_id, events.front().runtime_id);
    EXPECT_EQ(e.target_id, "host");
    EXPECT_FALSE(e.dedupe_key.empty());
    if (e.event_type == "state_changed") {
      ++states;
      ASSERT_TRUE(e.signal.has_value());
    }
  }
  EXPECT_GE(states, 1);
  ASSERT_TRUE(events.front().runtime.has_value());
  EXPECT_EQ(events.front().runtime->agent_type, "sh");
  EXPECT_EQ(events.front().runtime->argv_hash.size(), 64u);
  EXPECT_TRUE(events.front().pid.has_value());
}

TEST(SpoolDelivery, DaemonStartingLateGetsEveryEventOnceInOrder) {
  TempDir dir;
  const std::string sock = dir.path() + "/agtmuxd.sock";
  // Output bursts separated by quiet spells: running, idle, running, idle...
  const pid_t pid = testing::Spawn(
      {AgtmuxBin(), "wrap", "--", "/bin/sh", "-c",
       "for i in 1 2 3 4 5 6; do printf 'burst %s\\n' $i; sleep 0.4; done; exit 3"},
      Env(dir), -1, ::open("/dev/null", O_WRONLY));
  // No daemon: the first events must land in the spool.
  ASSERT_TRUE(WaitFor(
      [&] {
        auto files = net::ListSpool(dir.path() + "/state/spool");
        return files.ok() && !files->empty();
      },
      5000))
      << "no spool file appeared while the daemon was away";
  StandInDaemon daemon(sock);
  const int status = testing::WaitExit(pid, 15000);
  ASSERT_NE(status, -1) << "the wrapper did not exit";
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 3);
  std::vector<core::Event> events = daemon.events();
  ExpectCompleteStream(events, 3);
  EXPECT_GE(daemon.bodies().size(), 2u);
  auto left = net::ListSpool(dir.path() + "/state/spool");
  ASSERT_TRUE(left.ok());
  EXPECT_TRUE(left->empty()) << "delivered spool files must be deleted";
}

TEST(SpoolDelivery, DaemonAwayForGoodLeavesTheEventsInTheSpool) {
  TempDir dir;
  const pid_t pid = testing::Spawn(
      {AgtmuxBin(), "wrap", "--", "/bin/sh", "-c", "printf 'a\\n'; sleep 0.5; exit 0"},
      Env(dir), -1, ::open("/dev/null", O_WRONLY));
  const int status = testing::WaitExit(pid, 10000);
  ASSERT_TRUE(status != -1 && WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  auto files = net::ListSpool(dir.path() + "/state/spool");
  ASSERT_TRUE(files.ok());
  ASSERT_EQ(files->size(), 1u);
  EXPECT_EQ((*files)[0].name.source, "wrapper");
  EXPECT_EQ((*files)[0].name.pid, pid);
  auto events = net::ReadSpoolEvents((*files)[0].path);
  ASSERT_TRUE(events.ok()) << events.error().ToString();
  ExpectCompleteStream(*events, 0);
}

TEST(SpoolDelivery, WrapperStartedCarriesTheAgentVersionFromItsPackage) {
  // The program laid out as npm installs Claude Code: bin/claude.exe below
  // the package's package.json, reached through a symlink in PATH.
  TempDir dir;
  const std::string pkg = dir.path() + "/nm/@anthropic-ai/claude-code";
  ASSERT_EQ(::system(("mkdir -p " + pkg + "/bin " + dir.path() + "/bin && cp /bin/sh " + pkg +
                      "/bin/claude.exe && ln -s " + pkg + "/bin/claude.exe " + dir.path() +
                      "/bin/claude && printf '%s' '{\"name\":\"@anthropic-ai/claude-code\","
                      "\"version\":\"2.1.330\"}' > " + pkg + "/package.json")
                         .c_str()),
            0);
  std::vector<std::string> env = Env(dir);
  env.push_back("PATH=" + dir.path() + "/bin:/usr/bin:/bin");
  const pid_t pid = testing::Spawn({AgtmuxBin(), "wrap", "claude", "-c", "printf 'a\\n'; exit 0"},
                                   env, -1, ::open("/dev/null", O_WRONLY));
  const int status = testing::WaitExit(pid, 10000);
  ASSERT_TRUE(status != -1 && WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  auto files = net::ListSpool(dir.path() + "/state/spool");
  ASSERT_TRUE(files.ok());
  ASSERT_EQ(files->size(), 1u);
  auto events = net::ReadSpoolEvents((*files)[0].path);
  ASSERT_TRUE(events.ok()) << events.error().ToString();
  ASSERT_FALSE(events->empty());
  const core::Event& started = events->front();
  EXPECT_EQ(started.event_type, "wrapper_started");
  ASSERT_TRUE(started.runtime.has_value());
  EXPECT_EQ(started.runtime->agent_type, "claude");
  EXPECT_EQ(started.runtime->agent_version, "2.1.330");
}

}  // namespace
}  // namespace agt::wrap
