// Running another program, the one way agtmux does it (issue 23): by argv,
// never through a shell, so arguments reach the program exactly as given
// (names with spaces, quotes or `;` are just bytes). Three shapes:
//   RunArgv        run, feed stdin, collect stdout and stderr, kill at a
//                  deadline (tmux commands, the calling client's name);
//   SpawnDetached  start a program that outlives us, re-parented to init
//                  (agtmuxd started on demand, Codex's chained notify);
//   ExecArgv       become the program (`agtmux attach`).
// The programs a libuv loop waits for (the notifier's commands, a `tmux -C`
// client) go through uv_spawn on that loop instead; the wrapper's agent runs
// on a PTY (wrap/pty_child.cc). Code that runs programs and wants a test
// double takes an ArgvRunner (tests/os/fake_argv_runner.h is the fake).
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "libagtcore/base/result.h"
#include "libagtcore/base/time_ns.h"

namespace agt::core {

struct RunOptions {
  TimeNs timeout = 5 * kNsPerSec;  // then the program is killed (SIGKILL) and reaped
  std::string stdin_data;          // written to its stdin, which is then closed
  size_t max_output = 16 << 20;    // bytes kept per stream; the rest is read and dropped
};

struct RunResult {
  int exit_code = 0;  // exit status, or 128+signal
  std::string out;    // stdout
  std::string err;    // stderr
  bool operator==(const RunResult&) const = default;
};

/// Runs argv[0] (searched in PATH) with this process's environment, signal
/// mask cleared and SIGPIPE at its default. E_IO when it cannot start
/// ("cannot run tmux: No such file or directory"), E_TIMEOUT when it has not
/// closed its output by the deadline (it is killed), E_INTERNAL for an empty
/// argv. A program that ran and failed is a RunResult with its exit code.
Result<RunResult> RunArgv(const std::vector<std::string>& argv, const RunOptions& options = {});

struct DetachOptions {
  /// The file to exec; empty: argv[0] searched in PATH.
  std::string path;
  /// stderr appended to this file (created 0600, never through a symlink);
  /// empty: /dev/null. stdin and stdout are /dev/null.
  std::string stderr_path;
};

/// Starts argv in a new session, detached (double fork: re-parented to
/// init, never our zombie), with every fd above 2 closed so it holds none of
/// our caller's pipes. Returns its pid; E_IO when the fork fails. That the
/// exec itself failed shows as the pid exiting with 127.
Result<pid_t> SpawnDetached(const std::vector<std::string>& argv, const DetachOptions& options = {});

/// Replaces this process with argv[0] (searched in PATH). Returns only on
/// failure: E_IO "cannot run <program>: <reason>".
Error ExecArgv(const std::vector<std::string>& argv);

/// The seam for code that runs programs: RealArgvRunner calls RunArgv.
class ArgvRunner {
 public:
  virtual ~ArgvRunner() = default;
  virtual Result<RunResult> Run(const std::vector<std::string>& argv, const RunOptions& options) = 0;
};

class RealArgvRunner final : public ArgvRunner {
 public:
  Result<RunResult> Run(const std::vector<std::string>& argv, const RunOptions& options) override {
    return RunArgv(argv, options);
  }
  /// The process-wide instance.
  static RealArgvRunner& Get();
};

}  // namespace agt::core
