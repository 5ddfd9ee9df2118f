// The analyzer seam: one interface that turns what a pane shows into a
// canonical state. The wrapper feeds it its libvterm screen (PTY); the
// daemon's poller feeds it a capture-pane screen (CAP). The pattern engine
// (libagtcore/detect) is the real implementation; the wrapper also has a
// lifecycle-and-activity-only one for agents without a pattern set.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "libagtcore/vocabulary.h"

namespace agt::detect {

using core::TimeNs;

/// A rendered screen: one UTF-8 string per row, top to bottom, trailing
/// blanks trimmed. Wide glyphs appear once (no padding cell).
struct Screen {
  int rows = 0;
  int cols = 0;
  std::vector<std::string> lines;
  int cursor_row = 0;  // 0-based
  int cursor_col = 0;
  bool alt_screen = false;
};

/// Signals taken from the byte stream before it reaches the screen.
/// Times use the same clock as AnalyzerInput::now; 0 = never seen.
struct StreamSignals {
  std::string title;               // last OSC 0 / OSC 2 title
  TimeNs title_at = 0;
  std::string notification;        // last OSC 9 / OSC 777 notify body
  TimeNs notification_at = 0;
  int progress_state = -1;         // last OSC 9;4 state 0..4; -1 = never
  int progress_value = -1;         // its percentage, -1 if absent
  TimeNs progress_at = 0;
  int64_t bel_count = 0;
  TimeNs bel_at = 0;
  /// The last OSC 7501 program status the agent reported about itself
  /// ("state=blocked:app=codex:kind=permission"); a "?" query is no report.
  std::string program_status;
  TimeNs program_status_at = 0;
};

struct AnalyzerInput {
  const Screen* screen = nullptr;
  const StreamSignals* signals = nullptr;
  std::string_view agent_type;     // "claude", "codex", "gemini", "generic", ...
  std::string_view recent_output;  // the raw_stream region: recent output, escapes removed
  TimeNs now = 0;
  TimeNs last_output = 0;          // 0 = no output yet
  TimeNs last_input = 0;           // 0 = no input yet (CAP mode never knows)
  bool captured = false;           // true for CAP (capture-pane), false for PTY
};

struct Verdict {
  core::Signal signal;             // state, reason, confidence, rule, evidence, detail
  TimeNs recheck_at = 0;           // analyse again at this time even without
                                   // new input (settle, debounce); 0 = no need
};

class Analyzer {
 public:
  virtual ~Analyzer() = default;
  /// Pure with respect to its input and its own timing memory: the same
  /// sequence of inputs gives the same sequence of verdicts.
  virtual Verdict Analyze(const AnalyzerInput& in) = 0;
};

/// The pattern analyzer for `agent_type` ("claude", "codex", "gemini", or
/// anything else -> the generic set), with the built-in pattern sets and the
/// user's overrides. Defined in pattern_analyzer.cc, which also has an
/// overload taking an explicit library and timing options.
std::unique_ptr<Analyzer> CreateAnalyzer(std::string_view agent_type);

}  // namespace agt::detect
