// Replay: feeds an asciicast recording through the same screen pipeline as
// the live proxy (scanner, libvterm screen, analyzer, the same analysis
// timing), with no PTY, and returns the state timeline. This is what
// `agtmux wrap --replay FILE.cast` prints and what fixture tests assert on.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "libagtcore/detect/analyzer.h"
#include "libagtcore/vocabulary.h"
#include "wrap/asciicast.h"

namespace agt::wrap {

struct TimelineEntry {
  core::TimeNs at = 0;  // since the start of the recording
  core::Signal signal;
};

struct ReplayResult {
  std::vector<TimelineEntry> timeline;
  detect::Screen final_screen;
  detect::StreamSignals signals;
};

/// Replays `cast` for `agent_type` ("generic" when empty) with the
/// analyzer the live wrapper would use (MakeAnalyzer).
ReplayResult Replay(const Cast& cast, std::string_view agent_type);
/// Same, with a given analyzer.
ReplayResult Replay(const Cast& cast, std::string_view agent_type,
                    std::unique_ptr<detect::Analyzer> analyzer);

/// One line per entry: "  1.234s  running  low  wrap.activity.output  <evidence>".
std::string FormatTimeline(const std::vector<TimelineEntry>& timeline);

}  // namespace agt::wrap
