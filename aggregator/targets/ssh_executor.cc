// The ssh executor on libssh2 (see ssh_executor.h). The session runs in
// non-blocking mode; every wait is a poll() on the socket in the direction
// libssh2 asks for, bounded by the call's deadline, so no step can hang past
// its timeout. A transport failure drops the session; the next attempt (or
// the next command) reconnects. Host keys are checked as OpenSSH does, by
// type, with @revoked keys refused (known_hosts.h says what libssh2 lacks).
#include "aggregator/targets/ssh_executor.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <libssh2.h>
#include <netdb.h>
#include <openssl/evp.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <cstring>
#include <random>

#include "aggregator/targets/known_hosts.h"
#include "libagtcore/file.h"
#include "libagtcore/shell.h"
#include "libagtcore/unique_fd.h"

namespace agt::agg {
namespace {

using core::Err;
using core::MakeError;
using core::TimeNs;

TimeNs MonoNow() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return TimeNs(ts.tv_sec) * core::kNsPerSec + ts.tv_nsec;
}

void SleepNs(TimeNs ns) {
  if (ns <= 0) return;
  timespec ts{time_t(ns / core::kNsPerSec), long(ns % core::kNsPerSec)};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {}
}

std::string Base64(std::string_view bytes) {
  std::string out(4 * ((bytes.size() + 2) / 3) + 1, '\0');
  const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(bytes.data()), static_cast<int>(bytes.size()));
  out.resize(n > 0 ? static_cast<size_t>(n) : 0);
  return out;
}

std::string HomeFile(const char* rel) {
  const char* home = getenv("HOME");
  return std::string(home ? home : "") + "/" + rel;
}

}  // namespace

struct SshExecutor::Session {
  core::UniqueFd sock;
  LIBSSH2_SESSION* ssh = nullptr;
  /// Says goodbye, then frees the session without waiting on the peer.
  /// libssh2_session_free first closes every channel still open, and
  /// closing a channel waits for the peer's CHANNEL_CLOSE. After a command
  /// timed out the peer sends that only when the remote command exits
  /// (seconds later, or never for a wedged host), so in non-blocking mode
  /// the free answers EAGAIN and frees nothing; giving up then leaked the
  /// whole session. Shutting the socket down first makes every further
  /// read or write fail at once, and libssh2 frees a channel whose
  /// transport has failed without waiting.
  ~Session() {
    if (!ssh) return;
    libssh2_session_set_blocking(ssh, 0);
    // The DISCONNECT is a courtesy: give it a moment to leave, no more.
    const TimeNs bye_deadline = MonoNow() + 200 * core::kNsPerMs;
    while (libssh2_session_disconnect(ssh, "bye") == LIBSSH2_ERROR_EAGAIN && Wait(bye_deadline)) {}
    if (sock.valid()) shutdown(sock.get(), SHUT_RDWR);
    // With the transport down nothing can block; the bound only guards
    // against a libssh2 that answered EAGAIN regardless.
    for (int tries = 0; libssh2_session_free(ssh) == LIBSSH2_ERROR_EAGAIN && tries < 100; ++tries) {}
  }
  /// Waits until the socket is ready in the direction libssh2 wants.
  bool Wait(TimeNs deadline) {
    const TimeNs left = deadline - MonoNow();
    if (left <= 0) return false;
    pollfd p{sock.get(), 0, 0};
    int dir = libssh2_session_block_directions(ssh);
    if (dir & LIBSSH2_SESSION_BLOCK_INBOUND) p.events |= POLLIN;
    if (dir & LIBSSH2_SESSION_BLOCK_OUTBOUND) p.events |= POLLOUT;
    if (p.events == 0) p.events = POLLIN;
    int r = poll(&p, 1, int(left / core::kNsPerMs) + 1);
    return r >= 0 || errno == EINTR;
  }
};

