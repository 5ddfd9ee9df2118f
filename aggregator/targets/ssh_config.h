// What agtmux reads from an OpenSSH client config (~/.ssh/config), so an ssh
// target named by a Host alias reaches the machine `ssh alias` reaches:
// HostName, User, Port, IdentityFile, IdentitiesOnly, ProxyJump (one hop),
// ServerAliveInterval, ServerAliveCountMax, ConnectTimeout,
// UserKnownHostsFile and Include. As in OpenSSH, the first value read for
// a keyword wins (IdentityFile accumulates), Host lines hold patterns with
// '*', '?' and '!' negation, and unknown keywords are ignored. `Match all`
// applies; other Match blocks are skipped (their criteria need what only
// OpenSSH knows, e.g. `exec`). A line agtmux cannot read is an error naming
// file:line. docs/config.md describes this for users.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "libagtcore/base/result.h"

namespace agt::agg {

/// The values a config gives one host (unset: the config says nothing).
struct SshHostConfig {
  std::optional<std::string> hostname;  // %h expanded
  std::optional<std::string> user;
  std::optional<int> port;
  std::vector<std::string> identity_files;  // as written (tokens expanded later)
  std::optional<bool> identities_only;
  std::optional<std::string> proxy_jump;  // "none" kept as given
  std::optional<std::string> proxy_command;  // read only to refuse it
  std::optional<int> server_alive_interval;  // seconds
  std::optional<int> server_alive_count_max;
  std::optional<int> connect_timeout;  // seconds
  std::optional<std::string> user_known_hosts_file;  // the first file listed
};

/// Whether `host` matches a Host line's pattern list (whitespace-separated;
/// '*' any run, '?' one character, a leading '!' negates: a negated match
/// excludes the host whatever else matches).
bool SshHostMatches(std::string_view patterns, std::string_view host);

/// Reads a file's text for Include (path -> text, or an error).
using SshConfigReader = std::function<core::Result<std::string>(const std::string& path)>;

/// Parses `text` (the content of `file`, named in errors) for `host` and
/// merges what applies into `into` (first value wins). Include paths that
/// are relative are taken under `include_dir` (~/.ssh for the user's
/// config); `read` opens them. E_CONFIG_INVALID naming file:line.
core::Status ParseSshConfig(std::string_view text, const std::string& file, std::string_view host,
                            const std::string& include_dir, const SshConfigReader& read, SshHostConfig& into);

/// The config at `path` for `host`; a missing file is an empty config.
core::Result<SshHostConfig> ReadSshConfig(const std::string& path, std::string_view host);

/// The tokens OpenSSH expands in IdentityFile and UserKnownHostsFile.
struct SshTokens {
  std::string home;         // %d and a leading ~
  std::string local_user;   // %u
  std::string host;         // %h: the remote host name (after HostName)
  std::string remote_user;  // %r
  int port = 22;            // %p
  std::string alias;        // %n: the name as given
};
/// `text` with ~ and %d %u %h %r %p %n %% expanded; E_CONFIG_INVALID for
/// another %-token.
core::Result<std::string> ExpandSshTokens(std::string_view text, const SshTokens& tokens);

}  // namespace agt::agg
