// Session churn on a private tmux server, for the tests and benchmarks of
// tmux 3.3a's crash with half-identified control clients (docs/observe.md,
// "tmux 3.3a and control clients"): shell loops that create, rename and
// kill sessions, killed (SIGKILL) and reaped on destruction.
#pragma once

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <string>
#include <vector>

extern char** environ;

namespace agt::agg::testing {

/// A loop that makes `<tag><i>`, renames it `<tag>r<i>` and kills it, in
/// one tmux command per round and as fast as tmux answers: sessions that
/// live a few milliseconds.
inline std::string TightChurn(const std::string& socket, const std::string& tag) {
  const std::string t = "tmux -S '" + socket + "' -f /dev/null ";
  return "i=0; while :; do i=$((i+1)); " + t + "new-session -d -s " + tag + "$i \\; rename-session -t " + tag +
         "$i " + tag + "r$i \\; kill-session -t " + tag + "r$i 2>/dev/null; done";
}

/// A loop that every `period` (sleep(1)'s syntax) kills the session made
/// `keep` rounds before and makes and renames a new one: `keep` sessions
/// alive at a time, each living `keep` periods.
inline std::string LivedChurn(const std::string& socket, const std::string& tag, const std::string& period,
                              int keep) {
  const std::string t = "tmux -S '" + socket + "' -f /dev/null ";
  return "i=0; while :; do i=$((i+1)); " + t + "kill-session -t " + tag + "r$((i-" + std::to_string(keep) +
         ")) 2>/dev/null; " + t + "new-session -d -s " + tag + "$i \\; rename-session -t " + tag + "$i " + tag +
         "r$i; sleep " + period + "; done";
}

/// A loop that renames session `target` every `period`, back and forth.
inline std::string RenameLoop(const std::string& socket, const std::string& target, const std::string& period) {
  const std::string t = "tmux -S '" + socket + "' -f /dev/null ";
  return "i=0; while :; do i=$((i+1)); " + t + "rename-session -t '" + target + "' '" + target + "'$((i%2)) && " +
         t + "rename-session -t '" + target + "'$((i%2)) '" + target + "'; sleep " + period + "; done";
}

class SessionChurn {
 public:
  /// One /bin/sh per script.
  explicit SessionChurn(const std::vector<std::string>& scripts) {
    for (const std::string& script : scripts) {
      const char* argv[] = {"/bin/sh", "-c", script.c_str(), nullptr};
      pid_t pid = -1;
      if (posix_spawn(&pid, "/bin/sh", nullptr, nullptr, const_cast<char**>(argv), environ) == 0)
        pids_.push_back(pid);
    }
  }
  ~SessionChurn() { Stop(); }
  SessionChurn(const SessionChurn&) = delete;
  SessionChurn& operator=(const SessionChurn&) = delete;

  size_t running() const { return pids_.size(); }
  void Stop() {
    for (pid_t p : pids_) {
      kill(p, SIGKILL);
      waitpid(p, nullptr, 0);
    }
    pids_.clear();
  }

 private:
  std::vector<pid_t> pids_;
};

}  // namespace agt::agg::testing
