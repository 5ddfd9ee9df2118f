// The tmux client a command typed inside tmux belongs to: the terminal
// attached to the session of the pane the command runs in ($TMUX_PANE), on
// the server named by $TMUX. `agtmux attach` switches that client; the
// command's own terminal is the pane's pty, which tmux knows as no client.
#pragma once

#include <string>

#include "libagtcore/base/result.h"
#include "libagtcore/os/run_argv.h"

namespace agt::cli {

struct CallingClient {
  std::string name;    // #{client_name}: what switch-client -c takes
  std::string socket;  // the server's socket ($TMUX up to its first comma)
};

/// Asks the tmux server of $TMUX which client the calling pane's session is
/// shown in (`display-message -p '#{client_name}'`, which tmux resolves from
/// $TMUX_PANE). E_NOT_FOUND outside tmux or when no client shows that
/// session. `tmux_env` is $TMUX; `run` runs tmux (a fake in the unit tests).
core::Result<CallingClient> FindCallingClient(const char* tmux_env, core::ArgvRunner& run);
/// The same with this process's $TMUX and the real tmux.
core::Result<CallingClient> FindCallingClient();

}  // namespace agt::cli
