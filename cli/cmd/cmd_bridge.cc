// `agtmux bridge`: the remote end of federation (docs/architecture.md,
// "Federation"). `--locate` prints the socket this host's agtmuxd listens on
// and says whether it answers; without it the command relays its stdin to
// that socket and the socket's bytes to its stdout, for an sshd that does
// not forward Unix sockets. `--start` starts agtmuxd on demand first, as
// every other command does. Not meant to be typed by a user.
#include <CLI/CLI.hpp>
#include <errno.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <string>

#include "cli/command.h"
#include "cli/client/daemon_client.h"
#include "cli/exit_codes.h"
#include "libagtcore/net/unix_http_client.h"
#include "libagtcore/os/unique_fd.h"

namespace agt::cli {
namespace {

/// Writes all of `data` to a blocking or non-blocking fd; false when it fails.
bool WriteAll(int fd, const char* data, size_t n) {
  while (n > 0) {
    const ssize_t w = write(fd, data, n);
    if (w < 0 && (errno == EINTR || errno == EAGAIN)) {
      pollfd p{fd, POLLOUT, 0};
      poll(&p, 1, 1000);
      continue;
    }
    if (w <= 0) return false;
    data += w;
    n -= size_t(w);
  }
  return true;
}

/// Copies stdin -> socket and socket -> stdout until the socket closes.
int Relay(int sock) {
  pollfd fds[2] = {{0, POLLIN, 0}, {sock, POLLIN, 0}};
  char buf[32768];
  bool stdin_open = true;
  while (true) {
    fds[0].fd = stdin_open ? 0 : -1;
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      return kExitFailed;
    }
    if (stdin_open && (fds[0].revents & (POLLIN | POLLHUP | POLLERR))) {
      const ssize_t n = read(0, buf, sizeof buf);
      if (n > 0) {
        if (!WriteAll(sock, buf, size_t(n))) return kExitFailed;
      } else if (n == 0 || errno != EINTR) {
        stdin_open = false;
        shutdown(sock, SHUT_WR);
      }
    }
    if (fds[1].revents & (POLLIN | POLLHUP | POLLERR)) {
      const ssize_t n = read(sock, buf, sizeof buf);
      if (n > 0) {
        if (!WriteAll(1, buf, size_t(n))) return kExitFailed;
      } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
        return kExitOk;
      }
    }
  }
}

int RunBridge(bool locate, bool start) {
  ClientOptions o;
  o.autostart = start;
  auto client = DaemonClient::Open(o);
  if (!client) return ReportError(client.error());
  const std::string& socket = client->paths().socket_path;
  if (locate) {
    std::printf("%s\n", socket.c_str());
    return client->Alive() ? kExitOk : kExitDaemonUnreachable;
  }
  auto fd = net::ConnectUnixSocket(socket);
  if (!fd) return ReportError(fd.error());
  core::UniqueFd sock(*fd);
  return Relay(sock.get());
}

}  // namespace

CommandSpec BridgeCommand() {
  return {"bridge", "Relay stdin/stdout to this host's agtmuxd (federation over ssh)", [](CLI::App* sub) -> Runner {
            sub->group("");  // hidden: federation's, not the user's
            auto locate = std::make_shared<bool>(false);
            auto start = std::make_shared<bool>(false);
            sub->add_flag("--locate", *locate, "Print the daemon's socket path; exit 0 when it answers, 3 when not");
            sub->add_flag("--start", *start, "Start agtmuxd first when it does not answer");
            return [locate, start] { return RunBridge(*locate, *start); };
          }};
}

}  // namespace agt::cli
