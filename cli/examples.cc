// The examples table (see examples.h). Every example is a command that
// works as written against a running daemon with agent panes; refs are the
// ones `agtmux list panes` prints (a tmux pane id like %4 works too).
#include "cli/examples.h"

namespace agt::cli {
namespace {

struct Row {
  const char* path;
  Example example;
};

constexpr Row kExamples[] = {
    {"list panes", {"list panes", "every agent pane: state, source (PTY/HOOK/CAP), age"}},
    {"list panes", {"list panes --needs-action", "only panes waiting for an approval or input"}},
    {"list panes", {"list panes --agent claude --json", "Claude Code panes, as JSON"}},
    {"list sessions", {"list sessions", "one row per tmux session, with its panes' states"}},
    {"watch", {"watch", "the live table (redraws in place; Ctrl-C leaves)"}},
    {"watch", {"watch --format jsonl --needs-action", "a JSON line per change, for scripts"}},
    {"explain", {"explain %4", "why pane %4 has its state: the evidence and its source"}},
    {"respond", {"respond %4 yes", "approve what pane %4 is asking"}},
    {"respond", {"respond %4 no", "deny it"}},
    {"respond", {"respond %4 2", "pick the second choice of a question"}},
    {"send", {"send %4 --text 'run the tests' --enter", "type a prompt and press Enter"}},
    {"send", {"send %4 --text 'fix it' --enter --wait --timeout 10m", "and wait for the turn to end"}},
    {"attach", {"attach %4", "jump to pane %4 (switches this tmux client, or attaches)"}},
    {"view-output", {"view-output %4 --lines 50", "the last 50 lines of pane %4"}},
    {"kill", {"kill %4", "interrupt the agent in pane %4 (C-c), after asking"}},
    {"wrap", {"wrap claude", "run Claude Code under the PTY proxy (source PTY)"}},
    {"wrap", {"wrap claude --dangerously-skip-permissions", "arguments after the agent reach it unchanged"}},
    {"setup", {"setup claude", "install the Claude Code hooks (source HOOK)"}},
    {"setup", {"setup claude --dry-run", "show the change as a diff, write nothing"}},
    {"setup", {"setup claude --remove", "take the hooks out again"}},
    {"shell-init", {"shell-init bash >> ~/.bashrc", "make claude, codex and gemini wrapped by default"}},
    {"status-line", {"status-line", "a short summary for tmux's status-right"}},
    {"target add", {"target add vm1 --kind ssh --ssh-target me@vm1", "watch the tmux of another machine"}},
    {"target list", {"target list", "targets and their health"}},
    {"daemon status", {"daemon status", "whether agtmuxd runs, and what it watches"}},
    {"patterns test", {"patterns test --agent claude screen.txt", "the state a saved screen gets"}},
    {"completion", {"completion bash > ~/.local/share/bash-completion/completions/agtmux",
                    "install completions for bash"}},
};

}  // namespace

std::vector<Example> ExamplesFor(std::string_view path) {
  std::vector<Example> out;
  for (const Row& r : kExamples)
    if (path == r.path) out.push_back(r.example);
  return out;
}

std::vector<std::string> PathsWithExamples() {
  std::vector<std::string> out;
  for (const Row& r : kExamples)
    if (out.empty() || out.back() != r.path) out.emplace_back(r.path);
  return out;
}

}  // namespace agt::cli
