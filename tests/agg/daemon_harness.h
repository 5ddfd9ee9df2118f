// Test harness for the real agtmuxd: a private HOME/XDG/TMUX_TMPDIR under a
// temp dir, the daemon spawned by fork/exec with that environment, HTTP
// calls over its socket, raw-socket helpers for malformed traffic, and
// polling with deadlines. Shared by tests/agg and tests/cli.
//
// A test must not leave a daemon behind: when a TestEnv goes, every agtmuxd
// whose environment points into it (one the test spawned, or one an agtmux
// command it ran started on demand) must have exited. One still running
// after a grace fails the test, naming it, and is killed.
#pragma once

#include <errno.h>
#include <fcntl.h>
#ifndef AGT_HARNESS_WITHOUT_GTEST  // the benchmarks (bench/agg) do not link gtest
#include <gtest/gtest.h>
#endif
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "libagtcore/net/unix_http_client.h"

namespace agt::test {

inline bool PollUntil(const std::function<bool()>& cond, int timeout_ms = 5000) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (std::chrono::steady_clock::now() < deadline) {
    if (cond()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return cond();
}

/// The running agtmuxd processes (zombies aside) with a variable of their
/// environment naming `root` or a path under it: the daemons of one TestEnv.
inline std::vector<pid_t> DaemonsUnder(const std::string& root) {
  std::vector<pid_t> found;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::string comm;
    std::getline(std::ifstream(entry.path() / "comm"), comm);
    if (comm != "agtmuxd") continue;
    std::string stat;
    std::getline(std::ifstream(entry.path() / "stat"), stat);
    const size_t paren = stat.rfind(')');
    if (paren == std::string::npos || stat.compare(paren, 4, ") Z ") == 0) continue;
    std::ifstream environ(entry.path() / "environ");
    const std::string vars((std::istreambuf_iterator<char>(environ)), {});
    std::istringstream each(vars);
    for (std::string var; std::getline(each, var, '\0');) {
      const size_t eq = var.find('=');
      const std::string value = eq == std::string::npos ? "" : var.substr(eq + 1);
      if (value == root || value.rfind(root + "/", 0) == 0) {
        found.push_back(pid_t(std::stol(name)));
        break;
      }
    }
  }
  return found;
}

struct RunResult {
  int status = -1;  // exit status, or 128+signal
  std::string out, err;
};

/// A private environment: every path agtmux reads points into `root`.
class TestEnv {
 public:
  TestEnv() {
    char tmpl[] = "/tmp/agtmux-test-XXXXXX";
    root = mkdtemp(tmpl);
    std::filesystem::create_directories(root + "/run");
    std::filesystem::create_directories(root + "/tmux");
    vars = {"HOME=" + root, "XDG_RUNTIME_DIR=" + root + "/run", "XDG_STATE_HOME=" + root + "/state",
            "XDG_CONFIG_HOME=" + root + "/config", "TMUX_TMPDIR=" + root + "/tmux", "LANG=C.UTF-8",
            "PATH=" + std::string(std::getenv("PATH") ? std::getenv("PATH") : "/usr/bin:/bin"), "NO_COLOR=1"};
  }
  // A process the test started in a tmux pane (a wrapper getting SIGHUP
  // from kill-server) may still write its last event into the tree while
  // it is removed: try again for a second rather than throw from here.
  ~TestEnv() {
    FailOnDaemonsLeft();
    std::error_code ec;
    for (int i = 0; i < 50; ++i) {
      std::filesystem::remove_all(root, ec);
      if (!ec) return;
      ::usleep(20 * 1000);
    }
  }
  /// A daemon of this environment that the test stopped gets up to 10 s
  /// to finish its graceful exit (its own bound is 3 s for requests in
  /// flight, 1 s for its tmux clients); one still running then was left
  /// behind (started on demand after the test stopped its own, say): the
  /// test fails naming it, and it is killed, so that no run leaves a daemon
  /// on the machine whose directory is gone.
  void FailOnDaemonsLeft() const {
    std::vector<pid_t> left = DaemonsUnder(root);
    if (left.empty()) return;
    PollUntil([&] { return (left = DaemonsUnder(root)).empty(); }, 10000);
    for (pid_t pid : left) {
      std::string args;
      std::getline(std::ifstream("/proc/" + std::to_string(pid) + "/cmdline"), args);
      for (char& c : args) c = c == '\0' ? ' ' : c;
      while (!args.empty() && args.back() == ' ') args.pop_back();
      const std::string why = "agtmuxd (pid " + std::to_string(pid) + ", `" + args + "`) of the test environment " +
                              root + " is still running after the test; a test must stop every daemon it " +
                              "started, including one an agtmux command started on demand";
#ifndef AGT_HARNESS_WITHOUT_GTEST
      ADD_FAILURE() << why;
#else
      std::fprintf(stderr, "%s\n", why.c_str());
#endif
      kill(pid, SIGKILL);
    }
    PollUntil([&] { return DaemonsUnder(root).empty(); }, 5000);
  }
  std::string socket() const { return root + "/run/agtmux/agtmuxd.sock"; }
  std::string state_dir() const { return root + "/state/agtmux"; }

