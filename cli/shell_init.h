// The shell functions printed by `agtmux shell-init`.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "libagtcore/result.h"

namespace agt::cli {

struct CommandSpec;

/// The script for `shell` (bash, zsh or fish) defining one function per
/// agent name. E_REQUEST_INVALID for another shell or a bad agent name.
core::Result<std::string> ShellInitScript(std::string_view shell,
                                          const std::vector<std::string>& agents);

CommandSpec ShellInitCommand();

}  // namespace agt::cli
