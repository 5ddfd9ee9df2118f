// The table of `agtmux` subcommands. Each entry's setup lives in the file of
// its feature (cli/cmd_*.cc, wrap/, ...); this file only lists them.
#include "cli/command.h"

#include "cli/cmd/shell_init.h"

namespace agt::cli {
CommandSpec HookCommand();
CommandSpec DaemonCommand();
CommandSpec ExplainCommand();
CommandSpec ListCommand();
CommandSpec StatusLineCommand();
CommandSpec TargetCommand();
CommandSpec WatchCommand();
CommandSpec SetupCommand();
CommandSpec WrapCommand();
CommandSpec PatternsCommand();
CommandSpec SendCommand();
CommandSpec RespondCommand();
CommandSpec AttachCommand();
CommandSpec ViewOutputCommand();
CommandSpec KillCommand();
CommandSpec UiCommand();
CommandSpec ConfigCommand();
CommandSpec CompletionCommand();
CommandSpec ManpageCommand();
CommandSpec BridgeCommand();
}  // namespace agt::cli

#include <CLI/CLI.hpp>
#include <cstdio>

namespace agt::cli {
namespace {

CommandSpec VersionCommand() {
  return {"version", "Print the agtmux version", [](CLI::App*) -> Runner {
            return [] {
              std::printf("agtmux %s\n", AGTMUX_VERSION);
              return 0;
            };
          }};
}

}  // namespace

const std::vector<CommandSpec>& Commands() {
  static const std::vector<CommandSpec> table = {
      VersionCommand(),
      UiCommand(),
      ShellInitCommand(),
      HookCommand(),
      ListCommand(),
      WatchCommand(),
      ExplainCommand(),
      StatusLineCommand(),
      TargetCommand(),
      DaemonCommand(),
      SetupCommand(),
      WrapCommand(),
      PatternsCommand(),
      SendCommand(),
      RespondCommand(),
      AttachCommand(),
      ViewOutputCommand(),
      KillCommand(),
      ConfigCommand(),
      CompletionCommand(),
      ManpageCommand(),
      BridgeCommand(),
  };
  return table;
}

}  // namespace agt::cli
