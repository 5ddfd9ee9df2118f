// The control-mode client's connection on libuv (see
// tmux_control_client.h). Each attach attempt is one heap `Conn`; it
// outlives the client if need be (libuv handles are freed only in their
// close callbacks), so Stop() and the destructor never free a handle libuv
// still holds.
//
// An attach speaks tmux's client protocol itself (tmux_imsg.h): the Conn
// holds the imsg socket and our end of the control socketpair, which tmux
// reads commands from and writes `%begin`/`%output`/... to, exactly as it
// would a `tmux -C` process's stdin and stdout. It ends when the server
// says goodbye on the imsg socket (exit, detach, shutdown: whatever it
// wrote before is read first) or either socket reaches EOF. A server that
// speaks another protocol version (MSG_VERSION), or a connection that fails
// otherwise than "no server", is attached the old way from then on: a
// `tmux -C` process, whose Conn owns the process and its pipes. That close
// is staged: Stop() closes stdin first, so that `tmux -C` ends, and the
// process handle is closed only in its exit callback, so that libuv reaps
// the child. Each stage is one uv::CloseAll; the Conn counts the stages not
// yet done and frees itself when the last one is.
#include "aggregator/observe/tmux_control_client.h"

#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <unistd.h>

#include <cstring>
#include <memory>
#include <vector>

#include <spdlog/spdlog.h>

#include "aggregator/observe/loop_timer.h"
#include "aggregator/observe/tmux_imsg.h"
#include "libagtcore/os/file.h"
#include "libagtcore/os/unique_fd.h"
#include "libagtcore/uv/handles.h"

extern char** environ;

namespace agt::agg {

struct TmuxControlClient::Conn {
  TmuxControlClient* owner = nullptr;  // null once detached (Stop, destructor)
  // By the protocol: `out` is the control socket, read and written, and
  // `server` the imsg socket; no process, `in` unused. Otherwise a `tmux
  // -C` process with its stdin `in` and stdout `out`.
  bool by_protocol = false;
  int64_t server_pid = 0;  // the server the attach went to (as probed)
  uv_process_t process{};
  uv_pipe_t in{};
  uv_pipe_t out{};
  uv_pipe_t server{};
  imsg::Reader messages;
  // Stages of the close not done yet: the final one (every handle, once
  // the process has exited or failed to start; exactly one per Conn), and
  // Stop()'s close of stdin while it runs. Closes finish in any order.
  int stages = 1;
  bool exited = false;
  bool connected = false;
  bool finished = false;
  ControlParser parser;
  std::deque<ReplyFn> pending;

