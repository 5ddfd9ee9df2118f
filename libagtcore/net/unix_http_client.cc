// The blocking HTTP-over-Unix-socket client (see unix_http_client.h). It
// uses a non-blocking socket and poll() so that every step honours a deadline:
// a daemon that accepts but never answers costs at most read_timeout.
#include "libagtcore/net/unix_http_client.h"

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>

#include "libagtcore/os/unique_fd.h"

namespace agt::net {
namespace {

core::TimeNs MonoNow() {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * core::kNsPerSec + ts.tv_nsec;
}

/// Waits for `events` on fd until `deadline`; false on timeout.
core::Status WaitFor(int fd, short events, core::TimeNs deadline, const char* what) {
  for (;;) {
    const core::TimeNs left = deadline - MonoNow();
    if (left <= 0)
      return core::MakeError(core::Err::kTimeout, std::string("daemon socket: timed out ") + what);
    pollfd p{fd, events, 0};
    const int ms = static_cast<int>((left + core::kNsPerMs - 1) / core::kNsPerMs);
    const int r = ::poll(&p, 1, ms);
    if (r > 0) return core::Ok();
    if (r < 0 && errno != EINTR)
      return core::MakeError(core::Err::kIo, std::string("poll: ") + std::strerror(errno));
  }
}

}  // namespace

core::Result<int> ConnectUnixSocket(const std::string& path, core::TimeNs timeout) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (path.empty() || path.size() >= sizeof addr.sun_path)
    return core::MakeError(core::Err::kConfigInvalid,
                           "socket path \"" + path + "\" is empty or longer than " +
                               std::to_string(sizeof addr.sun_path - 1) + " bytes");
  std::memcpy(addr.sun_path, path.data(), path.size());
  core::UniqueFd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (!fd.valid())
    return core::MakeError(core::Err::kIo, std::string("socket: ") + std::strerror(errno));
  // A Unix socket connects at once or not at all: EAGAIN (the listen
  // backlog is full) leaves it unconnected, not connecting, so the connect
  // is tried again until the deadline.
  const core::TimeNs deadline = MonoNow() + timeout;
  while (::connect(fd.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    const int e = errno;
    if (e == EINTR) continue;
    if (e != EAGAIN)
      return core::MakeError(core::Err::kDaemonUnreachable,
                             "cannot connect to agtmuxd at " + path + ": " + std::strerror(e));
    if (MonoNow() >= deadline)
      return core::MakeError(core::Err::kTimeout, "cannot connect to agtmuxd at " + path +
                                                      ": its listen backlog stayed full (timed out)");
    const timespec pause{0, 5 * core::kNsPerMs};
    ::nanosleep(&pause, nullptr);
  }
  return fd.Release();
}

core::Result<HttpResponse> HttpCall(const UnixHttpClientOptions& opts, const HttpRequest& req) {
  auto connected = ConnectUnixSocket(opts.socket_path, opts.connect_timeout);
  if (!connected) return connected.error();
  core::UniqueFd fd(*connected);

  const core::TimeNs deadline = MonoNow() + opts.read_timeout;
  const std::string wire = FormatHttpRequest(req);
  size_t off = 0;
  while (off < wire.size()) {
    const ssize_t n = ::send(fd.get(), wire.data() + off, wire.size() - off, MSG_NOSIGNAL);
    if (n > 0) {
      off += static_cast<size_t>(n);
    } else if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
      if (auto w = WaitFor(fd.get(), POLLOUT, deadline, "sending the request"); !w)
        return w.error();
    } else {
      return core::MakeError(core::Err::kDaemonUnreachable,
                             std::string("sending to agtmuxd: ") + std::strerror(errno));
    }
  }

  HttpResponseParser parser;
  char buf[16384];
  for (;;) {
    const ssize_t n = ::recv(fd.get(), buf, sizeof buf, 0);
    HttpResponseParser::Status st;
    if (n > 0) {
      st = parser.Feed(std::string_view(buf, static_cast<size_t>(n)));
    } else if (n == 0) {
      st = parser.Finish();
    } else if (errno == EAGAIN || errno == EINTR) {
      if (auto w = WaitFor(fd.get(), POLLIN, deadline, "waiting for the answer"); !w)
        return w.error();
      continue;
    } else {
      return core::MakeError(core::Err::kDaemonUnreachable,
                             std::string("reading from agtmuxd: ") + std::strerror(errno));
    }
    if (st == HttpResponseParser::Status::kDone) return std::move(parser.response());
    if (st == HttpResponseParser::Status::kError)
      return core::MakeError(core::Err::kDaemonUnreachable, parser.error());
  }
}

}  // namespace agt::net
