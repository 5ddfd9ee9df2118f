// Where agtmux keeps things (XDG base directories, docs/spec.md §12):
//   socket:  $XDG_RUNTIME_DIR/agtmux/agtmuxd.sock, else ~/.local/state/agtmux/agtmuxd.sock
//   state:   $XDG_STATE_HOME/agtmux (~/.local/state/agtmux): db, logs, spool
//   config:  $XDG_CONFIG_HOME/agtmux (~/.config/agtmux): config.toml, patterns/
// AGTMUX_SOCKET, AGTMUX_STATE_DIR and AGTMUX_CONFIG_DIR override each one
// (tests use them to stay away from the user's files).
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "libagtcore/base/result.h"

namespace agt::core {

/// Reads an environment variable; injected so tests need not touch environ.
using EnvFn = std::function<const char*(const char*)>;
EnvFn RealEnv();

struct Paths {
  std::string socket_path;
  std::string socket_dir;   // made 0700
  std::string state_dir;    // made 0700
  std::string config_dir;
  std::string db_path;      // state_dir/agtmux.db
  std::string log_path;     // state_dir/agtmuxd.log
  std::string spool_dir;    // state_dir/spool
  std::string screens_dir;  // state_dir/screens: kept screens (detect/kept_screen.h)
  std::string config_file;  // config_dir/config.toml
  std::string user_patterns_dir;  // config_dir/patterns
};

/// Resolves every path from the environment; E_CONFIG_INVALID without HOME
/// and without the XDG variables.
Result<Paths> ResolvePaths(const EnvFn& env);

/// mkdir -p with `mode` on each created directory; fixes the mode of the
/// last component if it exists with wider permissions.
Status EnsureDir(const std::string& path, unsigned mode);

}  // namespace agt::core
