// Actions never hold the daemon's event loop (issue 14, item 3): while an
// action waits (an Enter delay, a stopped tmux server), the daemon answers
// every other request; actions on one pane run in the order they came,
// actions on other panes do not wait for them; a client that hangs up
// while its action runs harms nothing. Real agtmuxd, real tmux (the
// fixture's private server), assertions on order, never on elapsed time.
#include <dirent.h>
#include <signal.h>

#include <atomic>
#include <iterator>
#include <thread>

#include "tests/agg/actions/actions_fixture.h"

namespace agt::test {
namespace {

/// The tmux processes agtmuxd has started and not yet reaped whose
/// command line has `arg` (the collector's control client is no process:
/// the daemon speaks tmux's client protocol itself).
int TmuxChildren(pid_t daemon, const std::string& arg) {
  int n = 0;
  DIR* d = opendir("/proc");
  if (!d) return 0;
  while (dirent* e = readdir(d)) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    std::ifstream f(std::string("/proc/") + e->d_name + "/stat");
    std::string line;
    std::getline(f, line);
    size_t close = line.rfind(')');
    if (close == std::string::npos || line.find(" (tmux") == std::string::npos) continue;
    std::istringstream rest(line.substr(close + 2));
    std::string state;
    pid_t ppid = 0;
    rest >> state >> ppid;
    std::ifstream c(std::string("/proc/") + e->d_name + "/cmdline");
    std::string cmdline((std::istreambuf_iterator<char>(c)), {});
    if (ppid == daemon && cmdline.find(arg) != std::string::npos) ++n;
  }
  closedir(d);
  return n;
}

/// One request on its own thread; `done` turns true once it is answered.
class Pending {
 public:
  Pending(const Daemon& d, std::string path, std::string body) {
    thread_ = std::thread([this, &d, path = std::move(path), body = std::move(body)] {
      auto r = d.Call("POST", path, body);
      if (r.ok()) reply_ = *r;
      if (!r.ok()) error_ = r.error().ToString();
      ok_ = r.ok();
      done_ = true;
    });
  }
  ~Pending() {
    if (thread_.joinable()) thread_.join();
  }
  bool done() const { return done_; }
  const net::HttpResponse& Wait() {
    if (thread_.joinable()) thread_.join();
    return reply_;
  }
  bool ok() const { return ok_; }
  const std::string& error() const { return error_; }

