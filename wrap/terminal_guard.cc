// The outer terminal's raw mode and its restoration (see terminal_guard.h).
// tcsetattr and fcntl are async-signal-safe, so Restore() may also run from
// a fatal signal path.
#include "wrap/terminal_guard.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

namespace agt::wrap {

TerminalGuard::TerminalGuard(int fd) : fd_(fd) {
  saved_ok_ = ::isatty(fd) == 1 && ::tcgetattr(fd, &saved_) == 0;
  saved_flags_ = ::fcntl(fd, F_GETFL);
}

void TerminalGuard::MakeRaw() {
  if (!saved_ok_) return;
  raw_wanted_ = true;
  termios raw = saved_;
  // The child's PTY does the line discipline's work (echo, signals, output
  // processing); the outer terminal must pass bytes through both ways.
  ::cfmakeraw(&raw);
  raw.c_cc[VMIN] = 1;
  raw.c_cc[VTIME] = 0;
  while (::tcsetattr(fd_, TCSADRAIN, &raw) != 0 && errno == EINTR) {
  }
  raw_ = true;
}

void TerminalGuard::Restore() {
  if (saved_flags_ >= 0) {
    const int now = ::fcntl(fd_, F_GETFL);
    if (now >= 0 && now != saved_flags_) {
      running_flags_ = now;
      ::fcntl(fd_, F_SETFL, saved_flags_);
    }
  }
  if (!saved_ok_ || !raw_) return;
  while (::tcsetattr(fd_, TCSADRAIN, &saved_) != 0 && errno == EINTR) {
  }
  raw_ = false;
}

void TerminalGuard::Reapply() {
  if (running_flags_ >= 0) ::fcntl(fd_, F_SETFL, running_flags_);
  if (raw_wanted_) MakeRaw();
}

}  // namespace agt::wrap
