// The CLI's surface in a real tmux, driven like a person: a private tmux
// server started with `tmux -L <name>` in the test's own TMUX_TMPDIR (the
// "user's server"), the real agtmuxd started outside tmux, commands typed
// into panes with send-keys and read back with capture-pane.
//   - the daemon follows the server the CLI runs in (docs/observe.md, "Which server");
//   - a wrapped agent's window is named after the agent, not `agtmux`;
//   - `status-line` in status-right: tmux styles, and what waits.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/agg/daemon_harness.h"

namespace agt::test {
namespace {

class TmuxSurfaceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    name_ = "surf-" + std::to_string(getpid());
    env_.vars.push_back("TERM=xterm-256color");
    user_socket_ = env_.root + "/tmux/tmux-" + std::to_string(getuid()) + "/" + name_;
    host_socket_ = env_.root + "/tmux/tmux-" + std::to_string(getuid()) + "/default";
  }
  void TearDown() override {
    Agtmux({"daemon", "stop"});
    daemon_.reset();
    if (started_) Tmux({"kill-server"});
    if (server_pid_ > 0 && kill(server_pid_, 0) == 0) kill(server_pid_, SIGKILL);
  }

  RunResult Agtmux(std::vector<std::string> args) {
    args.insert(args.begin(), AGTMUX_BIN);
    return env_.Run(args);
  }
  RunResult Tmux(std::vector<std::string> args) {
    std::vector<std::string> argv = {"/usr/bin/tmux", "-L", name_, "-f", "/dev/null"};
    argv.insert(argv.end(), args.begin(), args.end());
    return env_.Run(argv);
  }
  static std::string Trim(std::string s) {
    while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
    return s;
  }
  /// The user's server, with a first session running `command`.
  void StartUserServer(const std::string& session, const std::string& command) {
    ASSERT_EQ(Tmux({"new-session", "-d", "-s", session, "-x", "160", "-y", "40", command}).status, 0);
    started_ = true;
    server_pid_ = std::stoi(Trim(Tmux({"display-message", "-p", "#{pid}"}).out));
  }
  void StartDaemon() {
    daemon_ = std::make_unique<Daemon>(env_);
    ASSERT_TRUE(daemon_->WaitReady());
  }
  /// A shell window in the user's server; returns its target ("session:window").
  std::string ShellWindow(const std::string& session, const std::string& name) {
    EXPECT_EQ(Tmux({"new-window", "-d", "-t", session, "-n", name, "sh"}).status, 0);
    return session + ":" + name;
  }
  void Type(const std::string& pane, const std::string& line) {
    ASSERT_EQ(Tmux({"send-keys", "-t", pane, "-l", line}).status, 0);
    ASSERT_EQ(Tmux({"send-keys", "-t", pane, "Enter"}).status, 0);
  }
  /// A directory holding a stand-in `claude` that says "agent up" and waits.
  std::string StandInClaude() {
    const std::string bin = env_.root + "/bin";
    std::filesystem::create_directories(bin);
    {
      std::ofstream f(bin + "/claude");
      f << "#!/bin/sh\necho agent up\nexec sleep 600\n";
    }
    ::chmod((bin + "/claude").c_str(), 0755);
    return bin;
  }
  std::string Screen(const std::string& pane) { return Tmux({"capture-pane", "-p", "-J", "-t", pane}).out; }
  bool Shows(const std::string& pane, const std::string& text, int ms = 10000) {
    return PollUntil([&] { return Screen(pane).find(text) != std::string::npos; }, ms);
  }

  TestEnv env_;
  std::unique_ptr<Daemon> daemon_;
  std::string name_, user_socket_, host_socket_;
  bool started_ = false;
  pid_t server_pid_ = -1;
};

