// known_hosts reading and host-key method names (see known_hosts.h).
#include "aggregator/targets/known_hosts.h"

#include <libssh2.h>

#include <algorithm>

#include "libagtcore/base/text.h"

namespace agt::agg {
namespace {

struct KeyType {
  int hostkey_type;      // LIBSSH2_HOSTKEY_TYPE_*
  int knownhost_mask;    // LIBSSH2_KNOWNHOST_KEY_*
  const char* name;      // as known_hosts and the wire name it
  const char* methods;   // host-key methods that produce it
};

// OpenSSH's order of preference.
constexpr KeyType kTypes[] = {
    {LIBSSH2_HOSTKEY_TYPE_ED25519, LIBSSH2_KNOWNHOST_KEY_ED25519, "ssh-ed25519", "ssh-ed25519"},
    {LIBSSH2_HOSTKEY_TYPE_ECDSA_256, LIBSSH2_KNOWNHOST_KEY_ECDSA_256, "ecdsa-sha2-nistp256", "ecdsa-sha2-nistp256"},
    {LIBSSH2_HOSTKEY_TYPE_ECDSA_384, LIBSSH2_KNOWNHOST_KEY_ECDSA_384, "ecdsa-sha2-nistp384", "ecdsa-sha2-nistp384"},
    {LIBSSH2_HOSTKEY_TYPE_ECDSA_521, LIBSSH2_KNOWNHOST_KEY_ECDSA_521, "ecdsa-sha2-nistp521", "ecdsa-sha2-nistp521"},
    {LIBSSH2_HOSTKEY_TYPE_RSA, LIBSSH2_KNOWNHOST_KEY_SSHRSA, "ssh-rsa", "rsa-sha2-512,rsa-sha2-256,ssh-rsa"},
    {LIBSSH2_HOSTKEY_TYPE_DSS, LIBSSH2_KNOWNHOST_KEY_SSHDSS, "ssh-dss", "ssh-dss"},
};

const KeyType* Find(int hostkey_type) {
  for (const KeyType& t : kTypes)
    if (t.hostkey_type == hostkey_type) return &t;
  return nullptr;
}

// The whitespace-separated fields of a line.
std::vector<std::string_view> Fields(std::string_view line) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t') ++i;
    if (i > start) out.push_back(line.substr(start, i - start));
  }
  return out;
}

}  // namespace

std::vector<std::string> RevokedKeys(std::string_view text) {
  std::vector<std::string> out;
  for (std::string_view line : core::SplitLines(text)) {
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    std::vector<std::string_view> f = Fields(line);
    // @revoked <hosts> <type> <base64> [comment]
    if (f.size() < 4 || f[0] != "@revoked") continue;
    out.push_back(std::string(f[2]) + " " + std::string(f[3]));
  }
  return out;
}

std::string_view HostKeyTypeName(int type) {
  const KeyType* t = Find(type);
  return t ? t->name : "";
}

int KnownHostKeyMask(int type) {
  const KeyType* t = Find(type);
  return t ? t->knownhost_mask : 0;
}

std::string HostKeyMethodPreference(const std::vector<int>& known_types) {
  std::string pref;
  auto add = [&](const KeyType& t) { pref += (pref.empty() ? "" : ",") + std::string(t.methods); };
  for (const KeyType& t : kTypes)
    if (std::find(known_types.begin(), known_types.end(), t.hostkey_type) != known_types.end()) add(t);
  for (const KeyType& t : kTypes)
    if (std::find(known_types.begin(), known_types.end(), t.hostkey_type) == known_types.end()) add(t);
  return pref;
}

std::string KeepSupportedMethods(std::string_view pref, const std::vector<std::string>& supported) {
  std::string out;
  while (!pref.empty()) {
    const size_t comma = pref.find(',');
    const std::string_view method = pref.substr(0, comma);
    if (std::find(supported.begin(), supported.end(), method) != supported.end())
      out += (out.empty() ? "" : ",") + std::string(method);
    pref = comma == std::string_view::npos ? std::string_view() : pref.substr(comma + 1);
  }
  return out;
}

}  // namespace agt::agg
