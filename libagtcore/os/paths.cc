// Where agtmux keeps its files, resolved from the XDG base-directory
// variables with AGTMUX_* overrides (see paths.h), and a mkdir -p that
// leaves private directories private. Empty or relative XDG values are
// ignored, as the XDG spec asks.
#include "libagtcore/os/paths.h"

#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace agt::core {
namespace {

/// The variable's value if set, non-empty and (when `absolute`) absolute.
std::string Get(const EnvFn& env, const char* name, bool absolute) {
  const char* v = env(name);
  if (v == nullptr || *v == '\0') return "";
  if (absolute && v[0] != '/') return "";
  return v;
}

std::string Dirname(const std::string& path) {
  size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

std::string OctalMode(unsigned mode) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "%04o", mode & 07777);
  return buf;
}

}  // namespace

EnvFn RealEnv() {
  return [](const char* name) -> const char* { return std::getenv(name); };
}

Result<Paths> ResolvePaths(const EnvFn& env) {
  std::string home = Get(env, "HOME", true);
  auto need_home = [&](const char* what) -> Status {
    if (!home.empty()) return Ok();
    return MakeError(Err::kConfigInvalid,
                     std::string("cannot place the ") + what +
                         ": HOME is not set (or not absolute) and neither are the "
                         "XDG or AGTMUX_* variables");
  };
  Paths p;

  p.state_dir = Get(env, "AGTMUX_STATE_DIR", false);
  if (p.state_dir.empty()) {
    std::string xdg = Get(env, "XDG_STATE_HOME", true);
    if (xdg.empty()) {
      if (Status st = need_home("state directory"); !st.ok()) return st.error();
      xdg = home + "/.local/state";
    }
    p.state_dir = xdg + "/agtmux";
  }

  p.config_dir = Get(env, "AGTMUX_CONFIG_DIR", false);
  if (p.config_dir.empty()) {
    std::string xdg = Get(env, "XDG_CONFIG_HOME", true);
    if (xdg.empty()) {
      if (Status st = need_home("config directory"); !st.ok()) return st.error();
      xdg = home + "/.config";
    }
    p.config_dir = xdg + "/agtmux";
  }

  p.socket_path = Get(env, "AGTMUX_SOCKET", false);
  if (p.socket_path.empty()) {
    std::string runtime = Get(env, "XDG_RUNTIME_DIR", true);
    p.socket_path = runtime.empty() ? p.state_dir + "/agtmuxd.sock"
                                    : runtime + "/agtmux/agtmuxd.sock";
  }
  constexpr size_t kMaxSocketPath = sizeof(sockaddr_un{}.sun_path) - 1;
  if (p.socket_path.size() > kMaxSocketPath)
    return MakeError(Err::kConfigInvalid,
                     "socket path \"" + p.socket_path + "\" is " +
                         std::to_string(p.socket_path.size()) +
                         " bytes; a Unix socket path may have at most " +
                         std::to_string(kMaxSocketPath) + " (set AGTMUX_SOCKET)");
  p.socket_dir = Dirname(p.socket_path);

  p.db_path = p.state_dir + "/agtmux.db";
  p.log_path = p.state_dir + "/agtmuxd.log";
  p.spool_dir = p.state_dir + "/spool";
  p.screens_dir = p.state_dir + "/screens";
  p.config_file = p.config_dir + "/config.toml";
  p.user_patterns_dir = p.config_dir + "/patterns";
  return p;
}

Status EnsureDir(const std::string& path, unsigned mode) {
  if (path.empty()) return MakeError(Err::kIo, "cannot create a directory with an empty path");
  // Create each missing component from the top down.
  for (size_t pos = 1; pos <= path.size(); ++pos) {
    if (pos != path.size() && path[pos] != '/') continue;
    std::string part = path.substr(0, pos);
    if (part.back() == '/') continue;
    struct stat st {};
    if (stat(part.c_str(), &st) == 0) {
      if (!S_ISDIR(st.st_mode))
        return MakeError(Err::kIo, "\"" + part + "\" exists and is not a directory");
      continue;
    }
    if (errno != ENOENT)
      return MakeError(Err::kIo, "cannot stat \"" + part + "\": " + std::strerror(errno));
    if (mkdir(part.c_str(), mode) != 0 && errno != EEXIST)
      return MakeError(Err::kIo, "cannot create \"" + part + "\": " + std::strerror(errno));
    // mkdir's mode is filtered by the umask; set the exact one asked for.
    if (chmod(part.c_str(), mode) != 0)
      return MakeError(Err::kIo, "cannot chmod \"" + part + "\" to " + OctalMode(mode) +
                                     ": " + std::strerror(errno));
  }
  struct stat st {};
  if (stat(path.c_str(), &st) != 0)
    return MakeError(Err::kIo, "cannot stat \"" + path + "\": " + std::strerror(errno));
  // Ours, or someone who made it first in a shared place could read or
  // plant files in it (the socket, the lock, the spool).
  if (st.st_uid != geteuid())
    return MakeError(Err::kIo, "\"" + path + "\" belongs to uid " + std::to_string(st.st_uid) +
                                   ", not to us (uid " + std::to_string(geteuid()) + ")");
  unsigned have = st.st_mode & 07777;
  if ((have & ~mode) != 0) {
    // Wider than asked (e.g. a socket directory made 0755 by hand): narrow
    // it, but only if it is ours; never chmod someone else's directory.
    if (st.st_uid != geteuid())
      return MakeError(Err::kIo, "\"" + path + "\" has mode " + OctalMode(have) +
                                     " and belongs to uid " + std::to_string(st.st_uid) +
                                     ", not to us; expected " + OctalMode(mode));
    if (chmod(path.c_str(), have & mode) != 0)
      return MakeError(Err::kIo, "cannot chmod \"" + path + "\" to " +
                                     OctalMode(have & mode) + ": " + std::strerror(errno));
  }
  return Ok();
}

}  // namespace agt::core
