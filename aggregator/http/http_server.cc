// The daemon's HTTP/1.1 server: libuv pipes for transport, RequestParser for
// the grammar, and the connection rules of the API contract. Every handle is
// closed through uv_close, whose callback frees the connection; a stream the
// watch hub holds keeps only a weak link, so a client that vanishes never
// leaves a dangling pointer behind.
#include "aggregator/http/http_server.h"

#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <algorithm>
#include <set>
#include <utility>

#include "aggregator/http/api_error.h"
#include "libagtcore/os/unique_fd.h"
#include "libagtcore/uv/handles.h"

namespace agt::agg {

namespace {

const char* StatusText(int status) {
  switch (status) {
    case 200: return "OK";
    case 201: return "Created";
    case 400: return "Bad Request";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 408: return "Request Timeout";
    case 409: return "Conflict";
    case 413: return "Payload Too Large";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 503: return "Service Unavailable";
    default: return "Unknown";
  }
}

std::string FormatResponse(const HttpResponse& r, bool keep_alive) {
  std::string out = "HTTP/1.1 " + std::to_string(r.status) + " " + StatusText(r.status) +
                    "\r\nContent-Type: " + r.content_type +
                    "\r\nContent-Length: " + std::to_string(r.body.size()) +
                    (keep_alive ? "\r\nConnection: keep-alive" : "\r\nConnection: close") +
                    "\r\n\r\n";
  out += r.body;
  return out;
}

/// The connection cap that fits the process's fd limit.
size_t ConnectionCap(const ServerOptions& o) {
  rlimit rl{};
  size_t cap = o.max_connections;
  if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY) {
    size_t fds = static_cast<size_t>(rl.rlim_cur);
    cap = std::min(cap, fds > o.fd_reserve + 8 ? fds - o.fd_reserve : 8);
  }
  return std::max<size_t>(cap, 1);
}

}  // namespace

struct Conn;

struct HttpServer::Impl {
  uv_loop_t* loop;
  ServerOptions options;
  Handler handler;
  uv_pipe_t listener{};
  bool listening = false;
  bool shutting_down = false;
  size_t cap = 0;  // ConnectionCap at Listen
  std::set<Conn*> conns;
  std::function<void()> on_shutdown_done;

  void MaybeFinishShutdown();
  void Accept(uv_stream_t* listener);
  void MakeRoom(Conn* admitted);
};

class ConnStream;
class ConnDeferred;

struct Conn {
  HttpServer::Impl* server;
  uv_pipe_t pipe{};
  uv_timer_t timer{};
  std::unique_ptr<RequestParser> parser;
  bool closing = false;
  bool close_after_write = false;
  bool streaming = false;
  bool read_paused = false;   // backpressure: answers queued over the bound
  bool awaiting = false;      // a complete request whose answer is deferred
  bool held = false;          // reading stopped while awaiting: bytes after the request are held
  uint64_t phase_start = 0;   // loop ms when the current request (or idle time) began
  uint64_t completed = 0;     // requests answered
  std::shared_ptr<ConnStream> stream;
  std::shared_ptr<ConnDeferred> deferred;  // the promised answer, while it is owed

  uv_stream_t* s() { return reinterpret_cast<uv_stream_t*>(&pipe); }
  size_t queued() { return uv_stream_get_write_queue_size(s()); }

  void Write(std::string data) {
    if (closing || close_after_write) return;  // nothing may follow a shutdown
    // A write callback runs on a later loop turn (or, cancelled, before the
    // close callbacks), so the connection still exists then.
    if (uv::WriteOwned(s(), std::move(data), [this](int) { OnWritten(); }) != 0) Close();
  }

  void SendResponse(const HttpResponse& r, bool keep_alive) {
    Write(FormatResponse(r, keep_alive));
    if (!keep_alive) CloseAfterWrite();
  }

