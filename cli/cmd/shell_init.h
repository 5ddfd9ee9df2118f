// The shell functions printed by `agtmux shell-init`.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "libagtcore/base/result.h"

namespace agt::cli {

struct CommandSpec;

/// The script for `shell` (bash, zsh or fish) defining one function per
/// agent name. E_REQUEST_INVALID for another shell or a bad agent name.
core::Result<std::string> ShellInitScript(std::string_view shell,
                                          const std::vector<std::string>& agents);

/// The tmux binding that opens `agtmux ui` in a popup (docs/ui.md).
inline constexpr const char* kTmuxPopupBinding = "bind-key a display-popup -E -w 90% -h 80% agtmux ui";

/// How to add kTmuxPopupBinding, each line starting with `prefix`, when
/// tmux is in use ($TMUX) and neither ~/.tmux.conf nor
/// $XDG_CONFIG_HOME/tmux/tmux.conf mentions `agtmux ui` yet; else "".
std::string TmuxPopupHint(const std::string& prefix);

CommandSpec ShellInitCommand();

}  // namespace agt::cli