SshExecutor::SshExecutor(SshOptions options) : options_(std::move(options)) {
  static const int init = libssh2_init(0);
  (void)init;
  if (options_.user.empty()) {
    const char* u = getenv("USER");
    options_.user = u ? u : "root";
  }
  if (options_.known_hosts.empty()) options_.known_hosts = HomeFile(".ssh/known_hosts");
  if (options_.identity_files.empty())
    options_.identity_files = {HomeFile(".ssh/id_ed25519"), HomeFile(".ssh/id_ecdsa"),
                               HomeFile(".ssh/id_rsa")};
}

SshExecutor::~SshExecutor() = default;

void SshExecutor::Drop() { session_.reset(); }

core::Status SshExecutor::Connect() {
  if (session_) return core::Ok();
  const std::string where = options_.host + ":" + std::to_string(options_.port);
  auto unreachable = [&](const std::string& why) {
    return MakeError(Err::kTargetUnreachable, "ssh " + where + ": " + why);
  };
  const TimeNs deadline = MonoNow() + options_.connect_timeout;

  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  int gai = getaddrinfo(options_.host.c_str(), std::to_string(options_.port).c_str(), &hints, &res);
  if (gai != 0) return unreachable(std::string("resolve: ") + gai_strerror(gai));
  std::unique_ptr<addrinfo, decltype(&freeaddrinfo)> guard(res, freeaddrinfo);

  auto s = std::make_unique<Session>();
  s->sock.Reset(socket(res->ai_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
  if (!s->sock.valid()) return unreachable(std::string("socket: ") + strerror(errno));
  if (connect(s->sock.get(), res->ai_addr, res->ai_addrlen) != 0) {
    if (errno != EINPROGRESS) return unreachable(std::string("connect: ") + strerror(errno));
    pollfd p{s->sock.get(), POLLOUT, 0};
    TimeNs left = deadline - MonoNow();
    if (poll(&p, 1, int(std::max<TimeNs>(left, 0) / core::kNsPerMs)) <= 0)
      return unreachable("connect: timed out after " +
                         std::to_string(options_.connect_timeout / core::kNsPerMs) + " ms");
    int err = 0;
    socklen_t len = sizeof err;
    getsockopt(s->sock.get(), SOL_SOCKET, SO_ERROR, &err, &len);
    if (err != 0) return unreachable(std::string("connect: ") + strerror(err));
  }

  s->ssh = libssh2_session_init();
  if (!s->ssh) return unreachable("libssh2_session_init failed");
  libssh2_session_set_blocking(s->ssh, 0);

  // known_hosts is read before the handshake: the key types it holds for
  // this host are the host-key methods we ask for first, as OpenSSH does,
  // so a server with several host keys shows the one we know.
  LIBSSH2_KNOWNHOSTS* kh = libssh2_knownhost_init(s->ssh);
  std::unique_ptr<LIBSSH2_KNOWNHOSTS, decltype(&libssh2_knownhost_free)> khg(kh, libssh2_knownhost_free);
  auto known_text = core::ReadWholeFile(options_.known_hosts);
  if (!kh || !known_text ||
      libssh2_knownhost_readfile(kh, options_.known_hosts.c_str(), LIBSSH2_KNOWNHOST_FILE_OPENSSH) < 0) {
    definite_ = true;
    return unreachable("cannot read known_hosts " + options_.known_hosts);
  }
  std::vector<int> known_types;
  for (int type : {LIBSSH2_HOSTKEY_TYPE_ED25519, LIBSSH2_HOSTKEY_TYPE_ECDSA_256, LIBSSH2_HOSTKEY_TYPE_ECDSA_384,
                   LIBSSH2_HOSTKEY_TYPE_ECDSA_521, LIBSSH2_HOSTKEY_TYPE_RSA, LIBSSH2_HOSTKEY_TYPE_DSS}) {
    // A key that is no key: an entry of this type for this host answers
    // "mismatch", no entry "not found".
    static const char kProbe[] = "agtmux-probe";
    if (libssh2_knownhost_checkp(kh, options_.host.c_str(), options_.port, kProbe, sizeof kProbe - 1,
                                 LIBSSH2_KNOWNHOST_TYPE_PLAIN | LIBSSH2_KNOWNHOST_KEYENC_RAW |
                                     KnownHostKeyMask(type),
                                 nullptr) == LIBSSH2_KNOWNHOST_CHECK_MISMATCH)
      known_types.push_back(type);
  }
  if (!known_types.empty()) {
    std::vector<std::string> supported;
    const char** algs = nullptr;
    const int n = libssh2_session_supported_algs(s->ssh, LIBSSH2_METHOD_HOSTKEY, &algs);
    for (int i = 0; i < n; ++i) supported.emplace_back(algs[i]);
    if (algs) libssh2_free(s->ssh, algs);
    const std::string pref = KeepSupportedMethods(HostKeyMethodPreference(known_types), supported);
    if (!pref.empty()) (void)libssh2_session_method_pref(s->ssh, LIBSSH2_METHOD_HOSTKEY, pref.c_str());
  }

  int rc;
  while ((rc = libssh2_session_handshake(s->ssh, s->sock.get())) == LIBSSH2_ERROR_EAGAIN)
    if (!s->Wait(deadline)) return unreachable("handshake: timed out");
  if (rc != 0) return unreachable("handshake failed (" + std::to_string(rc) + ")");

  // The host key must be in known_hosts, with its type, and not revoked;
  // anything else is refused.
  {
    size_t len = 0;
    int type = 0;
    const char* key = libssh2_session_hostkey(s->ssh, &len, &type);
    if (!key) return unreachable("no host key");
    definite_ = true;  // a wrong, revoked or unknown host key will not fix itself
    const std::string type_name(HostKeyTypeName(type));
    const std::string presented = type_name + " " + Base64(std::string_view(key, len));
    for (const std::string& revoked : RevokedKeys(*known_text))
      if (revoked == presented)
        return unreachable("the host's " + type_name + " key is marked @revoked in " + options_.known_hosts +
                           "; refused");
    libssh2_knownhost* found = nullptr;
    int check = libssh2_knownhost_checkp(kh, options_.host.c_str(), options_.port, key, len,
                                         LIBSSH2_KNOWNHOST_TYPE_PLAIN | LIBSSH2_KNOWNHOST_KEYENC_RAW |
                                             KnownHostKeyMask(type),
                                         &found);
    if (check == LIBSSH2_KNOWNHOST_CHECK_MISMATCH)
      return unreachable("the host's " + type_name + " key does not match the one in " + options_.known_hosts +
                         " (possible impersonation)");
    if (check != LIBSSH2_KNOWNHOST_CHECK_MATCH) {
      if (!known_types.empty())
        return unreachable("the host offered a " + type_name + " key, which " + options_.known_hosts +
                           " does not list for it (it lists other key types)");
      return unreachable("host not in known_hosts " + options_.known_hosts);
    }
    definite_ = false;
  }

  // Authentication: the agent's identities first, then key files.
  bool authed = false;
  if (options_.use_agent && getenv("SSH_AUTH_SOCK")) {
    libssh2_session_set_blocking(s->ssh, 1);
    libssh2_session_set_timeout(s->ssh, long(options_.connect_timeout / core::kNsPerMs));
    LIBSSH2_AGENT* agent = libssh2_agent_init(s->ssh);
    if (agent && libssh2_agent_connect(agent) == 0 && libssh2_agent_list_identities(agent) == 0) {
      libssh2_agent_publickey* prev = nullptr;
      libssh2_agent_publickey* id = nullptr;
      while (!authed && libssh2_agent_get_identity(agent, &id, prev) == 0) {
        if (libssh2_agent_userauth(agent, options_.user.c_str(), id) == 0) authed = true;
        prev = id;
      }
      libssh2_agent_disconnect(agent);
    }
    if (agent) libssh2_agent_free(agent);
    libssh2_session_set_blocking(s->ssh, 0);
  }
  for (const auto& key : options_.identity_files) {
    if (authed) break;
    if (access(key.c_str(), R_OK) != 0) continue;
    while ((rc = libssh2_userauth_publickey_fromfile(s->ssh, options_.user.c_str(), nullptr,
                                                     key.c_str(), nullptr)) == LIBSSH2_ERROR_EAGAIN)
      if (!s->Wait(deadline)) return unreachable("auth: timed out");
    if (rc == 0) authed = true;
  }
  if (!authed) {
    definite_ = true;
    return unreachable("authentication failed for user " + options_.user);
  }
  session_ = std::move(s);
  ++handshakes_;
  return core::Ok();
}

core::Result<ExecResult> SshExecutor::RunOnce(const std::string& command,
                                              const ExecOptions& options) {
  Session& s = *session_;
  const TimeNs deadline = MonoNow() + options.timeout;
  auto timeout = [&] {
    return MakeError(Err::kTimeout, "ssh " + options_.host + ": command timed out after " +
                                        std::to_string(options.timeout / core::kNsPerMs) + " ms");
  };
  LIBSSH2_CHANNEL* ch = nullptr;
  while (!(ch = libssh2_channel_open_session(s.ssh)) &&
         libssh2_session_last_errno(s.ssh) == LIBSSH2_ERROR_EAGAIN)
    if (!s.Wait(deadline)) return timeout();
  if (!ch) return MakeError(Err::kTargetUnreachable, "ssh " + options_.host + ": cannot open a channel");
  // After a clean close this frees the channel at once. On an error path
  // the free may answer EAGAIN (it waits for the peer's CHANNEL_CLOSE) and
  // keep the channel in the session's list; Run drops the session after
  // any failure, and freeing the session frees it (see ~Session).
  std::unique_ptr<LIBSSH2_CHANNEL, decltype(&libssh2_channel_free)> chg(ch, libssh2_channel_free);
  int rc;
  while ((rc = libssh2_channel_exec(ch, command.c_str())) == LIBSSH2_ERROR_EAGAIN)
    if (!s.Wait(deadline)) return timeout();
  if (rc != 0) return MakeError(Err::kTargetUnreachable, "ssh " + options_.host + ": exec refused");
  size_t in_off = 0;
  bool in_done = options.stdin_data.empty();
  if (in_done) {
    while (libssh2_channel_send_eof(ch) == LIBSSH2_ERROR_EAGAIN)
      if (!s.Wait(deadline)) return timeout();
  }
  ExecResult result;
  char buf[32768];
  while (true) {
    bool progress = false;
    if (!in_done) {
      ssize_t w = libssh2_channel_write(ch, options.stdin_data.data() + in_off,
                                        options.stdin_data.size() - in_off);
      if (w > 0) {
        in_off += size_t(w);
        progress = true;
      } else if (w != LIBSSH2_ERROR_EAGAIN) {
        in_done = true;
      }
      if (in_off >= options.stdin_data.size()) {
        in_done = true;
        while (libssh2_channel_send_eof(ch) == LIBSSH2_ERROR_EAGAIN)
          if (!s.Wait(deadline)) return timeout();
      }
    }
    for (int stream : {0, SSH_EXTENDED_DATA_STDERR}) {
      ssize_t n;
      while ((n = libssh2_channel_read_ex(ch, stream, buf, sizeof buf)) > 0) {
        std::string& into = stream == 0 ? result.out : result.err;
        if (into.size() < options.max_output)
          into.append(buf, std::min(size_t(n), options.max_output - into.size()));
        progress = true;
      }
      if (n < 0 && n != LIBSSH2_ERROR_EAGAIN)
        return MakeError(Err::kTargetUnreachable, "ssh " + options_.host + ": read failed (" +
                                                      std::to_string(n) + ")");
    }
    if (libssh2_channel_eof(ch)) break;
    if (!progress && !s.Wait(deadline)) return timeout();
  }
  while (libssh2_channel_close(ch) == LIBSSH2_ERROR_EAGAIN)
    if (!s.Wait(deadline)) return timeout();
  char* signal = nullptr;
  libssh2_channel_get_exit_signal(ch, &signal, nullptr, nullptr, nullptr, nullptr, nullptr);
  result.exit_code = libssh2_channel_get_exit_status(ch);
  if (signal) {
    result.exit_code = 128 + 9;  // the name is all ssh gives; report "killed"
    libssh2_free(s.ssh, signal);
  }
  return result;
}

core::Result<ExecResult> SshExecutor::Run(const std::vector<std::string>& argv,
                                          const ExecOptions& options) {
  if (argv.empty()) return MakeError(Err::kInternal, "ssh: empty argv");
  const std::string command = core::ShellJoin(argv);
  static thread_local std::mt19937 rng{std::random_device{}()};
  core::Error last{Err::kTargetUnreachable, "ssh " + options_.host + ": not attempted"};
  for (size_t attempt = 0; attempt <= options_.retry_delays.size(); ++attempt) {
    if (attempt > 0) {
      std::uniform_real_distribution<double> j(1.0 - options_.jitter, 1.0 + options_.jitter);
      SleepNs(TimeNs(double(options_.retry_delays[attempt - 1]) * j(rng)));
    }
    definite_ = false;
    core::Status c = Connect();
    if (!c.ok()) {
      last = c.error();
      if (definite_) break;  // host key or auth: retrying cannot help
      continue;
    }
    auto r = RunOnce(command, options);
    if (r.ok()) return r;
    last = r.error();
    Drop();  // the session may be wedged: reconnect on the next attempt
  }
  return last;
}

}  // namespace agt::agg

// Channels for long-lived byte streams (see ssh_executor.h). They share the
// session's non-blocking mode and its Wait, so a read never blocks past the
// caller's timeout.
namespace agt::agg {
namespace {

void PutU32(std::string& out, uint32_t v) {
  for (int shift : {24, 16, 8, 0}) out.push_back(char((v >> shift) & 0xff));
}

void PutString(std::string& out, std::string_view s) {
  PutU32(out, uint32_t(s.size()));
  out.append(s);
}

}  // namespace

core::Result<std::unique_ptr<SshChannel>> SshExecutor::OpenUnixSocket(const std::string& path,
                                                                      core::TimeNs timeout) {
  if (!session_) return MakeError(Err::kTargetUnreachable, "ssh " + options_.host + ": not connected");
  Session& s = *session_;
  const TimeNs deadline = MonoNow() + timeout;
  // libssh2 1.10 has no direct-streamlocal call: the channel-open message's
  // type-specific part is the socket path, a reserved string and a
  // reserved uint32.
  std::string message;
  PutString(message, path);
  PutString(message, "");
  PutU32(message, 0);
  static const char kType[] = "direct-streamlocal@openssh.com";
  LIBSSH2_CHANNEL* ch = nullptr;
  while (!(ch = libssh2_channel_open_ex(s.ssh, kType, sizeof kType - 1, LIBSSH2_CHANNEL_WINDOW_DEFAULT,
                                        LIBSSH2_CHANNEL_PACKET_DEFAULT, message.data(),
                                        unsigned(message.size()))) &&
         libssh2_session_last_errno(s.ssh) == LIBSSH2_ERROR_EAGAIN)
    if (!s.Wait(deadline)) return MakeError(Err::kTimeout, "ssh " + options_.host + ": opening " + path + " timed out");
  if (!ch) {
    const int err = libssh2_session_last_errno(s.ssh);
    if (err == LIBSSH2_ERROR_CHANNEL_FAILURE)
      return MakeError(Err::kUnsupported, "ssh " + options_.host + ": the server refused a channel to " + path);
    return MakeError(Err::kTargetUnreachable,
                     "ssh " + options_.host + ": cannot open a channel to " + path + " (" + std::to_string(err) + ")");
  }
  return std::unique_ptr<SshChannel>(new SshChannel(&s, ch, options_.host));
}

core::Result<std::unique_ptr<SshChannel>> SshExecutor::OpenCommand(const std::vector<std::string>& argv,
                                                                   core::TimeNs timeout) {
  if (!session_) return MakeError(Err::kTargetUnreachable, "ssh " + options_.host + ": not connected");
  Session& s = *session_;
  const TimeNs deadline = MonoNow() + timeout;
  auto late = [&] { return MakeError(Err::kTimeout, "ssh " + options_.host + ": starting a command timed out"); };
  LIBSSH2_CHANNEL* ch = nullptr;
  while (!(ch = libssh2_channel_open_session(s.ssh)) && libssh2_session_last_errno(s.ssh) == LIBSSH2_ERROR_EAGAIN)
    if (!s.Wait(deadline)) return late();
  if (!ch) return MakeError(Err::kTargetUnreachable, "ssh " + options_.host + ": cannot open a channel");
  std::unique_ptr<SshChannel> out(new SshChannel(&s, ch, options_.host));
  const std::string command = core::ShellJoin(argv);
  int rc;
  while ((rc = libssh2_channel_exec(ch, command.c_str())) == LIBSSH2_ERROR_EAGAIN)
    if (!s.Wait(deadline)) return late();
  if (rc != 0) return MakeError(Err::kTargetUnreachable, "ssh " + options_.host + ": exec refused");
  return out;
}

SshChannel::~SshChannel() {
  auto* ch = static_cast<LIBSSH2_CHANNEL*>(channel_);
  // As in RunOnce: a free that would wait for the peer is finished by the
  // session's own free (~Session).
  libssh2_channel_free(ch);
}

core::Result<size_t> SshChannel::Read(char* buf, size_t cap, core::TimeNs timeout) {
  auto* ch = static_cast<LIBSSH2_CHANNEL*>(channel_);
  const TimeNs deadline = MonoNow() + timeout;
  while (true) {
    const ssize_t n = libssh2_channel_read(ch, buf, cap);
    if (n > 0) return size_t(n);
    if (n == 0 || libssh2_channel_eof(ch)) {
      if (libssh2_channel_eof(ch)) return size_t(0);
    } else if (n != LIBSSH2_ERROR_EAGAIN) {
      return MakeError(Err::kTargetUnreachable, "ssh " + host_ + ": read failed (" + std::to_string(n) + ")");
    }
    // Bytes on stderr (a bridge's complaint) are drained, not mixed in.
    char junk[1024];
    while (libssh2_channel_read_stderr(ch, junk, sizeof junk) > 0) {}
    if (!session_->Wait(deadline)) return MakeError(Err::kTimeout, "ssh " + host_ + ": nothing to read");
  }
}

core::Status SshChannel::Write(std::string_view data, core::TimeNs timeout) {
  auto* ch = static_cast<LIBSSH2_CHANNEL*>(channel_);
  const TimeNs deadline = MonoNow() + timeout;
  while (!data.empty()) {
    const ssize_t n = libssh2_channel_write(ch, data.data(), data.size());
    if (n > 0) {
      data.remove_prefix(size_t(n));
      continue;
    }
    if (n != LIBSSH2_ERROR_EAGAIN)
      return MakeError(Err::kTargetUnreachable, "ssh " + host_ + ": write failed (" + std::to_string(n) + ")");
    if (!session_->Wait(deadline)) return MakeError(Err::kTimeout, "ssh " + host_ + ": write timed out");
  }
  return core::Ok();
}

}  // namespace agt::agg