  void CloseAfterWrite() {
    if (closing || close_after_write) return;
    close_after_write = true;
    uv_read_stop(s());
    uv_timer_start(&timer, OnTimer, static_cast<uint64_t>(server->options.linger_ms), 0);
    auto* req = new uv_shutdown_t;
    req->data = this;
    int rc = uv_shutdown(req, s(), [](uv_shutdown_t* req, int) {
      Conn* c = static_cast<Conn*>(req->data);
      delete req;
      c->Close();
    });
    if (rc != 0) {
      delete req;
      Close();
    }
  }

  void Close();
  void ArmTimer();
  void OnRequest(HttpRequest req);
  void StartReading();
  void Consume(std::string_view data);
  void AfterParse(bool ok, bool was_in_request, uint64_t completed_before);
  void OnWritten();
  void AnswerDeferred(const HttpResponse& r, bool keep_alive);
  void MaybeResume();
  static void OnTimer(uv_timer_t* t);
};

/// The answer a handler owes. The connection holds it while it is owed and
/// detaches it when it closes first, so a late Reply finds no connection
/// and is dropped: the handler's copy never points at a freed connection.
class ConnDeferred final : public DeferredReply {
 public:
  ConnDeferred(Conn* c, bool keep_alive) : conn_(c), keep_alive_(keep_alive) {}
  void Reply(HttpResponse response) override {
    if (answered_) return;
    answered_ = true;
    if (Conn* c = conn_) {
      conn_ = nullptr;
      c->AnswerDeferred(response, keep_alive_);
    }
  }
  bool closed() const override { return conn_ == nullptr; }
  void Detach() { conn_ = nullptr; }

 private:
  Conn* conn_;
  bool keep_alive_;
  bool answered_ = false;
};

class ConnStream final : public ChunkedStream {
 public:
  explicit ConnStream(Conn* c) : conn_(c) {}
  bool Write(std::string_view chunk) override {
    if (!conn_ || chunk.empty()) return conn_ != nullptr;
    if (uv_stream_get_write_queue_size(conn_->s()) > conn_->server->options.max_stream_backlog) {
      conn_->Close();  // a client that does not read is dropped, not buffered forever
      return false;
    }
    char len[32];
    std::snprintf(len, sizeof len, "%zx\r\n", chunk.size());
    std::string data(len);
    data.append(chunk);
    data.append("\r\n");
    conn_->Write(std::move(data));
    return conn_ != nullptr;
  }
  void End() override {
    if (!conn_ || ended_) return;
    ended_ = true;
    Conn* c = conn_;
    c->Write("0\r\n\r\n");
    if (conn_) c->CloseAfterWrite();  // Write may have closed (and detached) it
  }
  bool closed() const override { return conn_ == nullptr; }
  void OnClose(std::function<void()> cb) override { on_close_ = std::move(cb); }
  void Detach() {
    conn_ = nullptr;
    if (on_close_) {
      auto cb = std::move(on_close_);
      on_close_ = nullptr;
      cb();
    }
  }

 private:
  Conn* conn_;
  bool ended_ = false;
  std::function<void()> on_close_;
};

void Conn::Close() {
  if (closing) return;
  closing = true;
  server->conns.erase(this);
  if (stream) {
    auto st = std::move(stream);
    st->Detach();
  }
  if (deferred) {
    auto d = std::move(deferred);
    d->Detach();  // its answer, when it comes, is dropped
  }
  // A shutdown request still pending is called back (cancelled) before the
  // close callbacks, while the connection still exists.
  uv::CloseAll({uv::AsHandle(&timer), uv::AsHandle(&pipe)}, [this] {
    HttpServer::Impl* srv = server;
    delete this;
    srv->MaybeFinishShutdown();
  });
}

void Conn::ArmTimer() {
  if (closing || streaming || close_after_write) return;
  if (awaiting) {
    uv_timer_stop(&timer);  // the handler bounds its own time
    return;
  }
  const ServerOptions& o = server->options;
  int64_t limit = o.idle_timeout_ms;
  if (parser->InHeaders()) {
    limit = o.header_timeout_ms;
  } else if (parser->InRequest()) {
    limit = o.request_timeout_ms > 0 ? o.request_timeout_ms : 6 * o.header_timeout_ms;
  }
  // Absolute: counted from phase_start, so reads in between do not extend it.
  uint64_t deadline = phase_start + static_cast<uint64_t>(limit);
  uint64_t now = uv_now(server->loop);
  uv_timer_start(&timer, OnTimer, deadline > now ? deadline - now : 0, 0);
}

