// Which agent, if any, runs in a pane (signals.md "Identifying an agent
// pane"). The pane's foreground process is found through /proc: field 8 of
// /proc/<pane_pid>/stat is the terminal's foreground process group, whose
// leader's comm and cmdline name the program. Over ssh only
// pane_current_command is known; the same rules apply to it alone.
//
// The rules themselves are libagtcore/detect's (patterns/identify.toml);
// this file adds what only the collectors know: /proc, the wrapper, and a
// process started under another argv[0] (exec -a).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "libagtcore/os/file_reader.h"
#include "libagtcore/base/result.h"
#include "libagtcore/vocabulary.h"

namespace agt::agg {

/// The foreground process of a terminal, from /proc.
struct ProcessView {
  int64_t pid = 0;                 // the foreground process group leader
  std::string comm;                // /proc/<pid>/comm without the newline
  std::vector<std::string> argv;   // /proc/<pid>/cmdline split at NUL
  core::TimeNs started_at = 0;     // wall-clock start (0 when unknown)
};

/// The terminal's foreground process group of the pane (field 8, tpgid, of
/// /proc/<pane_pid>/stat); E_NOT_FOUND when the process is gone.
core::Result<int64_t> ForegroundPgid(int64_t pane_pid, const core::FileReader& files);

/// Reads the foreground process of the pane whose first process is
/// `pane_pid`. E_NOT_FOUND when the process is gone.
core::Result<ProcessView> ForegroundProcess(int64_t pane_pid, const core::FileReader& files);

/// Wall-clock start time of `pid` (stat field 22 + btime); 0 when unknown.
core::TimeNs ProcessStartTime(int64_t pid, const core::FileReader& files);

/// The agent a pane runs, as the collectors decide it (not
/// detect::AgentIdentity, which is one rule of patterns/identify.toml).
struct PaneAgent {
  std::string agent_type;  // "claude", "codex", "gemini", ...; empty = none
  bool wrapped = false;    // `agtmux wrap ...`: the wrapper announces itself
};

/// Applies the rules to a foreground process (`fg` may be null: only
/// `current_command` is known, e.g. over ssh) and the pane title.
PaneAgent IdentifyAgent(std::string_view current_command, const ProcessView* fg,
                            std::string_view title = {});

}  // namespace agt::agg
