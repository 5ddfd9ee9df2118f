// FindCallingClient: one `tmux display-message` run with the caller's
// environment (tmux reads $TMUX_PANE from it to find the current client),
// its output read with a 2 s bound so a stopped server cannot hang attach.
#include "cli/client/tmux_client.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <vector>

#include "libagtcore/os/unique_fd.h"

namespace agt::cli {

core::Result<CallingClient> FindCallingClient() {
  const char* tmux_env = std::getenv("TMUX");
  if (tmux_env == nullptr || *tmux_env == '\0')
    return core::MakeError(core::Err::kNotFound, "not inside tmux ($TMUX is not set)");
  CallingClient out;
  out.socket = tmux_env;
  out.socket = out.socket.substr(0, out.socket.find(','));
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return core::MakeError(core::Err::kIo, "pipe failed");
  core::UniqueFd read_end(fds[0]), write_end(fds[1]);
  std::vector<std::string> argv = {"tmux", "-S", out.socket, "display-message", "-p", "#{client_name}"};
  pid_t pid = fork();
  if (pid < 0) return core::MakeError(core::Err::kIo, "fork failed");
  if (pid == 0) {
    dup2(write_end.get(), STDOUT_FILENO);
    int null = open("/dev/null", O_RDWR);
    if (null >= 0) dup2(null, STDERR_FILENO);
    std::vector<char*> args;
    for (auto& a : argv) args.push_back(a.data());
    args.push_back(nullptr);
    execvp(args[0], args.data());
    _exit(127);
  }
  write_end.Reset();
  std::string text;
  char buf[512];
  pollfd p{read_end.get(), POLLIN, 0};
  while (poll(&p, 1, 2000) > 0) {
    ssize_t n = read(read_end.get(), buf, sizeof buf);
    if (n <= 0) break;
    text.append(buf, static_cast<size_t>(n));
  }
  kill(pid, SIGKILL);  // gone already unless it hung
  int status = 0;
  waitpid(pid, &status, 0);
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  if (text.empty())
    return core::MakeError(core::Err::kNotFound,
                           "no tmux client shows this pane's session (tmux -S " + out.socket + ")");
  out.name = text;
  return out;
}

}  // namespace agt::cli
