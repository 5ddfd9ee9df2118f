// Which version of an agent CLI a process runs, found from its files: cheap
// (a readlink, a few small reads, no process started) and reliable for the
// ways the agents are installed. The wrapper asks before it starts the
// child (it knows the program it runs); the daemon asks for a pane's agent
// process it found in /proc (CAP panes). Pattern sets name the versions
// they were verified on (docs/patterns.md `verified_on`), and list, explain
// and the API say when a pane runs another one (docs/api.md).
//
// Where the version comes from, first hit wins:
//   1. the program's own file name when it is a version: Claude Code's
//      native installer keeps ~/.local/share/claude/versions/2.1.197;
//   2. the nearest package.json with a "name" and a "version", walking up at
//      most three directories from the program (symlinks resolved): npm's
//      bin/claude.exe, bundle/gemini.js, bin/codex.js all sit one or two
//      levels below their package's package.json.
// For a process whose program is an interpreter (node, bun, deno), the
// script it runs (the first argument that is not an option) is the program.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace agt::core {

struct AgentVersion {
  std::string version;  // "2.1.330"
  std::string source;   // where it was read: "<dir>/package.json" or "file name <path>"
  bool operator==(const AgentVersion&) const = default;
};

/// The version of the program at `path` (the file the wrapper will exec),
/// or nullopt when none of the places above has one.
std::optional<AgentVersion> AgentVersionFromProgram(const std::string& path);

/// The same for a running process: /proc/<pid>/exe, and /proc/<pid>/cmdline
/// for an interpreter. `proc_root` is "/proc" (tests may pass another tree).
std::optional<AgentVersion> AgentVersionFromProcess(int64_t pid,
                                                    const std::string& proc_root = "/proc");

/// True for a string that looks like a release version: digits, a dot,
/// digits, and optionally more dotted or dashed parts ("2.1.197",
/// "0.61.0-preview.1").
bool LooksLikeVersion(std::string_view s);

}  // namespace agt::core
