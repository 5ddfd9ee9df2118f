// What agtmux reads from an OpenSSH known_hosts file beyond what libssh2
// does. libssh2 1.10 takes a marker line ("@revoked host key") for a host
// named "@revoked", so a revoked key also listed plainly would be trusted;
// and it checks a host key against entries of every type, so a server that
// offers ECDSA where known_hosts lists its ed25519 key looks like an
// impersonation. These pure functions read the text (fuzzed in tests/fuzz)
// and name key types and host-key methods; ssh_executor.cc uses them.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace agt::agg {

/// The keys of the file's "@revoked" lines, as "<type> <base64>" (e.g.
/// "ssh-ed25519 AAAA..."), whatever hosts the lines name: a revoked key is
/// never accepted for any host.
std::vector<std::string> RevokedKeys(std::string_view known_hosts_text);

/// The key type name of a libssh2 host key type (LIBSSH2_HOSTKEY_TYPE_*),
/// "" when unknown.
std::string_view HostKeyTypeName(int libssh2_hostkey_type);

/// libssh2's known-host key type mask (LIBSSH2_KNOWNHOST_KEY_*) for a
/// host key type; 0 (any type) when unknown.
int KnownHostKeyMask(int libssh2_hostkey_type);

/// The host-key method preference for libssh2_session_method_pref: the
/// methods of `known_types` (LIBSSH2_HOSTKEY_TYPE_* that known_hosts holds
/// for this host) first, in OpenSSH's order, then every other method, so a
/// server that offers several host keys shows the one we know.
std::string HostKeyMethodPreference(const std::vector<int>& known_types);

/// `pref` (comma-separated methods) with only the methods in `supported`
/// kept, in pref's order. libssh2 1.10 drops unsupported methods from a
/// preference with an overlapping memcpy (AddressSanitizer reports it), so
/// it is only ever given methods it supports.
std::string KeepSupportedMethods(std::string_view pref, const std::vector<std::string>& supported);

}  // namespace agt::agg
