// `agtmux shell-init bash|zsh|fish`: prints shell functions that run the
// agent CLIs under `agtmux wrap`, so that `claude`, `codex` and `gemini`
// typed in a tmux pane are wrapped without the user changing habits.
//
// The functions fall through to the real binary when they must not wrap:
// outside tmux, inside an already wrapped process (AGTMUX_WRAPPED), with
// AGTMUX_AUTOWRAP=0, or when agtmux itself is no longer on PATH. `command
// claude` bypasses them, as it bypasses any shell function.
#include "cli/cmd/shell_init.h"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cli/command.h"

namespace agt::cli {
namespace {

bool ValidAgentName(const std::string& name) {
  if (name.empty() || name.size() > 64) return false;
  for (char c : name) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
              (c >= '0' && c <= '9') || c == '-' || c == '_';
    if (!ok) return false;
  }
  return !(name[0] >= '0' && name[0] <= '9') && name[0] != '-';
}

}  // namespace

std::string TmuxPopupHint(const std::string& prefix) {
  const char* tmux = std::getenv("TMUX");
  if (!tmux || !*tmux) return "";
  const char* home = std::getenv("HOME");
  const char* xdg = std::getenv("XDG_CONFIG_HOME");
  std::vector<std::string> confs;
  if (home && *home) confs.push_back(std::string(home) + "/.tmux.conf");
  if (xdg && *xdg) confs.push_back(std::string(xdg) + "/tmux/tmux.conf");
  else if (home && *home) confs.push_back(std::string(home) + "/.config/tmux/tmux.conf");
  for (const std::string& path : confs) {
    std::ifstream f(path);
    std::stringstream text;
    text << f.rdbuf();
    if (text.str().find("agtmux ui") != std::string::npos) return "";
  }
  return prefix + "tmux: to open the agent view in a popup (prefix a), add to ~/.tmux.conf:\n" + prefix + "    " +
         kTmuxPopupBinding + "\n";
}

core::Result<std::string> ShellInitScript(std::string_view shell,
                                          const std::vector<std::string>& agents) {
  for (const std::string& a : agents) {
    if (!ValidAgentName(a))
      return core::MakeError(core::Err::kRequestInvalid,
                             "invalid agent name \"" + a +
                                 "\" (letters, digits, '-' and '_' only)");
  }
  std::string out;
  if (shell == "bash" || shell == "zsh") {
    out +=
        "# agtmux shell integration (" + std::string(shell) +
        "): run AI agent CLIs under `agtmux wrap` inside tmux.\n"
        "# Bypass with `command <agent>` or AGTMUX_AUTOWRAP=0.\n"
        "__agtmux_wrap() {\n"
        "  local __agtmux_agent=\"$1\"; shift\n"
        "  if [ -z \"${TMUX-}\" ] || [ -n \"${AGTMUX_WRAPPED-}\" ] || \\\n"
        "     [ \"${AGTMUX_AUTOWRAP-1}\" = 0 ] || ! command -v agtmux >/dev/null 2>&1; then\n"
        "    command \"$__agtmux_agent\" \"$@\"\n"
        "  else\n"
        "    command agtmux wrap \"$__agtmux_agent\" \"$@\"\n"
        "  fi\n"
        "}\n";
    for (const std::string& a : agents)
      out += a + "() { __agtmux_wrap " + a + " \"$@\"; }\n";
    return out;
  }
  if (shell == "fish") {
    out +=
        "# agtmux shell integration (fish): run AI agent CLIs under `agtmux wrap` inside tmux.\n"
        "# Bypass with `command <agent>` or AGTMUX_AUTOWRAP=0.\n"
        "function __agtmux_wrap\n"
        "    set -l __agtmux_agent $argv[1]\n"
        "    set -e argv[1]\n"
        "    if test -z \"$TMUX\"; or test -n \"$AGTMUX_WRAPPED\"; or test \"$AGTMUX_AUTOWRAP\" = 0; or not command -sq agtmux\n"
        "        command $__agtmux_agent $argv\n"
        "    else\n"
        "        command agtmux wrap $__agtmux_agent $argv\n"
        "    end\n"
        "end\n";
    for (const std::string& a : agents)
      out += "function " + a + " --wraps " + a + "\n    __agtmux_wrap " + a +
             " $argv\nend\n";
    return out;
  }
  return core::MakeError(core::Err::kRequestInvalid,
                         "unsupported shell \"" + std::string(shell) +
                             "\" (expected bash, zsh or fish)");
}

CommandSpec ShellInitCommand() {
  return {"shell-init",
          "Print shell functions that wrap claude/codex/gemini: eval \"$(agtmux shell-init bash)\"",
          [](CLI::App* sub) -> Runner {
            auto shell = std::make_shared<std::string>();
            auto agents = std::make_shared<std::vector<std::string>>(
                std::vector<std::string>{"claude", "codex", "gemini"});
            sub->add_option("shell", *shell, "bash, zsh or fish")->required();
            sub->add_option("--agents", *agents,
                            "Agents to wrap (default: claude codex gemini)")
                ->delimiter(',');
            return [shell, agents] {
              auto script = ShellInitScript(*shell, *agents);
              if (!script.ok()) {
                std::fprintf(stderr, "agtmux: %s\n", script.error().ToString().c_str());
                return 2;
              }
              std::fputs(script->c_str(), stdout);
              // A comment: the script is eval'd, and read by whoever prints it.
              std::fputs(TmuxPopupHint("# ").c_str(), stdout);
              return 0;
            };
          }};
}

}  // namespace agt::cli
