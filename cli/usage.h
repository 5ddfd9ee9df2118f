// Usage errors of the command line, in agtmux's words. An unknown command
// is caught before CLI11 parses (CLI11 would only say "A subcommand is
// required" for `agtmux lsit`), and CLI11's own parse errors are reported
// with the command they belong to, a "did you mean" for a mistyped option,
// and the --help to read. Every usage error exits kExitUsage (2).
#pragma once

#include <string>
#include <vector>

namespace CLI {
class App;
class ParseError;
}  // namespace CLI

namespace agt::cli {

/// Every subcommand of `app` (not only the parsed ones), hidden ones too.
std::vector<const CLI::App*> AllSubcommands(const CLI::App& app);
/// The visible subcommands of `app` (hidden ones have an empty group).
std::vector<const CLI::App*> VisibleSubcommands(const CLI::App& app);
/// "agtmux list panes": `app` and its parents' names.
std::string CommandPath(const CLI::App& app);

/// The deepest command `words` (argv) names, following subcommand names
/// from the root until a word is not one.
const CLI::App& DeepestCommand(const CLI::App& root, const std::vector<std::string>& words);

/// When `words` (argv) names a command that does not exist where a
/// command is required (`lsit`, `list pane`), prints an error with a
/// suggestion and the valid names to stderr and returns true.
bool ReportUnknownCommand(const CLI::App& root, const std::vector<std::string>& words);

/// Prints a CLI11 parse error (not --help or --version) to stderr: the
/// command it belongs to, CLI11's message, "did you mean" for an unknown
/// option, and which --help to read.
void ReportParseError(const CLI::App& root, const CLI::ParseError& error,
                      const std::vector<std::string>& words);

}  // namespace agt::cli
