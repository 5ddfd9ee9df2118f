// The `agtmux` command table. Every subcommand is one entry: a name, a line
// of help, and a setup function that declares its options on a CLI11
// subcommand and returns the function that runs it (like ninja's tool table
// and tmux's command table). Entries live in cli/commands.cc.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
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
  /// Only for a command that runs another program with its own arguments
  /// (`wrap`): given the words after the command's name, how many are the
  /// command's own options. The words after those (the program and its
  /// arguments, after "--" when it was given) never reach CLI11, which
  /// would read "[a,b]" as a list; they are stored in *tail byte for byte
  /// before the runner runs.
  std::function<size_t(const std::vector<std::string>& words)> own_words = nullptr;
  std::shared_ptr<std::vector<std::string>> tail = nullptr;
};

/// Every subcommand, in the order `agtmux --help` lists them.
const std::vector<CommandSpec>& Commands();

/// Runs the CLI with argv; the whole of `main`. Never throws.
int Main(int argc, char** argv);

/// The agtmux binary, as what a command writes for later names it (the hook
/// commands `agtmux setup` installs) and as the place agtmuxd is looked for
/// beside: /proc/self/exe, unless SetSelfPath named another, which a program
/// that runs Main inside itself does (the in-process tests, naming the
/// agtmux the build made).
std::string SelfPath();
void SetSelfPath(std::string path);

}  // namespace agt::cli
