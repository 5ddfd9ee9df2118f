// bare_pty: the baseline for the wrapper benchmarks. The smallest possible
// PTY proxy: forkpty, raw mode on the outer terminal, and a poll() loop that
// copies bytes both ways. No screen, no analysis, no events.
//   bare_pty <command> [args...]
#include <poll.h>
#include <pty.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: bare_pty <command> [args...]\n");
    return 2;
  }
  termios saved{};
  const bool tty = ::tcgetattr(0, &saved) == 0;
  winsize ws{24, 80, 0, 0};
  ::ioctl(0, TIOCGWINSZ, &ws);
  int master = -1;
  const pid_t pid = ::forkpty(&master, nullptr, tty ? &saved : nullptr, &ws);
  if (pid == 0) {
    ::execvp(argv[1], argv + 1);
    ::_exit(127);
  }
  if (tty) {
    termios raw = saved;
    ::cfmakeraw(&raw);
    ::tcsetattr(0, TCSADRAIN, &raw);
  }
  static char buf[65536];
  pollfd fds[2] = {{master, POLLIN, 0}, {0, POLLIN, 0}};
  for (;;) {
    if (::poll(fds, 2, -1) < 0 && errno != EINTR) break;
    if (fds[0].revents) {
      const ssize_t n = ::read(master, buf, sizeof buf);
      if (n <= 0) break;
      for (ssize_t off = 0; off < n;) {
        const ssize_t w = ::write(1, buf + off, static_cast<size_t>(n - off));
        if (w <= 0) break;
        off += w;
      }
    }
    if (fds[1].revents) {
      const ssize_t n = ::read(0, buf, sizeof buf);
      if (n <= 0) {
        fds[1].fd = -1;
      } else if (::write(master, buf, static_cast<size_t>(n)) < 0) {
        break;
      }
    }
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (tty) ::tcsetattr(0, TCSADRAIN, &saved);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
