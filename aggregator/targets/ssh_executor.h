// The ssh TargetExecutor (docs/spec.md §9): libssh2 with one persistent session per
// target (no handshake per command), connect timeout 3 s, command timeout
// 5 s, 2 retries after 250 ms and 1 s (with jitter) when the transport
// fails. The host key must match known_hosts; keys come from ssh-agent,
// then ~/.ssh/id_ed25519, id_ecdsa, id_rsa. Nothing secret is stored.
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
  std::string host;                         // address or name
  int port = 22;
  std::string user;                         // empty: $USER
  std::string known_hosts;                  // empty: ~/.ssh/known_hosts
  std::vector<std::string> identity_files;  // empty: ~/.ssh/id_{ed25519,ecdsa,rsa}
  bool use_agent = true;                    // try $SSH_AUTH_SOCK first
  core::TimeNs connect_timeout = 3 * core::kNsPerSec;
  std::vector<core::TimeNs> retry_delays = {250 * core::kNsPerMs, 1 * core::kNsPerSec};
  double jitter = 0.2;                      // each delay * (1 ± jitter)
};


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

 public:
  // Channels of the one session for a long-lived byte stream (federation,
  // docs/architecture.md): Connect first. A channel must be destroyed before
  // its executor, and before the next Run or Connect after a failure (which
  // may drop the session the channel lives in).
  friend class SshChannel;
  /// A channel to the Unix socket `path` on the host
  /// (direct-streamlocal@openssh.com, OpenSSH's PROTOCOL §2.4);
  /// E_UNSUPPORTED when the server refuses it (AllowStreamLocalForwarding
  /// no, or a server without it), E_TARGET_UNREACHABLE when the session fails.
  core::Result<std::unique_ptr<SshChannel>> OpenUnixSocket(const std::string& path, core::TimeNs timeout);
  /// `argv` started on the host, its stdin and stdout as the channel.
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

 private:
  friend class SshExecutor;
  SshChannel(SshExecutor::Session* session, void* channel, std::string host)
      : session_(session), channel_(channel), host_(std::move(host)) {}
  SshExecutor::Session* session_;
  void* channel_;  // LIBSSH2_CHANNEL*
  std::string host_;
};

}  // namespace agt::agg
