// tmux's client protocol for a control client (see tmux_imsg.h): framing,
// the identify sequence, the reader of the server's messages, and the
// connect that passes the control socket by SCM_RIGHTS.
//
// Why the order matters: tmux 3.3a's server reads its socket once per event
// and dispatches every whole message it got. An fd arrives with the data
// of its own sendmsg only (the kernel ends a read after a message that
// carried fds), so `tmux -C`'s own client, which sends FLAGS before its
// fds and DONE after them, is always read in at least three events, and
// an event between them may notify a client that is CLIENT_CONTROL but has
// no control state yet. Here the fds go first and FLAGS..DONE+COMMAND last,
// in one sendmsg of a few hundred bytes, which one read takes whole.
#include "aggregator/observe/tmux_imsg.h"

#include <errno.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <strings.h>

namespace agt::agg::imsg {

namespace {

template <typename T>
void Put(std::string* out, T v) {
  out->append(reinterpret_cast<const char*>(&v), sizeof v);
}

template <typename T>
T Get(const char* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

std::string Cstr(std::string_view s) {
  std::string out(s);
  out.push_back('\0');
  return out;
}

bool NamesUtf8(const char* s) {
  return s && (strcasestr(s, "UTF-8") != nullptr || strcasestr(s, "UTF8") != nullptr);
}

/// sendmsg() of all of `bytes`, with `fd` passed along the first part when
/// >= 0. A stream socket may take less than asked: the rest follows
/// without the fd.
bool SendAll(int sock, const std::string& bytes, int fd) {
  size_t off = 0;
  while (off < bytes.size()) {
    iovec iov{const_cast<char*>(bytes.data() + off), bytes.size() - off};
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))];
    if (fd >= 0 && off == 0) {
      std::memset(control, 0, sizeof control);
      msg.msg_control = control;
      msg.msg_controllen = sizeof control;
      cmsghdr* c = CMSG_FIRSTHDR(&msg);
      c->cmsg_level = SOL_SOCKET;
      c->cmsg_type = SCM_RIGHTS;
      c->cmsg_len = CMSG_LEN(sizeof(int));
      std::memcpy(CMSG_DATA(c), &fd, sizeof fd);
    }
    ssize_t n = sendmsg(sock, &msg, MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    off += size_t(n);
  }
  return true;
}

}  // namespace

core::Result<std::string> Frame(uint32_t type, std::string_view data, bool has_fd, uint32_t pid) {
  if (data.size() > kMaxMessage - kHeaderSize)
    return core::MakeError(core::Err::kPayloadInvalid, "tmux message " + std::to_string(type) + " too long (" +
                                                          std::to_string(data.size()) + " bytes)");
  std::string out;
  out.reserve(kHeaderSize + data.size());
  Put<uint32_t>(&out, type);
  Put<uint16_t>(&out, uint16_t(kHeaderSize + data.size()));
  Put<uint16_t>(&out, has_fd ? kHasFd : 0);
  Put<uint32_t>(&out, kProtocolVersion);
  Put<uint32_t>(&out, pid);
  out.append(data);
  return out;
}

core::Result<std::vector<Send>> IdentifySends(const Identify& id) {
  const uint32_t pid = uint32_t(id.pid);
  std::vector<Send> sends;
  for (uint32_t type : {kMsgIdentifyStdin, kMsgIdentifyStdout}) {
    auto f = Frame(type, {}, true, pid);
    if (!f.ok()) return f.error();
    sends.push_back(Send{std::move(*f), true});
  }
  std::string last;
  auto add = [&](uint32_t type, std::string_view data) -> core::Status {
    auto f = Frame(type, data, false, pid);
    if (!f.ok()) return f.error();
    last += *f;
    return core::Ok();
  };
  // The sizes are the server's checks (server_client_dispatch_identify):
  // FLAGS an int, LONGFLAGS a uint64_t, FEATURES an int, CLIENTPID a pid_t;
  // strings end in NUL. A wrong size is fatal to the server, not to us.
  std::string v;
  Put<int32_t>(&v, int32_t(id.flags));
  core::Status s = add(kMsgIdentifyFlags, v);
  v.clear();
  Put<uint64_t>(&v, id.flags);
  if (s.ok()) s = add(kMsgIdentifyLongFlags, v);
  if (s.ok()) s = add(kMsgIdentifyTerm, Cstr(id.term));
  v.clear();
  Put<int32_t>(&v, 0);
  if (s.ok()) s = add(kMsgIdentifyFeatures, v);
  // The server reads the tty name unconditionally: "" means none.
  if (s.ok()) s = add(kMsgIdentifyTtyname, Cstr(""));
  if (s.ok()) s = add(kMsgIdentifyCwd, Cstr(id.cwd.empty() ? "/" : id.cwd));
  v.clear();
  Put<int32_t>(&v, id.pid);
  if (s.ok()) s = add(kMsgIdentifyClientPid, v);
  for (const auto& e : id.env)
    if (s.ok() && e.find('=') != std::string::npos) s = add(kMsgIdentifyEnviron, Cstr(e));
  if (s.ok()) s = add(kMsgIdentifyDone, {});
  // struct msg_command: an int argc, then the arguments, each NUL-ended.
  v.clear();
  Put<int32_t>(&v, int32_t(id.argv.size()));
  for (const auto& a : id.argv) v += Cstr(a);
  if (s.ok()) s = add(kMsgCommand, v);
  if (!s.ok()) return s.error();
  sends.push_back(Send{std::move(last), false});
  return sends;
}

