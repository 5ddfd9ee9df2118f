// SshControlFeed against a real sshd on 127.0.0.1 and a private tmux server
// reached through it: sessions that come and go are followed without the
// feed going down (a closed session's client ends; the others stay), and an
// sshd killed mid-feed reports the feed down, then up again with the
// sessions once sshd is back.
#include "aggregator/observe/ssh_control_feed.h"

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "libagtcore/text.h"
#include "tests/agg/observe/tmux_fixture.h"
#include "tests/agg/targets/sshd_fixture.h"

namespace agt::agg {
namespace {

using testing::Loop;
using testing::PrivateTmux;
using testing::Sshd;
using testing::TempDir;

class SshControlFeedTest : public ::testing::Test {
 protected:
  void SetUp() override { unsetenv("TMUX"); }
  void Start() {
    SshControlFeedOptions o;
    o.tmux = {"tmux", "-S", tmux.socket()};
    o.retry = 300 * core::kNsPerMs;
    SshOptions ssh = sshd.Options();
    ssh.reconnect_backoff = 200 * core::kNsPerMs;
    ssh.reconnect_backoff_max = 500 * core::kNsPerMs;
    feed = std::make_unique<SshControlFeed>(loop.get(), ssh, o, [this](FeedReport r) { reports.push_back(std::move(r)); });
    feed->Start();
  }
  void TearDown() override {
    feed.reset();
    loop.RunFor(20);
  }
  /// The last report says up and follows exactly `n` sessions.
  bool UpWith(size_t n) const { return !reports.empty() && reports.back().up && reports.back().sessions.size() == n; }
  /// Reports from `from` on that said the feed was down.
  std::vector<std::string> DownsSince(size_t from) const {
    std::vector<std::string> why;
    for (size_t i = from; i < reports.size(); ++i)
      if (!reports[i].up) why.push_back(reports[i].why);
    return why;
  }
  std::string Dump() const {
    std::string out;
    for (const auto& r : reports) {
      out += "\n" + std::string(r.up ? "up" : "down") + " sessions=" + std::to_string(r.sessions.size()) +
             " output=" + std::to_string(r.output.size()) + (r.changed ? " changed" : "") + " " + r.why;
    }
    return out;
  }
  /// Waits until tmux lists `n` control clients: the feed reports itself
  /// up when its channels are open, a little before tmux has attached
  /// them, and a session created meanwhile would go unnoticed (and tmux
  /// 3.3a crashes on a session created while a control client is half
  /// identified: docs/observe.md, "tmux 3.3a and control clients").
  bool ControlClients(size_t n) {
    return loop.RunUntil([&] {
      size_t control = 0;
      // The lines are views into the listing: it must outlive them.
      const std::string listing = tmux.Must({"list-clients", "-F", "#{client_control_mode}"});
      for (std::string_view line : core::SplitLines(listing)) control += line == "1";
      return control == n;
    }, 15000);
  }
  bool OutputSince(size_t from, const std::string& pane) const {
    for (size_t i = from; i < reports.size(); ++i)
      if (reports[i].output.count(pane)) return true;
    return false;
  }

  TempDir dir;
  Sshd sshd{dir.path()};
  PrivateTmux tmux{dir.path()};
  Loop loop;
  std::vector<FeedReport> reports;
  std::unique_ptr<SshControlFeed> feed;
};

TEST_F(SshControlFeedTest, SessionsThatComeAndGoAreFollowedWithoutTheFeedGoingDown) {
  // tmux lists sessions by name: the one that comes and goes ("comes") is
  // read before the one that stays, so its client's end is seen first.
  const std::string first = tmux.Must({"new-session", "-d", "-s", "stays", "-P", "-F", "#{pane_id}", "sh"});
  Start();
  ASSERT_TRUE(loop.RunUntil([&] { return UpWith(1); }, 15000)) << "the feed did not come up";
  ASSERT_TRUE(ControlClients(1));
  const size_t from = reports.size();

  // A session comes: it is followed, its pane's output heard.
  const std::string second = tmux.Must({"new-session", "-d", "-s", "comes", "-P", "-F", "#{pane_id}", "sh"});
  ASSERT_TRUE(loop.RunUntil([&] { return UpWith(2); }, 15000)) << "the new session was not followed" << Dump();
  ASSERT_TRUE(ControlClients(2));
  const size_t typed = reports.size();
  tmux.Must({"send-keys", "-t", second, "echo from-comes", "Enter"});
  ASSERT_TRUE(loop.RunUntil([&] { return OutputSince(typed, second); }, 15000)) << "no %output of the new session";

  // It goes: the feed follows the one left and never reported itself down.
  tmux.Must({"kill-session", "-t", "comes"});
  ASSERT_TRUE(loop.RunUntil([&] { return UpWith(1); }, 15000)) << "the closed session is still followed" << Dump();
  ASSERT_TRUE(ControlClients(1));
  loop.RunFor(500);
  EXPECT_TRUE(DownsSince(from).empty()) << "the feed went down: " << DownsSince(from)[0];
  const size_t later = reports.size();
  tmux.Must({"send-keys", "-t", first, "echo from-stays", "Enter"});
  ASSERT_TRUE(loop.RunUntil([&] { return OutputSince(later, first); }, 15000)) << "the session that stayed is no longer heard";
}

TEST_F(SshControlFeedTest, SshdKilledMidFeedReportsDownThenComesBackWithTheSessions) {
  const std::string pane = tmux.Must({"new-session", "-d", "-s", "w", "-P", "-F", "#{pane_id}", "sh"});
  tmux.Must({"new-session", "-d", "-s", "x", "sh"});
  Start();
  ASSERT_TRUE(loop.RunUntil([&] { return UpWith(2); }, 15000)) << "the feed did not come up";
  ASSERT_TRUE(ControlClients(2));
  const size_t from = reports.size();
  const std::map<std::string, int64_t> before = reports.back().sessions;

  sshd.Stop();  // the listener and the session's processes: the channels break
  ASSERT_TRUE(loop.RunUntil([&] { return !reports.empty() && !reports.back().up; }, 15000)) << "no down report";
  EXPECT_FALSE(DownsSince(from)[0].empty()) << "a down report without a reason";
  loop.RunFor(800);  // retries meanwhile fail, and say so
  EXPECT_FALSE(reports.back().up);

  sshd.Start();
  ASSERT_TRUE(loop.RunUntil([&] { return UpWith(2); }, 20000)) << "the feed did not come back" << Dump();
  ASSERT_TRUE(ControlClients(2));
  // New connections, new numbers: what was heard before is not taken for whole.
  for (const auto& [session, number] : reports.back().sessions) {
    ASSERT_TRUE(before.count(session)) << session;
    EXPECT_NE(before.at(session), number) << session;
  }
  const size_t typed = reports.size();
  tmux.Must({"send-keys", "-t", pane, "echo after-restart", "Enter"});
  ASSERT_TRUE(loop.RunUntil([&] { return OutputSince(typed, pane); }, 15000)) << "no %output after sshd came back";
}

}  // namespace
}  // namespace agt::agg
