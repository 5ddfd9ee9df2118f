// The `agtmux` command table. Every subcommand is one entry: a name, a line
// of help, and a setup function that declares its options on a CLI11
// subcommand and returns the function that runs it (like ninja's tool table
// and tmux's command table). Entries live in cli/commands.cc.
#pragma once

#include <functional>
#include <vector>

namespace CLI {
class App;
}

namespace agt::cli {

/// Runs a parsed subcommand; returns the process exit status.
using Runner = std::function<int()>;

struct CommandSpec {
  const char* name;
  const char* help;
  std::function<Runner(CLI::App* sub)> setup;
};

/// Every subcommand, in the order `agtmux --help` lists them.
const std::vector<CommandSpec>& Commands();

/// Runs the CLI with argv; the whole of `main`. Never throws.
int Main(int argc, char** argv);

}  // namespace agt::cli
