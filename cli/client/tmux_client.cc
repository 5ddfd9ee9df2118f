// FindCallingClient: one `tmux display-message` run with the caller's
// environment (tmux reads $TMUX_PANE from it to find the current client),
// its output read with a 2 s bound (core::RunArgv) so a stopped server
// cannot hang attach.
#include "cli/client/tmux_client.h"

#include <cstdlib>
#include <vector>

#include "libagtcore/os/run_argv.h"

namespace agt::cli {

core::Result<CallingClient> FindCallingClient() {
  return FindCallingClient(std::getenv("TMUX"), core::RealArgvRunner::Get());
}

core::Result<CallingClient> FindCallingClient(const char* tmux_env, core::ArgvRunner& run) {
  if (tmux_env == nullptr || *tmux_env == '\0')
    return core::MakeError(core::Err::kNotFound, "not inside tmux ($TMUX is not set)");
  CallingClient out;
  out.socket = tmux_env;
  out.socket = out.socket.substr(0, out.socket.find(','));
  core::RunOptions o;
  o.timeout = 2 * core::kNsPerSec;
  auto r = run.Run({"tmux", "-S", out.socket, "display-message", "-p", "#{client_name}"}, o);
  std::string text = r ? r->out : "";
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  if (text.empty())
    return core::MakeError(core::Err::kNotFound,
                           "no tmux client shows this pane's session (tmux -S " + out.socket + ")");
  out.name = text;
  return out;
}

}  // namespace agt::cli
