// How the wrapper shows in `ps` and in tmux: tmux names a window after its
// pane's foreground process (automatic-rename, #{pane_current_command}: the
// first word of /proc/<pid>/cmdline), which for a wrapped agent is the
// wrapper. ShowAsCommand rewrites this process's argument area in place so
// that the window shows the agent's name, as it would unwrapped, while the
// rest (`wrap <agent> ...`) and the process name (comm, `agtmux`) stay, so
// the daemon still knows the pane as wrapped (aggregator/observe/pane_agent.h).
#pragma once

#include <string_view>

namespace agt::cli {

/// Keeps main()'s argument vector for ShowAsCommand.
void RememberArgv(int argc, char** argv);

/// Replaces argv[0] with `name` and moves the other arguments up behind it
/// (NUL-filling what is left), within the original area; when `name` is
/// longer than the original argv[0], the arguments are cut at the area's
/// end. Does nothing when `name` alone does not fit the area or
/// RememberArgv was not called.
void ShowAsCommand(std::string_view name);

}  // namespace agt::cli
