// SshControlFeed against a real sshd on 127.0.0.1 and a private tmux server
// reached through it: sessions that come and go are followed without the
// feed going down (a closed session's client ends; the others stay), and an
// sshd killed mid-feed reports the feed down, then up again with the
// sessions once sshd is back; and sessions churned on the remote (tmux
// 3.3a crashes when that meets a control client's attach) leave the remote
// server alive and the surviving session followed.
#include "aggregator/observe/ssh_control_feed.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "libagtcore/base/text.h"
#include "tests/agg/observe/session_churn.h"
#include "tests/agg/observe/tmux_fixture.h"
#include "tests/agg/targets/sshd_fixture.h"

namespace agt::agg {
namespace {

using testing::Loop;
using testing::PrivateTmux;
using testing::SessionChurn;
using testing::Sshd;
using testing::TempDir;

// The attach policy alone, on a made-up timeline (ms).
constexpr core::TimeNs kMs = core::kNsPerMs;

TEST(SessionsToAttach, AllAtOnceOnlyWhenTheServerHasSettled) {
  SshControlFeedOptions o;  // settle 400 ms, settle_max 5 s
  core::TimeNs forced = -1000000 * kMs;
  const std::map<std::string, core::TimeNs> waiting = {{"$1", 1000 * kMs}, {"$2", 1100 * kMs}, {"$3", 1200 * kMs}};
  EXPECT_TRUE(SessionsToAttach({}, true, 9000 * kMs, 0, o.settle, forced, o).empty());
  // Stirred 399 ms ago: none; 400 ms ago: all three.
  EXPECT_TRUE(SessionsToAttach(waiting, true, 1600 * kMs, 1201 * kMs, o.settle, forced, o).empty());
  EXPECT_EQ(SessionsToAttach(waiting, true, 1601 * kMs, 1201 * kMs, o.settle, forced, o),
            (std::vector<std::string>{"$1", "$2", "$3"}));
}

TEST(SessionsToAttach, ANeverSettlingServerGetsOneAttachPerSettleMaxOldestFirst) {
  SshControlFeedOptions o;
  core::TimeNs forced = -1000000 * kMs;
  std::map<std::string, core::TimeNs> waiting = {{"$7", 2000 * kMs}, {"$3", 1000 * kMs}};
  // Stirred just now, every time: nothing until the oldest has waited 5 s.
  EXPECT_TRUE(SessionsToAttach(waiting, true, 5999 * kMs, 5999 * kMs, o.settle, forced, o).empty());
  EXPECT_EQ(SessionsToAttach(waiting, true, 6000 * kMs, 6000 * kMs, o.settle, forced, o), std::vector<std::string>{"$3"});
  EXPECT_EQ(forced, 6000 * kMs);
  waiting.erase("$3");
  // $7 has waited long enough too, but the last single attach was just now.
  EXPECT_TRUE(SessionsToAttach(waiting, true, 7100 * kMs, 7100 * kMs, o.settle, forced, o).empty());
  EXPECT_TRUE(SessionsToAttach(waiting, true, 10999 * kMs, 10999 * kMs, o.settle, forced, o).empty());
  EXPECT_EQ(SessionsToAttach(waiting, true, 11000 * kMs, 11000 * kMs, o.settle, forced, o), std::vector<std::string>{"$7"});
}

TEST(SessionsToAttach, TheQuietNeededCanBeLongerThanTheSettleTime) {
  SshControlFeedOptions o;
  core::TimeNs forced = -1000000 * kMs;
  const std::map<std::string, core::TimeNs> waiting = {{"$1", 1000 * kMs}};
  EXPECT_TRUE(SessionsToAttach(waiting, true, 1999 * kMs, 1000 * kMs, 1000 * kMs, forced, o).empty());
  EXPECT_EQ(SessionsToAttach(waiting, true, 2000 * kMs, 1000 * kMs, 1000 * kMs, forced, o).size(), 1u);
}

TEST(StirRhythm, APeriodicRemoteNeedsTwiceItsPeriodOfQuiet) {
  StirRhythm r;
  EXPECT_EQ(r.QuietNeeded(400 * kMs), 400 * kMs);
  // A change every 500 ms, each heard as three notifications within a few ms.
  for (int i = 0; i < 6; ++i)
    for (int k = 0; k < 3; ++k) r.Stir((1000 + 500 * i + 3 * k) * kMs);
  EXPECT_EQ(r.QuietNeeded(400 * kMs), 1000 * kMs);
}

TEST(StirRhythm, AQuickBurstOrALongPauseLeavesTheSettleTime) {
  StirRhythm burst;
  for (int i = 0; i < 5; ++i) burst.Stir((1000 + 120 * i) * kMs);  // a user making sessions quickly
  EXPECT_EQ(burst.QuietNeeded(400 * kMs), 400 * kMs);
  StirRhythm paused;
  for (int i = 0; i < 5; ++i) paused.Stir((1000 + 3000 * i) * kMs);  // gaps of 3 s are pauses
  EXPECT_EQ(paused.QuietNeeded(400 * kMs), 400 * kMs);
  // Only the last few gaps count: a rhythm that stopped is forgotten.
  StirRhythm r;
  r.Stir(0);
  r.Stir(900 * kMs);
  for (int i = 1; i <= int(StirRhythm::kGaps); ++i) r.Stir((900 + 100 * i) * kMs);
  EXPECT_EQ(r.QuietNeeded(400 * kMs), 400 * kMs);
}

TEST(SessionsToAttach, WithNoClientOneIsAttachedAtOnceAndOnePerSettle) {
  SshControlFeedOptions o;
  core::TimeNs forced = -1000000 * kMs;
  const std::map<std::string, core::TimeNs> waiting = {{"$1", 1000 * kMs}, {"$2", 1000 * kMs}};
  // Stirred just now, yet with nothing to hear it by, one goes at once...
  EXPECT_EQ(SessionsToAttach(waiting, false, 1000 * kMs, 1000 * kMs, o.settle, forced, o).size(), 1u);
  // ...and the next only a settle time later (a client that keeps ending
  // does not make a burst).
  EXPECT_TRUE(SessionsToAttach(waiting, false, 1399 * kMs, 1000 * kMs, o.settle, forced, o).empty());
  EXPECT_EQ(SessionsToAttach(waiting, false, 1400 * kMs, 1000 * kMs, o.settle, forced, o).size(), 1u);
}

// The feed's attach, run as the remote runs it: against a server that has
// just exited it fails and starts none (tmux's attach-session would start
// one, and that server, holding our client, outlived the tests here: a
// tmux process per run, left on the user's machine in use); against a live
// server it attaches.
TEST(AttachCommand, NeverStartsAServerAndAttachesToALiveOne) {
  TempDir dir;
  PrivateTmux tmux{dir.path()};
  LocalExecutor local;
  // A server started with this configuration leaves a mark.
  const std::string conf = dir.path() + "/tmux.conf", mark = dir.path() + "/server-started";
  std::ofstream(conf) << "run-shell 'touch " << mark << "'\n";
  const std::vector<std::string> prefix = {"tmux", "-S", tmux.socket(), "-f", conf};
  tmux.Must({"new-session", "-d", "-s", "w", "sh"});
  // The client runs what its stdin says, then ends at its EOF.
  const ExecOptions ask{10 * core::kNsPerSec, "display-message -p 'attached to #{session_name}'\n", 1 << 20};
  auto attached = local.Run(AttachCommand(prefix, "w"), ask);
  ASSERT_TRUE(attached.ok()) << attached.error().ToString();
  EXPECT_EQ(attached->exit_code, 0) << attached->err;
  EXPECT_NE(attached->out.find("attached to w"), std::string::npos) << attached->out;

  tmux.Kill();
  auto gone = local.Run(AttachCommand(prefix, "w"), ask);
  ASSERT_TRUE(gone.ok()) << gone.error().ToString();
  EXPECT_EQ(gone->out.find("attached to"), std::string::npos) << gone->out;
  usleep(300 * 1000);  // a server's configuration runs as it starts
  EXPECT_FALSE(std::filesystem::exists(mark)) << "the attach started a server";
}

// A tmux older than 3.2 does not know -N: the attach runs only once
// has-session answers, and without the flag. A stand-in tmux that reports
// its version and logs its arguments shows which commands ran.
TEST(AttachCommand, AnOldTmuxIsAskedForItsServerFirstAndGetsNoDashN) {
  TempDir dir;
  LocalExecutor local;
  const std::string fake = dir.path() + "/tmux", log = dir.path() + "/log";
  auto stand_in = [&](const std::string& version, int has_session) {
    std::ofstream(fake) << "#!/bin/sh\necho \"$*\" >> " << log << "\n"
                        << "case \"$1\" in -V) echo '" << version << "' ;; has-session) exit "
                        << has_session << " ;; esac\n";
    std::filesystem::permissions(fake, std::filesystem::perms::owner_all);
    std::filesystem::remove(log);
    auto r = local.Run(AttachCommand({fake}, "$1"), ExecOptions{});
    EXPECT_TRUE(r.ok());
    std::ifstream in(log);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  EXPECT_EQ(stand_in("tmux 3.1c", 1), "-V\nhas-session\n") << "attached with no server";
  EXPECT_EQ(stand_in("tmux 3.1c", 0), "-V\nhas-session\n-C attach-session -r -t $1\n");
  EXPECT_EQ(stand_in("tmux 2.9a", 0), "-V\nhas-session\n-C attach-session -r -t $1\n");
  EXPECT_EQ(stand_in("tmux 3.3a", 0), "-V\n-N -C attach-session -r -t $1\n");
  EXPECT_EQ(stand_in("tmux 3.10", 0), "-V\n-N -C attach-session -r -t $1\n");
}

class SshControlFeedTest : public ::testing::Test {
 protected:
  void SetUp() override { unsetenv("TMUX"); }
  void Start() {
    SshControlFeedOptions o;
    o.tmux = {"tmux", "-S", tmux.socket()};
    o.retry = 300 * core::kNsPerMs;
    if (settle > 0) o.settle = settle;
    if (settle_max > 0) o.settle_max = settle_max;
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
             " waiting=" + std::to_string(r.waiting.size()) +
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
  core::TimeNs settle = 0;      // 0: the feed's default
  core::TimeNs settle_max = 0;  // 0: the feed's default
};

TEST_F(SshControlFeedTest, SessionsThatComeAndGoAreFollowedWithoutTheFeedGoingDown) {
  // tmux lists sessions by name: the one that comes and goes ("comes") is
  // read before the one that stays, so its client's end is seen first.
  const std::string first = tmux.Must({"new-session", "-d", "-s", "stays", "-P", "-F", "#{pane_id}", "sh"});
  Start();
  ASSERT_TRUE(loop.RunUntil([&] { return UpWith(1); }, 15000)) << "the feed did not come up";
  ASSERT_TRUE(ControlClients(1));
  const size_t from = reports.size();
  const std::map<std::string, int64_t> alone = reports.back().sessions;

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
  // Through both changes the staying session kept its client: the same
  // connection, never dropped and attached again.
  EXPECT_EQ(reports.back().sessions, alone) << Dump();
  for (size_t i = from; i < reports.size(); ++i) {
    if (!reports[i].up) continue;
    for (const auto& [session, number] : alone)
      EXPECT_EQ(reports[i].sessions.count(session) ? reports[i].sessions.at(session) : -1, number)
          << "report " << i << Dump();
  }
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

// Issue 17's live CAP over ssh against tmux 3.3a's crash (docs/observe.md,
// "tmux 3.3a and control clients"): two shells create, rename and kill
// sessions on the remote in a tight loop for 4 s while the feed follows it.
// The remote server must survive, and once the churn stops the session that
// stayed must be followed again: its pane's output reaches the feed.
TEST_F(SshControlFeedTest, SessionChurnOnTheRemoteLeavesItsServerAliveAndTheStayingSessionFollowed) {
  const std::string pane = tmux.Must({"new-session", "-d", "-s", "stays", "-P", "-F", "#{pane_id}", "sh"});
  const pid_t server = pid_t(std::stoll(tmux.Must({"display-message", "-p", "#{pid}"})));
  Start();
  ASSERT_TRUE(loop.RunUntil([&] { return UpWith(1); }, 15000)) << "the feed did not come up";
  ASSERT_TRUE(ControlClients(1));
  const int64_t attaches_before = feed->attaches();

  constexpr int kChurnMs = 4000;
  SessionChurn churn({testing::TightChurn(tmux.socket(), "a"), testing::TightChurn(tmux.socket(), "b")});
  ASSERT_EQ(churn.running(), 2u);
  const auto t0 = std::chrono::steady_clock::now();
  const bool died = loop.RunUntil([&] { return kill(server, 0) != 0; }, kChurnMs);
  const double churned_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  churn.Stop();
  const int64_t attaches = feed->attaches() - attaches_before;
  std::printf("churn %.1f s: %lld attaches (%.1f per churn second), remote tmux server %s\n", churned_s,
              (long long)attaches, double(attaches) / churned_s, died ? "crashed" : "alive");
  ASSERT_FALSE(died) << "the remote tmux server (pid " << server << ") died after " << churned_s << " s of churn, "
                     << attaches << " attaches by the feed";

  // The churned sessions are gone; the one that stayed is followed.
  ASSERT_TRUE(loop.RunUntil([&] { return UpWith(1); }, 15000)) << "the feed does not follow the one session left"
                                                                  << Dump();
  ASSERT_TRUE(ControlClients(1));
  const size_t typed = reports.size();
  tmux.Must({"send-keys", "-t", pane, "echo after-churn", "Enter"});
  ASSERT_TRUE(loop.RunUntil([&] { return OutputSince(typed, pane); }, 15000))
      << "the staying session's output no longer reaches the feed" << Dump();
}

// The bound on waiting: on a remote that never settles (a session renamed
// every 250 ms, and every rename reaches a half-identified client; the
// settle time is 3 s here so that a loaded machine's slower loop cannot
// give it its quiet), a new session that lives is listed as waiting first,
// then attached once it has waited settle_max (1.5 s), while the renames
// go on. Such an attach meets the renames' crash window only by chance
// (about a millisecond in 250); the server is checked alive.
TEST_F(SshControlFeedTest, ANewSessionIsFollowedWithinTheBoundOnARemoteThatNeverSettles) {
  tmux.Must({"new-session", "-d", "-s", "spin", "sh"});
  const pid_t server = pid_t(std::stoll(tmux.Must({"display-message", "-p", "#{pid}"})));
  settle = 3 * core::kNsPerSec;
  settle_max = 1500 * core::kNsPerMs;
  Start();
  ASSERT_TRUE(loop.RunUntil([&] { return UpWith(1); }, 15000)) << "the feed did not come up";
  ASSERT_TRUE(ControlClients(1));
  SessionChurn renames({testing::RenameLoop(tmux.socket(), "spin", "0.25")});
  loop.RunFor(600);
  const size_t from = reports.size();
  const std::string late = tmux.Must({"new-session", "-d", "-s", "late", "-P", "-F", "#{session_id}", "sh"});
  ASSERT_TRUE(loop.RunUntil([&] { return UpWith(2) && reports.back().sessions.count(late); }, 15000))
      << "the new session was not followed while the renames went on" << Dump();
  size_t waited = 0;
  for (size_t i = from; i < reports.size(); ++i) waited += reports[i].waiting.count(late);
  EXPECT_GT(waited, 0u) << "the new session was attached without waiting" << Dump();
  EXPECT_TRUE(reports.back().waiting.empty());
  EXPECT_EQ(kill(server, 0), 0) << "the remote tmux server died";
}

}  // namespace
}  // namespace agt::agg
