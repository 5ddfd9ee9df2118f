// The daemon's HTTP/1.1 server: libuv pipes for transport, RequestParser for
// the grammar, and the connection rules of the API contract. Every handle is
// closed through uv_close, whose callback frees the connection; a stream the
// watch hub holds keeps only a weak link, so a client that vanishes never
// leaves a dangling pointer behind.
#include "aggregator/http/http_server.h"

#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <set>
#include <utility>

#include "aggregator/http/api_error.h"
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

}  // namespace

struct Conn;

struct HttpServer::Impl {
  uv_loop_t* loop;
  ServerOptions options;
  Handler handler;
  uv_pipe_t listener{};
  bool listening = false;
  bool shutting_down = false;
  std::set<Conn*> conns;
  std::function<void()> on_shutdown_done;

  void MaybeFinishShutdown();
};

class ConnStream;

struct Conn {
  HttpServer::Impl* server;
  uv_pipe_t pipe{};
  uv_timer_t timer{};
  std::unique_ptr<RequestParser> parser;
  bool closing = false;
  bool close_after_write = false;
  bool streaming = false;
  std::shared_ptr<ConnStream> stream;

  uv_stream_t* s() { return reinterpret_cast<uv_stream_t*>(&pipe); }

  void Write(std::string data) {
    if (closing || close_after_write) return;  // nothing may follow a shutdown
    if (uv::WriteOwned(s(), std::move(data)) != 0) Close();
  }

  void SendResponse(const HttpResponse& r, bool keep_alive) {
    std::string head = "HTTP/1.1 " + std::to_string(r.status) + " " + StatusText(r.status) +
                       "\r\nContent-Type: " + r.content_type +
                       "\r\nContent-Length: " + std::to_string(r.body.size()) +
                       (keep_alive ? "\r\nConnection: keep-alive" : "\r\nConnection: close") +
                       "\r\n\r\n";
    head += r.body;
    Write(std::move(head));
    if (!keep_alive) CloseAfterWrite();
  }

  void CloseAfterWrite() {
    if (closing || close_after_write) return;
    close_after_write = true;
    uv_read_stop(s());
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
  // A shutdown request still pending is called back (cancelled) before the
  // close callbacks, while the connection still exists.
  uv::CloseAll({uv::AsHandle(&timer), uv::AsHandle(&pipe)}, [this] {
    HttpServer::Impl* srv = server;
    delete this;
    srv->MaybeFinishShutdown();
  });
}

void Conn::ArmTimer() {
  if (closing || streaming) return;
  int64_t ms = parser->InRequest() ? server->options.header_timeout_ms
                                   : server->options.idle_timeout_ms;
  if (parser->InRequest() && !parser->InHeaders()) {
    ms = server->options.header_timeout_ms * 4;  // body in flight: generous, but bounded
  }
  uv_timer_start(&timer, [](uv_timer_t* t) {
    Conn* c = static_cast<Conn*>(t->data);
    if (c->closing) return;
    if (c->parser->InRequest()) {
      c->SendResponse(ErrorResponse(408, core::MakeError(core::Err::kTimeout,
                                                         "request not completed in time")),
                      false);
    } else {
      c->CloseAfterWrite();
    }
  }, static_cast<uint64_t>(ms), 0);
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

core::Status HttpServer::Listen(const std::string& socket_path) {
  Impl& m = *impl_;
  uv_pipe_init(m.loop, &m.listener, 0);
  m.listener.data = &m;
  // The socket is created with a 0177 umask so it is never wider than 0600,
  // not even between bind() and chmod().
  mode_t old = umask(0177);
  int rc = uv_pipe_bind(&m.listener, socket_path.c_str());
  umask(old);
  if (rc != 0) {
    uv::CloseAll({uv::AsHandle(&m.listener)}, nullptr);
    return core::MakeError(core::Err::kIo, "cannot bind " + socket_path + ": " + uv_strerror(rc));
  }
  chmod(socket_path.c_str(), 0600);
  rc = uv_listen(reinterpret_cast<uv_stream_t*>(&m.listener), 128, [](uv_stream_t* l, int status) {
    Impl* m = static_cast<Impl*>(l->data);
    if (status < 0 || m->shutting_down) return;
    auto* c = new Conn;
    c->server = m;
    uv_pipe_init(m->loop, &c->pipe, 0);
    uv_timer_init(m->loop, &c->timer);
    c->pipe.data = c;
    c->timer.data = c;
    if (uv_accept(l, c->s()) != 0) {
      c->Close();
      return;
    }
    m->conns.insert(c);
    c->parser = std::make_unique<RequestParser>(m->options.limits,
                                                [c](HttpRequest r) { c->OnRequest(std::move(r)); });
    if (m->options.check_peer_uid) {
      uv_os_fd_t fd;
      struct ucred cred {};
      socklen_t len = sizeof cred;
      if (uv_fileno(reinterpret_cast<uv_handle_t*>(&c->pipe), &fd) != 0 ||
          getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0 ||
          cred.uid != m->options.allowed_uid) {
        c->SendResponse(ErrorResponse(403, core::MakeError(core::Err::kRequestInvalid,
                                                           "peer uid not allowed")),
                        false);
        return;
      }
    }
    c->ArmTimer();
    uv_read_start(
        c->s(),
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
          if (!c->parser->Feed(std::string_view(buf->base, static_cast<size_t>(n)))) {
            const HttpError& e = c->parser->error();
            c->SendResponse(ErrorResponse(e.status, e.error), false);
            return;
          }
          c->ArmTimer();
        });
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
    } else if (!c->parser->InRequest()) {
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