  pid_t Spawn(const std::vector<std::string>& argv, int out_fd = -1, int err_fd = -1) const {
    pid_t pid = fork();
    if (pid == 0) {
      int null = open("/dev/null", O_RDWR);
      dup2(null, 0);
      dup2(out_fd >= 0 ? out_fd : null, 1);
      dup2(err_fd >= 0 ? err_fd : null, 2);
      for (int fd = 3; fd < 1024; ++fd) close(fd);  // no pipe end may outlive the run
      std::vector<char*> args, envp;
      for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
      args.push_back(nullptr);
      for (const auto& v : vars) envp.push_back(const_cast<char*>(v.c_str()));
      envp.push_back(nullptr);
      execve(argv[0].c_str(), args.data(), envp.data());
      _exit(127);
    }
    return pid;
  }

  /// Runs to completion, capturing stdout and stderr.
  RunResult Run(const std::vector<std::string>& argv, int timeout_ms = 20000) const {
    int out[2], err[2];
    if (pipe(out) != 0 || pipe(err) != 0) return {};
    pid_t pid = Spawn(argv, out[1], err[1]);
    close(out[1]);
    close(err[1]);
    RunResult r;
    pollfd fds[2] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}};
    int open_fds = 2;
    auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
    while (open_fds > 0 && std::chrono::steady_clock::now() < deadline) {
      if (poll(fds, 2, 100) <= 0) continue;
      for (int i = 0; i < 2; ++i) {
        if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP))) continue;
        char buf[4096];
        ssize_t n = read(fds[i].fd, buf, sizeof buf);
        if (n <= 0) {
          close(fds[i].fd);
          fds[i].fd = -1;
          --open_fds;
        } else {
          (i == 0 ? r.out : r.err).append(buf, static_cast<size_t>(n));
        }
      }
    }
    for (auto& f : fds)
      if (f.fd >= 0) close(f.fd);
    int st = 0;
    if (open_fds > 0) kill(pid, SIGKILL);
    waitpid(pid, &st, 0);
    r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    return r;
  }

  std::string root;
  std::vector<std::string> vars;
};

