// Helpers shared by the wrapper's process-level tests: temporary
// directories, running the real `agtmux` binary with a private environment,
// and polling with a deadline.
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <functional>
#include <string>
#include <thread>
#include <vector>

namespace agt::wrap::testing {

/// The agtmux binary under test (meson passes AGTMUX_BIN).
inline std::string AgtmuxBin() {
  const char* b = std::getenv("AGTMUX_BIN");
  return b ? b : "agtmux";
}

/// Polls `pred` every 10 ms until it is true or `timeout_ms` passed.
inline bool WaitFor(const std::function<bool()>& pred, int timeout_ms) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (std::chrono::steady_clock::now() < deadline) {
    if (pred()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return pred();
}

/// A fresh directory under $TMPDIR, removed (rm -rf) on destruction.
class TempDir {
 public:
  TempDir() {
    const char* base = std::getenv("TMPDIR");
    path_ = std::string(base ? base : "/tmp") + "/agtmux-wrap-XXXXXX";
    if (::mkdtemp(path_.data()) == nullptr) std::abort();
  }
  ~TempDir() {
    // A process that just got SIGHUP may still be writing its spool: retry.
    const std::string cmd = "rm -rf '" + path_ + "' 2>/dev/null";
    WaitFor([&] { return std::system(cmd.c_str()) == 0; }, 2000);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

/// Starts a process with `env` added to ours; stdin from /dev/null unless
/// `stdin_fd` is given.
inline pid_t Spawn(const std::vector<std::string>& argv,
                   const std::vector<std::string>& env, int stdin_fd = -1,
                   int stdout_fd = -1) {
  const pid_t pid = ::fork();
  if (pid != 0) return pid;
  for (const std::string& kv : env) ::putenv(const_cast<char*>(kv.c_str()));
  if (stdin_fd >= 0) {
    ::dup2(stdin_fd, 0);
  } else {
    int fd = ::open("/dev/null", O_RDONLY);
    ::dup2(fd, 0);
  }
  if (stdout_fd >= 0) ::dup2(stdout_fd, 1);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  ::execv(args[0], args.data());
  ::_exit(127);
}

/// Waits for `pid` up to `timeout_ms`; returns the wait status, or -1 after
/// killing it on timeout.
inline int WaitExit(pid_t pid, int timeout_ms) {
  int status = 0;
  const bool done = WaitFor([&] { return ::waitpid(pid, &status, WNOHANG) == pid; }, timeout_ms);
  if (!done) {
    ::kill(pid, SIGKILL);
    ::waitpid(pid, &status, 0);
    return -1;
  }
  return status;
}

}  // namespace agt::wrap::testing
