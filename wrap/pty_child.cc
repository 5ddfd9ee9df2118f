// Starting the wrapped program on a PTY (see pty_child.h). Between fork and
// exec the child only calls async-signal-safe functions on data prepared
// before the fork.
#include "wrap/pty_child.h"

#include <fcntl.h>
#include <pty.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

extern char** environ;

namespace agt::wrap {

core::Result<std::string> ResolveExecutable(const std::string& name,
                                            const std::string& path_var) {
  if (name.empty())
    return core::MakeError(core::Err::kNotFound, "empty command name");
  auto runnable = [](const std::string& p) {
    struct stat st {};
    return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(p.c_str(), X_OK) == 0;
  };
  if (name.find('/') != std::string::npos) {
    if (runnable(name)) return name;
    return core::MakeError(core::Err::kNotFound, name + ": no such executable file");
  }
  size_t start = 0;
  while (start <= path_var.size()) {
    size_t end = path_var.find(':', start);
    if (end == std::string::npos) end = path_var.size();
    std::string_view dir = std::string_view(path_var).substr(start, end - start);
    if (dir.empty()) dir = ".";
    std::string candidate;
    candidate.reserve(dir.size() + 1 + name.size());
    candidate.append(dir).append(1, '/').append(name);
    if (runnable(candidate)) return candidate;
    start = end + 1;
  }
  return core::MakeError(core::Err::kNotFound, name + ": command not found in PATH");
}

void SetPtySize(int master_fd, int rows, int cols) {
  winsize ws{};
  ws.ws_row = static_cast<unsigned short>(rows);
  ws.ws_col = static_cast<unsigned short>(cols);
  ::ioctl(master_fd, TIOCSWINSZ, &ws);
}

bool GetTerminalSize(int fd, int* rows, int* cols) {
  winsize ws{};
  if (::ioctl(fd, TIOCGWINSZ, &ws) != 0 || ws.ws_row == 0 || ws.ws_col == 0) return false;
  *rows = ws.ws_row;
  *cols = ws.ws_col;
  return true;
}

core::Result<PtyChild> PtyChild::Spawn(const PtySpawnOptions& opts) {
  // Everything the child needs, prepared before fork.
  std::vector<char*> argv;
  for (const std::string& a : opts.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::vector<std::string> env_store;
  for (char** e = environ; *e != nullptr; ++e) {
    std::string_view kv(*e);
    const std::string_view key = kv.substr(0, kv.find('='));
    bool replaced = false;
    for (const auto& [k, v] : opts.set_env) replaced |= (k == key);
    if (!replaced) env_store.emplace_back(kv);
  }
  for (const auto& [k, v] : opts.set_env) {
    std::string kv;
    kv.reserve(k.size() + v.size() + 1);
    kv.append(k).append(1, '=').append(v);
    env_store.push_back(std::move(kv));
  }
  std::vector<char*> envp;
  for (std::string& s : env_store) envp.push_back(s.data());
  envp.push_back(nullptr);

  int errpipe[2];
  if (::pipe2(errpipe, O_CLOEXEC) != 0)
    return core::MakeError(core::Err::kIo, std::string("pipe: ") + std::strerror(errno));
  core::UniqueFd err_read(errpipe[0]);
  core::UniqueFd err_write(errpipe[1]);

  winsize ws{};
  ws.ws_row = static_cast<unsigned short>(opts.rows);
  ws.ws_col = static_cast<unsigned short>(opts.cols);
  termios tio{};
  if (opts.tty_modes) tio = *opts.tty_modes;
  int master = -1;
  const pid_t pid = ::forkpty(&master, nullptr, opts.tty_modes ? &tio : nullptr, &ws);
  if (pid < 0)
    return core::MakeError(core::Err::kIo, std::string("forkpty: ") + std::strerror(errno));
  if (pid == 0) {
    // Child: default signal dispositions and an empty mask, then exec.
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    for (int sig = 1; sig < NSIG; ++sig)
      if (sig != SIGKILL && sig != SIGSTOP) ::signal(sig, SIG_DFL);
    if (opts.no_echo) {
      termios t;
      if (::tcgetattr(0, &t) == 0) {
        t.c_lflag &= ~static_cast<tcflag_t>(ECHO | ECHOE | ECHOK | ECHONL);
        ::tcsetattr(0, TCSANOW, &t);
      }
    }
    ::execve(opts.path.c_str(), argv.data(), envp.data());
    const int e = errno;
    ssize_t ignored = ::write(errpipe[1], &e, sizeof e);
    (void)ignored;
    ::_exit(127);
  }
  err_write.Reset();
  core::UniqueFd master_fd(master);
  ::fcntl(master, F_SETFD, FD_CLOEXEC);
  int child_errno = 0;
  ssize_t n;
  do {
    n = ::read(err_read.get(), &child_errno, sizeof child_errno);
  } while (n < 0 && errno == EINTR);
  if (n == sizeof child_errno) {
    int status = 0;
    ::waitpid(pid, &status, 0);
    return core::MakeError(child_errno == ENOENT ? core::Err::kNotFound : core::Err::kIo,
                           opts.path + ": cannot execute: " + std::strerror(child_errno));
  }
  return PtyChild(pid, std::move(master_fd));
}

}  // namespace agt::wrap
