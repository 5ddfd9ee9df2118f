// Lifecycle-and-activity analysis (see activity_analyzer.h). Rule ids are
// "wrap.activity.*"; confidence is always low because timing alone cannot
// tell an agent thinking from a user scrolling a pager.
#include "wrap/activity_analyzer.h"

namespace agt::wrap {

detect::Verdict ActivityAnalyzer::Analyze(const detect::AnalyzerInput& in) {
  detect::Verdict v;
  v.signal.confidence = core::Confidence::kLow;
  if (in.last_output != 0) {
    const bool echo = in.last_input != 0 && in.last_output >= in.last_input &&
                      in.last_output - in.last_input <= opts_.echo_window;
    if (!echo && in.last_output > last_work_output_) last_work_output_ = in.last_output;
  }
  if (in.last_output == 0) {
    v.signal.state = core::State::kUnknown;
    v.signal.reason_code = "no_output";
    v.signal.rule_id = "wrap.activity.no_output";
    return v;
  }
  if (last_work_output_ != 0 && in.now - last_work_output_ < opts_.active_window) {
    v.signal.state = core::State::kRunning;
    v.signal.rule_id = "wrap.activity.output";
    v.recheck_at = last_work_output_ + opts_.active_window;
  } else {
    v.signal.state = core::State::kIdle;
    v.signal.reason_code = "output_quiet";
    v.signal.rule_id = "wrap.activity.quiet";
  }
  if (in.signals != nullptr && !in.signals->title.empty())
    v.signal.evidence = "title: " + in.signals->title;
  return v;
}

}  // namespace agt::wrap
