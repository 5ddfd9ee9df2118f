// Examples for the help of each command: one table, shown by `--help` (as
// the command's footer) and in the man page's EXAMPLES.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace agt::cli {

struct Example {
  const char* command;  ///< e.g. "list panes --needs-action"; "agtmux " is implied
  const char* what;     ///< what it does, one line
};

/// The examples of the command at `path` ("list panes", "respond"), in
/// order; the examples of a command's subcommands are not included.
std::vector<Example> ExamplesFor(std::string_view path);

/// Every command path that has examples, in the table's order.
std::vector<std::string> PathsWithExamples();

}  // namespace agt::cli
