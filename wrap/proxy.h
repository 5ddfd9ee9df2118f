// The `agtmux wrap` session: one libuv loop that owns the outer terminal,
// the child's PTY, the analysis timer, the signals and the event emitter.
// Bytes from the child are written to stdout first, untouched, and only then
// recorded and analysed; keystrokes go to the child as they come.
#pragma once

#include <string>
#include <vector>

#include "libagtcore/detect/pattern_analyzer.h"

namespace agt::wrap {

struct ProxyOptions {
  std::string exe_path;              // resolved executable
  std::vector<std::string> argv;     // argv[0] is what the user typed
  std::string agent_type = "generic";
  std::string record_path;           // --record FILE.cast, "" = none
  bool emit_events = true;           // off: no daemon traffic at all
  std::string socket_path;           // agtmuxd's socket
  std::string spool_dir;             // <state_dir>/spool
  /// <state_dir>/screens: where a screen that stayed unreadable is kept
  /// (libagtcore/detect/kept_screen.h); "" = keep none.
  std::string screens_dir;
  unsigned flush_grace_ms = 500;     // at exit, how long to try the daemon
  /// The analyzer's timing (config.toml [wrap], AnalyzerTimingFor); a
  /// pattern set's own [timing] overrides it.
  detect::AnalyzerOptions timing;
};

/// Runs the child to completion. Returns its exit status, 128+signal when
/// it was killed, or 127/126 when it could not be started (with a message
/// on stderr naming the program).
int RunProxy(const ProxyOptions& opts);

}  // namespace agt::wrap