uint64_t ControlFlagsFor(const char* lc_all, const char* lc_ctype, const char* lang) {
  const char* s = lc_all;
  if (s == nullptr || *s == '\0') s = lc_ctype;
  if (s == nullptr || *s == '\0') s = lang;
  return kClientControl | (NamesUtf8(s) ? kClientUtf8 : 0);
}

core::Result<std::optional<Message>> Reader::Next() {
  const size_t avail = buf_.size() - pos_;
  if (avail < kHeaderSize) return std::optional<Message>();
  const char* p = buf_.data() + pos_;
  Message m;
  m.type = Get<uint32_t>(p);
  const uint16_t len = Get<uint16_t>(p + 4);
  m.flags = Get<uint16_t>(p + 6);
  m.peerid = Get<uint32_t>(p + 8);
  m.pid = Get<uint32_t>(p + 12);
  if (len < kHeaderSize || len > kMaxMessage)
    return core::MakeError(core::Err::kPayloadInvalid,
                           "tmux sent a message of impossible length " + std::to_string(len));
  if (avail < len) return std::optional<Message>();
  m.data.assign(p + kHeaderSize, len - kHeaderSize);
  pos_ += len;
  if (pos_ == buf_.size()) {
    buf_.clear();
    pos_ = 0;
  } else if (pos_ > 4096) {
    buf_.erase(0, pos_);
    pos_ = 0;
  }
  return std::optional<Message>(std::move(m));
}

ConnectResult Connect(const std::string& socket_path, const Identify& id) {
  ConnectResult r;
  auto fail = [&](ConnectError kind, std::string message) {
    r.failure = ConnectFailure{kind, std::move(message)};
    return std::move(r);
  };
  sockaddr_un sa{};
  sa.sun_family = AF_UNIX;
  if (socket_path.size() >= sizeof sa.sun_path) return fail(ConnectError::kFailed, "socket path too long");
  std::memcpy(sa.sun_path, socket_path.c_str(), socket_path.size() + 1);
  auto sends = IdentifySends(id);
  if (!sends.ok()) return fail(ConnectError::kFailed, sends.error().message);

  core::UniqueFd server(socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!server.valid()) return fail(ConnectError::kFailed, std::string("socket: ") + std::strerror(errno));
  if (connect(server.get(), reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0) {
    const int e = errno;
    // tmux's own client says "no server running" for these two.
    const ConnectError kind = e == ECONNREFUSED || e == ENOENT ? ConnectError::kNoServer : ConnectError::kFailed;
    return fail(kind, "connect " + socket_path + ": " + std::strerror(e));
  }
  int pair[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0)
    return fail(ConnectError::kFailed, std::string("socketpair: ") + std::strerror(errno));
  core::UniqueFd ours(pair[0]);
  core::UniqueFd theirs(pair[1]);
  for (const Send& s : *sends)
    if (!SendAll(server.get(), s.bytes, s.pass_fd ? theirs.get() : -1))
      return fail(ConnectError::kFailed, std::string("send to tmux: ") + std::strerror(errno));
  r.conn = Connection{std::move(server), std::move(ours)};
  return r;
}

std::string_view EndingOf(uint32_t type) {
  switch (type) {
    case kMsgVersion: return "version";
    case kMsgDetach: return "detach";
    case kMsgDetachKill: return "detach-kill";
    case kMsgExit: return "exit";
    case kMsgExited: return "exited";
    case kMsgShutdown: return "shutdown";
    default: return {};
  }
}

}  // namespace agt::agg::imsg