// The daemon was started outside tmux, so it watches
// $TMUX_TMPDIR/tmux-UID/default, where no server runs. `target list` must
// say so, and the first agtmux command typed in the user's own server
// (`tmux -L name`) must get that server watched: its agent pane is listed.
TEST_F(TmuxSurfaceTest, TheDaemonFollowsTheServerTheCliRunsIn) {
  StartDaemon();
  // The host target's server does not exist: not "ok".
  RunResult list;
  ASSERT_TRUE(PollUntil([&] {
    list = Agtmux({"target", "list"});
    return list.out.find("no tmux server") != std::string::npos;
  })) << list.out << list.err;
  EXPECT_NE(list.out.find(host_socket_), std::string::npos) << list.out;

  // The user's server: an agent (a process started as `claude`) and a shell.
  StartUserServer("work", "bash -c 'exec -a claude sleep 600'");
  const std::string shell = ShellWindow("work", "sh");
  Type(shell, std::string(AGTMUX_BIN) + " list panes");
  ASSERT_TRUE(Shows(shell, "claude")) << Screen(shell);
  EXPECT_EQ(Screen(shell).find("no agent panes"), std::string::npos) << Screen(shell);

  // The server is now a target of its own, named after its socket.
  auto targets = Agtmux({"target", "list"});
  EXPECT_NE(targets.out.find(name_), std::string::npos) << targets.out;
  EXPECT_NE(targets.out.find(user_socket_), std::string::npos) << targets.out;

  // `daemon status` names each server it watches and whether it exists.
  auto status = Agtmux({"daemon", "status"});
  ASSERT_EQ(status.status, 0) << status.err;
  EXPECT_NE(status.out.find("host: " + host_socket_ + ": no server"), std::string::npos) << status.out;
  EXPECT_NE(status.out.find(name_ + ": " + user_socket_ + ": running"), std::string::npos) << status.out;

  // A second command from the same server adds nothing.
  Type(shell, "clear; " + std::string(AGTMUX_BIN) + " target list");
  ASSERT_TRUE(Shows(shell, user_socket_)) << Screen(shell);
  EXPECT_EQ(Screen(shell).find(name_ + "-2"), std::string::npos) << Screen(shell);
}

// POST /v1/follow refuses what is not a tmux socket of this user, by name.
TEST_F(TmuxSurfaceTest, FollowRefusesWhatIsNotATmuxSocket) {
  StartDaemon();
  auto r = daemon_->Call("POST", "/v1/follow", "{\"tmux_socket\":\"" + env_.root + "/nothing\"}");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->status, 400);
  EXPECT_NE(r->body.find("no tmux server socket at " + env_.root + "/nothing"), std::string::npos) << r->body;
  r = daemon_->Call("POST", "/v1/follow", "{\"tmux_socket\":\"relative\"}");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->status, 400);
  EXPECT_NE(r->body.find("must be an absolute path"), std::string::npos) << r->body;
}

// tmux names a window after its pane's foreground process
// (automatic-rename, on by default). Unwrapped, a window running claude is
// named `claude`; wrapped, it must be too, not `agtmux`.
TEST_F(TmuxSurfaceTest, AWrappedAgentsWindowIsNamedAfterTheAgent) {
  const std::string bin = StandInClaude();
  StartUserServer("work", "sh");
  ASSERT_EQ(Trim(Tmux({"show-options", "-gwv", "automatic-rename"}).out), "on");
  const std::string window =
      Trim(Tmux({"new-window", "-d", "-P", "-F", "#{window_id}", "-t", "work",
                 "exec env PATH=" + bin + ":/usr/bin:/bin " + std::string(AGTMUX_BIN) + " wrap claude"})
               .out);
  ASSERT_FALSE(window.empty());
  ASSERT_TRUE(Shows(window, "agent up")) << Screen(window);
  std::string name;
  EXPECT_TRUE(PollUntil([&] {
    name = Trim(Tmux({"display-message", "-p", "-t", window, "#{window_name}"}).out);
    return name == "claude";
  })) << "window name: " << name;
  EXPECT_EQ(Trim(Tmux({"display-message", "-p", "-t", window, "#{pane_current_command}"}).out), "claude");
}

