// ActivityAnalyzer: a timing-only analyzer, kept for tests and as a
// reference (the wrapper runs the detection engine's pattern analyzer, see
// wrap/analyzer_factory.cc). It knows only what the byte stream's timing
// tells: output flowing means running; output that stopped means idle. It
// never claims a waiting state: that needs a pattern.
// Timing follows docs/spec.md §7: output within 200 ms is activity, but output
// within 300 ms of the user's input is echo, not work.
#pragma once

#include "libagtcore/detect/analyzer.h"

namespace agt::wrap {

struct ActivityAnalyzerOptions {
  core::TimeNs active_window = 200 * core::kNsPerMs;  // output this recent = running
  core::TimeNs echo_window = 300 * core::kNsPerMs;    // output this soon after input = echo
};

class ActivityAnalyzer final : public detect::Analyzer {
 public:
  explicit ActivityAnalyzer(ActivityAnalyzerOptions opts = {}) : opts_(opts) {}
  detect::Verdict Analyze(const detect::AnalyzerInput& in) override;

 private:
  ActivityAnalyzerOptions opts_;
  core::TimeNs last_work_output_ = 0;  // the last output that was not echo
};

}  // namespace agt::wrap
