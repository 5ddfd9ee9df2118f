// The ssh executor on libssh2 (see ssh_executor.h). The session runs in
// non-blocking mode; every wait is a poll() on the socket in the direction
// libssh2 asks for, bounded by the call's deadline, so no step can hang past
// its timeout. A transport failure drops the session; the next attempt (or
// the next command) reconnects. Host keys are checked as OpenSSH does, by
// type, with @revoked keys refused (known_hosts.h says what libssh2 lacks).
//
// The options are resolved through ~/.ssh/config at every connect
// (ResolveSshOptions), so an edit there applies on the next reconnect.
// ProxyJump: libssh2 handshakes over a socket it send()s and recv()s on, so
// the target's session runs over one end of a socketpair, and a relay
// thread on the jump host's session copies bytes between the other end and
// a direct-tcpip channel to the target. The relay is the only user of the
// jump session once it runs; it ends when either side closes.
#include "aggregator/targets/ssh_executor.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <libssh2.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <thread>

#include "aggregator/targets/base64.h"
#include "aggregator/targets/known_hosts.h"
#include "aggregator/targets/ssh_config.h"
#include "libagtcore/os/file.h"
#include "libagtcore/base/shell.h"
#include "libagtcore/os/unique_fd.h"

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

/// Whether a private key file needs a passphrase: an OpenSSH-format key
/// whose cipher is not "none", or a PEM key marked ENCRYPTED.
bool KeyFileEncrypted(std::string_view text) {
  if (text.find("ENCRYPTED") != std::string_view::npos) return true;  // PEM / PKCS#8
  static constexpr std::string_view kBegin = "-----BEGIN OPENSSH PRIVATE KEY-----";
  const size_t begin = text.find(kBegin);
  if (begin == std::string_view::npos) return false;
  const size_t end = text.find("-----END", begin + kBegin.size());
  std::string b64;
  for (char c : text.substr(begin + kBegin.size(), end == std::string_view::npos ? std::string_view::npos
                                                                                 : end - begin - kBegin.size()))
    if (c != '\n' && c != '\r' && c != ' ') b64 += c;
  auto bytes = Base64Decode(b64);
  // "openssh-key-v1\0", then the cipher name as an ssh string.
  static constexpr std::string_view kMagic("openssh-key-v1\0", 15);
  if (!bytes || bytes->size() < kMagic.size() + 4 || std::string_view(*bytes).substr(0, kMagic.size()) != kMagic)
    return false;
  const auto* p = reinterpret_cast<const unsigned char*>(bytes->data()) + kMagic.size();
  const size_t len = (size_t(p[0]) << 24) | (size_t(p[1]) << 16) | (size_t(p[2]) << 8) | p[3];
  if (kMagic.size() + 4 + len > bytes->size()) return false;
  return std::string_view(*bytes).substr(kMagic.size() + 4, len) != "none";
}

/// The base64 key of `key_file`.pub ("" when there is none).
std::string PublicKeyOf(const std::string& key_file) {
  auto text = core::ReadWholeFile(key_file + ".pub");
  if (!text) return "";
  const size_t sp = text->find(' ');
  if (sp == std::string::npos) return "";
  const size_t end = text->find_first_of(" \n\r", sp + 1);
  return text->substr(sp + 1, end == std::string::npos ? std::string::npos : end - sp - 1);
}