void Conn::OnTimer(uv_timer_t* t) {
  Conn* c = static_cast<Conn*>(t->data);
  if (c->closing) return;
  if (c->close_after_write) {
    c->Close();  // the linger after a final answer is over: its reader is gone
  } else if (c->parser->InRequest()) {
    c->SendResponse(ErrorResponse(408, core::MakeError(core::Err::kTimeout,
                                                       "request not completed in time")),
                    false);
  } else {
    c->CloseAfterWrite();
  }
}

void Conn::StartReading() {
  uv_read_start(
      s(),
      [](uv_handle_t*, size_t suggested, uv_buf_t* buf) {
        buf->base = new char[suggested];
        buf->len = suggested;
      },
      [](uv_stream_t* st, ssize_t n, const uv_buf_t* buf) {
        Conn* c = static_cast<Conn*>(st->data);
        std::unique_ptr<char[]> owned(buf->base);
        if (n < 0) {
          c->Close();
          return;
        }
        if (n == 0 || c->closing || c->close_after_write) return;
        if (c->streaming) return;  // a watch client has nothing more to say
        const bool was_awaiting = c->awaiting;
        c->Consume(std::string_view(buf->base, static_cast<size_t>(n)));
        if (was_awaiting && c->awaiting && !c->closing && !c->held) {
          // Bytes after the deferred request: the parser holds them and the
          // connection reads no more until the answer is sent. (Until then
          // it reads on, so a client that hangs up is seen at once.)
          c->held = true;
          uv_read_stop(c->s());
        }
      });
}

void Conn::Consume(std::string_view data) {
  bool was = parser->InRequest();
  uint64_t before = completed;
  bool ok = parser->Feed(data);
  AfterParse(ok, was, before);
}

void Conn::AfterParse(bool ok, bool was_in_request, uint64_t completed_before) {
  if (!ok) {
    const HttpError& e = parser->error();
    SendResponse(ErrorResponse(e.status, e.error), false);
    return;
  }
  if (closing || close_after_write || streaming) return;
  // A request began or ended (or both, pipelined): a new deadline starts now.
  if (parser->InRequest() != was_in_request || completed != completed_before) {
    phase_start = uv_now(server->loop);
  }
  ArmTimer();
}

void Conn::OnWritten() {
  if (closing || close_after_write || streaming || !read_paused) return;
  if (queued() > server->options.max_write_queue / 2) return;
  read_paused = false;
  MaybeResume();
}

// Parses what was held back (by backpressure or a deferred answer) once
// neither holds any more, and reads again.
void Conn::MaybeResume() {
  if (closing || close_after_write || streaming || read_paused || awaiting) return;
  bool was = parser->InRequest();
  uint64_t before = completed;
  bool ok = parser->Resume();  // the held requests may pause it again
  AfterParse(ok, was, before);
  if (!read_paused && !awaiting && !closing && !close_after_write && !streaming) {
    held = false;
    StartReading();
  }
}

void Conn::AnswerDeferred(const HttpResponse& r, bool keep_alive) {
  deferred.reset();
  const bool was_awaiting = awaiting;
  awaiting = false;
  SendResponse(r, keep_alive && !server->shutting_down);
  // Answered inside the handler: OnRequest goes on as for any answer.
  if (!was_awaiting || closing || close_after_write) return;
  phase_start = uv_now(server->loop);  // idle time starts now
  if (queued() > server->options.max_write_queue) {
    read_paused = true;  // backpressure as in OnRequest; OnWritten resumes
    uv_read_stop(s());
    return;
  }
  MaybeResume();
  ArmTimer();
}

