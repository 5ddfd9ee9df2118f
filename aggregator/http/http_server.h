// The daemon's HTTP/1.1 server on a libuv Unix-socket listener. It owns the
// connections (keep-alive, pipelined requests answered in order), applies the
// limits (header bytes, body bytes, request deadlines, connection cap,
// write backpressure; docs/api.md, Limits), checks the peer's uid with
// SO_PEERCRED, and turns every malformed request into a JSON error in the API's
// error shape (docs/api.md, Errors). Handlers run on the loop thread and answer
// at once, defer their answer (an action that runs off the loop answers
// later), or open a chunked stream (watch) that outlives the call.
#pragma once

#include <sys/types.h>
#include <uv.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "aggregator/http/http_request.h"
#include "libagtcore/base/result.h"

namespace agt::agg {

/// A complete (non-streaming) response.
struct HttpResponse {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
};

/// A chunked response that stays open (watch). Writes after the client
/// went away are dropped; `closed()` tells.
class ChunkedStream {
 public:
  virtual ~ChunkedStream() = default;
  /// Sends one chunk; false when the stream is closed or the client lags
  /// too far behind (the stream is then closed).
  virtual bool Write(std::string_view chunk) = 0;
  /// Ends the chunked body and closes the connection.
  virtual void End() = 0;
  virtual bool closed() const = 0;
  /// Called once when the connection closes (client gone, End, shutdown).
  virtual void OnClose(std::function<void()> cb) = 0;
};

/// An answer promised by a handler that returned without one. Reply is
/// called once, on the loop thread (work done elsewhere comes back to the
/// loop first). After the client went away the answer is dropped; the
/// connection reads no further request until it is answered.
class DeferredReply {
 public:
  virtual ~DeferredReply() = default;
  virtual void Reply(HttpResponse response) = 0;
  /// True once the connection is gone (the answer would be dropped).
  virtual bool closed() const = 0;
};

/// What a handler answers with: Reply once, Defer and answer later, or
/// Stream.
class Exchange {
 public:
  virtual ~Exchange() = default;
  virtual void Reply(HttpResponse response) = 0;
  /// The handler answers later through the returned object (it may also
  /// answer through it before returning).
  virtual std::shared_ptr<DeferredReply> Defer() = 0;
  virtual std::shared_ptr<ChunkedStream> Stream(int status, std::string_view content_type) = 0;
};

using Handler = std::function<void(const HttpRequest&, Exchange&)>;

struct ServerOptions {
  RequestLimits limits;
  // Deadlines are absolute, counted from a request's first byte (reads do
  // not extend them): headers by header_timeout_ms, the whole request (body
  // included) by request_timeout_ms; 0 means 6 x header_timeout_ms. A
  // request that was received whole and whose answer is deferred (an
  // action) is past these deadlines: its handler bounds its own time.
  int64_t header_timeout_ms = 5000;
  int64_t request_timeout_ms = 0;
  int64_t idle_timeout_ms = 120000;   // an idle keep-alive connection is closed after this
  // After a final answer (408, 413, ...) a client that does not read it is
  // closed after this, so a connection never waits on its reader forever.
  int64_t linger_ms = 2000;
  // At most this many connections, and never more than RLIMIT_NOFILE less
  // fd_reserve (the store, spool, logs, tmux and libuv need fds too). A new
  // connection beyond the cap closes the one that has waited longest in
  // its current request or idle time (connections waiting for a deferred
  // answer after the others, watch streams last), so a client can always
  // get in.
  size_t max_connections = 256;
  size_t fd_reserve = 64;
  // Backpressure: a connection's requests are not read while more than
  // this many answer bytes wait to be written to it.
  size_t max_write_queue = 1024 * 1024;
  bool check_peer_uid = true;
  uid_t allowed_uid = 0;              // set by the caller (getuid())
  size_t max_stream_backlog = 8 * 1024 * 1024;  // bytes queued on a stream before it is dropped
};

class HttpServer {
 public:
  HttpServer(uv_loop_t* loop, ServerOptions options, Handler handler);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  /// Listens on `socket_path` (which must not exist) and chmods it 0600.
  /// Closing the listener leaves the file: the caller removes it (when it
  /// is still its own, see aggregator/daemon/home_check.h).
  core::Status Listen(const std::string& socket_path);
  /// Stops accepting, closes idle connections, lets requests in flight
  /// finish (their connections close after the reply), then calls `done`
  /// once every connection is gone.
  void Shutdown(std::function<void()> done);
  /// Closes every connection still open now, replies in flight or not (the
  /// end of a Shutdown whose deadline passed); Shutdown's `done` is not
  /// called after this. The close callbacks free the connections, so the
  /// loop must run them before the server is destroyed.
  void CloseAll();
  size_t connection_count() const;
  /// The connection cap in force (max_connections, lowered to fit the fd
  /// limit at Listen).
  size_t connection_cap() const;

  struct Impl;  // public only so the connection code in the .cc can name it

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace agt::agg