/// The real daemon under a TestEnv; killed (SIGKILL) on destruction if
/// still running.
class Daemon {
 public:
  Daemon(const TestEnv& env, std::vector<std::string> extra = {}) : env_(env) {
    std::vector<std::string> argv = {AGTMUXD_BIN, "--fast-durability"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    pid_ = env.Spawn(argv);
  }
  ~Daemon() {
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }
  bool WaitReady(int timeout_ms = 10000) {
    return PollUntil([&] {
      auto r = Call("GET", "/v1/health");
      return r.ok() && r->status == 200;
    }, timeout_ms);
  }
  core::Result<net::HttpResponse> Call(const std::string& method, const std::string& path,
                                       const std::string& body = "") const {
    net::UnixHttpClientOptions o;
    o.socket_path = env_.socket();
    o.read_timeout = 10 * core::kNsPerSec;
    net::HttpRequest req;
    req.method = method;
    req.path = path;
    if (!body.empty()) {
      req.content_type = "application/json";
      req.body = body;
    }
    return net::HttpCall(o, req);
  }
  /// Sends a signal and reaps; returns the exit status (128+sig if killed).
  int Stop(int sig) {
    kill(pid_, sig);
    int st = 0;
    waitpid(pid_, &st, 0);
    pid_ = -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  }
  /// Sends a signal and waits at most `timeout_ms` for the exit: its status
  /// as Stop's, or -1 when the daemon was still running (it is then killed).
  int StopWithin(int sig, int timeout_ms) {
    kill(pid_, sig);
    return WaitExit(timeout_ms);
  }
  /// Waits at most `timeout_ms` for the daemon to exit on its own: its
  /// status as Stop's, or -1 when it was still running.
  int WaitExit(int timeout_ms) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
    int st = 0;
    pid_t done = 0;
    while ((done = waitpid(pid_, &st, WNOHANG)) == 0 && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    if (done != pid_) return -1;  // the destructor kills and reaps it
    pid_ = -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  }
  pid_t pid() const { return pid_; }

 private:
  const TestEnv& env_;
  pid_t pid_ = -1;
};

/// A raw connection for malformed or slow traffic.
class RawConn {
 public:
  explicit RawConn(const std::string& path) {
    fd_ = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    std::strncpy(a.sun_path, path.c_str(), sizeof a.sun_path - 1);
    if (connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
      close(fd_);
      fd_ = -1;
    }
  }
  ~RawConn() {
    if (fd_ >= 0) close(fd_);
  }
  bool ok() const { return fd_ >= 0; }
  /// True when the peer has closed (EOF or reset), without waiting.
  bool PeerClosed() {
    pollfd p{fd_, POLLIN, 0};
    if (fd_ < 0 || poll(&p, 1, 0) <= 0) return fd_ < 0;
    char tmp[4096];
    ssize_t n;
    while ((n = recv(fd_, tmp, sizeof tmp, MSG_DONTWAIT)) > 0) buf_.append(tmp, static_cast<size_t>(n));
    if (n == 0 || (n < 0 && errno != EAGAIN)) eof_ = true;
    return eof_;
  }
  bool Send(const std::string& s) { return send(fd_, s.data(), s.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(s.size()); }
  /// Reads until `until` appears in what was read, EOF, or the timeout.
  std::string ReadUntil(const std::string& until, int timeout_ms = 5000) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
    while (buf_.find(until) == std::string::npos && std::chrono::steady_clock::now() < deadline) {
      pollfd p{fd_, POLLIN, 0};
      if (poll(&p, 1, 50) <= 0) continue;
      char tmp[8192];
      ssize_t n = recv(fd_, tmp, sizeof tmp, 0);
      if (n <= 0) {
        eof_ = true;
        break;
      }
      buf_.append(tmp, static_cast<size_t>(n));
    }
    return buf_;
  }
  bool eof() const { return eof_; }
  void Clear() { buf_.clear(); }
  std::string& buffer() { return buf_; }

 private:
  int fd_ = -1;
  std::string buf_;
  bool eof_ = false;
};

/// A minimal event JSON for tests.
inline std::string EventJson(const std::string& id, const std::string& type, const std::string& runtime,
                             const std::string& pane, const std::string& extra) {
  return "{\"event_id\":\"" + id + "\",\"event_type\":\"" + type +
         "\",\"source\":\"wrapper\",\"dedupe_key\":\"dk-" + id +
         "\",\"event_time\":\"2026-11-22T04:00:00Z\",\"runtime_id\":\"" + runtime +
         "\",\"target_id\":\"host\",\"pane_id\":\"" + pane + "\"" + extra + "}";
}

inline std::string Started(const std::string& id, const std::string& runtime, const std::string& pane) {
  return EventJson(id, "wrapper_started", runtime, pane,
                   ",\"pid\":4242,\"runtime\":{\"agent_type\":\"claude\",\"started_at\":\"2026-11-22T04:00:00Z\"}");
}

inline std::string StateEvent(const std::string& id, const std::string& runtime, const std::string& pane,
                              const std::string& state, int seq) {
  return EventJson(id, "state_changed", runtime, pane,
                   ",\"source_seq\":" + std::to_string(seq) + ",\"signal\":{\"state\":\"" + state +
                       "\",\"confidence\":\"high\",\"rule_id\":\"test." + state + "\",\"evidence\":\"line\"}");
}

}  // namespace agt::test