namespace {

class ConnExchange final : public Exchange {
 public:
  ConnExchange(Conn* c, bool keep_alive) : conn_(c), keep_alive_(keep_alive) {}
  void Reply(HttpResponse response) override {
    if (answered_) return;
    answered_ = true;
    conn_->SendResponse(response, keep_alive_ && !conn_->server->shutting_down);
  }
  std::shared_ptr<DeferredReply> Defer() override {
    answered_ = true;
    conn_->deferred = std::make_shared<ConnDeferred>(conn_, keep_alive_);
    return conn_->deferred;
  }
  std::shared_ptr<ChunkedStream> Stream(int status, std::string_view content_type) override {
    answered_ = true;
    conn_->streaming = true;
    uv_timer_stop(&conn_->timer);
    conn_->Write("HTTP/1.1 " + std::to_string(status) + " " + StatusText(status) +
                 "\r\nContent-Type: " + std::string(content_type) +
                 "\r\nTransfer-Encoding: chunked\r\nCache-Control: no-store\r\n\r\n");
    conn_->stream = std::make_shared<ConnStream>(conn_);
    return conn_->stream;
  }
  bool answered() const { return answered_; }

 private:
  Conn* conn_;
  bool keep_alive_;
  bool answered_ = false;
};

}  // namespace

void Conn::OnRequest(HttpRequest req) {
  if (closing || close_after_write || streaming) return;
  ConnExchange ex(this, req.keep_alive);
  server->handler(req, ex);
  if (!ex.answered()) {
    ex.Reply(ErrorResponse(500, core::MakeError(core::Err::kInternal, "no response produced")));
  }
  ++completed;
  if (deferred && !closing) {
    // The answer comes later (AnswerDeferred): no request after this one
    // is parsed until then, so answers stay in request order.
    awaiting = true;
    parser->PauseAfterThisRequest();
    return;
  }
  // Backpressure: a client that sends requests but does not read the
  // answers is not read either until they drain (OnWritten).
  if (!closing && !close_after_write && !streaming && queued() > server->options.max_write_queue) {
    read_paused = true;
    uv_read_stop(s());
    parser->PauseAfterThisRequest();
  }
}

void HttpServer::Impl::MakeRoom(Conn* admitted) {
  // The connection that has waited longest in its current request or idle
  // time goes; one waiting for a deferred answer only when no other can,
  // a watch stream only when nothing else can.
  auto rank = [](const Conn* c) { return c->streaming ? 2 : c->awaiting ? 1 : 0; };
  Conn* victim = nullptr;
  for (Conn* c : conns) {
    if (c == admitted || c->closing) continue;
    if (victim == nullptr || rank(c) < rank(victim) ||
        (rank(c) == rank(victim) && c->phase_start < victim->phase_start)) {
      victim = c;
    }
  }
  if (victim == nullptr) return;
  if (!victim->streaming && !victim->close_after_write) {
    // Written at once when its socket has room; the close follows anyway.
    victim->Write(FormatResponse(
        ErrorResponse(503, core::MakeError(core::Err::kIo,
                                           "too many connections: this one waited longest "
                                           "and was closed to admit another")),
        false));
  }
  victim->Close();
}


void HttpServer::Impl::Accept(uv_stream_t* l) {
  auto* c = new Conn;
  c->server = this;
  uv_pipe_init(loop, &c->pipe, 0);
  uv_timer_init(loop, &c->timer);
  c->pipe.data = c;
  c->timer.data = c;
  if (uv_accept(l, c->s()) != 0) {
    c->Close();
    return;
  }
  conns.insert(c);
  if (conns.size() > cap) MakeRoom(c);
  c->phase_start = uv_now(loop);
  c->parser = std::make_unique<RequestParser>(options.limits,
                                              [c](HttpRequest r) { c->OnRequest(std::move(r)); });
  if (options.check_peer_uid) {
    uv_os_fd_t fd;
    struct ucred cred {};
    socklen_t len = sizeof cred;
    if (uv_fileno(reinterpret_cast<uv_handle_t*>(&c->pipe), &fd) != 0 ||
        getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0 ||
        cred.uid != options.allowed_uid) {
      c->SendResponse(ErrorResponse(403, core::MakeError(core::Err::kRequestInvalid,
                                                         "peer uid not allowed")),
                      false);
      return;
    }
  }
  c->ArmTimer();
  c->StartReading();
}