/// Copies bytes between `local` (one end of the socketpair the target's
/// session runs on) and `ch`, a direct-tcpip channel on the jump session,
/// until either side closes, `wake` is readable, or the jump host stays
/// silent through `count_max` keepalives. Then shuts `local` down, so the
/// target's session fails at once instead of waiting for its timeout.
void Relay(LIBSSH2_SESSION* ssh, int ssh_fd, LIBSSH2_CHANNEL* ch, core::UniqueFd local, core::UniqueFd wake,
           TimeNs keepalive_interval, int count_max) {
  constexpr size_t kCap = 1 << 20;
  std::string up, down;  // local -> channel, channel -> local
  char buf[16384];
  TimeNs heard = MonoNow();
  bool open = true;
  int wait_ms = 1000;
  while (open) {
    const int dir = libssh2_session_block_directions(ssh);
    pollfd p[3] = {
        {local.get(), short((up.size() < kCap ? POLLIN : 0) | (down.empty() ? 0 : POLLOUT)), 0},
        {ssh_fd, short(POLLIN | ((dir & LIBSSH2_SESSION_BLOCK_OUTBOUND) ? POLLOUT : 0)), 0},
        {wake.get(), POLLIN, 0}};
    if (poll(p, 3, wait_ms) < 0 && errno != EINTR) break;
    if (p[2].revents) break;
    // What the jump host sends is often read by libssh2 inside a channel
    // call (a window adjustment inside a write): progress there counts as
    // hearing from it too, or a long transfer would look like silence.
    if (p[1].revents & POLLIN) heard = MonoNow();
    if (p[0].revents & (POLLIN | POLLHUP | POLLERR)) {
      const ssize_t n = read(local.get(), buf, sizeof buf);
      if (n > 0) up.append(buf, size_t(n));
      else if (n == 0 || errno != EAGAIN) break;  // the target's session is gone
    }
    // A packet half sent must go out before any other: libssh2 answers
    // LIBSSH2_ERROR_BAD_USE to a new one, and a read that wants to send a
    // window adjustment then fails. So while one waits, nothing is read.
    bool half_sent = false;
    while (!up.empty()) {
      const ssize_t w = libssh2_channel_write(ch, up.data(), up.size());
      if (w == LIBSSH2_ERROR_EAGAIN)
        half_sent = libssh2_session_block_directions(ssh) & LIBSSH2_SESSION_BLOCK_OUTBOUND;
      // BAD_USE: a read's window adjustment is half sent; the reads below
      // finish it, and the write is tried again on the next turn.
      if (w < 0 && w != LIBSSH2_ERROR_EAGAIN && w != LIBSSH2_ERROR_BAD_USE) open = false;
      if (w <= 0) break;
      up.erase(0, size_t(w));
      heard = MonoNow();  // the jump host opened the window: it is alive
    }
    while (open && !half_sent && down.size() < kCap) {
      const ssize_t n = libssh2_channel_read(ch, buf, sizeof buf);
      if (n == LIBSSH2_ERROR_EAGAIN) break;
      if (n < 0) open = false;
      if (n <= 0) break;
      down.append(buf, size_t(n));
      heard = MonoNow();
    }
    if (libssh2_channel_eof(ch) && down.empty()) break;
    while (!down.empty()) {
      const ssize_t w = write(local.get(), down.data(), down.size());
      if (w <= 0) {
        if (w < 0 && errno != EAGAIN) open = false;
        break;
      }
      down.erase(0, size_t(w));
    }
    // A keepalive only when nothing is half sent: libssh2 refuses a new
    // packet (LIBSSH2_ERROR_BAD_USE) while another waits to go out.
    const bool quiet = up.empty() && !(libssh2_session_block_directions(ssh) & LIBSSH2_SESSION_BLOCK_OUTBOUND);
    if (keepalive_interval > 0 && quiet) {
      int next = 0;
      const int rc = libssh2_keepalive_send(ssh, &next);
      if (rc < 0 && rc != LIBSSH2_ERROR_EAGAIN) break;
      if (count_max > 0 && MonoNow() - heard > keepalive_interval * (count_max + 1)) break;
    }
    // libssh2 may already hold what the next turn needs, read off the
    // socket inside another call: a window adjustment (up can go on), or
    // channel data (down can; libssh2_poll_channel_read cannot say, it
    // stops at the first short packet, a keepalive's answer). The socket
    // shows neither, so the poll waits a short slice only (it used to wait
    // a full second per window, and a transfer of a few MiB took longer
    // than the command's timeout).
    const bool can_send = !up.empty() && !half_sent && libssh2_channel_window_write(ch) > 0;
    wait_ms = can_send ? 0 : 100;
  }
  shutdown(local.get(), SHUT_RDWR);
}

}  // namespace

std::string_view SshFailureReason(std::string_view m) {
  auto has = [&](std::string_view what) { return m.find(what) != std::string_view::npos; };
  // The hop's own reason is inside a ProxyJump failure: test that first.
  if (has("ssh config: ")) return "config_invalid";
  if (has("proxy failed: ")) return "proxy_failed";
  if (has("marked @revoked")) return "host_key_revoked";
  if (has("(possible impersonation)") || has("does not list for it")) return "host_key_mismatch";
  if (has("host not in known_hosts") || has("cannot read known_hosts")) return "host_key_unknown";
  if (has("authentication failed")) return "auth_failed";
  if (has("timed out")) return "timeout";
  if (has("Connection refused")) return "refused";
  if (has("resolve: ")) return "unresolved";
  return "";
}

