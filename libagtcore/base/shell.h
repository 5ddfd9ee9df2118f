// Quoting for the few places that write a command line a POSIX shell will
// read: a hook command in an agent's settings, a command printed for the
// user to run, the remote command of ssh. Everything else runs by argv.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace agt::core {

/// `arg` as one shell word: unchanged when it has only characters no shell
/// treats specially, else in single quotes (a ' written as '\'').
std::string ShellQuote(std::string_view arg);

/// The words of `argv`, each quoted, joined by spaces.
std::string ShellJoin(const std::vector<std::string>& argv);

}  // namespace agt::core
