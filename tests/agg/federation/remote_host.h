// A loopback "host" for the federation tests: its own HOME/XDG/TMUX_TMPDIR
// (TestEnv), a real sshd on 127.0.0.1 whose sessions get that environment
// (sshd_config SetEnv), a private tmux server and, when the test starts it,
// its own agtmuxd. The local side reaches it as `root@127.0.0.1:<port>`
// with the keys the fixture generated.
#pragma once

#include <signal.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "tests/agg/daemon_harness.h"
#include "tests/agg/targets/sshd_fixture.h"

namespace agt::test {

struct RemoteHostOptions {
  bool streamlocal = true;   // false: AllowStreamLocalForwarding no
  bool agtmux_on_path = true;
};

class RemoteHost {
 public:
  explicit RemoteHost(int n, RemoteHostOptions o = {}) {
    tmux_name_ = "agtmux-fed-" + std::to_string(getpid()) + "-" + std::to_string(n);
    tmux_socket_ = env.root + "/tmux/tmux-" + std::to_string(getuid()) + "/" + tmux_name_;
    std::filesystem::create_directories(env.root + "/sshd");
    sshd = std::make_unique<agg::testing::Sshd>(env.root + "/sshd");
    sshd->Stop();
    // The host's agtmuxd observes this server as its `host` target (also
    // one `agtmux bridge --start` starts over ssh).
    std::string set_env = " \"" + TmuxVar() + "\"";
    for (std::string v : env.vars) {
      if (v.rfind("PATH=", 0) == 0)
        v = "PATH=" + (o.agtmux_on_path ? std::filesystem::path(AGTMUX_BIN).parent_path().string() + ":" : "") +
            "/usr/bin:/bin";
      set_env += " \"" + v + "\"";
    }
    std::ofstream cfg(env.root + "/sshd/sshd_config", std::ios::app);
    cfg << "SetEnv" << set_env << "\n";
    if (!o.streamlocal) cfg << "AllowStreamLocalForwarding no\n";
    cfg.close();
    sshd->Start();
  }
  ~RemoteHost() {
    if (frozen_) FreezeSshd(false);  // a stopped sshd would not take its SIGTERM
    // The panes' processes (a wrapper spooling its last events) must be
    // gone before the host's directory is removed.
    std::vector<pid_t> panes;
    std::string listed = Tmux({"list-panes", "-a", "-F", "#{pane_pid}"}).out;
    for (size_t at = 0, nl; (nl = listed.find('\n', at)) != std::string::npos; at = nl + 1) {
      const pid_t pane = pid_t(std::atol(listed.substr(at, nl - at).c_str()));
      if (pane <= 0) continue;
      for (pid_t p : agg::testing::Sshd::Children(pane)) panes.push_back(p);
      panes.push_back(pane);
    }
    Tmux({"kill-server"});
    for (pid_t p : panes) {
      if (!PollUntil([&] { return kill(p, 0) != 0; }, 3000)) kill(p, SIGKILL);
    }
    daemon.reset();
    sshd.reset();
  }
  void StartDaemon() {
    env.vars.push_back(TmuxVar());
    daemon = std::make_unique<Daemon>(env);
    env.vars.pop_back();  // tmux itself must not run "nested"
    ASSERT_TRUE(daemon->WaitReady());
  }
  RunResult Tmux(std::vector<std::string> args) {
    args.insert(args.begin(), {"/usr/bin/tmux", "-L", tmux_name_, "-f", "/dev/null"});
    return env.Run(args);
  }
  /// A session with one 120x30 pane running `command` (a shell line);
  /// returns the pane id.
  std::string NewPane(const std::string& session, const std::string& command = "sh") {
    EXPECT_EQ(Tmux({"new-session", "-d", "-s", session, "-x", "120", "-y", "30", command}).status, 0);
    std::string pane = Tmux({"list-panes", "-t", session, "-F", "#{pane_id}"}).out;
    return pane.substr(0, pane.find('\n'));
  }
  /// Freezes (SIGSTOP) or thaws (SIGCONT) the host's sshd and the
  /// per-connection processes it forked: a host that stops answering
  /// without closing anything, as one behind a dead network does.
  void FreezeSshd(bool frozen) {
    auto text = core::ReadWholeFile(env.root + "/sshd/sshd.pid");
    ASSERT_TRUE(text.ok()) << "sshd wrote no pid file";
    const pid_t pid = pid_t(std::stol(*text));
    const int sig = frozen ? SIGSTOP : SIGCONT;
    for (pid_t child : agg::testing::Sshd::Children(pid)) kill(child, sig);
    kill(pid, sig);
    frozen_ = frozen;
  }
  /// Posts events to the host's agtmuxd as the wrapper does.
  void Post(const std::vector<std::string>& events) {
    std::string body = "{\"events\":[";
    for (size_t i = 0; i < events.size(); ++i) body += (i ? "," : "") + events[i];
    auto r = daemon->Call("POST", "/v1/events", body + "]}");
    ASSERT_TRUE(r.ok());
    ASSERT_EQ(r->status, 200) << r->body;
  }
  /// wrapper_started for `pane` of this host's tmux server; the agent's pid
  /// is the pane's shell, alive as long as the pane (a dead one would end
  /// the runtime after the daemon's grace).
  std::string WrapperStarted(const std::string& id, const std::string& runtime, const std::string& pane) {
    std::string pid = Tmux({"display-message", "-p", "-t", pane, "#{pane_pid}"}).out;
    pid = pid.substr(0, pid.find('\n'));
    return EventJson(id, "wrapper_started", runtime, pane,
                     ",\"pid\":" + pid + ",\"runtime\":{\"agent_type\":\"claude\",\"tmux_socket\":\"" + tmux_socket_ +
                         "\",\"started_at\":\"2026-11-22T04:00:00Z\"}");
  }
  /// `user@127.0.0.1:port` for `agtmux target add --ssh-target`.
  std::string SshTarget() const {
    return agg::testing::Sshd::getpwuid_name() + "@127.0.0.1:" + std::to_string(sshd->port());
  }
  /// Gives `local` the keys and known_hosts that reach this host.
  /// The first host's user key becomes local's; later hosts authorize it.
  void Trust(const TestEnv& local) const {
    std::filesystem::create_directories(local.root + "/.ssh");
    const std::string key = local.root + "/.ssh/id_ed25519";
    if (!std::filesystem::exists(key)) {
      std::filesystem::copy_file(env.root + "/sshd/id_ed25519", key);
      std::filesystem::copy_file(env.root + "/sshd/id_ed25519.pub", key + ".pub");
    } else {
      std::ifstream pub(key + ".pub");
      std::string line((std::istreambuf_iterator<char>(pub)), {});
      std::ofstream(env.root + "/sshd/authorized_keys", std::ios::app) << line;
    }
    std::ifstream kh(env.root + "/sshd/known_hosts");
    std::string line((std::istreambuf_iterator<char>(kh)), {});
    std::ofstream(local.root + "/.ssh/known_hosts", std::ios::app) << line;
  }

  TestEnv env;
  std::unique_ptr<agg::testing::Sshd> sshd;
  std::unique_ptr<Daemon> daemon;

 private:
  std::string TmuxVar() const { return "TMUX=" + tmux_socket_ + ",1,0"; }
  std::string tmux_name_, tmux_socket_;
  bool frozen_ = false;
};

}  // namespace agt::test