struct SshExecutor::Session {
  // Destroyed last: a target's session runs over this jump host's relay.
  std::unique_ptr<SshExecutor> jump;
  // On a jump host's session: the relay thread, and the pipe that stops it.
  std::thread relay;
  core::UniqueFd relay_wake;
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
    if (relay.joinable()) {
      relay_wake.Reset();  // the relay sees the pipe's end and stops
      relay.join();
    }
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
  /// Waits at most a short slice: libssh2 may already hold, read inside
  /// another call, what the next call needs (a window adjustment, channel
  /// data), and the socket does not show it. A loop that waits for more
  /// than one packet uses this. False once the deadline has passed.
  bool WaitSlice(TimeNs deadline) {
    constexpr TimeNs kSlice = 100 * core::kNsPerMs;
    if (MonoNow() >= deadline) return false;
    Wait(std::min(deadline, MonoNow() + kSlice));
    return true;
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
}

SshExecutor::~SshExecutor() = default;

void SshExecutor::Drop() { session_.reset(); }

core::Status SshExecutor::Connect() {
  if (session_) return core::Ok();
  // ~/.ssh/config is read now, so an edit applies on the next reconnect;
  // a config agtmux cannot read is a reason retries cannot fix.
  auto resolved = ResolveSshOptions(options_);
  if (!resolved) {
    definite_ = true;
    return MakeError(Err::kTargetUnreachable, "ssh " + options_.host + ": ssh config: " + resolved.error().message);
  }
  const SshOptions& o = *resolved;
  std::string where = o.host + ":" + std::to_string(o.port);
  if (o.host != options_.host) where = options_.host + " (" + where + ")";
  auto unreachable = [&](const std::string& why) {
    return MakeError(Err::kTargetUnreachable, "ssh " + where + ": " + why);
  };
  const TimeNs deadline = MonoNow() + o.connect_timeout;
  auto s = std::make_unique<Session>();

  if (!o.proxy_jump.empty()) {
    // ProxyJump: the hop's own session (its host key and keys checked as
    // any target's), a direct-tcpip channel to the target on it, and the
    // relay thread (see the top of this file).
    const SshOptions& hop_options = o.proxy_jump.front();
    const std::string hop = "proxy failed: ProxyJump " + hop_options.host + ":" + std::to_string(hop_options.port);
    auto jump = std::make_unique<SshExecutor>(hop_options);
    if (core::Status c = jump->Connect(); !c) {
      definite_ = jump->definite_;
      return unreachable(hop + ": " + c.error().message);
    }
    Session& js = *jump->session_;
    LIBSSH2_CHANNEL* ch = nullptr;
    while (!(ch = libssh2_channel_direct_tcpip_ex(js.ssh, o.host.c_str(), o.port, "127.0.0.1", 22))) {
      if (libssh2_session_last_errno(js.ssh) != LIBSSH2_ERROR_EAGAIN) {
        char* msg = nullptr;
        libssh2_session_last_error(js.ssh, &msg, nullptr, 0);
        return unreachable(hop + ": the jump host did not open a channel to " + o.host + ":" +
                           std::to_string(o.port) + " (" + (msg ? msg : "refused") + ")");
      }
      if (!js.Wait(deadline)) return unreachable(hop + ": channel to the target timed out");
    }
    int pair[2], wake[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, pair) != 0 ||
        pipe2(wake, O_CLOEXEC) != 0)
      return unreachable(hop + ": " + strerror(errno));
    s->sock.Reset(pair[0]);
    js.relay_wake.Reset(wake[1]);
    js.relay = std::thread(Relay, js.ssh, js.sock.get(), ch, core::UniqueFd(pair[1]), core::UniqueFd(wake[0]),
                           hop_options.keepalive_interval, hop_options.keepalive_count_max);
    s->jump = std::move(jump);
  } else {
    addrinfo hints{};
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* res = nullptr;
    int gai = getaddrinfo(o.host.c_str(), std::to_string(o.port).c_str(), &hints, &res);
    if (gai != 0) return unreachable(std::string("resolve: ") + gai_strerror(gai));
    std::unique_ptr<addrinfo, decltype(&freeaddrinfo)> guard(res, freeaddrinfo);
    s->sock.Reset(socket(res->ai_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
    if (!s->sock.valid()) return unreachable(std::string("socket: ") + strerror(errno));
    if (connect(s->sock.get(), res->ai_addr, res->ai_addrlen) != 0) {
      if (errno != EINPROGRESS) return unreachable(std::string("connect: ") + strerror(errno));
      pollfd p{s->sock.get(), POLLOUT, 0};
      TimeNs left = deadline - MonoNow();
      if (poll(&p, 1, int(std::max<TimeNs>(left, 0) / core::kNsPerMs)) <= 0)
        return unreachable("connect: timed out after " + std::to_string(o.connect_timeout / core::kNsPerMs) +
                           " ms");
      int err = 0;
      socklen_t len = sizeof err;
      getsockopt(s->sock.get(), SOL_SOCKET, SO_ERROR, &err, &len);
      if (err != 0) return unreachable(std::string("connect: ") + strerror(err));
    }
  }

  s->ssh = libssh2_session_init();
  if (!s->ssh) return unreachable("libssh2_session_init failed");
  libssh2_session_set_blocking(s->ssh, 0);

  // known_hosts is read before the handshake: the key types it holds for
  // this host are the host-key methods we ask for first, as OpenSSH does,
  // so a server with several host keys shows the one we know. libssh2
  // reads hashed entries (|1|salt|hash, HMAC-SHA1 of the name or of
  // "[name]:port") itself.
  LIBSSH2_KNOWNHOSTS* kh = libssh2_knownhost_init(s->ssh);
  std::unique_ptr<LIBSSH2_KNOWNHOSTS, decltype(&libssh2_knownhost_free)> khg(kh, libssh2_knownhost_free);
  auto known_text = core::ReadWholeFile(o.known_hosts);
  if (!kh || !known_text ||
      libssh2_knownhost_readfile(kh, o.known_hosts.c_str(), LIBSSH2_KNOWNHOST_FILE_OPENSSH) < 0) {
    definite_ = true;
    return unreachable("cannot read known_hosts " + o.known_hosts);
  }
  std::vector<int> known_types;
  for (int type : {LIBSSH2_HOSTKEY_TYPE_ED25519, LIBSSH2_HOSTKEY_TYPE_ECDSA_256, LIBSSH2_HOSTKEY_TYPE_ECDSA_384,
                   LIBSSH2_HOSTKEY_TYPE_ECDSA_521, LIBSSH2_HOSTKEY_TYPE_RSA, LIBSSH2_HOSTKEY_TYPE_DSS}) {
    // A key that is no key: an entry of this type for this host answers
    // "mismatch", no entry "not found".
    static const char kProbe[] = "agtmux-probe";
    if (libssh2_knownhost_checkp(kh, o.host.c_str(), o.port, kProbe, sizeof kProbe - 1,
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
    const std::string presented = type_name + " " + Base64Encode(std::string_view(key, len));
    for (const std::string& revoked : RevokedKeys(*known_text))
      if (revoked == presented)
        return unreachable("the host's " + type_name + " key is marked @revoked in " + o.known_hosts + "; refused");
    libssh2_knownhost* found = nullptr;
    int check = libssh2_knownhost_checkp(kh, o.host.c_str(), o.port, key, len,
                                         LIBSSH2_KNOWNHOST_TYPE_PLAIN | LIBSSH2_KNOWNHOST_KEYENC_RAW |
                                             KnownHostKeyMask(type),
                                         &found);
    if (check == LIBSSH2_KNOWNHOST_CHECK_MISMATCH)
      return unreachable("the host's " + type_name + " key does not match the one in " + o.known_hosts +
                         " (possible impersonation)");
    if (check != LIBSSH2_KNOWNHOST_CHECK_MATCH) {
      if (!known_types.empty())
        return unreachable("the host offered a " + type_name + " key, which " + o.known_hosts +
                           " does not list for it (it lists other key types)");
      const bool ca = known_text->find("@cert-authority") != std::string::npos;
      return unreachable("host not in known_hosts " + o.known_hosts +
                         (ca ? " (its @cert-authority lines are not supported: list the host's own key)" : ""));
    }
    definite_ = false;
  }

  // Authentication: the agent's identities first (with IdentitiesOnly,
  // only those of the key files), then the key files. A passphrase-
  // protected file is never decrypted here: such keys work through the
  // agent only, and the refusal says so.
  bool authed = false;
  std::vector<std::string> wanted;  // IdentitiesOnly: the key files' public keys
  if (o.identities_only)
    for (const auto& f : o.identity_files)
      if (std::string pub = PublicKeyOf(f); !pub.empty()) wanted.push_back(pub);
  const char* agent_sock = getenv("SSH_AUTH_SOCK");
  const bool agent_used = o.use_agent && agent_sock && *agent_sock;
  if (agent_used) {
    libssh2_session_set_blocking(s->ssh, 1);
    libssh2_session_set_timeout(s->ssh, long(o.connect_timeout / core::kNsPerMs));
    LIBSSH2_AGENT* agent = libssh2_agent_init(s->ssh);
    if (agent && libssh2_agent_connect(agent) == 0 && libssh2_agent_list_identities(agent) == 0) {
      libssh2_agent_publickey* prev = nullptr;
      libssh2_agent_publickey* id = nullptr;
      while (!authed && libssh2_agent_get_identity(agent, &id, prev) == 0) {
        prev = id;
        const std::string blob = Base64Encode(std::string_view(reinterpret_cast<const char*>(id->blob), id->blob_len));
        if (o.identities_only && std::find(wanted.begin(), wanted.end(), blob) == wanted.end()) continue;
        if (libssh2_agent_userauth(agent, o.user.c_str(), id) == 0) authed = true;
      }
      libssh2_agent_disconnect(agent);
    }
    if (agent) libssh2_agent_free(agent);
    libssh2_session_set_blocking(s->ssh, 0);
  }
  std::vector<std::string> locked;  // passphrase-protected key files
  for (const auto& key : o.identity_files) {
    if (authed) break;
    auto text = core::ReadWholeFile(key);
    if (!text) continue;
    if (KeyFileEncrypted(*text)) {
      locked.push_back(key);
      continue;
    }
    while ((rc = libssh2_userauth_publickey_fromfile(s->ssh, o.user.c_str(), nullptr, key.c_str(), nullptr)) ==
           LIBSSH2_ERROR_EAGAIN)
      if (!s->Wait(deadline)) return unreachable("auth: timed out");
    if (rc == 0) authed = true;
  }
  if (!authed) {
    definite_ = true;
    std::string why = "authentication failed for user " + o.user;
    if (!locked.empty())
      why += ": the key " + locked.front() +
             " is passphrase-protected, and agtmux uses such keys only through ssh-agent (" +
             (agent_used ? "the agent at $SSH_AUTH_SOCK does not offer it" : "SSH_AUTH_SOCK is not set") +
             "; run ssh-add " + locked.front() + ")";
    return unreachable(why);
  }
  if (o.keepalive_interval > 0)
    libssh2_keepalive_config(s->ssh, 1, unsigned(std::max<TimeNs>(o.keepalive_interval / core::kNsPerSec, 1)));
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
    // While a stdin packet is half sent, nothing else may be sent (libssh2
    // answers LIBSSH2_ERROR_BAD_USE), and a read may send a window
    // adjustment: so it is not read until the packet is out.
    bool half_sent = false;
    bool adjusting = false;
    if (!in_done) {
      ssize_t w = libssh2_channel_write(ch, options.stdin_data.data() + in_off,
                                        options.stdin_data.size() - in_off);
      if (w > 0) {
        in_off += size_t(w);
        progress = true;
      } else if (w == LIBSSH2_ERROR_EAGAIN) {
        half_sent = libssh2_session_block_directions(s.ssh) & LIBSSH2_SESSION_BLOCK_OUTBOUND;
      } else if (w == LIBSSH2_ERROR_BAD_USE) {
        // A read's window adjustment is half sent: it goes out first (the
        // reads below finish it), then the write is tried again. Taken as
        // the end of stdin, it left `cat` waiting for the rest forever.
        adjusting = true;
      } else {
        in_done = true;  // the command stopped reading (it exited): its output still counts
      }
      if (in_off >= options.stdin_data.size()) {
        in_done = true;
        while (libssh2_channel_send_eof(ch) == LIBSSH2_ERROR_EAGAIN)
          if (!s.Wait(deadline)) return timeout();
      }
    }
    for (int stream : {0, SSH_EXTENDED_DATA_STDERR}) {
      if (half_sent) break;
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
    // A read may have taken a window adjustment or data off the socket
    // without returning it: then the socket shows nothing, and a wait on it
    // alone would hang until the remote sends again (with `cat`, never).
    const bool can_send = !half_sent && !adjusting && !in_done && libssh2_channel_window_write(ch) > 0;
    if (!progress && !can_send && !s.WaitSlice(deadline)) return timeout();
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
  std::uniform_real_distribution<double> jitter(1.0 - options_.jitter, 1.0 + options_.jitter);
  // Backoff between reconnects: a host that is down is not asked again
  // before next_connect_.
  if (!session_ && connect_failures_ > 0 && MonoNow() < next_connect_)
    return core::Error{connect_error_.code,
                       connect_error_.message + " (next attempt in " +
                           std::to_string((next_connect_ - MonoNow()) / core::kNsPerMs + 1) + " ms)"};
  core::Error last{Err::kTargetUnreachable, "ssh " + options_.host + ": not attempted"};
  bool connected = false;  // in the last attempt
  for (size_t attempt = 0; attempt <= options_.retry_delays.size(); ++attempt) {
    if (attempt > 0) SleepNs(TimeNs(double(options_.retry_delays[attempt - 1]) * jitter(rng)));
    definite_ = false;
    if (session_) {
      // ServerAliveInterval: libssh2 sends a keepalive once the interval
      // has passed (else nothing); a transport that fails it is dropped.
      int next = 0;
      const int rc = libssh2_keepalive_send(session_->ssh, &next);
      if (rc < 0 && rc != LIBSSH2_ERROR_EAGAIN) Drop();
    }
    core::Status c = Connect();
    connected = c.ok();
    if (!c.ok()) {
      last = c.error();
      if (definite_) break;  // host key or auth: retrying cannot help
      continue;
    }
    connect_failures_ = 0;
    auto r = RunOnce(command, options);
    if (r.ok()) return r;
    last = r.error();
    Drop();  // the session may be wedged: reconnect on the next attempt
  }
  if (!connected) {
    ++connect_failures_;
    TimeNs delay = options_.reconnect_backoff;
    for (int i = 1; i < connect_failures_ && delay < options_.reconnect_backoff_max; ++i) delay *= 2;
    delay = std::min(delay, options_.reconnect_backoff_max);
    next_connect_ = MonoNow() + TimeNs(double(delay) * jitter(rng));
    connect_error_ = last;
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

core::Result<std::unique_ptr<SshChannel>> SshExecutor::OpenSession(core::TimeNs timeout) {
  if (!session_) return MakeError(Err::kTargetUnreachable, "ssh " + options_.host + ": not connected");
  Session& s = *session_;
  const TimeNs deadline = MonoNow() + timeout;
  LIBSSH2_CHANNEL* ch = nullptr;
  while (!(ch = libssh2_channel_open_session(s.ssh)) && libssh2_session_last_errno(s.ssh) == LIBSSH2_ERROR_EAGAIN)
    if (!s.Wait(deadline)) return MakeError(Err::kTimeout, "ssh " + options_.host + ": opening a channel timed out");
  if (!ch) return MakeError(Err::kTargetUnreachable, "ssh " + options_.host + ": cannot open a channel");
  return std::unique_ptr<SshChannel>(new SshChannel(&s, ch, options_.host));
}

core::Result<std::unique_ptr<SshChannel>> SshExecutor::OpenCommand(const std::vector<std::string>& argv,
                                                                   core::TimeNs timeout) {
  const TimeNs deadline = MonoNow() + timeout;
  auto ch = OpenSession(timeout);
  if (!ch) return ch.error();
  if (auto st = (*ch)->Exec(argv, std::max<TimeNs>(deadline - MonoNow(), 0)); !st) return st.error();
  return ch;
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
    // That read may have queued stdout bytes the socket no longer shows.
    if (!session_->WaitSlice(deadline)) return MakeError(Err::kTimeout, "ssh " + host_ + ": nothing to read");
  }
}

core::Status SshChannel::Exec(const std::vector<std::string>& argv, core::TimeNs timeout) {
  auto* ch = static_cast<LIBSSH2_CHANNEL*>(channel_);
  const TimeNs deadline = MonoNow() + timeout;
  const std::string command = core::ShellJoin(argv);
  int rc;
  while ((rc = libssh2_channel_exec(ch, command.c_str())) == LIBSSH2_ERROR_EAGAIN)
    if (!session_->Wait(deadline)) return MakeError(Err::kTimeout, "ssh " + host_ + ": starting a command timed out");
  if (rc != 0) return MakeError(Err::kTargetUnreachable, "ssh " + host_ + ": exec refused");
  return core::Ok();
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
