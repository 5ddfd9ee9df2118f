// Locating the user's default tmux server socket (see tmux_socket.h).
#include "aggregator/targets/tmux_socket.h"

#include "libagtcore/net/tmux_identity.h"

namespace agt::agg {

std::string ResolveHostSocket(const core::EnvFn& env, uid_t uid) {
  if (const char* t = env("TMUX"); t && *t) {
    auto parsed = net::ParseTmuxEnv(t);
    if (parsed && !parsed->socket_path.empty()) return parsed->socket_path;
  }
  std::string dir = "/tmp";
  if (const char* d = env("TMUX_TMPDIR"); d && *d) dir = d;
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  return dir + "/tmux-" + std::to_string(uid) + "/default";
}

}  // namespace agt::agg
