// The ssh TargetExecutor (docs/spec.md §9): libssh2 with one persistent session per
// target (no handshake per command), connect timeout 3 s, command timeout
// 5 s, 2 retries after 250 ms and 1 s (with jitter) when the transport
// fails, then a backoff (1 s doubling to 30 s, with jitter) before the next
// connect. The target is read as ssh reads it: ~/.ssh/config (ssh_config.h)
// gives aliases, users, ports, keys and a ProxyJump hop. The host key must
// match known_hosts; keys come from ssh-agent, then the key files
// (a passphrase-protected file only through the agent). Nothing secret is
// stored.
// The remote side runs a shell, so every argument is shell-quoted
// (core::ShellJoin).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "aggregator/targets/target_executor.h"

namespace agt::agg {

class SshChannel;

struct SshOptions {
  std::string host;                         // address, name or ~/.ssh/config Host alias
  int port = 0;                             // 0: the config's Port, else 22
  std::string user;                         // empty: the config's User, else $USER
  std::string known_hosts;                  // empty: UserKnownHostsFile, else ~/.ssh/known_hosts
  std::vector<std::string> identity_files;  // empty: IdentityFile, else ~/.ssh/id_{ed25519,ecdsa,rsa}
  bool use_agent = true;                    // try $SSH_AUTH_SOCK first
  bool identities_only = false;             // only the agent's keys that match identity_files
  /// The OpenSSH client config read for `host` (ssh_config.h) at every
  /// connect: empty means ~/.ssh/config, "none" reads none. A value set
  /// above wins over the config's (as ssh's command line does).
  std::string ssh_config;
  core::TimeNs connect_timeout = 0;         // 0: ConnectTimeout, else 3 s
  core::TimeNs keepalive_interval = 0;      // ServerAliveInterval; 0: none
  int keepalive_count_max = 3;              // ServerAliveCountMax
  std::vector<SshOptions> proxy_jump;       // ProxyJump: at most one hop, resolved
  std::vector<core::TimeNs> retry_delays = {250 * core::kNsPerMs, 1 * core::kNsPerSec};
  double jitter = 0.2;                      // each delay * (1 ± jitter)
  /// After a command could not connect (retries included), no new connect
  /// is tried for this long, doubling per failure up to the max (with
  /// jitter); meanwhile Run answers the last failure at once.
  core::TimeNs reconnect_backoff = 1 * core::kNsPerSec;
  core::TimeNs reconnect_backoff_max = 30 * core::kNsPerSec;
};

/// `given` with the OpenSSH client config applied (HostName, User, Port,
/// IdentityFile with its tokens, IdentitiesOnly, ProxyJump, the keepalive
/// and timeout keywords, UserKnownHostsFile) and the defaults filled in;
/// the result reads no config again (ssh_config = "none"). E_CONFIG_INVALID
/// naming file:line, or E_UNSUPPORTED for what agtmux cannot do (a
/// ProxyJump of more than one hop).
core::Result<SshOptions> ResolveSshOptions(const SshOptions& given);

/// Why an ssh target is unreachable, read from the executor's error
/// message, as one word for /v1/targets: "config_invalid", "proxy_failed",
/// "host_key_revoked", "host_key_mismatch", "host_key_unknown",
/// "auth_failed", "timeout", "refused", "unresolved"; "" when none fits.
std::string_view SshFailureReason(std::string_view message);

class SshExecutor final : public TargetExecutor {
 public:
  explicit SshExecutor(SshOptions options);
  ~SshExecutor() override;
  SshExecutor(const SshExecutor&) = delete;
  SshExecutor& operator=(const SshExecutor&) = delete;

  core::Result<ExecResult> Run(const std::vector<std::string>& argv,
                               const ExecOptions& options) override;
  std::string Describe() const override { return "ssh:" + options_.host; }

  /// Connects now (or checks the session is there); E_TARGET_UNREACHABLE
  /// with the reason (refused, timeout, host key mismatch, auth failed).
  core::Status Connect();
  /// How many sessions were established (a persistent session keeps it 1).
  int64_t handshakes() const { return handshakes_; }

 private:
  struct Session;
  core::Result<ExecResult> RunOnce(const std::string& command, const ExecOptions& options);
  void Drop();

  SshOptions options_;
  std::unique_ptr<Session> session_;
  int64_t handshakes_ = 0;
  bool definite_ = false;  // the last Connect failed for a reason retries cannot fix
  int connect_failures_ = 0;    // Runs in a row that could not connect
  core::TimeNs next_connect_ = 0;  // monotonic; no connect before it
  core::Error connect_error_{core::Err::kTargetUnreachable, ""};  // the last of them

 public:
  // Channels of the one session for a long-lived byte stream (federation,
  // docs/architecture.md): Connect first. A channel must be destroyed before
  // its executor, and before the next Run or Connect after a failure (which
  // may drop the session the channel lives in).
  friend class SshChannel;
  //
  // E_TIMEOUT from an open leaves it pending in the session (libssh2's
  // non-blocking contract): the next OpenUnixSocket (with the same path) or
  // OpenSession continues it, and no other channel may be opened
  // meanwhile. A timeout of 0 makes one step without waiting on the host.
  /// A channel to the Unix socket `path` on the host
  /// (direct-streamlocal@openssh.com, OpenSSH's PROTOCOL §2.4);
  /// E_UNSUPPORTED when the server refuses it (AllowStreamLocalForwarding
  /// no, or a server without it), E_TARGET_UNREACHABLE when the session fails.
  core::Result<std::unique_ptr<SshChannel>> OpenUnixSocket(const std::string& path, core::TimeNs timeout);
  /// A session channel, for SshChannel::Exec.
  core::Result<std::unique_ptr<SshChannel>> OpenSession(core::TimeNs timeout);
  /// `argv` started on the host, its stdin and stdout as the channel
  /// (OpenSession, then Exec).
  core::Result<std::unique_ptr<SshChannel>> OpenCommand(const std::vector<std::string>& argv,
                                                        core::TimeNs timeout);
};

/// One open channel of an SshExecutor's session; closed when destroyed.
class SshChannel {
 public:
  ~SshChannel();
  SshChannel(const SshChannel&) = delete;
  SshChannel& operator=(const SshChannel&) = delete;
  /// Waits at most `timeout` for bytes: how many were read, 0 once the far
  /// end closed, E_TIMEOUT when none came, E_TARGET_UNREACHABLE when the
  /// session failed.
  core::Result<size_t> Read(char* buf, size_t cap, core::TimeNs timeout);
  /// Writes all of `data` within `timeout`.
  core::Status Write(std::string_view data, core::TimeNs timeout);
  /// Starts `argv` on a channel of OpenSession. E_TIMEOUT leaves the
  /// request pending: the next Exec (with the same argv) continues it.
  core::Status Exec(const std::vector<std::string>& argv, core::TimeNs timeout);

 private:
  friend class SshExecutor;
  SshChannel(SshExecutor::Session* session, void* channel, std::string host)
      : session_(session), channel_(channel), host_(std::move(host)) {}
  SshExecutor::Session* session_;
  void* channel_;  // LIBSSH2_CHANNEL*
  std::string host_;
};

}  // namespace agt::agg
