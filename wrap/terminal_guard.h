// TerminalGuard: owns the outer terminal's mode while the wrapper runs. It
// saves the termios settings and the file status flags, switches to raw
// mode, and restores both on every exit path: its destructor, an explicit
// Restore() before exit or a job-control stop, and Reapply() after SIGCONT.
// The flags matter because libuv makes the fd it polls non-blocking, and a
// terminal's open file description is shared with the shell that started
// us: left non-blocking, the next program there reads EAGAIN. When stdin is
// not a terminal only the flags are kept.
#pragma once

#include <termios.h>

namespace agt::wrap {

class TerminalGuard {
 public:
  /// Takes `fd` (normally 0). Does not change anything yet.
  explicit TerminalGuard(int fd);
  ~TerminalGuard() { Restore(); }
  TerminalGuard(const TerminalGuard&) = delete;
  TerminalGuard& operator=(const TerminalGuard&) = delete;

  /// True when fd is a terminal and its settings were saved.
  bool is_tty() const { return saved_ok_; }
  /// The settings found at start, for the child's PTY.
  const termios& saved() const { return saved_; }
  /// Switches to raw mode (cfmakeraw). No-op when not a tty.
  void MakeRaw();
  /// Puts the saved settings (TCSADRAIN, so pending output keeps its
  /// meaning) and file status flags back. Idempotent; async-signal-safe.
  void Restore();
  /// Raw mode and the running flags again after a stop/continue: the shell
  /// reset the terminal.
  void Reapply();

 private:
  int fd_;
  bool saved_ok_ = false;
  bool raw_ = false;
  bool raw_wanted_ = false;
  termios saved_{};
  int saved_flags_ = -1;    // F_GETFL at start; -1 = unknown
  int running_flags_ = -1;  // the flags Restore() replaced, for Reapply()
};

}  // namespace agt::wrap
