// Parses argv against the command table and runs the chosen subcommand.
// CLI11 reports parse errors by exception; this is the one place that
// catches them, so no stack trace or uncaught exception reaches a user.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>
#include <string>

#include "cli/command.h"

namespace agt::cli {

int Main(int argc, char** argv) {
  CLI::App app{"agtmux: the state of every AI coding agent pane in tmux"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("agtmux ") + AGTMUX_VERSION);

  std::vector<std::pair<CLI::App*, Runner>> runners;
  for (const CommandSpec& spec : Commands()) {
    CLI::App* sub = app.add_subcommand(spec.name, spec.help);
    runners.emplace_back(sub, spec.setup(sub));
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }

  try {
    for (auto& [sub, run] : runners)
      if (sub->parsed()) return run();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "agtmux: internal error: %s\n", e.what());
    return 70;
  }
  return 2;
}

}  // namespace agt::cli