  // uv::CloseAll takes over the closed handles' `data`, which nothing
  // reads once a handle is closing (a closed pipe is read no more, a closed
  // process reports no exit).
  void CloseStdin() {
    ++stages;
    uv::CloseAll({uv::AsHandle(&in)}, [this] { StageDone(); });
  }
  /// The final stage: the caller must not use the Conn afterwards.
  void CloseAll() {
    if (by_protocol)
      uv::CloseAll({uv::AsHandle(&out), uv::AsHandle(&server)}, [this] { StageDone(); });
    else
      uv::CloseAll({uv::AsHandle(&in), uv::AsHandle(&out), uv::AsHandle(&process)}, [this] { StageDone(); });
  }
  /// Where commands go.
  uv_stream_t* commands() { return reinterpret_cast<uv_stream_t*>(by_protocol ? &out : &in); }
  void StageDone() {
    if (--stages == 0) delete this;
  }
  /// By the protocol: the server ended the client or a socket closed.
  void Ended() {
    exited = true;
    uv_read_stop(reinterpret_cast<uv_stream_t*>(&out));
    uv_read_stop(reinterpret_cast<uv_stream_t*>(&server));
    if (owner) owner->OnExit(this);
    else CloseAll();
  }
  /// By the protocol: reads what the control socket holds now. tmux writes
  /// a client's last output before it sends the goodbye on the imsg socket,
  /// so the `%end` of a last reply (or an attach's `%error`) is not lost.
  void Drain() {
    int fd = -1;
    if (uv_fileno(uv::AsHandle(&out), &fd) != 0) return;
    char buf[16384];
    for (;;) {
      const ssize_t n = recv(fd, buf, sizeof buf, MSG_DONTWAIT);
      if (n <= 0 || !owner) return;
      owner->OnData(this, std::string_view(buf, size_t(n)));
      if (exited || !owner) return;
    }
  }
  /// An attach that never started: closes everything, reports nothing.
  void Abandon() {
    owner = nullptr;
    exited = true;
    CloseAll();
  }
  /// Reads tmux's control output from `out`. At its EOF a process's Conn
  /// waits for the exit callback; a protocol Conn has ended.
  void ReadControl();
};

namespace {

/// The pid of the server accepting connections on `path` (SO_PEERCRED of a
/// connect(), no fork); 0 when nothing listens, -1 when the pid is unknown.
int64_t ListeningServer(const std::string& path) {
  sockaddr_un sa{};
  sa.sun_family = AF_UNIX;
  if (path.size() >= sizeof sa.sun_path) return -1;  // let tmux report it
  std::memcpy(sa.sun_path, path.c_str(), path.size() + 1);
  core::UniqueFd fd(socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!fd.valid()) return -1;
  if (connect(fd.get(), reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0) return 0;
  ucred cred{};
  socklen_t len = sizeof cred;
  if (getsockopt(fd.get(), SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0 || cred.pid <= 0) return -1;
  return cred.pid;
}

/// True once the server has a child process: its first pane exists, so the
/// command that started it has run.
bool HasChild(int64_t pid) {
  auto children = core::ReadWholeFile("/proc/" + std::to_string(pid) + "/task/" + std::to_string(pid) + "/children");
  return children.ok() && children->find_first_not_of(" \n") != std::string::npos;
}

/// The environment the protocol client identifies with: what a command the
/// client runs could need (a path, a home, the locale), never TMUX.
std::vector<std::string> MinimalEnv() {
  std::vector<std::string> env;
  for (const char* name : {"PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LC_ALL", "LC_CTYPE"})
    if (const char* v = getenv(name)) env.push_back(std::string(name) + "=" + v);
  return env;
}

std::string WorkingDir() {
  char buf[4096];
  return getcwd(buf, sizeof buf) ? std::string(buf) : std::string("/");
}

void ReadInto(uv_stream_t* stream, void (*got)(uv_stream_t*, ssize_t, const uv_buf_t*)) {
  uv_read_start(
      stream,
      [](uv_handle_t*, size_t suggested, uv_buf_t* buf) {
        buf->base = new char[suggested];
        buf->len = suggested;
      },
      got);
}

}  // namespace

void TmuxControlClient::Conn::ReadControl() {
  ReadInto(reinterpret_cast<uv_stream_t*>(&out), [](uv_stream_t* s, ssize_t n, const uv_buf_t* buf) {
    Conn* cc = static_cast<Conn*>(s->data);
    if (n > 0 && cc->owner) cc->owner->OnData(cc, std::string_view(buf->base, size_t(n)));
    delete[] buf->base;
    if (n >= 0) return;
    if (!cc->by_protocol) uv_read_stop(s);
    else if (!cc->exited) cc->Ended();
  });
}

TmuxControlClient::TmuxControlClient(uv_loop_t* loop, ControlClientOptions options,
                                     Callbacks callbacks)
    : loop_(loop), options_(std::move(options)), callbacks_(std::move(callbacks)) {
  timer_ = new uv_timer_t;
  uv_timer_init(loop_, timer_);
  timer_->data = this;
  backoff_ = options_.reconnect_min;
}

TmuxControlClient::~TmuxControlClient() {
  Stop();
  uv::CloseAndDelete(timer_);
}

void TmuxControlClient::Start() {
  if (running_) return;
  running_ = true;
  backoff_ = options_.reconnect_min;
  WatchSocketDir();
  Spawn();
}

void TmuxControlClient::WatchSocketDir() {
  if (watch_ || !running_ || !options_.watch_socket) return;
  const std::string& path = options_.socket_path;
  const size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
  auto* w = new uv_fs_event_t;
  uv_fs_event_init(loop_, w);
  w->data = this;
  int rc = uv_fs_event_start(
      w,
      [](uv_fs_event_t* h, const char* filename, int, int status) {
        if (status == 0 && h->data) static_cast<TmuxControlClient*>(h->data)->OnSocketEvent(filename);
      },
      dir.c_str(), 0);
  if (rc != 0) {
    // No directory yet (no tmux has run): the probe keeps looking, and
    // tries the watch again each time.
    uv::CloseAndDelete(w);
    return;
  }
  watch_ = w;
}

void TmuxControlClient::OnSocketEvent(const char* filename) {
  if (!running_ || conn_ || filename == nullptr) return;
  const std::string& path = options_.socket_path;
  const size_t slash = path.rfind('/');
  if (path.compare(slash == std::string::npos ? 0 : slash + 1, std::string::npos, filename) != 0) return;
  // The socket was created, changed or removed while we are not attached:
  // a server may be starting. Look now, and until it listens and has a
  // session, again soon (fresh_retry, doubling; no fork while nothing
  // listens).
  uv_timer_stop(timer_);
  fresh_ = true;
  backoff_ = options_.fresh_retry;
  Spawn();
}

void TmuxControlClient::Stop() {
  running_ = false;
  fresh_ = false;
  if (watch_) {
    watch_->data = nullptr;
    uv_fs_event_stop(watch_);
    uv::CloseAndDelete(watch_);
    watch_ = nullptr;
  }
  uv_timer_stop(timer_);
  if (!conn_) return;
  Conn* c = conn_;
  conn_ = nullptr;
  c->owner = nullptr;
  std::deque<ReplyFn> pending;
  pending.swap(c->pending);
  if (c->by_protocol) {
    // Closing both sockets is the client going away: the server sees EOF
    // on each and drops the client.
    if (!c->exited) {
      c->exited = true;
      c->CloseAll();
    }
  } else {
    // Closing stdin ends `tmux -C`; the process handle stays open until the
    // exit callback so libuv reaps the child.
    if (!uv_is_closing(uv::AsHandle(&c->in))) c->CloseStdin();
    if (!c->exited) uv_process_kill(&c->process, SIGTERM);
    else c->CloseAll();
  }
  for (auto& fn : pending) fn(ControlReply{false, "disconnected"});
}

bool TmuxControlClient::connected() const { return conn_ && conn_->connected; }


void TmuxControlClient::Spawn() {
  // `tmux -C attach` starts a server when none runs (it then exits at once,
  // having no sessions): probe the socket first, which also saves a fork
  // per retry while tmux is not running.
  const int64_t server = ListeningServer(options_.socket_path);
  if (server == 0) {
    ++probes_;
    WatchSocketDir();
    if (fresh_) ScheduleReconnect();  // created but not yet listening
    else RetryIn(options_.probe_interval);
    return;
  }
  // tmux 3.3a's server can crash (SIGSEGV) when a control client attaches
  // in the first milliseconds of its life, while the client that started
  // it has not yet run its command: seen in about 1 of 15 starts when the
  // attach came within 5 ms, never after. So attach only once the server
  // has a child (its first pane), or has been seen listening for
  // settle_new_server (a server started without a session).
  if (server > 0 && server != young_pid_) {
    young_pid_ = server;
    young_since_ = uv_now(loop_);
  }
  if (server > 0 && !HasChild(server) &&
      uv_now(loop_) - young_since_ < uint64_t(options_.settle_new_server / core::kNsPerMs)) {
    ++probes_;
    RetryIn(options_.fresh_retry);
    return;
  }
  if (options_.attach == ControlClientOptions::Attach::kProtocol && server != spawn_server_) AttachByProtocol(server);
  else SpawnProcess();
}

std::vector<std::string> TmuxControlClient::AttachCommand() const {
  // -E: the attach must not copy the daemon's environment into the
  // session's (update-environment), nor clear the user's variables there.
  std::vector<std::string> args = {"attach-session", "-E"};
  if (!options_.session.empty()) args.insert(args.end(), {"-t", options_.session});
  args.insert(args.end(), {"-f", options_.read_only ? "ignore-size,read-only" : "ignore-size"});
  return args;
}

void TmuxControlClient::FallBack(int64_t server, const std::string& why) {
  spawn_server_ = server;
  spdlog::warn("tmux at {} (server pid {}): {}; attaching through `{} -C` for this server", options_.socket_path,
               server, why, options_.tmux_bin);
}

void TmuxControlClient::AttachByProtocol(int64_t server) {
  imsg::Identify id;
  id.flags = imsg::ControlFlagsFor(getenv("LC_ALL"), getenv("LC_CTYPE"), getenv("LANG"));
  id.pid = int32_t(getpid());
  id.cwd = WorkingDir();
  id.env = MinimalEnv();
  id.argv = AttachCommand();
  ++spawns_;
  imsg::ConnectResult r = imsg::Connect(options_.socket_path, id);
  if (!r.conn) {
    if (r.failure.kind == imsg::ConnectError::kNoServer) {
      ScheduleReconnect();  // it went between the probe and the connect
      return;
    }
    FallBack(server, r.failure.message);
    SpawnProcess();
    return;
  }
  Conn* c = new Conn;
  c->owner = this;
  c->by_protocol = true;
  c->server_pid = server;
  uv_pipe_init(loop_, &c->out, 0);
  uv_pipe_init(loop_, &c->server, 0);
  c->out.data = c->server.data = c;
  const int control_fd = r.conn->control.Release();
  const int server_fd = r.conn->server.Release();
  if (uv_pipe_open(&c->out, control_fd) != 0 || uv_pipe_open(&c->server, server_fd) != 0) {
    // Not expected for a fresh socket; closing the handles would not close
    // an fd that was not taken.
    int fd = -1;
    if (uv_fileno(uv::AsHandle(&c->out), &fd) != 0) ::close(control_fd);
    if (uv_fileno(uv::AsHandle(&c->server), &fd) != 0) ::close(server_fd);
    c->Abandon();
    ScheduleReconnect();
    return;
  }
  conn_ = c;
  c->ReadControl();
  ReadInto(reinterpret_cast<uv_stream_t*>(&c->server), [](uv_stream_t* s, ssize_t n, const uv_buf_t* buf) {
    Conn* cc = static_cast<Conn*>(s->data);
    if (n > 0 && !cc->exited) cc->messages.Feed(std::string_view(buf->base, size_t(n)));
    delete[] buf->base;
    if (cc->exited) return;
    if (n < 0) {
      cc->Drain();
      if (!cc->exited) cc->Ended();
      return;
    }
    for (;;) {
      auto m = cc->messages.Next();
      if (!m.ok() || !m->has_value()) {
        if (!m.ok()) {
          spdlog::warn("tmux control client: {}", m.error().message);
          cc->Ended();
        }
        return;
      }
      const imsg::Message& msg = **m;
      if (msg.type == imsg::kMsgVersion && cc->owner)
        cc->owner->FallBack(cc->server_pid, "the server speaks another protocol version");
      if (!imsg::EndingOf(msg.type).empty()) {
        cc->Drain();
        if (!cc->exited) cc->Ended();
        return;
      }
    }
  });
}

void TmuxControlClient::SpawnProcess() {
  Conn* c = new Conn;
  c->owner = this;
  uv_pipe_init(loop_, &c->in, 0);
  uv_pipe_init(loop_, &c->out, 0);
  c->in.data = c->out.data = c->process.data = c;

  // When agtmuxd dies without stopping us (kill -9, a crash), tmux keeps the
  // orphaned control client attached to the server for good: it does not
  // notice that the other end of its stdin is gone, and the server then
  // cannot even finish a kill-server. setpriv (util-linux) has the kernel
  // send it SIGTERM when its parent goes.
  static const bool have_setpriv = ::access("/usr/bin/setpriv", X_OK) == 0;
  std::vector<std::string> args;
  if (have_setpriv) args = {"/usr/bin/setpriv", "--pdeathsig", "TERM", "--"};
  args.insert(args.end(), {options_.tmux_bin, "-S", options_.socket_path, "-C"});
  for (auto& a : AttachCommand()) args.push_back(a);
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  // $TMUX would make tmux refuse to nest; the target socket is explicit.
  std::vector<char*> env;
  for (char** e = environ; *e; ++e)
    if (std::strncmp(*e, "TMUX=", 5) != 0) env.push_back(*e);
  env.push_back(nullptr);

  uv_stdio_container_t stdio[3];
  stdio[0].flags = static_cast<uv_stdio_flags>(UV_CREATE_PIPE | UV_READABLE_PIPE);
  stdio[0].data.stream = reinterpret_cast<uv_stream_t*>(&c->in);
  stdio[1].flags = static_cast<uv_stdio_flags>(UV_CREATE_PIPE | UV_WRITABLE_PIPE);
  stdio[1].data.stream = reinterpret_cast<uv_stream_t*>(&c->out);
  stdio[2].flags = UV_IGNORE;
  uv_process_options_t po{};
  po.file = argv[0];
  po.args = argv.data();
  po.env = env.data();
  po.stdio = stdio;
  po.stdio_count = 3;
  po.exit_cb = [](uv_process_t* p, int64_t, int) {
    Conn* cc = static_cast<Conn*>(p->data);
    cc->exited = true;
    if (cc->owner) cc->owner->OnExit(cc);
    else cc->CloseAll();
  };
  ++spawns_;
  int rc = uv_spawn(loop_, &c->process, &po);
  if (rc != 0) {
    // The process handle is closed too (libuv requires it after a failure).
    c->Abandon();
    ScheduleReconnect();
    return;
  }
  conn_ = c;
  c->ReadControl();
}

void TmuxControlClient::OnData(Conn* c, std::string_view bytes) {
  c->parser.Feed(bytes);
  auto replies = c->parser.TakeReplies();
  auto notes = c->parser.TakeNotifications();
  // Attached once tmux names our session; a failed attach prints an
  // %error block and %exit instead.
  bool attached = false;
  for (const auto& n : notes)
    if (n.name == "session-changed") attached = true;
  if (!c->connected && (attached || !replies.empty())) {
    c->connected = true;
    fresh_ = false;
    backoff_ = options_.reconnect_min;
    if (options_.pause_after_s > 0)
      Send("refresh-client -f pause-after=" + std::to_string(options_.pause_after_s), [](const ControlReply&) {});
    if (callbacks_.on_connected) callbacks_.on_connected();
    if (conn_ != c) return;  // stopped from the callback
  }
  // In arrival order: a reply is handled after the notifications that came
  // before it and before those that came after it.
  size_t next_note = 0;
  auto notes_until = [&](size_t end) {
    for (; next_note < end && next_note < notes.size(); ++next_note) {
      if (callbacks_.on_notification) callbacks_.on_notification(notes[next_note]);
      if (conn_ != c) return false;
    }
    return true;
  };
  for (auto& r : replies) {
    if (!notes_until(r.notes_before)) return;
    if (c->pending.empty()) continue;
    ReplyFn fn = std::move(c->pending.front());
    c->pending.pop_front();
    fn(r);
    if (conn_ != c) return;
  }
  notes_until(notes.size());
}

void TmuxControlClient::OnExit(Conn* c) {
  bool was_connected = c->connected;
  if (conn_ == c) conn_ = nullptr;
  c->owner = nullptr;
  std::deque<ReplyFn> pending;
  pending.swap(c->pending);
  c->CloseAll();
  for (auto& fn : pending) fn(ControlReply{false, "disconnected"});
  if (was_connected && callbacks_.on_disconnected) callbacks_.on_disconnected();
  if (running_ && !conn_) ScheduleReconnect();
}

void TmuxControlClient::ScheduleReconnect() {
  if (!running_) return;
  const core::TimeNs wait = backoff_;
  backoff_ = std::min(backoff_ * 2, options_.reconnect_max);
  // Quick retries after a fresh socket last only up to the normal pace.
  if (fresh_ && backoff_ > options_.reconnect_min) fresh_ = false;
  RetryIn(wait);
}

void TmuxControlClient::RetryIn(core::TimeNs wait) {
  uv_timer_start(
      timer_,
      [](uv_timer_t* t) {
        auto* self = static_cast<TmuxControlClient*>(t->data);
        if (self->running_ && !self->conn_) self->Spawn();
      },
      TimerMs(wait), 0);
}

bool TmuxControlClient::Send(const std::string& command, ReplyFn done) {
  if (!conn_ || uv_is_closing(uv::AsHandle(conn_->commands()))) return false;
  if (uv::WriteOwned(conn_->commands(), command + '\n') != 0) return false;
  ++commands_;
  conn_->pending.push_back(std::move(done));
  return true;
}

bool TmuxControlClient::SendPair(const std::string& command, PairFn done) {
  auto first = std::make_shared<ControlReply>();
  if (!Send(command, [first](const ControlReply& r) { *first = r; })) return false;
  // The second block's callback is queued right behind the first: the line
  // was written once, so both replies (or both "disconnected") come in turn.
  conn_->pending.push_back(
      [first, done = std::move(done)](const ControlReply& r) { done(*first, r); });
  return true;
}

}  // namespace agt::agg