// The shell alias starts an agent as `agtmux wrap claude` in the user's
// server, and no other agtmux command is typed there. The wrapper reports
// its pane with the socket from $TMUX; the daemon, watching only the host
// socket (no server there), must start watching the wrapper's server and
// file the pane under it, not as a pane of `host` (whose %N is another
// server's pane).
TEST_F(TmuxSurfaceTest, AWrappedAgentGetsItsServerWatched) {
  const std::string bin = StandInClaude();
  StartDaemon();
  StartUserServer("work", "sh");
  const std::string pane =
      Trim(Tmux({"new-window", "-d", "-P", "-F", "#{pane_id}", "-t", "work",
                 "exec env PATH=" + bin + ":/usr/bin:/bin " + std::string(AGTMUX_BIN) + " wrap claude"})
               .out);
  ASSERT_FALSE(pane.empty());
  ASSERT_TRUE(Shows(pane, "agent up")) << Screen(pane);
  std::string body;
  EXPECT_TRUE(PollUntil([&] {
    auto r = daemon_->Call("GET", "/v1/panes");
    body = r.ok() ? r->body : "";
    return body.find("\"target\":\"" + name_ + "\"") != std::string::npos &&
           body.find("\"pane_id\":\"" + pane + "\"") != std::string::npos;
  }, 10000)) << body;
  EXPECT_EQ(body.find("\"target\":\"host\""), std::string::npos) << body;
  auto targets = Agtmux({"target", "list"});
  EXPECT_NE(targets.out.find(user_socket_), std::string::npos) << targets.out;
}

// `#(agtmux status-line)` in status-right: tmux runs it as a job ($TMUX
// set, output through a pipe); it must colour its parts with tmux styles
// and name what waits. Typed at a shell in the same server it is plain.
TEST_F(TmuxSurfaceTest, StatusLineIsStyledForTmuxAndNamesWhatWaits) {
  StartDaemon();
  StartUserServer("work", "sh");
  const std::string out = env_.root + "/status.txt";
  const std::string job = std::string(AGTMUX_BIN) + " status-line > " + out + " 2>&1";
  // The first run inside the server gets it watched (and prints nothing: no agent yet).
  ASSERT_EQ(Tmux({"run-shell", job}).status, 0);
  const std::string agent = Trim(Tmux({"new-window", "-d", "-P", "-F", "#{pane_id} #{pane_pid}", "-t", "work:1",
                                       "sleep 600"}).out);
  const std::string pane = agent.substr(0, agent.find(' ')), pid = agent.substr(agent.find(' ') + 1);
  auto event = [&](int n, const std::string& type, const std::string& extra) {
    const std::string id = std::to_string(n);
    return "{\"event_id\":\"01JC" + std::string(22 - id.size(), '0') + id + "\",\"event_type\":\"" + type +
           "\",\"source\":\"wrapper\",\"dedupe_key\":\"dk-sl-" + id +
           "\",\"event_time\":\"2026-11-24T04:00:00Z\",\"runtime_id\":\"rt-sl-aaaaaaaaaaaa\",\"target_id\":\"" +
           name_ + "\",\"pane_id\":\"" + pane + "\"" + extra + "}";
  };
  auto r = daemon_->Call(
      "POST", "/v1/events",
      "{\"events\":[" +
          event(1, "wrapper_started",
                ",\"pid\":" + pid + ",\"runtime\":{\"agent_type\":\"claude\",\"started_at\":\"2026-11-24T04:00:00Z\"}") +
          "," +
          event(2, "state_changed",
                ",\"source_seq\":1,\"signal\":{\"state\":\"waiting_approval\",\"confidence\":\"high\","
                "\"rule_id\":\"test.wait\",\"evidence\":\"x\"}") +
          "]}");
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->status, 200) << r->body;
  auto read = [&] {
    std::ifstream f(out);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
  };
  std::string text;
  EXPECT_TRUE(PollUntil([&] {
    Tmux({"run-shell", job});
    text = read();
    // The pane is named once the collector has placed it (its window read).
    return text.find("work:1") != std::string::npos;
  })) << text;
  EXPECT_EQ(text, "#[fg=yellow,bold]⚠1 claude work:1#[default]\n");

  const std::string shell = ShellWindow("work", "sh2");
  Type(shell, std::string(AGTMUX_BIN) + " status-line");
  ASSERT_TRUE(Shows(shell, "⚠1 claude work:1")) << Screen(shell);
  EXPECT_EQ(Screen(shell).find("#["), std::string::npos) << Screen(shell);
}

}  // namespace
}  // namespace agt::test
