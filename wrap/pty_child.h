// PtyChild: the wrapped program on its own pseudo-terminal. It is started
// with forkpty() with the outer terminal's size and termios, its environment
// extended with the wrapper's variables, and signals reset to their defaults
// (the wrapper's libuv handlers must not leak into it). An exec failure is
// reported back through a close-on-exec pipe, so "command not found" is an
// error of Spawn, not a mysterious exit status.
#pragma once

#include <sys/types.h>
#include <termios.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "libagtcore/base/result.h"
#include "libagtcore/os/unique_fd.h"

struct winsize;

namespace agt::wrap {

struct PtySpawnOptions {
  std::string path;                 // the executable, resolved (see ResolveExecutable)
  std::vector<std::string> argv;    // argv[0] included, byte for byte
  std::vector<std::pair<std::string, std::string>> set_env;  // added or replaced
  std::optional<struct termios> tty_modes;  // the outer terminal's, when it is one
  bool no_echo = false;             // turn ECHO off on the new PTY
  int rows = 24;
  int cols = 80;
};

class PtyChild {
 public:
  /// Forks the child on a new PTY. E_NOT_FOUND / E_IO naming the program
  /// when exec fails.
  static core::Result<PtyChild> Spawn(const PtySpawnOptions& opts);

  pid_t pid() const { return pid_; }
  int master_fd() const { return master_.get(); }
  /// Gives the master to the caller (the proxy; libuv only polls it).
  core::UniqueFd TakeMaster() { return std::move(master_); }

 private:
  PtyChild(pid_t pid, core::UniqueFd master) : pid_(pid), master_(std::move(master)) {}
  pid_t pid_;
  core::UniqueFd master_;
};

/// Finds `name` like execvp would (in `path_var` when it has no '/').
/// E_NOT_FOUND "<name>: command not found" otherwise.
core::Result<std::string> ResolveExecutable(const std::string& name,
                                            const std::string& path_var);

/// Sets the PTY's window size (TIOCSWINSZ); the kernel then sends SIGWINCH
/// to the child's foreground process group.
void SetPtySize(int master_fd, int rows, int cols);

/// The size of the terminal on `fd`; false when it is not a terminal.
bool GetTerminalSize(int fd, int* rows, int* cols);

}  // namespace agt::wrap