 private:
  std::thread thread_;
  std::atomic<bool> done_{false};
  bool ok_ = false;
  std::string error_;
  net::HttpResponse reply_;
};

class ActionLoopTest : public ActionsTest {
 protected:
  std::string SendBody(const std::string& ref, const std::string& text, int64_t enter_delay_ms,
                       const std::string& request_ref = "") {
    return "{\"ref\":\"" + ref + "\",\"text\":\"" + text + "\",\"enter\":true,\"enter_delay_ms\":" +
           std::to_string(enter_delay_ms) +
           (request_ref.empty() ? std::string() : ",\"request_ref\":\"" + request_ref + "\"") + "}";
  }
  /// Splits the agent's window: a second pane (a shell), returned as a ref
  /// once the daemon lists it. (A second session sometimes made this tmux
  /// server exit: "server exited unexpectedly".)
  std::string OtherPane() {
    auto made = Tmux({"split-window", "-d", "-t", "work", "-P", "-F", "#{pane_id}"});
    EXPECT_EQ(made.status, 0) << made.err;
    std::string pane = Trim(made.out);
    EXPECT_TRUE(PollUntil([&] {
      auto r = daemon_->Call("GET", "/v1/panes?all");
      return r.ok() && r->body.find("\"" + pane + "\"") != std::string::npos;
    }, 10000));
    return "pane:lab/work/" + window_ + "/" + pane;
  }
};

// (a) A send sleeping before its Enter does not hold /v1/health.
TEST_F(ActionLoopTest, HealthIsAnsweredWhileASendWaitsForItsEnter) {
  Pending send(*daemon_, "/v1/actions/send", SendBody(ref_, "slow message", 5000));
  // The text is typed: the send is now in its Enter delay.
  ASSERT_TRUE(PollUntil([&] { return Screen().find("slow message") != std::string::npos; })) << Screen();
  auto health = daemon_->Call("GET", "/v1/health");
  const bool send_pending = !send.done();
  ASSERT_TRUE(health.ok());
  EXPECT_EQ(health->status, 200);
  EXPECT_TRUE(send_pending) << "/v1/health was answered only after the send";
  const auto& r = send.Wait();
  ASSERT_TRUE(send.ok());
  EXPECT_EQ(r.status, 200) << r.body;
  EXPECT_TRUE(PollUntil([&] { return Log().find("MSG slow message\n") != std::string::npos; })) << Log();
}

// (b) Ten actions stuck on a stopped tmux server: the daemon answers, and
// after SIGCONT every action ends, with a result or a clear error.
TEST_F(ActionLoopTest, AStoppedTmuxServerHoldsOnlyItsActions) {
  ASSERT_EQ(kill(server_pid_, SIGSTOP), 0);
  std::vector<std::unique_ptr<Pending>> actions;
  for (int i = 0; i < 10; ++i)
    actions.push_back(std::make_unique<Pending>(*daemon_, "/v1/actions/view-output",
                                                "{\"ref\":\"" + ref_ + "\",\"lines\":5}"));
  // An action is running: its tmux command waits on the stopped server.
  const bool running = PollUntil([&] { return TmuxChildren(daemon_->pid(), "capture-pane") > 0; }, 10000);
  auto health = daemon_->Call("GET", "/v1/health");
  auto panes = daemon_->Call("GET", "/v1/panes");
  int done = 0;
  for (const auto& a : actions) done += a->done();
  kill(server_pid_, SIGCONT);
  EXPECT_TRUE(running);
  ASSERT_TRUE(health.ok());
  EXPECT_EQ(health->status, 200);
  ASSERT_TRUE(panes.ok());
  EXPECT_EQ(panes->status, 200);
  EXPECT_EQ(done, 0) << "requests were answered only after actions had ended";
  for (const auto& a : actions) {
    const auto& r = a->Wait();
    ASSERT_TRUE(a->ok()) << a->error();
    if (r.status == 200) {
      EXPECT_NE(r.body.find("\"result_code\":\"ok\""), std::string::npos) << r.body;
    } else {
      // A command that ran into the stopped server's timeout says so.
      EXPECT_EQ(Code(r.body), "E_TIMEOUT") << r.body;
      EXPECT_NE(r.body.find("timed out"), std::string::npos) << r.body;
    }
  }
  auto after = daemon_->Call("POST", "/v1/actions/view-output", "{\"ref\":\"" + ref_ + "\",\"lines\":5}");
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(after->status, 200) << after->body;
}

// (c) Two actions on one pane run one after the other, in order; an action
// on another pane does not wait for them.
TEST_F(ActionLoopTest, ActionsOnOnePaneRunInOrderOthersDoNotWait) {
  std::string other = OtherPane();
  Pending first(*daemon_, "/v1/actions/send", SendBody(ref_, "first", 3000));
  ASSERT_TRUE(PollUntil([&] { return Screen().find("first") != std::string::npos; })) << Screen();
  Pending second(*daemon_, "/v1/actions/send", SendBody(ref_, "second", 100));
  auto view = daemon_->Call("POST", "/v1/actions/view-output", "{\"ref\":\"" + other + "\",\"lines\":5}");
  const bool first_pending = !first.done();
  ASSERT_TRUE(view.ok());
  EXPECT_EQ(view->status, 200) << view->body;
  EXPECT_TRUE(first_pending) << "an action on another pane waited for this pane's send";
  EXPECT_EQ(first.Wait().status, 200) << first.Wait().body;
  EXPECT_EQ(second.Wait().status, 200) << second.Wait().body;
  // Typed into the agent's input line while "first" waited for its Enter,
  // "second" would have made one message "firstsecond".
  ASSERT_TRUE(PollUntil([&] { return Log().find("MSG second\n") != std::string::npos; })) << Log();
  EXPECT_NE(Log().find("MSG first\nMSG second\n"), std::string::npos) << Log();
}

// (d) A client that hangs up while its action runs: the action finishes
// and is recorded, the answer is dropped, the daemon keeps serving.
TEST_F(ActionLoopTest, AClientThatHangsUpMidActionHarmsNothing) {
  std::string body = SendBody(ref_, "orphan", 1500, "orphan-1");
  {
    RawConn c(env_.socket());
    ASSERT_TRUE(c.ok());
    ASSERT_TRUE(c.Send("POST /v1/actions/send HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                       "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body));
    ASSERT_TRUE(PollUntil([&] { return Screen().find("orphan") != std::string::npos; })) << Screen();
  }  // closed while the send waits for its Enter
  ASSERT_TRUE(PollUntil([&] { return Log().find("MSG orphan\n") != std::string::npos; })) << Log();
  auto health = daemon_->Call("GET", "/v1/health");
  ASSERT_TRUE(health.ok());
  EXPECT_EQ(health->status, 200);
  // The action's outcome was stored: the same request is answered from it.
  ASSERT_TRUE(PollUntil([&] {
    auto r = daemon_->Call("POST", "/v1/actions/send", body);
    return r.ok() && r->status == 200 && r->body.find("\"replayed\":true") != std::string::npos;
  }));
  EXPECT_EQ(Log().find("MSG orphan\nMSG orphan"), std::string::npos) << Log();
}

// SIGTERM while an action waits: the daemon stops within its shutdown
// deadline with status 0, the worker's late results touching nothing that
// is gone (ASan runs this in CI).
TEST_F(ActionLoopTest, SigtermWhileAnActionWaitsStopsCleanly) {
  Pending send(*daemon_, "/v1/actions/send", SendBody(ref_, "cut short", 5000));
  ASSERT_TRUE(PollUntil([&] { return Screen().find("cut short") != std::string::npos; })) << Screen();
  EXPECT_EQ(daemon_->StopWithin(SIGTERM, 4500), 0);
  send.Wait();
}

}  // namespace
}  // namespace agt::test
