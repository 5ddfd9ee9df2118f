// Parses argv against the command table and runs the chosen subcommand.
// CLI11 reports parse errors by exception; this is the one place that
// catches them, so no stack trace or uncaught exception reaches a user.
// `agtmux` with no arguments on a terminal is `agtmux ui`.
// A command that runs another program (CommandSpec::own_words) gets the
// program's words untouched: they are cut off argv before CLI11 sees it.
// `agtmux help [COMMAND...]` is `agtmux [COMMAND...] --help`. A usage
// error (usage.h) exits kExitUsage; the exit codes are in exit_codes.h.
#include <CLI/CLI.hpp>
#include <unistd.h>

#include <cstdio>
#include <algorithm>
#include <exception>
#include <string>
#include <vector>

#include "cli/command.h"
#include "cli/examples.h"
#include "cli/exit_codes.h"
#include "cli/process_title.h"
#include "cli/usage.h"

namespace agt::cli {
namespace {

// Each command's --help ends with its examples (cli/examples.cc); the root's
// with where help lives and the exit codes.
void AddExampleFooters(CLI::App* app) {
  for (CLI::App* c : app->get_subcommands([](CLI::App*) { return true; })) AddExampleFooters(c);
  if (app->get_parent() == nullptr) {
    app->footer(kExitCodesHelp);
    return;
  }
  std::string path = CommandPath(*app).substr(sizeof("agtmux"));
  std::string text;
  for (const Example& e : ExamplesFor(path)) text += "  agtmux " + std::string(e.command) + "\n      " + e.what + "\n";
  if (text.empty()) return;
  std::string own = app->get_footer();  // wrap's usage line
  app->footer((own.empty() ? "" : own + "\n\n") + "Examples:\n" + text + "Exit codes: agtmux --help.");
}

}  // namespace

namespace {
std::string& SelfPathOverride() {
  static std::string path;
  return path;
}
}  // namespace

std::string SelfPath() {
  if (!SelfPathOverride().empty()) return SelfPathOverride();
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return "agtmux";
  return std::string(buf, static_cast<size_t>(n));
}

void SetSelfPath(std::string path) { SelfPathOverride() = std::move(path); }

int Main(int argc, char** argv) {
  RememberArgv(argc, argv);
  CLI::App app{"agtmux: the state of every AI coding agent pane in tmux"};
  app.name("agtmux");  // not argv[0]: messages name the command as typed
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("agtmux ") + AGTMUX_VERSION);

  std::vector<std::pair<CLI::App*, Runner>> runners;
  for (const CommandSpec& spec : Commands()) {
    CLI::App* sub = app.add_subcommand(spec.name, spec.help);
    runners.emplace_back(sub, spec.setup(sub));
  }
  AddExampleFooters(&app);

  std::vector<std::string> words(argv, argv + argc);
  // `agtmux` alone on a terminal opens the interactive view; without a
  // terminal (a script, a pipe) it still asks for a subcommand.
  if (argc == 1 && isatty(STDIN_FILENO) && isatty(STDOUT_FILENO)) words.push_back("ui");
  if (words.size() >= 2 && words[1] == "help") {
    words.erase(words.begin() + 1);
    words.push_back("--help");
  }
  if (ReportUnknownCommand(app, words)) return kExitUsage;
  if (words.size() >= 2) {
    for (const CommandSpec& spec : Commands()) {
      if (!spec.own_words || words[1] != spec.name) continue;
      const std::vector<std::string> after(words.begin() + 2, words.end());
      const size_t own = std::min(spec.own_words(after), after.size());
      spec.tail->assign(after.begin() + static_cast<std::ptrdiff_t>(own), after.end());
      words.resize(2 + own);
    }
  }
  std::vector<const char*> cut;
  for (const std::string& w : words) cut.push_back(w.c_str());
  try {
    app.parse(static_cast<int>(cut.size()), cut.data());
  } catch (const CLI::Success& e) {
    return app.exit(e);  // --help, --version
  } catch (const CLI::ParseError& e) {
    ReportParseError(app, e, words);
    return kExitUsage;
  }

  try {
    for (auto& [sub, run] : runners)
      if (sub->parsed()) return run();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "agtmux: internal error: %s\n", e.what());
    return kExitInternal;
  }
  return kExitUsage;
}

}  // namespace agt::cli
