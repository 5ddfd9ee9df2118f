// A small synchronous HTTP/1.1 client over a Unix stream socket, with a
// deadline for connecting and one for the whole exchange. The CLI commands
// and `agtmux hook` use it to talk to agtmuxd; the wrapper does not (its
// passthrough must never block, see wrap/event_emitter.h).
#pragma once

#include <string>

#include "libagtcore/net/http_message.h"
#include "libagtcore/base/result.h"
#include "libagtcore/vocabulary.h"

namespace agt::net {

struct UnixHttpClientOptions {
  std::string socket_path;
  core::TimeNs connect_timeout = 1 * core::kNsPerSec;
  core::TimeNs read_timeout = 5 * core::kNsPerSec;  // for writing the request and reading the answer
};

/// Sends `req` on a new connection and reads the whole response.
/// E_DAEMON_UNREACHABLE when the socket is missing or refuses the connection,
/// E_TIMEOUT when a deadline passes, E_IO on other socket errors. Any HTTP
/// status is a success here; callers look at `status`.
core::Result<HttpResponse> HttpCall(const UnixHttpClientOptions& opts, const HttpRequest& req);

/// Opens a non-blocking, close-on-exec Unix stream socket connected to
/// `path`; shared by the blocking client, the CLI's streams and tests. A
/// full listen backlog is waited out for at most `timeout` (E_TIMEOUT).
core::Result<int> ConnectUnixSocket(const std::string& path, core::TimeNs timeout = core::kNsPerSec);

}  // namespace agt::net