void HttpServer::Impl::MaybeFinishShutdown() {
  if (shutting_down && conns.empty() && !listening && on_shutdown_done) {
    auto done = std::move(on_shutdown_done);
    on_shutdown_done = nullptr;
    done();
  }
}

HttpServer::HttpServer(uv_loop_t* loop, ServerOptions options, Handler handler)
    : impl_(std::make_unique<Impl>()) {
  impl_->loop = loop;
  impl_->options = options;
  impl_->handler = std::move(handler);
}

HttpServer::~HttpServer() = default;

size_t HttpServer::connection_count() const { return impl_->conns.size(); }
size_t HttpServer::connection_cap() const { return impl_->cap; }

core::Status HttpServer::Listen(const std::string& socket_path) {
  Impl& m = *impl_;
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (socket_path.size() >= sizeof addr.sun_path)
    return core::MakeError(core::Err::kIo, "cannot bind " + socket_path + ": the path is too long for a socket");
  std::memcpy(addr.sun_path, socket_path.c_str(), socket_path.size() + 1);
  // Bound here rather than with uv_pipe_bind: libuv removes the file at a
  // bound pipe's path when it closes it, and by then that file may be
  // another daemon's socket (ours was removed, another took the path). The
  // owner removes the file when it is still ours (HttpServer's caller).
  core::UniqueFd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!fd.valid()) return core::MakeError(core::Err::kIo, std::string("socket: ") + std::strerror(errno));
  // The socket is created with a 0177 umask so it is never wider than 0600,
  // not even between bind() and chmod().
  mode_t old = umask(0177);
  int rc = ::bind(fd.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 ? 0 : -errno;
  umask(old);
  if (rc != 0) return core::MakeError(core::Err::kIo, "cannot bind " + socket_path + ": " + uv_strerror(rc));
  chmod(socket_path.c_str(), 0600);
  uv_pipe_init(m.loop, &m.listener, 0);
  m.listener.data = &m;
  rc = uv_pipe_open(&m.listener, fd.get());
  if (rc != 0) {
    uv::CloseAll({uv::AsHandle(&m.listener)}, nullptr);
    return core::MakeError(core::Err::kIo, "cannot listen on " + socket_path + ": " + uv_strerror(rc));
  }
  (void)fd.Release();  // the pipe owns it now
  m.cap = ConnectionCap(m.options);
  rc = uv_listen(reinterpret_cast<uv_stream_t*>(&m.listener), 128, [](uv_stream_t* l, int status) {
    Impl* m = static_cast<Impl*>(l->data);
    if (status < 0 || m->shutting_down) return;
    m->Accept(l);
  });
  if (rc != 0) {
    return core::MakeError(core::Err::kIo, "cannot listen on " + socket_path + ": " + uv_strerror(rc));
  }
  m.listening = true;
  return core::Ok();
}

void HttpServer::Shutdown(std::function<void()> done) {
  Impl& m = *impl_;
  m.shutting_down = true;
  m.on_shutdown_done = std::move(done);
  if (m.listening) {
    uv::CloseAll({uv::AsHandle(&m.listener)}, [&m] {
      m.listening = false;
      m.MaybeFinishShutdown();
    });
  } else {
    m.MaybeFinishShutdown();
  }
  // Idle connections go now; one mid-request keeps going and closes after
  // its reply (Reply sends Connection: close while shutting down).
  std::set<Conn*> copy = m.conns;
  for (Conn* c : copy) {
    if (c->streaming) {
      if (c->stream) c->stream->End();
    } else if (!c->parser->InRequest() && !c->awaiting) {
      c->CloseAfterWrite();
    }
  }
}

void HttpServer::CloseAll() {
  Impl& m = *impl_;
  m.shutting_down = true;
  m.on_shutdown_done = nullptr;
  if (m.listening) uv::CloseAll({uv::AsHandle(&m.listener)}, [&m] { m.listening = false; });
  std::set<Conn*> copy = m.conns;
  for (Conn* c : copy) c->Close();
}

}  // namespace agt::agg
