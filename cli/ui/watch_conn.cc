// WatchConnection (see watch_conn.h): connect, send, read, each without
// waiting. Unix-socket connects complete at once or fail (ENOENT,
// ECONNREFUSED); a full listen backlog is only "not yet writable".
#include "cli/ui/watch_conn.h"

#include <poll.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>

#include "libagtcore/net/http_message.h"
#include "libagtcore/net/unix_http_client.h"

namespace agt::cli::ui {

core::Status WatchConnection::Open(const std::string& socket_path, const std::string& path) {
  Close();
  auto fd = net::ConnectUnixSocket(socket_path);
  if (!fd) return fd.error();
  fd_ = core::UniqueFd(*fd);
  net::HttpRequest req;
  req.path = path;
  unsent_ = net::FormatHttpRequest(req);
  decoder_ = LineStreamDecoder();
  return core::Ok();
}

void WatchConnection::Close() {
  fd_.Reset();
  unsent_.clear();
}

short WatchConnection::events() const { return static_cast<short>(POLLIN | (unsent_.empty() ? 0 : POLLOUT)); }

core::Status WatchConnection::OnReady(const std::function<bool(std::string_view)>& on_line) {
  auto fail = [&](core::Error e) -> core::Status {
    Close();
    return e;
  };
  while (!unsent_.empty()) {
    ssize_t n = ::send(fd_.get(), unsent_.data(), unsent_.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) break;
    if (n < 0)
      return fail(core::MakeError(core::Err::kDaemonUnreachable, std::string("send: ") + std::strerror(errno)));
    unsent_.erase(0, static_cast<size_t>(n));
  }
  char buf[65536];
  while (true) {
    ssize_t n = ::recv(fd_.get(), buf, sizeof buf, MSG_DONTWAIT);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) return core::Ok();
    if (n < 0)
      return fail(core::MakeError(core::Err::kDaemonUnreachable, std::string("recv: ") + std::strerror(errno)));
    if (n == 0) return fail(core::MakeError(core::Err::kDaemonUnreachable, "the watch stream was cut off"));
    switch (decoder_.Feed(std::string_view(buf, static_cast<size_t>(n)), on_line)) {
      case LineStreamDecoder::Status::kMore: break;
      case LineStreamDecoder::Status::kEnded:
      case LineStreamDecoder::Status::kStopped:
        return fail(core::MakeError(core::Err::kDaemonUnreachable, "the daemon ended the watch stream"));
      case LineStreamDecoder::Status::kFailed: return fail(decoder_.error());
    }
  }
}

}  // namespace agt::cli::ui
