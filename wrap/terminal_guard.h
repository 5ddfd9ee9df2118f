// TerminalGuard: owns the outer terminal's mode while the wrapper runs. It
// saves the termios settings, switches to raw mode, and restores the saved
// settings on every exit path: its destructor, an explicit Restore() before
// exit or a job-control stop, and Reapply() after SIGCONT. When stdin is not
// a terminal it does nothing at all.
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
  /// Puts the saved settings back (TCSADRAIN, so pending output keeps its
  /// meaning). Idempotent; async-signal-safe.
  void Restore();
  /// Raw mode again after a stop/continue: the shell reset the terminal.
  void Reapply() { if (raw_wanted_) MakeRaw(); }

 private:
  int fd_;
  bool saved_ok_ = false;
  bool raw_ = false;
  bool raw_wanted_ = false;
  termios saved_{};
};

}  // namespace agt::wrap
